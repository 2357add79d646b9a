// Why the pool gave up on a request. The pool's errors follow design §6: a stable code from a closed
// set, plus context (here the shell's own opaque code for a failed connection attempt). The shell
// wraps them into Courier's public error; message text is not API.

/// The reason the pool failed a request (``PoolStateMachine/Action/failRequest(_:_:)``).
public struct PoolError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable error code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The code's stable name, such as `poolShutdown`.
        public let rawValue: String
        /// The code named `rawValue` when it is one of the constants below, else nil: the set is
        /// closed (no other code can be made), and a name read back from a log gives its code.
        /// - Parameter rawValue: the name.
        public init?(rawValue: String) {
            guard let code = Code.all.first(where: { $0.rawValue == rawValue }) else { return nil }
            self = code
        }

        /// Every code, for `init?(rawValue:)`.
        static let all: [Code] = [
            .waitDeadlineExceeded, .cancelled, .poolShutdown, .tooManyWaiters, .connectFailed,
            .connectionClosedBeforeResponse, .responseInterrupted
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The request waited for a connection until its deadline passed.
        public static let waitDeadlineExceeded = Code("waitDeadlineExceeded")
        /// The caller cancelled the request while it waited for a connection.
        public static let cancelled = Code("cancelled")
        /// The pool was shut down before the request got a connection.
        public static let poolShutdown = Code("poolShutdown")
        /// The origin's waiter queue was full (``PoolStateMachine/Limits/maxWaitersPerOrigin``).
        public static let tooManyWaiters = Code("tooManyWaiters")
        /// The connection attempt the request was counting on failed; ``PoolError/underlying``
        /// holds the shell's code for why.
        public static let connectFailed = Code("connectFailed")
        /// The connection failed before any byte of the response arrived, and the pool did not
        /// send the request again (it is not idempotent, its body cannot be replayed, it had
        /// already been retried, or the connection was fresh). Nothing of a response was seen, so
        /// a caller that knows the request is safe to repeat may do so.
        public static let connectionClosedBeforeResponse = Code("connectionClosedBeforeResponse")
        /// The connection failed after some of the response had arrived, or closed under the
        /// request without the shell saying how far the exchange got. Never repeated by the pool.
        public static let responseInterrupted = Code("responseInterrupted")

        /// The code's name.
        public var description: String { rawValue }
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
