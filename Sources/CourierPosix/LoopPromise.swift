// LoopPromise: the loop-side half of `EventLoop.submit(deferred:)`. Loop code (an I/O handler,
// a timer) completes it; the awaiting task resumes. It completes at most once: later completions
// are ignored and reported by the Bool result, which is what racing outcomes need (a connect
// that succeeds just as its deadline fires).
//
// Loop thread only: every method asserts it; the @unchecked Sendable conformance rests on that.

import Synchronization

/// Loop-side work an async caller awaits (see `EventLoop.submit(deferred:)`).
protocol AbandonablePromise: AnyObject {
    var promiseID: UInt64 { get }
    /// Runs the cancellation handler and fails the promise with `error` unless it completed.
    func abandon(with error: any Error)
}

/// A one-shot result that loop code delivers to an awaiting task.
public final class LoopPromise<Value: Sendable>: @unchecked Sendable, AbandonablePromise {
    let promiseID: UInt64
    private unowned let loop: EventLoop
    private var continuation: CheckedContinuation<Value, any Error>?
    private var cancellationHandler: (() -> Void)?

    init(id: UInt64, loop: EventLoop, continuation: CheckedContinuation<Value, any Error>) {
        self.promiseID = id
        self.loop = loop
        self.continuation = continuation
    }

    /// The loop the promise belongs to.
    public var eventLoop: EventLoop { loop }

    /// Whether the promise has been completed (or abandoned).
    public var isCompleted: Bool {
        loop.assertInEventLoop()
        return continuation == nil
    }

    /// Completes with a value.
    /// - Parameter value: the result.
    /// - Returns: false when the promise had already completed (the value is dropped).
    @discardableResult
    public func succeed(_ value: Value) -> Bool { complete(.success(value)) }

    /// Completes with an error.
    /// - Parameter error: the failure.
    /// - Returns: false when the promise had already completed.
    @discardableResult
    public func fail(_ error: any Error) -> Bool { complete(.failure(error)) }

    /// Completes with a result.
    /// - Parameter result: the outcome.
    /// - Returns: false when the promise had already completed.
    @discardableResult
    public func complete(_ result: Result<Value, any Error>) -> Bool {
        loop.assertInEventLoop()
        guard let continuation else { return false }
        self.continuation = nil
        cancellationHandler = nil
        loop.promiseCompleted(id: promiseID)
        continuation.resume(with: result)
        return true
    }

    /// Sets what to do, on the loop thread, when the awaiting task is cancelled or the loop shuts
    /// down before the promise completes: typically close sockets and cancel timers. The promise
    /// then fails with `CancellationError` or `EventLoopError.shutDown` unless the handler
    /// completed it.
    /// - Parameter handler: the clean-up.
    public func onCancel(_ handler: @escaping () -> Void) {
        loop.assertInEventLoop()
        guard continuation != nil else { return }
        cancellationHandler = handler
    }

    func abandon(with error: any Error) {
        loop.assertInEventLoop()
        guard continuation != nil else { return }
        let handler = cancellationHandler
        cancellationHandler = nil
        handler?()
        fail(error)
    }
}

private let promiseIDs = Atomic<UInt64>(0)

/// A fresh promise id (ids are never reused, so a late cancellation cannot hit a newer promise).
func makePromiseID() -> UInt64 { promiseIDs.add(1, ordering: .relaxed).newValue }
