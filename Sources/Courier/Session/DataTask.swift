// DataTask: a request whose response body is buffered (up to the session's `maximumBodySize`) and
// handed to a response serializer, returning value, response and error the way AFNetworking's
// `dataTaskWithRequest:...completionHandler:` does: a transport error skips the serializer; a
// serializer error comes with the response head and the body.

import CourierBytes
import CourierURL
import Synchronization

/// Collects a body in memory, up to a limit.
final class BufferSink: ResponseSink {
    private let limit: Int
    private let state = Mutex<(head: HTTPResponseHead?, body: ByteBuffer)>((nil, ByteBuffer()))
    /// The session's handlers and the task's identifier, for the response handler.
    private let hooks: SessionHookStore?
    private let taskIdentifier: Int

    init(limit: Int, hooks: SessionHookStore? = nil, taskIdentifier: Int = 0) {
        self.limit = limit
        self.hooks = hooks
        self.taskIdentifier = taskIdentifier
    }

    func begin(_ head: HTTPResponseHead, request: HTTPRequest) async throws(SessionError) {
        if let handler = hooks?.withLock({ $0.receivedResponse }) {
            let received = ReceivedResponse(taskIdentifier: taskIdentifier, head: head, url: request.uri)
            // User code runs off the loop.
            let disposition = await withTaskExecutorPreference(globalConcurrentExecutor) { await handler(received) }
            if disposition == .cancel {
                throw SessionError(.cancelled, "the session's response handler cancelled the task", url: request.uri.redactedDescription)
            }
        }
        state.withLock { $0 = (head, ByteBuffer()) }
    }

    func write(_ bytes: ByteBuffer) async throws(SessionError) {
        let limit = self.limit
        let fits = state.withLock { s -> Bool in
            guard s.body.readableBytes + bytes.readableBytes <= limit else { return false }
            s.body.writeBuffer(bytes)
            return true
        }
        if !fits { throw SessionError(.bodyTooLarge, "the body is larger than the in-memory limit of \(limit) bytes") }
    }

    func finish() async throws(SessionError) {}
    func abort(_ error: SessionError, begun: Bool) async {}

    /// The head and the body; the body in storage of about its own size (a buffer grown by
    /// doubling, or a first slice adopted whole, may hold much more).
    var collected: (head: HTTPResponseHead?, body: ByteBuffer) {
        state.withLock { s in
            s.body.compactStorage()
            return s
        }
    }
}

/// A task whose body is buffered and serialized: a data task, or an upload task (the same type,
/// with a request body from an `UploadSource`). Its outcome reads as every task's does
/// (`ResponseTask`): `try await task.value`, `await task.result`, `await task.response`.
public final class DataTask<Value: Sendable>: TaskCoreOwner, ResponseTask, @unchecked Sendable {
    // @unchecked: every stored property is immutable and Sendable; the generic parameter only
    // appears in the Sendable `OnceValue`.
    let core: TaskLifecycle
    private let outcome = OnceValue<TaskResponse<Value>>()
    private let request: HTTPRequest

    init<S: ResponseSerializer>(session: SessionState, request: HTTPRequest, serializer: S) where S.Value == Value {
        LiveObjects.created(.task)
        self.request = request
        let url = request.uri.redactedDescription
        guard let core = session.register() else {
            core = TaskLifecycle(identifier: session.refusedIdentifier())
            let error = SessionError(.invalidated, "the session was invalidated", url: url)
            outcome.set(TaskResponse(head: nil, body: nil, result: .failure(error), metrics: TaskMetrics(effectiveURL: url)))
            core.markCompleted()
            return
        }
        self.core = core
        let outcome = self.outcome
        let limit = session.configuration.maximumBodySize
        core.install(work: { core in
            let metrics = MetricsRecorder(url: url, uri: request.uri)
            let sink = BufferSink(limit: limit, hooks: session.hooks, taskIdentifier: core.identifier)
            let transfer = Transfer(storage: session, core: core, metrics: metrics, isRangeRequest: false)
            var response: TaskResponse<Value>
            do throws(SessionError) {
                let final = try await transfer.run(request, sink: sink)
                let effectiveURL = metrics.url(of: final.request.uri)
                metrics.update { $0.effectiveURL = effectiveURL }
                let body = sink.collected.body
                let result: Result<Value, SessionError>
                do throws(ResponseSerializationError) {
                    result = .success(try serializer.serialize(head: final.head, body: body))
                } catch {
                    var failure = SessionError(.serialization, "\(error)", url: final.request.uri.redactedDescription)
                    failure.serializationError = error
                    result = .failure(failure)
                }
                response = TaskResponse(head: final.head, body: body, result: result, metrics: metrics.finish())
            } catch {
                let collected = sink.collected
                response = TaskResponse(head: collected.head, body: collected.head == nil ? nil : collected.body,
                                        result: .failure(error), metrics: metrics.finish())
            }
            // The last progress value and event, and the session's resumed and suspended events,
            // come before completion.
            await core.finishWork()
            // The completed event goes out before the caller is woken, so a caller's next task
            // always comes after it in the event stream.
            session.taskFinished(core.identifier, error: response.result.failure, metrics: response.metrics)
            outcome.set(response)
        }, cancelledBeforeStart: {
            let error = SessionError(.cancelled, "the task was cancelled", url: url)
            core.markCompleted()
            let metrics = TaskMetrics(effectiveURL: url)
            session.taskFinished(core.identifier, error: error, metrics: metrics)
            outcome.set(TaskResponse(head: nil, body: nil, result: .failure(error), metrics: metrics))
        })
    }

    deinit {
        LiveObjects.destroyed(.task)
        // A task nobody resumed and nobody can resume any more (its only handle is going) is
        // cancelled, so the session does not keep it, and an invalidation does not wait for it.
        if !core.hasStarted { core.cancel() }
    }

    /// Resumes the task if it never ran and waits for it to complete (a task paused with
    /// `suspend()` stays paused until someone resumes it): the serializer's value or the error,
    /// the head, the raw body and the metrics. A transport error skips the serializer; a
    /// serializer's error comes with the head and body it judged.
    public var response: TaskResponse<Value> {
        get async {
            if !core.hasStarted { core.resume() }
            return await outcome.wait()
        }
    }

    /// Calls `handler` with the outcome on `executor` when the task completes (it does not resume
    /// the task).
    /// - Parameters:
    ///   - executor: where the handler runs.
    ///   - handler: the completion handler.
    public func onCompletion(on executor: CallbackExecutor, _ handler: @escaping @Sendable (TaskResponse<Value>) -> Void) {
        outcome.whenSet(on: executor, handler)
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
