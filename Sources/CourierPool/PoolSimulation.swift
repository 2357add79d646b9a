// PoolSimulation: a reference model of the pool, seen from the I/O shell, that checks a
// `PoolStateMachine` event by event. It is the oracle shared by the model-based random test
// (choices from a seeded generator) and the fuzz driver (choices from the fuzzer's bytes).
//
// The model is deliberately naive: plain dictionaries of connections and requests, updated from
// the events it sends and the actions it gets back, with no queue structure of its own. From that
// it predicts, for every event, which requests must fail and with which code, which connection a
// request must get (LIFO idle, FIFO waiters, the retry's fresh connection), which connections must
// close, and exactly where the timer must be armed. After every step it also checks the global
// invariants: per-key connections within the limit; a request on at most one connection and a
// connection running at most one request; a non-idempotent request sent at most once and none
// more than twice; at most one terminal outcome per request; no action naming an unknown
// connection; and the machine's own consistency check. After the run, `settle()` drives every
// connection to an end and checks that every request got exactly one terminal outcome.

/// A failed check: what went wrong and the events that led there.
struct PoolSimulationFailure: Error, CustomStringConvertible {
    var message: String
    var recentEvents: [String]

    var description: String {
        "\(message)\nlast events:\n  " + recentEvents.joined(separator: "\n  ")
    }
}

/// One event the simulation sends to the machine.
enum PoolSimulationEvent: CustomStringConvertible {
    case execute(RequestID, key: Int, idempotent: Bool, replayable: Bool, deadline: Instant?)
    case established(ConnectionID)
    case connectFailed(ConnectionID, code: Int?)
    case completed(ConnectionID, keepAlive: Bool)
    case requestFailed(RequestID, ConnectionID, FailureKind)
    case closed(ConnectionID)
    case timer(Instant)
    case cancel(RequestID)
    case advance(UInt64)
    case shutdown

    var description: String {
        switch self {
        case .execute(let r, let k, let i, let b, let d):
            return "execute(\(r), key \(k), idempotent \(i), replayable \(b), deadline \(d.map(\.description) ?? "default"))"
        case .established(let c): return "established(\(c))"
        case .connectFailed(let c, let code): return "connectFailed(\(c), \(code.map(String.init) ?? "nil"))"
        case .completed(let c, let k): return "completed(\(c), keepAlive \(k))"
        case .requestFailed(let r, let c, let kind): return "requestFailed(\(r), \(c), \(kind))"
        case .closed(let c): return "closed(\(c))"
        case .timer(let t): return "timerFired(\(t))"
        case .cancel(let r): return "cancel(\(r))"
        case .advance(let n): return "advance(\(n)ns)"
        case .shutdown: return "shutdown"
        }
    }
}

struct PoolSimulation {
    typealias Action = PoolStateMachine.Action

    struct ModelConnection {
        let key: PoolKey
        var established = false
        var leasedTo: RequestID?
        var reservedFor: RequestID?
        /// Set while idle: when it went idle, and a counter that orders pushes (LIFO).
        var idleSince: Instant?
        var idleOrder: UInt64 = 0
        var reused = false
    }

    enum Outcome: Equatable {
        case completed
        case failed(PoolError.Code)
    }

    struct ModelRequest {
        let key: PoolKey
        let idempotent: Bool
        let replayable: Bool
        let arrival: UInt64
        var sends = 0
        var outcome: Outcome?
        var executingOn: ConnectionID?
        /// Set while the request waits in its key's queue.
        var waitDeadline: Instant?
        /// Set while a retried request awaits its fresh connection.
        var awaiting: ConnectionID?
    }

    /// What one event's actions did, for the event-specific predictions.
    struct Effects {
        var created: [(ConnectionID, PoolKey)] = []
        var executed: [(RequestID, ConnectionID)] = []
        var failed: [RequestID: PoolError] = [:]
        var closed: Set<ConnectionID> = []
        var shutdownCompleted = false
        var count: Int = 0
    }

    let limits: PoolStateMachine.Limits
    let keys: [PoolKey]
    var machine: PoolStateMachine
    var now = Instant(nanoseconds: 1_000)
    var connections: [ConnectionID: ModelConnection] = [:]
    /// Requests without an outcome yet.
    var requests: [RequestID: ModelRequest] = [:]
    /// Requests with their outcome, moved out of `requests` so per-step queries cost in proportion
    /// to live work, not to history.
    var finished: [RequestID: ModelRequest] = [:]
    var forgotten: [ConnectionID] = []
    var timer: Instant?
    var shutdownRequested = false
    var shutdownCompleted = false
    var lastIssued: UInt64 = 0
    var nextRequest: UInt64 = 1
    var idleCounter: UInt64 = 0
    var history: [PoolSimulationEvent] = []

    init(limits: PoolStateMachine.Limits, keyCount: Int) {
        self.limits = limits
        self.keys = (0..<max(1, keyCount)).map { PoolKey(scheme: "http", host: "host\($0).test", port: 80) }
        self.machine = PoolStateMachine(limits: limits)
    }

    // MARK: Queries on the model

    func waiting(_ key: PoolKey) -> [RequestID] {
        requests.filter { $0.value.key == key && $0.value.waitDeadline != nil }
            .sorted { $0.value.arrival < $1.value.arrival }.map(\.key)
    }

    func idle(_ key: PoolKey) -> [ConnectionID] {
        connections.filter { $0.value.key == key && $0.value.idleSince != nil }
            .sorted { $0.value.idleOrder < $1.value.idleOrder }.map(\.key)
    }

    func count(_ key: PoolKey) -> Int { connections.values.filter { $0.key == key }.count }

    func generalConnecting(_ key: PoolKey) -> Int {
        connections.values.filter { $0.key == key && !$0.established && $0.reservedFor == nil }.count
    }

    func fail(_ message: String) -> PoolSimulationFailure {
        PoolSimulationFailure(message: message, recentEvents: history.suffix(40).map(\.description))
    }

    func expect(_ condition: Bool, _ message: @autoclosure () -> String) throws(PoolSimulationFailure) {
        if !condition { throw fail(message()) }
    }

    // MARK: Applying actions

    /// Checks each action against the model and applies it, in order.
    mutating func apply(_ actions: [Action]) throws(PoolSimulationFailure) -> Effects {
        var effects = Effects()
        effects.count = actions.count
        for action in actions {
            if shutdownCompleted, case .failRequest(_, let error) = action {
                try expect(error.code == .poolShutdown, "\(action) after shutdownComplete")
            } else {
                try expect(!shutdownCompleted, "\(action) after shutdownComplete")
            }
            switch action {
            case .createConnection(let c, let key):
                try expect(c.rawValue == lastIssued + 1, "\(c) is not the next identifier")
                try expect(!shutdownRequested, "\(action) while shutting down")
                lastIssued = c.rawValue
                connections[c] = ModelConnection(key: key)
                try expect(count(key) <= limits.maxConnectionsPerOrigin, "\(key) over its connection limit")
                effects.created.append((c, key))
            case .executeRequest(let r, let c):
                guard var request = requests[r] else { throw fail("\(action): request not live") }
                guard var connection = connections[c] else { throw fail("\(action): unknown connection") }
                try expect(request.executingOn == nil, "\(action): \(r) already executing")
                try expect(connection.established && connection.leasedTo == nil, "\(action): connection not free")
                try expect(connection.key == request.key, "\(action): wrong key")
                if let awaited = request.awaiting { try expect(awaited == c, "\(action): \(r) awaits \(awaited)") }
                if let reserved = connection.reservedFor { try expect(reserved == r, "\(action): reserved for \(reserved)") }
                if request.waitDeadline != nil {
                    let older = waiting(request.key).filter { requests[$0]!.arrival < request.arrival }
                    try expect(older.isEmpty, "\(action) served before older waiters \(older) (FIFO)")
                }
                request.sends += 1
                let maxSends = request.idempotent && request.replayable ? 2 : 1
                try expect(request.sends <= maxSends, "\(action): sent \(request.sends) times")
                request.executingOn = c
                request.waitDeadline = nil
                request.awaiting = nil
                connection.leasedTo = r
                connection.reservedFor = nil
                connection.idleSince = nil
                requests[r] = request
                connections[c] = connection
                effects.executed.append((r, c))
            case .failRequest(let r, let error):
                guard var request = requests.removeValue(forKey: r) else { throw fail("\(action): no live request (second outcome?)") }
                try expect(request.executingOn == nil, "\(action) while it executes")
                if let awaited = request.awaiting { connections[awaited]?.reservedFor = nil }
                request.outcome = .failed(error.code)
                request.waitDeadline = nil
                request.awaiting = nil
                finished[r] = request
                effects.failed[r] = error
            case .closeConnection(let c):
                guard let connection = connections[c] else { throw fail("\(action): unknown connection") }
                try expect(connection.leasedTo == nil, "\(action) while it runs \(connection.leasedTo!)")
                connections[c] = nil
                forgotten.append(c)
                effects.closed.insert(c)
            case .scheduleTimer(let t):
                try expect(t != timer, "\(action) repeats the armed instant")
                timer = t
            case .cancelTimer:
                try expect(timer != nil, "cancelTimer with no timer armed")
                timer = nil
            case .shutdownComplete:
                try expect(shutdownRequested, "shutdownComplete without shutdown")
                try expect(connections.isEmpty, "shutdownComplete with connections left")
                shutdownCompleted = true
                effects.shutdownCompleted = true
            }
        }
        // Connections that are established and free after the event are idle since now.
        for (c, connection) in connections where connection.established && connection.leasedTo == nil && connection.idleSince == nil {
            idleCounter += 1
            connections[c]?.idleSince = now
            connections[c]?.idleOrder = idleCounter
            connections[c]?.reused = true
        }
        return effects
    }

    // MARK: Global checks after every step

    func checkGlobalInvariants() throws(PoolSimulationFailure) {
        let problems = machine.invariantViolations()
        try expect(problems.isEmpty, "machine inconsistent: \(problems.joined(separator: "; "))")
        var expectedTimer: Instant?
        for key in keys {
            try expect(count(key) <= limits.maxConnectionsPerOrigin, "\(key) over its limit")
            try expect(count(key) == machine.connectionCount(for: key), "\(key): model and machine disagree on connections")
            let waiters = waiting(key), idlers = idle(key)
            try expect(waiters.count == machine.waiterCount(for: key), "\(key): waiter counts disagree")
            try expect(waiters.isEmpty || idlers.isEmpty, "\(key) has waiters and idle connections")
            if shutdownRequested { try expect(waiters.isEmpty && idlers.isEmpty, "\(key) keeps work while shutting down") }
            for r in waiters {
                let deadline = requests[r]!.waitDeadline!
                if expectedTimer.map({ deadline < $0 }) ?? true { expectedTimer = deadline }
            }
            for c in idlers {
                let deadline = connections[c]!.idleSince!.advanced(by: limits.idleTimeout)
                if expectedTimer.map({ deadline < $0 }) ?? true { expectedTimer = deadline }
            }
        }
        try expect(timer == expectedTimer, "timer armed for \(String(describing: timer)), earliest deadline \(String(describing: expectedTimer))")
        var seen: Set<RequestID> = []
        for (c, connection) in connections {
            if let r = connection.leasedTo {
                try expect(seen.insert(r).inserted, "\(r) leased two connections")
                try expect(requests[r]?.executingOn == c, "\(c) leased to \(r), which is not on it")
            }
        }
    }
}
