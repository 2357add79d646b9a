// MultipartThrottle: AFNetworking's packet size and delay as a rate, and the schedule of waits it
// gives, driven by an injected clock (elapsed durations passed in) so nothing here sleeps.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct ThrottleTests {
    @Test func afnetworkingPacketAndDelayAreARate() {
        let suggested = MultipartThrottle(packetSize: MultipartThrottle.suggestedPacketSize, delay: MultipartThrottle.suggestedDelay)
        #expect(suggested.bytesPerSecond == 81_920, "16 KiB every 0.2 s")
        #expect(suggested.packetSize == 16_384)
        #expect(MultipartThrottle(packetSize: 1_000, delay: .seconds(2)).bytesPerSecond == 500)
        #expect(MultipartThrottle(packetSize: 0, delay: .zero).bytesPerSecond == 1_000, "1 byte per (at least) 1 ms")
        #expect(MultipartThrottle(bytesPerSecond: 1_000).packetSize == 200, "a fifth of a second's worth")
        #expect(MultipartThrottle(bytesPerSecond: 10_000_000).packetSize == 16_384)
        #expect(MultipartThrottle(bytesPerSecond: 0).bytesPerSecond == 1)
    }

    @Test func firstPacketIsFreeThenTheRateHolds() {
        let throttle = MultipartThrottle(bytesPerSecond: 1_000, packetSize: 100)
        #expect(throttle.delay(afterSending: 100, elapsed: .zero) == .zero)
        #expect(throttle.delay(afterSending: 200, elapsed: .zero) == .milliseconds(100))
        #expect(throttle.delay(afterSending: 200, elapsed: .milliseconds(40)) == .milliseconds(60))
        #expect(throttle.delay(afterSending: 200, elapsed: .milliseconds(100)) == .zero)
        #expect(throttle.delay(afterSending: 1_100, elapsed: .milliseconds(250)) == .milliseconds(750))
        #expect(throttle.delay(afterSending: UInt64.max, elapsed: .zero) > .seconds(1_000_000_000), "no trap, a very long wait")
    }

    /// Simulated sending with the waits the schedule asks for: at every step the bytes handed
    /// over stay within one packet plus rate × time, and the whole body takes what the rate says.
    @Test(arguments: [(1_000 as UInt64, 100), (81_920, 16_384), (3, 1), (50_000, 7_777)])
    func simulatedSendKeepsToTheRate(rate: UInt64, packet: Int) {
        let throttle = MultipartThrottle(bytesPerSecond: rate, packetSize: packet)
        let total: UInt64 = rate * 3 + 17
        var now = Duration.zero
        var sent: UInt64 = 0
        while sent < total {
            let count = min(UInt64(packet), total - sent)
            now += throttle.delay(afterSending: sent + count, elapsed: now)
            sent += count
            let allowed = Double(packet) + Double(rate) * (Double(now.components.seconds) + Double(now.components.attoseconds) / 1e18)
            #expect(Double(sent) <= allowed + 1, "sent \(sent) at \(now)")
        }
        let expected = Duration.nanoseconds(Int64((total - UInt64(packet)) * 1_000_000_000 / rate))
        #expect(now >= expected - .milliseconds(1) && now <= expected + .milliseconds(1), "\(now) vs \(expected)")
    }

    @Test func formKeepsItsThrottleAcrossANewBoundary() throws {
        var form = MultipartForm(boundary: MultipartBoundary("a")!)
        try form.appendField(name: "x", value: "1")
        form.throttleBandwidth(packetSize: 500, delay: .milliseconds(100))
        #expect(form.throttle == MultipartThrottle(bytesPerSecond: 5_000, packetSize: 500))
        #expect(form.replacingBoundary(MultipartBoundary("b")!).throttle == form.throttle)
    }
}
