// The pure rate rules of TransferRate.swift, driven by a clock the test moves: the token bucket's
// bound (the bytes granted over any interval stay within burst + rate × time + one grant) and
// curl's low-speed rule (fails exactly when the speed stayed below the limit for its duration).

import CourierPosix
import Testing
@testable import Courier

@Suite("transfer rate rules")
struct TransferRateTests {
    @Test("a token bucket never grants more than burst + rate × elapsed + one grant, and pauses when spent",
          arguments: [1000, 102_400, 10_000_000])
    func bucketBound(rate: Int) {
        let start = Instant(nanoseconds: 1_000_000_000)
        var now = start
        var bucket = TokenBucket(rate: rate, now: now)
        var granted = 0
        var pauses = 0
        // A greedy reader asking for 64 KiB every millisecond for three simulated seconds.
        for _ in 0..<3000 {
            let allowed = bucket.allowance(65536, now: now)
            if allowed == 0 {
                pauses += 1
                let delay = bucket.delayUntilQuantum(now: now)
                #expect(delay > .zero)
            } else {
                bucket.spend(allowed, now: now)
                granted += allowed
            }
            now = now + .milliseconds(1)
            let elapsed = Double((now - start).components.seconds) + Double((now - start).components.attoseconds) * 1e-18
            #expect(Double(granted) <= Double(bucket.burst + bucket.quantum) + Double(rate) * elapsed)
        }
        // And it does not starve: over three seconds the rate is reached within a grant.
        #expect(Double(granted) >= Double(rate) * 3 - Double(bucket.quantum) * 2, "granted \(granted) at \(rate)/s")
        #expect(pauses > 0)
    }

    @Test("the low-speed rule fails after -y seconds below -Y, and a fast second resets it")
    func speedMeter() {
        var meter = SpeedMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(3)))
        var now = Instant(nanoseconds: 5_000_000_000)
        var total = 0
        func tick(_ bytes: Int) -> Bool {
            now = now + .seconds(1)
            total += bytes
            return meter.sample(totalReceived: total, totalSent: 0, now: now)
        }
        // Fast for two seconds, then a stall: the five-second average keeps it fast for a while
        // (curl's window), then three slow seconds end it.
        #expect(!tick(10_000))
        #expect(!tick(10_000))
        var slowSeconds = 0
        while !tick(0) {
            slowSeconds += 1
            #expect(slowSeconds < 10)
            if slowSeconds >= 10 { break }
        }
        #expect(slowSeconds >= 2, "not before the average fell below the limit for 3 s")
        // The upload side counts too: a fast upload keeps a silent download alive.
        var upload = SpeedMeter(limit: LowSpeedLimit(bytesPerSecond: 1000, duration: .seconds(1)))
        let first = upload.sample(totalReceived: 0, totalSent: 5000, now: now + .seconds(1))
        let second = upload.sample(totalReceived: 0, totalSent: 5000, now: now + .seconds(2))
        #expect(!first && !second, "the five-second average (2500/s) is still above the limit")
    }
}
