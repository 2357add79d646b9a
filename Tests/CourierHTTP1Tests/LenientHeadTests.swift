// What a user agent accepts in a response head that a strict parser would refuse, and what it
// still refuses (issue 10 §2, §3): bare LF line ends (RFC 9112 §2.2), obs-fold unfolded into one SP
// (§5.2) except in framing fields, status codes 100–999 (RFC 9110 §15), and bytes that cannot
// start a status line refused at the first wrong byte. Every case goes through the split harness.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct LenientHeadTests {
    // MARK: Bare LF (RFC 9112 §2.2)

    @Test func bareLineFeedsEverywhereReadAsCRLF() {
        let crlfHead = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nX-A: b\r\n\r\nhi"
        let lfHead = "HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nhi"
        let expected = Transcript([
            "head 200 HTTP/1.1 reason=OK [Content-Length: 2, X-A: b] contentLength(2)",
            "body hi",
            "end keepAlive=true trailers=[]",
            "closed",
        ])
        #expect(response(Array(crlfHead.utf8)) == expected)
        #expect(response(Array(lfHead.utf8)) == expected)
        // Trailing bytes after the complete response are never taken for another response.
        let withTrailing = response(Array(lfHead.utf8), close: false, trailing: Array("HTTP/1.1 200 OK\n\n".utf8),
                                    expectedWithTrailing: Transcript([expected.events[0], "body hi", "end keepAlive=true trailers=[]"],
                                                                     error: HTTPParserError(.unexpectedData, offset: 0)))
        #expect(withTrailing.error == nil)
    }

    @Test(arguments: [
        "HTTP/1.1 204 No Content\r\nA: 1\nB: 2\r\n\n",
        "HTTP/1.1 204 No Content\nA: 1\r\nB: 2\n\r\n",
        "HTTP/1.1 204 No Content\r\nA: 1\r\nB: 2\r\n\n",
        "HTTP/1.1 204 No Content\nA: 1\nB: 2\n\n",
    ])
    func mixedLineEnds(text: String) {
        #expect(response(Array(text.utf8)) == Transcript([
            "head 204 HTTP/1.1 reason=No Content [A: 1, B: 2] noBody", "end keepAlive=true trailers=[]", "closed",
        ]), "\(text.debugDescription)")
    }

    @Test func bareLineFeedsInInterimHeadsAndEmptyReasons() {
        let input = Array("HTTP/1.1 100 Continue\n\nHTTP/1.1 200\nContent-Length: 0\n\n".utf8)
        #expect(response(input) == Transcript([
            "interim 100 HTTP/1.1 []",
            "head 200 HTTP/1.1 reason= [Content-Length: 0] contentLength(0)",
            "end keepAlive=true trailers=[]",
            "closed",
        ]))
    }

    @Test func aRequestHeadStaysStrict() {
        let input = Array("GET / HTTP/1.1\nHost: a\r\n\r\n".utf8)
        #expect(request(input).error == HTTPParserError(.bareLineFeed, offset: 14))
        let folded = Array("GET / HTTP/1.1\r\nHost: a\r\nX: b\r\n c\r\n\r\n".utf8)
        #expect(request(folded).error == HTTPParserError(.obsoleteLineFolding, offset: offset(of: " c", in: folded)))
    }

    // MARK: obs-fold (RFC 9112 §5.2)

    /// Each folded head and the value its `X` field must read as.
    @Test(arguments: [
        ("X: a\r\n b\r\n", "a b"),
        ("X: a\r\n\tb\r\n", "a b"),
        ("X: a  \t\r\n   \t b  \r\n", "a b"),
        ("X: a\r\n b\r\n c\r\n", "a b c"),
        ("X: a  b\r\n c\r\n", "a  b c"),
        ("X:\r\n b\r\n", "b"),
        ("X:   \r\n b\r\n", "b"),
        ("X: a\r\n   \r\n", "a"),
        ("X: a\r\n   \r\n b\r\n", "a b"),
        ("X: a\n b\n", "a b"),
        ("X: a\r\n b\n\tc\r\n", "a b c"),
        ("X: \u{FF}\r\n \u{FE}\r\n", "\u{FF} \u{FE}"),
    ])
    func foldsAreReplacedByOneSpace(fields: String, value: String) throws {
        let input = Array("HTTP/1.1 200 OK\r\n".utf8) + latin1(fields) + Array("Y: z\r\nContent-Length: 0\r\n\r\n".utf8)
        let outcome = response(input)
        #expect(outcome.error == nil, "\(fields.debugDescription)")
        #expect(outcome.events.first == "head 200 HTTP/1.1 reason=OK [X: \(HTTP1Transcript.render(latin1(value))), Y: z, Content-Length: 0] contentLength(0)",
                "\(fields.debugDescription)")
    }

    @Test func foldedValuesThroughEveryAccessor() throws {
        let text = "HTTP/1.1 200 OK\r\nX-List: a,\r\n b\r\nConnection: keep-alive,\r\n\tclose\r\nX-List: c\r\nContent-Length: 0\r\n\r\n"
        var parser = ResponseHeadParser()
        let buffer = ByteBuffer(string: text)
        guard case .complete(let head, let consumed) = try parser.parse(buffer) else {
            Issue.record("incomplete")
            return
        }
        #expect(consumed == text.utf8.count)
        #expect(head.headers.count == 4)
        #expect(head.headers.firstString("x-list") == "a, b")
        #expect(head.headers.values("X-List").map(\.readableString) == ["a, b", "c"])
        #expect(head.headers[1].value.readableString == "keep-alive, close")
        #expect(head.headers.containsToken("close", inField: "connection"))
        #expect(head.headers.containsToken("b", inField: "x-list"))
        #expect(head.headers.headers.first(name: "Connection") == "keep-alive, close")
        // The head's bytes stay as received (what `-i` prints).
        #expect(head.bytes.readableString == text)
        // An unfolded value and the connection's decision agree: `close` ends keep-alive.
        #expect(response(Array(text.utf8)).events.dropFirst().first == "end keepAlive=false trailers=[]")
    }

    @Test func aFoldRightAfterTheStatusLineIsNotAFold() {
        let input = Array("HTTP/1.1 200 OK\r\n folded: no\r\n\r\n".utf8)
        #expect(response(input).error == HTTPParserError(.obsoleteLineFolding, offset: 17))
    }

    @Test func foldedTrailersStayAnError() {
        let input = Array("5\r\nhello\r\n0\r\nX: a\r\n b\r\n\r\n".utf8)
        #expect(chunked(input).error == HTTPParserError(.obsoleteLineFolding, offset: offset(of: " b", in: input)))
    }

    // MARK: Status codes 100–999 (RFC 9110 §15)

    @Test(arguments: [600, 799, 999])
    func codesWithoutAClassAreDeliveredAsTheyAre(status: Int) {
        let input = Array("HTTP/1.1 \(status) Odd\r\nContent-Length: 2\r\n\r\nhi".utf8)
        #expect(response(input) == Transcript([
            "head \(status) HTTP/1.1 reason=Odd [Content-Length: 2] contentLength(2)", "body hi",
            "end keepAlive=true trailers=[]", "closed",
        ]))
    }

    @Test func unknownCodesTakeTheirClass() {
        // An unknown 1xx is interim (RFC 9110 §15.2); unknown 2xx–5xx are final responses.
        let input = Array("HTTP/1.1 150 Odd\r\n\r\nHTTP/1.1 299 Odd\r\nContent-Length: 1\r\n\r\nx".utf8)
        #expect(response(input) == Transcript([
            "interim 150 HTTP/1.1 []", "head 299 HTTP/1.1 reason=Odd [Content-Length: 1] contentLength(1)", "body x",
            "end keepAlive=true trailers=[]", "closed",
        ]))
    }

    // MARK: Not HTTP at all (issue 10 §2)

    /// Replies that cannot be a status line fail at the first wrong byte, with the connection
    /// still open and no line end in sight: no waiting for a timeout.
    @Test(arguments: [
        ([0x16, 0x03, 0x01, 0x00, 0x2A, 0x02, 0x00, 0x00, 0x26, 0x03, 0x03], 0),  // a TLS handshake record
        ([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28], 0),                          // a TLS alert
        ([0x00, 0x00, 0x00, 0x00], 0),                                             // NUL bytes
        ([0x20], 0),                                                                // a lone space
        (Array("SSH-2.0-OpenSSH_9.2".utf8), 0),
        (Array("HTTPS/1.1 200 OK".utf8), 4),
        (Array("HTTP/x.1 200 OK".utf8), 5),
        (Array("HTTP/1,1 200 OK".utf8), 6),
        (Array("HTTP/1.x 200 OK".utf8), 7),
    ] as [([UInt8], Int)])
    func notHTTPFailsAtTheFirstByte(bytes: [UInt8], at offset: Int) {
        let outcome = response(bytes, close: false)
        #expect(outcome == Transcript([], error: HTTPParserError(.invalidStatusLine, offset: offset)))
        // Only the bytes up to the wrong one are needed.
        let prefix = Array(bytes[...offset])
        #expect(HTTP1Fuzzing.parseResponse([prefix], closeAtEnd: false).error == HTTPParserError(.invalidStatusLine, offset: offset))
    }

    @Test func aValidPrefixWaitsAndACloseInsideItIsIncomplete() {
        for prefix in ["H", "HTTP", "HTTP/1.1", "HTTP/1.1 200 OK", "HTTP/1.1 200 OK\r\n", "HTTP/1.1 200 OK\r\nA: b\r\n"] {
            let bytes = Array(prefix.utf8)
            #expect(response(bytes, close: false) == Transcript([]), "\(prefix.debugDescription)")
            #expect(response(bytes, close: true) == Transcript([], error: HTTPParserError(.incompleteHead, offset: bytes.count)),
                    "\(prefix.debugDescription)")
        }
    }

    @Test func aSecondHeadThatIsNotHTTPFailsAtItsFirstByte() {
        let input = Array("HTTP/1.1 103 Early Hints\r\n\r\n".utf8) + [0x16, 0x03, 0x01]
        #expect(response(input, close: false) == Transcript(["interim 103 HTTP/1.1 []"],
                                                            error: HTTPParserError(.invalidStatusLine, offset: 28)))
    }

    @Test func thePrefixCheckNeverOutrunsTheSizeLimit() {
        // Within the limit the wrong byte is found; beyond it, the limit is reported first, at
        // every cut alike.
        let limits = HTTP1ParserLimits(maxHeadSize: 5)
        #expect(response(Array("HTTX/1.1 200 OK\r\n\r\n".utf8), close: false, limits: limits).error
            == HTTPParserError(.invalidStatusLine, offset: 3))
        #expect(response(Array("HTTP/x.1 200 OK\r\n\r\n".utf8), close: false, limits: limits).error
            == HTTPParserError(.headTooLarge, offset: 5))
    }

    private func latin1(_ text: String) -> [UInt8] { text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) } }
}
