// ConnectionPool: the I/O shell around CourierPool's `PoolStateMachine` (AsyncHTTPClient's shape:
// the machine decides, the shell runs its actions). The actor owns the machine, the established
// `HTTP1Connection`s by id, and the requests waiting for a lease. Every event goes into the machine
// on the actor and every action it returns is run at once, in order; nothing here decides policy.
//
// Invariants:
// - a connection is in `connections` from the moment it is established until the machine asks for
//   it to be closed (or it failed); `discarded` remembers attempts the machine closed while they
//   were still connecting, so a late success is closed instead of being handed out;
// - an `executeRequest` or `failRequest` action for a request nobody waits for yet is parked in
//   `leases` / `failures` until `execute` picks it up (actions may come before the wait starts);
// - each request reaches the machine's terminal outcome exactly once: `requestCompleted` from
//   `execute`, or a `failRequest` action.
//
// The retry rule (docs/pool.md rule 8) needs to know whether a failed exchange received any byte of
// a response. Without that knowledge the shell says "after response bytes", which never retries:
// only an empty reply (`remoteClosed` with `.emptyResponse`) or a connection found closed before
// anything was sent (`notReusable`) counts as "before any response byte".

import CourierBytes
import CourierHTTP1
import CourierPool
import CourierPosix
import CourierTLS

/// A pool of HTTP/1.1 connections per origin, with AFNetworking-style reuse and the retry-once rule
/// for idempotent requests (docs/pool.md). Usable on its own or under a session.
public actor ConnectionPool {
    /// Where connections go: scheme (`http` or `https`), host, port.
    public struct Origin: Hashable, Sendable {
        /// `http` or `https`.
        public var scheme: String
        /// The host name or address literal.
        public var host: String
        /// The TCP port.
        public var port: UInt16

        /// Creates an origin.
        public init(scheme: String, host: String, port: UInt16) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }

        var key: PoolKey { PoolKey(scheme: scheme, host: host, port: Int(port)) }
    }

    private var machine: PoolStateMachine
    private let tls: TLSConfiguration
    private let options: HTTP1ConnectionOptions
    private var connections: [ConnectionID: HTTP1Connection] = [:]
    private var discarded: Set<ConnectionID> = []
    private var waiting: [RequestID: CheckedContinuation<ConnectionID, any Error>] = [:]
    private var leases: [RequestID: ConnectionID] = [:]
    private var failures: [RequestID: any Error] = [:]
    private var nextRequest: UInt64 = 0
    /// The machine's one timer, on the loop's timer queue: a `Task.sleep` per request would
    /// leave a sleeping task and a dispatch timer behind each cancelled one until its deadline.
    private let timer: PoolTimer
    private var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    private var isShutDown = false
    /// Why recent connection attempts failed, by the token passed to the machine as `underlying`,
    /// so a request failed for `connectFailed` gets the real ConnectionError (its curl code: 6, 7,
    /// 28, 35, 60, 90 differ). Only the most recent 64 are kept.
    private var connectErrors: [Int: ConnectionError] = [:]
    private var nextConnectErrorToken = 0

    /// Creates a pool.
    /// - Parameters:
    ///   - limits: per-origin limit, idle timeout, wait timeout (docs/pool.md).
    ///   - tls: the TLS configuration for `https` origins.
    ///   - options: timeouts and limits for each connection.
    public init(limits: PoolStateMachine.Limits = PoolStateMachine.Limits(), tls: TLSConfiguration = TLSConfiguration(),
                options: HTTP1ConnectionOptions = HTTP1ConnectionOptions()) {
        LiveObjects.created(.pool)
        machine = PoolStateMachine(limits: limits)
        self.tls = tls
        self.options = options
        timer = PoolTimer(loop: options.eventLoop ?? SharedRuntime.loop)
    }

    deinit { LiveObjects.destroyed(.pool) }

    /// Runs one exchange on a pooled connection: `exchange` sends the request and reads the whole
    /// response; afterwards the connection goes back to the pool if it can be reused, else it is
    /// closed. An idempotent request with a replayable body that fails before any response byte on
    /// a reused connection runs once more on a fresh connection; a POST is never sent twice.
    /// - Parameters:
    ///   - origin: where to connect.
    ///   - method: the request's method (decides idempotency).
    ///   - isBodyReplayable: whether `exchange` can send the body again from the start.
    ///   - exchange: sends the request and consumes the response on the leased connection.
    /// - Returns: what `exchange` returned.
    /// - Throws: the exchange's error, or `PoolError` (wait deadline, shutdown, connect failure).
    public func execute<Value: Sendable>(
        origin: Origin, method: HTTPMethod, isBodyReplayable: Bool = true,
        _ exchange: @Sendable (HTTP1Connection) async throws -> Value
    ) async throws -> Value {
        nextRequest += 1
        let id = RequestID(nextRequest)
        run(machine.executeRequest(id, to: origin.key, isIdempotent: PoolStateMachine.isIdempotent(method: method.rawValue),
                                   isBodyReplayable: isBodyReplayable, now: ConnectionPool.now()))
        while true {
            let connectionID = try await lease(id)
            guard let connection = connections[connectionID] else {
                preconditionFailure("the pool machine leased \(connectionID), which the shell does not hold")
            }
            do {
                let value = try await exchange(connection)
                run(machine.requestCompleted(on: connectionID, keepAlive: connection.isReusable, now: ConnectionPool.now()))
                return value
            } catch {
                let kind: FailureKind = ConnectionPool.failedBeforeAnyResponseByte(error) ? .beforeAnyResponseByte : .afterResponseBytes
                let actions = machine.requestFailed(id, on: connectionID, kind: kind)
                let failed = actions.contains { if case .failRequest(id, _) = $0 { return true } else { return false } }
                run(actions)
                if failed {
                    failures[id] = nil
                    throw error
                }
                // Rule 8: the machine opened a connection just for this request; wait for it.
            }
        }
    }

    /// Closes idle connections, fails waiting requests, and returns when every connection is gone.
    public func shutdown() async {
        guard !isShutDown else { return }
        isShutDown = true
        await withCheckedContinuation { continuation in
            shutdownWaiters.append(continuation)
            run(machine.shutdown())
        }
        timer.cancel()
    }

    /// The number of connections the pool holds for `origin` (connecting, idle and leased).
    public func connectionCount(for origin: Origin) -> Int { machine.connectionCount(for: origin.key) }

    // MARK: The shell

    private func lease(_ id: RequestID) async throws -> ConnectionID {
        if let connection = leases.removeValue(forKey: id) { return connection }
        if let failure = failures.removeValue(forKey: id) { throw failure }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                waiting[id] = continuation
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: RequestID) {
        guard waiting[id] != nil else { return }
        run(machine.cancelRequest(id))
    }

    private func run(_ actions: [PoolStateMachine.Action]) {
        for action in actions {
            switch action {
            case .createConnection(let id, let key):
                let tls = key.scheme == "https" ? self.tls : nil
                let options = self.options
                Task {
                    do {
                        let connection = try await HTTP1Connection.connect(host: key.host, port: UInt16(key.port), tls: tls, options: options)
                        await self.established(id, connection)
                    } catch {
                        self.failedToConnect(id, error)
                    }
                }
            case .executeRequest(let request, let connection):
                if let continuation = waiting.removeValue(forKey: request) {
                    continuation.resume(returning: connection)
                } else {
                    leases[request] = connection
                }
            case .failRequest(let request, let poolError):
                var error: any Error = poolError
                if poolError.code == .connectFailed, let token = poolError.underlying, let cause = connectErrors[token] {
                    error = cause
                }
                if let continuation = waiting.removeValue(forKey: request) {
                    continuation.resume(throwing: error)
                } else {
                    failures[request] = error
                }
            case .closeConnection(let id):
                if let connection = connections.removeValue(forKey: id) {
                    Task { await connection.close() }
                } else {
                    discarded.insert(id)
                }
            case .scheduleTimer(let deadline):
                let delay = deadline.nanoseconds &- min(deadline.nanoseconds, ConnectionPool.now().nanoseconds)
                // Weak: a pending timer must not keep a pool nobody uses alive.
                timer.schedule(after: .nanoseconds(Int64(min(delay, UInt64(Int64.max))))) { [weak self] in
                    guard let self else { return }
                    Task { await self.timerFired() }
                }
            case .cancelTimer:
                timer.cancel()
            case .shutdownComplete:
                for waiter in shutdownWaiters { waiter.resume() }
                shutdownWaiters.removeAll()
            }
        }
    }

    private func established(_ id: ConnectionID, _ connection: HTTP1Connection) async {
        if discarded.remove(id) != nil {
            await connection.close()
            return
        }
        connections[id] = connection
        run(machine.connectionEstablished(id, now: ConnectionPool.now()))
    }

    private func failedToConnect(_ id: ConnectionID, _ error: any Error) {
        if discarded.remove(id) != nil { return }
        nextConnectErrorToken += 1
        let token = nextConnectErrorToken
        connectErrors[token] = ConnectionError.from(error)
        connectErrors[token - 64] = nil
        run(machine.connectionFailedToConnect(id, underlying: token))
    }

    private func timerFired() {
        run(machine.timerFired(now: ConnectionPool.now()))
    }

    static func now() -> CourierPool.Instant {
        CourierPool.Instant(nanoseconds: UInt64(max(0, CourierPosix.Instant.now().nanoseconds)))
    }

    static func failedBeforeAnyResponseByte(_ error: any Error) -> Bool {
        guard let error = error as? ConnectionError else { return false }
        if error.code == .notReusable { return true }
        return error.code == .remoteClosed && error.parserError?.code == .emptyResponse
    }
}

/// The pool's one pending timer, kept on an event loop's timer queue. Scheduling replaces the
/// pending timer; both calls hop to the loop (timers are loop-confined).
final class PoolTimer: @unchecked Sendable {
    // @unchecked: `pending` is touched only on the loop thread (inside
    // `loop.execute`), which serialises every access.
    private let loop: EventLoop
    private var pending: EventLoop.Timer?

    init(loop: EventLoop) { self.loop = loop }

    /// Replaces the pending timer with one that runs `handler` on the loop after `delay`.
    func schedule(after delay: Duration, _ handler: @escaping @Sendable () -> Void) {
        loop.execute { [self] in
            if let pending { loop.cancelTimer(pending) }
            pending = loop.scheduleTimer(after: delay) { [weak self] in
                self?.pending = nil
                handler()
            }
        }
    }

    /// Cancels the pending timer, if any.
    func cancel() {
        loop.execute { [self] in
            if let pending { loop.cancelTimer(pending) }
            pending = nil
        }
    }
}
