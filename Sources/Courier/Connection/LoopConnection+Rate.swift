// LoopConnection's rate rules, on the loop's timers (the rules themselves are TransferRate.swift):
// - a receive cap pauses reading — read interest off, so the loop does not spin on a readable
//   socket — and a timer turns it back on when the bucket holds a quantum again; the kernel's
//   buffer fills meanwhile and TCP's window slows the server;
// - a send cap shortens writes to the grant and pauses writing the same way, then flushes;
// - the low-speed check samples the bytes moved once a second while an exchange is active and
//   fails the connection with `transferTooSlow` (curl 28) when the speed stayed too low.
// Runs on the loop, as everything in LoopConnection.

import CourierPosix

extension LoopConnection {
    /// The read size allowed now (`wanted` without a cap); 0 pauses reading until the bucket
    /// refills.
    func receiveAllowance(_ wanted: Int) -> Int {
        guard receiveBucket != nil else { return wanted }
        let now = Instant.now()
        let allowed = receiveBucket!.allowance(wanted, now: now)
        if allowed == 0 {
            receivePaused = true
            let delay = receiveBucket!.delayUntilQuantum(now: now)
            receiveResumeTimer = loop.scheduleTimer(after: delay) { [weak self] in
                guard let self else { return }
                receiveResumeTimer = nil
                receivePaused = false
                // Level-triggered: bytes waiting in the kernel are reported at once.
                updateInterest()
            }
        }
        return allowed
    }

    /// `count` bytes were read from the socket.
    func received(_ count: Int) {
        totalReceived += count
        if receiveBucket != nil { receiveBucket!.spend(count, now: Instant.now()) }
    }

    /// The write size allowed now (`wanted` without a cap); 0 pauses writing until the bucket
    /// refills (then `flush()` runs again).
    func sendAllowance(_ wanted: Int) -> Int {
        guard sendBucket != nil else { return wanted }
        if sendPaused { return 0 }
        let now = Instant.now()
        let allowed = sendBucket!.allowance(wanted, now: now)
        if allowed == 0 {
            sendPaused = true
            let delay = sendBucket!.delayUntilQuantum(now: now)
            sendResumeTimer = loop.scheduleTimer(after: delay) { [weak self] in
                guard let self else { return }
                sendResumeTimer = nil
                sendPaused = false
                flush()
            }
        }
        return allowed
    }

    /// `count` bytes were written to the socket.
    func sent(_ count: Int) {
        totalSent += count
        if sendBucket != nil { sendBucket!.spend(count, now: Instant.now()) }
    }

    /// Starts curl's low-speed check for the exchange that starts now.
    func startSpeedCheck() {
        stopSpeedCheck()
        guard let limit = options.lowSpeedLimit else { return }
        speedMeter = SpeedMeter(limit: limit)
        scheduleSpeedSample()
    }

    private func scheduleSpeedSample() {
        speedTimer = loop.scheduleTimer(after: .seconds(1)) { [weak self] in
            guard let self else { return }
            speedTimer = nil
            guard exchangeActive, failure == nil, speedMeter != nil else { return }
            if speedMeter!.sample(totalReceived: totalReceived, totalSent: totalSent, now: Instant.now()) {
                let limit = speedMeter!.limit
                // curl's words (lib/speedcheck.c).
                fail(ConnectionError(.transferTooSlow, "Operation too slow. Less than \(limit.bytesPerSecond) bytes/sec "
                                     + "transferred the last \(limit.duration.components.seconds) seconds"))
            } else {
                scheduleSpeedSample()
            }
        }
    }

    /// Ends the low-speed check (the exchange is over).
    func stopSpeedCheck() {
        if let speedTimer { _ = loop.cancelTimer(speedTimer) }
        speedTimer = nil
        speedMeter = nil
    }

    /// Cancels every rate timer (the connection failed or closed).
    func stopRateTimers() {
        stopSpeedCheck()
        for timer in [receiveResumeTimer, sendResumeTimer] { if let timer { _ = loop.cancelTimer(timer) } }
        receiveResumeTimer = nil
        sendResumeTimer = nil
    }
}
