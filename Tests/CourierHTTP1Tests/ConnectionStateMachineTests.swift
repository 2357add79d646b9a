// The client connection state machine: reuse, leftover bytes, early responses, closes, and
// sticky errors. Sequences over several requests drive the machine directly; single responses go
// through the split harness.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

/// Drives a connection and renders its events like the transcripts.
private struct Driver {
    var connection = HTTP1ClientStateMachine()

    mutating func feed(_ text: String) throws -> [String] {
        try connection.receivedBytes(ByteBuffer(bytes: crlf(text)))
        return try drain()
    }

    mutating func drain() throws -> [String] {
        var events: [String] = []
        while true {
            switch try connection.nextEvent() {
            case .needMoreData: return events
            case .connectionClosed: events.append("closed"); return events
            case .interimResponse(let head): events.append("interim \(head.status)")
            case .responseHead(let head, let framing): events.append("head \(head.status) \(framing)")
            case .bodyPart(let bytes): events.append("body \(bytes.readableString)")
            case .endOfMessage(_, let keepAlive): events.append("end keepAlive=\(keepAlive)")
            case .switchedProtocols(let head, _): events.append("switched \(head.status)"); return events
            }
        }
    }
}

@Suite struct ConnectionStateMachineTests {
    @Test func keepAliveConnectionCarriesSeveralExchanges() throws {
        var driver = Driver()
        #expect(driver.connection.isReusable)
        for round in 0..<3 {
            try driver.connection.sendHead(RequestInfo(method: .get), framing: .noBody)
            #expect(!driver.connection.isReusable)
            let events = try driver.feed("HTTP/1.1 200 OK\nContent-Length: 1\n\n\(round)")
            #expect(events == ["head 200 contentLength(1)", "body \(round)", "end keepAlive=true"])
            #expect(driver.connection.isReusable)
        }
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["closed"])
        #expect(!driver.connection.isReusable)
    }

    @Test func requestBodyAndContinue() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .post), framing: .chunked)
        #expect(try driver.feed("HTTP/1.1 100 Continue\n\n") == ["interim 100"])
        try driver.connection.endBody()
        #expect(try driver.feed("HTTP/1.1 201 Created\nContent-Length: 0\n\n") == ["head 201 contentLength(0)", "end keepAlive=true"])
        #expect(driver.connection.isReusable)
    }

    @Test func anEarlyResponseLeavesTheConnectionReusableOnlyOnceTheBodyIsComplete() throws {
        // h11's rule: both sides done. The server answered before the body was all sent; once the
        // client has sent it whole, the server has it (read or discarded) and the connection can
        // carry the next request.
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .put), framing: .chunked)
        let events = try driver.feed("HTTP/1.1 413 Content Too Large\nContent-Length: 0\n\n")
        #expect(events == ["head 413 contentLength(0)", "end keepAlive=true"])
        #expect(!driver.connection.isReusable, "the request body is still being sent")
        #expect(driver.connection.isSendingBody)
        try driver.connection.endBody()
        #expect(driver.connection.isReusable)
    }

    @Test func anEarlyResponseSayingCloseEndsTheConnection() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .put), framing: .chunked)
        let events = try driver.feed("HTTP/1.1 413 Content Too Large\nConnection: close\nContent-Length: 0\n\n")
        #expect(events == ["head 413 contentLength(0)", "end keepAlive=false"])
        try driver.connection.endBody()
        #expect(!driver.connection.isReusable)
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["closed"])
    }

    @Test func aCloseBeforeTheBodyIsCompleteAfterAnEarlyResponseEndsTheConnection() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .post), framing: .chunked)
        _ = try driver.feed("HTTP/1.1 401 Unauthorized\nContent-Length: 0\n\n")
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["closed"])
        #expect(!driver.connection.isReusable)
    }

    @Test func bytesAfterAnEarlyResponseAreUnexpected() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .post), framing: .chunked)
        _ = try driver.feed("HTTP/1.1 401 Unauthorized\nContent-Length: 0\n\n")
        #expect(throws: HTTPParserError(.unexpectedData, offset: 0)) { try driver.connection.receivedBytes(ByteBuffer(string: "HTTP/1.1 200")) }
    }

    @Test func bytesWhileIdleAreUnexpectedAndTheErrorIsSticky() throws {
        var driver = Driver()
        let expected = HTTPParserError(.unexpectedData, offset: 0)
        #expect(throws: expected) { try driver.feed("HTTP/1.1 200 OK\n\n") }
        #expect(driver.connection.error == expected)
        #expect(throws: expected) { try driver.connection.nextEvent() }
        #expect(throws: expected) { try driver.connection.sendHead(RequestInfo(method: .get), framing: .noBody) }
        #expect(throws: expected) { try driver.connection.receivedBytes(ByteBuffer(string: "x")) }
        #expect(throws: expected) { try driver.connection.connectionClosed() }
        #expect(!driver.connection.isReusable)
    }

    @Test func leftoverBytesAfterAResponsePoisonTheConnection() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        // The stray bytes arrive with the response: the response is still delivered, then the
        // connection fails instead of reading them as the next response.
        try connection.receivedBytes(ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\nContent-Length: 2\n\nokHTTP/1.1 200 OK\n\n")))
        guard case .responseHead = try connection.nextEvent() else { Issue.record("no head"); return }
        guard case .bodyPart = try connection.nextEvent() else { Issue.record("no body"); return }
        guard case .endOfMessage(_, true) = try connection.nextEvent() else { Issue.record("no end"); return }
        #expect(!connection.isReusable)
        #expect(throws: HTTPParserError(.unexpectedData, offset: 0)) { try connection.nextEvent() }
        #expect(connection.error?.code == .unexpectedData)
    }

    @Test func leftoverBytesThroughTheHarness() {
        let input = message("HTTP/1.1 200 OK\nContent-Length: 2\n\n", "ok")
        let events = ["head 200 HTTP/1.1 reason=OK [Content-Length: 2] contentLength(2)", "body ok", "end keepAlive=true trailers=[]"]
        let outcome = response(input, close: false, trailing: Array("garbage".utf8),
                               expectedWithTrailing: Transcript(events, error: HTTPParserError(.unexpectedData, offset: 0)))
        #expect(outcome == Transcript(events))
    }

    @Test func requestHeadSentWithStrayBytesPending() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        try connection.receivedBytes(ByteBuffer(bytes: crlf("HTTP/1.1 204 No Content\n\nX")))
        guard case .responseHead = try connection.nextEvent() else { Issue.record("no head"); return }
        guard case .endOfMessage(_, true) = try connection.nextEvent() else { Issue.record("no end"); return }
        #expect(!connection.isReusable)
        #expect(throws: HTTPParserError(.unexpectedData, offset: 0)) { try connection.sendHead(RequestInfo(method: .get), framing: .noBody) }
    }

    @Test func parseErrorsAreStickyAndPoison() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        let expected = HTTPParserError(.obsoleteLineFolding, offset: 17)
        #expect(throws: expected) { try driver.feed("HTTP/1.1 200 OK\n folded: x\n\n") }
        #expect(throws: expected) { try driver.connection.nextEvent() }
        #expect(throws: expected) { try driver.connection.receivedBytes(ByteBuffer(string: "more")) }
        #expect(throws: expected) { try driver.connection.connectionClosed() }
        #expect(throws: expected) { try driver.connection.sendHead(RequestInfo(method: .get), framing: .noBody) }
    }

    @Test func closeWithoutAnyResponseIsAnEmptyReply() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        try connection.connectionClosed()
        #expect(throws: HTTPParserError(.emptyResponse, offset: 0)) { try connection.nextEvent() }
        #expect(response([]) == Transcript([], error: HTTPParserError(.emptyResponse, offset: 0)))
    }

    @Test func closeWhileIdleIsNotAnError() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.connectionClosed()
        guard case .connectionClosed = try connection.nextEvent() else { Issue.record("expected closed"); return }
        guard case .connectionClosed = try connection.nextEvent() else { Issue.record("expected closed again"); return }
        #expect(!connection.isReusable)
    }

    @Test func closeDelimitedBodyEndsOnClose() throws {
        var driver = Driver()
        try driver.connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        #expect(try driver.feed("HTTP/1.1 200 OK\n\nabc") == ["head 200 untilClose", "body abc"])
        #expect(try driver.feed("def") == ["body def"])
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["end keepAlive=false", "closed"])
    }

    @Test func responseCompleteWhenThePeerClosesStillDecodesBufferedBytes() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        try connection.receivedBytes(ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\nContent-Length: 2\n\nhi")))
        try connection.connectionClosed()
        guard case .responseHead = try connection.nextEvent() else { Issue.record("no head"); return }
        guard case .bodyPart(let body) = try connection.nextEvent() else { Issue.record("no body"); return }
        #expect(body.readableString == "hi")
        // The close was seen before the end was reported: the connection cannot be reused.
        guard case .endOfMessage(_, false) = try connection.nextEvent() else { Issue.record("no end"); return }
        guard case .connectionClosed = try connection.nextEvent() else { Issue.record("not closed"); return }
    }

    @Test func requestInfoFromHeaders() {
        let plain = RequestInfo(method: .get, headers: ["Host": "x"], hasBody: false)
        #expect(!plain.closeRequested && !plain.keepAliveRequested && !plain.upgradeRequested)
        let close = RequestInfo(method: .get, headers: ["Connection": "Keep-Alive, Close"], hasBody: false)
        #expect(close.closeRequested && close.keepAliveRequested)
        let upgradeWithoutField = RequestInfo(method: .get, headers: ["Connection": "upgrade"], hasBody: false)
        #expect(!upgradeWithoutField.upgradeRequested)
    }

    @Test func bodyPartsAreSlicesOfTheReceivedBuffer() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(RequestInfo(method: .get), framing: .noBody)
        let received = ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\nContent-Length: 4\n\n") + Array("data".utf8))
        let base = received.withUnsafeReadableBytes { $0.baseAddress! }
        try connection.receivedBytes(received)
        guard case .responseHead(let head, _) = try connection.nextEvent() else { Issue.record("no head"); return }
        #expect(head.bytes.withUnsafeReadableBytes { $0.baseAddress! } == base)
        guard case .bodyPart(let body) = try connection.nextEvent() else { Issue.record("no body"); return }
        #expect(body.withUnsafeReadableBytes { $0.baseAddress! } == base + received.readableBytes - 4)
    }
}

/// The send side: the machine frames the request body and keeps the Content-Length promise.
@Suite struct RequestSendingTests {
    static func bytes(_ list: GatherList) -> String { String(decoding: list.joined, as: UTF8.self) }

    @Test func contentLengthBodyIsPassedThroughAndItsLastByteEndsTheRequest() throws {
        var machine = HTTP1ClientStateMachine()
        try machine.sendHead(RequestInfo(method: .post), framing: .contentLength(5))
        #expect(machine.isSendingBody)
        var list = GatherList()
        try machine.sendBody(ByteBuffer(string: "abc"), into: &list)
        try machine.sendBody(ByteBuffer(string: ""), into: &list)
        #expect(machine.isSendingBody)
        try machine.sendBody(ByteBuffer(string: "de"), into: &list)
        #expect(Self.bytes(list) == "abcde")
        // The last declared byte ends the request: a response read now is not an early one.
        #expect(!machine.isSendingBody)
        try machine.receivedBytes(ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
        guard case .responseHead = try machine.nextEvent(), case .endOfMessage(_, let keepAlive) = try machine.nextEvent() else {
            Issue.record("expected a head and its end")
            return
        }
        #expect(keepAlive)
        var end = GatherList()
        try machine.sendEnd(into: &end)
        #expect(end.isEmpty)
        #expect(machine.isReusable)
    }

    @Test func contentLengthPromisesAreKept() throws {
        var machine = HTTP1ClientStateMachine()
        try machine.sendHead(RequestInfo(method: .put), framing: .contentLength(3))
        var list = GatherList()
        #expect(throws: HTTPEncodingError(.bodyLengthMismatch)) { try machine.sendBody(ByteBuffer(string: "abcd"), into: &list) }
        #expect(list.isEmpty, "nothing is framed when the piece is refused")
        try machine.sendBody(ByteBuffer(string: "ab"), into: &list)
        #expect(throws: HTTPEncodingError(.bodyLengthMismatch)) { try machine.sendEnd(into: &list) }
        try machine.sendBody(writtenElsewhere: 1)
        try machine.sendEnd(into: &list)
        #expect(Self.bytes(list) == "ab")
        #expect(throws: HTTPEncodingError(.noRequestBody)) { try machine.sendBody(ByteBuffer(string: "x"), into: &list) }
    }

    @Test func chunkedBodyIsFramedAndEndedWithTrailers() throws {
        var machine = HTTP1ClientStateMachine()
        try machine.sendHead(RequestInfo(method: .post), framing: .chunked)
        var list = GatherList()
        try machine.sendBody(ByteBuffer(string: "hello"), into: &list)
        try machine.sendBody(ByteBuffer(bytes: Array(repeating: UInt8(ascii: "x"), count: 26)), into: &list)
        #expect(machine.isSendingBody)
        #expect(throws: HTTPEncodingError(.noRequestBody)) { try machine.sendBody(writtenElsewhere: 3) }
        try machine.sendEnd(trailers: ["X-Check": "1"], into: &list)
        #expect(!machine.isSendingBody)
        #expect(machine.requestBodyBytesSent == 31)
        #expect(Self.bytes(list) == "5\r\nhello\r\n1a\r\n" + String(repeating: "x", count: 26) + "\r\n0\r\nX-Check: 1\r\n\r\n")
    }

    @Test func aRequestWithoutBodyRefusesBodyBytes() throws {
        var machine = HTTP1ClientStateMachine()
        try machine.sendHead(RequestInfo(method: .get), framing: .noBody)
        var list = GatherList()
        #expect(throws: HTTPEncodingError(.noRequestBody)) { try machine.sendBody(ByteBuffer(string: "x"), into: &list) }
        try machine.sendEnd(into: &list)
        #expect(list.isEmpty)
    }

    @Test func responseBytesAreNoticedForTheRetryRule() throws {
        var machine = HTTP1ClientStateMachine()
        try machine.sendHead(RequestInfo(method: .get), framing: .noBody)
        #expect(!machine.hasReceivedResponseBytes)
        try machine.receivedBytes(ByteBuffer(string: "HTTP/1."))
        #expect(machine.hasReceivedResponseBytes)
        try machine.receivedBytes(ByteBuffer(string: "1 204 No Content\r\n\r\n"))
        _ = try machine.nextEvent()
        _ = try machine.nextEvent()
        try machine.sendHead(RequestInfo(method: .get), framing: .noBody)
        #expect(!machine.hasReceivedResponseBytes, "a new exchange starts with no response byte")
    }
}
