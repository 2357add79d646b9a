// Why the pool gave up on a request. The pool's errors follow design §6: a stable code from a closed
// set, plus context (here the shell's own opaque code for a failed connection attempt). The shell
// wraps them into Courier's public error; message text is not API.

/// The reason the pool failed a request (``PoolStateMachine/Action/failRequest(_:_:)``).
public struct PoolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The number; stable across releases.
        public let rawValue: UInt8

        private init(_ rawValue: UInt8) {
            self.rawValue = rawValue
        }

        /// The request waited for a connection until its deadline passed.
        public static let waitDeadlineExceeded = Code(1)
        /// The caller cancelled the request while it waited for a connection.
        public static let cancelled = Code(2)
        /// The pool was shut down before the request got a connection.
        public static let poolShutdown = Code(3)
        /// The origin's waiter queue was full (``PoolStateMachine/Limits/maxWaitersPerOrigin``).
        public static let tooManyWaiters = Code(4)
        /// The connection attempt the request was counting on failed; ``PoolError/underlying``
        /// holds the shell's code for why.
        public static let connectFailed = Code(5)
        /// The connection failed before any byte of the response arrived, and the pool did not
        /// send the request again (it is not idempotent, its body cannot be replayed, it had
        /// already been retried, or the connection was fresh). Nothing of a response was seen, so
        /// a caller that knows the request is safe to repeat may do so.
        public static let connectionClosedBeforeResponse = Code(6)
        /// The connection failed after some of the response had arrived, or closed under the
        /// request without the shell saying how far the exchange got. Never repeated by the pool.
        public static let responseInterrupted = Code(7)

        /// The code's name.
        public var description: String {
            switch rawValue {
            case 1: return "waitDeadlineExceeded"
            case 2: return "cancelled"
            case 3: return "poolShutdown"
            case 4: return "tooManyWaiters"
            case 5: return "connectFailed"
            case 6: return "connectionClosedBeforeResponse"
            case 7: return "responseInterrupted"
            default: return "unknown(\(rawValue))"
            }
        }
    }

    /// What went wrong.
    public let code: Code
    /// The shell's opaque code for the underlying failure (for ``Code/connectFailed``: the code the
    /// shell passed with the failed attempt, such as an errno); `nil` when there is none.
    public let underlying: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - underlying: the shell's opaque code for the cause, if any.
    public init(_ code: Code, underlying: Int? = nil) {
        self.code = code
        self.underlying = underlying
    }

    /// The code's name, with the underlying code in parentheses when there is one.
    public var description: String {
        if let underlying { return "\(code)(\(underlying))" }
        return code.description
    }
}
