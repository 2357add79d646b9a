// The disk tier of HTTPCache (docs/cache.md "Disk format"): one directory holding
//   index        the LRU index (CacheIndex.encoded), rewritten through a temporary file + rename
//   ID.head      a stored head (CachedHeadCodec), written to a temporary file and renamed
//   ID.body      the body as delivered, streamed into a temporary file and renamed
// A head that does not decode, or a body whose size is not the head's length, is a miss and its
// files are removed. Files the index does not name (temporary files of a process that died) are
// removed when the index is first read. Every call here runs on BlockingIOThread.shared.

import CourierBytes
import CourierCache
import CourierPosix
import Synchronization

extension HTTPCache {
    func path(_ id: String, _ suffix: String) -> String { (directory ?? ".") + "/" + id + "." + suffix }

    /// Reads the index file once (creating the directory), dropping entries whose files are gone
    /// and files no entry names.
    func loadDiskIfNeeded() async {
        guard let directory, state.withLock({ !$0.diskLoaded && $0.disk != nil }) else { return }
        let limit = diskCapacity
        let (index, evicted, orphans) = await BlockingIOThread.shared.run { () -> (CacheIndex, [CacheIndexEntry], [String]) in
            try? File.makeDirectories(directory, mode: 0o700)
            let bytes = (try? File.contents(atPath: directory + "/index", limit: 64 << 20)).map { $0.readableBytesArray } ?? []
            var (index, evicted) = CacheIndex.decode(bytes, limit: limit)
            let names = Set((try? File.entries(inDirectory: directory)) ?? [])
            for entry in index.entries where !names.contains(entry.id + ".head") || !names.contains(entry.id + ".body") {
                index.remove(entry.id)
            }
            let live = Set(index.entries.map(\.id))
            let orphans = names.filter { name in
                guard name != "index" else { return false }
                let id = name.split(separator: ".").first.map(String.init) ?? ""
                return !live.contains(id)
            }
            return (index, evicted, Array(orphans))
        }
        let first = state.withLock { s -> Bool in
            guard !s.diskLoaded else { return false }
            s.diskLoaded = true
            s.disk = index
            return true
        }
        guard first else { return }
        await BlockingIOThread.shared.run {
            for name in orphans { try? File.remove(directory + "/" + name) }
            for entry in evicted {
                try? File.remove(directory + "/" + entry.id + ".head")
                try? File.remove(directory + "/" + entry.id + ".body")
            }
        }
        if !evicted.isEmpty || !orphans.isEmpty { await writeIndex() }
    }

    /// The head of a disk entry, or nil when it is missing or corrupt.
    func readDiskHead(_ id: String) async -> CachedResponseHead? {
        let headPath = path(id, "head"), bodyPath = path(id, "body")
        return await BlockingIOThread.shared.run { () -> CachedResponseHead? in
            guard let bytes = try? File.contents(atPath: headPath, limit: 1 << 20),
                  let head = CachedHeadCodec.decode(bytes.readableBytesArray),
                  let size = try? File.size(atPath: bodyPath), UInt64(size) == head.bodyLength else { return nil }
            return head
        }
    }

    /// Writes a head through a temporary file and a rename.
    func writeDiskHead(_ id: String, head: CachedResponseHead) async {
        guard let directory, let bytes = CachedHeadCodec.encode(head) else { return }
        let headPath = path(id, "head")
        await BlockingIOThread.shared.run {
            guard let file = try? File.makeTemporary(in: directory) else { return }
            let ok = (try? bytes.withUnsafeBytes { try file.write($0, at: 0) }) != nil
            try? file.close()
            if ok { try? File.rename(file.path, to: headPath) } else { try? File.remove(file.path) }
        }
    }

    func removeDiskFiles(_ ids: [String]) async {
        guard directory != nil, !ids.isEmpty else { return }
        let paths = ids.flatMap { [path($0, "head"), path($0, "body")] }
        await BlockingIOThread.shared.run { for p in paths { try? File.remove(p) } }
        await writeIndex()
    }

    /// Rewrites the index file (temporary file + rename) from the state at the time it runs.
    func writeIndex() async {
        guard let directory else { return }
        await BlockingIOThread.shared.run { [self] in
            guard let bytes = state.withLock({ $0.disk?.encoded() }) else { return }
            guard let file = try? File.makeTemporary(in: directory) else { return }
            let ok = (try? bytes.withUnsafeBytes { try file.write($0, at: 0) }) != nil
            try? file.close()
            if ok { try? File.rename(file.path, to: directory + "/index") } else { try? File.remove(file.path) }
        }
    }

    /// Writes the index soon (after a hit changed the LRU order).
    func scheduleIndexWrite() {
        guard directory != nil else { return }
        Task { await writeIndex() }
    }

    /// Opens a disk body for serving; nil (and the entry removed) when its size is not the
    /// head's length — a truncated body is never served.
    func openDiskBody(_ id: String, length: UInt64) async -> File? {
        let bodyPath = path(id, "body")
        let file = await BlockingIOThread.shared.run { () -> File? in
            guard let file = try? File.open(bodyPath) else { return nil }
            guard let size = try? file.size(), UInt64(size) == length else {
                try? file.close()
                return nil
            }
            return file
        }
        if file == nil { await removeEntry(id) }
        return file
    }

    /// Reads the next piece of a disk body (64 KiB at most); empty at the end.
    func readDiskBody(_ file: File, at offset: UInt64) async throws(Errno) -> ByteBuffer {
        try await BlockingIOThread.shared.run { () throws(Errno) -> ByteBuffer in
            var buffer = ByteBuffer()
            try file.read(into: &buffer, maxBytes: 65536, at: Int64(offset))
            return buffer
        }
    }

    func closeDiskBody(_ file: File) async {
        await BlockingIOThread.shared.run { try? file.close() }
    }
}

/// Streams one response body into the cache while it is delivered: into memory while it fits
/// the memory tier's per-entry limit, and into a temporary file of the disk tier. `commit` makes
/// the entry visible; `discard` (a failure, a body that is too large) leaves nothing behind.
final class CacheWriter: Sendable {
    private struct State: Sendable {
        var memory: ByteBuffer? = ByteBuffer()
        var file: File?
        var fileFailed = false
        var written: UInt64 = 0
        var finished = false
    }
    private let state = Mutex(State())
    let cache: HTTPCache
    let key: HTTPCache.Key
    let head: CachedResponseHead
    /// Entries of the same variant that the new one replaces.
    let replacing: [String]
    let id = HTTPCache.newIdentifier()

    init(cache: HTTPCache, key: HTTPCache.Key, head: CachedResponseHead, replacing: [String]) {
        self.cache = cache
        self.key = key
        self.head = head
        self.replacing = replacing
    }

    /// Adds the next body bytes.
    func append(_ bytes: ByteBuffer) async {
        let (offset, toDisk) = state.withLock { s -> (UInt64, Bool) in
            let offset = s.written
            s.written += UInt64(bytes.readableBytes)
            if s.memory != nil {
                if s.written <= cache.memoryEntryLimit { s.memory!.writeBuffer(bytes) } else { s.memory = nil }
            }
            return (offset, cache.directory != nil && !s.fileFailed)
        }
        guard toDisk, let directory = cache.directory else { return }
        let existing = state.withLock { $0.file }
        let written = await BlockingIOThread.shared.run { () -> File? in
            let file: File
            if let existing { file = existing } else {
                guard let made = try? File.makeTemporary(in: directory) else { return nil }
                file = made
            }
            do { try file.write(bytes, at: Int64(offset)) } catch {
                try? file.close()
                try? File.remove(file.path)
                return nil
            }
            return file
        }
        state.withLock { s in
            if let written { s.file = written } else { s.fileFailed = true; s.file = nil }
        }
    }

    /// Makes the entry visible with its final length; returns whether anything was stored.
    @discardableResult
    func commit() async -> Bool {
        let (memory, file, failed, length) = state.withLock { s -> (ByteBuffer?, File?, Bool, UInt64) in
            s.finished = true
            defer { s.file = nil }
            return (s.memory, s.file, s.fileFailed, s.written)
        }
        var final = head
        final.bodyLength = length
        for old in replacing { await cache.removeEntry(old) }
        var stored = false
        if let memory, cache.memoryCapacity > 0 {
            cache.commitMemory(id: id, key: key, head: final, body: memory)
            stored = cache.currentMemoryUsage > 0 && cache.state.withLock { $0.memoryEntries[id] != nil }
        }
        if let directory = cache.directory, !failed, let headBytes = CachedHeadCodec.encode(final) {
            let bodyPath = cache.path(id, "body"), headPath = cache.path(id, "head")
            let moved = await BlockingIOThread.shared.run { () -> Bool in
                var bodyFile = file
                if bodyFile == nil {  // an empty body: an empty file
                    bodyFile = try? File.makeTemporary(in: directory)
                }
                guard let bodyFile else { return false }
                try? bodyFile.close()
                guard let headFile = try? File.makeTemporary(in: directory) else {
                    try? File.remove(bodyFile.path)
                    return false
                }
                let ok = (try? headBytes.withUnsafeBytes { try headFile.write($0, at: 0) }) != nil
                try? headFile.close()
                guard ok, (try? File.rename(bodyFile.path, to: bodyPath)) != nil, (try? File.rename(headFile.path, to: headPath)) != nil else {
                    try? File.remove(bodyFile.path)
                    try? File.remove(headFile.path)
                    try? File.remove(bodyPath)
                    return false
                }
                return true
            }
            if moved {
                let size = length + UInt64(headBytes.count)
                let evicted = cache.state.withLock { s -> [CacheIndexEntry] in
                    s.disk?.insert(CacheIndexEntry(id: id, key: key.lookup, uri: key.uri, size: size)) ?? []
                }
                let kept = !evicted.contains { $0.id == id }
                if !evicted.isEmpty {
                    await cache.removeDiskFiles(evicted.map(\.id))
                } else {
                    await cache.writeIndex()
                }
                stored = stored || kept
            }
        } else if let file {
            await BlockingIOThread.shared.run { try? file.close(); try? File.remove(file.path) }
        }
        return stored
    }

    /// Drops what was written.
    func discard() async {
        let file = state.withLock { s -> File? in
            s.finished = true
            s.memory = nil
            defer { s.file = nil }
            return s.file
        }
        if let file { await BlockingIOThread.shared.run { try? file.close(); try? File.remove(file.path) } }
    }
}
