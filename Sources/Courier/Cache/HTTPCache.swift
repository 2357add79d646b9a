// HTTPCache: the private HTTP cache's I/O shell (issue 13 §1, docs/cache.md). The rules — what is
// stored, what is fresh, which variant matches, how a 304 updates a head — are CourierCache's pure
// functions; this file keeps the bytes: a memory tier and an optional disk tier, each bounded in
// bytes by a least-recently-used `CacheIndex`.
//
// Keys: an entry is found by its key — the request URI (without fragment) and, by default, a
// SHA-256 digest of the request's Authorization and Cookie fields as sent, so one user's cached
// answer is never served to another (the cross-user leak of URL-only keys). Invalidation works by
// URI alone and removes every credential's variants.
//
// Threads: the index and the memory tier live under one lock, held for bookkeeping only. Every
// disk operation (reading a head, streaming a body in or out, rename, unlink, the index file) runs
// on `BlockingIOThread.shared` — the thread downloads write files on — never on the cooperative
// pool or the event loop.

import CourierBytes
import CourierCache
import CourierHTTP1
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// A private HTTP cache (RFC 9111) for a `Session`: memory and disk tiers bounded in bytes.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.cache = try HTTPCache(directory: "/var/cache/myapp/http")  // 4 MiB memory, 20 MiB disk
/// ```
public final class HTTPCache: Sendable {
    /// The default memory capacity: 4 MiB (AFNetworking's NSURLCache default).
    public static let defaultMemoryCapacity: UInt64 = 4 << 20
    /// The default disk capacity: 20 MiB (AFNetworking's NSURLCache default).
    public static let defaultDiskCapacity: UInt64 = 20 << 20

    /// The memory tier's byte limit.
    public let memoryCapacity: UInt64
    /// The disk tier's byte limit (0 without a directory).
    public let diskCapacity: UInt64
    /// The disk tier's directory; nil: memory only.
    public let directory: String?
    /// Whether keys include a digest of Authorization and Cookie (default true).
    public let keysCredentials: Bool
    /// Seconds since the epoch, for freshness and age (tests inject their own).
    let clock: @Sendable () -> Int64

    struct MemoryEntry: Sendable {
        var head: CachedResponseHead
        var body: ByteBuffer
    }

    struct State: Sendable {
        var memory: CacheIndex
        var memoryEntries: [String: MemoryEntry] = [:]
        var disk: CacheIndex?
        var diskLoaded = false
    }
    let state: Mutex<State>

    /// Creates a cache.
    /// - Parameters:
    ///   - memoryCapacity: the memory tier's limit in bytes (default 4 MiB).
    ///   - diskCapacity: the disk tier's limit in bytes (default 20 MiB); used only with a directory.
    ///   - directory: where the disk tier keeps its files (created when missing); nil for memory only.
    ///   - keysCredentials: whether entries are keyed by Authorization and Cookie too (default true;
    ///     false shares entries between users — only for a client that is one user).
    public convenience init(memoryCapacity: UInt64 = HTTPCache.defaultMemoryCapacity,
                            diskCapacity: UInt64 = HTTPCache.defaultDiskCapacity,
                            directory: String? = nil, keysCredentials: Bool = true) {
        self.init(memoryCapacity: memoryCapacity, diskCapacity: diskCapacity, directory: directory,
                  keysCredentials: keysCredentials, clock: { WallClock.secondsSinceEpoch() })
    }

    /// A cache with its own clock (tests).
    package init(memoryCapacity: UInt64, diskCapacity: UInt64, directory: String?, keysCredentials: Bool,
                 clock: @escaping @Sendable () -> Int64) {
        self.memoryCapacity = memoryCapacity
        self.diskCapacity = directory == nil ? 0 : diskCapacity
        self.directory = directory
        self.keysCredentials = keysCredentials
        self.clock = clock
        state = Mutex(State(memory: CacheIndex(limit: memoryCapacity), disk: directory == nil ? nil : CacheIndex(limit: diskCapacity)))
    }

    /// Bytes the memory tier holds now.
    public var currentMemoryUsage: UInt64 { state.withLock { $0.memory.totalBytes } }

    /// Bytes the disk tier holds now (after its index was read).
    public var currentDiskUsage: UInt64 { state.withLock { $0.disk?.totalBytes ?? 0 } }

    /// Removes every entry of both tiers.
    public func removeAll() async {
        await loadDiskIfNeeded()
        let ids = state.withLock { s -> [String] in
            s.memory = CacheIndex(limit: memoryCapacity)
            s.memoryEntries.removeAll()
            let ids = s.disk?.entries.map(\.id) ?? []
            if s.disk != nil { s.disk = CacheIndex(limit: diskCapacity) }
            return ids
        }
        await removeDiskFiles(ids)
    }

    // MARK: Keys

    /// The cache key of a request as it will be sent.
    struct Key: Sendable, Hashable {
        /// Hex SHA-256 of the URI (invalidation).
        var uri: String
        /// Hex SHA-256 of the URI and the credential digest (lookup).
        var lookup: String
        /// Whether the URI has a query (no heuristic freshness).
        var hasQuery: Bool
    }

    func key(for uri: URI, headers: HTTPHeaders) -> Key {
        var text = uri.description
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        let uriHash = Self.hex(MessageDigest.sha256.hash(Array(text.utf8)))
        var material = Array(uriHash.utf8)
        if keysCredentials {
            for name in ["Authorization", "Cookie"] {
                material.append(0)
                material += Array((CacheRules.normalizedValue(name, in: headers) ?? "").utf8)
            }
        }
        return Key(uri: uriHash, lookup: Self.hex(MessageDigest.sha256.hash(material)), hasQuery: uri.query != nil)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 15)]) }
        return String(decoding: out, as: UTF8.self)
    }

    static func newIdentifier() -> String {
        var random = KernelRandom()
        return hex((0..<16).map { _ in UInt8.random(in: 0...255, using: &random) })
    }

    // MARK: Lookup

    /// A stored variant found for a request.
    struct Variant: Sendable {
        var id: String
        var head: CachedResponseHead
        /// The body when the memory tier holds it.
        var body: ByteBuffer?
    }

    /// The variants stored under a key (memory first, then disk heads read on the file thread);
    /// an unreadable disk head is removed (a miss, never served).
    func variants(for key: Key) async -> [Variant] {
        await loadDiskIfNeeded()
        let (inMemory, onDisk) = state.withLock { s -> ([Variant], [String]) in
            let memory = s.memory.entries(forKey: key.lookup).compactMap { e in
                s.memoryEntries[e.id].map { Variant(id: e.id, head: $0.head, body: $0.body) }
            }
            let known = Set(memory.map(\.id))
            let disk = (s.disk?.entries(forKey: key.lookup) ?? []).map(\.id).filter { !known.contains($0) }
            return (memory, disk)
        }
        var result = inMemory
        for id in onDisk {
            if let head = await readDiskHead(id) {
                result.append(Variant(id: id, head: head, body: nil))
            } else {
                await removeEntry(id)
            }
        }
        return result
    }

    /// Marks an entry as used (LRU).
    func touch(_ id: String) {
        let changed = state.withLock { s -> Bool in
            s.memory.touch(id)
            return s.disk?.touch(id) ?? false
        }
        if changed { scheduleIndexWrite() }
    }

    /// Removes one entry from both tiers.
    func removeEntry(_ id: String) async {
        let onDisk = state.withLock { s -> Bool in
            s.memory.remove(id)
            s.memoryEntries[id] = nil
            return s.disk?.remove(id) != nil
        }
        if onDisk { await removeDiskFiles([id]) }
    }

    /// Removes every variant stored for a URI, whatever the credentials (RFC 9111 §4.4).
    func invalidate(uri: URI) async {
        await loadDiskIfNeeded()
        let uriKey = key(for: uri, headers: HTTPHeaders()).uri
        let ids = state.withLock { s -> [String] in
            let memory = s.memory.entries(forURI: uriKey).map(\.id)
            for id in memory { s.memory.remove(id); s.memoryEntries[id] = nil }
            let disk = s.disk?.entries(forURI: uriKey).map(\.id) ?? []
            for id in disk { s.disk?.remove(id) }
            return disk
        }
        if !ids.isEmpty { await removeDiskFiles(ids) }
    }

    /// Replaces a stored head (after a 304), in memory and on disk.
    func update(_ id: String, head: CachedResponseHead) async {
        let onDisk = state.withLock { s -> Bool in
            s.memoryEntries[id]?.head = head
            s.memory.touch(id)
            return s.disk?.touch(id) ?? false
        }
        if onDisk { await writeDiskHead(id, head: head) }
    }

    // MARK: Storing

    /// Starts storing a response whose body will stream through the writer.
    func makeWriter(key: Key, head: CachedResponseHead, replacing: [String]) async -> CacheWriter {
        await loadDiskIfNeeded()
        return CacheWriter(cache: self, key: key, head: head, replacing: replacing)
    }

    /// Adds a finished entry to the memory tier (and evicts what no longer fits).
    func commitMemory(id: String, key: Key, head: CachedResponseHead, body: ByteBuffer) {
        let size = UInt64(body.readableBytes) + UInt64(CachedHeadCodec.encode(head)?.count ?? 0)
        state.withLock { s in
            for evicted in s.memory.insert(CacheIndexEntry(id: id, key: key.lookup, uri: key.uri, size: size)) {
                s.memoryEntries[evicted.id] = nil
            }
            if s.memory.entries.contains(where: { $0.id == id }) { s.memoryEntries[id] = MemoryEntry(head: head, body: body) }
        }
    }

    /// The largest body the memory tier keeps a copy of: an eighth of its capacity (a single
    /// response never flushes the whole tier).
    var memoryEntryLimit: UInt64 { memoryCapacity / 8 }
}
