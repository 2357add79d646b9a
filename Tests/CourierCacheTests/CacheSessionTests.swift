// HTTPCache inside a Session: the cache policies, the credential key, events and metrics, and
// the disk tier — a restart (a new HTTPCache on the same directory), a corrupt head and a
// truncated body (a miss, removed, never served), LRU eviction under the byte limit, and a body
// larger than the memory tier streaming to disk and back.

import Courier
import CourierBytes
import CourierCache
import CourierHTTP1
import CourierLoopbackServer
import CourierPosix
import CourierTestSupport
import CourierURL
import Glibc
import Synchronization
import Testing

private func temporaryDirectory() -> String {
    var template = Array("/tmp/courier-cache-test.XXXXXX".utf8CString)
    return template.withUnsafeMutableBufferPointer { buffer in
        guard let made = mkdtemp(buffer.baseAddress!) else { preconditionFailure("mkdtemp failed") }
        return String(cString: made)
    }
}

private func removeDirectory(_ path: String) {
    for name in (try? File.entries(inDirectory: path)) ?? [] { try? File.remove(path + "/" + name) }
    rmdir(path)
}

/// An origin that counts requests per path and answers each with `fields` and a body of `size`
/// bytes of a pattern (its `Server-Request-Count` tells a served answer from a fresh one).
private final class CountingOrigin: Sendable {
    let counts = Mutex<[String: Int]>([:])
    let lastRequest = Mutex<HTTPHeaders?>(nil)
    let fields: [String]
    let size: Int

    init(fields: [String], size: Int = 100) {
        self.fields = fields
        self.size = size
    }

    func count(_ path: String) -> Int { counts.withLock { $0[path] ?? 0 } }

    func respond(_ request: LoopbackRequest) -> [LoopbackAction] {
        let n = counts.withLock { c -> Int in c[request.path, default: 0] += 1; return c[request.path]! }
        lastRequest.withLock { $0 = request.headers }
        var head = "HTTP/1.1 200 OK\r\nServer-Request-Count: \(n)\r\nContent-Length: \(size)\r\n"
        for field in fields { head += field + "\r\n" }
        return [.text(head + "\r\n"), .writePattern(count: size)]
    }
}

private func session(_ cache: HTTPCache) -> Session {
    var configuration = SessionConfiguration()
    configuration.cache = cache
    configuration.connectTimeout = .seconds(5)
    configuration.idleTimeout = .seconds(10)
    return Session(configuration: configuration)
}

private func get(_ session: Session, _ server: LoopbackServer, _ path: String, headers: HTTPHeaders = HTTPHeaders(),
                 policy: CachePolicy = .useProtocolCachePolicy) async -> TaskResponse<ByteBuffer> {
    var request = HTTPRequest(method: .get, uri: try! URI(parsing: "http://127.0.0.1:\(server.port)\(path)"), headers: headers)
    request.cachePolicy = policy
    return await session.dataTask(with: request).response
}

private func withOrigin(_ origin: CountingOrigin, _ body: (LoopbackServer) async throws -> Void) async throws {
    let server = try await LoopbackServer.start(LoopbackServer.Configuration(scripts: ["/c/*": { origin.respond($0) }]))
    do { try await body(server) } catch {
        await server.shutdown()
        throw error
    }
    await server.shutdown()
}

@Suite("HTTPCache in a Session", .serialized)
struct CacheSessionTests {
    let clock = ManualCacheClock()

    func memoryCache(_ capacity: UInt64 = HTTPCache.defaultMemoryCapacity) -> HTTPCache {
        let clock = self.clock
        return HTTPCache(memoryCapacity: capacity, diskCapacity: 0, directory: nil, keysCredentials: true, clock: { clock.now })
    }

    func diskCache(_ directory: String, memory: UInt64 = 0, disk: UInt64 = HTTPCache.defaultDiskCapacity) -> HTTPCache {
        let clock = self.clock
        return HTTPCache(memoryCapacity: memory, diskCapacity: disk, directory: directory, keysCredentials: true, clock: { clock.now })
    }

    @Test("miss and stored, then hit; events and metrics say so; Age is sent")
    func hitMissStored() async throws {
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"])
        try await withOrigin(origin) { server in
            let s = session(memoryCache())
            let first = await get(s, server, "/c/a")
            #expect(first.metrics.cacheEvents == [.miss, .stored])
            clock.advance(10)
            let second = await get(s, server, "/c/a")
            #expect(second.metrics.cacheEvents == [.hit])
            #expect(second.head?.headers.first(name: "Age") == "10")
            #expect(second.body?.readableBytes == 100 && second.metrics.transactions.isEmpty)
            #expect(origin.count("/c/a") == 1)
            await s.invalidateAndCancel()
        }
    }

    @Test("a stale response is validated; a 304 serves the stored body (revalidated)")
    func revalidated() async throws {
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=1", "ETag: \"v1\""])
        let notModified = Mutex(0)
        let server = try await LoopbackServer.start(LoopbackServer.Configuration(scripts: ["/c/*": { request in
            if request.headers.first(name: "If-None-Match") == "\"v1\"" {
                notModified.withLock { $0 += 1 }
                return [.text("HTTP/1.1 304 Not Modified\r\nETag: \"v1\"\r\nCache-Control: max-age=50\r\nX-New: 1\r\n\r\n")]
            }
            return origin.respond(request)
        }]))
        let s = session(memoryCache())
        _ = await get(s, server, "/c/v")
        clock.advance(5)
        let second = await get(s, server, "/c/v")
        #expect(second.metrics.cacheEvents == [.revalidated])
        #expect(second.head?.status == 200 && second.body?.readableBytes == 100)
        #expect(second.head?.headers.first(name: "X-New") == "1" && second.head?.headers.first(name: "Content-Length") == "100")
        let third = await get(s, server, "/c/v")  // fresh again for 50 s
        #expect(third.metrics.cacheEvents == [.hit])
        #expect(notModified.withLock { $0 } == 1)
        await s.invalidateAndCancel()
        await server.shutdown()
    }

    @Test("the cache policies: reload, return cached data else load, don't load (a miss is .cacheMiss)")
    func policies() async throws {
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=1"])
        try await withOrigin(origin) { server in
            let s = session(memoryCache())
            let offline = await get(s, server, "/c/p", policy: .returnCacheDataDontLoad)
            guard case .failure(let error) = offline.result else { Issue.record("a miss was served"); return }
            #expect(error.code == .cacheMiss && error.afNetworkingCode == -1008)
            #expect(origin.count("/c/p") == 0)
            _ = await get(s, server, "/c/p")
            clock.advance(1000)
            #expect(await get(s, server, "/c/p", policy: .returnCacheDataElseLoad).metrics.cacheEvents == [.hit])
            #expect(await get(s, server, "/c/p", policy: .returnCacheDataDontLoad).metrics.cacheEvents == [.hit])
            #expect(origin.count("/c/p") == 1)
            _ = await get(s, server, "/c/p", policy: .reloadIgnoringCacheData)
            #expect(origin.count("/c/p") == 2)
            let only = await get(s, server, "/c/q", headers: HTTPHeaders([("Cache-Control", "only-if-cached")]))
            if case .failure(let e) = only.result { #expect(e.code == .cacheMiss) } else { Issue.record("only-if-cached went out") }
            await s.invalidateAndCancel()
        }
    }

    @Test("the key includes Authorization and Cookie: one user's answer is never another's")
    func credentialsKeyed() async throws {
        let origin = CountingOrigin(fields: ["Cache-Control: private, max-age=100"])
        try await withOrigin(origin) { server in
            let s = session(memoryCache())
            _ = await get(s, server, "/c/me", headers: HTTPHeaders([("Authorization", "Bearer alice")]))
            let bob = await get(s, server, "/c/me", headers: HTTPHeaders([("Authorization", "Bearer bob")]))
            #expect(bob.metrics.cacheEvents.first == .miss)
            let alice = await get(s, server, "/c/me", headers: HTTPHeaders([("Authorization", "Bearer alice")]))
            #expect(alice.metrics.cacheEvents == [.hit])
            let cookie = await get(s, server, "/c/me", headers: HTTPHeaders([("Authorization", "Bearer alice"), ("Cookie", "s=1")]))
            #expect(cookie.metrics.cacheEvents.first == .miss)
            #expect(origin.count("/c/me") == 3)
            await s.invalidateAndCancel()
        }
    }

    @Test("an unsafe method invalidates the URI (every credential's variants)")
    func invalidation() async throws {
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"])
        try await withOrigin(origin) { server in
            let s = session(memoryCache())
            _ = await get(s, server, "/c/i")
            _ = await get(s, server, "/c/i", headers: HTTPHeaders([("Cookie", "a=1")]))
            let post = HTTPRequest(method: .post, uri: try! URI(parsing: "http://127.0.0.1:\(server.port)/c/i"),
                                   body: .bytes(ByteBuffer(bytes: Array("x".utf8))))
            _ = await s.dataTask(with: post).response
            #expect(await get(s, server, "/c/i").metrics.cacheEvents.first == .miss)
            #expect(await get(s, server, "/c/i", headers: HTTPHeaders([("Cookie", "a=1")])).metrics.cacheEvents.first == .miss)
            await s.invalidateAndCancel()
        }
    }

    @Test("disk: entries survive a restart (a new HTTPCache on the same directory)")
    func restart() async throws {
        let directory = temporaryDirectory()
        defer { removeDirectory(directory) }
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"], size: 3000)
        try await withOrigin(origin) { server in
            let first = session(diskCache(directory))
            #expect(await get(first, server, "/c/r").metrics.cacheEvents == [.miss, .stored])
            await first.invalidateAndCancel()
            let names = ((try? File.entries(inDirectory: directory)) ?? []).sorted()
            #expect(names.count == 3 && names.contains("index"), "\(names)")
            let second = session(diskCache(directory))
            let served = await get(second, server, "/c/r")
            #expect(served.metrics.cacheEvents == [.hit])
            #expect(served.body?.readableBytesArray == (0..<3000).map { UInt8(ascii: "a") + UInt8($0 % 26) })
            #expect(origin.count("/c/r") == 1)
            await second.invalidateAndCancel()
        }
    }

    @Test("disk: a corrupt head or a truncated body is a miss, removed, never served")
    func corrupt() async throws {
        let directory = temporaryDirectory()
        defer { removeDirectory(directory) }
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"], size: 3000)
        try await withOrigin(origin) { server in
            let first = session(diskCache(directory))
            _ = await get(first, server, "/c/head")
            _ = await get(first, server, "/c/body")
            await first.invalidateAndCancel()
            let heads = ((try? File.entries(inDirectory: directory)) ?? []).filter { $0.hasSuffix(".head") }
            #expect(heads.count == 2)
            // Which entry is which: the head names its Server-Request-Count... both are 1; tell them
            // apart by serving: damage one head and one body, then both must be misses.
            let head0 = directory + "/" + heads[0]
            let body1 = directory + "/" + heads[1].replacingSuffix(".head", with: ".body")
            let garbage = try File.open(head0, access: .writeOnly, truncate: true)
            try Array("courier-cache-entry 1\nstatus 200 OK\ntimes x".utf8).withUnsafeBytes { try garbage.write($0, at: 0) }
            try garbage.close()
            let cut = try File.open(body1, access: .readWrite)
            try cut.truncate(to: 1000)
            try cut.close()
            let second = session(diskCache(directory))
            let a = await get(second, server, "/c/head")
            let b = await get(second, server, "/c/body")
            #expect(a.metrics.cacheEvents.first == .miss && b.metrics.cacheEvents.first == .miss)
            #expect(a.body?.readableBytes == 3000 && b.body?.readableBytes == 3000)
            #expect(origin.count("/c/head") == 2 && origin.count("/c/body") == 2)
            let names = (try? File.entries(inDirectory: directory)) ?? []
            #expect(!names.contains(heads[0]) && !names.contains(heads[1]), "the damaged entries are removed")
            await second.invalidateAndCancel()
        }
    }

    @Test("disk: least recently used entries go when the byte limit is reached")
    func eviction() async throws {
        let directory = temporaryDirectory()
        defer { removeDirectory(directory) }
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"], size: 1000)
        try await withOrigin(origin) { server in
            let cache = diskCache(directory, disk: 3500)  // three entries of ~1,150 bytes fit, four do not
            let s = session(cache)
            for path in ["/c/1", "/c/2", "/c/3"] { _ = await get(s, server, path) }
            #expect(await get(s, server, "/c/1").metrics.cacheEvents == [.hit])  // 1 is now the most recent
            _ = await get(s, server, "/c/4")
            #expect(cache.currentDiskUsage <= 3500)
            #expect(await get(s, server, "/c/2").metrics.cacheEvents.first == .miss, "the least recently used went")
            #expect(await get(s, server, "/c/1").metrics.cacheEvents == [.hit])
            await s.invalidateAndCancel()
            let bodies = ((try? File.entries(inDirectory: directory)) ?? []).filter { $0.hasSuffix(".body") }
            #expect(bodies.count == 3)
            // The order survives a restart: after it, /c/4 is older than /c/1.
            let restarted = diskCache(directory, disk: 3500)
            let again = session(restarted)
            #expect(await get(again, server, "/c/1").metrics.cacheEvents == [.hit])
            await again.invalidateAndCancel()
        }
    }

    @Test("disk: a body larger than the memory tier streams to disk and back")
    func largeBody() async throws {
        let directory = temporaryDirectory()
        defer { removeDirectory(directory) }
        let size = 6 << 20
        let origin = CountingOrigin(fields: ["Cache-Control: max-age=100"], size: size)
        try await withOrigin(origin) { server in
            let cache = diskCache(directory, memory: HTTPCache.defaultMemoryCapacity, disk: HTTPCache.defaultDiskCapacity)
            let s = session(cache)
            #expect(await get(s, server, "/c/big").metrics.cacheEvents == [.miss, .stored])
            #expect(cache.currentMemoryUsage == 0, "the memory tier keeps no copy of a body over its per-entry limit")
            let served = await get(s, server, "/c/big")
            #expect(served.metrics.cacheEvents == [.hit] && served.body?.readableBytes == size)
            let bytes = served.body?.readableBytesArray ?? []
            #expect(bytes.count == size && bytes[size - 1] == UInt8(ascii: "a") + UInt8((size - 1) % 26))
            await s.invalidateAndCancel()
        }
    }
}

private extension String {
    func replacingSuffix(_ suffix: String, with other: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) + other : self
    }
}
