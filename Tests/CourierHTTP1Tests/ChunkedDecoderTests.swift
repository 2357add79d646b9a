// The chunked transfer coding (RFC 9112 §7.1): sizes, extensions, framing CRLFs, trailers,
// limits, truncation, and zero-copy data.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct ChunkedDecoderTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func simpleBody() {
        let outcome = chunked(bytes("5\r\nhello\r\n0\r\n\r\n"), trailing: bytes("NEXT"))
        #expect(outcome == Transcript(["body hello", "end trailers=[]"]))
    }

    @Test func trailingBytesAreLeftInTheBuffer() {
        let input = bytes("5\r\nhello\r\n0\r\n\r\n")
        let outcome = chunked(input, trailing: bytes("HTTP/1.1"),
                              expectedWithTrailing: Transcript(["body hello", "end trailers=[]", "rest HTTP/1.1"]))
        #expect(outcome.error == nil)
    }

    @Test func severalChunksHexCasesAndLeadingZeros() {
        let input = bytes("3\r\nabc\r\nA\r\n0123456789\r\n0a\r\nABCDEFGHIJ\r\n0000000000000001\r\nz\r\n000\r\n\r\n")
        #expect(chunked(input) == Transcript(["body abc0123456789ABCDEFGHIJz", "end trailers=[]"]))
    }

    @Test func extensionsAreAcceptedWhenWellFormed() {
        let cases = [
            "5;a\r\nhello\r\n0\r\n\r\n",
            "5;a=b\r\nhello\r\n0\r\n\r\n",
            "5 ; a = b ; c\r\nhello\r\n0\r\n\r\n",
            "5;a=\"quoted ; \\\" value\"\r\nhello\r\n0\r\n\r\n",
            "5\t;\tname\t=\t\"\"\r\nhello\r\n0;last=1\r\n\r\n",
        ]
        for text in cases {
            #expect(chunked(bytes(text)) == Transcript(["body hello", "end trailers=[]"]), "\(text.debugDescription)")
        }
    }

    /// Each case marks with "^" the byte where the error must be reported.
    @Test(arguments: [
        // Sizes.
        ("^\r\nhello\r\n0\r\n\r\n", HTTPParserError.Code.invalidChunkSize),
        ("^g\r\n", .invalidChunkSize),
        ("^-1\r\n", .invalidChunkSize),
        ("0^x5\r\n", .invalidChunkSize),
        ("5^=\r\n", .invalidChunkSize),
        ("0000000000000000^5\r\n", .chunkSizeTooLarge),
        ("1000000000000000^0\r\n", .chunkSizeTooLarge),
        ("FFFFFFFFFFFFFFFF^F\r\n", .chunkSizeTooLarge),
        // CRLF after the size line and after the data.
        ("5^\nhello\r\n", .bareLineFeed),
        ("5\r^hello\r\n", .invalidChunkFraming),
        ("5\r\nhello^X\r\n0\r\n\r\n", .invalidChunkFraming),
        ("5\r\nhello^\n0\r\n\r\n", .bareLineFeed),
        ("5\r\nhello\r^0\r\n\r\n", .invalidChunkFraming),
        ("0\r^\r\n", .invalidChunkFraming),
        // Extensions (RFC 9112 §7.1.1).
        ("5 ^\r\nhello\r\n", .invalidChunkExtension),
        ("5;^\r\nhello\r\n", .invalidChunkExtension),
        ("5;^=b\r\nhello\r\n", .invalidChunkExtension),
        ("5;a=^\r\nhello\r\n", .invalidChunkExtension),
        ("5;a=b ^c\r\nhello\r\n", .invalidChunkExtension),
        ("5;a ^b\r\nhello\r\n", .invalidChunkExtension),
        ("5;a=\"b\"^c\r\nhello\r\n", .invalidChunkExtension),
        ("5;a=\"b^\r\n", .invalidChunkExtension),
        ("5;a=\"b\\^\r\n", .invalidChunkExtension),
        ("5;a=^@\r\nhello\r\n", .invalidChunkExtension),
        ("5;a^\nhello\r\n", .bareLineFeed),
        // Trailers, validated like header fields.
        ("0\r\nX: a\r\n^ folded\r\n\r\n", .obsoleteLineFolding),
        ("0\r\nX: a\r\n^\n", .bareLineFeed),
        ("0\r\nX^ : a\r\n\r\n", .whitespaceBeforeColon),
        ("0\r\nX: a^\u{0}\r\n\r\n", .invalidFieldValue),
        ("0\r\n^: a\r\n\r\n", .invalidFieldName),
    ] as [(String, HTTPParserError.Code)])
    func malformed(marked: String, code: HTTPParserError.Code) {
        let input = bytes(String(marked.filter { $0 != "^" }))
        let at = offset(of: "^", in: bytes(marked))
        let outcome = chunked(input)
        #expect(outcome.error == HTTPParserError(code, offset: at), "\(marked.debugDescription)")
    }

    @Test func nulInExtensionIsFoundAtItsOwnByte() {
        // "5;a=\"x" then NUL: the NUL itself is the bad byte.
        let input = bytes("5;a=\"x") + [0] + bytes("\"\r\n")
        #expect(chunked(input).error == HTTPParserError(.invalidChunkExtension, offset: 6))
    }

    @Test func sixteenDigitSizesAreAcceptedAndNeverOverflow() {
        // The largest 64-bit size is accepted; the data simply never ends.
        let outcome = chunked(bytes("FFFFFFFFFFFFFFFF\r\nabc"), close: false)
        #expect(outcome == Transcript(["body abc"]))
        let cut = chunked(bytes("FFFFFFFFFFFFFFFF\r\nabc"), close: true)
        #expect(cut.error == HTTPParserError(.incompleteChunkedBody, offset: 21))
    }

    @Test func trailersAreSurfacedAsSlices() {
        let input = bytes("3\r\nabc\r\n0\r\nX-Checksum:  deadbeef \r\nServer-Timing: db;dur=53\r\n\r\n")
        #expect(chunked(input, trailing: bytes("x"), expectedWithTrailing: Transcript([
            "body abc", "end trailers=[X-Checksum: deadbeef, Server-Timing: db;dur=53]", "rest x",
        ])) == Transcript(["body abc", "end trailers=[X-Checksum: deadbeef, Server-Timing: db;dur=53]"]))
    }

    @Test func trailerSectionLimitExactlyAtAndOnePast() {
        let limits = HTTP1ParserLimits(maxTrailerSize: 16)
        // "X: 0123456789\r\n\r\n" is 17 bytes; "X: 012345678\r\n\r\n" is 16.
        let atLimit = bytes("0\r\nX: 012345678\r\n\r\n")
        #expect(chunked(atLimit, limits: limits) == Transcript(["end trailers=[X: 012345678]"]))
        let onePast = bytes("0\r\nX: 0123456789\r\n\r\n")
        #expect(chunked(onePast, limits: limits).error == HTTPParserError(.trailersTooLarge, offset: 3 + 16))
        #expect(HTTP1ParserLimits.default.maxTrailerSize == 16 * 1024)
    }

    @Test func trailerFieldCountLimit() {
        let limits = HTTP1ParserLimits(maxFieldCount: 1)
        #expect(chunked(bytes("0\r\nA: 1\r\n\r\n"), limits: limits).error == nil)
        #expect(chunked(bytes("0\r\nA: 1\r\nB: 2\r\n\r\n"), limits: limits).error == HTTPParserError(.tooManyFields, offset: 9))
    }

    @Test func extensionLimitCountsTheWholeMessage() {
        let limits = HTTP1ParserLimits(maxChunkExtensionsSize: 8)
        // ";a=1" is 4 extension bytes per chunk: two chunks are exactly 8.
        let atLimit = bytes("1;a=1\r\nx\r\n0;b=2\r\n\r\n")
        #expect(chunked(atLimit, limits: limits) == Transcript(["body x", "end trailers=[]"]))
        let onePast = bytes("1;a=1\r\nx\r\n0;b=23\r\n\r\n")
        #expect(chunked(onePast, limits: limits).error == HTTPParserError(.chunkExtensionsTooLarge, offset: offset(of: "3", in: onePast)))
        #expect(HTTP1ParserLimits.default.maxChunkExtensionsSize == 16 * 1024)
    }

    @Test func truncatedAtEveryPosition() {
        let full = bytes("4;x=y\r\nWiki\r\n5\r\npedia\r\n0\r\nT: v\r\n\r\n")
        for cut in 0..<full.count {
            let prefix = Array(full[..<cut])
            let open = chunked(prefix, close: false)
            #expect(open.error == nil, "cut at \(cut)")
            #expect(!open.events.contains { $0.hasPrefix("end") }, "cut at \(cut)")
            let closed = chunked(prefix, close: true)
            #expect(closed.code == .incompleteChunkedBody, "cut at \(cut)")
        }
        #expect(chunked(full, close: true) == Transcript(["body Wikipedia", "end trailers=[T: v]"]))
    }

    @Test func decoderAPIReturnsSlicesOfTheInput() throws {
        var buffer = ByteBuffer(bytes: bytes("5\r\nhello\r\n3\r\nabc\r\n0\r\n\r\n"))
        let base = buffer.withUnsafeReadableBytes { $0.baseAddress! }
        var decoder = ChunkedDecoder()
        guard case .data(let first)? = try decoder.next(from: &buffer) else {
            Issue.record("no data")
            return
        }
        #expect(first.readableString == "hello")
        #expect(first.withUnsafeReadableBytes { $0.baseAddress! } == base + 3)
        guard case .data(let second)? = try decoder.next(from: &buffer) else {
            Issue.record("no data")
            return
        }
        #expect(second.withUnsafeReadableBytes { $0.baseAddress! } == base + 13)
        guard case .end(let trailers)? = try decoder.next(from: &buffer) else {
            Issue.record("no end")
            return
        }
        #expect(trailers.isEmpty)
        #expect(decoder.isComplete)
        #expect(try decoder.next(from: &buffer) == nil)
        #expect(buffer.readableBytes == 0)
        #expect(decoder.consumed == 23)
    }

    @Test func decoderIsStickyAfterAnError() {
        var decoder = ChunkedDecoder()
        var bad = ByteBuffer(bytes: bytes("z\r\n"))
        #expect(throws: HTTPParserError(.invalidChunkSize, offset: 0)) { try decoder.next(from: &bad) }
        var good = ByteBuffer(bytes: bytes("0\r\n\r\n"))
        #expect(throws: HTTPParserError(.invalidChunkSize, offset: 0)) { try decoder.next(from: &good) }
        #expect(throws: HTTPParserError(.invalidChunkSize, offset: 0)) { try decoder.connectionClosed() }
    }

    @Test func chunkedResponseThroughTheConnection() {
        let input = message("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n", "5\r\nhello\r\n0\r\nX: 1\r\n\r\n")
        #expect(response(input, close: false) == Transcript([
            "head 200 HTTP/1.1 reason=OK [Transfer-Encoding: chunked] chunked",
            "body hello",
            "end keepAlive=true trailers=[X: 1]",
        ]))
        // Offsets of body errors count from the first byte of the response.
        let bad = message("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n", "5\r\nhelloXX")
        #expect(response(bad).error == HTTPParserError(.invalidChunkFraming, offset: bad.count - 2))
        let cut = message("HTTP/1.1 200 OK\nTransfer-Encoding: chunked\n\n", "5\r\nhel")
        #expect(response(cut).error == HTTPParserError(.incompleteChunkedBody, offset: cut.count))
    }
}
