// Trait HTTPTypes: conversions both ways keep order, case and repeated fields; invalid input is a
// typed error, never a silent rewrite; the Session and HTTPClient entry points against the
// loopback server (repeated response fields arrive one by one, every status is a response).

#if HTTPTypes
import Courier
import CourierBytes
import CourierHTTP1
import CourierHTTPTypes
import CourierLoopbackServer
import CourierURL
import HTTPTypes
import Testing

/// Fields a subscript setter would have folded or dropped, interleaved with others.
let repeatedFields: HTTPHeaders = HTTPHeaders([
    ("Set-Cookie", "a=1; Path=/"), ("Vary", "Accept"), ("set-cookie", "b=2, c=3; Expires=Wed, 21 Oct 2015 07:28:00 GMT"),
    ("WWW-Authenticate", "Basic realm=\"x\""), ("Vary", "Accept-Encoding"), ("WWW-Authenticate", "Digest realm=\"y\", nonce=\"n\""),
    ("X-Empty", ""),
])

@Suite(.timeLimit(.minutes(1)))
struct HTTPTypesConversionTests {
    @Test("fields: order, case and repetition survive both ways")
    func fieldsRoundTrip() throws {
        let fields = try HTTPFields(courier: repeatedFields)
        #expect(fields.count == repeatedFields.count)
        #expect(fields[values: .setCookie] == ["a=1; Path=/", "b=2, c=3; Expires=Wed, 21 Oct 2015 07:28:00 GMT"])
        #expect(fields[values: .vary] == ["Accept", "Accept-Encoding"])
        #expect(fields[values: .wwwAuthenticate].count == 2)
        #expect(fields.map(\.name.rawName) == repeatedFields.fields.map(\.name))
        let back = HTTPHeaders(fields)
        #expect(back == repeatedFields)
    }

    @Test("fields: a bad name or value is a typed error naming the field")
    func invalidFields() {
        #expect(throws: HTTPTypesConversionError(.invalidFieldName, "field 1 has the name \"Bad Name\", which is not a token")) {
            try HTTPFields(courier: HTTPHeaders([("A", "1"), ("Bad Name", "x")]))
        }
        for value in ["a\r\nInjected: 1", "a\u{0}b", " padded"] {
            #expect(throws: HTTPTypesConversionError.self) { try HTTPFields(courier: HTTPHeaders([("X", value)])) }
            do { _ = try HTTPFields(courier: HTTPHeaders([("X", value)])) } catch { #expect(error.code == .invalidFieldValue) }
        }
    }

    @Test("requests: Courier → HTTPTypes keeps target, authority, port and fields")
    func requestToHTTPTypes() throws {
        var request = Courier.HTTPRequest(method: .post, uri: try URI(parsing: "https://user:pw@[::1]:8443/a%20b/c?q=1&q=2#frag"),
                                          headers: repeatedFields)
        var converted = try HTTPTypes.HTTPRequest(request)
        #expect(converted.method == .post)
        #expect(converted.scheme == "https")
        #expect(converted.authority == "[::1]:8443")  // never the userinfo
        #expect(converted.path == "/a%20b/c?q=1&q=2")  // never the fragment
        #expect(HTTPHeaders(converted.headerFields) == repeatedFields)

        request.requestTarget = "*"
        request.method = .options
        converted = try HTTPTypes.HTTPRequest(request)
        #expect(converted.path == "*")

        let connect = Courier.HTTPRequest(method: .connect, uri: try URI(parsing: "http://example.com:443/"))
        converted = try HTTPTypes.HTTPRequest(connect)
        #expect(converted.method == .connect && converted.path == nil && converted.scheme == nil)
        #expect(converted.authority == "example.com:443")
    }

    @Test("requests: HTTPTypes → Courier, with and without a base URL")
    func requestFromHTTPTypes() throws {
        var fields = HTTPFields()
        fields.append(HTTPField(name: .accept, value: "a/b"))
        fields.append(HTTPField(name: .accept, value: "c/d"))
        let absolute = HTTPTypes.HTTPRequest(method: .put, scheme: "http", authority: "127.0.0.1:8080", path: "/x/y?z=1",
                                             headerFields: fields)
        let request = try Courier.HTTPRequest(absolute, body: .bytes(ByteBuffer(string: "hi")), timeout: .seconds(3))
        #expect(request.method == .put)
        #expect(request.uri.description == "http://127.0.0.1:8080/x/y?z=1")
        #expect(request.headers["Accept"] == ["a/b", "c/d"])
        #expect(request.body.length == 2)
        #expect(request.timeout == .seconds(3))

        // No authority: appended to the base URL's path, trailing slash or not.
        let relative = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items/7?full=1")
        for base in ["http://h:81/api", "http://h:81/api/", "http://h:81/api?drop=1"] {
            let resolved = try Courier.HTTPRequest(relative, baseURL: try URI(parsing: base))
            #expect(resolved.uri.description == "http://h:81/api/items/7?full=1", "base \(base)")
        }
        let root = try Courier.HTTPRequest(relative, baseURL: try URI(parsing: "https://h"))
        #expect(root.uri.description == "https://h/items/7?full=1")

        let asterisk = HTTPTypes.HTTPRequest(method: .options, scheme: "http", authority: "h", path: "*")
        let options = try Courier.HTTPRequest(asterisk)
        #expect(options.effectiveRequestTarget == "*")
    }

    @Test("requests: what cannot be sent is refused with a code")
    func requestRefusals() {
        let relative = HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/x")
        do { _ = try Courier.HTTPRequest(relative); Issue.record("no error") } catch { #expect(error.code == .invalidTarget) }
        let ftp = HTTPTypes.HTTPRequest(method: .get, scheme: "ftp", authority: "h", path: "/x")
        do { _ = try Courier.HTTPRequest(ftp); Issue.record("no error") } catch { #expect(error.code == .invalidTarget) }
        var websocket = HTTPTypes.HTTPRequest(method: .connect, scheme: "https", authority: "h", path: "/chat")
        websocket.extendedConnectProtocol = "websocket"
        do { _ = try Courier.HTTPRequest(websocket); Issue.record("no error") } catch { #expect(error.code == .unsupported) }
    }

    @Test("responses: both ways, fields in order, obs-text kept byte for byte")
    func responses() throws {
        var headers = repeatedFields
        headers.add(name: "Content-Type", value: "text/plain; charset=UTF-8")
        headers.add(name: "X-Latin", value: "caf\u{e9}")
        let head = HTTPResponseHead(status: 401, reason: "Unauthorized", headers: headers)
        let response = try HTTPTypes.HTTPResponse(head)
        #expect(response.status.code == 401 && response.status.reasonPhrase == "Unauthorized")
        #expect(response.headerFields[values: .wwwAuthenticate] == ["Basic realm=\"x\"", "Digest realm=\"y\", nonce=\"n\""])
        #expect(response.headerFields[.init("X-Latin")!] == "caf\u{e9}")
        let back = HTTPResponseHead(response)
        #expect(back.status == 401 && back.reason == "Unauthorized" && back.headers == headers)
        #expect(back.mimeType == "text/plain" && back.charset == "utf-8")
        #expect(throws: HTTPTypesConversionError.self) { try HTTPTypes.HTTPResponse(HTTPResponseHead(status: 1000)) }
    }
}

@Suite(.serialized, .timeLimit(.minutes(1)))
struct HTTPTypesSessionTests {
    /// Every repeated field the server sends, in order, in a 401 (a status, not an error).
    static let repeated: LoopbackScript = { _ in
        [.response(status: 401, headers: ["Set-Cookie: a=1", "Vary: Accept", "Set-Cookie: b=2", "WWW-Authenticate: Basic realm=\"r\"",
                                          "Vary: Accept-Encoding", "WWW-Authenticate: Bearer"], body: "no")]
    }

    @Test("Session.data: repeated request and response fields cross the wire one by one")
    func sessionData() async throws {
        let server = try await LoopbackServer.start(.init(scripts: ["/repeated": Self.repeated]))
        let session = Session()
        var fields = HTTPFields()
        fields.append(HTTPField(name: .init("X-Twice")!, value: "1"))
        fields.append(HTTPField(name: .accept, value: "*/*"))
        fields.append(HTTPField(name: .init("X-Twice")!, value: "2"))
        let echo = HTTPTypes.HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/echo?x=1",
                                         headerFields: fields)
        let (response, body) = try await session.data(for: echo, body: .bytes(ByteBuffer(string: "payload")))
        #expect(response.status == .ok)
        let text = body.readableString
        #expect(text.contains("[\"X-Twice\",\"1\"],[\"Accept\",\"*/*\"],[\"X-Twice\",\"2\"]"), "\(text)")
        #expect(text.contains("\"target\":\"/echo?x=1\"") && text.contains("\"body\":\"payload\""), "\(text)")

        let repeated = HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/repeated")
        let (denied, deniedBody) = try await session.data(for: repeated)
        #expect(denied.status.code == 401)
        #expect(deniedBody.readableString == "no")
        #expect(denied.headerFields[values: .setCookie] == ["a=1", "b=2"])
        #expect(denied.headerFields[values: .vary] == ["Accept", "Accept-Encoding"])
        #expect(denied.headerFields[values: .wwwAuthenticate] == ["Basic realm=\"r\"", "Bearer"])
        await session.invalidateAndCancel()
        await server.shutdown()
    }

    @Test("Session.stream: the body streams with its declared length; HEAD has none")
    func sessionStream() async throws {
        let server = try await LoopbackServer.start()
        let session = Session()
        let get = HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/bytes/100000")
        let streamed = try await session.stream(for: get)
        #expect(streamed.response.status.reasonPhrase == "OK")
        #expect(streamed.expectedLength == 100_000)
        var total = 0
        for try await chunk in streamed.body { total += chunk.readableBytes }
        #expect(total == 100_000)

        let chunked = try await session.stream(for: HTTPTypes.HTTPRequest(method: .get, scheme: "http",
                                                                           authority: "127.0.0.1:\(server.port)", path: "/chunked/1000"))
        #expect(chunked.expectedLength == nil)
        #expect(try await chunked.body.collect().readableBytes == 1000)

        // Not decoded (the default, curl without --compressed): the compressed bytes, as declared.
        let gzipRequest = HTTPTypes.HTTPRequest(method: .get, scheme: "http", authority: "127.0.0.1:\(server.port)", path: "/gzip/5000")
        let gzip = try await session.stream(for: gzipRequest)
        let compressed = try #require(gzip.expectedLength)
        #expect(compressed > 0 && compressed < 5000)
        #expect(try await gzip.body.collect().readableBytes == compressed)
        // Decoded: Content-Length counts the encoded bytes, so no length is promised.
        var decoding = SessionConfiguration()
        decoding.acceptsCompressedResponses = true
        let decodingSession = Session(configuration: decoding)
        let decoded = try await decodingSession.stream(for: gzipRequest)
        #expect(decoded.expectedLength == nil)
        #expect(try await decoded.body.collect().readableBytes == 5000)
        await decodingSession.invalidateAndCancel()

        let head = try await session.stream(for: HTTPTypes.HTTPRequest(method: .head, scheme: "http",
                                                                        authority: "127.0.0.1:\(server.port)", path: "/bytes/10"))
        #expect(head.expectedLength == 0)
        #expect(head.response.headerFields[.contentLength] == "10")
        #expect(try await head.body.collect().readableBytes == 0)
        await session.invalidateAndCancel()
        await server.shutdown()
    }

    @Test("HTTPClient.send: the path is appended to the base URL; the serializer validates")
    func client() async throws {
        let server = try await LoopbackServer.start(.init(scripts: [
            "/api/items": { request in [.response(status: 200, headers: ["Content-Type: text/plain", "Vary: A", "Vary: B"],
                                                  body: request.target)] },
        ]))
        let client = try HTTPClient(baseURL: "http://127.0.0.1:\(server.port)/api", requestSerializer: FormRequestSerializer(),
                                    responseSerializer: StringResponseSerializer())
        let (value, response) = try await client.send(HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/items?id=7"))
        #expect(value == "/api/items?id=7")
        #expect(response.headerFields[values: .vary] == ["A", "B"])

        do {
            _ = try await client.send(HTTPTypes.HTTPRequest(method: .get, scheme: nil, authority: nil, path: "/missing"))
            Issue.record("a 404 passed the serializer")
        } catch {
            #expect(error.afNetworkingCode == -1011)
        }
        await client.invalidateSession(cancelingTasks: true)
        await server.shutdown()
    }
}
#endif
