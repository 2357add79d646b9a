// Instant: a point on CLOCK_MONOTONIC, the one clock of CourierPosix (event-loop timers, connect
// deadlines, resolver TTLs). It never jumps when the wall clock is set.
//
// Why not Swift's ContinuousClock: on Linux it reads CLOCK_BOOTTIME and its Instant is opaque;
// the loop needs a plain integer to keep in its timer heap and to turn into an epoll_wait
// timeout, and one clock shared by every component here. Durations are Swift's `Duration`.

/// A point in monotonic time (CLOCK_MONOTONIC), in nanoseconds since an unspecified origin.
public struct Instant: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's origin (typically boot).
    public let nanoseconds: Int64

    /// Creates an instant at `nanoseconds` past the clock's origin (for tests and injected clocks).
    /// - Parameter nanoseconds: the position on the monotonic clock.
    public init(nanoseconds: Int64) { self.nanoseconds = nanoseconds }

    /// The current monotonic time.
    /// - Returns: now, from clock_gettime(CLOCK_MONOTONIC).
    public static func now() -> Instant { Instant(nanoseconds: Sys.monotonicNanoseconds()) }

    /// An instant later than any the clock will reach (a deadline that never comes).
    public static let distantFuture = Instant(nanoseconds: .max)

    /// The instant `duration` after `instant`, saturating at `distantFuture`.
    public static func + (instant: Instant, duration: Duration) -> Instant {
        let (sum, overflow) = instant.nanoseconds.addingReportingOverflow(duration.clampedNanoseconds)
        if overflow { return duration > .zero ? .distantFuture : Instant(nanoseconds: .min) }
        return Instant(nanoseconds: sum)
    }

    /// The instant `duration` before `instant`, saturating.
    public static func - (instant: Instant, duration: Duration) -> Instant {
        let ns = duration.clampedNanoseconds
        return instant + .nanoseconds(ns == .min ? .max : -ns)
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    public static func - (lhs: Instant, rhs: Instant) -> Duration {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        if overflow { return lhs > rhs ? .nanoseconds(Int64.max) : .nanoseconds(Int64.min) }
        return .nanoseconds(difference)
    }

    /// Orders instants by time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The nanosecond count.
    public var description: String { "Instant(\(nanoseconds) ns)" }
}

extension Duration {
    /// The duration in whole nanoseconds, clamped to the Int64 range.
    public var clampedNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (ns, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = ns.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }

    /// The duration in milliseconds rounded up, clamped to 0...Int32.max (an epoll_wait timeout:
    /// rounding up means a timer never fires early).
    var timeoutMilliseconds: CInt {
        let ns = clampedNanoseconds
        if ns <= 0 { return 0 }
        let ms = ns / 1_000_000 + (ns % 1_000_000 == 0 ? 0 : 1)
        return CInt(clamping: ms)
    }
}
