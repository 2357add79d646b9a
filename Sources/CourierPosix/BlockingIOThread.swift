// BlockingIOThread: a thread of its own for calls that may block on the disk (file writes, fsync,
// rename), so none of them runs on a thread of Swift's cooperative pool (design §4) nor on the
// event loop. swift-nio's NonBlockingFileIO is the precedent. Jobs run one at a time in FIFO order;
// the caller suspends on a continuation until its job has run. The shared thread lives as long as
// the process; a thread made for one source that may wait without end (a pipe, standard input)
// is stopped by its owner, so such a wait never holds up the file writes queued on the shared one.

import Synchronization

/// A worker thread that runs blocking work in FIFO order and resumes the awaiting caller.
public final class BlockingIOThread: Sendable {
    private struct Shared {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        /// The worker found no job and is about to wait (or waits) on the eventfd.
        var sleeping = false
        /// The thread has ended (after `stop()`); later jobs go to the shared thread.
        var exited = false
    }

    private let wakeFD: CInt
    private let shared = Mutex(Shared())

    /// The process-wide thread, created on first use and kept for the life of the process.
    public static let shared: BlockingIOThread = {
        do { return try BlockingIOThread(name: "courier-file-io") } catch { fatalError("cannot start the file I/O thread: \(error)") }
    }()

    /// Starts a worker thread.
    /// - Parameter name: the thread's name (seen in debuggers and `top -H`).
    /// - Throws: `Errno` when the wake-up eventfd cannot be created.
    public init(name: String) throws(Errno) {
        wakeFD = try Sys.eventFD(blocking: true)
        let id = Sys.spawnThread(name: name) { [self] in loop() }
        Sys.detachThread(id)
    }

    /// Runs `body` on the worker thread and returns its result.
    /// - Parameter body: blocking work (it must not touch the caller's non-Sendable state).
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    public func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let job: @Sendable () -> Void = {
                do throws(E) { continuation.resume(returning: .success(try body())) } catch { continuation.resume(returning: .failure(error)) }
            }
            enqueue(job)
        }
        return try result.get()
    }

    /// Queues `job` on the worker thread without waiting for it (in FIFO order with every other
    /// job), for callers that may neither block nor suspend, such as an event-loop callback.
    /// - Parameter job: blocking work.
    package func submit(_ job: @escaping @Sendable () -> Void) { enqueue(job) }

    /// Queues a job for this thread, or for the shared thread once this one has ended (so no
    /// caller is left suspended on a thread that will never run its job).
    private func enqueue(_ job: @escaping @Sendable () -> Void) {
        let (wake, ended) = shared.withLock { s -> (Bool, Bool) in
            if s.exited { return (false, true) }
            s.jobs.append(job)
            guard s.sleeping else { return (false, false) }
            s.sleeping = false
            return (true, false)
        }
        if ended {
            precondition(self !== BlockingIOThread.shared, "the shared file I/O thread never ends")
            BlockingIOThread.shared.enqueue(job)
            return
        }
        // Signalled outside the lock, and only when the worker sleeps: a signal under the lock
        // made the worker spin on it as it woke.
        if wake {
            do { try Sys.eventFDSignal(wakeFD) } catch { preconditionFailure("waking the file I/O thread failed: \(error)") }
        }
    }

    /// Ends the thread once the jobs already queued have run. A job queued after `stop()` still
    /// runs (on the shared thread once this one has ended, so no caller is left suspended). Never
    /// call it on the shared thread.
    public func stop() {
        let wake = shared.withLock { s -> Bool in
            s.stopping = true
            guard s.sleeping else { return false }
            s.sleeping = false
            return true
        }
        if wake { try? Sys.eventFDSignal(wakeFD) }
    }

    private func loop() {
        while true {
            let (jobs, done) = shared.withLock { s -> ([@Sendable () -> Void], Bool) in
                let jobs = s.jobs
                s.jobs.removeAll(keepingCapacity: true)
                if jobs.isEmpty && s.stopping { s.exited = true; return (jobs, true) }
                if jobs.isEmpty { s.sleeping = true }
                return (jobs, false)
            }
            if done {
                // `exited` was set under the lock with the queue empty: a later `run` sends its
                // job to the shared thread and never signals this descriptor.
                try? Sys.close(wakeFD)
                return
            }
            if jobs.isEmpty {
                _ = try? Sys.eventFDDrain(wakeFD)  // blocks this thread (ours) until signalled
                continue
            }
            for job in jobs { job() }
        }
    }
}
