// Session: AFURLSessionManager's role (design §8). It owns a connection pool (and a resolver when
// the configuration has --resolve or --connect-to overrides or an address family), makes tasks, keeps a registry of live tasks for
// invalidation, and fans lifecycle events out to subscribers.
//
// Lifecycle: usable → (finishTasksAndInvalidate: no new tasks, running ones finish) or
// (invalidateAndCancel: every task cancelled) → invalidated (pool shut down: every connection
// closed, resolver thread stopped). Releasing the last reference to a session does the same as
// invalidateAndCancel in the background, so connections and threads never leak.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPool
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// Session lifecycle events (AFNetworking's notifications and session delegate calls).
public enum SessionEvent: Sendable {
    /// A task started or continued.
    case taskResumed(Int)
    /// A task was paused.
    case taskSuspended(Int)
    /// A task finished: its identifier, its error (nil on success), its metrics and, for a
    /// download that succeeded, where the file is (AFNetworking's task-did-complete
    /// notification and its userInfo).
    case taskCompleted(TaskCompletion)
    /// A download task moved its file into place.
    case downloadMoved(Int, to: String)
    /// A download task could not move (or commit) its file into place
    /// (AFURLSessionDownloadTaskDidFailToMoveFileNotification): the file error.
    case downloadMoveFailed(Int, error: SessionError)
    /// The session was invalidated; no further events follow.
    case invalidated
}

/// What `SessionEvent.taskCompleted` carries.
public struct TaskCompletion: Sendable {
    /// The task's identifier.
    public var identifier: Int
    /// Why the task failed; nil on success.
    public var error: SessionError?
    /// The task's metrics (timings, bytes, redirects, the effective URL).
    public var metrics: TaskMetrics
    /// For a download that succeeded, the path of its file; nil otherwise.
    public var downloadLocation: String?
}

/// The state shared by a session and its tasks.
final class SessionState: Sendable {
    let configuration: SessionConfiguration
    let pool: ConnectionPool
    let resolver: Resolver?
    /// The retry budget of each host (docs/retry.md).
    let retryBudgets = RetryBudgets()
    /// Digest nonce counts (nc) for the whole session.
    let digestNonceCounts = DigestNonceCounts()
    /// The proxy configuration made concrete when the session was created (the environment is
    /// read then, once).
    let proxies: ProxySettings
    /// Why the session's own resolver could not start, when it could not: every task fails with it.
    let resolverFailure: SessionError?
    /// The handlers settable at any time (`Session.setRedirectHandler(_:)` and the others).
    let hooks: SessionHookStore
    private struct State {
        var nextIdentifier = 0
        var tasks: [Int: TaskLifecycle] = [:]
        /// The tasks counted on the activity tracker (resumed, not yet suspended or completed).
        var activeTasks: Set<Int> = []
        var subscribers: [AsyncStream<SessionEvent>.Continuation] = []
        var invalidating = false
        var invalidated = false
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
        /// Later invalidate calls, waiting for the first one to finish.
        var invalidationWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(configuration: SessionConfiguration) {
        LiveObjects.created(.session)
        self.configuration = configuration
        hooks = SessionHookStore(SessionHooks(configuration: configuration))
        proxies = configuration.proxy.resolve()
        var resolver: Resolver?
        var resolverFailure: SessionError?
        if !configuration.resolveOverrides.isEmpty || !configuration.connectTo.isEmpty || configuration.addressFamily != nil {
            var settings = Resolver.Configuration(overrides: configuration.resolveOverrides)
            settings.connectTo = configuration.connectTo
            settings.addressFamily = configuration.addressFamily
            do { resolver = try Resolver(configuration: settings) } catch {
                // Without its own resolver the session would quietly connect where the system's
                // lookup says, ignoring the overrides it was given: every task fails instead.
                var failure = SessionError(.connection, "the session's resolver (for its --resolve/--connect-to overrides or address family) could not start: \(error)")
                failure.errno = error
                resolverFailure = failure
            }
        }
        self.resolver = resolver
        self.resolverFailure = resolverFailure
        var options = HTTP1ConnectionOptions()
        options.connectTimeout = configuration.connectTimeout
        options.tlsHandshakeTimeout = configuration.connectTimeout
        options.connectAndHandshakeTimeout = configuration.connectTimeout
        options.idleTimeout = configuration.idleTimeout
        options.attemptDelay = configuration.connectionAttemptDelay
        options.unixSocket = configuration.unixSocket
        options.localBinding = configuration.localBinding
        options.keepAlive = configuration.tcpKeepAlive
        options.maximumReceiveRate = configuration.maximumReceiveRate
        options.maximumSendRate = configuration.maximumSendRate
        options.lowSpeedLimit = configuration.lowSpeedLimit
        options.ignoresContentLength = configuration.ignoresContentLength
        options.passesChunkedFramingThrough = configuration.passesChunkedFramingThrough
        options.limits = configuration.parserLimits
        options.resolver = resolver
        options.securityPolicy = configuration.securityPolicy
        options.wireTap = configuration.wireTap
        // Read when each connection is opened: the handler can be set at any time.
        let hooks = self.hooks
        options.currentServerTrustHandler = {
            guard let handler = hooks.withLock({ $0.challenge }) else { return nil }
            return { challenge in await handler(.serverTrust(challenge)) }
        }
        var limits = PoolStateMachine.Limits()
        limits.maxConnectionsPerOrigin = configuration.maximumConnectionsPerHost
        limits.idleTimeout = configuration.connectionIdleTimeout
        limits.waitTimeout = max(limits.waitTimeout, configuration.connectTimeout + configuration.idleTimeout)
        pool = ConnectionPool(limits: limits, tls: configuration.tls, options: options)
    }

    deinit { LiveObjects.destroyed(.session) }

    /// Registers a new task; nil once invalidation started.
    func register() -> TaskLifecycle? {
        state.withLock { s -> TaskLifecycle? in
            guard !s.invalidating else { return nil }
            s.nextIdentifier += 1
            let core = TaskLifecycle(identifier: s.nextIdentifier, eventTap: configuration.wireTap?.event)
            core.session = self
            s.tasks[s.nextIdentifier] = core
            return core
        }
    }

    /// A task identifier for a task refused because the session is invalid.
    func refusedIdentifier() -> Int { state.withLock { s in s.nextIdentifier += 1; return s.nextIdentifier } }

    func taskFinished(_ identifier: Int, error: SessionError?, metrics: TaskMetrics, location: String? = nil) {
        let completion = TaskCompletion(identifier: identifier, error: error, metrics: metrics, downloadLocation: location)
        hooks.withLock { $0.taskCompleted }?(completion)
        post(.taskCompleted(completion))
        let waiters = state.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.tasks[identifier] = nil
            guard s.tasks.isEmpty else { return [] }
            let waiters = s.idleWaiters
            s.idleWaiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func post(_ event: SessionEvent) {
        if let tracker = configuration.activityTracker { track(event, on: tracker) }
        let subscribers = state.withLock { $0.subscribers }
        for subscriber in subscribers { subscriber.yield(event) }
    }

    /// Counts each task on the activity tracker from resume to suspension or completion
    /// (AFNetworkActivityIndicatorManager's notifications): once, however often it is resumed.
    private func track(_ event: SessionEvent, on tracker: NetworkActivityTracker) {
        let change: Int = state.withLock { s in
            switch event {
            case .taskResumed(let id): return s.activeTasks.insert(id).inserted ? 1 : 0
            case .taskSuspended(let id): return s.activeTasks.remove(id) != nil ? -1 : 0
            case .taskCompleted(let completion): return s.activeTasks.remove(completion.identifier) != nil ? -1 : 0
            default: return 0
            }
        }
        if change > 0 { tracker.incrementActivityCount() } else if change < 0 { tracker.decrementActivityCount() }
    }

    func subscribe() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream(bufferingPolicy: .unbounded)
        let closed = state.withLock { s -> Bool in
            if !s.invalidated { s.subscribers.append(continuation) }
            return s.invalidated
        }
        if closed {
            continuation.yield(.invalidated)
            continuation.finish()
        }
        return stream
    }

    /// Stops accepting tasks; with `cancel`, cancels the running ones; waits for them; shuts down.
    /// A later call (invalidateAndCancel after finishTasksAndInvalidate, as NSURLSession allows)
    /// still cancels what runs when asked to, and every call returns only once the session is
    /// invalidated.
    func invalidate(cancel: Bool) async {
        let (first, running) = state.withLock { s -> (Bool, [TaskLifecycle]) in
            let running = cancel ? Array(s.tasks.values) : []
            guard !s.invalidating else { return (false, running) }
            s.invalidating = true
            return (true, running)
        }
        for task in running { task.cancel() }
        guard first else {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let done = state.withLock { s -> Bool in
                    if s.invalidated { return true }
                    s.invalidationWaiters.append(continuation)
                    return false
                }
                if done { continuation.resume() }
            }
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if s.tasks.isEmpty { return true }
                s.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
        await pool.shutdown()
        await resolver?.shutdown()
        let (subscribers, waiters) = state.withLock { s -> ([AsyncStream<SessionEvent>.Continuation], [CheckedContinuation<Void, Never>]) in
            s.invalidated = true
            let all = (s.subscribers, s.invalidationWaiters)
            s.subscribers.removeAll()
            s.invalidationWaiters.removeAll()
            return all
        }
        for subscriber in subscribers {
            subscriber.yield(.invalidated)
            subscriber.finish()
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// AFNetworking's `AFURLSessionManager`: makes data, upload, stream and download tasks that share
/// a connection pool, reports progress and lifecycle events, follows redirects, decodes content.
///
/// ```swift
/// let session = Session()
/// let task = session.dataTask(with: request, serializer: JSONResponseSerializer())
/// task.resume()
/// let json = try await task.value
/// ```
public final class Session: Sendable {
    /// The configuration the session was made with.
    public let configuration: SessionConfiguration
    let storage: SessionState

    /// Creates a session.
    /// - Parameter configuration: timeouts, pool limits, TLS, redirects, defaults.
    public init(configuration: SessionConfiguration = SessionConfiguration()) {
        self.configuration = configuration
        storage = SessionState(configuration: configuration)
    }

    deinit {
        let storage = self.storage
        Task { await storage.invalidate(cancel: true) }
    }

    // MARK: Tasks

    /// A data task whose body is kept in memory (up to `maximumBodySize`) and returned raw.
    /// - Parameter request: the request.
    /// - Returns: a suspended task.
    public func dataTask(with request: HTTPRequest) -> DataTask<ByteBuffer> {
        dataTask(with: request, serializer: DataResponseSerializer())
    }

    /// A data task whose body goes through `serializer` (validation, then parsing).
    /// - Parameters:
    ///   - request: the request.
    ///   - serializer: the response serializer.
    /// - Returns: a suspended task.
    public func dataTask<S: ResponseSerializer>(with request: HTTPRequest, serializer: S) -> DataTask<S.Value> {
        DataTask(session: storage, request: request, serializer: serializer)
    }

    /// An upload task: `source` replaces the request's body.
    /// - Parameters:
    ///   - request: the request (method, URI, fields).
    ///   - source: the body.
    ///   - serializer: the response serializer.
    /// - Returns: a suspended task.
    public func uploadTask<S: ResponseSerializer>(with request: HTTPRequest, from source: UploadSource, serializer: S) -> DataTask<S.Value> {
        var request = request
        request.body = source.body
        if case .multipart(let form) = source, !request.headers.contains(name: "Content-Type") {
            // The boundary lives in the form: the field cannot be right unless it comes from it.
            request.headers.add(name: "Content-Type", value: form.contentType)
        }
        return DataTask(session: storage, request: request, serializer: serializer)
    }

    /// An upload task with the raw response body as its value.
    /// - Parameters:
    ///   - request: the request.
    ///   - source: the body.
    /// - Returns: a suspended task.
    public func uploadTask(with request: HTTPRequest, from source: UploadSource) -> DataTask<ByteBuffer> {
        uploadTask(with: request, from: source, serializer: DataResponseSerializer())
    }

    /// A task whose response body streams as an `AsyncSequence` with back-pressure.
    /// - Parameter request: the request.
    /// - Returns: a suspended task (`value`, `result` and `response` resume it).
    public func streamTask(with request: HTTPRequest) -> StreamTask {
        StreamTask(session: storage, request: request)
    }

    /// A download task: the body goes to a temporary file in the destination's directory and is
    /// renamed into place only on success.
    /// - Parameters:
    ///   - request: the request.
    ///   - keepsPartialData: whether a failed download keeps its temporary file as resume data
    ///     (when the server named a validator); false removes it on any failure.
    ///   - destination: called with the final response head and URL; returns the final path.
    /// - Returns: a suspended task.
    public func downloadTask(with request: HTTPRequest, keepsPartialData: Bool = true,
                             destination: @escaping @Sendable (HTTPResponseHead, URI) -> String) -> DownloadTask {
        DownloadTask(session: storage, request: request, resume: nil, keepsPartialData: keepsPartialData,
                     destination: { head, uri in DownloadDestination(path: destination(head, uri)) })
    }

    /// A download task whose destination also says what to do about an existing file, missing
    /// directories and a failure (`DownloadDestination`: curl's -J, --no-clobber, --create-dirs,
    /// --remove-on-error).
    /// - Parameters:
    ///   - request: the request.
    ///   - keepsPartialData: whether a failed download keeps its temporary file as resume data.
    ///   - placement: called with the final response head and URL; returns the destination.
    /// - Returns: a suspended task.
    public func downloadTask(with request: HTTPRequest, keepsPartialData: Bool = true,
                             placement: @escaping @Sendable (HTTPResponseHead, URI) -> DownloadDestination) -> DownloadTask {
        DownloadTask(session: storage, request: request, resume: nil, keepsPartialData: keepsPartialData, destination: placement)
    }

    /// A download task that continues a partial download (Range + If-Range).
    /// - Parameters:
    ///   - data: the resume record of the earlier attempt.
    ///   - headers: extra request fields (the record's URL is requested with GET).
    ///   - destination: called with the final response head and URL; returns the final path.
    /// - Returns: a suspended task.
    public func downloadTask(resumingWith data: ResumeData, headers: HTTPHeaders = HTTPHeaders(),
                             destination: @escaping @Sendable (HTTPResponseHead, URI) -> String) -> DownloadTask {
        downloadTask(resumingWith: data, headers: headers, placement: { head, uri in DownloadDestination(path: destination(head, uri)) })
    }

    /// A download task that continues a partial download, with a `DownloadDestination`.
    /// - Parameters:
    ///   - data: the resume record of the earlier attempt.
    ///   - headers: extra request fields (the record's URL is requested with GET).
    ///   - placement: called with the final response head and URL; returns the destination.
    /// - Returns: a suspended task.
    public func downloadTask(resumingWith data: ResumeData, headers: HTTPHeaders = HTTPHeaders(),
                             placement: @escaping @Sendable (HTTPResponseHead, URI) -> DownloadDestination) -> DownloadTask {
        guard let uri = try? URI(parsing: data.url) else {
            // No placeholder request: the task fails at once, naming the record's URL.
            let error = SessionError(.invalidURL, "the resume data's URL does not parse: \(data.url)")
            return DownloadTask(session: storage, failing: error, resume: data)
        }
        let request = HTTPRequest(method: .get, uri: uri, headers: headers)
        return DownloadTask(session: storage, request: request, resume: data, keepsPartialData: true, destination: placement)
    }

    // MARK: Inspection and lifecycle

    /// The exact bytes (head and body) that would be sent for `request` with this session's
    /// defaults and the cookie jar's cookies for its URL — what `courier --offline` prints. The
    /// body comes from the same source the live exchange sends from (files and streams read off
    /// the cooperative pool), framed as the wire frames it: a stream of unknown length is one
    /// chunk per read.
    /// - Parameter request: the request.
    /// - Returns: the bytes.
    /// - Throws: `SessionError` (`.invalidURL`, `.unsupportedScheme`, `.invalidRequest`,
    ///   `.fileReadFailed`).
    public func renderedRequest(for request: HTTPRequest) async throws(SessionError) -> ByteBuffer {
        var prepared = RequestPreparation.prepare(request, configuration: configuration, isRangeRequest: false)
        _ = try RequestPreparation.origin(of: prepared.uri)
        prepared = RequestPreparation.addingCookies(to: prepared, from: configuration.cookieJar)
        let measured = try await RequestPreparation.measure(prepared)
        let length = measured.length
        prepared = RequestPreparation.addingExpectation(to: prepared, length: length, configuration: configuration, refused: false).request
        let head = try RequestPreparation.encodeHead(prepared, length: length)
        var bytes = ByteBuffer(bytes: head.bytes.joined)
        let url = prepared.uri.redactedDescription
        if case .asyncStream = prepared.body {
            // Rendering would spend a one-pass source that the request itself then lacks.
            throw SessionError(.invalidRequest, "an asynchronous body stream cannot be rendered without sending the request", url: url)
        }
        let chunked = head.framing == .chunked
        var encoder = ChunkedEncoder()
        // Not paced: a throttled form renders at once (only the wire is held to the rate).
        let source = RequestBodySource(prepared.body, measured: measured, url: url, paced: false)
        defer { source.close() }
        while let segment = try await source.next(fileRanges: false) {
            guard case .bytes(let piece) = segment else { preconditionFailure("a file range where bytes were asked for") }
            if chunked {
                bytes.writeBytes(encoder.encodeChunk(piece).joined)
            } else {
                bytes.writeBuffer(piece)
            }
        }
        if chunked {
            do { bytes.writeBytes(try encoder.end().joined) } catch {
                throw SessionError(.invalidRequest, "the chunked body cannot be ended: \(error)", url: url)
            }
        }
        return bytes
    }

    /// Lifecycle events, from now on; each call makes a new subscriber. The stream ends after
    /// `.invalidated`.
    /// - Returns: the events.
    public func events() -> AsyncStream<SessionEvent> { storage.subscribe() }

    /// Refuses new tasks, lets running tasks finish, then closes every connection.
    public func finishTasksAndInvalidate() async { await storage.invalidate(cancel: false) }

    /// Cancels every task, then closes every connection.
    public func invalidateAndCancel() async { await storage.invalidate(cancel: true) }
}
