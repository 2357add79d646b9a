// Request heads: exact bytes, framing choices, Host placement, and refusal of bad input before any
// byte is produced.

import CourierBytes
import CourierHTTP1
import CourierTestSupport
import Testing

private func encode(_ method: HTTPMethod = .get, _ target: String = "/", host: String = "example.com",
                    _ headers: HTTPHeaders = HTTPHeaders(), body: BodyLength = .none,
                    version: HTTPVersion = .http1_1) throws(HTTPEncodingError) -> EncodedHead {
    try RequestHeadEncoder(version: version).encode(method: method, target: target, host: host, headers: headers, body: body)
}

private func wire(_ head: EncodedHead) -> String { String(decoding: head.bytes.joined, as: UTF8.self) }

private func expected(_ text: String) -> String { String(decoding: crlf(text), as: UTF8.self) }

@Suite("Request head encoder")
struct RequestHeadEncoderTests {
    @Test("GET without a body: request line, Host first, no length")
    func getNoBody() throws {
        let head = try encode(.get, "/index.html?q=1", ["Accept": "*/*", "User-Agent": "courier/1"])
        #expect(wire(head) == expected("GET /index.html?q=1 HTTP/1.1\nHost: example.com\nAccept: */*\nUser-Agent: courier/1\n\n"))
        #expect(head.framing == .noBody)
        // One buffer piece holding the whole head.
        #expect(head.bytes.pieces.count == 1)
        if case .buffer = head.bytes.pieces.first {} else { Issue.record("head is not one buffer piece") }
    }

    @Test("POST with a known length: Content-Length after the caller's fields")
    func postKnownLength() throws {
        let head = try encode(.post, "/upload", ["Content-Type": "text/plain"], body: .known(5))
        #expect(wire(head) == expected("POST /upload HTTP/1.1\nHost: example.com\nContent-Type: text/plain\nContent-Length: 5\n\n"))
        #expect(head.framing == .contentLength(5))
    }

    @Test("POST, PUT and PATCH without a body send Content-Length: 0; other methods send nothing")
    func zeroLength() throws {
        for method in [HTTPMethod.post, .put, .patch] {
            let head = try encode(method, "/r")
            #expect(wire(head) == expected("\(method) /r HTTP/1.1\nHost: example.com\nContent-Length: 0\n\n"))
            #expect(head.framing == .noBody)
        }
        for method in [HTTPMethod.get, .head, .delete, .options, .trace, try HTTPMethod("post")] {
            let head = try encode(method, "/r")
            #expect(wire(head) == expected("\(method) /r HTTP/1.1\nHost: example.com\n\n"))
        }
    }

    @Test("PUT with an unknown length is chunked")
    func putUnknownLength() throws {
        let head = try encode(.put, "/file", ["Expect": "100-continue"], body: .unknown)
        #expect(wire(head) == expected("PUT /file HTTP/1.1\nHost: example.com\nExpect: 100-continue\nTransfer-Encoding: chunked\n\n"))
        #expect(head.framing == .chunked)
    }

    @Test("a GET with a known length of zero still says so")
    func getKnownZero() throws {
        let head = try encode(.get, "/", body: .known(0))
        #expect(wire(head) == expected("GET / HTTP/1.1\nHost: example.com\nContent-Length: 0\n\n"))
        #expect(head.framing == .contentLength(0))
    }

    @Test("a caller Host replaces the default and goes first, spelled as given")
    func customHost() throws {
        let head = try encode(.get, "/", host: "default.example", ["Accept": "*/*", "host": "other.example:8080", "X-A": "1"])
        #expect(wire(head) == expected("GET / HTTP/1.1\nhost: other.example:8080\nAccept: */*\nX-A: 1\n\n"))
        // The default host is not used, so it is not validated either.
        let unused = try encode(.get, "/", host: "", ["Host": "h"])
        #expect(wire(unused) == expected("GET / HTTP/1.1\nHost: h\n\n"))
    }

    @Test("a second Host, or a bad Host, is refused")
    func badHosts() {
        #expect(throws: HTTPEncodingError(.invalidHost, fieldIndex: 2, fieldName: "HOST")) {
            try encode(.get, "/", ["Host": "a", "X": "1", "HOST": "b"])
        }
        #expect(throws: HTTPEncodingError(.invalidHost, fieldIndex: 0, fieldName: "Host", offset: 1)) {
            try encode(.get, "/", ["Host": "a/b"])
        }
        #expect(throws: HTTPEncodingError(.invalidHost, offset: 0)) { try encode(.get, "/", host: "") }
        #expect(throws: HTTPEncodingError(.invalidHost, offset: 7)) { try encode(.get, "/", host: "example com") }
        #expect(throws: HTTPEncodingError(.invalidHost, offset: 11)) { try encode(.get, "/", host: "example.com\r\nX: 1") }
    }

    @Test("duplicate fields are kept, in order")
    func duplicatesKept() throws {
        let head = try encode(.get, "/", ["Accept": "a", "Cookie": "x=1", "accept": "b", "Cookie": "y=2"])
        #expect(wire(head) == expected("GET / HTTP/1.1\nHost: example.com\nAccept: a\nCookie: x=1\naccept: b\nCookie: y=2\n\n"))
    }

    @Test("a caller Content-Length or Transfer-Encoding that agrees is kept once")
    func agreeingFramingKept() throws {
        let cl = try encode(.post, "/", ["content-length": "12", "X": "y"], body: .known(12))
        #expect(wire(cl) == expected("POST / HTTP/1.1\nHost: example.com\ncontent-length: 12\nX: y\n\n"))
        let zero = try encode(.post, "/", ["Content-Length": "0"])
        #expect(wire(zero) == expected("POST / HTTP/1.1\nHost: example.com\nContent-Length: 0\n\n"))
        let te = try encode(.post, "/", ["Transfer-Encoding": "Chunked"], body: .unknown)
        #expect(wire(te) == expected("POST / HTTP/1.1\nHost: example.com\nTransfer-Encoding: Chunked\n\n"))
        let coded = try encode(.post, "/", ["Transfer-Encoding": "gzip", "Transfer-Encoding": "chunked"], body: .unknown)
        #expect(wire(coded) == expected("POST / HTTP/1.1\nHost: example.com\nTransfer-Encoding: gzip\nTransfer-Encoding: chunked\n\n"))
        #expect(coded.framing == .chunked)
    }

    @Test("a caller Content-Length or Transfer-Encoding that contradicts the body is refused")
    func conflictingFraming() {
        func conflict(_ index: Int, _ name: String) -> HTTPEncodingError {
            HTTPEncodingError(.conflictingFraming, fieldIndex: index, fieldName: name)
        }
        #expect(throws: conflict(1, "Content-Length")) { try encode(.post, "/", ["A": "1", "Content-Length": "4"], body: .known(5)) }
        #expect(throws: conflict(0, "Content-Length")) { try encode(.post, "/", ["Content-Length": "5"], body: .unknown) }
        #expect(throws: conflict(0, "Content-Length")) { try encode(.get, "/", ["Content-Length": "5"]) }
        #expect(throws: conflict(0, "Transfer-Encoding")) { try encode(.post, "/", ["Transfer-Encoding": "chunked"], body: .known(5)) }
        #expect(throws: conflict(0, "Transfer-Encoding")) { try encode(.post, "/", ["Transfer-Encoding": "chunked"]) }
        #expect(throws: conflict(0, "Transfer-Encoding")) { try encode(.post, "/", ["Transfer-Encoding": "chunked, gzip"], body: .unknown) }
        #expect(throws: conflict(0, "Transfer-Encoding")) { try encode(.post, "/", ["Transfer-Encoding": "gzip"], body: .unknown) }
        #expect(throws: conflict(1, "Transfer-Encoding")) {
            try encode(.post, "/", ["Transfer-Encoding": "chunked", "Transfer-Encoding": "chunked"], body: .unknown)
        }
        // Two Content-Length fields, even equal ones, are refused (request smuggling).
        #expect(throws: conflict(1, "Content-Length")) {
            try encode(.post, "/", ["Content-Length": "5", "Content-Length": "5"], body: .known(5))
        }
        // A Content-Length that is not 1*DIGIT is a bad value, pointing at the bad byte.
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "Content-Length", offset: 0)) {
            try encode(.post, "/", ["Content-Length": "+5"], body: .known(5))
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "Content-Length", offset: 1)) {
            try encode(.post, "/", ["Content-Length": "5,5"], body: .known(5))
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "Content-Length", offset: 0)) {
            try encode(.post, "/", ["Content-Length": ""], body: .known(5))
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "Content-Length", offset: nil)) {
            try encode(.post, "/", ["Content-Length": "99999999999999999999"], body: .known(5))
        }
    }

    @Test("HTTP/1.0 requests: no chunked coding; other versions are refused")
    func versions() throws {
        let head = try encode(.post, "/", body: .known(3), version: .http1_0)
        #expect(wire(head) == expected("POST / HTTP/1.0\nHost: example.com\nContent-Length: 3\n\n"))
        #expect(throws: HTTPEncodingError(.conflictingFraming)) { try encode(.post, "/", body: .unknown, version: .http1_0) }
        #expect(throws: HTTPEncodingError(.conflictingFraming, fieldIndex: 0, fieldName: "Transfer-Encoding")) {
            try encode(.post, "/", ["Transfer-Encoding": "chunked"], body: .unknown, version: .http1_0)
        }
        #expect(throws: HTTPEncodingError(.unsupportedVersion)) { try encode(version: HTTPVersion(major: 2, minor: 0)) }
        #expect(throws: HTTPEncodingError(.unsupportedVersion)) { try encode(version: HTTPVersion(major: 0, minor: 9)) }
    }

    @Test("request-target forms reach the wire unchanged")
    func targetForms() throws {
        #expect(wire(try encode(.options, "*")) == expected("OPTIONS * HTTP/1.1\nHost: example.com\n\n"))
        #expect(wire(try encode(.connect, "example.com:443", host: "example.com:443"))
                == expected("CONNECT example.com:443 HTTP/1.1\nHost: example.com:443\n\n"))
        #expect(wire(try encode(.get, "http://example.com/a?b")) == expected("GET http://example.com/a?b HTTP/1.1\nHost: example.com\n\n"))
        let bytes = try RequestHeadEncoder().encode(method: .get, target: Array("/x%20y".utf8), host: "h", headers: [:], body: .none)
        #expect(wire(bytes) == expected("GET /x%20y HTTP/1.1\nHost: h\n\n"))
        let sliced = try RequestHeadEncoder().encode(method: .get, target: Array("//x".utf8).dropFirst(), host: "h", headers: [:], body: .none)
        #expect(wire(sliced) == expected("GET /x HTTP/1.1\nHost: h\n\n"))
    }

    @Test("bad request-targets are refused with the offset of the bad byte")
    func badTargets() {
        func bad(_ offset: Int) -> HTTPEncodingError { HTTPEncodingError(.invalidRequestTarget, offset: offset) }
        #expect(throws: bad(0)) { try encode(.get, "") }
        #expect(throws: bad(4)) { try encode(.get, "/a/b c") }
        #expect(throws: bad(2)) { try encode(.get, "/a\r\nHost: evil") }
        #expect(throws: bad(1)) { try encode(.get, "/\u{0}") }
        #expect(throws: bad(2)) { try encode(.get, "/p\u{e9}") }
        #expect(throws: bad(0)) { try encode(.get, "*") }
        #expect(throws: bad(0)) { try encode(.connect, "/") }
        #expect(throws: bad(1)) { try RequestHeadEncoder().encode(method: .get, target: [0x2F, 0xFF], host: "h", headers: [:], body: .none) }
    }

    @Test("every control byte in a name or value is refused with its field and offset")
    func forbiddenBytesInFields() {
        var controls: [UInt8] = Array(0x00...0x1F)
        controls.append(0x7F)
        for byte in controls {
            let text = String(decoding: [byte], as: UTF8.self)
            #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 1, fieldName: "X-\(text)a", offset: 2), "byte \(byte)") {
                try encode(.get, "/", ["Accept": "*/*", "X-\(text)a": "v"])
            }
            guard byte != 0x09 else { continue }
            #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 1, fieldName: "X-Test", offset: 3), "byte \(byte)") {
                try encode(.get, "/", ["Accept": "*/*", "X-Test": "abc\(text)def"])
            }
        }
        #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 0, fieldName: "", offset: 0)) { try encode(.get, "/", ["": "v"]) }
        #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 0, fieldName: "Bad Name", offset: 3)) { try encode(.get, "/", ["Bad Name": "v"]) }
        #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 0, fieldName: "X:Y", offset: 1)) { try encode(.get, "/", ["X:Y": "v"]) }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "X", offset: 0)) { try encode(.get, "/", ["X": " padded"]) }
        // The first bad field wins, whatever comes after it.
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "A", offset: 1)) {
            try encode(.get, "/", ["A": "1\n", "B C": "2"])
        }
    }

    @Test("the target is checked before the fields, the fields before the framing")
    func checkOrder() {
        #expect(throws: HTTPEncodingError(.invalidRequestTarget, offset: 0)) {
            try encode(.post, "", ["A": "1\n", "Content-Length": "9"], body: .known(1))
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 1, fieldName: "A", offset: 1)) {
            try encode(.post, "/", ["Content-Length": "9", "A": "1\n"], body: .known(1))
        }
    }

    @Test("encoding into a buffer appends, and leaves it untouched on error")
    func intoBuffer() throws {
        let encoder = RequestHeadEncoder()
        var buffer = ByteBuffer(string: "previous")
        let framing = try encoder.encode(method: .post, target: "/", host: "h", headers: [:], body: .known(2), into: &buffer)
        #expect(framing == .contentLength(2))
        #expect(buffer.readableString == "previous" + expected("POST / HTTP/1.1\nHost: h\nContent-Length: 2\n\n"))
        let before = buffer
        for (target, headers, body) in [("/ x", HTTPHeaders(), BodyLength.none), ("/", ["A\r": "1"], .none),
                                        ("/", ["A": "\r"], .none), ("/", ["Content-Length": "1"], .known(2))] {
            #expect(throws: HTTPEncodingError.self) {
                _ = try encoder.encode(method: .post, target: target, host: "h", headers: headers, body: body, into: &buffer)
            }
            #expect(buffer == before)
            #expect(buffer.writerIndex == before.writerIndex)
        }
    }

    @Test("random heads: the wire form lists every field in order and the sizes add up")
    func randomHeads() throws {
        var random = EncoderTestRandom(seed: 0x5EED_0001)
        let nameBytes = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&'*+.^`|~".utf8)
        let valueBytes = Array("abcXYZ019 \t!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".utf8)
        for _ in 0..<300 {
            var headers = HTTPHeaders()
            var lines: [String] = []
            for _ in 0..<random.next(below: 12) {
                var name = String(decoding: (0...random.next(below: 10)).map { _ in nameBytes[random.next(below: nameBytes.count)] }, as: UTF8.self)
                if HTTPHeaders.namesEqual(name, "host") || HTTPHeaders.namesEqual(name, "content-length")
                    || HTTPHeaders.namesEqual(name, "transfer-encoding") { name += "-x" }
                var value = (0..<random.next(below: 20)).map { _ in valueBytes[random.next(below: valueBytes.count)] }
                while let first = value.first, first == 0x20 || first == 0x09 { value.removeFirst() }
                while let last = value.last, last == 0x20 || last == 0x09 { value.removeLast() }
                let text = String(decoding: value, as: UTF8.self)
                headers.add(name: name, value: text)
                lines.append("\(name): \(text)")
            }
            let length = UInt64(random.next(below: 100_000))
            let head = try encode(.put, "/r/\(length)", headers, body: .known(length))
            lines.insert("PUT /r/\(length) HTTP/1.1", at: 0)
            lines.insert("Host: example.com", at: 1)
            lines.append("Content-Length: \(length)")
            #expect(wire(head) == lines.joined(separator: "\r\n") + "\r\n\r\n")
            #expect(head.bytes.count == head.bytes.joined.count)
        }
    }
}
