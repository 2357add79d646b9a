// ResourceDownloader: AFImageDownloader's rules — coalescing, receipts and cancellation, the cap on
// active fetches, FIFO and LIFO queues, the cache (hits answer without a receipt, failures are not
// cached), stale results after a cancel — driven by a fake fetch the test releases by hand.

import Testing
import CourierBytes
import Synchronization
@testable import Courier

@Suite("ResourceDownloader", .timeLimit(.minutes(1)))
struct ResourceDownloaderTests {
    let a = "http://example.com/a.png"
    let b = "http://example.com/b.png"
    let c = "http://example.com/c.png"
    let d = "http://example.com/d.png"

    @Test("requests for one URL in flight share one fetch; every handler gets the value, in order")
    func coalescing() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(fetch: fetcher.fetch)
        let r1 = downloader.download(getRequest(a), completion: log.handler("1"))
        let r2 = downloader.download(getRequest(a), completion: log.handler("2"))
        let r3 = downloader.download(getRequest(a), completion: log.handler("3"))
        #expect(r1 != nil && r2 != nil && r3 != nil)
        #expect(Set([r1!.receiptID, r2!.receiptID, r3!.receiptID]).count == 3, "each handler has its own receipt")
        #expect(downloader.activeDownloadCount == 1)
        #expect(await fetcher.events.next() == .started(a))
        fetcher.release(a, with: "A")
        var labels: [String] = []
        for _ in 0..<3 {
            let (label, result) = await log.results.next()
            labels.append(label)
            #expect(try result.get() == "A")
        }
        #expect(labels == ["1", "2", "3"])
        #expect(fetcher.fetches == [a])
    }

    @Test("cancelling one of two handlers calls it with -999 and leaves the fetch running")
    func cancelOneHandler() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(fetch: fetcher.fetch)
        let r1 = try #require(downloader.download(getRequest(a), completion: log.handler("1")))
        _ = downloader.download(getRequest(a), completion: log.handler("2"))
        #expect(await fetcher.events.next() == .started(a))
        #expect(downloader.cancel(r1))
        #expect(!downloader.cancel(r1), "a handler is cancelled once")
        let (label, result) = await log.results.next()
        #expect(label == "1")
        guard case .failure(let error) = result else { Issue.record("cancelled handler succeeded"); return }
        #expect(error.code == .cancelled)
        #expect(error.code.afNetworkingCode == -999)
        #expect(error.url == a)
        fetcher.release(a, with: "A")
        let (label2, result2) = await log.results.next()
        #expect(label2 == "2")
        #expect(try result2.get() == "A")
        #expect(fetcher.cancellations == 0)
        #expect(log.count("1") == 1)
    }

    @Test("cancelling the last handler cancels the fetch; its slot frees when the fetch returns")
    func cancelLastHandler() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(maximumActiveDownloads: 1, fetch: fetcher.fetch)
        let r1 = try #require(downloader.download(getRequest(a), completion: log.handler("a1")))
        let r2 = try #require(downloader.download(getRequest(a), completion: log.handler("a2")))
        _ = downloader.download(getRequest(b), completion: log.handler("b"))
        #expect(downloader.queuedDownloadCount == 1)
        #expect(await fetcher.events.next() == .started(a))
        downloader.cancel(r1)
        downloader.cancel(r2)
        #expect(await fetcher.events.next() == .cancelled(a))
        #expect(await fetcher.events.next() == .started(b), "the queued download starts once the cancelled fetch returned")
        fetcher.release(b, with: "B")
        var seen: [String: Result<String, ResourceDownloaderError>] = [:]
        for _ in 0..<3 {
            let (label, result) = await log.results.next()
            seen[label] = result
        }
        #expect((try? seen["b"]?.get()) == "B")
        for label in ["a1", "a2"] {
            guard case .failure(let error)? = seen[label] else { Issue.record("\(label) not cancelled"); continue }
            #expect(error.code == .cancelled)
            #expect(log.count(label) == 1, "the cancelled fetch's result reaches no handler")
        }
        #expect(fetcher.fetches == [a, b])
    }

    @Test("cancelling a queued download's only handler drops it from the queue")
    func cancelQueued() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(maximumActiveDownloads: 1, fetch: fetcher.fetch)
        _ = downloader.download(getRequest(a), completion: log.handler("a"))
        let rb = try #require(downloader.download(getRequest(b), completion: log.handler("b")))
        #expect(downloader.queuedDownloadCount == 1)
        #expect(downloader.cancel(rb))
        #expect(downloader.queuedDownloadCount == 0)
        let (label, result) = await log.results.next()
        #expect(label == "b")
        #expect(throws: ResourceDownloaderError.self) { try result.get() }
        #expect(await fetcher.events.next() == .started(a))
        fetcher.release(a, with: "A")
        let (labelA, _) = await log.results.next()
        #expect(labelA == "a")
        #expect(fetcher.fetches == [a], "the cancelled download never started")
        #expect(fetcher.cancellations == 0)
    }

    @Test("no more than maximumActiveDownloads fetches run; the rest wait in the queue")
    func maximumActive() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(maximumActiveDownloads: 2, fetch: fetcher.fetch)
        let urls = (0..<6).map { "http://example.com/\($0)" }
        for url in urls { _ = downloader.download(getRequest(url), completion: log.handler(url)) }
        #expect(downloader.activeDownloadCount == 2)
        #expect(downloader.queuedDownloadCount == 4)
        var running: [String] = []
        for _ in 0..<2 {
            if case .started(let url) = await fetcher.events.next() { running.append(url) }
        }
        var startedCount = running.count
        while !running.isEmpty {
            // Each release frees one slot, and the queue's next download takes it.
            fetcher.release(running.removeFirst(), with: "v")
            if startedCount < urls.count, case .started(let next) = await fetcher.events.next() {
                running.append(next)
                startedCount += 1
            }
        }
        for _ in urls { _ = await log.results.next() }
        #expect(fetcher.fetches == urls, "FIFO: started in the order asked")
        #expect(fetcher.maxRunning == 2)
        #expect(downloader.activeDownloadCount == 0)
        #expect(downloader.queuedDownloadCount == 0)
    }

    @Test("FIFO starts the oldest queued download next, LIFO the newest", arguments: [DownloadPrioritization.fifo, .lifo])
    func prioritization(_ order: DownloadPrioritization) async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let downloader = ResourceDownloader<String>(maximumActiveDownloads: 1, prioritization: order, fetch: fetcher.fetch)
        for url in [a, b, c, d] { _ = downloader.download(getRequest(url), completion: log.handler(url)) }
        var startOrder: [String] = []
        for _ in 0..<4 {
            guard case .started(let url) = await fetcher.events.next() else { Issue.record("unexpected event"); return }
            startOrder.append(url)
            fetcher.release(url, with: url)
        }
        #expect(startOrder == (order == .fifo ? [a, b, c, d] : [a, d, c, b]))
        for _ in 0..<4 { _ = await log.results.next() }
    }

    @Test("a cache hit answers at once with no receipt; only the first request fetched")
    func cacheHit() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let cache = AutoPurgingCache<String, String> { UInt64($0.utf8.count) }
        let downloader = ResourceDownloader<String>(cache: cache, fetch: fetcher.fetch)
        #expect(downloader.download(getRequest(a), completion: log.handler("first")) != nil)
        #expect(await fetcher.events.next() == .started(a))
        fetcher.release(a, with: "A")
        _ = await log.results.next()
        #expect(cache.value(for: a) == "A")
        let receipt = downloader.download(getRequest(a), completion: log.handler("second"))
        #expect(receipt == nil)
        #expect(log.count("second") == 1, "the handler ran before download returned")
        let (_, result) = await log.results.next()
        #expect(try result.get() == "A")
        #expect(fetcher.fetches == [a])
        let value = try await downloader.value(for: getRequest(a))
        #expect(value == "A")
        #expect(fetcher.fetches == [a])
    }

    @Test("a failure is delivered as fetchFailed and not cached; the next request fetches again")
    func failureNotCached() async throws {
        let fetcher = FakeFetcher()
        let log = CompletionLog()
        let cache = AutoPurgingCache<String, String> { UInt64($0.utf8.count) }
        let downloader = ResourceDownloader<String>(cache: cache, fetch: fetcher.fetch)
        _ = downloader.download(getRequest(a), completion: log.handler("1"))
        #expect(await fetcher.events.next() == .started(a))
        fetcher.fail(a)
        let (_, result) = await log.results.next()
        guard case .failure(let error) = result else { Issue.record("failure delivered as success"); return }
        #expect(error.code == .fetchFailed)
        #expect(error.underlying is FakeFetcher.FetchFailure)
        #expect(cache.count == 0)
        #expect(downloader.download(getRequest(a), completion: log.handler("2")) != nil)
        #expect(await fetcher.events.next() == .started(a))
        fetcher.release(a, with: "A")
        _ = await log.results.next()
        #expect(fetcher.fetches == [a, a])
    }

    @Test("a relative URI fails at once with badURL (-1000) and no receipt")
    func badURL() throws {
        let fetcher = FakeFetcher()
        let downloader = ResourceDownloader<String>(fetch: fetcher.fetch)
        let outcome = Mutex<Result<String, ResourceDownloaderError>?>(nil)
        let receipt = downloader.download(getRequest("/relative/path")) { result in outcome.withLock { $0 = result } }
        #expect(receipt == nil)
        let result = try #require(outcome.withLock { $0 })
        guard case .failure(let error) = result else { Issue.record("relative URI fetched"); return }
        #expect(error.code == .badURL)
        #expect(error.code.afNetworkingCode == -1000)
        #expect(fetcher.fetches.isEmpty)
    }

    @Test("a result arriving after its task was cancelled and requested again reaches no one")
    func staleResult() async throws {
        let fetcher = FakeFetcher(ignoresCancellation: true)
        let log = CompletionLog()
        let cache = AutoPurgingCache<String, String> { UInt64($0.utf8.count) }
        let downloader = ResourceDownloader<String>(maximumActiveDownloads: 1, cache: cache, fetch: fetcher.fetch)
        let old = try #require(downloader.download(getRequest(a), completion: log.handler("old")))
        #expect(await fetcher.events.next() == .started(a))
        downloader.cancel(old)
        #expect(await fetcher.events.next() == .cancelled(a))
        _ = await log.results.next()   // "old": cancelled
        // The cancelled fetch goes on and holds the only slot: the new request queues.
        #expect(downloader.download(getRequest(a), completion: log.handler("new")) != nil)
        #expect(downloader.queuedDownloadCount == 1)
        fetcher.release(a, with: "stale")
        #expect(await fetcher.events.next() == .started(a))
        #expect(cache.count == 0, "a stale result is not cached")
        fetcher.release(a, with: "fresh")
        let (label, result) = await log.results.next()
        #expect(label == "new")
        #expect(try result.get() == "fresh")
        #expect(log.count("old") == 1 && log.count("new") == 1)
        #expect(cache.value(for: a) == "fresh")
    }

    @Test("value(for:) waits for the value; cancelling the awaiting task throws cancelled (-999)")
    func asyncValue() async throws {
        let fetcher = FakeFetcher()
        let downloader = ResourceDownloader<String>(fetch: fetcher.fetch)
        let waiter = Task { try await downloader.value(for: getRequest(a)) }
        #expect(await fetcher.events.next() == .started(a))
        fetcher.release(a, with: "A")
        #expect(try await waiter.value == "A")

        let cancelled = Task { try await downloader.value(for: getRequest(b)) }
        #expect(await fetcher.events.next() == .started(b))
        cancelled.cancel()
        #expect(await fetcher.events.next() == .cancelled(b), "the only waiter left: the fetch is cancelled")
        do {
            _ = try await cancelled.value
            Issue.record("a cancelled value(for:) returned")
        } catch let error as ResourceDownloaderError {
            #expect(error.code == .cancelled)
        }
    }

    @Test("the bytes-and-decode init decodes, and a decoding error fails the download")
    func decodeInit() async throws {
        let downloader = ResourceDownloader<Int>(fetch: { request in
            var buffer = ByteBuffer()
            buffer.writeString(request.uri.path == "/n" ? "42" : "forty-two")
            return buffer
        }, decode: { buffer in
            struct NotANumber: Error {}
            guard let n = Int(buffer.readableString) else { throw NotANumber() }
            return n
        })
        #expect(try await downloader.value(for: getRequest("http://example.com/n")) == 42)
        await #expect(throws: ResourceDownloaderError.self) {
            try await downloader.value(for: getRequest("http://example.com/x"))
        }
    }
}
