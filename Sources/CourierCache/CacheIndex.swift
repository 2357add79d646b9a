// CacheIndex: a byte-bounded least-recently-used index of cache entries, the bookkeeping shared by
// the memory and the disk tier. It knows each entry's identifier, its key (URI and credential
// digest), its URI (for invalidation) and its size; the tier that owns it holds the bytes.
//
// Invariants: `totalBytes` is the sum of the entries' sizes and never exceeds `limit` after an
// insert returns (the insert returns what it evicted, least recently used first); an entry larger
// than the limit is refused (returned as evicted at once). Lines of `encoded()` survive a restart:
// `decode` rebuilds the same order and drops lines it cannot read.

/// One entry of the index.
public struct CacheIndexEntry: Sendable, Hashable {
    /// The entry's identifier (a file name on disk).
    public var id: String
    /// The lookup key (URI + credential digest), as the shell hashes it.
    public var key: String
    /// The URI key alone (invalidation removes every credential's variants).
    public var uri: String
    /// Bytes the entry takes (head and body).
    public var size: UInt64

    /// Creates an entry.
    /// - Parameters:
    ///   - id: the identifier.
    ///   - key: the lookup key.
    ///   - uri: the URI key.
    ///   - size: bytes.
    public init(id: String, key: String, uri: String, size: UInt64) {
        self.id = id
        self.key = key
        self.uri = uri
        self.size = size
    }
}

/// A least-recently-used index bounded in bytes.
public struct CacheIndex: Sendable {
    /// The byte limit.
    public let limit: UInt64
    /// The entries, least recently used first.
    public private(set) var entries: [CacheIndexEntry] = []
    /// The sum of the entries' sizes.
    public private(set) var totalBytes: UInt64 = 0

    /// An empty index.
    /// - Parameter limit: the byte limit.
    public init(limit: UInt64) { self.limit = limit }

    /// The entries stored under a key, least recently used first.
    /// - Parameter key: the lookup key.
    /// - Returns: the entries.
    public func entries(forKey key: String) -> [CacheIndexEntry] { entries.filter { $0.key == key } }

    /// The entries stored for a URI (any credential).
    /// - Parameter uri: the URI key.
    /// - Returns: the entries.
    public func entries(forURI uri: String) -> [CacheIndexEntry] { entries.filter { $0.uri == uri } }

    /// Marks an entry as just used.
    /// - Parameter id: the identifier.
    /// - Returns: whether it was there.
    @discardableResult
    public mutating func touch(_ id: String) -> Bool {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return false }
        let entry = entries.remove(at: i)
        entries.append(entry)
        return true
    }

    /// Adds (or replaces) an entry as the most recently used, then evicts the least recently used
    /// ones until the total fits the limit.
    /// - Parameter entry: the entry.
    /// - Returns: the entries evicted (the new one itself when it alone exceeds the limit).
    public mutating func insert(_ entry: CacheIndexEntry) -> [CacheIndexEntry] {
        var evicted: [CacheIndexEntry] = []
        if let old = remove(entry.id) { _ = old }
        guard entry.size <= limit else { return [entry] }
        entries.append(entry)
        totalBytes += entry.size
        while totalBytes > limit, let first = entries.first {
            entries.removeFirst()
            totalBytes -= first.size
            evicted.append(first)
        }
        return evicted
    }

    /// Removes an entry.
    /// - Parameter id: the identifier.
    /// - Returns: the entry removed.
    @discardableResult
    public mutating func remove(_ id: String) -> CacheIndexEntry? {
        guard let i = entries.firstIndex(where: { $0.id == id }) else { return nil }
        let entry = entries.remove(at: i)
        totalBytes -= entry.size
        return entry
    }

    /// The index as text, one entry a line (`id key uri size`, least recently used first).
    /// - Returns: the bytes of the index file.
    public func encoded() -> [UInt8] {
        var out = Array("courier-cache-index 1\n".utf8)
        for e in entries { out += Array("\(e.id) \(e.key) \(e.uri) \(e.size)\n".utf8) }
        return out
    }

    /// Rebuilds an index from `encoded()` bytes; unreadable lines are dropped, and the limit is
    /// applied again (evicting the oldest).
    /// - Parameters:
    ///   - bytes: the file's bytes.
    ///   - limit: the byte limit now.
    /// - Returns: the index and the entries that no longer fit.
    public static func decode(_ bytes: [UInt8], limit: UInt64) -> (CacheIndex, [CacheIndexEntry]) {
        var index = CacheIndex(limit: limit)
        var evicted: [CacheIndexEntry] = []
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: true)
        guard let first = lines.first, String(decoding: first, as: UTF8.self) == "courier-cache-index 1" else { return (index, []) }
        for line in lines.dropFirst() {
            let parts = line.split(separator: 0x20, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard parts.count == 4, let size = UInt64(parts[3]), !parts[0].isEmpty, isFileName(parts[0]) else { continue }
            evicted += index.insert(CacheIndexEntry(id: parts[0], key: parts[1], uri: parts[2], size: size))
        }
        return (index, evicted)
    }

    /// An identifier is safe as a file name: lower-case hex digits only.
    /// - Parameter id: the identifier.
    /// - Returns: true when safe.
    public static func isFileName(_ id: String) -> Bool {
        !id.isEmpty && id.utf8.count <= 64 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
