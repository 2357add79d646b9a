// ConnectionCore: the loop-side half of an HTTP1Connection — the socket, the TLS engine, the
// HTTP/1.1 client state machine, the output queue, the timers and the one pending read and one
// pending write an async caller is waiting for.
//
// Threading invariant: after `attach()` every member is touched only on the event-loop thread
// (from loop handlers, timers, and `submit` closures); the async API in HTTP1Connection reaches it
// only through `EventLoop.submit(deferred:)`. That is what the `@unchecked Sendable` conformance
// rests on. `reusable` is the one exception: an Atomic mirror readable from any thread.
//
// Back-pressure: read interest is on only while a caller waits for response bytes (or the TLS
// handshake waits for data), so a consumer that stops pulling stops the reading; the kernel's
// receive window then stops the server. A body write completes when its bytes are in the kernel.
//
// Failure: every error goes through `fail(_:)`, which is sticky: it closes the socket, cancels the
// timers and fails the waiters; every later operation rethrows the same error (design §6).

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

/// What a caller waiting for response bytes receives.
enum ReadOutcome: Sendable {
    /// The final head, with the body slices already decoded from the same reads (`ended`: the
    /// whole body was among them), so a small response needs no further trip to the loop.
    case head(HTTP1ResponseHead, exchange: Int, prefetched: [ByteBuffer], ended: Bool)
    case bodyPart(ByteBuffer)
    case end
}

/// The parts of a final response head a caller gets (owned copies).
struct HTTP1ResponseHead: Sendable {
    var status: Int
    var version: HTTPVersion
    var reason: String
    var headers: HTTPHeaders
}

final class ConnectionCore: @unchecked Sendable {
    private enum ReadMode { case head, body }

    let loop: EventLoop
    let options: HTTP1ConnectionOptions
    /// Mirrors "another request may be sent now" for any thread.
    let reusable = Atomic<Bool>(false)

    private var socket: Socket?
    private var registration: EventLoop.Registration?
    private var interest: EventLoop.Interest = []
    private(set) var tls: TLSConnection?
    private var machine: HTTP1ClientConnection
    private var cipherBuffer = ByteBuffer()
    private var output = GatherList()
    private var failure: ConnectionError?
    private var peerEOF = false

    private var handshakeWaiter: LoopPromise<Void>?
    private var writeWaiter: LoopPromise<Void>?
    /// A file range being sent with sendfile(2) after `output` drains (plain connections only).
    private var pendingFile: (file: File, offset: Int64, remaining: Int)?
    private var readWaiter: (promise: LoopPromise<ReadOutcome>, mode: ReadMode)?

    private var lastActivity = Instant.now()
    private var idleTimer: EventLoop.Timer?
    private var deadlineTimer: EventLoop.Timer?
    private var handshakeTimer: EventLoop.Timer?

    // The exchange in progress.
    private var exchangeActive = false
    /// Counts exchanges, so a body iterator of an earlier response cannot read a later one.
    private(set) var exchangeNumber = 0
    private var headReceived = false
    private var responseEnded = true
    private var responseFraming: BodyFraming?
    private var requestFraming: EncodedHead.Framing = .noBody
    private var requestBodyOpen = false
    private var bodyWritten: UInt64 = 0
    private var chunkedEncoder = ChunkedEncoder()

    init(loop: EventLoop, socket: Socket, tls: TLSConnection?, options: HTTP1ConnectionOptions) {
        LiveObjects.created(.connectionCore)
        self.loop = loop
        self.socket = socket
        self.tls = tls
        self.options = options
        self.machine = HTTP1ClientConnection(limits: options.limits)
    }

    deinit { LiveObjects.destroyed(.connectionCore) }

    // MARK: Set-up

    /// Registers the socket with the loop. Runs on the loop.
    func attach() throws {
        guard let socket else { return }
        registration = try loop.register(socket, interest: []) { [unowned self] events in handle(events) }
    }

    /// Runs the TLS handshake; the promise completes when it is done (or failed).
    func handshake(_ promise: LoopPromise<Void>, deadline: Instant?) {
        if let failure { promise.fail(failure); return }
        promise.onCancel { [unowned self] in fail(ConnectionError(.cancelled, "the task was cancelled")) }
        handshakeWaiter = promise
        handshakeTimer = loop.scheduleTimer(after: options.tlsHandshakeTimeout) { [weak self] in
            self?.fail(ConnectionError(.tlsHandshakeTimeout, "the TLS handshake did not finish in time"))
        }
        if let deadline { armDeadline(after: deadline - Instant.now()) }
        touch()
        armIdle()
        driveHandshake()
    }

    private func driveHandshake() {
        guard let tls, handshakeWaiter != nil else { return }
        do {
            while true {
                // Read in place from the receive buffer: what follows the handshake stays there.
                switch try tls.handshake(from: &cipherBuffer) {
                case .needsWrite:
                    output.append(.buffer(tls.pendingCiphertext()))
                case .needsMoreData:
                    if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
                    flush()
                    updateInterest()
                    return
                case .complete:
                    if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
                    if let handshakeTimer { _ = loop.cancelTimer(handshakeTimer) }
                    handshakeTimer = nil
                    cancelDeadline()
                    let waiter = handshakeWaiter
                    handshakeWaiter = nil
                    flush()
                    if failure == nil {
                        reusable.store(true, ordering: .releasing)
                        waiter?.succeed(())
                    }
                    updateInterest()
                    return
                }
            }
        } catch {
            fail(.from(tls: error))
        }
    }

    /// Marks a plain connection ready (no handshake).
    func markReady() {
        reusable.store(failure == nil, ordering: .releasing)
    }

    // MARK: Requests

    /// Sends a request head; the promise completes when it is in the kernel.
    func sendHead(_ head: EncodedHead, info: HTTP1ClientConnection.RequestInfo, promise: LoopPromise<Void>) {
        if let failure { promise.fail(failure); return }
        // One non-blocking read before reusing an idle connection: a server that closed it
        // (keep-alive timeout) is found here, not as an "empty reply" after the request was sent.
        if !exchangeActive && socket != nil && !peerEOF && tls?.isHandshakeComplete != false { readSocket() }
        if let failure { promise.fail(failure); return }
        if socket == nil || peerEOF {
            promise.fail(ConnectionError(.notReusable, "the server closed the connection"))
            return
        }
        guard socket != nil, !exchangeActive, writeWaiter == nil, readWaiter == nil, machine.isReusable else {
            promise.fail(ConnectionError(.notReusable, "the connection cannot send a request now"))
            return
        }
        do {
            try machine.requestHeadSent(info)
        } catch {
            fail(.from(parser: error))
            promise.fail(failure!)
            return
        }
        reusable.store(false, ordering: .releasing)
        exchangeActive = true
        exchangeNumber += 1
        headReceived = false
        responseEnded = false
        responseFraming = nil
        requestFraming = head.framing
        requestBodyOpen = info.hasBody
        bodyWritten = 0
        chunkedEncoder = ChunkedEncoder()
        if let total = options.totalTimeout { armDeadline(after: total) }
        guard enqueue(head.bytes) else { promise.fail(failure!); return }
        startWrite(promise)
    }

    /// Queues one piece of the request body.
    func writeBody(_ buffer: ByteBuffer, promise: LoopPromise<Void>) {
        if let failure { promise.fail(failure); return }
        guard requestBodyOpen, writeWaiter == nil else {
            promise.fail(ConnectionError(requestBodyOpen ? .notReusable : .invalidRequest,
                                         requestBodyOpen ? "a write is already in progress" : "no request body is open"))
            return
        }
        let count = UInt64(buffer.readableBytes)
        var list = GatherList()
        switch requestFraming {
        case .contentLength(let length):
            guard bodyWritten + count <= length else {
                promise.fail(ConnectionError(.invalidRequest, "the body is longer than its Content-Length \(length)"))
                return
            }
            if count > 0 { list.append(.buffer(buffer)) }
        case .chunked:
            chunkedEncoder.encodeChunk(buffer, into: &list)
        case .noBody, .untilClose:
            promise.fail(ConnectionError(.invalidRequest, "the request has no body"))
            return
        }
        bodyWritten += count
        guard enqueue(list) else { promise.fail(failure!); return }
        startWrite(promise)
    }

    /// Queues a range of a file as the next piece of a Content-Length body, sent with sendfile(2):
    /// the bytes go from the page cache to the socket without entering this process (design §3).
    /// Plain connections only; TLS must encrypt, so its callers read the file instead.
    func writeFile(_ file: File, offset: Int64, count: Int, promise: LoopPromise<Void>) {
        if let failure { promise.fail(failure); return }
        guard tls == nil, requestBodyOpen, writeWaiter == nil, case .contentLength(let length) = requestFraming else {
            promise.fail(ConnectionError(.invalidRequest, "sendfile needs an open Content-Length body on a plain connection"))
            return
        }
        guard bodyWritten + UInt64(count) <= length else {
            promise.fail(ConnectionError(.invalidRequest, "the body is longer than its Content-Length \(length)"))
            return
        }
        bodyWritten += UInt64(count)
        if count > 0 { pendingFile = (file, offset, count) }
        startWrite(promise)
    }

    /// Ends the request body (the last chunk for chunked bodies).
    func finishBody(trailers: HTTPHeaders, promise: LoopPromise<Void>) {
        if let failure { promise.fail(failure); return }
        guard requestBodyOpen, writeWaiter == nil else {
            promise.fail(ConnectionError(.invalidRequest, "no request body is open"))
            return
        }
        var list = GatherList()
        switch requestFraming {
        case .contentLength(let length):
            guard bodyWritten == length else {
                promise.fail(ConnectionError(.invalidRequest, "the body has \(bodyWritten) of its \(length) bytes"))
                return
            }
        case .chunked:
            do {
                try chunkedEncoder.end(trailers: trailers, into: &list)
            } catch {
                var failure = ConnectionError(.invalidRequest, "invalid trailer fields")
                failure.encodingError = error
                promise.fail(failure)
                return
            }
        case .noBody, .untilClose:
            break
        }
        requestBodyOpen = false
        do {
            try machine.requestBodyDone()
        } catch {
            fail(.from(parser: error))
            promise.fail(failure!)
            return
        }
        if responseEnded && headReceived {
            // The server answered before the body was sent (early response): the connection
            // cannot carry another request (the state machine says mustClose).
            exchangeDone(keepAlive: false)
            promise.succeed(())
            return
        }
        guard enqueue(list) else { promise.fail(failure!); return }
        startWrite(promise)
    }

    /// Queues plaintext for the wire, encrypting it first on TLS connections.
    /// - Returns: false when TLS failed (the connection is failed).
    private func enqueue(_ list: GatherList) -> Bool {
        guard !list.isEmpty else { return true }
        guard let tls else {
            output.append(contentsOf: list)
            return true
        }
        do {
            try tls.writePlaintext(list)
        } catch {
            fail(.from(tls: error))
            return false
        }
        if tls.hasPendingCiphertext { output.append(.buffer(tls.pendingCiphertext())) }
        return true
    }

    private func startWrite(_ promise: LoopPromise<Void>) {
        promise.onCancel { [unowned self] in fail(ConnectionError(.cancelled, "the task was cancelled")) }
        writeWaiter = promise
        touch()
        flush()
        if writeWaiter != nil { armIdle() }
    }

    // MARK: Responses

    /// Waits for the final response head (interim responses are skipped).
    func receiveHead(_ promise: LoopPromise<ReadOutcome>) {
        if let failure { promise.fail(failure); return }
        guard exchangeActive, !headReceived, readWaiter == nil else {
            promise.fail(ConnectionError(.notReusable, "no response is expected now"))
            return
        }
        startRead(promise, mode: .head)
    }

    /// Waits for the next body part, or the end.
    func receiveBodyPart(exchange: Int, _ promise: LoopPromise<ReadOutcome>) {
        if let failure { promise.fail(failure); return }
        if responseEnded || exchange != exchangeNumber { promise.succeed(.end); return }
        guard headReceived, readWaiter == nil else {
            promise.fail(ConnectionError(.notReusable, "another read is in progress"))
            return
        }
        startRead(promise, mode: .body)
    }

    private func startRead(_ promise: LoopPromise<ReadOutcome>, mode: ReadMode) {
        promise.onCancel { [unowned self] in fail(ConnectionError(.cancelled, "the task was cancelled")) }
        readWaiter = (promise, mode)
        touch()
        pump()
        if readWaiter != nil { armIdle() }
    }

    /// Satisfies the pending read from what the state machine has decoded.
    private func pump() {
        guard let waiter = readWaiter else { return }
        let promise = waiter.promise
        let mode = waiter.mode
        do {
            while true {
                switch try machine.nextEvent() {
                case .needMoreData:
                    if peerEOF {
                        fail(ConnectionError(.remoteClosed, "the server closed the connection"))
                        return
                    }
                    updateInterest()
                    return
                case .interimResponse:
                    continue  // 100 Continue, 103 Early Hints: skipped
                case .responseHead(let head, let framing):
                    precondition(mode == .head, "a response head while reading a body")
                    headReceived = true
                    responseFraming = framing
                    readWaiter = nil
                    let (prefetched, ended, deferred) = prefetchBody()
                    promise.succeed(.head(HTTP1ResponseHead(status: head.status, version: head.version,
                                                            reason: head.reasonPhrase.readableString,
                                                            headers: head.headers.headers),
                                          exchange: exchangeNumber, prefetched: prefetched, ended: ended))
                    if let deferred {
                        // Reported to the body's next read, after the slices decoded before it.
                        fail(deferred)
                        return
                    }
                case .bodyPart(let slice):
                    readWaiter = nil
                    promise.succeed(.bodyPart(slice))
                case .endOfMessage(_, let keepAlive):
                    responseEnded = true
                    readWaiter = nil
                    if !requestBodyOpen { exchangeDone(keepAlive: keepAlive) }
                    promise.succeed(.end)
                case .switchedProtocols:
                    fail(ConnectionError(.protocolError, "the server switched protocols"))
                    return
                case .connectionClosed:
                    fail(ConnectionError(.remoteClosed, "the server closed the connection"))
                    return
                }
                updateInterest()
                return
            }
        } catch {
            fail(.from(parser: error))
        }
    }

    /// Takes the body slices the machine can decode from bytes already read (no I/O), up to 256
    /// KiB: a small response is complete with its head. Returns the slices, whether the body
    /// ended, and a failure met after them (delivered once the slices are consumed).
    private func prefetchBody() -> ([ByteBuffer], Bool, ConnectionError?) {
        var slices: [ByteBuffer] = []
        var size = 0
        do {
            while size < 256 * 1024 {
                switch try machine.nextEvent() {
                case .bodyPart(let slice):
                    size += slice.readableBytes
                    slices.append(slice)
                case .endOfMessage(_, let keepAlive):
                    responseEnded = true
                    if !requestBodyOpen { exchangeDone(keepAlive: keepAlive) }
                    return (slices, true, nil)
                case .needMoreData:
                    return (slices, false, nil)
                case .connectionClosed:
                    return (slices, false, ConnectionError(.remoteClosed, "the server closed the connection"))
                case .switchedProtocols:
                    return (slices, false, ConnectionError(.protocolError, "the server switched protocols"))
                case .interimResponse, .responseHead:
                    return (slices, false, ConnectionError(.protocolError, "a second response head inside a response"))
                }
            }
        } catch {
            return (slices, false, .from(parser: error))
        }
        return (slices, false, nil)
    }

    private func exchangeDone(keepAlive: Bool) {
        exchangeActive = false
        cancelDeadline()
        if keepAlive && machine.isReusable && !peerEOF {
            reusable.store(true, ordering: .releasing)
        } else {
            reusable.store(false, ordering: .releasing)
            closeTransport(graceful: true)
        }
    }

    // MARK: I/O

    private func handle(_ events: EventLoop.Events) {
        if failure != nil || socket == nil { return }
        if events.contains(.writable) { flush() }
        if failure != nil || socket == nil { return }
        if !events.intersection([.readable, .hangUp, .error, .readHangUp]).isEmpty { readSocket() }
    }

    private func readSocket() {
        guard let socket, !peerEOF else { return }
        var eof = false
        do {
            if let tls {
                // The engine reads the ciphertext where the socket put it (no copy) and leaves
                // nothing behind but a record's unread tail; the buffer is compacted before each
                // read so its storage is reused.
                if cipherBuffer.readableBytes == 0 { cipherBuffer.clear() } else { cipherBuffer.discardReadBytes() }
                switch try socket.read(into: &cipherBuffer, maxBytes: options.readSize) {
                case .wouldBlock: return
                case .processed(0): tls.receivedEOF(); eof = true
                case .processed: break
                }
                touch()
                if handshakeWaiter != nil {
                    driveHandshake()
                    return
                }
                var plain = ByteBuffer()
                do {
                    readLoop: while true {
                        switch try tls.readPlaintext(from: &cipherBuffer, into: &plain) {
                        case .bytes: continue
                        case .needsMoreData: break readLoop
                        case .closed: eof = true; break readLoop
                        }
                    }
                } catch {
                    // RFC 8446 §6.1 / design §9: a close without close_notify truncates a body
                    // delimited by the close (curl 56); elsewhere the framing decides.
                    if error.code != .closedWithoutCloseNotify || (responseFraming == .untilClose && !responseEnded) {
                        fail(.from(tls: error))
                        return
                    }
                    eof = true
                }
                if plain.readableBytes > 0 { try machine.receivedBytes(plain) }
                if tls.hasPendingCiphertext {
                    output.append(.buffer(tls.pendingCiphertext()))
                    flush()
                }
            } else {
                var plain = ByteBuffer()
                switch try socket.read(into: &plain, maxBytes: options.readSize) {
                case .wouldBlock: return
                case .processed(0): eof = true
                case .processed: try machine.receivedBytes(plain)
                }
                touch()
            }
            if eof {
                peerEOF = true
                try machine.connectionClosed()
                // Level-triggered hang-ups would repeat: nothing more will be read.
                if let registration { loop.deregister(registration) }
                registration = nil
                reusable.store(false, ordering: .releasing)
            }
        } catch let error as HTTPParserError {
            fail(.from(parser: error))
            return
        } catch let error as Errno {
            fail(.from(io: error, writing: false))
            return
        } catch {
            fail(.from(error))
            return
        }
        if readWaiter != nil {
            pump()
        } else if eof && !exchangeActive {
            closeTransport(graceful: false)
        }
    }

    private func flush() {
        guard let socket else { return }
        while !output.isEmpty {
            do {
                switch try socket.write(gathering: &output) {
                case .processed: touch()
                case .wouldBlock:
                    updateInterest()
                    return
                }
            } catch {
                fail(.from(io: error, writing: true))
                return
            }
        }
        while let pending = pendingFile {
            do {
                switch try socket.sendFile(pending.file, offset: pending.offset, count: pending.remaining) {
                case .processed(let n):
                    guard n > 0 else {
                        // The file ended before the range: it shrank while being sent.
                        pendingFile = nil
                        fail(ConnectionError(.invalidRequest, "the upload file ended \(pending.remaining) bytes early"))
                        return
                    }
                    touch()
                    pendingFile = n == pending.remaining ? nil : (pending.file, pending.offset + Int64(n), pending.remaining - n)
                case .wouldBlock:
                    updateInterest()
                    return
                }
            } catch {
                pendingFile = nil
                fail(.from(io: error, writing: true))
                return
            }
        }
        if let waiter = writeWaiter {
            writeWaiter = nil
            waiter.succeed(())
        }
        updateInterest()
    }

    private func updateInterest() {
        guard let registration else { return }
        var wanted: EventLoop.Interest = []
        if readWaiter != nil || handshakeWaiter != nil { wanted.insert(.readable) }
        if !output.isEmpty || pendingFile != nil { wanted.insert(.writable) }
        guard wanted != interest else { return }
        do {
            try loop.setInterest(wanted, for: registration)
            interest = wanted
        } catch {
            fail(.from(io: error, writing: false))
        }
    }

    // MARK: Timers

    private func touch() { lastActivity = Instant.now() }

    private var waitingOnPeer: Bool { readWaiter != nil || writeWaiter != nil || handshakeWaiter != nil }

    private func armIdle() {
        guard idleTimer == nil, failure == nil else { return }
        idleTimer = loop.scheduleTimer(at: lastActivity + options.idleTimeout) { [weak self] in self?.idleTimerFired() }
    }

    private func idleTimerFired() {
        idleTimer = nil
        guard failure == nil, waitingOnPeer else { return }
        if Instant.now() >= lastActivity + options.idleTimeout {
            fail(ConnectionError(.idleTimeout, "no data moved for \(options.idleTimeout)"))
        } else {
            armIdle()
        }
    }

    private func armDeadline(after duration: Duration) {
        cancelDeadline()
        deadlineTimer = loop.scheduleTimer(after: duration) { [weak self] in
            self?.deadlineTimer = nil
            self?.fail(ConnectionError(.totalTimeout, "the exchange did not finish within \(duration)"))
        }
    }

    private func cancelDeadline() {
        if let deadlineTimer { _ = loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
    }

    // MARK: Closing

    /// Fails the connection for good: closes it and fails every waiter with `error`.
    func fail(_ error: ConnectionError) {
        guard failure == nil else { return }
        failure = error
        reusable.store(false, ordering: .releasing)
        closeTransport(graceful: false)
        for timer in [idleTimer, deadlineTimer, handshakeTimer] { if let timer { _ = loop.cancelTimer(timer) } }
        idleTimer = nil
        deadlineTimer = nil
        handshakeTimer = nil
        let waiters: [LoopPromise<Void>] = [handshakeWaiter, writeWaiter].compactMap { $0 }
        handshakeWaiter = nil
        writeWaiter = nil
        let reader = readWaiter?.promise
        readWaiter = nil
        for waiter in waiters { waiter.fail(error) }
        reader?.fail(error)
    }

    /// Closes on the caller's request. Idempotent.
    func close() {
        if failure == nil {
            closeTransport(graceful: true)
            fail(ConnectionError(.cancelled, "the connection was closed"))
        }
    }

    private func closeTransport(graceful: Bool) {
        guard let socket else { return }
        if graceful, let tls, tls.isHandshakeComplete, !peerEOF {
            // RFC 8446 §6.1: send close_notify; waiting for the reply is not required.
            if (try? tls.shutdown()) != nil, tls.hasPendingCiphertext {
                var list = GatherList([.buffer(tls.pendingCiphertext())])
                _ = try? socket.write(gathering: &list)
            }
        }
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
        output = GatherList()
        pendingFile = nil
        try? socket.close()
        self.socket = nil
    }
}
