// MultipartThrottle: AFNetworking's `throttleBandwidthWithPacketSize:delay:` as a bandwidth limit.
//
// AFNetworking reads `packetSize` bytes, then sleeps `delay` on the stream's thread (its
// 3G suggestion: 16 KiB every 0.2 s). Courier keeps both numbers but states the promise as a rate
// — bytes per second — and keeps it over the whole body rather than per packet: the body is cut
// into packets of at most `packetSize` bytes and packet n may leave only once `n` packets' bytes
// fit in `bytesPerSecond × elapsed` (plus one packet, the burst allowed at the start). The
// transport awaits the delay this value computes (an asynchronous sleep, never a blocked
// thread), so a throttled upload holds no thread of the cooperative pool while it waits.
//
// Pure: time is passed in as durations since the body's first byte, so tests drive it with a
// clock of their own.

/// A bandwidth limit for a multipart body (AFNetworking's packet size and delay).
public struct MultipartThrottle: Sendable, Hashable, Codable {
    /// The most bytes per second the body is sent at, on average from its first byte.
    public let bytesPerSecond: UInt64
    /// The most bytes handed to the connection at once.
    public let packetSize: Int

    /// AFNetworking's `kAFUploadStream3GSuggestedPacketSize`: 16 KiB.
    public static let suggestedPacketSize = 16 * 1024
    /// AFNetworking's `kAFUploadStream3GSuggestedDelay`: 0.2 s.
    public static let suggestedDelay = Duration.milliseconds(200)

    /// A limit of `bytesPerSecond`, sent in packets of at most `packetSize` bytes.
    /// - Parameters:
    ///   - bytesPerSecond: the rate (at least 1).
    ///   - packetSize: the packet size (at least 1); by default a fifth of a second's worth, between
    ///     1 byte and 16 KiB, so the pace stays even at low rates.
    public init(bytesPerSecond: UInt64, packetSize: Int? = nil) {
        let rate = max(1, bytesPerSecond)
        self.bytesPerSecond = rate
        self.packetSize = max(1, packetSize ?? Int(min(max(rate / 5, 1), UInt64(Self.suggestedPacketSize))))
    }

    /// AFNetworking's `throttleBandwidthWithPacketSize:delay:`: `packetSize` bytes every `delay`,
    /// that is `packetSize / delay` bytes per second.
    /// - Parameters:
    ///   - packetSize: bytes per packet (at least 1).
    ///   - delay: the pause after each packet (a zero or negative delay is no limit worth having;
    ///     it is taken as 1 ms).
    public init(packetSize: Int, delay: Duration) {
        let size = max(1, packetSize)
        let (seconds, attoseconds) = delay.components
        let nanos = max(1_000_000, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        let rate = UInt64(size) * 1_000_000_000 / UInt64(nanos)
        self.init(bytesPerSecond: max(1, rate), packetSize: size)
    }

    /// How long to wait, `elapsed` after the body's first byte, before handing over more bytes when
    /// `sent` have gone already: zero when `sent` is within the rate's allowance (one packet of
    /// burst included), else the time until it is.
    /// - Parameters:
    ///   - sent: body bytes handed over so far.
    ///   - elapsed: time since the first byte was handed over.
    /// - Returns: the wait, never negative.
    public func delay(afterSending sent: UInt64, elapsed: Duration) -> Duration {
        let allowanceFree = UInt64(packetSize)
        guard sent > allowanceFree else { return .zero }
        // The instant at which `sent - packetSize` bytes are due at the rate, in nanoseconds.
        let due = (sent - allowanceFree).multipliedFullWidth(by: 1_000_000_000)
        // A quotient beyond 64 bits (hundreds of years) is capped rather than trapped on.
        guard due.high < bytesPerSecond else { return .seconds(Int64.max / 2) }
        let (quotient, _) = bytesPerSecond.dividingFullWidth(due)
        let (seconds, attoseconds) = elapsed.components
        let elapsedNanos = seconds < 0 ? 0 : UInt64(seconds) &* 1_000_000_000 &+ UInt64(max(0, attoseconds / 1_000_000_000))
        guard quotient > elapsedNanos else { return .zero }
        return .nanoseconds(Int64(clamping: quotient - elapsedNanos))
    }
}
