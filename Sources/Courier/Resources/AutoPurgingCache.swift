// AutoPurgingCache: AFAutoPurgingImageCache without UIKit — an in-memory cache with a byte budget
// that, when an add takes it over `memoryCapacity`, drops the least recently accessed entries
// until its usage is at or below `preferredMemoryUsageAfterPurge`.
//
// Behaviour kept from AFNetworking (AFAutoPurgingImageCache.m):
// - Defaults: 100 MiB capacity, 60 MiB after a purge.
// - Adding under a key that is present replaces the entry: the old cost is subtracted first.
// - The purge runs only after an add, only when usage > capacity, and removes entries in order of
//   last access (oldest first) until the bytes removed reach `usage - preferredMemoryUsageAfterPurge`.
//   The entry just added is a candidate too (it is the most recent, so it goes last): an entry
//   larger than the purge target evicts everything, itself included.
// - Reading an entry (`value(for:)`) counts as an access; `remove` and `removeAll` report whether
//   anything was removed.
//
// Differences, on purpose:
// - Recency is an intrusive doubly linked list (most recent at the head), not a last-access date:
//   no clock is read, two accesses can never tie, and a purge walks from the tail in O(entries
//   removed) instead of sorting every entry (AFNetworking sorts on every purge).
// - A cost is a closure given at init (or a number given per add), not bytes-per-pixel.
// - There is no memory-warning hook (UIApplicationDidReceiveMemoryWarningNotification has no Linux
//   counterpart); call `removeAll()` from whatever signal your program watches.
//
// Invariants (checked in debug builds by `checkInvariants`): `memoryUsage` equals the sum of the
// live entries' costs; every live slot is in the index exactly once and on the list exactly once;
// free slots are on the free list only.
//
// Thread safety: the whole state sits in one `Mutex` (Synchronization). A synchronous API like
// AFNetworking's (which used a concurrent queue with barrier writes) is more useful for a cache
// than an actor's: a lookup is a few hundred nanoseconds of work, and callers on an event-loop
// thread or in a `deinit` cannot `await`. No closure of the caller's runs under the lock except
// `cost`, which must be cheap and must not call back into the cache.

import CourierBytes
import Synchronization

/// An in-memory cache with a byte budget and least-recently-used purging (AFAutoPurgingImageCache).
public final class AutoPurgingCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// The usage above which an add triggers a purge (AFNetworking default: 100 MiB).
    public let memoryCapacity: UInt64
    /// The usage a purge brings the cache down to, at most (AFNetworking default: 60 MiB).
    public let preferredMemoryUsageAfterPurge: UInt64

    private let cost: @Sendable (Value) -> UInt64
    private let storage: Mutex<Storage>

    /// The AFNetworking default capacity, 100 MiB.
    public static var defaultMemoryCapacity: UInt64 { 100 * 1024 * 1024 }
    /// The AFNetworking default purge target, 60 MiB.
    public static var defaultPreferredMemoryUsageAfterPurge: UInt64 { 60 * 1024 * 1024 }

    /// Creates an empty cache.
    /// - Parameters:
    ///   - memoryCapacity: the usage above which an add purges (default 100 MiB).
    ///   - preferredMemoryUsageAfterPurge: the usage a purge brings the cache down to (default
    ///     60 MiB); must not exceed `memoryCapacity`.
    ///   - cost: the cost of a value in bytes, used by `add(_:for:)`; it runs under the cache's
    ///     lock, so it must be cheap and must not use the cache.
    public init(memoryCapacity: UInt64 = AutoPurgingCache.defaultMemoryCapacity,
                preferredMemoryUsageAfterPurge: UInt64 = AutoPurgingCache.defaultPreferredMemoryUsageAfterPurge,
                cost: @escaping @Sendable (Value) -> UInt64) {
        precondition(preferredMemoryUsageAfterPurge <= memoryCapacity,
                     "preferredMemoryUsageAfterPurge must not exceed memoryCapacity")
        self.memoryCapacity = memoryCapacity
        self.preferredMemoryUsageAfterPurge = preferredMemoryUsageAfterPurge
        self.cost = cost
        self.storage = Mutex(Storage())
    }

    /// The sum of the costs of the entries held now.
    public var memoryUsage: UInt64 { storage.withLock { $0.usage } }

    /// The number of entries held now.
    public var count: Int { storage.withLock { $0.index.count } }

    /// Adds `value` under `key` at the cost the init's `cost` closure gives, replacing an entry
    /// with the same key, then purges if the usage is over `memoryCapacity`.
    /// - Parameters:
    ///   - value: the value.
    ///   - key: its key.
    public func add(_ value: Value, for key: Key) {
        add(value, for: key, cost: cost(value))
    }

    /// Adds `value` under `key` at the given cost, replacing an entry with the same key, then
    /// purges if the usage is over `memoryCapacity`.
    /// - Parameters:
    ///   - value: the value.
    ///   - key: its key.
    ///   - cost: its cost in bytes.
    public func add(_ value: Value, for key: Key, cost: UInt64) {
        storage.withLock { s in
            s.insert(value, for: key, cost: cost)
            if s.usage > memoryCapacity {
                s.purge(downTo: preferredMemoryUsageAfterPurge)
            }
            s.checkInvariants()
        }
    }

    /// The value under `key`, which becomes the most recently accessed entry.
    /// - Parameter key: the key.
    /// - Returns: the value, or nil when the cache holds none for `key`.
    public func value(for key: Key) -> Value? {
        storage.withLock { s in
            guard let slot = s.index[key] else { return nil }
            s.moveToFront(slot)
            return s.slots[slot].value
        }
    }

    /// Whether the cache holds an entry for `key`; unlike `value(for:)`, not an access.
    /// - Parameter key: the key.
    /// - Returns: true when an entry is held.
    public func contains(_ key: Key) -> Bool {
        storage.withLock { $0.index[key] != nil }
    }

    /// Removes the entry under `key`.
    /// - Parameter key: the key.
    /// - Returns: true when an entry was removed (AFNetworking's `removeImageWithIdentifier:`).
    @discardableResult
    public func remove(_ key: Key) -> Bool {
        storage.withLock { s in
            guard let slot = s.index[key] else { return false }
            s.removeSlot(slot)
            s.checkInvariants()
            return true
        }
    }

    /// Removes every entry.
    /// - Returns: true when there was anything to remove (AFNetworking's `removeAllImages`).
    @discardableResult
    public func removeAll() -> Bool {
        storage.withLock { s in
            let hadEntries = !s.index.isEmpty
            s = Storage()
            return hadEntries
        }
    }

    /// The keys from the most to the least recently accessed (for tests and diagnostics).
    public var keysByRecency: [Key] {
        storage.withLock { s in
            var keys: [Key] = []
            keys.reserveCapacity(s.index.count)
            var slot = s.head
            while slot != Storage.none {
                keys.append(s.slots[slot].key!)
                slot = s.slots[slot].next
            }
            return keys
        }
    }
}

extension AutoPurgingCache {
    /// One entry, or a free slot (key and value nil) on the free list.
    fileprivate struct Slot {
        var key: Key?
        var value: Value?
        var cost: UInt64
        /// Towards the most recently accessed end (or the next free slot).
        var previous: Int
        /// Towards the least recently accessed end.
        var next: Int
    }

    /// The cache's state: a slab of slots linked into a recency list, and an index by key.
    fileprivate struct Storage: ~Copyable {
        static var none: Int { -1 }

        var slots: [Slot] = []
        var index: [Key: Int] = [:]
        /// The most recently accessed entry.
        var head = Storage.none
        /// The least recently accessed entry: the first to go in a purge.
        var tail = Storage.none
        /// Free slots, chained through `next`.
        var free = Storage.none
        var usage: UInt64 = 0

        mutating func insert(_ value: Value, for key: Key, cost: UInt64) {
            if let slot = index[key] {
                // AFNetworking subtracts the previous entry's size before adding the new one.
                usage -= slots[slot].cost
                slots[slot].value = value
                slots[slot].cost = cost
                usage += cost
                moveToFront(slot)
                return
            }
            let slot: Int
            if free != Storage.none {
                slot = free
                free = slots[slot].next
                slots[slot] = Slot(key: key, value: value, cost: cost, previous: Storage.none, next: Storage.none)
            } else {
                slot = slots.count
                slots.append(Slot(key: key, value: value, cost: cost, previous: Storage.none, next: Storage.none))
            }
            index[key] = slot
            usage += cost
            linkAtFront(slot)
        }

        /// Removes least recently accessed entries until the bytes removed reach
        /// `usage - target` (AFNetworking's purge loop).
        mutating func purge(downTo target: UInt64) {
            let bytesToPurge = usage - min(usage, target)
            var purged: UInt64 = 0
            while purged < bytesToPurge, tail != Storage.none {
                purged += slots[tail].cost
                removeSlot(tail)
            }
        }

        mutating func removeSlot(_ slot: Int) {
            unlink(slot)
            usage -= slots[slot].cost
            index[slots[slot].key!] = nil
            slots[slot] = Slot(key: nil, value: nil, cost: 0, previous: Storage.none, next: free)
            free = slot
        }

        mutating func moveToFront(_ slot: Int) {
            guard head != slot else { return }
            unlink(slot)
            linkAtFront(slot)
        }

        private mutating func linkAtFront(_ slot: Int) {
            slots[slot].previous = Storage.none
            slots[slot].next = head
            if head != Storage.none { slots[head].previous = slot }
            head = slot
            if tail == Storage.none { tail = slot }
        }

        private mutating func unlink(_ slot: Int) {
            let previous = slots[slot].previous
            let next = slots[slot].next
            if previous != Storage.none { slots[previous].next = next } else { head = next }
            if next != Storage.none { slots[next].previous = previous } else { tail = previous }
            slots[slot].previous = Storage.none
            slots[slot].next = Storage.none
        }

        func checkInvariants() {
            #if DEBUG
            var seen = 0
            var total: UInt64 = 0
            var slot = head
            var previous = Storage.none
            while slot != Storage.none {
                precondition(slots[slot].previous == previous, "recency list: broken back link")
                precondition(index[slots[slot].key!] == slot, "recency list: entry missing from the index")
                total += slots[slot].cost
                seen += 1
                previous = slot
                slot = slots[slot].next
            }
            precondition(previous == tail, "recency list: tail is not the last entry")
            precondition(seen == index.count, "recency list: \(seen) linked, \(index.count) indexed")
            precondition(total == usage, "memory usage \(usage) is not the sum of the costs \(total)")
            #endif
        }
    }
}

extension AutoPurgingCache where Value == ByteBuffer {
    /// Creates an empty cache of byte buffers, each costing its readable bytes.
    /// - Parameters:
    ///   - memoryCapacity: the usage above which an add purges (default 100 MiB).
    ///   - preferredMemoryUsageAfterPurge: the usage a purge brings the cache down to (default 60 MiB).
    public convenience init(memoryCapacity: UInt64 = AutoPurgingCache.defaultMemoryCapacity,
                            preferredMemoryUsageAfterPurge: UInt64 = AutoPurgingCache.defaultPreferredMemoryUsageAfterPurge) {
        self.init(memoryCapacity: memoryCapacity, preferredMemoryUsageAfterPurge: preferredMemoryUsageAfterPurge,
                  cost: { UInt64($0.readableBytes) })
    }
}
