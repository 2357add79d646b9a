// The server role: request heads with the same strictness as responses, and request body framing
// (RFC 9112 §6.3 rules 3–7).

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct RequestParserTests {
    @Test func getWithoutBody() {
        let input = message("GET /index.html?q=1 HTTP/1.1\nHost: example.com\nAccept: */*\n\n")
        let next = message("GET /next HTTP/1.1\n\n")
        let events = ["request GET /index.html?q=1 HTTP/1.1 [Host: example.com, Accept: */*] noBody", "end trailers=[]"]
        #expect(request(input, trailing: next, expectedWithTrailing: Transcript(events + ["rest " + HTTP1Transcript.render(next)]))
            == Transcript(events))
    }

    @Test func postWithContentLength() {
        let input = message("POST /submit HTTP/1.1\nContent-Length: 11\n\n", "hello world")
        #expect(request(input) == Transcript([
            "request POST /submit HTTP/1.1 [Content-Length: 11] contentLength(11)",
            "body hello world",
            "end trailers=[]",
        ]))
        let cut = message("POST /submit HTTP/1.1\nContent-Length: 11\n\n", "hello")
        #expect(request(cut, close: true).error == HTTPParserError(.bodyShorterThanAnnounced, offset: cut.count))
    }

    @Test func chunkedRequestWithTrailers() {
        let input = message("PUT /up HTTP/1.1\nTransfer-Encoding: chunked\n\n", "3\r\nabc\r\n0\r\nDigest: x\r\n\r\n")
        #expect(request(input) == Transcript([
            "request PUT /up HTTP/1.1 [Transfer-Encoding: chunked] chunked",
            "body abc",
            "end trailers=[Digest: x]",
        ]))
    }

    @Test func unsupportedCodingAndConflictsAreErrors() {
        let gzip = message("POST / HTTP/1.1\nTransfer-Encoding: gzip\n\n")
        #expect(request(gzip).error == HTTPParserError(.unsupportedTransferCoding, offset: offset(of: "gzip", in: gzip)))
        let notLast = message("POST / HTTP/1.1\nTransfer-Encoding: chunked, gzip\n\n")
        #expect(request(notLast).code == .unsupportedTransferCoding)
        let both = message("POST / HTTP/1.1\nContent-Length: 3\nTransfer-Encoding: chunked\n\n")
        #expect(request(both).error == HTTPParserError(.contentLengthWithTransferEncoding, offset: offset(of: "Transfer", in: both)))
        let conflicting = message("POST / HTTP/1.1\nContent-Length: 3\nContent-Length: 4\n\n")
        #expect(request(conflicting).code == .conflictingContentLength)
        let http10 = message("POST / HTTP/1.0\nTransfer-Encoding: chunked\n\n")
        #expect(request(http10).code == .transferEncodingInHTTP10)
    }

    /// Each case marks with "^" the byte where the error must be reported.
    @Test(arguments: [
        ("GET ^ / HTTP/1.1\r\n\r\n", HTTPParserError.Code.invalidRequestTarget),
        ("GET^\t/ HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("G^@T / HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("^ GET / HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("GET /a^\u{7F} HTTP/1.1\r\n\r\n", .invalidRequestTarget),
        ("GET /^é HTTP/1.1\r\n\r\n", .invalidRequestTarget),
        ("GET / ^HTTP/1.10\r\n\r\n", .invalidRequestLine),
        ("GET / ^HTTP/1.1 \r\n\r\n", .invalidRequestLine),
        ("GET / ^http/1.1\r\n\r\n", .invalidRequestLine),
        ("GET / ^HTTP/2.0\r\n\r\n", .unsupportedVersion),
        ("GET^\r\n\r\n", .invalidRequestLine),
        ("^\r\nGET / HTTP/1.1\r\n\r\n", .invalidRequestLine),
        ("GET / HTTP/1.1^\n\r\n", .bareLineFeed),
        ("GET / HTTP/1.1\r\nHost^ : x\r\n\r\n", .whitespaceBeforeColon),
        ("GET / HTTP/1.1\r\nHost: x\r\n^ y\r\n\r\n", .obsoleteLineFolding),
        ("GET / HTTP/1.1\r\nHost: x^\u{0}\r\n\r\n", .invalidFieldValue),
    ] as [(String, HTTPParserError.Code)])
    func malformedRequestHeads(marked: String, code: HTTPParserError.Code) {
        let input = Array(String(marked.filter { $0 != "^" }).utf8)
        let at = offset(of: "^", in: Array(marked.utf8))
        #expect(request(input).error == HTTPParserError(code, offset: at), "\(marked.debugDescription)")
    }

    @Test func methodsAreCaseSensitiveTokens() {
        let input = message("get / HTTP/1.1\n\n")
        #expect(request(input).events.first == "request get / HTTP/1.1 [] noBody")
        let custom = message("M-SEARCH * HTTP/1.1\n\n")
        #expect(request(custom).events.first == "request M-SEARCH * HTTP/1.1 [] noBody")
    }

    @Test func requestHeadLimits() {
        let limits = HTTP1ParserLimits(maxHeadSize: 32, maxFieldCount: 1)
        let atLimit = message("GET / HTTP/1.1\nA: 012345678\n\n")
        #expect(atLimit.count == 32)
        #expect(request(atLimit, limits: limits).error == nil)
        let onePast = message("GET / HTTP/1.1\nA: 0123456789\n\n")
        #expect(request(onePast, limits: limits).error == HTTPParserError(.headTooLarge, offset: 32))
        let twoFields = message("GET / HTTP/1.1\nA: 1\nB: 2\n\n")
        #expect(request(twoFields, limits: limits).error == HTTPParserError(.tooManyFields, offset: offset(of: "B:", in: twoFields)))
    }

    @Test func truncatedAtEveryPosition() {
        let full = message("POST /p HTTP/1.1\nTransfer-Encoding: chunked\n\n", "2\r\nhi\r\n0\r\n\r\n")
        let headLength = offset(of: "2\r\nhi", in: full)
        for cut in 0..<full.count {
            let prefix = Array(full[..<cut])
            #expect(request(prefix).error == nil, "cut at \(cut)")
            let closed = request(prefix, close: true)
            let expected: HTTPParserError.Code? = cut == 0 ? nil : cut < headLength ? .incompleteHead : .incompleteChunkedBody
            #expect(closed.code == expected, "cut at \(cut)")
        }
    }

    @Test func pipelinedRequestsAreLeftForTheNextParse() {
        let first = message("POST /a HTTP/1.1\nContent-Length: 2\n\n", "hi")
        let second = message("GET /b HTTP/1.1\n\n")
        let events = ["request POST /a HTTP/1.1 [Content-Length: 2] contentLength(2)", "body hi", "end trailers=[]"]
        #expect(request(first, trailing: second, expectedWithTrailing: Transcript(events + ["rest " + HTTP1Transcript.render(second)]))
            == Transcript(events))
    }

    @Test func requestParserAPI() throws {
        var parser = RequestHeadParser()
        let buffer = ByteBuffer(bytes: message("DELETE /item/7 HTTP/1.0\nX-Id: 7\n\n"))
        guard case .complete(let head, let consumed) = try parser.parse(buffer) else {
            Issue.record("incomplete")
            return
        }
        #expect(consumed == buffer.readableBytes)
        #expect(head.method == .delete)
        #expect(head.methodBytes.readableString == "DELETE")
        #expect(head.target.readableString == "/item/7")
        #expect(head.version == .http1_0)
        #expect(head.headers.firstString("x-id") == "7")
        #expect(try BodyFraming.forRequest(head) == .noBody)
        // Partial input is never an error.
        var partial = RequestHeadParser()
        guard case .needMoreData = try partial.parse(ByteBuffer(string: "GET / HT")) else {
            Issue.record("expected needMoreData")
            return
        }
    }
}
