// TransferRate: the two rate rules a connection can be given, as pure values with time passed in
// (no clock, no I/O: LoopConnection+Rate.swift runs them on the loop's timers).
//
// - `TokenBucket` caps a direction's rate (curl --limit-rate; curl applies it to receiving and
//   sending alike). Tokens are bytes; they accrue at `rate` per second up to `burst`. A read or
//   write may take at most the tokens there are (at least `quantum`, so tiny grants do not turn
//   into a syscall per byte) and may leave the bucket in debt by what the kernel returned beyond
//   that; the direction then pauses until the bucket holds `quantum` again. Over any interval the
//   bytes moved stay within `burst + rate × elapsed` plus one read's overshoot — the lower bound on
//   the time a body takes that the tests rely on.
// - `SpeedMeter` is curl's low-speed check (lib/speedcheck.c, -Y/-y): once a second the bytes
//   moved in each direction are sampled; the speed is the faster direction's average over the
//   last five seconds (curl's progress "current speed" window); when it stays below the limit for
//   `duration` the transfer fails as too slow (curl exit 28).

import CourierPosix

/// A transfer-rate cap as a token bucket. Pure: `now` is passed in.
struct TokenBucket: Sendable {
    /// Bytes per second.
    let rate: Int
    /// The most tokens the bucket holds: what may move at once after a pause.
    let burst: Int
    /// The smallest grant, and the tokens a paused direction waits for.
    let quantum: Int
    private var tokens: Double
    private var last: Instant

    /// A bucket for `rate` bytes per second, full (`burst` tokens) at `now`.
    init(rate: Int, now: Instant) {
        self.rate = max(1, rate)
        // A tenth of a second's worth, between 1 and 16 KiB: pauses of about 100 ms at low
        // rates, and reads of a useful size at high ones.
        quantum = min(max(self.rate / 10, 1), 16 << 10)
        burst = quantum
        tokens = Double(burst)
        last = now
    }

    private mutating func refill(_ now: Instant) {
        let elapsed = now - last
        guard elapsed > .zero else { return }
        last = now
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        tokens = min(Double(burst), tokens + seconds * Double(rate))
    }

    /// How many bytes may move now: 0 when the bucket is in debt or nearly empty (pause), else at
    /// most `wanted`.
    mutating func allowance(_ wanted: Int, now: Instant) -> Int {
        refill(now)
        guard tokens >= 1 else { return 0 }
        return min(wanted, max(Int(tokens), quantum))
    }

    /// `count` bytes moved.
    mutating func spend(_ count: Int, now: Instant) {
        refill(now)
        tokens -= Double(count)
    }

    /// How long until the bucket holds `quantum` tokens again (zero when it does).
    mutating func delayUntilQuantum(now: Instant) -> Duration {
        refill(now)
        let missing = Double(quantum) - tokens
        guard missing > 0 else { return .zero }
        return .nanoseconds(Int64((missing / Double(rate) * 1e9).rounded(.up)))
    }
}

/// curl's low-speed rule: fail when the speed stays below `LowSpeedLimit.bytesPerSecond` for
/// `LowSpeedLimit.duration`. Pure: fed a sample per second.
struct SpeedMeter: Sendable {
    let limit: LowSpeedLimit
    /// The bytes moved in each of the last five one-second samples, per direction.
    private var received: [Int] = []
    private var sent: [Int] = []
    private var lastReceived = 0
    private var lastSent = 0
    /// Since when the speed has been below the limit.
    private var slowSince: Instant?

    init(limit: LowSpeedLimit) { self.limit = limit }

    /// Takes one sample of the totals moved so far (counters that only grow).
    /// - Returns: true when the speed has now been too low for the limit's duration.
    mutating func sample(totalReceived: Int, totalSent: Int, now: Instant) -> Bool {
        received.append(totalReceived - lastReceived)
        sent.append(totalSent - lastSent)
        lastReceived = totalReceived
        lastSent = totalSent
        if received.count > 5 { received.removeFirst(); sent.removeFirst() }
        let speed = max(received.reduce(0, +), sent.reduce(0, +)) / received.count
        guard speed < limit.bytesPerSecond else {
            slowSince = nil
            return false
        }
        guard let since = slowSince else {
            // curl starts counting at the first slow check, which follows a first interval.
            slowSince = now - .seconds(1)
            return limit.duration <= .seconds(1)
        }
        return now - since >= limit.duration
    }
}

/// The lowest speed a transfer may keep for a while (curl `-Y/--speed-limit` with
/// `-y/--speed-time`).
public struct LowSpeedLimit: Hashable, Sendable {
    /// Bytes per second; below this for `duration` the transfer fails.
    public var bytesPerSecond: Int
    /// How long the speed may stay below the limit (curl's default 30 s).
    public var duration: Duration

    /// A limit.
    public init(bytesPerSecond: Int, duration: Duration = .seconds(30)) {
        self.bytesPerSecond = bytesPerSecond
        self.duration = duration
    }
}
