// PoolStateMachine: the HTTP/1.1 connection pool as a pure state machine (sans-IO, design §2).
//
// THEORY OF OPERATION
//
// The machine owns the bookkeeping of a client's connections and of the requests waiting for them;
// it never touches a socket, a clock or a thread. The I/O shell feeds it events (a request arrived,
// a connection came up, an exchange ended, the timer fired, ...) and runs the actions each event
// returns (open a connection, send this request on that connection, fail that request, close, arm
// the timer). The shell runs them outside its lock, in order. Every transition lives in this file
// and in PoolStateMachine+Lifecycle.swift; docs/pool.md draws them as tables.
//
// A connection is in exactly one of three states, per pool key (origin):
//   connecting(reservedFor:)  being established; `reservedFor` names the retried request it is for
//   idle                      established, in the key's idle stack, its idle deadline running
//   leased(request)           carrying exactly one request (HTTP/1.1: no pipelining)
// A request is in exactly one of three phases:
//   waiting                   in its key's FIFO waiter queue, its wait deadline running
//   awaitingFreshConnection   retried; bound to one connection being established just for it
//   executing(connection)     sent (or being sent) on a leased connection
// The machine forgets a request at its terminal outcome (a `failRequest` action, or the shell's
// `requestCompleted`), and a connection when it asks the shell to close it or the shell reports it
// closed or failed.
//
// Rules (each has unit tests and is checked by the model-based random test and the fuzz driver):
// 1. Limit: a key has at most `maxConnectionsPerOrigin` connections, counting all three states.
// 2. Reuse: a new request takes the most recently released idle connection of its key (LIFO, as
//    AHC and Go's transport do): hot connections stay hot, and the rarely used ones sink to the
//    bottom of the stack where the idle timeout closes them, so the pool shrinks after a burst.
// 3. Fairness: with no idle connection the request joins the key's FIFO queue. A connection that
//    becomes free goes to the oldest waiter of its key first; only with no waiter does it go idle.
//    So `idle` and `waiters` of one key are never both non-empty.
// 4. Growth: while a key has more waiters than general connection attempts in flight and is below
//    its limit, the machine opens more connections (AHC's rule), except in answer to a failed
//    attempt (rule 7).
// 5. Time: the machine keeps one timer, at the earliest waiter deadline or idle deadline of any key,
//    and says so with `scheduleTimer`/`cancelTimer` whenever that instant changes. `timerFired(now:)`
//    fails the waiters whose deadline passed and closes the idle connections whose deadline passed.
// 6. Errors: any failure of an exchange closes its connection; it never goes back to the pool.
// 7. Failed attempts (backoff-free): a failed attempt is not retried. If afterwards the key has no
//    connection left that could serve a waiter (none connecting for the queue, idle or leased),
//    every waiter of the key fails with `connectFailed`: they were all counting on failed attempts,
//    and dialling again at once would be a retry loop without backoff. Otherwise the waiters keep
//    waiting for the connections that remain (bounded by their deadlines). An attempt reserved for
//    a retried request fails that request. The next new request for the key dials afresh.
// 8. Retry: a request that fails before any response byte on a reused connection (one that had been
//    idle in the pool or had completed an earlier exchange, Go's `persistConn.isReused`) is sent
//    once more, on a connection opened just for it, when it is idempotent and its body replayable.
//    It does not queue again: it keeps its place ahead of every waiter. Otherwise, and on any
//    second failure, it fails (`connectionClosedBeforeResponse`, or `responseInterrupted` when
//    response bytes had arrived). A non-idempotent request is never sent twice.
// 9. Cancellation: a waiting request is removed and fails with `cancelled`; a retried request that
//    is cancelled releases its fresh connection to the queue. An executing request is the shell's
//    business: it aborts the exchange and reports `requestFailed` or `connectionClosed`.
// 10. Shutdown: waiters and retried requests fail with `poolShutdown`, idle connections and
//    attempts in flight are closed, leased connections finish their exchange and are then closed;
//    when the last connection is gone the machine returns `shutdownComplete`.
//
// Contract with the shell (violations are programmer errors and trap):
// - Every `createConnection` is answered by `connectionEstablished` or `connectionFailedToConnect`
//   (or `connectionClosed`, treated as a failed attempt), unless the machine closed it first.
// - Every `executeRequest` is answered by exactly one of `requestCompleted`, `requestFailed` or
//   `connectionClosed` for that connection. After it, a late `connectionClosed` is ignored.
// - Identifiers the machine has forgotten are ignored in `connectionEstablished`,
//   `connectionFailedToConnect` and `connectionClosed` (the shell's reports race the machine's
//   `closeConnection`); a `requestCompleted`/`requestFailed` for a connection that carries no
//   request, or an identifier the machine never issued, is a precondition failure.

/// The connection pool: a value-type state machine whose events return the actions the I/O shell
/// must run. See the theory of operation at the top of this file and docs/pool.md.
public struct PoolStateMachine: Sendable {
    /// The machine's lifecycle.
    enum State: Hashable, Sendable {
        case running
        case shuttingDown
        case shutDown
    }

    /// One connection the machine knows.
    struct ConnectionRecord: Hashable, Sendable {
        enum State: Hashable, Sendable {
            case connecting(reservedFor: RequestID?)
            case idle
            case leased(RequestID)
        }

        let key: PoolKey
        var state: State
        /// Has sat idle in the pool or completed an exchange; a failure before the response on
        /// such a connection is likely a server closing it, which is what rule 8 retries.
        var isReused: Bool
    }

    /// One request the machine knows.
    struct RequestRecord: Hashable, Sendable {
        enum Phase: Hashable, Sendable {
            case waiting
            case awaitingFreshConnection(ConnectionID)
            case executing(ConnectionID)
        }

        let key: PoolKey
        let isIdempotent: Bool
        let isBodyReplayable: Bool
        var phase: Phase
        /// How many times an `executeRequest` action was returned for it.
        var sendCount: Int
    }

    /// The limits the machine enforces.
    public let limits: Limits

    // Storage is internal (not private) for the extensions in the other files of this module.
    var state: State = .running
    var nextConnectionNumber: UInt64 = 1
    var nextOriginSequence: UInt64 = 0
    var connections: [ConnectionID: ConnectionRecord] = [:]
    var origins: [PoolKey: OriginState] = [:]
    var requests: [RequestID: RequestRecord] = [:]
    /// The instant the shell's timer is armed for, as far as the machine told it.
    var armedTimer: Instant?

    /// Creates an empty, running pool.
    /// - Parameter limits: the bounds to enforce.
    public init(limits: Limits = Limits()) {
        self.limits = limits
    }

    // MARK: - Events: requests

    /// A request wants a connection.
    ///
    /// It gets the most recently released idle connection of its key at once, or else joins the
    /// key's queue (opening a connection when the key is below its limit), or fails at once when
    /// the queue is full, the deadline has already passed or the pool is shutting down.
    /// - Parameters:
    ///   - request: a caller-chosen identifier no live request has.
    ///   - key: the origin to connect to.
    ///   - isIdempotent: the method is idempotent (``isIdempotent(method:)``), so the request may
    ///     be sent twice.
    ///   - isBodyReplayable: the body can be produced again from the start (none, in memory, a file).
    ///   - deadline: when to give up waiting for a connection; `nil` means `now + limits.waitTimeout`.
    ///   - now: the current instant.
    /// - Returns: the actions to run.
    public mutating func executeRequest(
        _ request: RequestID,
        to key: PoolKey,
        isIdempotent: Bool,
        isBodyReplayable: Bool,
        deadline: Instant? = nil,
        now: Instant
    ) -> [Action] {
        guard state == .running else { return [.failRequest(request, PoolError(.poolShutdown))] }
        precondition(requests[request] == nil, "\(request) is already known to the pool")
        var actions: [Action] = []
        var origin = takeOrigin(key)
        let record = RequestRecord(key: key, isIdempotent: isIdempotent, isBodyReplayable: isBodyReplayable,
                                   phase: .waiting, sendCount: 0)
        if let connection = origin.popIdle() {
            // Rule 2: LIFO reuse. An idle connection exists only when nobody waits (rule 3).
            requests[request] = record
            lease(connection, to: request, actions: &actions)
        } else if origin.waiters.count >= limits.maxWaitersPerOrigin {
            actions.append(.failRequest(request, PoolError(.tooManyWaiters)))
        } else {
            let deadline = deadline ?? now.advanced(by: limits.waitTimeout)
            if deadline <= now {
                actions.append(.failRequest(request, PoolError(.waitDeadlineExceeded)))
            } else {
                requests[request] = record
                origin.enqueue(Waiter(request: request, deadline: deadline))
                openConnectionsForWaiters(of: key, origin: &origin, actions: &actions)
            }
        }
        putOrigin(origin, for: key)
        finish(&actions)
        return actions
    }

    /// The exchange on a leased connection ended well. Its request is complete (its terminal
    /// outcome); the connection goes to the oldest waiter, or idle, or is closed.
    /// - Parameters:
    ///   - connection: the connection the request ran on.
    ///   - keepAlive: the connection may carry another exchange (RFC 9112 §9.3: no `close`, the
    ///     response body was delimited, nothing unread remains).
    ///   - now: the current instant (starts the idle timeout).
    /// - Returns: the actions to run.
    public mutating func requestCompleted(on connection: ConnectionID, keepAlive: Bool, now: Instant) -> [Action] {
        guard let record = connections[connection], case .leased(let request) = record.state else {
            preconditionFailure("requestCompleted on \(connection), which carries no request")
        }
        var actions: [Action] = []
        requests[request] = nil
        var origin = takeOrigin(record.key)
        if keepAlive && state == .running {
            updateConnection(connection) { $0.isReused = true }
            offer(connection, origin: &origin, now: now, actions: &actions)
        } else {
            close(connection, origin: &origin, actions: &actions)
            openConnectionsForWaiters(of: record.key, origin: &origin, actions: &actions)
        }
        putOrigin(origin, for: record.key)
        finish(&actions)
        return actions
    }

    /// The exchange on a leased connection failed. The connection is closed (rule 6); the request
    /// is sent again on a fresh connection when rule 8 allows, and fails otherwise.
    /// - Parameters:
    ///   - request: the request that was executing.
    ///   - connection: the connection it was executing on.
    ///   - kind: whether any response byte had arrived.
    /// - Returns: the actions to run.
    public mutating func requestFailed(_ request: RequestID, on connection: ConnectionID, kind: FailureKind) -> [Action] {
        guard let record = connections[connection], record.state == .leased(request),
              let requestRecord = requests[request] else {
            preconditionFailure("requestFailed(\(request)) on \(connection), which does not carry it")
        }
        var actions: [Action] = []
        var origin = takeOrigin(record.key)
        close(connection, origin: &origin, actions: &actions)
        let mayRetry = state == .running && kind == .beforeAnyResponseByte && record.isReused
            && requestRecord.isIdempotent && requestRecord.isBodyReplayable && requestRecord.sendCount == 1
        if mayRetry {
            // Rule 8: a connection of its own, ahead of the queue. The closed connection freed
            // the slot, so the limit holds. The waiters were counting on the closed connection
            // too (a leased connection is released to them), so they may need an attempt of their
            // own, room permitting.
            let fresh = makeConnection(for: record.key, reservedFor: request, origin: &origin)
            updateRequest(request) { $0.phase = .awaitingFreshConnection(fresh) }
            actions.append(.createConnection(fresh, record.key))
            openConnectionsForWaiters(of: record.key, origin: &origin, actions: &actions)
        } else {
            requests[request] = nil
            let code: PoolError.Code = kind == .beforeAnyResponseByte ? .connectionClosedBeforeResponse : .responseInterrupted
            actions.append(.failRequest(request, PoolError(code)))
            openConnectionsForWaiters(of: record.key, origin: &origin, actions: &actions)
        }
        putOrigin(origin, for: record.key)
        finish(&actions)
        return actions
    }

    // MARK: - Events: connection attempts

    /// A connection the machine asked for is up. It serves the retried request it was opened for,
    /// or the oldest waiter of its key, or goes idle.
    /// - Parameters:
    ///   - connection: the connection from a `createConnection` action.
    ///   - now: the current instant (starts the idle timeout when nobody needs the connection).
    /// - Returns: the actions to run; none when the machine had already closed the connection.
    public mutating func connectionEstablished(_ connection: ConnectionID, now: Instant) -> [Action] {
        guard let record = connections[connection] else {
            precondition(wasIssued(connection), "\(connection) was never created by this pool")
            return []
        }
        guard case .connecting(let reserved) = record.state else {
            preconditionFailure("connectionEstablished(\(connection)), which is not being established")
        }
        var actions: [Action] = []
        var origin = takeOrigin(record.key)
        if let reserved {
            origin.reservedConnecting -= 1
            lease(connection, to: reserved, actions: &actions)
        } else {
            origin.generalConnecting -= 1
            offer(connection, origin: &origin, now: now, actions: &actions)
        }
        putOrigin(origin, for: record.key)
        finish(&actions)
        return actions
    }

    /// A connection attempt failed (resolution, TCP, TLS, connect timeout). Rule 7 decides who fails.
    /// - Parameters:
    ///   - connection: the connection from a `createConnection` action.
    ///   - underlying: the shell's opaque code for the cause, passed on in ``PoolError/underlying``.
    /// - Returns: the actions to run; none when the machine had already closed the connection.
    public mutating func connectionFailedToConnect(_ connection: ConnectionID, underlying: Int?) -> [Action] {
        guard let record = connections[connection] else {
            precondition(wasIssued(connection), "\(connection) was never created by this pool")
            return []
        }
        guard case .connecting(let reserved) = record.state else {
            preconditionFailure("connectionFailedToConnect(\(connection)), which is not being established")
        }
        var actions: [Action] = []
        let error = PoolError(.connectFailed, underlying: underlying)
        var origin = takeOrigin(record.key)
        connections[connection] = nil
        origin.connectionCount -= 1
        if let reserved {
            origin.reservedConnecting -= 1
            requests[reserved] = nil
            actions.append(.failRequest(reserved, error))
        } else {
            origin.generalConnecting -= 1
        }
        if origin.servableConnectionCount == 0 {
            for waiter in origin.removeAllWaiters() {
                requests[waiter.request] = nil
                actions.append(.failRequest(waiter.request, error))
            }
        }
        putOrigin(origin, for: record.key)
        finish(&actions)
        return actions
    }

    // MARK: - Introspection

    /// Whether shutdown has completed.
    public var isShutDown: Bool { state == .shutDown }

    /// Connections of a key in any state (connecting, idle, leased).
    /// - Parameter key: the pool key.
    /// - Returns: the number of connections.
    public func connectionCount(for key: PoolKey) -> Int { origins[key]?.connectionCount ?? 0 }

    /// Whether `connection` sits idle in its key's stack (not connecting, not leased, not closed).
    /// The shell asks before reporting a close it saw on its own: an idle connection leaves the
    /// pool at once, while a leased one reports through its exchange.
    /// - Parameter connection: the connection.
    /// - Returns: whether it is idle.
    public func isIdle(_ connection: ConnectionID) -> Bool {
        if case .idle? = connections[connection]?.state { return true }
        return false
    }

    /// Idle connections of a key.
    /// - Parameter key: the pool key.
    /// - Returns: the number of idle connections.
    public func idleConnectionCount(for key: PoolKey) -> Int { origins[key]?.idle.count ?? 0 }

    /// Requests waiting in a key's queue (not counting retried requests awaiting their connection).
    /// - Parameter key: the pool key.
    /// - Returns: the queue's length.
    public func waiterCount(for key: PoolKey) -> Int { origins[key]?.waiters.count ?? 0 }

    /// The instant the shell's timer should be armed for, or `nil` when it should be disarmed.
    public var timerDeadline: Instant? { armedTimer }
}
