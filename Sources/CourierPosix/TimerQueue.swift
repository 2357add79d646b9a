// TimerQueue: the event loop's timers, a binary min-heap of (deadline, id) with lazy
// cancellation. Ids grow monotonically, so timers with equal deadlines fire in the order they
// were scheduled. A cancelled timer's heap entry stays until it reaches the top or until the heap
// is more than half dead, when it is rebuilt; so cancelling is O(1) and a connection that resets
// its idle timer on every read cannot grow the heap without bound.
//
// Loop-thread only: owned by `EventLoop`, not synchronised.

struct TimerQueue {
    private struct Entry {
        var deadline: Instant
        var id: UInt64
        func fires(before other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    private var handlers: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// The number of timers that will still fire.
    var count: Int { handlers.count }

    /// Adds a timer; returns its id.
    mutating func schedule(at deadline: Instant, _ handler: @escaping () -> Void) -> UInt64 {
        let id = nextID
        nextID += 1
        handlers[id] = handler
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return id
    }

    /// Cancels a timer; true when it had not fired or been cancelled yet.
    @discardableResult
    mutating func cancel(_ id: UInt64) -> Bool {
        guard handlers.removeValue(forKey: id) != nil else { return false }
        if heap.count > 64 && heap.count > 2 * handlers.count { rebuild() }
        return true
    }

    /// The earliest live deadline.
    mutating func nextDeadline() -> Instant? {
        dropDeadTop()
        return heap.first?.deadline
    }

    /// Removes and returns the handler of the earliest timer due at `now`, or nil.
    mutating func popDue(at now: Instant) -> (() -> Void)? {
        dropDeadTop()
        guard let top = heap.first, top.deadline <= now else { return nil }
        removeTop()
        return handlers.removeValue(forKey: top.id)
    }

    /// Drops every timer (loop shutdown).
    mutating func removeAll() {
        heap.removeAll()
        handlers.removeAll()
    }

    private mutating func dropDeadTop() {
        while let top = heap.first, handlers[top.id] == nil { removeTop() }
    }

    private mutating func removeTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func rebuild() {
        heap.removeAll { handlers[$0.id] == nil }
        var i = heap.count / 2
        while i > 0 { i -= 1; siftDown(i) }
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].fires(before: heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            guard left < heap.count else { return }
            var smallest = left
            if left + 1 < heap.count && heap[left + 1].fires(before: heap[left]) { smallest = left + 1 }
            guard heap[smallest].fires(before: heap[parent]) else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
