// Per-key bookkeeping of the pool: how many connections the key has in each state, its idle stack
// and its waiter queue. The state machine owns one `OriginState` per key that has a connection or a
// waiter, and drops it when both are gone, so memory follows live work, not history.
//
// Invariants (checked by `PoolStateMachine.invariantViolations()`):
// - `connectionCount` = connecting (general + reserved) + idle + leased connections of the key,
//   and never exceeds the per-key limit.
// - `idle` and `waiters` are never both non-empty: a connection only goes idle when nobody waits,
//   and a request only waits when no connection is idle.
// - `nextDeadline` is the earliest deadline among the waiters and the idle connections.

/// A request waiting for a connection of its key, with the instant at which it gives up.
struct Waiter: Hashable, Sendable {
    var request: RequestID
    var deadline: Instant
}

/// An idle connection with the instant at which the pool closes it.
struct IdleEntry: Hashable, Sendable {
    var connection: ConnectionID
    var deadline: Instant
}

/// A first-in first-out queue of waiters. Removing from the front is O(1) amortised (a moving head
/// index, compacted when half the storage is dead); removing from the middle (cancellation,
/// deadline) is O(n), which is fine at the queue's bounded size.
struct WaiterQueue: Sendable {
    private var storage: [Waiter] = []
    private var head = 0

    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    /// The waiters, oldest first.
    var elements: ArraySlice<Waiter> { storage[head...] }

    mutating func append(_ waiter: Waiter) {
        storage.append(waiter)
    }

    mutating func popFirst() -> Waiter? {
        guard head < storage.count else { return nil }
        let first = storage[head]
        head += 1
        compactIfNeeded()
        return first
    }

    /// Removes the waiter for `request`, if it is queued.
    mutating func remove(_ request: RequestID) -> Waiter? {
        guard let index = storage[head...].firstIndex(where: { $0.request == request }) else { return nil }
        return storage.remove(at: index)
    }

    /// Removes every waiter whose deadline is at or before `now` and returns them, oldest first.
    mutating func removeExpired(now: Instant) -> [Waiter] {
        guard storage[head...].contains(where: { $0.deadline <= now }) else { return [] }
        var expired: [Waiter] = []
        var kept: [Waiter] = []
        kept.reserveCapacity(count)
        for waiter in storage[head...] {
            if waiter.deadline <= now { expired.append(waiter) } else { kept.append(waiter) }
        }
        storage = kept
        head = 0
        return expired
    }

    /// Removes every waiter and returns them, oldest first.
    mutating func removeAll() -> [Waiter] {
        let all = Array(storage[head...])
        storage = []
        head = 0
        return all
    }

    private mutating func compactIfNeeded() {
        if head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 32 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
    }
}

/// Everything the pool tracks for one key.
struct OriginState: Sendable {
    /// Creation order of the key within the machine; sweeps over all keys (timer, shutdown) visit
    /// them in this order so the actions do not depend on `Dictionary`'s per-process hash seed.
    let sequence: UInt64
    /// Connections of the key in any state.
    var connectionCount = 0
    /// Connections being established that will serve whichever waiter is oldest.
    var generalConnecting = 0
    /// Connections being established for one retried request only.
    var reservedConnecting = 0
    /// Idle connections, most recently released last: leasing pops the last (LIFO).
    private(set) var idle: [IdleEntry] = []
    /// Waiting requests, oldest first.
    private(set) var waiters = WaiterQueue()
    /// The earliest deadline among waiters and idle connections.
    private(set) var nextDeadline: Instant?

    init(sequence: UInt64) {
        self.sequence = sequence
    }

    /// Nothing left to track: the state may be dropped.
    var isUnused: Bool { connectionCount == 0 && waiters.isEmpty }

    /// Connections that can still serve a waiter: all but those reserved for a retried request.
    var servableConnectionCount: Int { connectionCount - reservedConnecting }

    // MARK: Idle stack

    mutating func pushIdle(_ entry: IdleEntry) {
        idle.append(entry)
        lower(entry.deadline)
    }

    mutating func popIdle() -> ConnectionID? {
        guard let entry = idle.popLast() else { return nil }
        removed(entry.deadline)
        return entry.connection
    }

    mutating func removeIdle(_ connection: ConnectionID) -> Bool {
        guard let index = idle.firstIndex(where: { $0.connection == connection }) else { return false }
        removed(idle.remove(at: index).deadline)
        return true
    }

    /// Removes the idle connections whose deadline is at or before `now`, oldest first.
    mutating func removeExpiredIdle(now: Instant) -> [ConnectionID] {
        guard idle.contains(where: { $0.deadline <= now }) else { return [] }
        let expired = idle.filter { $0.deadline <= now }.map(\.connection)
        idle.removeAll { $0.deadline <= now }
        refreshDeadline()
        return expired
    }

    mutating func removeAllIdle() -> [ConnectionID] {
        let all = idle.map(\.connection)
        idle.removeAll()
        refreshDeadline()
        return all
    }

    // MARK: Waiters

    mutating func enqueue(_ waiter: Waiter) {
        waiters.append(waiter)
        lower(waiter.deadline)
    }

    mutating func dequeueOldest() -> Waiter? {
        guard let waiter = waiters.popFirst() else { return nil }
        removed(waiter.deadline)
        return waiter
    }

    mutating func removeWaiter(_ request: RequestID) -> Waiter? {
        guard let waiter = waiters.remove(request) else { return nil }
        removed(waiter.deadline)
        return waiter
    }

    mutating func removeExpiredWaiters(now: Instant) -> [Waiter] {
        let expired = waiters.removeExpired(now: now)
        if !expired.isEmpty { refreshDeadline() }
        return expired
    }

    mutating func removeAllWaiters() -> [Waiter] {
        let all = waiters.removeAll()
        refreshDeadline()
        return all
    }

    // MARK: Deadline cache

    private mutating func lower(_ deadline: Instant) {
        if let current = nextDeadline, current <= deadline { return }
        nextDeadline = deadline
    }

    /// Keeps the cache right after removing an entry with `deadline`: only removing the earliest one
    /// can move it, so the O(n) recomputation runs only then.
    private mutating func removed(_ deadline: Instant) {
        if deadline == nextDeadline { refreshDeadline() }
    }

    /// Recomputes the cached earliest deadline: O(waiters + idle) of this key only.
    private mutating func refreshDeadline() {
        var earliest: Instant?
        for waiter in waiters.elements where earliest.map({ waiter.deadline < $0 }) ?? true {
            earliest = waiter.deadline
        }
        for entry in idle where earliest.map({ entry.deadline < $0 }) ?? true {
            earliest = entry.deadline
        }
        nextDeadline = earliest
    }
}
