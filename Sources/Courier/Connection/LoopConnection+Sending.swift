// LoopConnection's request side: the head, body pieces (framed by the state machine), file ranges
// with sendfile(2), the end of the body, and an early response that stops an upload. Runs on the
// loop, as everything in LoopConnection (see its header).

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

extension LoopConnection {
    /// What a send after `stopSending()` fails with: the early response ended the upload.
    var uploadStoppedError: ConnectionError { ConnectionError(.earlyResponse, "the upload was stopped by an early response") }

    // MARK: Requests

    /// Sends a request head: `.ready` when it is in the kernel, `.wait` when part of it is queued.
    /// - Parameter expectContinue: the head carries `Expect: 100-continue`: a body that follows
    ///   waits this long at most for the interim 100 (nil: the head did not ask).
    func sendHead(_ head: EncodedHead, info: HTTP1ClientStateMachine.RequestInfo, expectContinue: Duration? = nil) -> Readiness<Void> {
        if failedWhileIdle && exchangeNumber > 0 {
            // A reused connection the server closed (or poisoned) while it idled: the request was
            // never sent, which the pool's retry rule must know. A fresh connection that failed
            // before its first request (a TLS 1.3 server refusing a missing client certificate
            // after the handshake) reports what happened.
            return .failed(ConnectionError(.notReusable, "the server closed the connection"))
        }
        if let failure { return .failed(failure) }
        if socket == nil || peerEOF {
            return .failed(ConnectionError(.notReusable, "the server closed the connection"))
        }
        guard !exchangeActive, writeWaiter == nil, headWaiter == nil, bodyWaiter == nil, machine.isReusable,
              tls?.isHandshakeComplete != false else {
            return .failed(ConnectionError(.notReusable, "the connection cannot send a request now"))
        }
        do {
            try machine.sendHead(info, framing: head.framing)
        } catch {
            fail(.from(parser: error))
            return .failed(failure!)
        }
        reusable.store(false, ordering: .releasing)
        tunnelRequested = info.method == .connect
        exchangeActive = true
        exchangeNumber += 1
        decodedHead = nil
        headTaken = false
        responseFraming = nil
        pending.removeAll(keepingCapacity: true)
        pendingBytes = 0
        lastIsCoalesced = false
        bodyEnded = false
        endKeepAlive = false
        endDelivered = false
        bodyAwaitingFinish = machine.isSendingBody
        uploadStopped = false
        continueOutcome = nil
        if let expectContinue, bodyAwaitingFinish {
            // RFC 9110 §10.1.1: the body waits for the 100, a final response or the timeout.
            awaitingContinue = true
            continueTimer = loop.scheduleTimer(after: expectContinue) { [weak self] in
                guard let self else { return }
                continueTimer = nil
                endContinueWait(.timedOut)
                deliver()
            }
        }
        if let total = options.totalTimeout { armDeadline(after: total) }
        startSpeedCheck()
        if let tap = options.wireTap { tap.bytes(tapIdentity, .sentHead, head.bytes.joined) }
        guard enqueue(head.bytes) else { return .failed(failure!) }
        let readiness = startWrite()
        // The response is read (ahead) from now on, while the request body is still being sent.
        updateInterest()
        return readiness
    }

    /// Queues one piece of the request body, framed by the machine.
    func writeBody(_ buffer: ByteBuffer) -> Readiness<Void> {
        if let failure { return .failed(earlyResponseError ?? failure) }
        if uploadStopped || responseEndsUpload { return .failed(uploadStopped ? uploadStoppedError : stopSending()) }
        if awaitingContinue { return .wait }  // held for the 100: `waitForWrite(_:retry:)`
        guard bodyAwaitingFinish, writeWaiter == nil else {
            return .failed(ConnectionError(bodyAwaitingFinish ? .notReusable : .invalidRequest,
                                           bodyAwaitingFinish ? "a write is already in progress" : "no request body is open"))
        }
        var list = GatherList()
        do {
            try machine.sendBody(buffer, into: &list)
        } catch {
            return .failed(ConnectionError.invalidBody(error))
        }
        if let tap = options.wireTap, !list.isEmpty { tap.bytes(tapIdentity, .sentBody, list.joined) }
        guard enqueue(list) else { return .failed(failure!) }
        return startWrite()
    }

    /// Queues a range of a file as the next piece of a Content-Length body, sent with sendfile(2):
    /// the bytes go from the page cache to the socket without entering this process (design §3).
    /// Plain connections only; TLS must encrypt, so its callers read the file instead.
    func writeFile(_ file: File, offset: Int64, count: Int) -> Readiness<Void> {
        if let failure { return .failed(earlyResponseError ?? failure) }
        if uploadStopped || responseEndsUpload { return .failed(uploadStopped ? uploadStoppedError : stopSending()) }
        if awaitingContinue { return .wait }
        guard tls == nil, bodyAwaitingFinish, writeWaiter == nil else {
            return .failed(ConnectionError(.invalidRequest, "sendfile needs an open Content-Length body on a plain connection"))
        }
        do {
            try machine.sendBody(writtenElsewhere: UInt64(count))
        } catch {
            if error.code == .noRequestBody {
                return .failed(ConnectionError(.invalidRequest, "sendfile needs an open Content-Length body on a plain connection"))
            }
            return .failed(ConnectionError.invalidBody(error))
        }
        if count > 0 { pendingFile = (file, offset, count) }
        return startWrite()
    }

    /// Ends the request body (the last chunk for chunked bodies).
    func finishBody(trailers: HTTPHeaders) -> Readiness<Void> {
        if let failure { return .failed(earlyResponseError ?? failure) }
        if uploadStopped { return .failed(uploadStoppedError) }
        if awaitingContinue { return .wait }
        guard bodyAwaitingFinish, writeWaiter == nil else {
            return .failed(ConnectionError(.invalidRequest, "no request body is open"))
        }
        var list = GatherList()
        do {
            try machine.sendEnd(trailers: trailers, into: &list)
        } catch {
            return .failed(ConnectionError.invalidBody(error))
        }
        bodyAwaitingFinish = false
        if bodyEnded {
            // The response is complete already: if it ended before the body did (an early
            // response), the machine said keepAlive false and the last chunk is not sent.
            completeExchangeIfDone()
            return .ready(())
        }
        if let tap = options.wireTap, !list.isEmpty { tap.bytes(tapIdentity, .sentBody, list.joined) }
        guard enqueue(list) else { return .failed(failure!) }
        return startWrite()
    }

    /// Queues plaintext for the wire, encrypting it first on TLS connections.
    /// - Returns: false when TLS failed (the connection is failed).
    func enqueue(_ list: GatherList) -> Bool {
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

    /// Writes what is queued; `.wait` when the kernel did not take all of it.
    func startWrite() -> Readiness<Void> {
        touch()
        flush()
        if let failure { return .failed(failure) }
        if output.isEmpty && pendingFile == nil { return .ready(()) }
        updateInterest()
        return .wait
    }

    /// Waits for queued request bytes to reach the kernel.
    func waitForWrite(_ continuation: UnsafeContinuation<Void, any Error>) {
        if let failure { continuation.resume(throwing: earlyResponseError ?? failure); return }
        if output.isEmpty && pendingFile == nil { continuation.resume(); return }
        if responseEndsUpload {
            continuation.resume(throwing: stopSending())
            return
        }
        writeWaiter = continuation
        armIdle()
    }

    /// Waits for a body operation to complete: when it was held for the 100 (`retry` has not run
    /// yet), until the wait ends and `retry` has run; else for its queued bytes to be written.
    func waitForWrite(_ continuation: UnsafeContinuation<Void, any Error>, retry: @escaping () -> Readiness<Void>) {
        guard awaitingContinue else {
            waitForWrite(continuation)
            return
        }
        if continueWaiter != nil {
            continuation.resume(throwing: ConnectionError(.notReusable, "a write is already in progress"))
            return
        }
        continueWaiter = ContinueWaiter(retry: retry, continuation: continuation)
        touch()
        armIdle()
    }

    /// Ends the wait for 100 Continue: the held body may go (`continued`, `timedOut`), or must
    /// not (`finalResponse`: the server answered without it; the connection closes after that
    /// response). The held writer runs from `deliver`.
    func endContinueWait(_ outcome: ExpectContinueOutcome) {
        guard awaitingContinue else { return }
        awaitingContinue = false
        continueOutcome = outcome
        if let continueTimer { _ = loop.cancelTimer(continueTimer) }
        continueTimer = nil
        if outcome == .finalResponse { _ = stopSending() }
    }

    /// Runs a body operation that waited for the 100 and resumes its caller.
    func resumeAfterContinue(_ waiter: ContinueWaiter) {
        switch waiter.retry() {
        case .ready: waiter.continuation.resume()
        case .failed(let error): waiter.continuation.resume(throwing: error)
        case .wait: waitForWrite(waiter.continuation)
        }
    }

    /// Whether a final response head arrived while the request body is still being sent and the
    /// server is not going to take the rest: a status of 300 or more (curl stops sending then
    /// too: an early 413 or 401) or a response that closes the connection. A 2xx that keeps the
    /// connection (nginx answers 204 before it reads an upload, then discards the body) lets the
    /// upload go on.
    var responseEndsUpload: Bool {
        guard exchangeActive, bodyAwaitingFinish || !output.isEmpty || pendingFile != nil,
              let head = decodedHead else { return false }
        return head.status >= 300 || !machine.responseAllowsPersistence
    }

    /// The error a writer gets once a final response arrived during the upload: the response is
    /// there to be read, whatever happened to the write.
    var earlyResponseError: ConnectionError? {
        guard exchangeActive, machine.isSendingBody || bodyAwaitingFinish, let head = decodedHead else { return nil }
        return ConnectionError(.earlyResponse, "the server answered \(head.status) before the request body was sent")
    }

    /// Stops the upload for good: the bytes still queued are dropped, the body is over for this
    /// side, and the connection closes after the response (its request cannot be framed now).
    func stopSending() -> ConnectionError {
        let error = earlyResponseError ?? ConnectionError(.earlyResponse, "the server answered before the request body was sent")
        output = GatherList()
        pendingFile = nil
        bodyAwaitingFinish = false
        uploadStopped = true
        updateInterest()
        return error
    }
}

/// A body operation held until the wait for 100 Continue ends.
struct ContinueWaiter {
    /// The operation, run again once the wait is over.
    let retry: () -> Readiness<Void>
    let continuation: UnsafeContinuation<Void, any Error>
}
