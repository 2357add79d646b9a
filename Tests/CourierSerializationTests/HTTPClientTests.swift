import Courier
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
