// ResourceDownloader over a real Session and the loopback server (issue 16): the cache protocol
// with its should-cache hook, keys from request plus additional identifier, the shared default
// instance, per-request cache policies (what reaches the server), and callbacks on an event loop
// or an actor.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierPosix
import CourierTestSupport
import Synchronization
import Testing

/// A cache that refuses values over a size: the should-cache hook.
final class SmallOnlyCache: ResourceCache {
    let limit: Int
    private let entries = Mutex<[ResourceCacheKey: ByteBuffer]>([:])
    init(limit: Int) { self.limit = limit }
    func value(for key: ResourceCacheKey) -> ByteBuffer? { entries.withLock { $0[key] } }
    func add(_ value: ByteBuffer, for key: ResourceCacheKey) { entries.withLock { $0[key] = value } }
    func remove(_ key: ResourceCacheKey) -> Bool { entries.withLock { $0.removeValue(forKey: key) != nil } }
    func shouldCache(_ value: ByteBuffer, for request: HTTPRequest, identifier: String?) -> Bool {
        value.readableBytes <= limit
    }
    var count: Int { entries.withLock { $0.count } }
}

/// Where a completion ran.
@globalActor actor CallbackTestActor {
    static let shared = CallbackTestActor()
}

extension SessionTests {
    @Suite struct ResourceDownloading {
        static func downloader(_ session: Session, cache: (any ResourceCache<ByteBuffer>)?,
                               executor: CallbackExecutor = .immediate) -> ResourceDownloader<ByteBuffer> {
            ResourceDownloader<ByteBuffer>(cache: cache, callbackExecutor: executor) { request in
                try await session.dataTask(with: request).value
            }
        }

        static func text(_ buffer: ByteBuffer) -> String {
            buffer.withUnsafeReadableBytes { String(decoding: $0, as: UTF8.self) }
        }

        @Test("the auto-purging cache answers the second request; an identifier is a variant with its own entry")
        func cacheAndIdentifier() async throws {
            try await withServer { server in
                let session = makeSession()
                let cache = AutoPurgingCache<String, ByteBuffer>()
                let downloader = Self.downloader(session, cache: cache)
                let request = server.request("/bytes/100")
                let value1 = try await downloader.value(for: request)
                #expect(value1.readableBytes == 100)
                #expect(server.requestCount == 1)
                // Answered from the cache at once: no receipt, no request.
                let hit = Mutex<Int?>(nil)
                #expect(downloader.download(request) { result in hit.withLock { $0 = try? result.get().readableBytes } } == nil)
                #expect(hit.withLock { $0 } == 100)
                #expect(server.requestCount == 1)
                // A variant of the same URL is another key.
                let value2 = try await downloader.value(for: request, identifier: "@2x")
                #expect(value2.readableBytes == 100)
                #expect(server.requestCount == 2)
                let url = server.url("/bytes/100").description
                #expect(Set(cache.keysByRecency) == [url, url + "@2x"], "AFAutoPurgingImageCache's keys: URL, URL + identifier")
                #expect(cache.value(for: ResourceCacheKey(request, identifier: "@2x")) != nil)
                #expect(cache.remove(ResourceCacheKey(request, identifier: "@2x")))
                #expect(cache.count == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("policies: reload ignores the cache and sends no-cache; return-cached-else-load sends max-stale only when it loads")
        func policies() async throws {
            try await withServer { server in
                let session = makeSession()
                let cache = AutoPurgingCache<String, ByteBuffer>()
                let downloader = Self.downloader(session, cache: cache)
                let request = server.request("/echo")
                let first = Self.text(try await downloader.value(for: request))
                #expect(!first.contains("no-cache") && !first.contains("max-stale"))
                let reloaded = Self.text(try await downloader.value(for: request, cachePolicy: .reloadIgnoringCache))
                #expect(server.requestCount == 2, "reload fetched although the value was cached")
                #expect(reloaded.contains("no-cache"))
                #expect(Self.text(try #require(cache.value(for: ResourceCacheKey(request)))) == reloaded, "the reloaded value replaced the cached one")
                _ = try await downloader.value(for: request, cachePolicy: .returnCachedElseLoad)
                #expect(server.requestCount == 2, "the cached value was returned")
                let other = server.request("/echo?v=2")
                let loaded = Self.text(try await downloader.value(for: other, cachePolicy: .returnCachedElseLoad))
                #expect(server.requestCount == 3)
                #expect(loaded.contains("max-stale"))
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("the should-cache hook: a refused value is delivered but not kept, so the next request fetches")
        func shouldCache() async throws {
            try await withServer { server in
                let session = makeSession()
                let cache = SmallOnlyCache(limit: 50)
                let downloader = Self.downloader(session, cache: cache)
                let value3 = try await downloader.value(for: server.request("/bytes/10"))
                #expect(value3.readableBytes == 10)
                let value4 = try await downloader.value(for: server.request("/bytes/500"))
                #expect(value4.readableBytes == 500)
                #expect(cache.count == 1)
                _ = try await downloader.value(for: server.request("/bytes/10"))
                _ = try await downloader.value(for: server.request("/bytes/500"))
                #expect(server.requestCount == 3, "only the refused value was fetched again")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("callbacks run on the chosen event loop, or isolated to the chosen actor")
        func executors() async throws {
            try await withServer { server in
                let session = makeSession()
                let loop = try EventLoop(name: "af16b-callbacks")
                let onLoop = Self.downloader(session, cache: AutoPurgingCache<String, ByteBuffer>(), executor: .eventLoop(loop))
                let (ran, done) = AsyncStream.makeStream(of: Bool.self)
                onLoop.download(server.request("/bytes/3")) { _ in done.yield(loop.inEventLoop) }
                // A cache hit goes through the executor too.
                var iterator = ran.makeAsyncIterator()
                #expect(await iterator.next() == true)
                #expect(onLoop.download(server.request("/bytes/3")) { _ in done.yield(loop.inEventLoop) } == nil)
                #expect(await iterator.next() == true)

                let onActor = Self.downloader(session, cache: nil, executor: .actor(CallbackTestActor.shared))
                let (isolated, report) = AsyncStream.makeStream(of: Bool.self)
                onActor.download(server.request("/bytes/3")) { _ in
                    CallbackTestActor.shared.assertIsolated()
                    report.yield(true)
                }
                var second = isolated.makeAsyncIterator()
                #expect(await second.next() == true)
                await loop.shutdown()
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("the shared downloader is one instance with a cache, and it downloads")
        func shared() async throws {
            #expect(ResourceDownloader<ByteBuffer>.shared === ResourceDownloader<ByteBuffer>.shared)
            #expect(ResourceDownloader<ByteBuffer>.shared.cache != nil)
            try await withServer { server in
                let value5 = try await ResourceDownloader<ByteBuffer>.shared.value(for: server.request("/bytes/7"))
                #expect(value5.readableBytes == 7)
            }
        }
    }
}
