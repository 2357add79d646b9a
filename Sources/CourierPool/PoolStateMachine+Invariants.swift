// PoolStateMachine, continued: a full consistency check of the machine's own bookkeeping. It is
// O(size of the pool), so events never call it; the unit tests, the model-based test and the fuzz
// driver call it after every step. Each check restates an invariant from the theory of operation.

extension PoolStateMachine {
    /// Checks every internal invariant and describes the ones that do not hold.
    /// - Returns: one line per violation; empty when the machine is consistent.
    func invariantViolations() -> [String] {
        var problems: [String] = []

        struct Tally {
            var total = 0, general = 0, reserved = 0, idle = 0, leased = 0
        }
        var tallies: [PoolKey: Tally] = [:]
        for (connection, record) in connections {
            precondition(wasIssued(connection))
            var tally = tallies[record.key, default: Tally()]
            tally.total += 1
            switch record.state {
            case .connecting(let reserved):
                if let reserved {
                    tally.reserved += 1
                    if requests[reserved]?.phase != .awaitingFreshConnection(connection) {
                        problems.append("\(connection) is reserved for \(reserved), which does not await it")
                    }
                } else {
                    tally.general += 1
                }
            case .idle:
                tally.idle += 1
                if origins[record.key]?.idle.contains(where: { $0.connection == connection }) != true {
                    problems.append("\(connection) is idle but not in the idle stack of \(record.key)")
                }
            case .leased(let request):
                tally.leased += 1
                if requests[request]?.phase != .executing(connection) {
                    problems.append("\(connection) is leased to \(request), which does not execute on it")
                }
            }
            tallies[record.key] = tally
        }

        var waitingPerKey: [PoolKey: Int] = [:]
        for (request, record) in requests {
            let maxSends = record.isIdempotent && record.isBodyReplayable ? 2 : 1
            if record.sendCount > maxSends {
                problems.append("\(request) was sent \(record.sendCount) times (at most \(maxSends) allowed)")
            }
            switch record.phase {
            case .waiting:
                waitingPerKey[record.key, default: 0] += 1
                if origins[record.key]?.waiters.elements.contains(where: { $0.request == request }) != true {
                    problems.append("\(request) is waiting but not queued under \(record.key)")
                }
            case .awaitingFreshConnection(let connection):
                if connections[connection]?.state != .connecting(reservedFor: request) {
                    problems.append("\(request) awaits \(connection), which is not reserved for it")
                }
            case .executing(let connection):
                if connections[connection]?.state != .leased(request) {
                    problems.append("\(request) executes on \(connection), which is not leased to it")
                }
            }
        }

        for (key, origin) in origins {
            let tally = tallies[key] ?? Tally()
            if origin.isUnused { problems.append("\(key) is tracked with nothing to track") }
            if origin.connectionCount != tally.total || origin.generalConnecting != tally.general
                || origin.reservedConnecting != tally.reserved || origin.idle.count != tally.idle {
                problems.append("\(key) counts do not match its connections")
            }
            if origin.connectionCount > limits.maxConnectionsPerOrigin {
                problems.append("\(key) has \(origin.connectionCount) connections, over the limit")
            }
            if !origin.idle.isEmpty && !origin.waiters.isEmpty {
                problems.append("\(key) has idle connections and waiters at once")
            }
            if origin.waiters.count != waitingPerKey[key, default: 0] {
                problems.append("\(key) queue length differs from its waiting requests")
            }
            if origin.waiters.count > limits.maxWaitersPerOrigin {
                problems.append("\(key) has more waiters than allowed")
            }
            if state == .running && !origin.waiters.isEmpty && origin.servableConnectionCount == 0
                && origin.connectionCount < limits.maxConnectionsPerOrigin {
                problems.append("\(key) has waiters and nothing that could serve them")
            }
            var earliest: Instant?
            for deadline in origin.waiters.elements.map(\.deadline) + origin.idle.map(\.deadline)
            where earliest.map({ deadline < $0 }) ?? true {
                earliest = deadline
            }
            if earliest != origin.nextDeadline { problems.append("\(key) caches a stale next deadline") }
        }
        for key in tallies.keys where origins[key] == nil {
            problems.append("\(key) has connections but no state")
        }

        let expectedTimer: Instant? = state == .running ? origins.values.compactMap(\.nextDeadline).min() : nil
        if armedTimer != expectedTimer {
            problems.append("timer armed for \(String(describing: armedTimer)), next deadline is \(String(describing: expectedTimer))")
        }
        if state == .shutDown && !(connections.isEmpty && requests.isEmpty && origins.isEmpty) {
            problems.append("shut down with state left over")
        }
        if state != .running && requests.values.contains(where: { !$0.isExecuting }) {
            problems.append("shutting down with requests still waiting")
        }
        return problems
    }
}

extension PoolStateMachine.RequestRecord {
    var isExecuting: Bool {
        if case .executing = phase { return true }
        return false
    }
}
