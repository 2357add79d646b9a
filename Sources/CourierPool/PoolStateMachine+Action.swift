// What the pool asks the I/O shell to do. Every event returns a list of actions; the shell runs
// them in order, after it has released whatever lock guards the machine (AHC's pattern: decide under
// the lock, act outside it).

extension PoolStateMachine {
    /// One thing the shell must do. Actions are returned in the order they must run.
    public enum Action: Hashable, Sendable, CustomStringConvertible {
        /// Open a connection to the key's origin (TCP, then TLS for `https`). Report the outcome
        /// with exactly one of ``PoolStateMachine/connectionEstablished(_:now:)`` or
        /// ``PoolStateMachine/connectionFailedToConnect(_:underlying:)``, unless the machine
        /// asks to close it first.
        case createConnection(ConnectionID, PoolKey)

        /// Send the request on the connection. The connection is now leased to it; report the end
        /// with exactly one of ``PoolStateMachine/requestCompleted(on:keepAlive:now:)``,
        /// ``PoolStateMachine/requestFailed(_:on:kind:)`` or
        /// ``PoolStateMachine/connectionClosed(_:)``. A request that is retried gets this
        /// action a second time, with a fresh connection.
        case executeRequest(RequestID, on: ConnectionID)

        /// The request is over: tell its caller. This is the request's terminal outcome; the
        /// machine forgets the identifier.
        case failRequest(RequestID, PoolError)

        /// Close the connection (or abort the attempt, if it is still being established). The
        /// machine has forgotten the identifier already: later events naming it are ignored.
        case closeConnection(ConnectionID)

        /// Arm the shell's one timer for this instant, replacing any armed one, and call
        /// ``PoolStateMachine/timerFired(now:)`` when it passes.
        case scheduleTimer(Instant)

        /// Disarm the timer: nothing is waiting for time to pass.
        case cancelTimer

        /// Shutdown is complete: no connection and no request remains. Returned once; afterwards
        /// the machine only answers new requests, with `failRequest(_, poolShutdown)`.
        case shutdownComplete

        /// A compact form for test output and logs.
        public var description: String {
            switch self {
            case .createConnection(let c, let k): return "create(\(c), \(k))"
            case .executeRequest(let r, let c): return "execute(\(r), on: \(c))"
            case .failRequest(let r, let e): return "fail(\(r), \(e))"
            case .closeConnection(let c): return "close(\(c))"
            case .scheduleTimer(let t): return "timer(\(t))"
            case .cancelTimer: return "cancelTimer"
            case .shutdownComplete: return "shutdownComplete"
            }
        }
    }
}
