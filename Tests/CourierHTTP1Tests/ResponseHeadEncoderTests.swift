// Response heads: status line, framing per status / request method / peer version, validation.

import CourierBytes
import CourierHTTP1
import CourierTestSupport
import Testing

private func respond(_ status: Int, reason: String? = nil, _ headers: HTTPHeaders = HTTPHeaders(), body: BodyLength = .none,
                     method: HTTPMethod = .get, peer: HTTPVersion = .http1_1,
                     version: HTTPVersion = .http1_1) throws(HTTPEncodingError) -> EncodedHead {
    try ResponseHeadEncoder(version: version).encode(status: status, reason: reason, headers: headers, body: body,
                                                     requestMethod: method, peerVersion: peer)
}

private func wire(_ head: EncodedHead) -> String { String(decoding: head.bytes.joined, as: UTF8.self) }

private func expected(_ text: String) -> String { String(decoding: crlf(text), as: UTF8.self) }

@Suite("Response head encoder")
struct ResponseHeadEncoderTests {
    @Test("200 with a known length")
    func okKnown() throws {
        let head = try respond(200, ["Content-Type": "text/plain", "Server": "courier-test"], body: .known(5))
        #expect(wire(head) == expected("HTTP/1.1 200 OK\nContent-Type: text/plain\nServer: courier-test\nContent-Length: 5\n\n"))
        #expect(head.framing == .contentLength(5))
        #expect(head.bytes.pieces.count == 1)
    }

    @Test("200 without a body says Content-Length: 0 (else it would run to the close)")
    func okEmpty() throws {
        let head = try respond(200)
        #expect(wire(head) == expected("HTTP/1.1 200 OK\nContent-Length: 0\n\n"))
        #expect(head.framing == .noBody)
    }

    @Test("unknown length: chunked to HTTP/1.1, close-delimited to HTTP/1.0")
    func unknownLength() throws {
        let chunked = try respond(200, body: .unknown)
        #expect(wire(chunked) == expected("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"))
        #expect(chunked.framing == .chunked)

        let old = try respond(200, body: .unknown, peer: .http1_0)
        #expect(wire(old) == expected("HTTP/1.1 200 OK\nConnection: close\n\n"))
        #expect(old.framing == .untilClose)

        let already = try respond(200, ["Connection": "keep-alive, Close"], body: .unknown, peer: .http1_0)
        #expect(wire(already) == expected("HTTP/1.1 200 OK\nConnection: keep-alive, Close\n\n"))
        #expect(already.framing == .untilClose)

        let server10 = try respond(200, body: .unknown, version: .http1_0)
        #expect(wire(server10) == expected("HTTP/1.0 200 OK\nConnection: close\n\n"))
        #expect(server10.framing == .untilClose)

        #expect(throws: HTTPEncodingError(.conflictingFraming, fieldIndex: 0, fieldName: "Transfer-Encoding")) {
            try respond(200, ["Transfer-Encoding": "chunked"], body: .unknown, peer: .http1_0)
        }
    }

    @Test("1xx and 204 carry no framing fields and no body")
    func noBodyStatuses() throws {
        #expect(wire(try respond(100)) == expected("HTTP/1.1 100 Continue\n\n"))
        #expect(wire(try respond(101, ["Upgrade": "websocket", "Connection": "Upgrade"]))
                == expected("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\n\n"))
        let noContent = try respond(204, body: .known(0))
        #expect(wire(noContent) == expected("HTTP/1.1 204 No Content\n\n"))
        #expect(noContent.framing == .noBody)
        for status in [100, 103, 204] {
            #expect(throws: HTTPEncodingError(.conflictingFraming)) { try respond(status, body: .known(1)) }
            #expect(throws: HTTPEncodingError(.conflictingFraming)) { try respond(status, body: .unknown) }
            #expect(throws: HTTPEncodingError(.conflictingFraming, fieldIndex: 1, fieldName: "Content-Length")) {
                try respond(status, ["A": "b", "Content-Length": "0"])
            }
            #expect(throws: HTTPEncodingError(.conflictingFraming, fieldIndex: 0, fieldName: "transfer-encoding")) {
                try respond(status, ["transfer-encoding": "chunked"])
            }
        }
    }

    @Test("2xx to CONNECT opens a tunnel: no framing")
    func connectTunnel() throws {
        let head = try respond(200, reason: "Connection Established", method: .connect)
        #expect(wire(head) == expected("HTTP/1.1 200 Connection Established\n\n"))
        #expect(head.framing == .noBody)
        // A refusal of CONNECT is an ordinary response with a body.
        #expect(wire(try respond(407, method: .connect)) == expected("HTTP/1.1 407 \nContent-Length: 0\n\n"))
    }

    @Test("304 adds no framing; a caller Content-Length must agree with the representation")
    func notModified() throws {
        let head = try respond(304, ["ETag": "\"v1\""], body: .known(10))
        #expect(wire(head) == expected("HTTP/1.1 304 Not Modified\nETag: \"v1\"\n\n"))
        #expect(head.framing == .noBody)
        let kept = try respond(304, ["Content-Length": "10"], body: .known(10))
        #expect(wire(kept) == expected("HTTP/1.1 304 Not Modified\nContent-Length: 10\n\n"))
        #expect(throws: HTTPEncodingError(.conflictingFraming, fieldIndex: 0, fieldName: "Content-Length")) {
            try respond(304, ["Content-Length": "11"], body: .known(10))
        }
    }

    @Test("HEAD: the fields a GET would get, but no body")
    func headResponses() throws {
        let known = try respond(200, body: .known(1234), method: .head)
        #expect(wire(known) == expected("HTTP/1.1 200 OK\nContent-Length: 1234\n\n"))
        #expect(known.framing == .noBody)
        let unknown = try respond(200, body: .unknown, method: .head)
        #expect(wire(unknown) == expected("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n"))
        #expect(unknown.framing == .noBody)
        let old = try respond(200, body: .unknown, method: .head, peer: .http1_0)
        #expect(wire(old) == expected("HTTP/1.1 200 OK\n\n"))
        #expect(old.framing == .noBody)
    }

    @Test("status codes outside 100–599 are refused")
    func statusRange() throws {
        for status in [-1, 0, 99, 600, 999, 1000, Int.max, Int.min] {
            #expect(throws: HTTPEncodingError(.invalidStatus), "status \(status)") { try respond(status) }
        }
        #expect(wire(try respond(599)) == expected("HTTP/1.1 599 \nContent-Length: 0\n\n"))
        #expect(wire(try respond(100)).hasPrefix("HTTP/1.1 100 "))
    }

    @Test("reason phrases: default, custom, empty, obs-text; control bytes refused")
    func reasonPhrases() throws {
        #expect(wire(try respond(404)).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
        #expect(wire(try respond(404, reason: "Nope")).hasPrefix("HTTP/1.1 404 Nope\r\n"))
        #expect(wire(try respond(404, reason: "")).hasPrefix("HTTP/1.1 404 \r\n"))
        #expect(wire(try respond(200, reason: "Très\tbien")).hasPrefix("HTTP/1.1 200 Très\tbien\r\n"))
        #expect(throws: HTTPEncodingError(.invalidReasonPhrase, offset: 2)) { try respond(200, reason: "OK\r\nSet-Cookie: x") }
        #expect(throws: HTTPEncodingError(.invalidReasonPhrase, offset: 0)) { try respond(200, reason: "\u{7F}") }
        #expect(ResponseHeadEncoder.standardReasonPhrase(for: 418) == "")
        #expect(ResponseHeadEncoder.standardReasonPhrase(for: 503) == "Service Unavailable")
    }

    @Test("fields are validated as in requests; Host is an ordinary response field")
    func fieldValidation() throws {
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 1, fieldName: "Location", offset: 2)) {
            try respond(302, ["Content-Type": "text/html", "Location": "/a\r\nSet-Cookie: evil"])
        }
        #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 0, fieldName: "Bad\u{0}", offset: 3)) {
            try respond(200, ["Bad\u{0}": "v"])
        }
        let hosts = try respond(200, ["Host": "a", "Host": "b/c"])
        #expect(wire(hosts) == expected("HTTP/1.1 200 OK\nHost: a\nHost: b/c\nContent-Length: 0\n\n"))
        #expect(throws: HTTPEncodingError(.unsupportedVersion)) { try respond(200, version: HTTPVersion(major: 1, minor: 2)) }
    }

    @Test("encoding into a buffer appends, and leaves it untouched on error")
    func intoBuffer() throws {
        var buffer = ByteBuffer(string: "x")
        let framing = try ResponseHeadEncoder().encode(status: 201, headers: ["Location": "/new"], body: .unknown, into: &buffer)
        #expect(framing == .chunked)
        #expect(buffer.readableString == "x" + expected("HTTP/1.1 201 Created\nLocation: /new\nTransfer-Encoding: chunked\n\n"))
        let before = buffer
        #expect(throws: HTTPEncodingError(.invalidStatus)) {
            _ = try ResponseHeadEncoder().encode(status: 42, headers: [:], body: .none, into: &buffer)
        }
        #expect(throws: HTTPEncodingError.self) {
            _ = try ResponseHeadEncoder().encode(status: 200, headers: ["A": "ok", "B": "bad\n"], body: .none, into: &buffer)
        }
        #expect(buffer == before && buffer.writerIndex == before.writerIndex)
    }
}
