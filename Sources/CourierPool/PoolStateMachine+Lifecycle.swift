// PoolStateMachine, continued: remote closes, time, cancellation and shutdown (rules 5, 9, 10 of
// the theory of operation in PoolStateMachine.swift), and the transitions every event shares:
// leasing, offering a free connection, closing, growing a key, and keeping the timer right.

extension PoolStateMachine {
    // MARK: - Events: remote close, time, cancellation, shutdown

    /// The shell saw a connection close on its own (the server closed it, a reset, a read error).
    /// An idle connection leaves the pool. A leased one takes its request down with it, with
    /// ``PoolError/Code/responseInterrupted``: the shell did not say how far the exchange got, so
    /// the machine assumes the request may have been processed and does not retry it. (A shell
    /// that knows no response byte arrived reports ``requestFailed(_:on:kind:)`` instead.) A
    /// connection still being established counts as a failed attempt.
    /// - Parameter connection: the connection.
    /// - Returns: the actions to run; none when the machine had already forgotten the connection.
    public mutating func connectionClosed(_ connection: ConnectionID) -> [Action] {
        guard let record = connections[connection] else {
            precondition(wasIssued(connection), "\(connection) was never created by this pool")
            return []
        }
        var actions: [Action] = []
        switch record.state {
        case .connecting:
            return connectionFailedToConnect(connection, underlying: nil)
        case .idle:
            var origin = takeOrigin(record.key)
            let wasIdle = origin.removeIdle(connection)
            assert(wasIdle, "\(connection) is idle but not in its key's idle stack")
            forget(connection, origin: &origin)
            putOrigin(origin, for: record.key)
        case .leased(let request):
            var origin = takeOrigin(record.key)
            forget(connection, origin: &origin)
            requests[request] = nil
            actions.append(.failRequest(request, PoolError(.responseInterrupted)))
            openConnectionsForWaiters(of: record.key, origin: &origin, actions: &actions)
            putOrigin(origin, for: record.key)
        }
        finish(&actions)
        return actions
    }

    /// The shell's timer went off (early, late or spuriously: all are harmless). Waiters whose
    /// deadline is at or before `now` fail with ``PoolError/Code/waitDeadlineExceeded``; idle
    /// connections whose idle deadline is at or before `now` are closed. The timer is re-armed for
    /// the next deadline.
    /// - Parameter now: the current instant.
    /// - Returns: the actions to run.
    public mutating func timerFired(now: Instant) -> [Action] {
        // The shell's timer is spent; `finish` arms it again if anything still has a deadline.
        armedTimer = nil
        var actions: [Action] = []
        if state == .running {
            for key in keysInCreationOrder() {
                var origin = takeOrigin(key)
                for waiter in origin.removeExpiredWaiters(now: now) {
                    requests[waiter.request] = nil
                    actions.append(.failRequest(waiter.request, PoolError(.waitDeadlineExceeded)))
                }
                for connection in origin.removeExpiredIdle(now: now) {
                    connections[connection] = nil
                    origin.connectionCount -= 1
                    actions.append(.closeConnection(connection))
                }
                putOrigin(origin, for: key)
            }
        }
        finish(&actions)
        return actions
    }

    /// The caller cancelled a request. A waiting request fails with ``PoolError/Code/cancelled``;
    /// a retried request awaiting its fresh connection too, and that connection then serves the
    /// queue. An executing request is left alone: aborting the exchange is the shell's business,
    /// and it reports the outcome with ``requestFailed(_:on:kind:)`` or ``connectionClosed(_:)``.
    /// An unknown request (already finished) is ignored.
    /// - Parameter request: the request.
    /// - Returns: the actions to run.
    public mutating func cancelRequest(_ request: RequestID) -> [Action] {
        guard let record = requests[request] else { return [] }
        var actions: [Action] = []
        switch record.phase {
        case .executing:
            return []
        case .waiting:
            var origin = takeOrigin(record.key)
            let waiter = origin.removeWaiter(request)
            assert(waiter != nil, "\(request) is waiting but not in its key's queue")
            requests[request] = nil
            actions.append(.failRequest(request, PoolError(.cancelled)))
            putOrigin(origin, for: record.key)
        case .awaitingFreshConnection(let connection):
            var origin = takeOrigin(record.key)
            requests[request] = nil
            actions.append(.failRequest(request, PoolError(.cancelled)))
            // The attempt is already under way; let it serve the queue (or go idle) instead.
            updateConnection(connection) { $0.state = .connecting(reservedFor: nil) }
            origin.reservedConnecting -= 1
            origin.generalConnecting += 1
            putOrigin(origin, for: record.key)
        }
        finish(&actions)
        return actions
    }

    /// Shuts the pool down: every waiting or retried request fails with
    /// ``PoolError/Code/poolShutdown``, idle connections and attempts in flight are closed, and
    /// leased connections are closed when their exchange ends. `shutdownComplete` follows when no
    /// connection remains (at once if none is leased). New requests fail with `poolShutdown`.
    /// Calling it again does nothing.
    /// - Returns: the actions to run.
    public mutating func shutdown() -> [Action] {
        guard state == .running else { return [] }
        state = .shuttingDown
        var actions: [Action] = []
        for key in keysInCreationOrder() {
            var origin = takeOrigin(key)
            for waiter in origin.removeAllWaiters() {
                requests[waiter.request] = nil
                actions.append(.failRequest(waiter.request, PoolError(.poolShutdown)))
            }
            for connection in origin.removeAllIdle() {
                close(connection, origin: &origin, actions: &actions)
            }
            putOrigin(origin, for: key)
        }
        // Attempts in flight, in creation order so the actions are deterministic.
        let connecting = connections.filter {
            if case .connecting = $0.value.state { return true } else { return false }
        }.keys.sorted()
        for connection in connecting {
            guard let record = connections[connection], case .connecting(let reserved) = record.state else { continue }
            var origin = takeOrigin(record.key)
            if let reserved {
                origin.reservedConnecting -= 1
                requests[reserved] = nil
                actions.append(.failRequest(reserved, PoolError(.poolShutdown)))
            } else {
                origin.generalConnecting -= 1
            }
            close(connection, origin: &origin, actions: &actions)
            putOrigin(origin, for: record.key)
        }
        finish(&actions)
        return actions
    }

    // MARK: - Shared transitions

    /// Leases a connection (established, not leased) to a request that is waiting or retried.
    mutating func lease(_ connection: ConnectionID, to request: RequestID, actions: inout [Action]) {
        updateConnection(connection) { $0.state = .leased(request) }
        updateRequest(request) { record in
            record.phase = .executing(connection)
            record.sendCount += 1
        }
        actions.append(.executeRequest(request, on: connection))
    }

    /// A connection is established and free: the oldest waiter of its key gets it (rule 3), else
    /// it goes on top of the idle stack. While shutting down it is closed instead.
    mutating func offer(_ connection: ConnectionID, origin: inout OriginState, now: Instant, actions: inout [Action]) {
        guard state == .running else {
            close(connection, origin: &origin, actions: &actions)
            return
        }
        if let waiter = origin.dequeueOldest() {
            lease(connection, to: waiter.request, actions: &actions)
        } else {
            updateConnection(connection) { record in
                record.state = .idle
                record.isReused = true
            }
            origin.pushIdle(IdleEntry(connection: connection, deadline: now.advanced(by: limits.idleTimeout)))
        }
    }

    /// Forgets a connection and asks the shell to close it. The caller has already taken it out of
    /// the idle stack and the connecting counts, as its state required.
    mutating func close(_ connection: ConnectionID, origin: inout OriginState, actions: inout [Action]) {
        forget(connection, origin: &origin)
        actions.append(.closeConnection(connection))
    }

    /// Forgets a connection without an action (the shell already knows it is gone).
    mutating func forget(_ connection: ConnectionID, origin: inout OriginState) {
        connections[connection] = nil
        origin.connectionCount -= 1
    }

    /// Rule 4: opens connections until every waiter has an attempt in flight or the key is at its
    /// limit. Not called in answer to a failed attempt (rule 7).
    mutating func openConnectionsForWaiters(of key: PoolKey, origin: inout OriginState, actions: inout [Action]) {
        guard state == .running else { return }
        let needed = origin.waiters.count - origin.generalConnecting
        let room = limits.maxConnectionsPerOrigin - origin.connectionCount
        guard needed > 0 && room > 0 else { return }
        for _ in 0..<min(needed, room) {
            let connection = makeConnection(for: key, reservedFor: nil, origin: &origin)
            actions.append(.createConnection(connection, key))
        }
    }

    /// Issues a new connection identifier and records the attempt.
    mutating func makeConnection(for key: PoolKey, reservedFor request: RequestID?, origin: inout OriginState) -> ConnectionID {
        let connection = ConnectionID(nextConnectionNumber)
        nextConnectionNumber += 1
        connections[connection] = ConnectionRecord(key: key, state: .connecting(reservedFor: request), isReused: false)
        origin.connectionCount += 1
        if request == nil { origin.generalConnecting += 1 } else { origin.reservedConnecting += 1 }
        return connection
    }

    /// Ends every event: re-arms or disarms the timer when its instant changed (rule 5), then
    /// reports the end of shutdown once the last connection is gone (rule 10).
    mutating func finish(_ actions: inout [Action]) {
        var next: Instant?
        if state == .running {
            for origin in origins.values {
                if let deadline = origin.nextDeadline, next.map({ deadline < $0 }) ?? true { next = deadline }
            }
        }
        if next != armedTimer {
            armedTimer = next
            actions.append(next.map { .scheduleTimer($0) } ?? .cancelTimer)
        }
        if state == .shuttingDown && connections.isEmpty {
            state = .shutDown
            actions.append(.shutdownComplete)
        }
    }

    // MARK: - Storage helpers

    /// Moves a key's state out of the dictionary (creating it when absent) so it can be mutated
    /// alongside `self` without overlapping accesses; `putOrigin` moves it back.
    mutating func takeOrigin(_ key: PoolKey) -> OriginState {
        if let origin = origins.removeValue(forKey: key) { return origin }
        defer { nextOriginSequence += 1 }
        return OriginState(sequence: nextOriginSequence)
    }

    /// Stores a key's state back, or drops it when it tracks nothing.
    mutating func putOrigin(_ origin: OriginState, for key: PoolKey) {
        if !origin.isUnused { origins[key] = origin }
    }

    /// The keys in the order they were first seen.
    func keysInCreationOrder() -> [PoolKey] {
        origins.sorted { $0.value.sequence < $1.value.sequence }.map(\.key)
    }

    /// Changes a connection's record, if there is one. A read and a write rather than
    /// `connections[id]?.field = value`: that form goes through Dictionary's `_modify` accessors,
    /// whose coroutine frames are heap allocations in a release build (three per assignment,
    /// six of them on every request: docs/benchmarks.md, "Memory").
    mutating func updateConnection(_ connection: ConnectionID, _ change: (inout ConnectionRecord) -> Void) {
        guard var record = connections[connection] else { return }
        change(&record)
        connections[connection] = record
    }

    /// Changes a request's record, if there is one (as `updateConnection`, for the same reason).
    mutating func updateRequest(_ request: RequestID, _ change: (inout RequestRecord) -> Void) {
        guard var record = requests[request] else { return }
        change(&record)
        requests[request] = record
    }

    /// Whether this machine ever issued the identifier.
    func wasIssued(_ connection: ConnectionID) -> Bool {
        connection.rawValue >= 1 && connection.rawValue < nextConnectionNumber
    }
}
