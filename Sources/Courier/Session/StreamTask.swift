// StreamTask: the response body as an `AsyncSequence` of decoded slices with back-pressure
// (design §4). The transfer hands one slice at a time to the consumer and waits until it is taken
// before reading the next from the socket, so a slow consumer slows the server, and memory stays at
// one slice. A consumer that stops iterating (its iterator is released) cancels the transfer.

import CourierBytes
import CourierURL
import Synchronization

/// A rendezvous channel between the transfer (producer) and the body's iterator (consumer).
final class BodyChannel: Sendable {
    private struct State {
        var pending: ByteBuffer?
        var producer: CheckedContinuation<Bool, Never>?
        var consumer: CheckedContinuation<Result<ByteBuffer?, SessionError>, Never>?
        var end: Result<Void, SessionError>?
        var consumerGone = false
    }
    private let state = Mutex(State())

    /// Hands `slice` to the consumer; returns when it was taken. Throws when the consumer left.
    func send(_ slice: ByteBuffer) async throws(SessionError) {
        // Cancelling the task (cancel(), total timeout) must release a producer that waits for a
        // consumer who may never read again.
        let delivered: Bool = await withTaskCancellationHandler {
            await handOver(slice)
        } onCancel: {
            consumerLeft()
        }
        if !delivered { throw SessionError(.cancelled, "the body's consumer stopped reading") }
    }

    private func handOver(_ slice: ByteBuffer) async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            enum Action { case handed(CheckedContinuation<Result<ByteBuffer?, SessionError>, Never>), wait, gone }
            let action = state.withLock { s -> Action in
                if s.consumerGone { return .gone }
                if let consumer = s.consumer {
                    s.consumer = nil
                    return .handed(consumer)
                }
                s.pending = slice
                s.producer = continuation
                return .wait
            }
            switch action {
            case .handed(let consumer):
                consumer.resume(returning: .success(slice))
                continuation.resume(returning: true)
            case .gone:
                continuation.resume(returning: false)
            case .wait:
                break
            }
        }
    }

    /// Ends the body (success or failure).
    func close(_ end: Result<Void, SessionError>) {
        let consumer = state.withLock { s -> CheckedContinuation<Result<ByteBuffer?, SessionError>, Never>? in
            guard s.end == nil else { return nil }
            s.end = end
            let consumer = s.consumer
            s.consumer = nil
            return consumer
        }
        guard let consumer else { return }
        switch end {
        case .success: consumer.resume(returning: .success(nil))
        case .failure(let error): consumer.resume(returning: .failure(error))
        }
    }

    /// The next slice, nil at the end.
    func next() async throws(SessionError) -> ByteBuffer? {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<ByteBuffer?, SessionError>, Never>) in
            enum Action { case take(ByteBuffer, CheckedContinuation<Bool, Never>?), ended(Result<Void, SessionError>), wait }
            let action = state.withLock { s -> Action in
                if let pending = s.pending {
                    s.pending = nil
                    let producer = s.producer
                    s.producer = nil
                    return .take(pending, producer)
                }
                if let end = s.end { return .ended(end) }
                s.consumer = continuation
                return .wait
            }
            switch action {
            case .take(let slice, let producer):
                producer?.resume(returning: true)
                continuation.resume(returning: .success(slice))
            case .ended(.success):
                continuation.resume(returning: .success(nil))
            case .ended(.failure(let error)):
                continuation.resume(returning: .failure(error))
            case .wait:
                break
            }
        }
        return try result.get()
    }

    /// The consumer will not read any more: a waiting producer is released with failure.
    func consumerLeft() {
        let producer = state.withLock { s -> CheckedContinuation<Bool, Never>? in
            s.consumerGone = true
            s.pending = nil
            let producer = s.producer
            s.producer = nil
            return producer
        }
        producer?.resume(returning: false)
    }
}

/// A streamed response body: decoded slices, in order, with back-pressure. Iterate it once.
public struct ResponseBodyStream: AsyncSequence, Sendable {
    /// A slice of the body.
    public typealias Element = ByteBuffer
    /// Errors are `SessionError`.
    public typealias Failure = SessionError

    let channel: BodyChannel
    let task: TaskLifecycle

    /// Releasing the iterator before the end cancels the transfer.
    final class Lease: Sendable {
        let channel: BodyChannel
        let task: TaskLifecycle
        let finished = Atomic<Bool>(false)
        init(channel: BodyChannel, task: TaskLifecycle) {
            self.channel = channel
            self.task = task
        }
        deinit {
            if !finished.load(ordering: .relaxed) {
                channel.consumerLeft()
                task.cancel()
            }
        }
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let lease: Lease

        /// The next slice, or nil at the end of the body.
        /// - Returns: the slice, or nil.
        /// - Throws: `SessionError`.
        public mutating func next() async throws(SessionError) -> ByteBuffer? {
            do {
                let slice = try await lease.channel.next()
                if slice == nil { lease.finished.store(true, ordering: .relaxed) }
                return slice
            } catch {
                lease.finished.store(true, ordering: .relaxed)
                throw error
            }
        }
    }

    /// Makes the iterator.
    /// - Returns: the iterator.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(lease: Lease(channel: channel, task: task)) }

    /// Reads the whole body into one buffer.
    /// - Parameter limit: the most bytes to accept.
    /// - Returns: the body.
    /// - Throws: `SessionError` (`.bodyTooLarge` beyond `limit`).
    public func collect(upTo limit: Int = 10 * 1024 * 1024) async throws(SessionError) -> ByteBuffer {
        var result = ByteBuffer()
        for try await slice in self {
            guard result.readableBytes + slice.readableBytes <= limit else {
                throw SessionError(.bodyTooLarge, "the response body is larger than collect(upTo:)'s limit of \(limit) bytes")
            }
            result.writeBuffer(slice)
        }
        return result
    }
}

/// The value of a stream task: the final head, and the body still to be read.
public struct StreamedResponse: Sendable {
    /// The final response head.
    public var head: HTTPResponseHead
    /// The URL of the request that got this response (after redirects).
    public var url: String
    /// The body.
    public var body: ResponseBodyStream
}

/// Delivers the head (the task's outcome) and then slices through the channel.
final class StreamSink: ResponseSink {
    let channel = BodyChannel()
    /// The head and the URL it answered, with the metrics so far; or the failure before it.
    let head = OnceValue<(Result<(HTTPResponseHead, String), SessionError>, TaskMetrics)>()
    /// The running transfer's metrics, for the figures up to the head.
    let recorder = Mutex<MetricsRecorder?>(nil)

    private var metricsSoFar: TaskMetrics { recorder.withLock { $0?.snapshot } ?? TaskMetrics(effectiveURL: "") }

    func begin(_ head: HTTPResponseHead, request: HTTPRequest) async throws(SessionError) {
        let url = request.uri.redactedDescription
        var metrics = metricsSoFar
        metrics.effectiveURL = url
        self.head.set((.success((head, url)), metrics))
    }

    func write(_ bytes: ByteBuffer) async throws(SessionError) { try await channel.send(bytes) }

    func finish() async throws(SessionError) { channel.close(.success(())) }

    func abort(_ error: SessionError, begun: Bool) async {
        head.set((.failure(error), metricsSoFar))
        channel.close(.failure(error))
    }
}

/// A task whose response body streams with back-pressure. Its outcome reads as every task's does
/// (`ResponseTask`) and is known as soon as the final head arrives (after redirects): `try await
/// task.value` is a `StreamedResponse` — the head, and the body to iterate.
public final class StreamTask: TaskCoreOwner, ResponseTask, Sendable {
    let core: TaskLifecycle
    private let sink = StreamSink()
    private let finalMetrics = OnceValue<TaskMetrics>()
    private let refused: SessionError?

    init(session: SessionState, request: HTTPRequest) {
        LiveObjects.created(.task)
        let url = request.uri.redactedDescription
        guard let core = session.register() else {
            core = TaskLifecycle(identifier: session.refusedIdentifier())
            refused = SessionError(.invalidated, "the session was invalidated", url: url)
            core.markCompleted()
            return
        }
        refused = nil
        self.core = core
        let sink = self.sink
        let finalMetrics = self.finalMetrics
        core.install(work: { core in
            let metrics = MetricsRecorder(url: url, uri: request.uri)
            sink.recorder.withLock { $0 = metrics }
            let transfer = Transfer(storage: session, core: core, metrics: metrics, isRangeRequest: false)
            var failure: SessionError?
            do throws(SessionError) {
                let final = try await transfer.run(request, sink: sink)
                let effectiveURL = metrics.url(of: final.request.uri)
                metrics.update { $0.effectiveURL = effectiveURL }
            } catch {
                failure = error
                await sink.abort(error, begun: true)
            }
            // The last progress value and event, and the session's resumed and suspended events,
            // come before completion.
            await core.finishWork()
            let finished = metrics.finish()
            session.taskFinished(core.identifier, error: failure, metrics: finished)
            finalMetrics.set(finished)
        }, cancelledBeforeStart: {
            let error = SessionError(.cancelled, "the task was cancelled", url: url)
            core.markCompleted()
            Task { await sink.abort(error, begun: false) }
            let metrics = TaskMetrics(effectiveURL: url)
            session.taskFinished(core.identifier, error: error, metrics: metrics)
            finalMetrics.set(metrics)
        })
    }

    deinit {
        LiveObjects.destroyed(.task)
        // A task nobody resumed and nobody can resume any more (its only handle is going) is
        // cancelled, so the session does not keep it, and an invalidation does not wait for it.
        if !core.hasStarted { core.cancel() }
    }

    /// Resumes the task if it never ran and waits for the final head (redirects followed): the
    /// value is a `StreamedResponse` whose body is still to be read; the error is the transport,
    /// redirect or cancellation failure before the head. The metrics cover the transfer up to
    /// the head (`completedMetrics()` has the rest).
    public var response: TaskResponse<StreamedResponse> {
        get async {
            if let refused { return TaskResponse(head: nil, result: .failure(refused), metrics: TaskMetrics(effectiveURL: refused.url ?? "")) }
            if !core.hasStarted { core.resume() }
            return outcome(await sink.head.wait())
        }
    }

    /// Calls `handler` with the outcome on `executor` once the final head arrived or the task
    /// failed before it (it does not resume the task).
    /// - Parameters:
    ///   - executor: where the handler runs.
    ///   - handler: the completion handler.
    public func onCompletion(on executor: CallbackExecutor, _ handler: @escaping @Sendable (TaskResponse<StreamedResponse>) -> Void) {
        if let refused {
            let response = TaskResponse<StreamedResponse>(head: nil, result: .failure(refused), metrics: TaskMetrics(effectiveURL: refused.url ?? ""))
            executor.run { handler(response) }
            return
        }
        let channel = sink.channel
        let core = self.core
        sink.head.whenSet(on: executor) { started in handler(StreamTask.outcome(started, channel: channel, core: core)) }
    }

    private func outcome(_ started: (Result<(HTTPResponseHead, String), SessionError>, TaskMetrics)) -> TaskResponse<StreamedResponse> {
        StreamTask.outcome(started, channel: sink.channel, core: core)
    }

    private static func outcome(_ started: (Result<(HTTPResponseHead, String), SessionError>, TaskMetrics), channel: BodyChannel,
                                core: TaskLifecycle) -> TaskResponse<StreamedResponse> {
        switch started.0 {
        case .success(let (head, url)):
            let streamed = StreamedResponse(head: head, url: url, body: ResponseBodyStream(channel: channel, task: core))
            return TaskResponse(head: head, result: .success(streamed), metrics: started.1)
        case .failure(let error):
            return TaskResponse(head: nil, result: .failure(error), metrics: started.1)
        }
    }

    /// The task's metrics once it completed (after the body ended or failed).
    public var metrics: TaskMetrics? { finalMetrics.current }

    /// Waits for the task to complete and returns its metrics.
    /// - Returns: the metrics.
    public func completedMetrics() async -> TaskMetrics { await finalMetrics.wait() }
}
