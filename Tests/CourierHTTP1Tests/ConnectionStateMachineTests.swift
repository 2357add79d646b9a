// The client connection state machine: reuse, leftover bytes, early responses, closes, and
// sticky errors. Sequences over several requests drive the machine directly; single responses go
// through the split harness.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

/// Drives a connection and renders its events like the transcripts.
private struct Driver {
    var connection = HTTP1ClientConnection()

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
            try driver.connection.requestHeadSent(RequestInfo(method: .get))
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
        try driver.connection.requestHeadSent(RequestInfo(method: .post, hasBody: true))
        #expect(try driver.feed("HTTP/1.1 100 Continue\n\n") == ["interim 100"])
        try driver.connection.requestBodyDone()
        #expect(try driver.feed("HTTP/1.1 201 Created\nContent-Length: 0\n\n") == ["head 201 contentLength(0)", "end keepAlive=true"])
        #expect(driver.connection.isReusable)
    }

    @Test func earlyResponseBeforeTheRequestBodyEndsTheConnection() throws {
        var driver = Driver()
        try driver.connection.requestHeadSent(RequestInfo(method: .put, hasBody: true))
        let events = try driver.feed("HTTP/1.1 413 Content Too Large\nContent-Length: 0\n\n")
        #expect(events == ["head 413 contentLength(0)", "end keepAlive=false"])
        try driver.connection.requestBodyDone()
        #expect(!driver.connection.isReusable)
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["closed"])
    }

    @Test func bytesWhileIdleAreUnexpectedAndTheErrorIsSticky() throws {
        var driver = Driver()
        let expected = HTTPParserError(.unexpectedData, offset: 0)
        #expect(throws: expected) { try driver.feed("HTTP/1.1 200 OK\n\n") }
        #expect(driver.connection.error == expected)
        #expect(throws: expected) { try driver.connection.nextEvent() }
        #expect(throws: expected) { try driver.connection.requestHeadSent(RequestInfo(method: .get)) }
        #expect(throws: expected) { try driver.connection.receivedBytes(ByteBuffer(string: "x")) }
        #expect(throws: expected) { try driver.connection.connectionClosed() }
        #expect(!driver.connection.isReusable)
    }

    @Test func leftoverBytesAfterAResponsePoisonTheConnection() throws {
        var connection = HTTP1ClientConnection()
        try connection.requestHeadSent(RequestInfo(method: .get))
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
        var connection = HTTP1ClientConnection()
        try connection.requestHeadSent(RequestInfo(method: .get))
        try connection.receivedBytes(ByteBuffer(bytes: crlf("HTTP/1.1 204 No Content\n\nX")))
        guard case .responseHead = try connection.nextEvent() else { Issue.record("no head"); return }
        guard case .endOfMessage(_, true) = try connection.nextEvent() else { Issue.record("no end"); return }
        #expect(!connection.isReusable)
        #expect(throws: HTTPParserError(.unexpectedData, offset: 0)) { try connection.requestHeadSent(RequestInfo(method: .get)) }
    }

    @Test func parseErrorsAreStickyAndPoison() throws {
        var driver = Driver()
        try driver.connection.requestHeadSent(RequestInfo(method: .get))
        let expected = HTTPParserError(.obsoleteLineFolding, offset: 17)
        #expect(throws: expected) { try driver.feed("HTTP/1.1 200 OK\n folded: x\n\n") }
        #expect(throws: expected) { try driver.connection.nextEvent() }
        #expect(throws: expected) { try driver.connection.receivedBytes(ByteBuffer(string: "more")) }
        #expect(throws: expected) { try driver.connection.connectionClosed() }
        #expect(throws: expected) { try driver.connection.requestHeadSent(RequestInfo(method: .get)) }
    }

    @Test func closeWithoutAnyResponseIsAnEmptyReply() throws {
        var connection = HTTP1ClientConnection()
        try connection.requestHeadSent(RequestInfo(method: .get))
        try connection.connectionClosed()
        #expect(throws: HTTPParserError(.emptyResponse, offset: 0)) { try connection.nextEvent() }
        #expect(response([]) == Transcript([], error: HTTPParserError(.emptyResponse, offset: 0)))
    }

    @Test func closeWhileIdleIsNotAnError() throws {
        var connection = HTTP1ClientConnection()
        try connection.connectionClosed()
        guard case .connectionClosed = try connection.nextEvent() else { Issue.record("expected closed"); return }
        guard case .connectionClosed = try connection.nextEvent() else { Issue.record("expected closed again"); return }
        #expect(!connection.isReusable)
    }

    @Test func closeDelimitedBodyEndsOnClose() throws {
        var driver = Driver()
        try driver.connection.requestHeadSent(RequestInfo(method: .get))
        #expect(try driver.feed("HTTP/1.1 200 OK\n\nabc") == ["head 200 untilClose", "body abc"])
        #expect(try driver.feed("def") == ["body def"])
        try driver.connection.connectionClosed()
        #expect(try driver.drain() == ["end keepAlive=false", "closed"])
    }

    @Test func responseCompleteWhenThePeerClosesStillDecodesBufferedBytes() throws {
        var connection = HTTP1ClientConnection()
        try connection.requestHeadSent(RequestInfo(method: .get))
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
        var connection = HTTP1ClientConnection()
        try connection.requestHeadSent(RequestInfo(method: .get))
        let received = ByteBuffer(bytes: crlf("HTTP/1.1 200 OK\nContent-Length: 4\n\n") + Array("data".utf8))
        let base = received.withUnsafeReadableBytes { $0.baseAddress! }
        try connection.receivedBytes(received)
        guard case .responseHead(let head, _) = try connection.nextEvent() else { Issue.record("no head"); return }
        #expect(head.bytes.withUnsafeReadableBytes { $0.baseAddress! } == base)
        guard case .bodyPart(let body) = try connection.nextEvent() else { Issue.record("no body"); return }
        #expect(body.withUnsafeReadableBytes { $0.baseAddress! } == base + received.readableBytes - 4)
    }
}
