// Response heads: the status line, field lines, strictness, limits and the zero-copy view.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct ResponseHeadParserTests {
    @Test func simpleResponse() {
        let input = message("HTTP/1.1 200 OK\nContent-Length: 5\nX-A:  spaced  value \t\n\n", "hello")
        let outcome = response(input)
        #expect(outcome == Transcript([
            "head 200 HTTP/1.1 reason=OK [Content-Length: 5, X-A: spaced  value] contentLength(5)",
            "body hello",
            "end keepAlive=true trailers=[]",
            "closed",
        ]))
    }

    @Test func emptyReasonWithAndWithoutSpace() {
        for line in ["HTTP/1.1 204 \n\n", "HTTP/1.1 204\n\n"] {
            let outcome = response(message(line))
            #expect(outcome.events.first == "head 204 HTTP/1.1 reason= [] noBody", "\(line.debugDescription)")
            #expect(outcome.error == nil)
        }
    }

    @Test func reasonAndValuesAcceptObsTextAndHTab() {
        let input = crlf("HTTP/1.1 200 O\tK ") + [0xC3, 0xA9] + crlf("\nX: a\tb ") + [0xFF] + crlf("\nContent-Length: 0\n\n")
        let outcome = response(input)
        #expect(outcome.events.first == "head 200 HTTP/1.1 reason=O\\x09K \\xC3\\xA9 [X: a\\x09b \\xFF, Content-Length: 0] contentLength(0)")
        #expect(outcome.error == nil)
    }

    @Test func emptyFieldValue() {
        let outcome = response(message("HTTP/1.1 200 OK\nX-Empty:\nX-Blank:   \nContent-Length: 0\n\n"))
        #expect(outcome.events.first == "head 200 HTTP/1.1 reason=OK [X-Empty: , X-Blank: , Content-Length: 0] contentLength(0)")
    }

    @Test func http10AndHTTP1xVersions() {
        #expect(response(message("HTTP/1.0 200 OK\nContent-Length: 0\n\n")).events.first
            == "head 200 HTTP/1.0 reason=OK [Content-Length: 0] contentLength(0)")
        #expect(response(message("HTTP/1.7 200 OK\nContent-Length: 0\n\n")).events.first
            == "head 200 HTTP/1.7 reason=OK [Content-Length: 0] contentLength(0)")
    }

    /// Each malformed head, the code it must fail with, and where (found by a marker string).
    @Test(arguments: [
        // Line terminators (RFC 9112 §2.2): a bare CR is an error (a bare LF is accepted:
        // LenientHeadTests).
        ("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", HTTPParserError.Code.bareCarriageReturn, "\rb"),
        ("HTTP/1.1 200 OK\nX: a\rb\n\n", .bareCarriageReturn, "\rb"),
        ("HTTP/1.1 200 O\rK\r\n\r\n", .bareCarriageReturn, "\rK"),
        ("HTTP/1.1 200 OK\rX\r\n\r\n", .bareCarriageReturn, "\rX"),
        ("HTTP/1.1 200 OK\r\nX\r: y\r\n\r\n", .bareCarriageReturn, "\r:"),
        // Whitespace (RFC 9112 §5.1, §2.2); a fold in a framing field (§5.2; other folds are
        // unfolded: LenientHeadTests).
        ("HTTP/1.1 200 OK\r\n X: a\r\n\r\n", .obsoleteLineFolding, " X"),
        ("HTTP/1.1 200 OK\n\tX: a\n\n", .obsoleteLineFolding, "\tX"),
        ("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n 0\r\n\r\n", .obsoleteLineFolding, " 0"),
        ("HTTP/1.1 200 OK\r\ncontent-length:\r\n 5\r\n\r\n", .obsoleteLineFolding, " 5"),
        ("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip,\r\n\tchunked\r\n\r\n", .obsoleteLineFolding, "\tchunked"),
        ("HTTP/1.1 200 OK\r\nTRANSFER-ENCODING: chunked\r\n   \r\n\r\n", .obsoleteLineFolding, "   \r"),
        ("HTTP/1.1 200 OK\r\nX: a\r\n b\u{0}\r\n\r\n", .invalidFieldValue, "\u{0}"),
        ("HTTP/1.1 200 OK\r\nX : a\r\n\r\n", .whitespaceBeforeColon, " :"),
        ("HTTP/1.1 200 OK\r\nX\t: a\r\n\r\n", .whitespaceBeforeColon, "\t:"),
        // Names and values (RFC 9110 §5.1, §5.5).
        ("HTTP/1.1 200 OK\r\n: a\r\n\r\n", .invalidFieldName, ": a"),
        ("HTTP/1.1 200 OK\r\nX@Y: a\r\n\r\n", .invalidFieldName, "@"),
        ("HTTP/1.1 200 OK\r\nNoColon\r\n\r\n", .invalidFieldName, "\r\n\r\n"),
        ("HTTP/1.1 200 OK\r\nX Y: a\r\n\r\n", .invalidFieldName, " Y"),
        ("HTTP/1.1 200 OK\r\nX: a\u{0}b\r\n\r\n", .invalidFieldValue, "\u{0}"),
        ("HTTP/1.1 200 OK\r\nX: abcdefghijkl\u{7F}\r\n\r\n", .invalidFieldValue, "\u{7F}"),
        ("HTTP/1.1 200 OK\r\nX: abcdefghijklmn\u{1}\r\n\r\n", .invalidFieldValue, "\u{1}"),
        // Status lines (RFC 9112 §4).
        ("HTTP/1.1  200 OK\r\n\r\n", .invalidStatusLine, " 200"),
        ("HTTP/1.1 20 OK\r\n\r\n", .invalidStatusLine, "20 OK"),
        ("HTTP/1.1 2000 OK\r\n\r\n", .invalidStatusLine, "0 OK"),
        ("HTTP/1.1 099 Nope\r\n\r\n", .invalidStatusLine, "099"),
        ("HTTP/1.1 000 Nope\r\n\r\n", .invalidStatusLine, "000"),
        ("HTTP/1.1 2x0 OK\r\n\r\n", .invalidStatusLine, "2x0"),
        ("HTTP/1.1 200OK\r\n\r\n", .invalidStatusLine, "OK"),
        ("HTTP/1.1 200 O\u{1}K\r\n\r\n", .invalidStatusLine, "\u{1}"),
        ("http/1.1 200 OK\r\n\r\n", .invalidStatusLine, "http"),
        ("HTTP/1.1\t200 OK\r\n\r\n", .invalidStatusLine, "\t"),
        ("HTTP/11 200 OK\r\n\r\n", .invalidStatusLine, "1 200"),
        ("\r\nHTTP/1.1 200 OK\r\n\r\n", .invalidStatusLine, "\r\nHTTP"),
        ("HTTP/2.0 200 OK\r\n\r\n", .unsupportedVersion, "HTTP"),
        ("HTTP/0.9 200 OK\r\n\r\n", .unsupportedVersion, "HTTP"),
    ] as [(String, HTTPParserError.Code, String)])
    func malformedHeads(input: String, code: HTTPParserError.Code, marker: String) {
        let bytes = Array(input.utf8)
        let outcome = response(bytes)
        #expect(outcome.events.isEmpty)
        #expect(outcome.error == HTTPParserError(code, offset: offset(of: marker, in: bytes)), "\(input.debugDescription)")
    }

    /// The vector scans (16 bytes per step for LF and for field-value bytes) find a bad byte at
    /// every lane position, in the first, a middle and the last 16-byte step of a long value.
    @Test func badBytesAtEveryLanePosition() {
        for position in 0..<48 {
            for bad in ["\u{1}", "\u{7F}", "\u{0}", "\r"] {
                let value = String(repeating: "v", count: position) + bad + String(repeating: "w", count: 47 - position)
                let input = Array("HTTP/1.1 200 OK\r\nX-Long: \(value)\r\n\r\n".utf8)
                let code: HTTPParserError.Code = bad == "\r" ? .bareCarriageReturn : .invalidFieldValue
                let outcome = response(input)
                #expect(outcome.error == HTTPParserError(code, offset: 25 + position), "\(bad.debugDescription) at \(position)")
            }
            // And a valid value of every length around the steps parses whole.
            let value = String(repeating: "v", count: position)
            let ok = response(Array("HTTP/1.1 200 OK\r\nX-Long: \(value)\r\nContent-Length: 0\r\n\r\n".utf8))
            #expect(ok.error == nil, "length \(position)")
        }
    }

    @Test func headSizeLimitExactlyAtAndOnePast() {
        let limits = HTTP1ParserLimits(maxHeadSize: 64)
        let prefix = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nX: "
        let suffix = "\r\n\r\n"
        let filler = String(repeating: "a", count: 64 - prefix.utf8.count - suffix.utf8.count)
        let atLimit = Array((prefix + filler + suffix).utf8)
        #expect(atLimit.count == 64)
        let ok = response(atLimit, limits: limits)
        #expect(ok.error == nil)
        #expect(ok.events.count == 3)
        let onePast = Array((prefix + filler + "a" + suffix).utf8)
        let tooLarge = response(onePast, limits: limits)
        #expect(tooLarge == Transcript([], error: HTTPParserError(.headTooLarge, offset: 64)))
        // Without an end of line in sight: the error comes as soon as the limit is reached.
        let runaway = Array(("HTTP/1.1 200 OK\r\nX: " + String(repeating: "b", count: 80)).utf8)
        #expect(response(runaway, close: false, limits: limits) == Transcript([], error: HTTPParserError(.headTooLarge, offset: 64)))
        #expect(HTTP1ParserLimits.default.maxHeadSize == 256 * 1024)
    }

    @Test func fieldCountLimit() {
        let limits = HTTP1ParserLimits(maxFieldCount: 3)
        let three = message("HTTP/1.1 200 OK\nA: 1\nB: 2\nContent-Length: 0\n\n")
        #expect(response(three, limits: limits).error == nil)
        let four = message("HTTP/1.1 200 OK\nA: 1\nB: 2\nC: 3\nContent-Length: 0\n\n")
        #expect(response(four, limits: limits).error == HTTPParserError(.tooManyFields, offset: offset(of: "Content", in: four)))
        #expect(HTTP1ParserLimits.default.maxFieldCount == 5_000)
        // A folded continuation line belongs to its field: it is not counted.
        let folded = message("HTTP/1.1 200 OK\nA: 1\n 1b\nB: 2\n\t2b\nContent-Length: 0\n\n")
        #expect(response(folded, limits: limits).error == nil)
    }

    /// A complete response cut at every position: without a close, the prefix is never an error;
    /// with a close, it is the error of the part that was cut.
    @Test func truncatedAtEveryPosition() {
        let full = message("HTTP/1.1 200 OK\nContent-Length: 3\n\n", "abc")
        let headLength = full.count - 3
        for cut in 0..<full.count {
            let prefix = Array(full[..<cut])
            let open = response(prefix, close: false)
            #expect(open.error == nil, "cut at \(cut)")
            let closed = response(prefix, close: true)
            let expected: HTTPParserError.Code = cut == 0 ? .emptyResponse : cut < headLength ? .incompleteHead : .bodyShorterThanAnnounced
            #expect(closed.code == expected, "cut at \(cut)")
            #expect(closed.error?.offset == cut, "cut at \(cut)")
        }
    }

    @Test func parserAPIGivesZeroCopyViews() throws {
        var buffer = ByteBuffer(bytes: message("HTTP/1.1 404 Not Found\nContent-Type: text/plain\nSet-Cookie: a=1\nset-cookie: b=2\nConnection: Keep-Alive, Upgrade\n\n", "body"))
        var parser = ResponseHeadParser()
        guard case .complete(let head, let consumed) = try parser.parse(buffer) else {
            Issue.record("head not complete")
            return
        }
        #expect(consumed == buffer.readableBytes - 4)
        #expect(head.status == 404)
        #expect(head.version == .http1_1)
        #expect(head.reasonPhrase.readableString == "Not Found")
        #expect(head.headers.count == 4)
        #expect(head.headers.firstString("content-type") == "text/plain")
        #expect(head.headers.first("CONTENT-TYPE") == ByteBuffer(string: "text/plain"))
        #expect(head.headers.first("content-typ") == nil)
        #expect(head.headers.values("Set-Cookie").map(\.readableString) == ["a=1", "b=2"])
        #expect(head.headers.contains("connection"))
        #expect(head.headers.containsToken("keep-alive", inField: "Connection"))
        #expect(head.headers.containsToken("upgrade", inField: "connection"))
        #expect(!head.headers.containsToken("close", inField: "connection"))
        #expect(head.headers.name(at: 0, equals: "CONTENT-type"))
        #expect(head.headers.headers.first(name: "set-cookie") == "a=1")
        // The value is a slice of the receive buffer's storage, not a copy.
        let valueAddress = head.headers.first("content-type")!.withUnsafeReadableBytes { $0.baseAddress! }
        let expectedAddress = buffer.withUnsafeReadableBytes { $0.baseAddress! + offset(of: "text/plain", in: buffer.readableBytesArray) }
        #expect(valueAddress == expectedAddress)
        // Writing to the receive buffer later never changes what the head shows.
        buffer.moveReaderIndex(forwardBy: consumed)
        buffer.discardReadBytes()
        buffer.writeString("more")
        #expect(head.headers.firstString("Content-Type") == "text/plain")
    }

    @Test func parserIsStickyAfterAnError() {
        var parser = ResponseHeadParser()
        let bad = ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\nX : y\n\n"))
        #expect(throws: HTTPParserError(.whitespaceBeforeColon, offset: 18)) { try parser.parse(bad) }
        let good = ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\n\n"))
        #expect(throws: HTTPParserError(.whitespaceBeforeColon, offset: 18)) { try parser.parse(good) }
    }

    @Test func parserReusesAcrossResponses() throws {
        var parser = ResponseHeadParser()
        for status in [200, 201, 202] {
            let buffer = ByteBuffer(bytes: crlf("HTTP/1.1 \(status) OK\nA: \(status)\n\n"))
            guard case .complete(let head, _) = try parser.parse(buffer) else {
                Issue.record("incomplete")
                return
            }
            #expect(head.status == status)
            #expect(head.headers.firstString("a") == "\(status)")
        }
    }
}
