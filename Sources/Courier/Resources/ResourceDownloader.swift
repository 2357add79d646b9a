// ResourceDownloader: AFImageDownloader's core without UIKit — downloads and decodes resources by
// URL, answers from an `AutoPurgingCache` when it can, runs at most N fetches at once and queues
// the rest, and coalesces requests for the same URL into one fetch.
//
// Behaviour kept from AFNetworking (AFImageDownloader.m), in the order `download` checks it:
// 1. The key is the URL as a string, userinfo included (`URL.absoluteString`), plus the optional
//    additional identifier (ResourceCacheKey). A URI that is not absolute fails at once with
//    `badURL` (-1000) and gets no receipt.
// 2. A fetch for the same key in flight or queued: the handler joins it (no second fetch) and gets
//    a receipt of its own — whatever its cache policy, since that fetch is under way now.
// 3. The cache, unless the policy is `reloadIgnoringCache`: a hit calls the handler with the
//    cached value and returns nil (no receipt).
// 4. Otherwise a new coalesced task: started when fewer than `maximumActiveDownloads` fetches run,
//    else queued — at the back (FIFO) or at the front (LIFO) of the queue.
// On completion the task leaves the table; a success is added to the cache when the cache's
// `shouldCache` agrees (failures never are) and every handler is called in the order it joined;
// then the next queued task starts.
//
// `cancel(receipt)` removes that one handler and calls it with `cancelled` (-999). When it was the
// last handler, the task goes too: a queued one leaves the queue, a running one has its fetch
// cancelled (Swift task cancellation). The slot of a running fetch is released when the fetch
// returns, as AFNetworking releases it in the cancelled data task's completion — so no more than
// `maximumActiveDownloads` fetch closures ever run at once, even if one is slow to notice the
// cancellation. A fetch's result that arrives for a task no longer in the table (cancelled, then
// perhaps requested again under a new task) is dropped, as AFNetworking compares the merged task's
// identifier.
//
// Differences, on purpose:
// - Generic over the fetch: a `@Sendable (HTTPRequest) async throws -> Decoded` closure does the
//   transfer and the decoding (AFNetworking used its session manager and an image serializer). A
//   Session-based convenience can be layered on top without changing this type.
// - No main queue: handlers run on the downloader's `callbackExecutor` (an event loop, an actor,
//   any enqueue function), each exactly once, never under the downloader's lock. The default,
//   `.immediate`, runs them on the task that ran the fetch, or inside `download` (cache hit, bad
//   URL) or `cancel` (the cancelled handler); they must not block.
// - Request cache policies: `ResourceCachePolicy` per download; the two that fetch say so to
//   HTTP caches with Cache-Control (no-cache, max-stale) since this downloader has no HTTP cache.
//
// Thread safety: one `Mutex` guards the task table, the queue and the active count. The cache has
// its own lock, taken only under this one (never the other way round).

import CourierBytes
import CourierURL
import Synchronization

/// Which queued download starts next when a slot frees (AFImageDownloaderPrioritization).
public enum DownloadPrioritization: Sendable, Hashable {
    /// First in, first out: the queue's oldest request.
    case fifo
    /// Last in, first out: the most recent request (what a scrolling list wants).
    case lifo
}

/// Downloads resources by URL with a cache, coalescing and a cap on concurrent fetches
/// (AFImageDownloader without UIKit).
public final class ResourceDownloader<Decoded: Sendable>: Sendable {
    /// The completion handler's type: called once with the value or the reason there is none.
    public typealias Completion = @Sendable (Result<Decoded, ResourceDownloaderError>) -> Void

    /// The most fetches that run at once (AFNetworking default: 4).
    public let maximumActiveDownloads: Int
    /// Which queued download starts when a slot frees.
    public let prioritization: DownloadPrioritization
    /// Where successful values are kept by URL and identifier, or nil for no caching.
    public let cache: (any ResourceCache<Decoded>)?
    /// Where completion handlers run (AFNetworking's completion queue).
    public let callbackExecutor: CallbackExecutor

    private let fetch: @Sendable (HTTPRequest) async throws -> Decoded
    private let state = Mutex(State())

    /// Creates a downloader.
    /// - Parameters:
    ///   - maximumActiveDownloads: the most fetches at once (default 4, AFNetworking's); at least 1.
    ///   - prioritization: which queued request starts next (default FIFO).
    ///   - cache: where to keep successful values by URL and identifier (default none).
    ///   - callbackExecutor: where completion handlers run (default: where the result appears).
    ///   - fetch: transfers and decodes one resource; it runs in a task of its own, which is
    ///     cancelled when every handler waiting for it has been cancelled.
    public init(maximumActiveDownloads: Int = 4, prioritization: DownloadPrioritization = .fifo,
                cache: (any ResourceCache<Decoded>)? = nil, callbackExecutor: CallbackExecutor = .immediate,
                fetch: @escaping @Sendable (HTTPRequest) async throws -> Decoded) {
        precondition(maximumActiveDownloads >= 1, "maximumActiveDownloads must be at least 1")
        self.maximumActiveDownloads = maximumActiveDownloads
        self.prioritization = prioritization
        self.cache = cache
        self.callbackExecutor = callbackExecutor
        self.fetch = fetch
    }

    /// Creates a downloader whose fetch returns bytes and whose values are decoded from them.
    /// - Parameters:
    ///   - maximumActiveDownloads: the most fetches at once (default 4); at least 1.
    ///   - prioritization: which queued request starts next (default FIFO).
    ///   - cache: where to keep decoded values (default none).
    ///   - callbackExecutor: where completion handlers run (default: where the result appears).
    ///   - fetch: transfers one resource's body.
    ///   - decode: turns the body into a value; its error fails the download (`fetchFailed`).
    public convenience init(maximumActiveDownloads: Int = 4, prioritization: DownloadPrioritization = .fifo,
                            cache: (any ResourceCache<Decoded>)? = nil, callbackExecutor: CallbackExecutor = .immediate,
                            fetch: @escaping @Sendable (HTTPRequest) async throws -> ByteBuffer,
                            decode: @escaping @Sendable (ByteBuffer) throws -> Decoded) {
        self.init(maximumActiveDownloads: maximumActiveDownloads, prioritization: prioritization, cache: cache,
                  callbackExecutor: callbackExecutor, fetch: { request in try decode(try await fetch(request)) })
    }

    /// The number of fetches running now.
    public var activeDownloadCount: Int { state.withLock { $0.active } }

    /// The number of coalesced downloads waiting for a slot.
    public var queuedDownloadCount: Int { state.withLock { $0.queue.count } }

    // MARK: Downloading

    /// Downloads the resource `request` names, or answers from the cache.
    ///
    /// `completion` runs exactly once, on `callbackExecutor`: with the cached value (and then the
    /// result is nil), with `badURL` (nil too), with `cancelled` after `cancel(_:)`, or with the
    /// fetch's outcome.
    /// - Parameters:
    ///   - request: the request; its URI (as a string) and `identifier` are the cache and
    ///     coalescing key.
    ///   - identifier: AFNetworking's additional identifier: one of several variants of one URL.
    ///   - cachePolicy: how the cache is used (default `.useCache`).
    ///   - receiptID: the identity of this handler's receipt (default: a new one).
    ///   - completion: receives the value or the error.
    /// - Returns: the receipt for `cancel(_:)`, or nil when the request was answered at once.
    @discardableResult
    public func download(_ request: HTTPRequest, identifier: String? = nil, cachePolicy: ResourceCachePolicy = .useCache,
                         receiptID: DownloadReceipt.ID = DownloadReceipt.ID(),
                         completion: @escaping Completion) -> DownloadReceipt? {
        let url = request.uri.redactedDescription
        let executor = callbackExecutor
        let completion: Completion = { result in executor.run { completion(result) } }
        guard request.uri.isAbsolute else {
            completion(.failure(ResourceDownloaderError(code: .badURL, url: url)))
            return nil
        }
        let key = ResourceCacheKey(request, identifier: identifier)
        var request = request
        switch cachePolicy {
        case .useCache: break
        case .reloadIgnoringCache: request.headers.replaceOrAdd(name: "Cache-Control", value: "no-cache")
        case .returnCachedElseLoad: request.headers.replaceOrAdd(name: "Cache-Control", value: "max-stale")
        }
        let outcome = state.withLock { s -> Outcome in
            // 2. Join a task in flight or queued.
            if let taskID = s.tasks[key]?.id {
                s.tasks[key]!.handlers.append(Handler(id: receiptID, completion: completion))
                return .joined(DownloadReceipt(receiptID: receiptID, url: url, key: key, taskID: taskID))
            }
            // 3. The cache.
            if cachePolicy != .reloadIgnoringCache, let value = cache?.value(for: key) {
                return .cached(value)
            }
            // 4. A new task, started or queued.
            let taskID = s.nextTaskID
            s.nextTaskID += 1
            s.tasks[key] = CoalescedTask(id: taskID, request: request, identifier: identifier, handlers: [Handler(id: receiptID, completion: completion)])
            if s.active < maximumActiveDownloads {
                start(key, in: &s)
            } else {
                switch prioritization {
                case .fifo: s.queue.append(QueuedTask(key: key, id: taskID))
                case .lifo: s.queue.insert(QueuedTask(key: key, id: taskID), at: 0)
                }
            }
            return .joined(DownloadReceipt(receiptID: receiptID, url: url, key: key, taskID: taskID))
        }
        switch outcome {
        case .joined(let receipt):
            return receipt
        case .cached(let value):
            completion(.success(value))
            return nil
        }
    }

    /// Cancels one handler: it is removed and called with `cancelled` (-999). When no handler is
    /// left, the download is dropped from the queue or its fetch is cancelled.
    /// - Parameter receipt: the handler's receipt.
    /// - Returns: true when the handler was still waiting (false: it already ran or was cancelled).
    @discardableResult
    public func cancel(_ receipt: DownloadReceipt) -> Bool {
        let removed = state.withLock { s -> Handler? in
            guard var task = s.tasks[receipt.key], task.id == receipt.taskID else { return nil }
            guard let position = task.handlers.firstIndex(where: { $0.id == receipt.receiptID }) else { return nil }
            let handler = task.handlers.remove(at: position)
            if task.handlers.isEmpty {
                s.tasks[receipt.key] = nil
                if let fetchTask = task.fetchTask {
                    // The slot stays taken until the fetch returns (see the file comment).
                    fetchTask.cancel()
                } else {
                    s.queue.removeAll { $0.id == task.id }
                }
            } else {
                s.tasks[receipt.key] = task
            }
            return handler
        }
        guard let removed else { return false }
        // The stored handler already hops to the callback executor.
        removed.completion(.failure(ResourceDownloaderError(code: .cancelled, url: receipt.url)))
        return true
    }

    /// Downloads the resource `request` names, or answers from the cache, and waits for it.
    /// Cancelling the calling task cancels this caller's share of the download (the fetch goes
    /// on while other handlers wait for it).
    /// - Parameters:
    ///   - request: the request; its URI and `identifier` are the cache and coalescing key.
    ///   - identifier: the additional identifier (a variant of the URL).
    ///   - cachePolicy: how the cache is used.
    /// - Returns: the decoded value.
    /// - Throws: `ResourceDownloaderError`: `cancelled`, `badURL` or `fetchFailed`.
    public func value(for request: HTTPRequest, identifier: String? = nil,
                      cachePolicy: ResourceCachePolicy = .useCache) async throws(ResourceDownloaderError) -> Decoded {
        let share = CancellableShare()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Decoded, ResourceDownloaderError>, Never>) in
                let receipt = download(request, identifier: identifier, cachePolicy: cachePolicy) {
                    continuation.resume(returning: $0)
                }
                if let receipt, share.register(receipt) {
                    cancel(receipt)
                }
            }
        } onCancel: {
            if let receipt = share.cancel() { cancel(receipt) }
        }
        return try result.get()
    }

    // MARK: Running fetches

    /// Starts the fetch of the task under `key` (under the lock; the task body runs later).
    private func start(_ key: ResourceCacheKey, in s: inout State) {
        let task = s.tasks[key]!
        s.active += 1
        let id = task.id
        let request = task.request
        s.tasks[key]!.fetchTask = Task { [self] in
            let result: Result<Decoded, ResourceDownloaderError>
            do {
                result = .success(try await fetch(request))
            } catch {
                result = .failure(ResourceDownloaderError(code: .fetchFailed, url: request.uri.redactedDescription,
                                                          underlying: error))
            }
            finish(key, id: id, result: result)
        }
    }

    /// The end of a fetch: hand the result to the task's handlers (if the task is still the
    /// current one for its key), release the slot, start what the queue holds.
    private func finish(_ key: ResourceCacheKey, id: UInt64, result: Result<Decoded, ResourceDownloaderError>) {
        let handlers = state.withLock { s -> [Handler] in
            var handlers: [Handler] = []
            if let task = s.tasks[key], task.id == id {
                s.tasks[key] = nil
                handlers = task.handlers
                if case .success(let value) = result, let cache,
                   cache.shouldCache(value, for: task.request, identifier: task.identifier) {
                    cache.add(value, for: key)
                }
            }
            s.active -= 1
            while s.active < maximumActiveDownloads, !s.queue.isEmpty {
                let next = s.queue.removeFirst()
                precondition(s.tasks[next.key]?.id == next.id, "a queued download is missing from the task table")
                start(next.key, in: &s)
            }
            return handlers
        }
        for handler in handlers { handler.completion(result) }
    }
}

extension ResourceDownloader {
    fileprivate struct Handler: Sendable {
        let id: DownloadReceipt.ID
        let completion: Completion
    }

    /// AFImageDownloaderMergedTask: one fetch and the handlers waiting for it.
    fileprivate struct CoalescedTask: Sendable {
        let id: UInt64
        let request: HTTPRequest
        let identifier: String?
        var handlers: [Handler]
        /// Set when the fetch has started; nil while queued.
        var fetchTask: Task<Void, Never>? = nil
    }

    fileprivate struct QueuedTask: Sendable {
        let key: ResourceCacheKey
        let id: UInt64
    }

    fileprivate struct State: Sendable {
        /// Queued and running tasks by key; a key has at most one.
        var tasks: [ResourceCacheKey: CoalescedTask] = [:]
        /// Tasks waiting for a slot; the next to start is first.
        var queue: [QueuedTask] = []
        /// Fetches running (cancelled ones included until they return).
        var active = 0
        var nextTaskID: UInt64 = 1
    }

    /// What `download` found under the lock.
    fileprivate enum Outcome {
        /// A receipt for a task joined or created.
        case joined(DownloadReceipt)
        /// A cache hit, answered once the lock is released.
        case cached(Decoded)
    }
}

/// The meeting point of `value(for:)`'s registration and its task's cancellation, which may run
/// in either order.
private final class CancellableShare: Sendable {
    private enum State { case waiting, registered(DownloadReceipt), cancelled }
    private let state = Mutex(State.waiting)

    /// Records the receipt. Returns true when the task was cancelled first: cancel it now.
    func register(_ receipt: DownloadReceipt) -> Bool {
        state.withLock { s in
            if case .cancelled = s { return true }
            s = .registered(receipt)
            return false
        }
    }

    /// Records the cancellation. Returns the receipt to cancel, if it was registered already.
    func cancel() -> DownloadReceipt? {
        state.withLock { s in
            if case .registered(let receipt) = s { return receipt }
            s = .cancelled
            return nil
        }
    }
}

extension ResourceDownloader {
    /// Creates a downloader that fetches on `session` and makes values with `serializer`
    /// (AFImageDownloader's `initWithSessionManager:...` with its response serializer): the
    /// common case, without writing the fetch. The serializer's validation applies; its error
    /// fails the download (`fetchFailed`, the `SessionError` underneath).
    /// - Parameters:
    ///   - session: the session the fetches run on (share one with the rest of the program to
    ///     share its connections).
    ///   - serializer: validates and parses each response.
    ///   - maximumActiveDownloads: the most fetches at once (default 4, AFNetworking's).
    ///   - prioritization: which queued request starts next (default FIFO).
    ///   - cache: where to keep values by URL (default none).
    public convenience init<Serializer: ResponseSerializer>(
        session: Session, serializer: Serializer, maximumActiveDownloads: Int = 4,
        prioritization: DownloadPrioritization = .fifo, cache: AutoPurgingCache<String, Decoded>? = nil
    ) where Serializer.Value == Decoded {
        self.init(maximumActiveDownloads: maximumActiveDownloads, prioritization: prioritization, cache: cache,
                  fetch: { request in try await session.dataTask(with: request, serializer: serializer).value })
    }
}
