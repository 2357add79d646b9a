// Body framing in RFC 9112 §6.3 order, Content-Length and Transfer-Encoding validation, and the
// keep-alive decision that follows from the framing and the Connection options.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct BodyFramingTests {
    private func head(_ fields: String, status: String = "200 OK", version: String = "HTTP/1.1") -> [UInt8] {
        message("\(version) \(status)\n\(fields)\n")
    }

    @Test func contentLengthBody() {
        let outcome = response(head("Content-Length: 5\n"), close: false)
        #expect(outcome == Transcript(["head 200 HTTP/1.1 reason=OK [Content-Length: 5] contentLength(5)"]))
        let full = response(head("Content-Length: 5\n") + Array("hello".utf8), close: false)
        #expect(full.events.suffix(2) == ["body hello", "end keepAlive=true trailers=[]"])
    }

    @Test func zeroContentLength() {
        let outcome = response(head("Content-Length: 0\n"), close: false)
        #expect(outcome.events.last == "end keepAlive=true trailers=[]")
    }

    @Test(arguments: ["5, 5", "5,5", " 5 ,  5 "])
    func identicalContentLengthListsAreAccepted(value: String) {
        let outcome = response(head("Content-Length: \(value)\n") + Array("hello".utf8), close: false)
        #expect(outcome.error == nil)
        #expect(outcome.events.first?.hasSuffix("contentLength(5)") == true)
    }

    @Test func repeatedIdenticalContentLengthFieldsAreAccepted() {
        let outcome = response(head("Content-Length: 5\nContent-Length: 5\n") + Array("hello".utf8), close: false)
        #expect(outcome.events.last == "end keepAlive=true trailers=[]")
    }

    /// Each case marks with "^" the byte where the error must be reported.
    @Test(arguments: [
        ("Content-Length: 5, ^6\n", HTTPParserError.Code.conflictingContentLength),
        ("Content-Length: 5\nContent-Length: ^6\n", .conflictingContentLength),
        ("Content-Length: ^+5\n", .invalidContentLength),
        ("Content-Length: ^-5\n", .invalidContentLength),
        ("Content-Length: ^5 5\n", .invalidContentLength),
        ("Content-Length: ^0x5\n", .invalidContentLength),
        ("Content-Length:^\n", .invalidContentLength),
        ("Content-Length: 5,^\n", .invalidContentLength),
        ("Content-Length: ^,5\n", .invalidContentLength),
        ("Content-Length: ^18446744073709551616\n", .invalidContentLength),
        ("Content-Length: ^99999999999999999999999\n", .invalidContentLength),
        ("Transfer-Encoding: chunked\n^Content-Length: 5\n", .contentLengthWithTransferEncoding),
        ("Content-Length: 5\n^Transfer-Encoding: chunked\n", .contentLengthWithTransferEncoding),
        ("Transfer-Encoding: ^gzip, chunked\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunked, ^gzip\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunked, ^chunked\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: chunked\nTransfer-Encoding: ^chunked\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: ^gzip\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: ^identity\n", .unsupportedTransferCoding),
        ("Transfer-Encoding: ^chunked;q=1\n", .unsupportedTransferCoding),
        ("^Transfer-Encoding:\n", .unsupportedTransferCoding),
    ] as [(String, HTTPParserError.Code)])
    func invalidFraming(marked: String, code: HTTPParserError.Code) {
        let input = head(String(marked.filter { $0 != "^" }))
        let at = offset(of: "^", in: head(marked))
        let outcome = response(input)
        #expect(outcome == Transcript([], error: HTTPParserError(code, offset: at)), "\(marked.debugDescription)")
    }

    @Test func largestContentLengthIsAcceptedThenCutShort() {
        let outcome = response(head("Content-Length: 18446744073709551615\n") + Array("abc".utf8))
        #expect(outcome.events == ["head 200 HTTP/1.1 reason=OK [Content-Length: 18446744073709551615] contentLength(18446744073709551615)", "body abc"])
        #expect(outcome.error == HTTPParserError(.bodyShorterThanAnnounced, offset: head("Content-Length: 18446744073709551615\n").count + 3))
    }

    @Test func chunkedIsCaseInsensitiveAndIgnoresEmptyListElements() {
        for value in ["chunked", "Chunked", "CHUNKED", " , chunked ,"] {
            let outcome = response(head("Transfer-Encoding: \(value)\n") + Array("0\r\n\r\n".utf8), close: false)
            #expect(outcome.error == nil, "\(value)")
            #expect(outcome.events.last == "end keepAlive=true trailers=[]", "\(value)")
        }
    }

    @Test func transferEncodingInHTTP10IsRejected() {
        let input = head("Transfer-Encoding: chunked\n", version: "HTTP/1.0")
        #expect(response(input) == Transcript([], error: HTTPParserError(.transferEncodingInHTTP10, offset: offset(of: "Transfer", in: input))))
    }

    @Test(arguments: ["204 No Content", "304 Not Modified"])
    func noBodyStatusesIgnoreFraming(status: String) {
        let input = head("Content-Length: 5\nTransfer-Encoding: chunked\n", status: status)
        let outcome = response(input, close: false, trailing: Array("hello".utf8),
                               expectedWithTrailing: Transcript([
                                   "head \(status.prefix(3)) HTTP/1.1 reason=\(status.dropFirst(4)) [Content-Length: 5, Transfer-Encoding: chunked] noBody",
                                   "end keepAlive=true trailers=[]",
                               ], error: HTTPParserError(.unexpectedData, offset: 0)))
        #expect(outcome.events.last == "end keepAlive=true trailers=[]")
        #expect(outcome.error == nil)
    }

    @Test func headResponseHasNoBodyWhateverItsLength() {
        let head = RequestInfo(method: .head)
        let input = self.head("Content-Length: 1000\n")
        let outcome = response(input, request: head, close: false)
        #expect(outcome == Transcript([
            "head 200 HTTP/1.1 reason=OK [Content-Length: 1000] noBody",
            "end keepAlive=true trailers=[]",
        ]))
        // Bytes after it are not a body: they are unexpected.
        let trailing = response(input, request: head, close: false, trailing: Array("x".utf8),
                                expectedWithTrailing: Transcript(outcome.events, error: HTTPParserError(.unexpectedData, offset: 0)))
        #expect(trailing == outcome)
    }

    @Test func bodyUntilCloseEndsTheConnection() {
        let input = head("Content-Type: text/plain\n") + Array("all of it".utf8)
        #expect(response(input) == Transcript([
            "head 200 HTTP/1.1 reason=OK [Content-Type: text/plain] untilClose",
            "body all of it",
            "end keepAlive=false trailers=[]",
            "closed",
        ]))
        #expect(response(input, close: false).events.last == "body all of it")
    }

    @Test func untilCloseBodyMayBeEmpty() {
        #expect(response(head("")).events == ["head 200 HTTP/1.1 reason=OK [] untilClose", "end keepAlive=false trailers=[]", "closed"])
    }

    // MARK: Keep-alive decisions (RFC 9112 §9.3)

    private func keepAlive(_ fields: String, version: String = "HTTP/1.1", request: RequestInfo = get) -> Bool? {
        let outcome = response(head(fields + "Content-Length: 0\n", version: version), request: request, close: false)
        guard let last = outcome.events.last, last.hasPrefix("end keepAlive=") else { return nil }
        return last.hasPrefix("end keepAlive=true")
    }

    @Test func keepAliveDecisions() {
        #expect(keepAlive("") == true)
        #expect(keepAlive("Connection: close\n") == false)
        #expect(keepAlive("Connection: Keep-Alive, CLOSE\n") == false)
        #expect(keepAlive("Connection: closed\n") == true)
        #expect(keepAlive("", version: "HTTP/1.0") == false)
        #expect(keepAlive("Connection: keep-alive\n", version: "HTTP/1.0") == true)
        #expect(keepAlive("Connection: keep-alive\nConnection: close\n", version: "HTTP/1.0") == false)
        #expect(keepAlive("", request: RequestInfo(method: .get, closeRequested: true)) == false)
        #expect(keepAlive("", request: RequestInfo(method: .get, version: .http1_0)) == false)
        #expect(keepAlive("Connection: keep-alive\n", version: "HTTP/1.0",
                          request: RequestInfo(method: .get, version: .http1_0, keepAliveRequested: true)) == true)
        #expect(keepAlive("", request: RequestInfo(method: .get, version: .http1_0, keepAliveRequested: true)) == true)
    }

    @Test func http10ResponseWithoutLengthReadsToClose() {
        let input = head("", version: "HTTP/1.0") + Array("old".utf8)
        #expect(response(input).events == ["head 200 HTTP/1.0 reason=OK [] untilClose", "body old", "end keepAlive=false trailers=[]", "closed"])
    }

    @Test func framingAPI() throws {
        var parser = ResponseHeadParser()
        guard case .complete(let parsed, _) = try parser.parse(ByteBuffer(bytes: head("Content-Length: 7\n"))) else {
            Issue.record("incomplete")
            return
        }
        #expect(try BodyFraming.forResponse(parsed, requestMethod: .get) == .contentLength(7))
        #expect(try BodyFraming.forResponse(parsed, requestMethod: .head) == .noBody)
        #expect(try BodyFraming.forResponse(parsed, requestMethod: .connect) == .noBody)
    }
}
