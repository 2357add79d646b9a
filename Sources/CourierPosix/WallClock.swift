// WallClock: the calendar time (CLOCK_REALTIME), for what is dated in the world — cookie expiry,
// HTTP dates. Timers and deadlines use `Instant` (CLOCK_MONOTONIC), which never jumps.

/// The wall clock.
public enum WallClock {
    /// The current time in whole seconds since 1970-01-01T00:00:00Z.
    /// - Returns: clock_gettime(CLOCK_REALTIME)'s seconds.
    public static func secondsSinceEpoch() -> Int64 { Sys.realtimeSeconds() }

    /// The current time since the epoch, to the microsecond (curl's `--trace-time` stamps).
    /// - Returns: clock_gettime(CLOCK_REALTIME)'s seconds and microseconds.
    package static func nowMicroseconds() -> (seconds: Int64, microseconds: Int64) { Sys.realtimeMicroseconds() }

    /// The local time of day of a moment. The C library reads the zone (TZ, /etc/localtime) on
    /// its first use: make that first call where a file read may block (a blocking-I/O thread).
    /// - Parameter seconds: seconds since the epoch.
    /// - Returns: the hour, minute and second in the local zone.
    package static func localTimeOfDay(_ seconds: Int64) -> (hour: Int, minute: Int, second: Int) {
        Sys.localTimeOfDay(seconds)
    }
}
