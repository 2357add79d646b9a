// The plain values the pool state machine speaks in: the pool key (an origin), the two kinds of
// identifier, the machine's notion of time, and how a failed exchange is classified.
//
// Nothing here imports anything: the pool is a pure module (design §1). Time is a number of
// nanoseconds on whatever monotonic clock the I/O shell reads; the machine only compares and adds.

/// The key connections are pooled under: one origin, RFC 6454 §4 (scheme, host, port).
///
/// Two requests share connections exactly when their keys are equal. The scheme and the host are
/// lower-cased (ASCII only) on creation, because both compare case-insensitively (RFC 3986 §3.1,
/// §3.2.2); the port is always explicit, so `http://a` and `http://a:80` must be given the same
/// port by the caller. Anything else that makes a connection unshareable (a proxy, a client
/// certificate, a custom trust store) belongs in ``partition``.
public struct PoolKey: Hashable, Sendable, CustomStringConvertible {
    /// The scheme, lower-cased: `http` or `https` in practice.
    public let scheme: String
    /// The host name or address literal, lower-cased (ASCII letters only).
    public let host: String
    /// The TCP port.
    public let port: Int
    /// An opaque extra discriminator for connections that must not be shared although their origin
    /// is the same (a proxy, TLS settings); empty by default.
    public let partition: String

    /// Creates a key.
    /// - Parameters:
    ///   - scheme: the URI scheme; ASCII letters are lower-cased.
    ///   - host: the host; ASCII letters are lower-cased.
    ///   - port: the port, explicit even when it is the scheme's default.
    ///   - partition: an opaque discriminator; connections are shared only within one partition.
    public init(scheme: String, host: String, port: Int, partition: String = "") {
        self.scheme = PoolKey.asciiLowercased(scheme)
        self.host = PoolKey.asciiLowercased(host)
        self.port = port
        self.partition = partition
    }

    /// `scheme://host:port`, with ` [partition]` when there is one.
    public var description: String {
        let base = "\(scheme)://\(host):\(port)"
        return partition.isEmpty ? base : "\(base) [\(partition)]"
    }

    // CourierPool depends on no other module (a pure state machine), so it folds case itself
    // rather than import ASCIICase from CourierBytes.
    private static func asciiLowercased(_ value: String) -> String {
        // Fast path: most keys are already lower case, and then the original storage is kept.
        guard value.utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return value }
        return String(decoding: value.utf8.map { ($0 >= 0x41 && $0 <= 0x5A) ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
}

/// Identifies one connection. Connection identifiers are created by the state machine (in
/// ``PoolStateMachine/Action/createConnection(_:_:)``), increase by one each time and are never
/// reused within one machine, so an event naming an identifier the machine has already forgotten
/// (a late report after the machine closed it) is recognised and ignored.
public struct ConnectionID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number; the first connection of a machine is 1.
    public let rawValue: UInt64

    /// Wraps a number. Only identifiers that a machine handed out may be passed back to it.
    /// - Parameter rawValue: the number.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders by creation.
    public static func < (lhs: ConnectionID, rhs: ConnectionID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `C` followed by the number.
    public var description: String { "C\(rawValue)" }
}

/// Identifies one request. Request identifiers are chosen by the caller (the I/O shell already has
/// a task registry with its own numbers); an identifier must not be passed to
/// ``PoolStateMachine/executeRequest(_:to:isIdempotent:isBodyReplayable:deadline:now:)`` while the
/// machine still knows a request by it, that is before the request's terminal outcome.
public struct RequestID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number.
    public let rawValue: UInt64

    /// Wraps a number.
    /// - Parameter rawValue: the number.
    public init(_ rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Orders by number.
    public static func < (lhs: RequestID, rhs: RequestID) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `R` followed by the number.
    public var description: String { "R\(rawValue)" }
}

/// A point in time: nanoseconds on the shell's monotonic clock. The machine never reads a clock; it
/// compares the instants it is given and adds durations to them (saturating at the far end).
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Nanoseconds since the clock's (arbitrary) origin.
    public let nanoseconds: UInt64

    /// Creates an instant.
    /// - Parameter nanoseconds: nanoseconds since the clock's origin.
    public init(nanoseconds: UInt64) {
        self.nanoseconds = nanoseconds
    }

    /// The latest representable instant; a deadline that never passes in practice.
    public static let distantFuture = Instant(nanoseconds: .max)

    /// This instant moved forward by a duration; negative durations count as zero and the result
    /// saturates at ``distantFuture``.
    /// - Parameter duration: how far to move.
    /// - Returns: the later instant.
    public func advanced(by duration: Duration) -> Instant {
        let delta = Instant.nanoseconds(of: duration)
        let (sum, overflow) = nanoseconds.addingReportingOverflow(delta)
        return Instant(nanoseconds: overflow ? .max : sum)
    }

    /// Orders by time.
    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// The number of nanoseconds followed by `ns`.
    public var description: String { "\(nanoseconds)ns" }

    /// A duration in whole nanoseconds, clamped to `0...UInt64.max`.
    static func nanoseconds(of duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        guard seconds >= 0 else { return 0 }
        let (whole, overflow) = UInt64(seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return .max }
        let fraction = UInt64(max(0, attoseconds / 1_000_000_000))
        let (sum, overflow2) = whole.addingReportingOverflow(fraction)
        return overflow2 ? .max : sum
    }
}

/// How far an exchange got before it failed; decides whether the pool may send it again.
public enum FailureKind: Hashable, Sendable {
    /// Not a single byte of the response arrived (the request may or may not have been written,
    /// wholly or partly). The server cannot have produced a response the client saw, but it may
    /// have acted on the request: only idempotent requests may be sent again (RFC 9110 §9.2.2).
    case beforeAnyResponseByte
    /// Some of the response had arrived. The exchange is never repeated by the pool.
    case afterResponseBytes
}

extension PoolStateMachine {
    /// Whether a method is idempotent by definition (RFC 9110 §9.2.2): the safe methods GET, HEAD,
    /// OPTIONS and TRACE (§9.2.1), plus PUT and DELETE. Method names are case-sensitive (§9.1), so
    /// `get` is not GET. POST, PATCH and CONNECT are not idempotent; a caller that makes a POST
    /// idempotent by other means (an `Idempotency-Key` header, as Go's transport honours) may pass
    /// `isIdempotent: true` itself.
    /// - Parameter method: the method name exactly as it is sent.
    /// - Returns: `true` for GET, HEAD, OPTIONS, TRACE, PUT and DELETE.
    public static func isIdempotent(method: String) -> Bool {
        switch method {
        case "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE": return true
        default: return false
        }
    }
}
