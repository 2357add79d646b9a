import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierTLS
import CourierURL
import Testing

@Suite struct HTTPClientBaseURLTests {
    typealias Client = HTTPClient<FormRequestSerializer, JSONResponseSerializer>

    @Test func trailingSlashIsAddedToANonEmptyPath() throws {
        let client = try Client(baseURL: "http://example.com/api/v1")
        #expect(client.baseURL?.description == "http://example.com/api/v1/")
        #expect(try client.url(for: "users/1").description == "http://example.com/api/v1/users/1")
        #expect(try client.url(for: "/root").description == "http://example.com/root")
        #expect(try client.url(for: "../v2/x").description == "http://example.com/api/v2/x")
        #expect(try client.url(for: "?q=1").description == "http://example.com/api/v1/?q=1")
        #expect(try client.url(for: "https://other.example/x").description == "https://other.example/x")
    }

    @Test func emptyPathAndSlashEndingPathAreKept() throws {
        #expect(try Client(baseURL: "http://example.com").baseURL?.description == "http://example.com")
        #expect(try Client(baseURL: "http://example.com/a/").baseURL?.description == "http://example.com/a/")
        #expect(try Client(baseURL: "http://example.com").url(for: "x").description == "http://example.com/x")
    }

    @Test func noBaseURLNeedsAbsoluteURLs() throws {
        let client = try Client(baseURL: nil)
        #expect(try client.url(for: "http://h/p").description == "http://h/p")
    }

    @Test func invalidBaseURLsAreRefused() {
        for text in ["ftp://example.com/", "example.com/path", "http://", "not a url"] {
            #expect(throws: HTTPClientError.self) { try Client(baseURL: text) }
        }
    }

    @Test func pinningNeedsAnHTTPSBaseURL() throws {
        var configuration = SessionConfiguration()
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = [try PublicKeyPin(sha256Digest: [UInt8](repeating: 7, count: 32))]
        configuration.securityPolicy = policy
        do {
            _ = try Client(baseURL: "http://example.com/", configuration: configuration)
            Issue.record("a pinning policy over http was accepted")
        } catch {
            #expect(error.code == .pinningWithoutTLS)
        }
        _ = try Client(baseURL: "https://example.com/", configuration: configuration)
    }

    @Test func aSerializerFailureThrowsBeforeAnyTask() throws {
        let client = try Client(baseURL: "http://127.0.0.1:9/")
        do {
            _ = try client.dataTask(.get, "x", headers: HTTPHeaders([("Bad\nName", "v")]))
            Issue.record("an invalid header field was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.curlExitCode == 43)
        }
    }
}

/// An error of the caller's own.
private struct CallerError: Error, Equatable { let tag: Int }

@Suite struct CallerErrorIdentityTests {
    typealias Client = HTTPClient<FormRequestSerializer, JSONResponseSerializer>

    @Test("an error thrown by a custom query-string closure reaches the caller as itself, under .invalidRequest")
    func queryStringClosure() throws {
        var defaults = RequestDefaults()
        defaults.queryStringSerialization = { _, _, _ in throw CallerError(tag: 7) }
        let client = try Client(baseURL: "http://127.0.0.1:9/", requestSerializer: FormRequestSerializer(defaults: defaults),
                                responseSerializer: JSONResponseSerializer())
        #expect { _ = try client.dataTask(.get, "x", parameters: .dictionary([("a", .int(1))])) } throws: {
            guard let error = $0 as? SessionError else { return false }
            return error.code == .invalidRequest && error.requestSerializationError?.code == .queryStringSerializationFailed
                && error.underlying as? CallerError == CallerError(tag: 7)
        }
        // Courier's own refusal has no caller's error underneath.
        let plain = try Client(baseURL: "http://127.0.0.1:9/")
        #expect { _ = try plain.dataTask(.get, "x", parameters: .array([.int(1)])) } throws: {
            let error = $0 as? SessionError
            return error?.requestSerializationError?.code == .parametersNotKeyValue && error?.underlying == nil
        }
    }

    @Test("an error thrown while constructing a multipart body reaches the caller as itself; nothing is sent")
    func multipartClosure() async throws {
        let client = try Client(baseURL: "http://127.0.0.1:9/")
        do {
            _ = try await client.post("upload", parameters: nil) { form in
                try form.appendField(name: "a", value: "b")
                throw CallerError(tag: 3)
            }
            Issue.record("the post should fail")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.requestSerializationError?.code == .multipartFailed)
            #expect(error.underlying as? CallerError == CallerError(tag: 3))
        }
    }
}
