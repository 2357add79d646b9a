// LoopConnection+Closing: the idle and total timers, and how a connection fails, closes and is
// cancelled.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

extension LoopConnection {
    // MARK: Timers

    func touch() { lastActivity = Instant.now() }

    var waitingOnPeer: Bool {
        headWaiter != nil || bodyWaiter != nil || writeWaiter != nil || handshakeWaiter != nil || continueWaiter != nil
    }

    func armIdle() {
        guard idleTimer == nil, failure == nil else { return }
        idleTimer = loop.scheduleTimer(at: lastActivity + options.idleTimeout) { [weak self] in self?.idleTimerFired() }
    }

    func idleTimerFired() {
        idleTimer = nil
        guard failure == nil, waitingOnPeer else { return }
        if Instant.now() >= lastActivity + options.idleTimeout {
            fail(ConnectionError(.idleTimeout, "no data moved for \(options.idleTimeout)"))
        } else {
            armIdle()
        }
    }

    func armDeadline(after duration: Duration, code: ConnectionError.Code = .totalTimeout) {
        cancelDeadline()
        deadlineTimer = loop.scheduleTimer(after: duration) { [weak self] in
            self?.deadlineTimer = nil
            let message = code == .totalTimeout ? "the exchange did not finish within \(duration)"
                : "the connection was not established in time (resolution, connect and TLS handshake together)"
            self?.fail(ConnectionError(code, message))
        }
    }

    func cancelDeadline() {
        if let deadlineTimer { _ = loop.cancelTimer(deadlineTimer) }
        deadlineTimer = nil
    }

    // MARK: Closing

    /// Fails the connection for good: closes it and fails every waiter with `error`. A head or body
    /// bytes already decoded stay deliverable (their waiters would not exist otherwise).
    func fail(_ error: ConnectionError) {
        guard failure == nil else { return }
        var error = error
        if exchangeActive { error.sawResponseBytes = machine.hasReceivedResponseBytes }
        failure = error
        reusable.store(false, ordering: .releasing)
        closeTransport(graceful: false)
        for timer in [idleTimer, deadlineTimer, handshakeTimer, continueTimer] { if let timer { _ = loop.cancelTimer(timer) } }
        stopRateTimers()
        idleTimer = nil
        deadlineTimer = nil
        handshakeTimer = nil
        continueTimer = nil
        // A body held for the 100 will never go: its writer gets the failure (through `deliver`).
        awaitingContinue = false
        let handshake = handshakeWaiter
        handshakeWaiter = nil
        handshake?.fail(error)
        if let waiter = writeWaiter {
            writeWaiter = nil
            waiter.resume(throwing: earlyResponseError ?? error)
        }
        deliver()
    }

    /// Closes on the caller's request (or its cancellation). Idempotent.
    func close() {
        if failure == nil {
            closeTransport(graceful: true)
            fail(ConnectionError(.cancelled, "the connection was closed"))
        }
    }

    /// The awaiting task was cancelled: the exchange cannot go on, and the connection closes.
    func cancel() {
        // A decoded head or body would otherwise still satisfy the cancelled caller.
        decodedHead = nil
        pending.removeAll()
        pendingBytes = 0
        bodyEnded = false
        fail(ConnectionError(.cancelled, "the task was cancelled"))
    }

    func closeTransport(graceful: Bool) {
        // A lent socket is being spliced on another thread: it closes when it comes back.
        guard let socket, !socketLent else { return }
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
