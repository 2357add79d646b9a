// HTTP1ClientStateMachine: the client side of one HTTP/1.1 connection as a sans-IO state machine
// (h11's _connection.py / _state.py as the model), both directions. It owns the receive buffer, the
// response head parser (whose field storage is reused for the life of the connection), the body
// decoder of the response in progress, the request body's framing (Content-Length accounting,
// chunk framing, trailers) and the keep-alive decision. It performs no I/O: the shell says what it
// sends and gets back the bytes to write; it hands over what it received and asks for events.
//
// Rules of this file: every transition of `phase` and of the request side happens here, in the
// input methods below; the table is the whole story.
//
//     phase      input                       next phase / output
//     ---------  --------------------------  -------------------------------------------------
//     idle       sendHead                    exchange (request: body per its framing, or done)
//     idle       receivedBytes (non-empty)   failed(unexpectedData)
//     idle       connectionClosed            closed
//     exchange   sendBody, Content-Length    exchange; the bytes. The last declared byte ends the
//                                            request (a response read after it is not early);
//                                            more than declared: local error, nothing framed
//     exchange   sendBody, chunked           exchange; size line, the bytes, CRLF (hyper's shape)
//     exchange   sendEnd                     exchange (request: done); the last chunk and the
//                                            trailers, or nothing for Content-Length (fewer bytes
//                                            than declared: local error)
//     exchange   nextEvent: 1xx head         exchange; .interimResponse (count and size limited)
//     exchange   nextEvent: 101 / CONNECT 2xx switched; .switchedProtocols (101 only if asked for)
//     exchange   nextEvent: final head       exchange (response: body); .responseHead
//     exchange   nextEvent: body bytes       exchange; .bodyPart
//     exchange   nextEvent: end of body      idle if keep-alive and request done; requestPending
//                                            while the request body is still being sent; else
//                                            mustClose; .endOfMessage(keepAlive: the response's
//                                            verdict — reuse also needs the request done)
//     requestPending  sendBody (last CL byte)  idle if keep-alive, else mustClose (both sides done:
//                or sendEnd                  h11's rule; the server has the whole body)
//     requestPending  receivedBytes           failed(unexpectedData)
//     requestPending  connectionClosed        closed
//     mustClose  sendBody / sendEnd          mustClose; framed as in exchange (an early response
//                                            ended the exchange; the shell may stop sending)
//     mustClose  receivedBytes (non-empty)   failed(unexpectedData)
//     mustClose  connectionClosed            closed
//     any        a peer error                failed(error)  — sticky: every later input rethrows it
//     closed     nextEvent                   .connectionClosed
//
// Keep-alive (RFC 9112 §9.3, §9.6): the connection persists after a response unless the request
// or the response said `Connection: close`, either side is HTTP/1.0 without `Connection:
// keep-alive`, the body was delimited by the close, the request body was not sent whole (a caller
// that stops after an early response must close: the rest can no longer be framed), or anything
// went wrong. Errors poison
// the connection: it is never reused.
//
// No pipelining: one request at a time. Bytes arriving when no response is expected (leftovers
// after a complete response, or before any request) are `unexpectedData` — RFC 9112 §9.3 makes a
// client responsible for matching responses to requests, and a stray byte would be taken for the
// next response otherwise.
//
// Errors: the peer's mistakes are `HTTPParserError`s (remote, sticky); the caller's mistakes in the
// request body (more or fewer bytes than declared, a body where none was declared, bad trailers)
// are `HTTPEncodingError`s (local: nothing is framed, the machine is unchanged). Misuse of the
// machine itself (a request while one is in flight, bytes after a close, events after a protocol
// switch) is a programmer error: a precondition.

import CourierBytes

/// The client side of one HTTP/1.1 connection: tell it what is sent (it frames the body), feed
/// it what was received, take events.
public struct HTTP1ClientStateMachine: Sendable {
    /// What the caller sent, as far as the response's framing and the connection's fate depend on it.
    public struct RequestInfo: Sendable, Hashable {
        /// The request method (HEAD and CONNECT change the response framing).
        public var method: HTTPMethod
        /// The version of the request line.
        public var version: HTTPVersion
        /// Whether a body follows the head (`sendHead` sets it from the framing).
        public var hasBody: Bool
        /// Whether the request asked to switch protocols (`Connection: upgrade` with `Upgrade`).
        public var upgradeRequested: Bool
        /// Whether the request carried `Connection: close`.
        public var closeRequested: Bool
        /// Whether the request carried `Connection: keep-alive` (meaningful for HTTP/1.0).
        public var keepAliveRequested: Bool

        /// Describes a request.
        /// - Parameters:
        ///   - method: the method.
        ///   - version: the request-line version (default HTTP/1.1).
        ///   - hasBody: whether a body follows the head.
        ///   - upgradeRequested: whether the request asked for a protocol switch.
        ///   - closeRequested: whether the request said `Connection: close`.
        ///   - keepAliveRequested: whether the request said `Connection: keep-alive`.
        public init(method: HTTPMethod, version: HTTPVersion = .http1_1, hasBody: Bool = false,
                    upgradeRequested: Bool = false, closeRequested: Bool = false, keepAliveRequested: Bool = false) {
            self.method = method
            self.version = version
            self.hasBody = hasBody
            self.upgradeRequested = upgradeRequested
            self.closeRequested = closeRequested
            self.keepAliveRequested = keepAliveRequested
        }

        /// Describes a request from the header fields it was sent with: `Connection` options
        /// `close`, `keep-alive` and `upgrade` (the last together with an `Upgrade` field).
        /// - Parameters:
        ///   - method: the method.
        ///   - version: the request-line version.
        ///   - headers: the fields sent.
        ///   - hasBody: whether a body follows the head.
        public init(method: HTTPMethod, version: HTTPVersion = .http1_1, headers: HTTPHeaders, hasBody: Bool) {
            func hasOption(_ option: StaticString) -> Bool {
                headers["connection"].contains { value in
                    var value = value
                    return value.withUTF8 { ASCII.listContains($0.baseAddress ?? option.utf8Start, count: $0.count, token: option.rawBytes) }
                }
            }
            self.init(method: method, version: version, hasBody: hasBody,
                      upgradeRequested: hasOption("upgrade") && headers.contains(name: "upgrade"),
                      closeRequested: hasOption("close"), keepAliveRequested: hasOption("keep-alive"))
        }

        /// Whether the request side allows the connection to persist (RFC 9112 §9.3).
        var allowsPersistence: Bool {
            if closeRequested { return false }
            return version.major > 1 || version.minor >= 1 || keepAliveRequested
        }
    }

    /// What `nextEvent()` produced.
    public enum Event: Sendable {
        /// Nothing more can be decoded from the bytes received so far.
        case needMoreData
        /// An interim (1xx) response, such as 100 Continue or 103 Early Hints; a final one follows.
        case interimResponse(ResponseHead)
        /// The final response head, and how its body is framed.
        case responseHead(ResponseHead, framing: BodyFraming)
        /// Body bytes: a slice sharing the receive buffer's storage.
        case bodyPart(ByteBuffer)
        /// The response is complete. `keepAlive` says whether the connection may carry another
        /// request (once the request body, if any, is done).
        case endOfMessage(trailers: ParsedFields, keepAlive: Bool)
        /// A 101 response to an upgrade request, or a 2xx response to CONNECT: HTTP/1.1 is over on
        /// this connection; `leftover` holds the bytes already received after the head.
        case switchedProtocols(ResponseHead, leftover: ByteBuffer)
        /// The peer closed the connection while no response was in progress.
        case connectionClosed
    }

    private enum Phase: Sendable {
        case idle, exchange, mustClose, switched, closed
        /// The response ended while the request body was still being sent: the connection can be
        /// reused (when `keepAlive`) once the request is complete — h11's rule, both sides done.
        case requestPending(keepAlive: Bool)
        case failed(HTTPParserError)
    }

    private enum ResponsePhase: UInt8, Sendable { case head, body, done }

    private let limits: HTTP1ParserLimits
    private var phase = Phase.idle
    private var buffer = ByteBuffer()
    private var peerClosed = false
    private var headParser: ResponseHeadParser
    private var body = BodyDecoder(framing: .noBody)
    private var request = RequestInfo(method: .get)
    private var requestBodyPending = false
    /// How the request body in progress is framed, and how much of it was framed so far.
    private var requestFraming = EncodedHead.Framing.noBody
    private var requestBodySent: UInt64 = 0
    private var chunkedEncoder = ChunkedEncoder()
    /// Whether any byte of a response arrived during the exchange in progress.
    private var responseStarted = false
    private var responsePhase = ResponsePhase.head
    private var responseKeepAlive = false
    /// Bytes of the current response consumed so far (interim heads, head, body), for offsets.
    private var responseConsumed = 0
    /// Bytes of the current response before the final head's first byte.
    private var finalHeadStart = 0

    /// Read a Content-Length response body until the connection closes instead, as if the field
    /// were not there (curl `--ignore-content-length`); such a connection is not reused. A chunked
    /// body is still chunked. Set before a response head arrives.
    public var ignoresContentLength = false
    /// Hand out a chunked response body as it came, chunk framing included (curl `--raw`); its
    /// end is still found by decoding the framing (see BodyDecoder).
    public var passesChunkedFramingThrough = false

    /// Creates a connection in the idle state.
    /// - Parameter limits: the parsing limits.
    public init(limits: HTTP1ParserLimits = .default) {
        self.limits = limits
        self.headParser = ResponseHeadParser(limits: limits)
    }

    /// Whether a new request may be sent now: idle, nothing unexpected received, not closed.
    public var isReusable: Bool {
        if case .idle = phase { return !peerClosed && buffer.readableBytes == 0 }
        return false
    }

    /// The error the connection failed with, if it failed.
    public var error: HTTPParserError? {
        if case .failed(let error) = phase { return error }
        return nil
    }

    // MARK: Inputs

    /// Starts a request: its head (encoded by `RequestHeadEncoder`) is being sent, its body (if
    /// any) follows through `sendBody` and `sendEnd`.
    /// - Parameters:
    ///   - request: what the request said (method, version, connection options).
    ///   - framing: how its body is delimited (the encoded head's framing).
    /// - Throws: the connection's error if it already failed, or `unexpectedData` if bytes
    ///   arrived before the request.
    /// - Precondition: the connection is idle (`isReusable`, or failed).
    public mutating func sendHead(_ request: RequestInfo, framing: EncodedHead.Framing) throws(HTTPParserError) {
        if case .failed(let error) = phase { throw error }
        guard case .idle = phase else { preconditionFailure("a request was sent while the connection was not idle (\(phase))") }
        precondition(!peerClosed, "a request was sent on a connection the peer closed")
        if buffer.readableBytes > 0 { throw fail(HTTPParserError(.unexpectedData, offset: 0)) }
        var request = request
        switch framing {
        case .contentLength(let length): request.hasBody = length > 0
        case .chunked: request.hasBody = true
        case .noBody, .untilClose: request.hasBody = false
        }
        self.request = request
        requestFraming = framing
        requestBodySent = 0
        chunkedEncoder = ChunkedEncoder()
        requestBodyPending = request.hasBody
        responseStarted = false
        responsePhase = .head
        responseConsumed = 0
        finalHeadStart = 0
        headParser.reset()
        phase = .exchange
    }

    /// Frames the next piece of the request body into `list`: the bytes themselves for a
    /// Content-Length body (its last declared byte ends the request), one chunk for a chunked
    /// body. An empty piece frames nothing.
    /// - Parameters:
    ///   - bytes: the body bytes (shared, never copied).
    ///   - list: receives what to write.
    /// - Throws: `HTTPEncodingError` `.bodyLengthMismatch` when the piece goes past the declared
    ///   length, `.noRequestBody` when no body is in progress; nothing is framed then.
    public mutating func sendBody(_ bytes: ByteBuffer, into list: inout GatherList) throws(HTTPEncodingError) {
        guard requestBodyPending else { throw HTTPEncodingError(.noRequestBody) }
        let count = UInt64(bytes.readableBytes)
        switch requestFraming {
        case .contentLength(let length):
            guard requestBodySent + count <= length else { throw HTTPEncodingError(.bodyLengthMismatch) }
            if count > 0 { list.append(.buffer(bytes)) }
            requestBodySent += count
            // Every declared byte is framed: the request is complete on the wire.
            if requestBodySent == length { requestCompleted() }
        case .chunked:
            chunkedEncoder.encodeChunk(bytes, into: &list)
            requestBodySent += count
        case .noBody, .untilClose:
            throw HTTPEncodingError(.noRequestBody)
        }
    }

    /// Accounts for `count` Content-Length body bytes the shell writes by other means (sendfile(2)
    /// from a file): the same checks and the same end-of-request rule as `sendBody`.
    /// - Parameter count: the number of bytes.
    /// - Throws: `HTTPEncodingError` (`.bodyLengthMismatch`, `.noRequestBody`, also for a chunked
    ///   body, whose chunks must be framed here).
    public mutating func sendBody(writtenElsewhere count: UInt64) throws(HTTPEncodingError) {
        guard requestBodyPending, case .contentLength(let length) = requestFraming else { throw HTTPEncodingError(.noRequestBody) }
        guard requestBodySent + count <= length else { throw HTTPEncodingError(.bodyLengthMismatch) }
        requestBodySent += count
        if requestBodySent == length { requestCompleted() }
    }

    /// Ends the request body: the last chunk and `trailers` for a chunked body; for a
    /// Content-Length body, a check that every declared byte was framed (nothing to write).
    /// Ending a body that already ended (a Content-Length body whose last byte was framed, or no
    /// body at all) frames nothing.
    /// - Parameters:
    ///   - trailers: trailer fields (chunked bodies only).
    ///   - list: receives what to write.
    /// - Throws: `HTTPEncodingError` (`.bodyLengthMismatch` when fewer bytes than declared were
    ///   framed, trailer errors).
    public mutating func sendEnd(trailers: HTTPHeaders = HTTPHeaders(), into list: inout GatherList) throws(HTTPEncodingError) {
        switch requestFraming {
        case .contentLength(let length):
            guard requestBodySent == length else { throw HTTPEncodingError(.bodyLengthMismatch) }
        case .chunked:
            guard requestBodyPending else { return }
            try chunkedEncoder.end(trailers: trailers, into: &list)
        case .noBody, .untilClose:
            break
        }
        requestCompleted()
    }

    /// The request body is complete: after an early response the connection's fate is decided now.
    private mutating func requestCompleted() {
        requestBodyPending = false
        if case .requestPending(let keepAlive) = phase {
            phase = keepAlive && !peerClosed ? .idle : .mustClose
        }
    }

    /// Whether the request body is still being sent (declared and not yet ended).
    public var isSendingBody: Bool { requestBodyPending }

    /// Whether the final response of the exchange in progress lets the connection persist (its
    /// version and `Connection` field, and the request's); false before its head arrived.
    public var responseAllowsPersistence: Bool { responseKeepAlive }

    /// Request body bytes framed so far in the exchange in progress.
    public var requestBodyBytesSent: UInt64 { requestBodySent }

    /// Whether any byte of a response arrived during the exchange in progress: a failure before
    /// it means the server may not have processed the request (the pool's retry rule).
    public var hasReceivedResponseBytes: Bool { responseStarted }

    /// Hands over bytes read from the connection. The buffer is adopted without a copy when
    /// nothing is pending.
    /// - Parameter bytes: the bytes received.
    /// - Throws: the connection's error if it failed; `unexpectedData` if no response is
    ///   expected.
    /// - Precondition: the peer has not closed, and the protocol was not switched.
    public mutating func receivedBytes(_ bytes: ByteBuffer) throws(HTTPParserError) {
        if case .failed(let error) = phase { throw error }
        precondition(!peerClosed, "bytes received after the connection closed")
        switch phase {
        case .switched: preconditionFailure("bytes received after a protocol switch belong to the new protocol")
        case .closed: preconditionFailure("bytes received after the connection closed")
        default: break
        }
        guard bytes.readableBytes > 0 else { return }
        if case .exchange = phase { responseStarted = true }
        if buffer.readableBytes == 0 {
            buffer = bytes
        } else {
            if buffer.writableBytes < bytes.readableBytes && buffer.readerIndex > 0 { buffer.discardReadBytes() }
            buffer.writeBuffer(bytes)
        }
        switch phase {
        case .idle, .mustClose, .requestPending: throw fail(HTTPParserError(.unexpectedData, offset: 0))
        default: break
        }
    }

    /// Moves the bytes received but not yet consumed (a partial head, the start of a chunk-size
    /// line) to the end of `target`, so the shell can read the next bytes right after them into
    /// a buffer of its choosing and hand that buffer back whole with `receivedBytes` — the tail
    /// is copied, not the whole of the next read.
    ///
    /// Only a small tail moves (at most half of `target`'s room, which always leaves room to
    /// read into): a large one — a head of hundreds of KiB arriving in small pieces — stays here
    /// and the next read is appended to it, so each byte is copied a bounded number of times
    /// (moving it on every read would copy the whole head again for every piece).
    /// - Parameter target: an empty buffer the next read will fill.
    public mutating func moveUnconsumedBytes(into target: inout ByteBuffer) {
        guard buffer.readableBytes > 0, buffer.readableBytes <= target.writableBytes / 2 else { return }
        target.writeBuffer(buffer)
        buffer = ByteBuffer()
    }

    /// The bytes of the response body in progress still to come, when its framing says how many
    /// (Content-Length) and nothing of them is buffered here; nil otherwise. The shell may then
    /// take them from the connection itself (`receivedBodyElsewhere`).
    public var bodyBytesRemainingOnTheWire: UInt64? {
        guard case .exchange = phase, responsePhase == .body, buffer.readableBytes == 0 else { return nil }
        return body.remainingLength
    }

    /// Accounts for `count` body bytes the shell took from the connection itself (spliced into a
    /// file, never handed to `receivedBytes`); `nextEvent` then reports the end when they were the
    /// last ones.
    /// - Parameter count: the bytes taken.
    /// - Precondition: `bodyBytesRemainingOnTheWire` is at least `count`.
    public mutating func receivedBodyElsewhere(_ count: UInt64) {
        precondition((bodyBytesRemainingOnTheWire ?? 0) >= count, "more body bytes taken than remain")
        guard count > 0 else { return }
        responseStarted = true
        body.skip(count)
        responseConsumed += Int(count)
    }

    /// Lets go of the receive buffer once every byte of it was consumed, so an idle connection
    /// keeps no buffer (a pooled one goes back to its pool).
    public mutating func releaseBufferIfConsumed() {
        if buffer.readableBytes == 0 && buffer.capacity > 0 { buffer = ByteBuffer() }
    }

    /// Reports that the peer closed the connection (end of input).
    /// - Throws: the connection's error if it failed.
    public mutating func connectionClosed() throws(HTTPParserError) {
        if case .failed(let error) = phase { throw error }
        peerClosed = true
        switch phase {
        // With leftovers pending, nextEvent reports them first (unexpectedData).
        case .idle, .mustClose, .requestPending: if buffer.readableBytes == 0 { phase = .closed }
        default: break
        }
    }

    // MARK: Output

    /// Decodes the next event from the bytes received.
    /// - Returns: the event; `.needMoreData` when the bytes received so far are used up.
    /// - Throws: `HTTPParserError` when the peer broke HTTP/1.1 or a limit was exceeded; the same
    ///   error on every later call.
    /// - Precondition: the protocol was not switched.
    public mutating func nextEvent() throws(HTTPParserError) -> Event {
        switch phase {
        case .failed(let error):
            throw error
        case .closed:
            return .connectionClosed
        case .switched:
            preconditionFailure("nextEvent() after a protocol switch")
        case .idle, .mustClose, .requestPending:
            // Leftovers after the response that just ended: never the start of another response.
            if buffer.readableBytes > 0 { throw fail(HTTPParserError(.unexpectedData, offset: 0)) }
            return .needMoreData
        case .exchange:
            break
        }
        switch responsePhase {
        case .head: return try nextHeadEvent()
        case .body: return try nextBodyEvent()
        case .done: return .needMoreData
        }
    }

    private mutating func nextHeadEvent() throws(HTTPParserError) -> Event {
        let result: ResponseHeadParser.Result
        do throws(HTTPParserError) {
            result = try headParser.parse(buffer)
        } catch {
            throw fail(error)
        }
        guard case .complete(let head, let consumed) = result else {
            if peerClosed {
                // RFC 9112 §8: a head cut short by the close is incomplete; nothing at all is an
                // empty reply.
                let code: HTTPParserError.Code = responseConsumed == 0 && buffer.readableBytes == 0 ? .emptyResponse : .incompleteHead
                throw fail(HTTPParserError(code, offset: responseConsumed + buffer.readableBytes))
            }
            return .needMoreData
        }
        buffer.moveReaderIndex(forwardBy: consumed)
        let headStart = responseConsumed
        responseConsumed += consumed
        if head.isInterim { return .interimResponse(head) }

        // RFC 9110 §15.2.2: 101 only in answer to an Upgrade; §9.3.6: 2xx to CONNECT is a tunnel.
        let isSwitch = head.status == 101 || (request.method.rawValue == "CONNECT" && head.status / 100 == 2)
        if isSwitch {
            guard head.status != 101 || request.upgradeRequested else {
                throw fail(HTTPParserError(.unsolicitedSwitchingProtocols, offset: headStart))
            }
            let leftover = buffer
            buffer = ByteBuffer()
            phase = .switched
            return .switchedProtocols(head, leftover: leftover)
        }

        var framing: BodyFraming
        do throws(HTTPParserError) {
            framing = try BodyFraming.forResponse(head, requestMethod: request.method)
        } catch {
            throw fail(error.shifted(by: headStart))
        }
        if ignoresContentLength, case .contentLength = framing { framing = .untilClose }
        finalHeadStart = headStart
        responseKeepAlive = request.allowsPersistence && HTTP1ClientStateMachine.responseAllowsPersistence(head)
            && framing != .untilClose
        body = BodyDecoder(framing: framing, limits: limits)
        body.passesChunkedFramingThrough = passesChunkedFramingThrough
        responsePhase = .body
        return .responseHead(head, framing: framing)
    }

    private mutating func nextBodyEvent() throws(HTTPParserError) -> Event {
        let bodyStart = responseConsumed
        var event: BodyEvent?
        do throws(HTTPParserError) {
            event = try body.next(from: &buffer)
            if event == nil && peerClosed { event = try body.connectionClosed() }
        } catch {
            throw fail(error.shifted(by: bodyStart))
        }
        switch event {
        case nil:
            return .needMoreData
        case .data(let bytes)?:
            return .bodyPart(bytes)
        case .end(let trailers)?:
            responsePhase = .done
            let keepAlive = responseKeepAlive && !peerClosed
            if requestBodyPending && !peerClosed {
                // The response came before the request body was all sent (an early response): the
                // connection is reusable only once the body is complete on the wire — then the
                // server has it whole, read or discarded (nginx discards it); a caller that stops
                // sending must close the connection (the rest can no longer be framed).
                phase = .requestPending(keepAlive: keepAlive)
            } else {
                phase = keepAlive ? .idle : (peerClosed && buffer.readableBytes == 0 ? .closed : .mustClose)
            }
            return .endOfMessage(trailers: trailers, keepAlive: keepAlive)
        }
    }

    /// RFC 9112 §9.3: `Connection: close` ends persistence; HTTP/1.0 persists only with
    /// `Connection: keep-alive`.
    static func responseAllowsPersistence(_ head: ResponseHead) -> Bool {
        let connection: StaticString = "connection"
        let close: StaticString = "close"
        let keepAlive: StaticString = "keep-alive"
        if head.headers.containsToken(close.rawBytes, inField: connection.rawBytes) { return false }
        if head.version.major == 1 && head.version.minor == 0 {
            return head.headers.containsToken(keepAlive.rawBytes, inField: connection.rawBytes)
        }
        return true
    }

    /// Records `error` as the connection's fate and returns it for throwing.
    private mutating func fail(_ error: HTTPParserError) -> HTTPParserError {
        phase = .failed(error)
        return error
    }
}
