// WallClock: the calendar time (CLOCK_REALTIME), for what is dated in the world — cookie expiry,
// HTTP dates. Timers and deadlines use `Instant` (CLOCK_MONOTONIC), which never jumps.

/// The wall clock.
public enum WallClock {
    /// The current time in whole seconds since 1970-01-01T00:00:00Z.
    /// - Returns: clock_gettime(CLOCK_REALTIME)'s seconds.
    public static func secondsSinceEpoch() -> Int64 { Sys.realtimeSeconds() }
}
