// EventLoop: one epoll loop on its own pthread, which owns every descriptor registered with it
// (design §4). Nothing here ever blocks a thread of Swift's cooperative pool: the loop thread
// blocks in epoll_wait, and async callers reach it through `submit`, which suspends.
//
// Theory of operation
// - Readiness is level-triggered: a handler that leaves bytes unread, or does not fill the send
//   buffer, is simply called again on the next turn. That keeps handlers simple (no "drain until
//   EAGAIN" obligation, no starvation bookkeeping) at the price of switching write interest on and
//   off, which the connection code does only while it has bytes queued. Error and hang-up are
//   always reported; a handler that sees them must deregister, or it will be called again.
// - Each registration gets a token that is never reused (the epoll user data), so an event for a
//   descriptor deregistered earlier in the same batch, or whose number was reused, is dropped.
// - Timers: a min-heap of CLOCK_MONOTONIC deadlines (TimerQueue) that sets the epoll_wait timeout,
//   rounded up to whole milliseconds so a timer never fires early.
// - Cross-thread work: `execute` appends to a mutex-protected queue and writes the eventfd, once
//   per batch (a `wakePending` flag), to interrupt epoll_wait. Work queued from the loop thread
//   itself goes to a loop-local queue: no lock, no wake-up.
// - The loop is a Swift executor (SerialExecutor and TaskExecutor, SE-0392 / SE-0417, as
//   swift-nio's loops are): a task whose executor preference is the loop, or an actor whose
//   executor it is, runs its jobs here. A continuation resumed by an I/O handler re-enqueues its
//   task on the loop, and the job runs in the same turn: moving bytes from a socket to a consumer
//   on the loop needs no thread switch.
// - One turn: wait → dispatch I/O events → fire due timers → run queued work (closures and jobs)
//   until the queues are empty or a budget of items has run; a spent budget makes the next wait
//   a poll, so I/O is never starved by work that keeps re-queuing itself.
//
// Invariant (why `@unchecked Sendable` is sound): the fields marked "loop thread" are touched only
// on the loop thread — every method that touches them begins with `assertInEventLoop()` (checked
// in debug builds) — and everything else is immutable or inside `shared`, a Mutex.

import CourierBytes
import Synchronization
internal import CCourierLinux

/// An error from the event loop itself.
public struct EventLoopError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .shutDown
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The loop has shut down (or is shutting down) and accepts no more work.
        public static let shutDown = Code("shutDown")
    }

    /// What went wrong.
    public let code: Code

    /// The loop has shut down.
    public static let shutDown = EventLoopError(code: .shutDown)

    /// A short text for people.
    public var description: String { "event loop has shut down" }
}

/// An epoll event loop running on a thread of its own.
public final class EventLoop: @unchecked Sendable {
    /// What a registration wants to hear about.
    public struct Interest: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Creates interest from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// Readable (or a peer close, or a waiting connection on a listener).
        public static let readable = Interest(rawValue: 1)
        /// Writable (or a non-blocking connect has finished).
        public static let writable = Interest(rawValue: 2)
    }

    /// What happened to a registered descriptor.
    public struct Events: OptionSet, Hashable, Sendable {
        /// The raw bits.
        public let rawValue: UInt8
        /// Creates events from raw bits.
        public init(rawValue: UInt8) { self.rawValue = rawValue }
        /// EPOLLIN.
        public static let readable = Events(rawValue: 1)
        /// EPOLLOUT.
        public static let writable = Events(rawValue: 2)
        /// EPOLLERR: read the error (SO_ERROR, or the next read/write reports it).
        public static let error = Events(rawValue: 4)
        /// EPOLLHUP: both directions are closed.
        public static let hangUp = Events(rawValue: 8)
        /// EPOLLRDHUP: the peer shut down its sending side.
        public static let readHangUp = Events(rawValue: 16)
    }

    /// A registration of a descriptor, for changing interest and deregistering.
    public struct Registration: Hashable, Sendable {
        let token: UInt64
    }

    /// A scheduled timer, for cancelling it.
    public struct Timer: Hashable, Sendable {
        let id: UInt64
    }

    private enum State { case running, stopping, stopped }

    /// Queued work: a closure from `execute`, or a Swift job from the executor conformance.
    private enum Work {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    private struct Shared {
        var tasks: [Work] = []
        var wakePending = false
        var state = State.running
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private struct Handler {
        let fd: CInt
        var interest: Interest
        let body: (Events) -> Void
    }

    private static let wakeToken: UInt64 = 0

    /// The loop's name (also its thread's name, cut to 15 bytes).
    public let name: String
    private let epollFD: CInt
    private let wakeFD: CInt
    private let shared = Mutex(Shared())
    private let loopThread = Atomic<UInt>(0)
    private let joined = Atomic<Bool>(false)
    private var pthread: UInt = 0

    // Loop thread only.
    private var handlers: [UInt64: Handler] = [:]
    private var nextToken: UInt64 = 1
    private var timers = TimerQueue()
    private var promises: [UInt64: any AbandonablePromise] = [:]
    private var cancelledBeforeStart: Set<UInt64> = []
    /// The receive buffers of this loop's connections (loop thread only).
    public private(set) lazy var receiveBuffers = ReceiveBufferPool(loop: self)
    /// Work queued from the loop thread itself, run in order after the I/O of the turn.
    private var localWork: [Work] = []
    private var draining: [Work] = []
    /// At most this many queued items run per turn before the loop polls for I/O again.
    private static let workBudget = 4096

    /// Creates the loop and starts its thread. Call `shutdown()` when done: the thread keeps the
    /// loop alive until then.
    /// - Parameter name: a name for the thread (shown by debuggers and `top -H`).
    /// - Throws: `Errno` when epoll or eventfd cannot be created (EMFILE, ENOMEM).
    public init(name: String = "courier-loop") throws(Errno) {
        self.name = name
        epollFD = try Sys.epollCreate()
        do {
            wakeFD = try Sys.eventFD(blocking: false)
        } catch {
            try? Sys.close(epollFD)
            throw error
        }
        do {
            try Sys.epollControl(epollFD, op: Sys.epollAdd, fd: wakeFD, events: Sys.epollIn, token: EventLoop.wakeToken)
        } catch {
            try? Sys.close(wakeFD)
            try? Sys.close(epollFD)
            throw error
        }
        pthread = Sys.spawnThread(name: name) { [self] in run() }
        LiveObjects.created(.eventLoop)
    }

    deinit {
        try? Sys.close(wakeFD)
        LiveObjects.destroyed(.eventLoop)
    }

    /// Whether the caller is running on this loop's thread.
    public var inEventLoop: Bool { loopThread.load(ordering: .acquiring) == Sys.currentThread() }

    /// Traps (in debug builds) unless called on the loop thread.
    @inline(__always)
    public func assertInEventLoop(_ function: StaticString = #function) {
        #if DEBUG
        precondition(inEventLoop, "\(function) must be called on the event loop's thread")
        #endif
    }

    // MARK: Submitting work (any thread)

    /// Runs `task` on the loop thread, after the work already queued.
    /// - Parameter task: the work.
    /// - Returns: false when the loop has shut down and `task` was dropped.
    @discardableResult
    public func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        enqueue(.closure(task))
    }

    private func enqueue(_ work: Work) -> Bool {
        if inEventLoop {
            // The loop runs until `finish` has drained the local queue: work queued by the loop
            // itself is never refused.
            localWork.append(work)
            return true
        }
        enum Outcome { case refused, queued, queuedAndWake }
        let outcome = shared.withLock { s -> Outcome in
            switch s.state {
            case .stopped, .stopping: return .refused
            case .running: break
            }
            s.tasks.append(work)
            guard !s.wakePending else { return .queued }
            s.wakePending = true
            return .queuedAndWake
        }
        // Signalled after the lock is released (a syscall under it made the loop spin on the
        // lock meanwhile); wakeFD stays open until deinit, so it is still ours here.
        if outcome == .queuedAndWake { wake() }
        return outcome != .refused
    }

    /// Runs `body` on the loop thread and returns its result to the awaiting task. The task
    /// suspends; no thread blocks.
    /// - Parameter body: the work; it runs on the loop thread.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or `EventLoopError.shutDown`.
    public func submit<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = execute { continuation.resume(with: Result { try body() }) }
            if !accepted { continuation.resume(throwing: EventLoopError.shutDown) }
        }
    }

    /// Starts loop-side work that completes later (after I/O or a timer) and awaits it: `body`
    /// runs on the loop thread with a promise it (or a handler it installs) completes.
    ///
    /// If the awaiting task is cancelled, the promise's cancellation handler runs on the loop
    /// thread and the promise fails with `CancellationError` unless it completed first. If the
    /// loop shuts down first, the promise fails with `EventLoopError.shutDown`.
    /// - Parameter body: starts the work; it runs on the loop thread.
    /// - Returns: the value the promise is completed with.
    /// - Throws: the promise's error, `CancellationError`, or `EventLoopError.shutDown`.
    public func submit<T: Sendable>(deferred body: @escaping @Sendable (LoopPromise<T>) -> Void) async throws -> T {
        let id = makePromiseID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                let accepted = execute { [self] in
                    let promise = LoopPromise(id: id, loop: self, continuation: continuation)
                    if cancelledBeforeStart.remove(id) != nil {
                        promise.fail(CancellationError())
                        return
                    }
                    promises[id] = promise
                    body(promise)
                }
                if !accepted { continuation.resume(throwing: EventLoopError.shutDown) }
            }
        } onCancel: {
            execute { [self] in
                if let promise = promises[id] {
                    promise.abandon(with: CancellationError())
                } else {
                    cancelledBeforeStart.insert(id)
                }
            }
        }
    }

    func promiseCompleted(id: UInt64) {
        assertInEventLoop()
        promises[id] = nil
    }

    // MARK: Descriptors (loop thread)

    /// Registers `fd` for readiness events; `handler` runs on the loop thread for each.
    /// - Parameters:
    ///   - fd: an open non-blocking descriptor; deregister it before closing it.
    ///   - interest: what to listen for (error and hang-up are always reported).
    ///   - handler: called with what happened.
    /// - Returns: the registration.
    /// - Throws: `Errno` (EEXIST when `fd` is already registered, ENOMEM, ENOSPC).
    public func register(_ fd: CInt, interest: Interest, handler: @escaping (Events) -> Void) throws(Errno) -> Registration {
        assertInEventLoop()
        let token = nextToken
        try Sys.epollControl(epollFD, op: Sys.epollAdd, fd: fd, events: EventLoop.epollMask(interest), token: token)
        nextToken += 1
        handlers[token] = Handler(fd: fd, interest: interest, body: handler)
        return Registration(token: token)
    }

    /// Registers a socket's descriptor; see `register(_:interest:handler:)`.
    /// - Parameters:
    ///   - socket: an open socket; deregister before closing it.
    ///   - interest: what to listen for.
    ///   - handler: called with what happened.
    /// - Returns: the registration.
    /// - Throws: `Errno`.
    public func register(_ socket: Socket, interest: Interest, handler: @escaping (Events) -> Void) throws(Errno) -> Registration {
        try register(socket.fileDescriptor, interest: interest, handler: handler)
    }

    /// Changes what a registration listens for.
    /// - Parameters:
    ///   - interest: the new interest (empty: only error and hang-up).
    ///   - registration: a live registration.
    /// - Throws: `Errno`.
    public func setInterest(_ interest: Interest, for registration: Registration) throws(Errno) {
        assertInEventLoop()
        guard var handler = handlers[registration.token] else {
            preconditionFailure("setInterest on a registration that was removed")
        }
        guard handler.interest != interest else { return }
        try Sys.epollControl(epollFD, op: Sys.epollModify, fd: handler.fd, events: EventLoop.epollMask(interest),
                             token: registration.token)
        handler.interest = interest
        handlers[registration.token] = handler
    }

    /// Stops listening; pending events for the registration are dropped. Call before closing.
    /// Deregistering twice is allowed and does nothing.
    /// - Parameter registration: the registration.
    public func deregister(_ registration: Registration) {
        assertInEventLoop()
        guard let handler = handlers.removeValue(forKey: registration.token) else { return }
        do {
            try Sys.epollControl(epollFD, op: Sys.epollDelete, fd: handler.fd, events: 0, token: 0)
        } catch {
            // ENOENT: the descriptor was closed (and so left the epoll set) before deregistering.
            precondition(error == .noSuchFileOrDirectory, "epoll_ctl(DEL) failed: \(error)")
        }
    }

    /// The number of live registrations (for tests and diagnostics).
    public var registrationCount: Int {
        assertInEventLoop()
        return handlers.count
    }

    private static func epollMask(_ interest: Interest) -> UInt32 {
        // EPOLLRDHUP only with read interest: level-triggered, it would otherwise fire on every
        // turn for a write-only registration whose peer has half-closed.
        var mask: UInt32 = 0
        if interest.contains(.readable) { mask |= Sys.epollIn | Sys.epollReadHangUp }
        if interest.contains(.writable) { mask |= Sys.epollOut }
        return mask
    }

    // MARK: Timers (loop thread)

    /// Runs `handler` on the loop thread at `deadline` (at once, on the next turn, if it has
    /// passed). Timers with equal deadlines fire in the order scheduled.
    /// - Parameters:
    ///   - deadline: when, on the monotonic clock.
    ///   - handler: the work.
    /// - Returns: the timer, for `cancelTimer`.
    @discardableResult
    public func scheduleTimer(at deadline: Instant, _ handler: @escaping () -> Void) -> Timer {
        assertInEventLoop()
        return Timer(id: timers.schedule(at: deadline, handler))
    }

    /// Runs `handler` on the loop thread after `delay`.
    /// - Parameters:
    ///   - delay: how long from now.
    ///   - handler: the work.
    /// - Returns: the timer, for `cancelTimer`.
    @discardableResult
    public func scheduleTimer(after delay: Duration, _ handler: @escaping () -> Void) -> Timer {
        scheduleTimer(at: .now() + delay, handler)
    }

    /// The number of timers waiting to fire (for leak checks in tests). Loop thread only.
    package var pendingTimerCount: Int {
        assertInEventLoop()
        return timers.count
    }

    /// Cancels a timer that has not fired.
    /// - Parameter timer: the timer.
    /// - Returns: true when it was pending, false when it had fired or was cancelled already.
    @discardableResult
    public func cancelTimer(_ timer: Timer) -> Bool {
        assertInEventLoop()
        return timers.cancel(timer.id)
    }

    // MARK: Shutdown (any thread but the loop's)

    /// Stops the loop and waits for its thread to end. Work queued before the call runs first;
    /// pending `submit(deferred:)` promises fail with `EventLoopError.shutDown`; registrations
    /// and timers are dropped (their owners must close their descriptors). Calling it again is
    /// allowed.
    ///
    /// The task suspends until the loop thread has finished its last turn; the thread is then
    /// detached, not joined, so no thread of the cooperative pool ever blocks in `pthread_join`
    /// (what is left of the thread's exit touches nothing the caller owns).
    public func shutdown() async {
        precondition(!inEventLoop, "shutdown() called on the loop's own thread")
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { s -> Bool in
                switch s.state {
                case .stopped: return true
                case .running:
                    s.state = .stopping
                    if !s.wakePending { s.wakePending = true; wake() }
                    fallthrough
                case .stopping:
                    s.shutdownWaiters.append(continuation)
                    return false
                }
            }
            if done { continuation.resume() }
        }
        detachOnce()
    }

    /// `shutdown()` for synchronous code: blocks the calling thread until the loop has stopped.
    /// Never call it from a task on the cooperative pool or from the loop thread.
    public func shutdownBlocking() {
        precondition(!inEventLoop, "shutdownBlocking() called on the loop's own thread")
        shared.withLock { s in
            if s.state == .running {
                s.state = .stopping
                if !s.wakePending { s.wakePending = true; wake() }
            }
        }
        joinOnce()
    }

    private func joinOnce() {
        if !joined.exchange(true, ordering: .acquiringAndReleasing) { Sys.joinThread(pthread) }
    }

    private func detachOnce() {
        if !joined.exchange(true, ordering: .acquiringAndReleasing) { Sys.detachThread(pthread) }
    }

    private func wake() {
        do {
            try Sys.eventFDSignal(wakeFD)
        } catch {
            preconditionFailure("waking the event loop failed: \(error)")
        }
    }

    // MARK: The loop

    private func run() {
        loopThread.store(Sys.currentThread(), ordering: .releasing)
        let capacity = 64
        let events = UnsafeMutableBufferPointer<courier_epoll_event>.allocate(capacity: capacity)
        defer { events.deallocate() }
        while true {
            let (hasTasks, stopping) = shared.withLock { ($0.tasks.isEmpty == false, $0.state != .running) }
            var timeout: CInt = -1
            if hasTasks || stopping || !localWork.isEmpty {
                timeout = 0
            } else if let deadline = timers.nextDeadline() {
                timeout = (deadline - .now()).timeoutMilliseconds
            }
            let count: Int
            do {
                count = try Sys.epollWait(epollFD, into: events, timeoutMilliseconds: timeout)
            } catch {
                preconditionFailure("epoll_wait failed: \(error)")
            }
            for i in 0..<count {
                let event = events[i]
                if event.token == EventLoop.wakeToken {
                    _ = try? Sys.eventFDDrain(wakeFD)
                    continue
                }
                // Looked up per event: an earlier handler in this batch may have deregistered it.
                guard let handler = handlers[event.token] else { continue }
                handler.body(EventLoop.events(from: event.events))
            }
            fireDueTimers()
            if runQueuedWork() { break }
        }
        finish()
    }

    /// Runs queued work — from other threads and from the loop itself, including what that work
    /// queues — until both queues are empty or the budget is spent. Returns whether the loop is
    /// stopping with nothing left to run.
    private func runQueuedWork() -> Bool {
        var budget = EventLoop.workBudget
        while budget > 0 {
            swap(&draining, &localWork)
            shared.withLock { s in
                draining.append(contentsOf: s.tasks)
                s.tasks.removeAll(keepingCapacity: true)
                s.wakePending = false
            }
            if draining.isEmpty {
                return shared.withLock { $0.state == .stopping && $0.tasks.isEmpty } && localWork.isEmpty
            }
            budget -= draining.count
            for work in draining { run(work) }
            draining.removeAll(keepingCapacity: true)
        }
        return false
    }

    private func run(_ work: Work) {
        switch work {
        case .closure(let body):
            body()
        case .job(let job):
            job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
        }
    }

    private func fireDueTimers() {
        let now = Instant.now()
        // Bounded: a timer scheduled by a handler for "now" waits for the next turn.
        var budget = timers.count
        while budget > 0, let handler = timers.popDue(at: now) {
            handler()
            budget -= 1
        }
    }

    private func finish() {
        // Fail what async callers still await; their cancellation handlers may still use the
        // loop (deregister, close), so this happens before the descriptors go.
        while let (_, promise) = promises.first {
            promise.abandon(with: EventLoopError.shutDown)
            promises[promise.promiseID] = nil
        }
        // Run what those handlers queued (the loop thread may still queue while stopping).
        var rounds = 0
        while rounds < 1000 {
            var work = localWork
            localWork.removeAll()
            shared.withLock { s in
                work.append(contentsOf: s.tasks)
                s.tasks.removeAll()
            }
            if work.isEmpty { break }
            for item in work { run(item) }
            rounds += 1
        }
        handlers.removeAll()
        timers.removeAll()
        cancelledBeforeStart.removeAll()
        let waiters = shared.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.state = .stopped
            // wakeFD is closed in deinit: a thread that queued work just before the stop may
            // still be about to signal it.
            try? Sys.close(epollFD)
            let waiters = s.shutdownWaiters
            s.shutdownWaiters = []
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    private static func events(from mask: UInt32) -> Events {
        var events: Events = []
        if mask & Sys.epollIn != 0 { events.insert(.readable) }
        if mask & Sys.epollOut != 0 { events.insert(.writable) }
        if mask & Sys.epollError != 0 { events.insert(.error) }
        if mask & Sys.epollHangUp != 0 { events.insert(.hangUp) }
        if mask & Sys.epollReadHangUp != 0 { events.insert(.readHangUp) }
        return events
    }
}

// MARK: - The loop as a Swift executor

extension EventLoop: SerialExecutor, TaskExecutor {
    /// Runs `job` on the loop thread, after the work already queued.
    /// - Parameter job: a job of a task whose executor preference is this loop, or of an actor
    ///   isolated to it.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !enqueue(.job(job)) {
            // A stopped loop runs nothing more; a job must still run somewhere, or its task (and
            // whoever awaits it) hangs: the global executor takes it.
            globalConcurrentExecutor.enqueue(job)
        }
    }

    /// This loop as an unowned serial executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// This loop as an unowned task executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Traps unless called on the loop thread (the runtime's isolation check).
    public func checkIsolated() {
        precondition(inEventLoop, "expected to run on the event loop \(name)")
    }
}
