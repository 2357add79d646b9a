// ConnectionPool: the I/O shell around CourierPool's `PoolStateMachine` (AsyncHTTPClient's shape:
// the machine decides under a lock, the shell runs its actions outside it —
// `modifyStateAndRunActions`). Every event goes into the machine under the `Mutex`; the actions it
// returns are turned, still under the lock, into effects on the shell's own tables (a lease parked
// for its request, a connection taken out to be closed), and the effects that reach outside — a
// continuation resumed, a connection opened or closed, the timer — run after the lock is released.
//
// No actor: a transfer running on the event loop leases an idle connection with one lock and no
// suspension (the machine answers `executeRequest` at once), and gives it back the same way.
//
// Invariants:
// - a connection is in `connections` from the moment it is established until the machine asks for
//   it to be closed (or it failed); `discarded` remembers attempts the machine closed while they
//   were still connecting, so a late success is closed instead of being handed out;
// - an `executeRequest` or `failRequest` action for a request nobody waits for yet is parked in
//   `leases` / `failures` until `execute` picks it up (actions may come before the wait starts);
// - each request reaches the machine's terminal outcome exactly once: `requestCompleted` from
//   `execute`, or a `failRequest` action;
// - an idle connection that closes on its own (the server's keep-alive timeout, a reset, stray
//   bytes) is reported by its connection at once and leaves the pool: reuse needs no probe read.
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
import Synchronization

/// A pool of HTTP/1.1 connections per origin, with AFNetworking-style reuse and the retry-once rule
/// for idempotent requests (docs/pool.md). Usable on its own or under a session.
public final class ConnectionPool: Sendable {
    /// Where connections go: scheme (`http` or `https`), host, port.
    public struct Origin: Hashable, Sendable {
        /// `http` or `https`.
        public var scheme: String
        /// The host name or address literal.
        public var host: String
        /// The TCP port.
        public var port: UInt16

        /// The proxy connections to this origin go through (part of the pool key: a connection
        /// through a proxy, or a tunnel, is never used for another route or origin).
        var proxy: ProxyRoute?

        /// Creates an origin.
        public init(scheme: String, host: String, port: UInt16) {
            self.scheme = scheme
            self.host = host
            self.port = port
        }

        var key: PoolKey { PoolKey(scheme: scheme, host: host, port: Int(port), partition: proxy?.partition ?? "") }
    }

    private typealias Lease = (id: ConnectionID, connection: HTTP1Connection)

    private struct State {
        var machine: PoolStateMachine
        var connections: [ConnectionID: HTTP1Connection] = [:]
        var discarded: Set<ConnectionID> = []
        var waiting: [RequestID: UnsafeContinuation<Lease, any Error>] = [:]
        var leases: [RequestID: Lease] = [:]
        var failures: [RequestID: any Error] = [:]
        var nextRequest: UInt64 = 0
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        var isShutDown = false
        /// Why recent connection attempts failed, by the token passed to the machine as
        /// `underlying`, so a request failed for `connectFailed` gets the real ConnectionError (its
        /// curl code: 6, 7, 28, 35, 60, 90 differ). Only the most recent 64 are kept.
        var connectErrors: [Int: ConnectionError] = [:]
        var nextConnectErrorToken = 0
        /// The proxy route of each partitioned key a request named (a session has one proxy
        /// configuration, so this stays as small as the set of origins).
        var routes: [PoolKey: ProxyRoute] = [:]
    }

    /// What an event asks the shell to do once the lock is released.
    private enum Effect {
        case connect(ConnectionID, PoolKey, ProxyRoute?)
        case resume(UnsafeContinuation<Lease, any Error>, Lease)
        case fail(UnsafeContinuation<Lease, any Error>, any Error)
        case close(HTTP1Connection)
        case scheduleTimer(CourierPool.Instant)
        case cancelTimer
        case shutdownComplete([CheckedContinuation<Void, Never>])
    }

    private let state: Mutex<State>
    private let tls: TLSConfiguration
    private let options: HTTP1ConnectionOptions
    /// The loop the pool's connections (and its timer) live on.
    private let loop: EventLoop
    /// The machine's one timer, on the loop's timer queue: a `Task.sleep` per request would
    /// leave a sleeping task and a dispatch timer behind each cancelled one until its deadline.
    private let timer: PoolTimer

    /// Creates a pool.
    /// - Parameters:
    ///   - limits: per-origin limit, idle timeout, wait timeout (docs/pool.md).
    ///   - tls: the TLS configuration for `https` origins.
    ///   - options: timeouts and limits for each connection.
    public init(limits: PoolStateMachine.Limits = PoolStateMachine.Limits(), tls: TLSConfiguration = TLSConfiguration(),
                options: HTTP1ConnectionOptions = HTTP1ConnectionOptions()) {
        LiveObjects.created(.pool)
        state = Mutex(State(machine: PoolStateMachine(limits: limits)))
        self.tls = tls
        self.options = options
        loop = options.eventLoop ?? SharedRuntime.loop
        timer = PoolTimer(loop: loop)
        // Weak: a pending timer must not keep a pool nobody uses alive.
        timer.setHandler { [weak self] in
            self?.modify { _ in } actions: { s, _ in s.machine.timerFired(now: ConnectionPool.now()) }
        }
    }

    deinit { LiveObjects.destroyed(.pool) }

    /// The event loop the pool's connections run on: a transfer that runs there (as its task
    /// executor preference) moves bytes without a thread switch.
    public var eventLoop: EventLoop { loop }

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
        _ exchange: (HTTP1Connection) async throws -> Value
    ) async throws -> Value {
        let key = origin.key
        let isIdempotent = PoolStateMachine.isIdempotent(method: method.rawValue)
        let id = modify { s -> RequestID in
            if let proxy = origin.proxy { s.routes[key] = proxy }
            s.nextRequest += 1
            return RequestID(s.nextRequest)
        } actions: { s, id in
            s.machine.executeRequest(id, to: key, isIdempotent: isIdempotent, isBodyReplayable: isBodyReplayable, now: ConnectionPool.now())
        }
        while true {
            let lease = try await self.lease(id)
            do {
                let value = try await exchange(lease.connection)
                let keepAlive = lease.connection.isReusable
                modify { _ in } actions: { s, _ in s.machine.requestCompleted(on: lease.id, keepAlive: keepAlive, now: ConnectionPool.now()) }
                return value
            } catch {
                let kind: FailureKind = ConnectionPool.failedBeforeAnyResponseByte(error) ? .beforeAnyResponseByte : .afterResponseBytes
                let failed = modify { _ in false } actions: { s, _ in s.machine.requestFailed(id, on: lease.id, kind: kind) }
                    transform: { actions in actions.contains { if case .failRequest(id, _) = $0 { return true } else { return false } } }
                if failed {
                    state.withLock { s in _ = s.failures.removeValue(forKey: id) }
                    throw error
                }
                // Rule 8: the machine opened a connection just for this request; wait for it.
            }
        }
    }

    /// Closes idle connections, fails waiting requests, and returns when every connection is gone.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let first = state.withLock { s -> Bool in
                s.shutdownWaiters.append(continuation)
                if s.isShutDown { return false }
                s.isShutDown = true
                return true
            }
            if first {
                modify { _ in } actions: { s, _ in s.machine.shutdown() }
            } else {
                // Shut down before: the machine's shutdownComplete may already have come.
                let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
                    guard s.machine.isShutDown else { return [] }
                    defer { s.shutdownWaiters.removeAll() }
                    return s.shutdownWaiters
                }
                for waiter in waiters { waiter.resume() }
            }
        }
        timer.cancel()
    }

    /// The number of connections the pool holds for `origin` (connecting, idle and leased).
    public func connectionCount(for origin: Origin) -> Int {
        state.withLock { $0.machine.connectionCount(for: origin.key) }
    }

    // MARK: The shell

    /// Feeds an event to the machine under the lock and runs the effects of its actions after.
    @discardableResult
    private func modify<Result>(_ prepare: (inout State) -> Result,
                                actions event: (inout State, Result) -> [PoolStateMachine.Action],
                                transform: ([PoolStateMachine.Action]) -> Result? = { _ in nil }) -> Result {
        let (result, effects, timerEffect) = state.withLock { s -> (Result, [Effect], Effect?) in
            let prepared = prepare(&s)
            let actions = event(&s, prepared)
            var effects: [Effect] = []
            var timerEffect: Effect?
            apply(actions, to: &s, effects: &effects, timer: &timerEffect)
            return (transform(actions) ?? prepared, effects, timerEffect)
        }
        run(effects)
        if let timerEffect { run(timerEffect) }
        return result
    }

    /// Turns the machine's actions into changes of the shell's tables and effects to run later.
    /// The timer's effect (at most one per event, the machine's last word on it) is kept apart
    /// from the others: on most requests it is the only effect, and an array for it would be an
    /// allocation.
    private func apply(_ actions: [PoolStateMachine.Action], to s: inout State, effects: inout [Effect], timer: inout Effect?) {
        for action in actions {
            switch action {
            case .createConnection(let id, let key):
                effects.append(.connect(id, key, key.partition.isEmpty ? nil : s.routes[key]))
            case .executeRequest(let request, let id):
                guard let connection = s.connections[id] else {
                    preconditionFailure("the pool machine leased \(id), which the shell does not hold")
                }
                if let continuation = s.waiting.removeValue(forKey: request) {
                    effects.append(.resume(continuation, (id, connection)))
                } else {
                    s.leases[request] = (id, connection)
                }
            case .failRequest(let request, let poolError):
                var error: any Error = poolError
                if poolError.code == .connectFailed, let token = poolError.underlying, let cause = s.connectErrors[token] {
                    error = cause
                }
                if let continuation = s.waiting.removeValue(forKey: request) {
                    effects.append(.fail(continuation, error))
                } else {
                    s.failures[request] = error
                }
            case .closeConnection(let id):
                if let connection = s.connections.removeValue(forKey: id) {
                    effects.append(.close(connection))
                } else {
                    s.discarded.insert(id)
                }
            case .scheduleTimer(let deadline):
                timer = .scheduleTimer(deadline)
            case .cancelTimer:
                timer = .cancelTimer
            case .shutdownComplete:
                effects.append(.shutdownComplete(s.shutdownWaiters))
                s.shutdownWaiters.removeAll()
            }
        }
    }

    private func run(_ effects: [Effect]) {
        for effect in effects { run(effect) }
    }

    private func run(_ effect: Effect) {
        switch effect {
        case .connect(let id, let key, let proxy):
            let tls = key.scheme == "https" ? self.tls : nil
            let options = self.options
            // On the loop: the connection's set-up and its first exchange need no hop.
            Task(executorPreference: loop) {
                do {
                    let connection = try await HTTP1Connection.connect(host: key.host, port: UInt16(key.port), tls: tls, options: options,
                                                                       via: proxy)
                    self.established(id, connection)
                } catch {
                    self.failedToConnect(id, error)
                }
            }
        case .resume(let continuation, let lease):
            continuation.resume(returning: lease)
        case .fail(let continuation, let error):
            continuation.resume(throwing: error)
        case .close(let connection):
            connection.closeSoon()
        case .scheduleTimer(let deadline):
            timer.schedule(at: deadline)
        case .cancelTimer:
            timer.disarm()
        case .shutdownComplete(let waiters):
            for waiter in waiters { waiter.resume() }
        }
    }

    private func lease(_ id: RequestID) async throws -> Lease {
        enum Parked { case lease(Lease), failure(any Error), none }
        let parked = state.withLock { s -> Parked in
            if let lease = s.leases.removeValue(forKey: id) { return .lease(lease) }
            if let failure = s.failures.removeValue(forKey: id) { return .failure(failure) }
            return .none
        }
        switch parked {
        case .lease(let lease): return lease
        case .failure(let error): throw error
        case .none: break
        }
        return try await withTaskCancellationHandler {
            try await withUnsafeThrowingContinuation { (continuation: UnsafeContinuation<Lease, any Error>) in
                let parked = state.withLock { s -> Parked in
                    if let lease = s.leases.removeValue(forKey: id) { return .lease(lease) }
                    if let failure = s.failures.removeValue(forKey: id) { return .failure(failure) }
                    s.waiting[id] = continuation
                    return .none
                }
                switch parked {
                case .lease(let lease): continuation.resume(returning: lease)
                case .failure(let error): continuation.resume(throwing: error)
                case .none: break
                }
            }
        } onCancel: {
            modify { s in s.waiting[id] != nil } actions: { s, waiting in waiting ? s.machine.cancelRequest(id) : [] }
        }
    }

    private func established(_ id: ConnectionID, _ connection: HTTP1Connection) {
        let discard = state.withLock { s -> Bool in
            if s.discarded.remove(id) != nil { return true }
            s.connections[id] = connection
            return false
        }
        if discard {
            connection.closeSoon()
            return
        }
        // An idle connection that closes on its own leaves the pool at once.
        connection.whenIdleCloses { [weak self] in self?.idleConnectionClosed(id) }
        modify { _ in } actions: { s, _ in s.machine.connectionEstablished(id, now: ConnectionPool.now()) }
    }

    private func idleConnectionClosed(_ id: ConnectionID) {
        let connection = modify { s -> HTTP1Connection? in
            // A leased connection reports through its exchange (which fails, or finds it closed).
            s.machine.isIdle(id) ? s.connections.removeValue(forKey: id) : nil
        } actions: { s, closed in
            closed == nil ? [] : s.machine.connectionClosed(id)
        }
        connection?.closeSoon()
    }

    private func failedToConnect(_ id: ConnectionID, _ error: any Error) {
        modify { s -> Int? in
            if s.discarded.remove(id) != nil { return nil }
            s.nextConnectErrorToken += 1
            let token = s.nextConnectErrorToken
            s.connectErrors[token] = ConnectionError.from(error)
            s.connectErrors[token - 64] = nil
            return token
        } actions: { s, token in
            guard let token else { return [] }
            return s.machine.connectionFailedToConnect(id, underlying: token)
        }
    }

    static func now() -> CourierPool.Instant {
        CourierPool.Instant(nanoseconds: UInt64(max(0, CourierPosix.Instant.now().nanoseconds)))
    }

    static func failedBeforeAnyResponseByte(_ error: any Error) -> Bool {
        guard let error = error as? ConnectionError else { return false }
        if error.code == .notReusable { return true }
        // A close or a reset (not a timeout, not a cancellation) before the first response byte:
        // the server may never have seen the request (Go's transport retries the same cases).
        guard error.code == .remoteClosed else { return false }
        if let saw = error.sawResponseBytes { return !saw }
        return error.parserError?.code == .emptyResponse
    }
}

/// The pool's one timer, on an event loop's timer queue, armed lazily. The machine moves its
/// deadline on nearly every request (`cancelTimer` when the idle connection is leased,
/// `scheduleTimer(now + idle timeout)` when it comes back), and re-arming a loop timer each time
/// cost a hop to the loop and five allocations per request. So one loop timer stays armed and the
/// timer only records the instant the machine wants: a later instant (the usual case) or none
/// costs a lock and nothing else; when the loop timer fires before the wanted instant it re-arms
/// for it, and when nothing is wanted any more it does nothing. Only an earlier instant re-arms
/// at once. The handler thus runs at the machine's deadline or after it, never before, and at
/// most once per `schedule`. `cancel` (shutdown) removes the loop timer itself.
final class PoolTimer: Sendable {
    private struct State {
        /// The instant the machine wants the handler run at; nil: none.
        var wanted: CourierPool.Instant?
        /// The instant the loop timer is armed for, or an arming on its way to the loop is for.
        var armed: CourierPool.Instant?
        /// Bumped by every arming and by `cancel`: a loop timer or an arming of another
        /// generation is stale and does nothing.
        var generation: UInt64 = 0
        /// The loop timer; read and written on the loop thread only.
        var timer: EventLoop.Timer?
        var handler: (@Sendable () -> Void)?
    }

    private let loop: EventLoop
    private let state = Mutex(State())

    init(loop: EventLoop) { self.loop = loop }

    /// Sets what runs when a wanted instant passes (once, before the first `schedule`).
    func setHandler(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.handler = handler }
    }

    /// Runs the handler on the loop at `deadline` (or just after it), instead of any earlier
    /// wanted instant.
    func schedule(at deadline: CourierPool.Instant) {
        let generation = state.withLock { s -> UInt64? in
            s.wanted = deadline
            // The armed timer comes first: it re-arms for `deadline` when it fires.
            if let armed = s.armed, armed <= deadline { return nil }
            s.armed = deadline
            s.generation &+= 1
            return s.generation
        }
        guard let generation else { return }
        loop.execute { [self] in arm(at: deadline, generation: generation) }
    }

    /// The machine wants no timer: a pending loop timer stays, and does nothing when it fires.
    func disarm() {
        state.withLock { $0.wanted = nil }
    }

    /// Removes the loop timer (shutdown): nothing pending remains on the loop.
    func cancel() {
        state.withLock { s in
            s.wanted = nil
            s.armed = nil
            s.generation &+= 1
        }
        loop.execute { [self] in
            state.withLock { s in
                if let timer = s.timer { loop.cancelTimer(timer) }
                s.timer = nil
            }
        }
    }

    /// On the loop: replaces the loop timer with one for `deadline`, unless a later arming or a
    /// cancel came since (it is queued behind this call and does its own).
    private func arm(at deadline: CourierPool.Instant, generation: UInt64) {
        state.withLock { s in
            guard s.generation == generation else { return }
            if let timer = s.timer { loop.cancelTimer(timer) }
            s.timer = armLoopTimer(at: deadline, generation: generation)
        }
    }

    /// On the loop, under the lock: a loop timer for `deadline` of `generation`.
    private func armLoopTimer(at deadline: CourierPool.Instant, generation: UInt64) -> EventLoop.Timer {
        let instant = CourierPosix.Instant(nanoseconds: Int64(clamping: deadline.nanoseconds))
        // Weak: a pending timer must not keep a pool nobody uses alive.
        return loop.scheduleTimer(at: instant) { [weak self] in self?.fired(generation: generation) }
    }

    /// On the loop: the loop timer of `generation` fired.
    private func fired(generation: UInt64) {
        let handler = state.withLock { s -> (@Sendable () -> Void)? in
            guard s.generation == generation else { return nil }
            s.timer = nil
            guard let wanted = s.wanted else {
                s.armed = nil
                return nil
            }
            if wanted > ConnectionPool.now() {
                // The deadline moved later since this timer was armed: wait for it.
                s.generation &+= 1
                s.armed = wanted
                s.timer = armLoopTimer(at: wanted, generation: s.generation)
                return nil
            }
            s.armed = nil
            s.wanted = nil
            return s.handler
        }
        handler?()
    }
}
