// LoopConnection: the loop-side half of an HTTP1Connection — the socket, the TLS engine, the
// HTTP/1.1 client state machine, the output queue, the decoded-but-untaken response, the timers,
// and the callers waiting for a write, a head or body bytes.
//
// Threading invariant: after `attach()` every member is touched only on the event-loop thread
// (from loop handlers, timers, and work the loop runs — including Swift jobs of tasks whose
// executor preference is the loop, which is how a transfer on the loop calls in directly);
// `HTTP1Connection` calls in synchronously when it already runs on the loop and hops there with
// `EventLoop.execute` otherwise. That is what the `@unchecked Sendable` conformance rests on.
// `reusable` is the one exception: an Atomic mirror readable from any thread.
//
// Reading ahead (issue: transport at wire speed): while an exchange's response is not complete,
// the loop keeps reading as long as the decoded body bytes nobody has taken yet stay below the
// high-water mark (`HTTP1ConnectionOptions.readAheadLimit`, 256 KiB by default); above it, read
// interest goes off, the kernel's receive buffer fills and TCP's window stops the server — back-
// pressure as before, one window later. A limit of 0 restores strict pull: bytes are read only
// while a caller waits for them. Everything decoded is handed over in one pull (`BodyBatch`), and
// runs of small chunks are copied into one slice, so a body of a million one-byte chunks costs its
// framing, not a million hand-overs.
//
// Receive buffers come from the loop's `ReceiveBufferPool`: a read fills a pooled buffer in place
// (the unconsumed tail of the previous read — a chunk-size line cut in two — is moved to its front
// first), and the buffer is free again once the consumer released every slice of it. Over TLS the
// ciphertext is read into a pooled buffer too and the engine decrypts straight out of it (lent for
// the call, no copy) into the pooled plaintext buffer the body is handed out from; the engine
// leaves nothing behind but, rarely, records that followed the handshake or a close_notify, kept
// in `cipherLeftover` for the next read. The read size adapts: it doubles (up to `readSize`) when
// a read fills the buffer and halves after reads that use less than a quarter of it, so heads and
// small responses use small buffers and bulk bodies large ones.
//
// Idle connections stay registered for reading: a close, a reset or unsolicited bytes while the
// connection sits in a pool fail it at once and call `onIdleClose`, so the pool drops it before
// anyone leases it; reuse needs no probe read.
//
// Failure: every error goes through `fail(_:)`, which is sticky: it closes the socket, cancels the
// timers and fails the waiters; every later operation rethrows the same error (design §6). A
// response head and body bytes decoded before the failure are still handed over first (a body cut
// short reports its error after the bytes that did arrive).
//
// The class is split by concern across files: this one holds the state, set-up, the response
// side, reading, timers and closing; LoopConnection+Sending.swift the request side (heads, bodies,
// files, early responses); LoopConnection+Splice.swift lending a body's socket for splice(2);
// ConnectionTypes.swift the values handed between the core and its callers. Members are internal
// (not private) for those extensions; only the Connection folder uses the core.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

final class LoopConnection: @unchecked Sendable {
    let loop: EventLoop
    let options: HTTP1ConnectionOptions
    /// Mirrors "another request may be sent now" for any thread.
    let reusable = Atomic<Bool>(false)
    /// Called on the loop when an idle connection (no exchange in progress) closes or fails on its
    /// own: the peer closed it, reset it, or sent bytes nobody asked for.
    var onIdleClose: (@Sendable () -> Void)?

    var socket: Socket?
    var registration: EventLoop.Registration?
    var interest: EventLoop.Interest = []
    var tls: TLSConnection?
    var machine: HTTP1ClientStateMachine
    /// Ciphertext read but not consumed by the engine (records after the handshake's last message
    /// or after close_notify); empty almost always, so an idle connection holds no buffer.
    var cipherLeftover = ByteBuffer()
    var output = GatherList()
    var failure: ConnectionError?
    var peerEOF = false
    /// The next read's size (adaptive, between the pool's smallest class and `options.readSize`).
    var readSize: Int

    var handshakeWaiter: LoopPromise<Void>?
    var writeWaiter: UnsafeContinuation<Void, any Error>?
    var headWaiter: UnsafeContinuation<ResponseStart, any Error>?
    var bodyWaiter: UnsafeContinuation<BodyBatch, any Error>?
    /// A file range being sent with sendfile(2) after `output` drains (plain connections only).
    var pendingFile: (file: File, offset: Int64, remaining: Int)?

    // The rate rules (LoopConnection+Rate.swift): caps per direction, curl's low-speed check.
    var receiveBucket: TokenBucket?
    var sendBucket: TokenBucket?
    var receivePaused = false
    var sendPaused = false
    var receiveResumeTimer: EventLoop.Timer?
    var sendResumeTimer: EventLoop.Timer?
    var speedMeter: SpeedMeter?
    var speedTimer: EventLoop.Timer?
    /// Bytes read from and written to the socket so far (the low-speed check's samples).
    var totalReceived = 0
    var totalSent = 0

    var lastActivity = Instant.now()
    var idleTimer: EventLoop.Timer?
    var deadlineTimer: EventLoop.Timer?
    var handshakeTimer: EventLoop.Timer?

    // The exchange in progress. The protocol's state (framing, Content-Length accounting, the
    // keep-alive decision) is the machine's; what is kept here is the caller's side of it.
    var exchangeActive = false
    /// Counts exchanges, so a body iterator of an earlier response cannot read a later one.
    var exchangeNumber = 0
    /// The caller declared a body and has not called `finishBody` yet (the API's contract; the
    /// machine may consider the request complete before that).
    var bodyAwaitingFinish = false
    /// The upload was stopped by an early response (`stopSending`): nothing more is sent, and the
    /// connection closes after the response.
    var uploadStopped = false
    /// The connection failed while no exchange was in progress (closed or poisoned in the pool):
    /// a request on it was never sent, which the pool's retry rule must know.
    var failedWhileIdle = false
    /// The socket is lent out for splicing: the loop neither watches nor closes it meanwhile.
    var socketLent = false
    /// The exchange in progress is a CONNECT to a proxy: its 2xx reply opens a tunnel.
    var tunnelRequested = false
    /// The proxy's 2xx reply to CONNECT arrived: nothing more is read as HTTP until `openTunnel`
    /// turns the connection into the tunnel; `tunnelLeftover` holds the bytes after its head.
    var tunnelPending = false
    var tunnelLeftover = ByteBuffer()

    // Expect: 100-continue (RFC 9110 §10.1.1). The head asked for it and a body follows: the body
    // is held back until the interim 100 arrives, a final response arrives (the body is then
    // never sent: `stopSending`), or `continueTimer` fires (the body is sent anyway — a server
    // that ignores Expect costs the timeout, never a hang). Body writes made meanwhile wait in
    // `continueWaiter` and run when the wait ends.
    var awaitingContinue = false
    var continueTimer: EventLoop.Timer?
    var continueWaiter: ContinueWaiter?
    /// How the current exchange's wait ended (nil: the request did not ask).
    var continueOutcome: ExpectContinueOutcome?

    // The exchange in progress (response side).
    /// The final head, decoded and not yet taken by `receiveHead`.
    var decodedHead: HTTPResponseHead?
    var headTaken = false
    var responseFraming: BodyFraming?
    /// Decoded body slices nobody has taken yet, and their size.
    var pending: [ByteBuffer] = []
    var pendingBytes = 0
    /// Whether the last pending slice is a buffer of our own that small slices are copied into.
    var lastIsCoalesced = false
    /// The end of the body was decoded (`endKeepAlive` is the machine's verdict); `endDelivered`:
    /// the consumer has been handed it.
    var bodyEnded = false
    var endKeepAlive = false
    var endDelivered = false

    init(loop: EventLoop, socket: Socket, tls: TLSConnection?, options: HTTP1ConnectionOptions) {
        LiveObjects.created(.loopConnection)
        self.loop = loop
        self.socket = socket
        self.tls = tls
        self.options = options
        self.machine = HTTP1ClientStateMachine(limits: options.limits)
        machine.ignoresContentLength = options.ignoresContentLength
        machine.passesChunkedFramingThrough = options.passesChunkedFramingThrough
        self.readSize = min(options.readSize, 16 << 10)
        let now = Instant.now()
        receiveBucket = options.maximumReceiveRate.map { TokenBucket(rate: $0, now: now) }
        sendBucket = options.maximumSendRate.map { TokenBucket(rate: $0, now: now) }
    }

    deinit { LiveObjects.destroyed(.loopConnection) }

    /// Decoded body bytes nobody has taken yet (for tests of the read-ahead limit). Loop only.
    var bufferedBodyBytes: Int { pendingBytes }

    /// Whether the caller runs on this connection's loop (and may call in directly).
    var isOnLoop: Bool { loop.inEventLoop }

    // MARK: Set-up

    /// Registers the socket with the loop. Runs on the loop.
    func attach() throws {
        guard let socket else { return }
        registration = try loop.register(socket, interest: []) { [unowned self] events in handle(events) }
    }

    /// Runs the TLS handshake; the promise completes when it is done (or failed). `deadline` is the
    /// nearer of the exchange's total deadline and the connection phase's (curl `--connect-timeout`),
    /// with the code that names whichever it is.
    func handshake(_ promise: LoopPromise<Void>, deadline: (at: Instant, code: ConnectionError.Code)?) {
        if let failure { promise.fail(failure); return }
        promise.onCancel { [unowned self] in fail(ConnectionError(.cancelled, "the task was cancelled")) }
        handshakeWaiter = promise
        handshakeTimer = loop.scheduleTimer(after: options.tlsHandshakeTimeout) { [weak self] in
            self?.fail(ConnectionError(.tlsHandshakeTimeout, "the TLS handshake did not finish in time"))
        }
        if let deadline { armDeadline(after: deadline.at - Instant.now(), code: deadline.code) }
        touch()
        armIdle()
        // Bytes a proxy sent after its reply to CONNECT are the tunnel's first bytes.
        var first = cipherLeftover
        cipherLeftover = ByteBuffer()
        driveHandshake(&first)
        if first.readableBytes > 0 && failure == nil { cipherLeftover = first }
    }

    /// Turns a connection whose CONNECT was answered with a 2xx into the tunnel: the HTTP/1.1
    /// state starts afresh, the bytes after the proxy's reply head become the tunnel's first bytes
    /// (ciphertext for `tls`), and with `tls` the handshake comes next (`handshake`).
    func openTunnel(tls engine: TLSConnection?) throws(ConnectionError) {
        if let failure { throw failure }
        guard tunnelPending else { throw ConnectionError(.notReusable, "no CONNECT reply opened a tunnel") }
        tunnelPending = false
        tunnelRequested = false
        exchangeActive = false
        headTaken = false
        decodedHead = nil
        responseFraming = nil
        pending.removeAll()
        pendingBytes = 0
        bodyEnded = false
        endDelivered = false
        machine = HTTP1ClientStateMachine(limits: options.limits)
        let leftover = tunnelLeftover
        tunnelLeftover = ByteBuffer()
        if let engine {
            tls = engine
            cipherLeftover = leftover
        } else if leftover.readableBytes > 0 {
            // In a plain tunnel the origin speaks only after a request: bytes before it are not
            // HTTP (RFC 9112 §9.3).
            fail(ConnectionError(.protocolError, "the proxy sent \(leftover.readableBytes) bytes after its CONNECT reply, before any request"))
            throw failure!
        } else {
            reusable.store(true, ordering: .releasing)
        }
        updateInterest()
    }

    /// Advances the handshake with `received` (read in place by the engine).
    func driveHandshake(_ received: inout ByteBuffer) {
        guard let tls, handshakeWaiter != nil else { return }
        do {
            while true {
                switch try tls.handshake(from: &received) {
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

    /// Marks a plain connection ready (no handshake): from now on it watches for a close.
    func markReady() {
        reusable.store(failure == nil, ordering: .releasing)
        updateInterest()
    }

    // MARK: Responses

    /// Whether `receiveHead` hands over the body decoded with the head (a caller off the loop
    /// saves a hop by getting it at once) or leaves it for the first pull (a caller on the loop
    /// pulls it at no cost, and the response needs no box to hold it).
    var handsBodyWithHead = true

    /// The final response head (interim responses are skipped), with the body decoded with it
    /// unless `bodyWithHead` is false.
    func receiveHead(bodyWithHead: Bool) -> Readiness<ResponseStart> {
        handsBodyWithHead = bodyWithHead
        return receiveHead()
    }

    /// The final response head (interim responses are skipped).
    func receiveHead() -> Readiness<ResponseStart> {
        guard exchangeActive || decodedHead != nil, !headTaken, headWaiter == nil else {
            if let failure { return .failed(failure) }
            return .failed(ConnectionError(.notReusable, "no response is expected now"))
        }
        if let head = decodedHead {
            headTaken = true
            decodedHead = nil
            let body = handsBodyWithHead ? takePending() : BodyBatch(first: nil, ended: false)
            return .ready(ResponseStart(head: head, exchange: exchangeNumber, body: body, continueOutcome: continueOutcome))
        }
        if let failure { return .failed(failure) }
        return .wait
    }

    /// Waits for the final response head.
    func waitForHead(_ continuation: UnsafeContinuation<ResponseStart, any Error>) {
        switch receiveHead() {
        case .ready(let start): continuation.resume(returning: start)
        case .failed(let error): continuation.resume(throwing: error)
        case .wait:
            headWaiter = continuation
            touch()
            armIdle()
            updateInterest()
        }
    }

    /// Everything decoded of the body of `exchange` since the last pull, or the end.
    func receiveBody(exchange: Int) -> Readiness<BodyBatch> {
        guard exchange == exchangeNumber, headTaken, !endDelivered else { return .ready(.end) }
        if !pending.isEmpty || bodyEnded { return .ready(takePending()) }
        if let failure { return .failed(failure) }
        guard bodyWaiter == nil else {
            return .failed(ConnectionError(.notReusable, "another read is in progress"))
        }
        return .wait
    }

    /// Waits for body bytes (or the end) of `exchange`.
    func waitForBody(exchange: Int, _ continuation: UnsafeContinuation<BodyBatch, any Error>) {
        switch receiveBody(exchange: exchange) {
        case .ready(let batch): continuation.resume(returning: batch)
        case .failed(let error): continuation.resume(throwing: error)
        case .wait:
            bodyWaiter = continuation
            touch()
            armIdle()
            updateInterest()
        }
    }

    /// Hands over the pending slices (and the end, when it was decoded).
    func takePending() -> BodyBatch {
        var batch = BodyBatch(first: nil, ended: bodyEnded)
        if !pending.isEmpty {
            batch.first = pending[0]
            if pending.count > 1 { batch.rest = Array(pending[1...]) }
            pending.removeAll(keepingCapacity: true)
        }
        pendingBytes = 0
        lastIsCoalesced = false
        if bodyEnded && !endDelivered {
            endDelivered = true
            completeExchangeIfDone()
        }
        // Below the high-water mark again: reading resumes.
        updateInterest()
        return batch
    }

    // MARK: Receiving

    /// After the end of the response was handed over and the request body is done: the exchange
    /// is over, and the connection is reusable or closed.
    func completeExchangeIfDone() {
        guard exchangeActive, endDelivered, !bodyAwaitingFinish else { return }
        exchangeActive = false
        cancelDeadline()
        stopSpeedCheck()
        if endKeepAlive && machine.isReusable && !peerEOF && failure == nil && !uploadStopped {
            reusable.store(true, ordering: .releasing)
            updateInterest()
        } else {
            reusable.store(false, ordering: .releasing)
            closeTransport(graceful: true)
        }
    }

    /// Whether the loop should read now.
    var wantsToRead: Bool {
        guard socket != nil, !peerEOF, failure == nil, !receivePaused, !tunnelPending else { return false }
        if handshakeWaiter != nil { return true }
        if tls?.isHandshakeComplete == false { return false }
        guard exchangeActive else { return true }  // idle: watch for a close or stray bytes
        if headWaiter != nil || bodyWaiter != nil || awaitingContinue { return true }
        if bodyEnded { return true }  // watch for bytes after the response
        let limit = options.readAheadLimit
        return limit > 0 && pendingBytes < limit
    }

    func handle(_ events: EventLoop.Events) {
        if failure != nil || socket == nil { return }
        if events.contains(.writable) { flush() }
        if failure != nil || socket == nil { return }
        if !events.intersection([.readable, .hangUp, .error, .readHangUp]).isEmpty { readAvailable() }
    }

    /// Reads while there is something to read and room for it (a bounded number of reads per
    /// turn, so one busy connection does not starve the others), decoding as it goes.
    func readAvailable() {
        var reads = 0
        while wantsToRead && reads < 8 {
            reads += 1
            guard readOnce() else { break }
            if failure != nil { break }
        }
        deliver()
        updateInterest()
    }

    /// One read from the socket (through TLS when there is one) into a pooled buffer, handed to
    /// the state machine and decoded. Returns whether another read may find more (the read was
    /// filled, and nothing failed or ended).
    func readOnce() -> Bool {
        guard let socket, !peerEOF else { return false }
        // An idle connection that fails tells its pool at once (no one is waiting to hear it).
        let wasIdle = !exchangeActive && failure == nil && handshakeWaiter == nil
        defer {
            if wasIdle && failure != nil {
                failedWhileIdle = true
                onIdleClose?()
            }
        }
        var eof = false
        var gotBytes = false
        // A read that returned less than it asked for drained the socket: reading again now would
        // only return EAGAIN (level-triggered epoll reports the next bytes).
        var filledTheRead = false
        do throws(any Error) {
            if let tls {
                let size = receiveAllowance(readSize)
                guard size > 0 else { return false }
                var requested = size
                let leftover = cipherLeftover
                cipherLeftover = ByteBuffer()
                let (filled, result) = try loop.receiveBuffers.fill(size: size + leftover.readableBytes) { (buffer: inout ByteBuffer) throws(Errno) -> IOResult<Int> in
                    if leftover.readableBytes > 0 { buffer.writeBuffer(leftover) }
                    requested = max(1, min(size, buffer.writableBytes))
                    return try socket.read(into: &buffer, maxBytes: requested)
                }
                // Lent to the engine, which only moves its reader index: the pooled storage is
                // never written, and is free again when this copy goes at the end of the read.
                var cipher = filled
                switch result {
                case .wouldBlock: if cipher.readableBytes == 0 { return false }
                case .processed(0): tls.receivedEOF(); eof = true
                case .processed(let n):
                    filledTheRead = n >= requested
                    adapt(readSize: n)
                    received(n)
                }
                touch()
                if handshakeWaiter != nil {
                    driveHandshake(&cipher)
                    if cipher.readableBytes > 0 { cipherLeftover = cipher }
                    return failure == nil
                }
                var closedByPeer = false
                var tlsError: TLSError?
                var carried = 0
                let (plain, _) = try loop.receiveBuffers.fill(size: readSize * 2) { (buffer: inout ByteBuffer) throws(Errno) -> Void in
                    machine.moveUnconsumedBytes(into: &buffer)
                    carried = buffer.readableBytes
                    do throws(TLSError) {
                        readLoop: while true {
                            switch try tls.readPlaintext(from: &cipher, into: &buffer) {
                            case .bytes: continue
                            case .needsMoreData: break readLoop
                            case .closed: closedByPeer = true; break readLoop
                            }
                        }
                    } catch {
                        tlsError = error
                    }
                    // `cipher` is used up: after needsMoreData the engine took everything (a cut
                    // record into its own buffer); what may follow a close_notify or an error is
                    // never read.
                }
                if options.wireTap != nil { tapReceived(plain, fresh: plain.readableBytes - carried) }
                if let tlsError {
                    // RFC 8446 §6.1 / design §9: a close without close_notify truncates a body
                    // delimited by the close (curl 56); elsewhere the framing decides.
                    if tlsError.code != .closedWithoutCloseNotify || (responseFraming == .untilClose && exchangeActive && !bodyEnded) {
                        if plain.readableBytes > 0 { try? machine.receivedBytes(plain); decode() }
                        fail(.from(tls: tlsError))
                        return false
                    }
                    eof = true
                }
                if closedByPeer { eof = true }
                if plain.readableBytes > 0 {
                    try machine.receivedBytes(plain)
                    gotBytes = true
                }
                if tls.hasPendingCiphertext {
                    output.append(.buffer(tls.pendingCiphertext()))
                    flush()
                }
            } else {
                let size = receiveAllowance(readSize)
                guard size > 0 else { return false }
                var requested = size
                let (plain, result) = try loop.receiveBuffers.fill(size: size) { (buffer: inout ByteBuffer) throws(Errno) -> IOResult<Int> in
                    machine.moveUnconsumedBytes(into: &buffer)
                    requested = min(size, buffer.writableBytes)
                    return try socket.read(into: &buffer, maxBytes: requested)
                }
                switch result {
                case .wouldBlock:
                    if plain.readableBytes > 0 { try machine.receivedBytes(plain) }
                    return false
                case .processed(0):
                    if plain.readableBytes > 0 { try machine.receivedBytes(plain) }
                    eof = true
                case .processed(let n):
                    if options.wireTap != nil { tapReceived(plain, fresh: n) }
                    try machine.receivedBytes(plain)
                    gotBytes = true
                    filledTheRead = n >= requested
                    adapt(readSize: n)
                    received(n)
                }
                touch()
            }
            if eof {
                peerEOF = true
                try machine.connectionClosed()
                // Level-triggered hang-ups would repeat: nothing more will be read.
                if let registration { loop.deregister(registration) }
                registration = nil
                interest = []
                reusable.store(false, ordering: .releasing)
            }
        } catch let error as HTTPParserError {
            decodeAfterFailure()
            fail(.from(parser: error))
            return false
        } catch let error as Errno {
            fail(.from(io: error, writing: false))
            return false
        } catch {
            fail(.from(error))
            return false
        }
        if exchangeActive {
            decode()
        } else if eof || gotBytes {
            // An idle connection that closed, or that received bytes nobody asked for (RFC 9112
            // §9.3: a stray byte would be taken for the next response): it must go.
            fail(eof ? ConnectionError(.remoteClosed, "the server closed the idle connection")
                     : ConnectionError(.protocolError, "the server sent bytes on an idle connection"))
            return false
        }
        return filledTheRead && !eof && failure == nil
    }

    /// Hands the wire tap the last `fresh` bytes of `buffer`: what this read added after the
    /// unconsumed tail carried over from the one before.
    func tapReceived(_ buffer: ByteBuffer, fresh: Int) {
        guard let tap = options.wireTap, fresh > 0 else { return }
        let bytes = buffer.withUnsafeReadableBytes { Array($0.suffix(fresh)) }
        tap.bytes(tapIdentity, .received, bytes)
    }

    /// This connection's identity in the wire tap's records.
    var tapIdentity: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

    /// Adapts the next read's size to how much the last read returned.
    func adapt(readSize n: Int) {
        if n >= readSize && readSize < options.readSize {
            readSize = min(readSize * 2, options.readSize)
        } else if n < readSize / 4 && readSize > ReceiveBufferPool.smallestSize {
            readSize = max(readSize / 2, ReceiveBufferPool.smallestSize)
        }
    }

    /// Decodes what the machine can from the bytes received: the head, body slices, the end.
    func decode() {
        do {
            while true {
                switch try machine.nextEvent() {
                case .needMoreData:
                    if peerEOF && exchangeActive && !bodyEnded {
                        fail(ConnectionError(.remoteClosed, "the server closed the connection"))
                    }
                    machine.releaseBufferIfConsumed()
                    return
                case .interimResponse(let head):
                    // 100 Continue releases a held body; others (102, 103) are skipped.
                    if head.status == 100 && awaitingContinue { endContinueWait(.continued) }
                    continue
                case .responseHead(let head, let framing):
                    responseFraming = framing
                    decodedHead = HTTPResponseHead(head)
                    // A final response before the 100: the server decided without the body.
                    if awaitingContinue { endContinueWait(.finalResponse) }
                case .bodyPart(let slice):
                    appendPending(slice)
                case .endOfMessage(_, let keepAlive):
                    bodyEnded = true
                    endKeepAlive = keepAlive
                    machine.releaseBufferIfConsumed()
                    return
                case .switchedProtocols(let head, let leftover):
                    if tunnelRequested {
                        // A proxy's 2xx to CONNECT (the machine never gives a body to it): the
                        // head is the exchange's answer, and what follows belongs to the tunnel.
                        decodedHead = HTTPResponseHead(head)
                        tunnelPending = true
                        tunnelLeftover = leftover
                        return
                    }
                    fail(ConnectionError(.protocolError, "the server switched protocols"))
                    return
                case .connectionClosed:
                    // After a complete response the close is the server ending the connection
                    // (Connection: close, or its keep-alive timeout): the exchange stands.
                    if !bodyEnded { fail(ConnectionError(.remoteClosed, "the server closed the connection")) }
                    return
                }
            }
        } catch {
            fail(.from(parser: error))
        }
    }

    /// Decodes what can still be decoded from the bytes already received before a failure is
    /// recorded, so the head and the body slices before the bad byte are handed over first.
    func decodeAfterFailure() {
        guard exchangeActive else { return }
        while let event = try? machine.nextEvent() {
            switch event {
            case .responseHead(let head, let framing):
                responseFraming = framing
                decodedHead = HTTPResponseHead(head)
            case .bodyPart(let slice): appendPending(slice)
            case .interimResponse: continue
            default: return
            }
        }
    }

    /// Adds a decoded body slice to the pending ones: small slices are copied into one buffer of
    /// our own (the chunks of a chunked body of tiny chunks become one slice), larger ones are kept
    /// as they are (zero copy).
    func appendPending(_ slice: ByteBuffer) {
        let count = slice.readableBytes
        guard count > 0 else { return }
        pendingBytes += count
        // No binding of the last slice is held across the append below: a second reference to its
        // storage would make the in-place write copy the whole coalescing buffer (copy on write)
        // for every tiny chunk.
        if count <= LoopConnection.coalesceBelow, let lastCount = pending.last?.readableBytes,
           lastCount <= LoopConnection.coalesceBelow || lastIsCoalesced {
            // A second small slice in a row: copy them together (a lone small slice, such as a
            // small response's whole body, stays zero copy).
            if lastIsCoalesced, pending[pending.count - 1].writableBytes >= count {
                pending[pending.count - 1].writeBuffer(slice)
                return
            }
            var own = ByteBuffer(capacity: LoopConnection.coalescedCapacity)
            if !lastIsCoalesced {
                own.writeBuffer(pending.removeLast())
            }
            own.writeBuffer(slice)
            pending.append(own)
            lastIsCoalesced = true
            return
        }
        pending.append(slice)
        lastIsCoalesced = false
    }

    /// Slices at most this large are copied together; larger ones are handed over as they are.
    static let coalesceBelow = 2048
    /// The size of the buffers small slices are copied into.
    static let coalescedCapacity = 32 << 10

    /// Wakes the callers that can proceed now.
    func deliver() {
        if !awaitingContinue, let waiter = continueWaiter {
            continueWaiter = nil
            resumeAfterContinue(waiter)
        }
        if let waiter = writeWaiter, responseEndsUpload {
            // The server answered and will not take the rest of the body: the blocked writer
            // stops, and its caller reads the response.
            writeWaiter = nil
            waiter.resume(throwing: stopSending())
        }
        // Each waiter is taken out first: the checks below refuse a second waiter.
        if let waiter = headWaiter {
            headWaiter = nil
            switch receiveHead() {
            case .ready(let start): waiter.resume(returning: start)
            case .failed(let error): waiter.resume(throwing: error)
            case .wait: headWaiter = waiter
            }
        }
        if let waiter = bodyWaiter {
            bodyWaiter = nil
            switch receiveBody(exchange: exchangeNumber) {
            case .ready(let batch): waiter.resume(returning: batch)
            case .failed(let error): waiter.resume(throwing: error)
            case .wait: bodyWaiter = waiter
            }
        }
    }

    func flush() {
        guard let socket else { return }
        while !output.isEmpty {
            let allowed = sendAllowance(output.count)
            guard allowed > 0 else { updateInterest(); return }
            do {
                switch try socket.write(gathering: &output, maxBytes: allowed) {
                case .processed(let n):
                    touch()
                    sent(n)
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
            let allowed = sendAllowance(pending.remaining)
            guard allowed > 0 else { updateInterest(); return }
            do {
                switch try socket.sendFile(pending.file, offset: pending.offset, count: allowed) {
                case .processed(let n):
                    guard n > 0 else {
                        // The file ended before the range: it shrank while being sent.
                        pendingFile = nil
                        fail(ConnectionError(.invalidRequest, "the upload file ended \(pending.remaining) bytes early"))
                        return
                    }
                    touch()
                    sent(n)
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
            waiter.resume()
        }
        updateInterest()
    }

    func updateInterest() {
        guard let registration else { return }
        var wanted: EventLoop.Interest = []
        if wantsToRead { wanted.insert(.readable) }
        if (!output.isEmpty || pendingFile != nil) && !sendPaused { wanted.insert(.writable) }
        guard wanted != interest else { return }
        do {
            try loop.setInterest(wanted, for: registration)
            interest = wanted
        } catch {
            fail(.from(io: error, writing: false))
        }
    }
}
