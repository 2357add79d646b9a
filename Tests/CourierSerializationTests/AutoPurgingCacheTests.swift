// AutoPurgingCache: AFAutoPurgingImageCache's rules — costs, replacement, least-recently-accessed
// purging down to the preferred usage, remove/removeAll results — and thread safety.

import Testing
import CourierBytes
@testable import Courier

@Suite("AutoPurgingCache")
struct AutoPurgingCacheTests {
    /// A cache of strings costing their length in bytes.
    func makeCache(capacity: UInt64 = 100, after: UInt64 = 60) -> AutoPurgingCache<String, String> {
        AutoPurgingCache(memoryCapacity: capacity, preferredMemoryUsageAfterPurge: after) { UInt64($0.utf8.count) }
    }

    @Test("defaults are AFNetworking's: 100 MiB capacity, 60 MiB after a purge")
    func defaults() {
        let cache = AutoPurgingCache<String, ByteBuffer>()
        #expect(cache.memoryCapacity == 100 * 1024 * 1024)
        #expect(cache.preferredMemoryUsageAfterPurge == 60 * 1024 * 1024)
        #expect(cache.memoryUsage == 0)
        var buffer = ByteBuffer()
        buffer.writeString("twelve bytes")
        cache.add(buffer, for: "a")
        #expect(cache.memoryUsage == 12, "a ByteBuffer costs its readable bytes")
    }

    @Test("add, value, usage; adding under the same key replaces the entry and its cost")
    func addAndReplace() {
        let cache = makeCache()
        cache.add("aaaaaaaaaa", for: "a")          // 10
        cache.add("bbbbbbbbbbbbbbbbbbbb", for: "b") // 20
        #expect(cache.memoryUsage == 30)
        #expect(cache.value(for: "a") == "aaaaaaaaaa")
        #expect(cache.value(for: "missing") == nil)
        cache.add("aaaaa", for: "a")
        #expect(cache.memoryUsage == 25)
        #expect(cache.value(for: "a") == "aaaaa")
        #expect(cache.count == 2)
        cache.add("x", for: "x", cost: 7)
        #expect(cache.memoryUsage == 32, "an explicit cost overrides the closure")
    }

    @Test("nothing is purged while usage stays at or under the capacity")
    func noPurgeAtCapacity() {
        let cache = makeCache()
        for i in 0..<10 { cache.add(String(repeating: "x", count: 10), for: "k\(i)") }
        #expect(cache.memoryUsage == 100)
        #expect(cache.count == 10)
    }

    @Test("going over capacity purges least recently accessed entries down to the preferred usage")
    func purgeOrder() {
        let cache = makeCache()
        for i in 0..<10 { cache.add(String(repeating: "x", count: 10), for: "k\(i)") }
        // Touch k0 and k1: now k2 is the least recently accessed.
        _ = cache.value(for: "k0")
        _ = cache.value(for: "k1")
        cache.add(String(repeating: "y", count: 10), for: "k10")   // 110 > 100: purge 50 bytes
        #expect(cache.memoryUsage == 60)
        #expect(cache.keysByRecency == ["k10", "k1", "k0", "k9", "k8", "k7"])
        for gone in ["k2", "k3", "k4", "k5", "k6"] { #expect(!cache.contains(gone)) }
    }

    @Test("the purge removes whole entries until the bytes removed reach usage minus the target")
    func purgeOvershoots() {
        let cache = makeCache()
        cache.add(String(repeating: "a", count: 45), for: "a")
        cache.add(String(repeating: "b", count: 45), for: "b")
        cache.add(String(repeating: "c", count: 15), for: "c")   // 105: purge 45 → "a" only
        #expect(cache.keysByRecency == ["c", "b"])
        #expect(cache.memoryUsage == 60)
        cache.add(String(repeating: "d", count: 41), for: "d")   // 101: purge 41 → "b" (45)
        #expect(cache.keysByRecency == ["d", "c"])
        #expect(cache.memoryUsage == 56)
    }

    @Test("an entry larger than the purge target evicts everything, itself included")
    func hugeEntry() {
        let cache = makeCache()
        cache.add("small", for: "s")
        cache.add("huge", for: "h", cost: 500)
        #expect(cache.count == 0)
        #expect(cache.memoryUsage == 0)
    }

    @Test("a replacement counts as an access and can trigger a purge")
    func replacementAccess() {
        let cache = makeCache()
        cache.add(String(repeating: "a", count: 30), for: "a")
        cache.add(String(repeating: "b", count: 30), for: "b")
        cache.add(String(repeating: "c", count: 30), for: "c")
        cache.add(String(repeating: "A", count: 50), for: "a")   // 110: "a" is now most recent
        #expect(cache.keysByRecency == ["a"], "b and c go (60 bytes ≥ the 50 to purge)")
        #expect(cache.memoryUsage == 50)
    }

    @Test("remove and removeAll report whether anything was removed; freed slots are reused")
    func removal() {
        let cache = makeCache()
        #expect(!cache.removeAll())
        cache.add("one", for: "1")
        cache.add("two", for: "2")
        #expect(cache.remove("1"))
        #expect(!cache.remove("1"))
        #expect(cache.memoryUsage == 3)
        cache.add("three", for: "3")
        #expect(cache.keysByRecency == ["3", "2"])
        #expect(cache.removeAll())
        #expect(cache.memoryUsage == 0 && cache.count == 0)
        cache.add("again", for: "1")
        #expect(cache.value(for: "1") == "again")
    }

    @Test("contains is not an access")
    func containsIsNotAccess() {
        let cache = makeCache()
        cache.add(String(repeating: "a", count: 50), for: "a")
        cache.add(String(repeating: "b", count: 50), for: "b")
        #expect(cache.contains("a"))
        cache.add("c", for: "c")   // 101: purge 41 → "a", still the least recently accessed
        #expect(!cache.contains("a"))
        #expect(cache.keysByRecency == ["c", "b"])
    }

    @Test("concurrent adds, reads and removes keep the usage equal to the sum of the entries")
    func concurrent() async {
        let cache = AutoPurgingCache<Int, [UInt8]>(memoryCapacity: 10_000, preferredMemoryUsageAfterPurge: 6_000) {
            UInt64($0.count)
        }
        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    for i in 0..<2_000 {
                        let key = (worker * 7 + i) % 300
                        switch i % 4 {
                        case 0, 1: cache.add([UInt8](repeating: 0, count: 50 + key % 50), for: key)
                        case 2: _ = cache.value(for: key)
                        default: cache.remove(key)
                        }
                    }
                }
            }
        }
        // Debug builds check the list/index/usage invariants after every mutation; here the sum.
        var sum: UInt64 = 0
        for key in cache.keysByRecency { sum += UInt64(cache.value(for: key)!.count) }
        #expect(sum == cache.memoryUsage)
        #expect(cache.memoryUsage <= 10_000)
    }
}
