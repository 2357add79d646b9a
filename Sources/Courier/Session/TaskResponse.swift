// TaskResponse and ResponseTask: how the outcome of every task kind reads — data, upload, download
// and stream tasks alike — so one pattern serves them all:
//
//   let value = try await task.value          // the value, or the error thrown
//   let result = await task.result            // Result<Value, SessionError>
//   let response = await task.response        // AFNetworking's (value, response, error) and more
//   task.onCompletion(on: .task) { response in ... }   // the same TaskResponse, as a callback
//
// Each of them resumes a task that never ran (so `try await session.dataTask(with:).value` is a
// whole request), and every caller, earlier or later, sees the same outcome. What "the value" is
// depends on the kind: the serializer's value for data and upload tasks, the file's final path
// for a download, and the head with the body still to read for a stream task (whose outcome is
// known as soon as its final head arrives; the body follows through `StreamedResponse.body`).

import CourierBytes

/// The outcome of a task, the same shape for every task kind: AFNetworking's completion-handler
/// arguments (`value`, `head` — its `NSURLResponse` — and `error`), plus the `result` that joins
/// value and error, the raw body and the metrics.
public struct TaskResponse<Value: Sendable>: Sendable {
    /// The final response head; nil when no response arrived (transport error, cancellation).
    /// A serializer's failure comes with the head it judged.
    public var head: HTTPResponseHead?
    /// The raw (decoded) body of a data or upload task, when one was read; nil for download and
    /// stream tasks (their bodies went to a file or to the caller).
    public var body: ByteBuffer?
    /// The value, or why there is none.
    public var result: Result<Value, SessionError>
    /// What the task measured. For a stream task, what was measured up to the final head (the
    /// whole transfer's figures: `StreamTask.completedMetrics()`).
    public var metrics: TaskMetrics
    /// For a download that failed after some bytes were kept: what
    /// `Session.downloadTask(resumingWith:destination:)` continues from. Nil otherwise.
    public var resumeData: ResumeData?

    /// Creates an outcome (tests and custom task wrappers; tasks make their own).
    /// - Parameters:
    ///   - head: the final head, or nil.
    ///   - body: the raw body, or nil.
    ///   - result: the value or the error.
    ///   - metrics: the metrics.
    ///   - resumeData: resume data of a failed download, or nil.
    public init(head: HTTPResponseHead?, body: ByteBuffer? = nil, result: Result<Value, SessionError>, metrics: TaskMetrics,
                resumeData: ResumeData? = nil) {
        self.head = head
        self.body = body
        self.result = result
        self.metrics = metrics
        self.resumeData = resumeData
    }

    /// The value, or nil when the task failed (AFNetworking's `responseObject`).
    public var value: Value? {
        if case .success(let value) = result { return value }
        return nil
    }

    /// The error, or nil when the task succeeded (AFNetworking's `error`).
    public var error: SessionError? {
        if case .failure(let error) = result { return error }
        return nil
    }
}

/// A task whose outcome is a `TaskResponse`: `DataTask` (data and upload tasks), `DownloadTask`
/// and `StreamTask`. Their outcomes read the same way:
///
/// ```swift
/// let user = try await session.dataTask(with: request, serializer: DecodableResponseSerializer(User.self)).value
/// let outcome = await download.response           // value (path), head, error, resumeData
/// if let error = outcome.error { print(error, outcome.head?.status ?? 0) }
/// ```
///
/// `value`, `result` and `response` resume a task that never ran and wait for its outcome; a task
/// paused with `suspend()` stays paused until someone resumes it.
public protocol ResponseTask: SessionTask {
    /// What the task produces: the serializer's value (data and upload tasks), the final file
    /// path (downloads), or a `StreamedResponse` (stream tasks).
    associatedtype Value: Sendable

    /// Resumes the task if it never ran and waits for its outcome: value, head and error
    /// (AFNetworking's completion arguments), with the body, metrics and resume data.
    var response: TaskResponse<Value> { get async }

    /// Calls `handler` with the outcome on `executor` once the task has one. It does not resume
    /// the task.
    /// - Parameters:
    ///   - executor: where the handler runs.
    ///   - handler: the completion handler.
    func onCompletion(on executor: CallbackExecutor, _ handler: @escaping @Sendable (TaskResponse<Value>) -> Void)
}

extension ResponseTask {
    /// Resumes the task if it never ran and returns its value, or throws its error.
    public var value: Value {
        get async throws(SessionError) { try await response.result.get() }
    }

    /// Resumes the task if it never ran and returns its value or its error.
    public var result: Result<Value, SessionError> {
        get async { await response.result }
    }

    /// Calls `handler` with the outcome in a new Swift task once the task has one.
    /// - Parameter handler: the completion handler.
    public func onCompletion(_ handler: @escaping @Sendable (TaskResponse<Value>) -> Void) {
        onCompletion(on: .task, handler)
    }
}

extension OnceValue {
    /// Runs `handler` on `executor` with the value once it is set.
    func whenSet(on executor: CallbackExecutor, _ handler: @escaping @Sendable (Value) -> Void) {
        Task {
            let value = await wait()
            executor.run { handler(value) }
        }
    }
}
