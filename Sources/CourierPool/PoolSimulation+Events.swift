// PoolSimulation, continued: sending one event to the machine and checking the machine's answer
// against the model's prediction for that event (the rules of the theory of operation, restated
// naively), then choosing events from a source of choices and settling a run.

/// Where a simulation's choices come from: a seeded generator in tests, the fuzzer's bytes in the
/// fuzz driver.
protocol PoolChoiceSource {
    /// A number in `0..<bound` (`bound >= 1`), or `nil` when the source is exhausted.
    mutating func next(below bound: Int) -> Int?
}

extension PoolSimulation {
    // MARK: Performing one event

    mutating func perform(_ event: PoolSimulationEvent) throws(PoolSimulationFailure) {
        history.append(event)
        switch event {
        case .execute(let r, let keyIndex, let idempotent, let replayable, let deadline):
            let key = keys[keyIndex]
            let idlers = idle(key)
            let queued = waiting(key).count
            let effective = deadline ?? now.advanced(by: limits.waitTimeout)
            requests[r] = ModelRequest(key: key, idempotent: idempotent, replayable: replayable, arrival: r.rawValue)
            let effects = try apply(machine.executeRequest(r, to: key, isIdempotent: idempotent,
                                                           isBodyReplayable: replayable, deadline: deadline, now: now))
            if shutdownRequested {
                try expect(effects.failed[r]?.code == .poolShutdown && effects.count == 1, "\(event) after shutdown must fail alone")
            } else if let top = idlers.last {
                try expect(effects.executed.count == 1 && effects.executed[0] == (r, top), "\(event) must take the most recent idle \(top)")
            } else if queued >= limits.maxWaitersPerOrigin {
                try expect(effects.failed[r]?.code == .tooManyWaiters, "\(event) must fail: queue full")
            } else if effective <= now {
                try expect(effects.failed[r]?.code == .waitDeadlineExceeded, "\(event) must fail: deadline passed")
            } else {
                try expect(effects.failed.isEmpty && effects.executed.isEmpty, "\(event) must wait")
                requests[r]?.waitDeadline = effective
                try checkGrowth(key)
            }
            if effects.failed[r] != nil || shutdownRequested { try expect(effects.created.isEmpty, "\(event) opened a connection for nothing") }

        case .established(let c):
            guard var connection = connections[c] else {
                try expect(try apply(machine.connectionEstablished(c, now: now)).count == 0, "stale \(event) must do nothing")
                break
            }
            connection.established = true
            connections[c] = connection
            let oldest = waiting(connection.key).first
            let effects = try apply(machine.connectionEstablished(c, now: now))
            if let reserved = connection.reservedFor {
                try expect(effects.executed.count == 1 && effects.executed[0] == (reserved, c), "\(event) must run the retried \(reserved)")
            } else if let oldest {
                try expect(effects.executed.count == 1 && effects.executed[0] == (oldest, c), "\(event) must serve the oldest waiter \(oldest)")
            } else {
                try expect(effects.executed.isEmpty && effects.closed.isEmpty, "\(event) must go idle")
            }
            try expect(effects.failed.isEmpty && effects.created.isEmpty, "\(event) must not fail or open anything")

        case .connectFailed(let c, let code):
            try connectionAttemptFailed(c, code: code, event: event) { machine in
                machine.connectionFailedToConnect(c, underlying: code)
            }

        case .completed(let c, let keepAlive):
            guard let connection = connections[c], let r = connection.leasedTo else { throw fail("\(event) on a free connection") }
            if var done = requests.removeValue(forKey: r) {
                done.outcome = .completed
                done.executingOn = nil
                finished[r] = done
            }
            connections[c]?.leasedTo = nil
            if keepAlive { connections[c]?.reused = true }
            let oldest = waiting(connection.key).first
            let effects = try apply(machine.requestCompleted(on: c, keepAlive: keepAlive, now: now))
            try expect(effects.failed.isEmpty, "\(event) must not fail requests")
            if !keepAlive || shutdownRequested {
                try expect(effects.closed == [c] && effects.executed.isEmpty, "\(event) must close \(c)")
                try checkGrowth(connection.key)
            } else if let oldest {
                try expect(effects.executed.count == 1 && effects.executed[0] == (oldest, c), "\(event) must serve \(oldest)")
            } else {
                try expect(effects.closed.isEmpty && effects.executed.isEmpty && effects.created.isEmpty, "\(event) must go idle")
            }

        case .requestFailed(let r, let c, let kind):
            guard let connection = connections[c], connection.leasedTo == r, let request = requests[r] else {
                throw fail("\(event) on a connection not running it")
            }
            connections[c]?.leasedTo = nil
            requests[r]?.executingOn = nil
            let retry = !shutdownRequested && kind == .beforeAnyResponseByte && connection.reused
                && request.idempotent && request.replayable && request.sends == 1
            let effects = try apply(machine.requestFailed(r, on: c, kind: kind))
            try expect(effects.closed == [c], "\(event) must close \(c)")
            if retry {
                try expect(effects.failed.isEmpty && !effects.created.isEmpty && effects.created.allSatisfy { $0.1 == request.key },
                           "\(event) must retry on a fresh connection")
                // The first attempt is the retry's own; any others are for the waiters (rule 4).
                let fresh = effects.created[0].0
                connections[fresh]?.reservedFor = r
                requests[r]?.awaiting = fresh
                try checkGrowth(request.key)
            } else {
                let code: PoolError.Code = kind == .beforeAnyResponseByte ? .connectionClosedBeforeResponse : .responseInterrupted
                try expect(effects.failed.count == 1 && effects.failed[r]?.code == code, "\(event) must fail \(r) with \(code)")
                try checkGrowth(request.key)
            }

        case .closed(let c):
            guard let connection = connections[c] else {
                try expect(try apply(machine.connectionClosed(c)).count == 0, "stale \(event) must do nothing")
                break
            }
            if !connection.established {
                try connectionAttemptFailed(c, code: nil, event: event) { machine in machine.connectionClosed(c) }
            } else if let r = connection.leasedTo {
                connections[c] = nil
                forgotten.append(c)
                requests[r]?.executingOn = nil
                let effects = try apply(machine.connectionClosed(c))
                try expect(effects.failed.count == 1 && effects.failed[r]?.code == .responseInterrupted && effects.closed.isEmpty,
                           "\(event) must fail \(r) with responseInterrupted")
                try checkGrowth(connection.key)
            } else {
                connections[c] = nil
                forgotten.append(c)
                let effects = try apply(machine.connectionClosed(c))
                try expect(effects.failed.isEmpty && effects.closed.isEmpty && effects.executed.isEmpty && effects.created.isEmpty,
                           "\(event) of an idle connection must only forget it")
            }

        case .timer(let at):
            if at > now { now = at }
            timer = nil
            let expiredWaiters = Set(requests.filter { $0.value.waitDeadline.map { $0 <= now } ?? false }.keys)
            let expiredIdle = Set(connections.filter {
                $0.value.idleSince.map { $0.advanced(by: limits.idleTimeout) <= now } ?? false
            }.keys)
            let effects = try apply(machine.timerFired(now: now))
            try expect(Set(effects.failed.keys) == expiredWaiters && effects.failed.values.allSatisfy { $0.code == .waitDeadlineExceeded },
                       "\(event) must fail exactly the expired waiters \(expiredWaiters.sorted())")
            try expect(effects.closed == expiredIdle, "\(event) must close exactly the expired idle \(expiredIdle.sorted())")
            try expect(effects.executed.isEmpty && effects.created.isEmpty, "\(event) must not start anything")

        case .cancel(let r):
            let request = requests[r]
            let effects = try apply(machine.cancelRequest(r))
            if let request, request.executingOn == nil {
                try expect(effects.failed.count == 1 && effects.failed[r]?.code == .cancelled, "\(event) must fail \(r) with cancelled")
            } else {
                try expect(effects.failed.isEmpty && effects.closed.isEmpty, "\(event) must leave \(r) alone")
            }
            try expect(effects.executed.isEmpty && effects.created.isEmpty, "\(event) must not start anything")

        case .advance(let nanoseconds):
            now = Instant(nanoseconds: now.nanoseconds &+ nanoseconds)

        case .shutdown:
            let wasRequested = shutdownRequested
            shutdownRequested = true
            let pending = Set(requests.filter { $0.value.executingOn == nil }.keys)
            let closable = Set(connections.filter { $0.value.leasedTo == nil }.keys)
            let anyLeased = connections.values.contains { $0.leasedTo != nil }
            let effects = try apply(machine.shutdown())
            if wasRequested {
                try expect(effects.count == 0, "a second shutdown must do nothing")
            } else {
                try expect(Set(effects.failed.keys) == pending && effects.failed.values.allSatisfy { $0.code == .poolShutdown },
                           "shutdown must fail exactly the pending requests")
                try expect(effects.closed == closable, "shutdown must close exactly the free connections")
                try expect(effects.shutdownCompleted == !anyLeased, "shutdownComplete iff nothing is leased")
            }
        }
        try checkGlobalInvariants()
    }

    /// Rule 7, for a failed attempt reported as a failure or as a close.
    private mutating func connectionAttemptFailed(
        _ c: ConnectionID, code: Int?, event: PoolSimulationEvent,
        _ send: (inout PoolStateMachine) -> [Action]
    ) throws(PoolSimulationFailure) {
        guard let connection = connections[c] else {
            try expect(try apply(send(&machine)).count == 0, "stale \(event) must do nothing")
            return
        }
        try expect(!connection.established, "\(event) on an established connection")
        connections[c] = nil
        forgotten.append(c)
        var expected = Set<RequestID>()
        if let reserved = connection.reservedFor { expected.insert(reserved) }
        let servable = connections.values.filter { $0.key == connection.key && $0.reservedFor == nil }.count
        if servable == 0 { expected.formUnion(waiting(connection.key)) }
        let effects = try apply(send(&machine))
        try expect(Set(effects.failed.keys) == expected, "\(event) must fail exactly \(expected.sorted())")
        try expect(effects.failed.values.allSatisfy { $0 == PoolError(.connectFailed, underlying: code) }, "\(event): wrong error")
        try expect(effects.created.isEmpty && effects.executed.isEmpty && effects.closed.isEmpty, "\(event) must not dial again")
    }

    /// Rule 4 after an event that may grow the key: every waiter has an attempt or the key is full.
    private func checkGrowth(_ key: PoolKey) throws(PoolSimulationFailure) {
        guard !shutdownRequested else { return }
        try expect(waiting(key).count <= generalConnecting(key) || count(key) == limits.maxConnectionsPerOrigin,
                   "\(key) has \(waiting(key).count) waiters, \(generalConnecting(key)) attempts and room for more")
    }

    // MARK: Choosing events

    /// Chooses the next event from the source; `nil` when the source is exhausted.
    mutating func nextEvent(from source: inout some PoolChoiceSource) -> PoolSimulationEvent? {
        func pick<T>(_ items: [T], _ source: inout some PoolChoiceSource) -> T? {
            guard !items.isEmpty, let i = source.next(below: items.count) else { return nil }
            return items[i]
        }
        let connecting = connections.filter { !$0.value.established }.keys.sorted()
        let leased = connections.filter { $0.value.leasedTo != nil }.keys.sorted()
        let established = connections.filter { $0.value.established }.keys.sorted()
        for _ in 0..<8 {
            guard let op = source.next(below: 16) else { return nil }
            switch op {
            case 0, 1, 2:
                guard let k = source.next(below: keys.count), let flags = source.next(below: 8),
                      let d = source.next(below: 8) else { return nil }
                let r = RequestID(nextRequest)
                nextRequest += 1
                let deadline: Instant? = d < 4 ? nil : (d == 4 ? now : now.advanced(by: .nanoseconds(d * 40)))
                return .execute(r, key: k, idempotent: flags & 1 != 0, replayable: flags & 2 != 0 || flags == 4, deadline: deadline)
            case 3, 4:
                if let c = pick(connecting, &source) { return .established(c) }
            case 5:
                if let c = pick(connecting, &source), let code = source.next(below: 3) { return .connectFailed(c, code: code == 0 ? nil : 100 + code) }
            case 6, 7:
                if let c = pick(leased, &source), let k = source.next(below: 4) { return .completed(c, keepAlive: k != 0) }
            case 8:
                if let c = pick(leased, &source), let r = connections[c]?.leasedTo, let k = source.next(below: 3) {
                    return .requestFailed(r, c, k == 0 ? .afterResponseBytes : .beforeAnyResponseByte)
                }
            case 9:
                if let c = pick(established, &source) { return .closed(c) }
            case 10:
                if let c = pick(forgotten, &source), let which = source.next(below: 3) {
                    return which == 0 ? .established(c) : which == 1 ? .connectFailed(c, code: 1) : .closed(c)
                }
            case 11:
                if let timer { return .timer(timer) }
                if let step = source.next(below: 64) { return .timer(now.advanced(by: .nanoseconds(step))) }
            case 12:
                if nextRequest > 1, let i = source.next(below: Int(min(nextRequest - 1, 1 << 20))) {
                    return .cancel(RequestID(nextRequest - 1 - UInt64(i)))
                }
            case 13, 14:
                if let step = source.next(below: 64) { return .advance(UInt64(step)) }
            default:
                if let roll = source.next(below: 8), roll == 0 { return .shutdown }
            }
        }
        return .advance(1)
    }

    // MARK: Settling

    /// Drives every connection to an end: attempts succeed, exchanges complete, then the pool shuts
    /// down. Afterwards every request must have exactly one outcome and the machine be shut down.
    mutating func settle() throws(PoolSimulationFailure) {
        var steps = 0
        while true {
            steps += 1
            try expect(steps < 100_000, "settling does not terminate")
            if let c = connections.filter({ !$0.value.established }).keys.min() {
                try perform(.established(c))
            } else if let c = connections.filter({ $0.value.leasedTo != nil }).keys.min() {
                try perform(.completed(c, keepAlive: true))
            } else {
                break
            }
        }
        try expect(requests.isEmpty, "\(requests.keys.sorted()) have no outcome after settling")
        try expect(finished.count == Int(nextRequest - 1), "some requests were never seen to end")
        if !shutdownRequested { try perform(.shutdown) }
        try expect(shutdownCompleted && machine.isShutDown, "shutdown did not complete after settling")
    }

    /// Runs events from `source` until it is exhausted or `maxSteps` events ran, then settles.
    mutating func run(source: inout some PoolChoiceSource, maxSteps: Int) throws(PoolSimulationFailure) {
        var steps = 0
        while steps < maxSteps, let event = nextEvent(from: &source) {
            try perform(event)
            steps += 1
        }
        try settle()
    }
}
