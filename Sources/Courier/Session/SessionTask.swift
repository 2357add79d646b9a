// SessionTask: what every task handle shares (AFNetworking's NSURLSessionTask plus the manager's
// per-task delegate): the state machine suspended → running ⇄ suspended → (canceling) → completed,
// the pause gate the transfer waits on, progress fan-out, the observer, and the completion waiters.
//
// Invariants:
// - a task is created suspended; the first `resume()` starts its work, exactly once;
// - `cancel()` is final: a task not yet started completes at once with `.cancelled`; a running task
//   has its work cancelled and completes when the work returns;
// - `suspend()` on a running task pauses the transfer at the next body slice (no byte is read
//   while paused: back-pressure reaches the server); `resume()` continues it;
// - the outcome is set once; every waiter, past or future, sees the same outcome;
// - ownership ends (design §3): once started (or cancelled before it started) the core lets go of
//   its work and cancellation closures, and once completed of the work's `Task`, the progress
//   handlers, the streams and the observer — so nothing a caller gave the task (which may capture
//   the task itself) forms a cycle, and a finished task is owned by its caller alone;
// - every real change of state is told once, in the order it happened (AFNetworking's
//   did-resume / did-suspend notifications): the state streams get it and the observer gets
//   `.resumed` / `.suspended` under the state lock (both only queue), and the session's
//   `taskResumed` / `taskSuspended` (and through them the activity tracker) go out from an
//   outbox outside the lock. A no-op (suspending a suspended or finished task, resuming a
//   running one) tells nothing. The work waits for the outbox before it starts and before the
//   session hears of its completion, so `taskResumed` always comes first and `taskCompleted` last.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierURL
import Synchronization

/// The state of a task (NSURLSessionTaskState).
public enum TaskState: Sendable, Hashable {
    /// Created or paused; `resume()` runs it.
    case suspended
    /// Running.
    case running
    /// `cancel()` was called; the work is winding down.
    case canceling
    /// Finished, successfully or not.
    case completed
}

/// Bytes transferred so far and the total when it is known.
public struct TransferProgress: Sendable, Hashable {
    /// Bytes done.
    public var completed: UInt64
    /// The expected total, when known (Content-Length, or the request body's length).
    public var total: UInt64?

    /// Creates a progress value.
    /// - Parameters:
    ///   - completed: bytes done.
    ///   - total: the total, if known.
    public init(completed: UInt64, total: UInt64?) {
        self.completed = completed
        self.total = total
    }

    /// `completed / total`, or nil when the total is unknown or zero.
    public var fractionCompleted: Double? {
        guard let total, total > 0 else { return nil }
        return Double(completed) / Double(total)
    }
}

/// What happens during a task, in order, for tracing (curl `-v`) and write-out variables.
public enum TaskEvent: Sendable {
    /// A connection is ready for the next request (new or reused).
    case connected(host: String, port: UInt16, address: String?, reused: Bool, tls: Bool)
    /// The exact bytes of a request head that were sent (every redirect hop too).
    case requestHead(ByteBuffer)
    /// The task started or continued (`resume()` on a suspended task; AFNetworking's
    /// AFNetworkingTaskDidResumeNotification). The first event of every task that runs.
    case resumed
    /// The task was paused (`suspend()` on a running task; AFNetworkingTaskDidSuspendNotification).
    /// Suspending a task that is not running tells nothing.
    case suspended
    /// A response head received (redirect responses, 401s, a proxy's CONNECT answers and heads
    /// served from the cache too).
    case responseHead(HTTPResponseHead)
    /// A redirect is being followed.
    case redirect(from: URI, to: URI, status: Int)
    /// The cookie jar stored a cookie from a Set-Cookie field of the response head just
    /// received: a new one, or one that `replaced` a cookie of the same identity (curl's `-v`
    /// "Added cookie" and "Replaced cookie" lines). Refused and deleting fields make no event.
    case cookieStored(Cookie, replaced: Bool)
    /// The retry policy sends the request again: attempt number `attempt` (2 for the first
    /// retry) starts after `delay`; `retriesLeft` more may follow (curl's "Will retry in N
    /// seconds. M retries left.").
    case retry(attempt: Int, reason: RetryReason, delay: Duration, retriesLeft: Int)
    /// What the session's HTTP cache did for the request: served it (`hit`), found nothing
    /// usable (`miss`), had it confirmed by a 304 (`revalidated`), or stored the response
    /// (`stored`, after its body ended) — docs/cache.md.
    case cache(CacheEvent)
}

/// What the HTTP cache did for a request (`TaskEvent.cache`, `TaskMetrics.cacheEvents`).
public enum CacheEvent: Sendable, Hashable, CustomStringConvertible {
    /// Served from the cache without contacting the origin.
    case hit
    /// Nothing stored could be used: the request went to the origin (or failed offline).
    case miss
    /// A stored response was validated: the origin answered 304 and the stored body was served.
    case revalidated
    /// The response was stored.
    case stored

    /// "hit", "miss", "revalidated", "stored".
    public var description: String {
        switch self {
        case .hit: return "hit"
        case .miss: return "miss"
        case .revalidated: return "revalidated"
        case .stored: return "stored"
        }
    }
}

/// Where callbacks run (AFNetworking's completion queue): a function that runs a job.
public struct CallbackExecutor: Sendable {
    let run: @Sendable (@escaping @Sendable () -> Void) -> Void

    /// Creates an executor from a function that runs each job it is given, once.
    /// - Parameter run: the function.
    public init(_ run: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void) { self.run = run }

    /// Runs callbacks at once on the thread that finished the task.
    public static let immediate = CallbackExecutor { job in job() }
    /// Runs each callback in a new unstructured Swift task.
    public static let task = CallbackExecutor { job in Task { job() } }
}

/// What every task handle offers (AFNetworking's NSURLSessionTask surface).
public protocol SessionTask: AnyObject, Sendable {
    /// A number unique within the session.
    var identifier: Int { get }
    /// The current state.
    var state: TaskState { get }
    /// Starts the task, or continues a suspended one.
    func resume()
    /// Pauses the task: a running transfer stops reading at the next body slice.
    func suspend()
    /// Cancels the task; it completes with `SessionError.cancelled` (-999).
    func cancel()
    /// Upload progress values, in order; the stream ends when the task completes.
    func uploadProgress() -> AsyncStream<TransferProgress>
    /// Download progress values, in order; the stream ends when the task completes.
    func downloadProgress() -> AsyncStream<TransferProgress>
    /// The state now, then each change of it, in order (`running` and `suspended` as often as
    /// the task is resumed and suspended, then `canceling` if it is cancelled while it runs, then
    /// `completed`); the stream ends after `completed`. Each call makes a new stream.
    func stateChanges() -> AsyncStream<TaskState>
    /// Sets callbacks for progress (called in order, on the transfer's thread).
    func setProgressHandler(upload: (@Sendable (TransferProgress) -> Void)?, download: (@Sendable (TransferProgress) -> Void)?)
    /// Sets the observer of task events; call it before `resume()`.
    func setObserver(_ observer: @escaping @Sendable (TaskEvent) -> Void)
}

/// The shared machinery behind every task kind.
final class TaskLifecycle: Sendable {
    let identifier: Int
    private struct Shared {
        var state: TaskState = .suspended
        var started = false
        var work: Task<Void, Never>?
        var gateWaiters: [CheckedContinuation<Void, Never>] = []
        var uploadStreams: [AsyncStream<TransferProgress>.Continuation] = []
        var downloadStreams: [AsyncStream<TransferProgress>.Continuation] = []
        var uploadHandler: (@Sendable (TransferProgress) -> Void)?
        var downloadHandler: (@Sendable (TransferProgress) -> Void)?
        var observer: (@Sendable (TaskEvent) -> Void)?
        var finished = false
        var stateStreams: [AsyncStream<TaskState>.Continuation] = []
        /// Changes (`running`, `suspended`) the session has not been told of yet, oldest first.
        var outbox: [TaskState] = []
        /// Whether some caller is telling the session the outbox's changes now.
        var announcing = false
        var announcedWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let shared = Mutex(Shared())
    /// Runs the task's work; set once by the owner before the first resume.
    private let starter: Mutex<(@Sendable (TaskLifecycle) async -> Void)?> = Mutex(nil)
    /// Completes the task as cancelled without running it.
    private let cancelledBeforeStart: Mutex<(@Sendable () -> Void)?> = Mutex(nil)
    private struct WeakSession { weak var value: SessionState? }
    private let sessionReference = Mutex(WeakSession())
    /// The owning session (weak: a session's tasks must not keep it alive).
    var session: SessionState? {
        get { sessionReference.withLock { $0.value } }
        set { sessionReference.withLock { $0.value = newValue } }
    }

    /// The session's wire tap's event observer, called in step with the transfer (the trace
    /// orders events among the bytes); nil without a tap.
    private let eventTap: (@Sendable (TaskEvent) -> Void)?

    init(identifier: Int, eventTap: (@Sendable (TaskEvent) -> Void)? = nil) {
        self.identifier = identifier
        self.eventTap = eventTap
        LiveObjects.created(.taskLifecycle)
    }

    deinit { LiveObjects.destroyed(.taskLifecycle) }

    func install(work: @escaping @Sendable (TaskLifecycle) async -> Void, cancelledBeforeStart: @escaping @Sendable () -> Void) {
        starter.withLock { $0 = work }
        self.cancelledBeforeStart.withLock { $0 = cancelledBeforeStart }
    }

    var state: TaskState { shared.withLock { $0.state } }
    var hasStarted: Bool { shared.withLock { $0.started } }
    var isCancelled: Bool { shared.withLock { $0.state == .canceling } }

    func resume() {
        enum Action { case none, started, wake([CheckedContinuation<Void, Never>]) }
        let action = shared.withLock { s -> Action in
            guard s.state == .suspended else { return .none }
            enter(&s, .running)
            if !s.started {
                s.started = true
                // Taken, not copied: the core must not keep the work (and what it captured) alive
                // once it ran, and the cancel-before-start path can no longer happen.
                let work = starter.withLock { w in defer { w = nil }; return w }
                cancelledBeforeStart.withLock { $0 = nil }
                guard let work else { return .none }
                // Created under the lock so a concurrent cancel() always finds it. The work waits
                // until the session has been told the task resumed, so that event precedes every
                // later one, the completion included.
                s.work = Task {
                    await self.announced()
                    await work(self)
                }
                return .started
            }
            let waiters = s.gateWaiters
            s.gateWaiters.removeAll()
            return .wake(waiters)
        }
        switch action {
        case .none: return
        case .started: announce()
        case .wake(let waiters):
            announce()
            for waiter in waiters { waiter.resume() }
        }
    }

    func suspend() {
        let changed = shared.withLock { s -> Bool in
            guard s.state == .running else { return false }
            enter(&s, .suspended)
            return true
        }
        if changed { announce() }
    }

    func cancel() {
        enum Action { case none, cancelUnstarted, cancelRunning(Task<Void, Never>?, [CheckedContinuation<Void, Never>]) }
        let action = shared.withLock { s -> Action in
            guard s.state != .completed && s.state != .canceling else { return .none }
            enter(&s, .canceling)
            let waiters = s.gateWaiters
            s.gateWaiters.removeAll()
            if !s.started {
                s.started = true
                return .cancelUnstarted
            }
            return .cancelRunning(s.work, waiters)
        }
        switch action {
        case .none: return
        case .cancelUnstarted:
            starter.withLock { $0 = nil }
            let completion = cancelledBeforeStart.withLock { c in defer { c = nil }; return c }
            completion?()
        case .cancelRunning(let work, let waiters):
            work?.cancel()
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Suspends the transfer while the task is suspended; returns at once when running.
    /// - Throws: `SessionError.cancelled` when the task was cancelled.
    func waitWhileSuspended() async throws(SessionError) {
        // Running (the usual case, once per body slice): no continuation, which is an allocation.
        if shared.withLock({ $0.state != .suspended }) {
            if isCancelled || Task.isCancelled { throw SessionError(.cancelled, "the task was cancelled") }
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = shared.withLock { s -> Bool in
                guard s.state == .suspended else { return true }
                s.gateWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        if isCancelled || Task.isCancelled { throw SessionError(.cancelled, "the task was cancelled") }
    }

    /// Marks the task completed and ends the progress streams. Returns false if it already was.
    @discardableResult
    func markCompleted() -> Bool {
        let streams = shared.withLock { s -> ([AsyncStream<TransferProgress>.Continuation], [AsyncStream<TaskState>.Continuation])? in
            guard !s.finished else { return nil }
            s.finished = true
            enter(&s, .completed)
            let all = (s.uploadStreams + s.downloadStreams, s.stateStreams)
            s.uploadStreams.removeAll()
            s.downloadStreams.removeAll()
            s.stateStreams.removeAll()
            // What the caller handed in may capture the task: dropped here so no cycle outlives
            // the task. The work's Task handle goes too (it is done, or finishing this call).
            s.uploadHandler = nil
            s.downloadHandler = nil
            s.observer = nil
            s.work = nil
            return all
        }
        guard let streams else { return false }
        for stream in streams.0 { stream.finish() }
        for stream in streams.1 { stream.finish() }
        return true
    }

    // MARK: State changes

    /// Enters `state` (under the lock): the state streams get it, and a resume or a suspension
    /// is queued for the observer and put in the outbox for the session (`announce()`).
    private func enter(_ s: inout Shared, _ state: TaskState) {
        s.state = state
        for stream in s.stateStreams { stream.yield(state) }
        guard state == .running || state == .suspended else { return }
        s.outbox.append(state)
        if let observer = s.observer {
            let event: TaskEvent = state == .running ? .resumed : .suspended
            callbacks.run { observer(event) }
        }
    }

    /// Tells the session the outbox's changes, in order, outside the state lock; one caller at a
    /// time does the telling (a change queued meanwhile is told by the caller already at it).
    private func announce() {
        let claimed = shared.withLock { s -> Bool in
            guard !s.announcing, !s.outbox.isEmpty else { return false }
            s.announcing = true
            return true
        }
        guard claimed else { return }
        while true {
            let (next, waiters) = shared.withLock { s -> (TaskState?, [CheckedContinuation<Void, Never>]) in
                guard s.outbox.isEmpty else { return (s.outbox.removeFirst(), []) }
                s.announcing = false
                defer { s.announcedWaiters.removeAll() }
                return (nil, s.announcedWaiters)
            }
            guard let next else {
                for waiter in waiters { waiter.resume() }
                return
            }
            session?.post(next == .running ? .taskResumed(identifier) : .taskSuspended(identifier))
        }
    }

    /// Returns once the session has been told every change made so far.
    func announced() async {
        if shared.withLock({ !$0.announcing && $0.outbox.isEmpty }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { s -> Bool in
                if !s.announcing && s.outbox.isEmpty { return true }
                s.announcedWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// Marks the task completed (see `markCompleted()`) once its last progress value and event
    /// have run, then waits until the session has been told every change before it: the work
    /// calls this, then tells the session of the completion.
    func finishWork() async {
        await callbacksDrained()
        markCompleted()
        await announced()
    }

    // MARK: Progress and observation

    func uploadProgressStream() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .unbounded)
        let finished = shared.withLock { s -> Bool in
            if !s.finished { s.uploadStreams.append(continuation) }
            return s.finished
        }
        if finished { continuation.finish() }
        return stream
    }

    func stateStream() -> AsyncStream<TaskState> {
        let (stream, continuation) = AsyncStream<TaskState>.makeStream(bufferingPolicy: .unbounded)
        // The current state goes in under the lock, so no change comes between it and the
        // subscription.
        let finished = shared.withLock { s -> Bool in
            continuation.yield(s.state)
            if !s.finished { s.stateStreams.append(continuation) }
            return s.finished
        }
        if finished { continuation.finish() }
        return stream
    }

    func downloadProgressStream() -> AsyncStream<TransferProgress> {
        let (stream, continuation) = AsyncStream<TransferProgress>.makeStream(bufferingPolicy: .unbounded)
        let finished = shared.withLock { s -> Bool in
            if !s.finished { s.downloadStreams.append(continuation) }
            return s.finished
        }
        if finished { continuation.finish() }
        return stream
    }

    func setProgressHandler(upload: (@Sendable (TransferProgress) -> Void)?, download: (@Sendable (TransferProgress) -> Void)?) {
        shared.withLock { s in
            guard !s.finished else { return }
            s.uploadHandler = upload
            s.downloadHandler = download
        }
    }

    func setObserver(_ observer: @escaping @Sendable (TaskEvent) -> Void) {
        shared.withLock { s in if !s.finished { s.observer = observer } }
    }

    // The transfer runs on the event loop; the caller's handlers and observer must not (a slow
    // one would stall every connection of the loop), so they run in order on `callbacks`, a
    // serial queue on the global executor; stream continuations are cheap and yield at once.

    /// Made when the first callback is queued: most tasks have no handler and no observer, and
    /// the queue is an allocation.
    private let callbackQueue = Mutex<CallbackQueue?>(nil)

    private var callbacks: CallbackQueue {
        callbackQueue.withLock { queue in
            if let queue { return queue }
            let made = CallbackQueue()
            queue = made
            return made
        }
    }

    func reportUpload(_ progress: TransferProgress) {
        let (handler, streams) = shared.withLock { ($0.uploadHandler, $0.uploadStreams) }
        if let handler { callbacks.progress(.upload, progress, handler) }
        for stream in streams { stream.yield(progress) }
    }

    func reportDownload(_ progress: TransferProgress) {
        let (handler, streams) = shared.withLock { ($0.downloadHandler, $0.downloadStreams) }
        if let handler { callbacks.progress(.download, progress, handler) }
        for stream in streams { stream.yield(progress) }
    }

    func emit(_ event: TaskEvent) {
        eventTap?(event)
        guard let observer = shared.withLock({ $0.observer }) else { return }
        callbacks.run { observer(event) }
    }

    /// Waits until every callback queued so far has run (the task's completion comes after its
    /// last progress value and event, as AFNetworking's delegate calls do).
    func callbacksDrained() async {
        guard let queue = callbackQueue.withLock({ $0 }) else { return }
        await queue.drained()
    }

    var hasObserver: Bool { shared.withLock { $0.observer != nil } }
}

/// The parts of the public protocol every task kind forwards to its core.
protocol TaskCoreOwner: SessionTask {
    var core: TaskLifecycle { get }
}

extension TaskCoreOwner {
    /// A number unique within the session.
    public var identifier: Int { core.identifier }
    /// The current state.
    public var state: TaskState { core.state }
    /// Starts the task, or continues a suspended one.
    public func resume() { core.resume() }
    /// Pauses the task at the next body slice.
    public func suspend() { core.suspend() }
    /// Cancels the task (-999).
    public func cancel() { core.cancel() }
    /// Upload progress values, in order.
    public func uploadProgress() -> AsyncStream<TransferProgress> { core.uploadProgressStream() }
    /// Download progress values, in order.
    public func downloadProgress() -> AsyncStream<TransferProgress> { core.downloadProgressStream() }
    /// The state now, then each change, until `completed`.
    public func stateChanges() -> AsyncStream<TaskState> { core.stateStream() }
    /// Sets progress callbacks.
    public func setProgressHandler(upload: (@Sendable (TransferProgress) -> Void)?, download: (@Sendable (TransferProgress) -> Void)?) {
        core.setProgressHandler(upload: upload, download: download)
    }
    /// Sets the task-event observer.
    public func setObserver(_ observer: @escaping @Sendable (TaskEvent) -> Void) { core.setObserver(observer) }
}

/// A value set once and awaited by any number of waiters.
final class OnceValue<Value: Sendable>: Sendable {
    // Unsafe continuations, and the first waiter (usually the only one) outside the array: a
    // checked continuation and an array are an allocation each, on every task's outcome. Each
    // continuation is resumed exactly once: by `set`, which takes every waiter out under the
    // lock, or by `wait` itself when the value is already there.
    private struct State {
        var value: Value?
        var first: UnsafeContinuation<Value, Never>?
        var others: [UnsafeContinuation<Value, Never>] = []
    }
    private let state = Mutex(State())

    /// Sets the value; later calls are ignored. Returns whether this call set it.
    @discardableResult
    func set(_ value: Value) -> Bool {
        let waiters = state.withLock { s -> (UnsafeContinuation<Value, Never>?, [UnsafeContinuation<Value, Never>])? in
            guard s.value == nil else { return nil }
            s.value = value
            defer {
                s.first = nil
                s.others = []
            }
            return (s.first, s.others)
        }
        guard let waiters else { return false }
        waiters.0?.resume(returning: value)
        for waiter in waiters.1 { waiter.resume(returning: value) }
        return true
    }

    var current: Value? { state.withLock { $0.value } }

    func wait() async -> Value {
        await withUnsafeContinuation { continuation in
            let ready = state.withLock { s -> Value? in
                if let value = s.value { return value }
                if s.first == nil { s.first = continuation } else { s.others.append(continuation) }
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }
}

/// A serial queue of callbacks that runs off the event loop, in order.
final class CallbackQueue: Sendable {
    enum ProgressKind: Sendable { case upload, download }

    private enum Job {
        case run(@Sendable () -> Void)
        case progress(ProgressKind, TransferProgress, @Sendable (TransferProgress) -> Void)
    }

    private struct State {
        var jobs: [Job] = []
        var running = false
        var drainWaiters: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    /// Queues `job`.
    func run(_ job: @escaping @Sendable () -> Void) { enqueue(.run(job)) }

    /// Queues a progress value for `handler` (every value is delivered, in order).
    func progress(_ kind: ProgressKind, _ value: TransferProgress, _ handler: @escaping @Sendable (TransferProgress) -> Void) {
        enqueue(.progress(kind, value, handler))
    }

    /// Returns once every job queued before the call has run.
    func drained() async {
        // Idle (the usual case: no handler set, or every callback already run): no continuation.
        if state.withLock({ !$0.running && $0.jobs.isEmpty }) { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { s -> Bool in
                if !s.running && s.jobs.isEmpty { return true }
                s.drainWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func enqueue(_ job: Job) {
        let start = state.withLock { s -> Bool in
            s.jobs.append(job)
            guard !s.running else { return false }
            s.running = true
            return true
        }
        guard start else { return }
        Task(executorPreference: globalConcurrentExecutor) { self.drain() }
    }

    private func drain() {
        while true {
            let (jobs, waiters) = state.withLock { s -> ([Job], [CheckedContinuation<Void, Never>]) in
                if s.jobs.isEmpty {
                    s.running = false
                    defer { s.drainWaiters.removeAll() }
                    return ([], s.drainWaiters)
                }
                defer { s.jobs.removeAll(keepingCapacity: true) }
                return (s.jobs, [])
            }
            if jobs.isEmpty {
                for waiter in waiters { waiter.resume() }
                return
            }
            for job in jobs {
                switch job {
                case .run(let body): body()
                case .progress(_, let value, let handler): handler(value)
                }
            }
        }
    }
}
