// SessionHooks: the session-level blocks of AFURLSessionManager, settable at any time —
// redirect, challenge, download destination, data-task-did-receive-response, task-did-complete.
// The configuration's handlers are the initial values; a setter replaces one for every task that
// reaches that point afterwards (nil removes it). AFNetworking's precedence holds: a download
// task's own destination wins over the session's, and the session's is used only by a task made
// without one. A server-trust handler set later applies to connections opened afterwards (a pooled
// connection was trusted when it was opened, as a resumed TLS session is never challenged again).

import CourierPosix
import CourierURL
import Synchronization

/// What the session's response handler decides for a data task's final response
/// (AFNetworking's `NSURLSessionResponseDisposition`, without `becomeDownload`).
public enum ResponseDisposition: Sendable, Hashable {
    /// Read the body and complete the task as usual.
    case allow
    /// Read nothing more: the connection closes and the task fails as cancelled (-999).
    case cancel
}

/// The response a data task received, as the session's response handler sees it.
public struct ReceivedResponse: Sendable {
    /// The task's identifier (as in `TaskCompletion`).
    public var taskIdentifier: Int
    /// The final response head (after redirects).
    public var head: HTTPResponseHead
    /// The URL that answered.
    public var url: URI
}

/// The handlers a session holds; each nil when unset.
struct SessionHooks: Sendable {
    var redirect: (@Sendable (Redirect) async -> RedirectDecision)?
    var challenge: (@Sendable (Challenge) async -> ChallengeDisposition)?
    var downloadDestination: (@Sendable (HTTPResponseHead, URI) -> DownloadDestination)?
    var receivedResponse: (@Sendable (ReceivedResponse) async -> ResponseDisposition)?
    var taskCompleted: (@Sendable (TaskCompletion) -> Void)?

    init(configuration: SessionConfiguration) {
        redirect = configuration.redirectHandler
        challenge = configuration.challengeHandler
    }
}

/// The session's handlers behind a lock, in an object of their own so that the connection
/// options can read them without holding the session (which owns the pool that owns the options).
final class SessionHookStore: Sendable {
    private let state: Mutex<SessionHooks>

    init(_ hooks: SessionHooks) { state = Mutex(hooks) }

    func withLock<R>(_ body: (inout SessionHooks) -> R) -> R { state.withLock { body(&$0) } }
}

extension Session {
    /// Replaces the redirect handler (`setTaskWillPerformHTTPRedirectionBlock:`): asked before
    /// each redirect that a task reaches from now on; nil follows redirects by the rules alone.
    /// - Parameter handler: the handler, or nil.
    public func setRedirectHandler(_ handler: (@Sendable (Redirect) async -> RedirectDecision)?) {
        storage.hooks.withLock { $0.redirect = handler }
    }

    /// Replaces the challenge handler (`setSessionDidReceiveAuthenticationChallengeBlock:` and
    /// `setTaskDidReceiveAuthenticationChallengeBlock:`): asked on each 401 from now on, and for
    /// server trust on each connection opened from now on. `.fail(error)` fails the task with
    /// that error as its `underlying` error.
    /// - Parameter handler: the handler, or nil for default handling.
    public func setChallengeHandler(_ handler: (@Sendable (Challenge) async -> ChallengeDisposition)?) {
        storage.hooks.withLock { $0.challenge = handler }
    }

    /// Sets where a download task made without a destination puts its file
    /// (`setDownloadTaskDidFinishDownloadingBlock:`); a task's own destination wins. Without
    /// either, the file goes to a new name in the temporary directory (`TMPDIR`, else /tmp), and
    /// the task's result and `TaskCompletion.downloadLocation` say where.
    /// - Parameter destination: called with the final response head and URL, or nil.
    public func setDownloadDestination(_ destination: (@Sendable (HTTPResponseHead, URI) -> DownloadDestination)?) {
        storage.hooks.withLock { $0.downloadDestination = destination }
    }

    /// Sets the handler asked when a data or upload task receives its final response head,
    /// before its body is read (`setDataTaskDidReceiveResponseBlock:`).
    /// - Parameter handler: decides `.allow` or `.cancel`; nil allows every response.
    public func setResponseHandler(_ handler: (@Sendable (ReceivedResponse) async -> ResponseDisposition)?) {
        storage.hooks.withLock { $0.receivedResponse = handler }
    }

    /// Sets the handler called when any task of the session completes (`setTaskDidCompleteBlock:`),
    /// with what `SessionEvent.taskCompleted` carries, before the task's caller is woken.
    /// - Parameter handler: the handler, or nil (it runs on the thread that completes the task:
    ///   keep it short).
    public func setTaskCompletionHandler(_ handler: (@Sendable (TaskCompletion) -> Void)?) {
        storage.hooks.withLock { $0.taskCompleted = handler }
    }

    /// A download task without a destination of its own: the session's destination
    /// (`setDownloadDestination(_:)`) when the response arrives, else a new file in the temporary
    /// directory.
    /// - Parameters:
    ///   - request: the request.
    ///   - keepsPartialData: whether a failed download keeps its temporary file as resume data.
    /// - Returns: a suspended task.
    public func downloadTask(with request: HTTPRequest, keepsPartialData: Bool = true) -> DownloadTask {
        let storage = self.storage
        return downloadTask(with: request, keepsPartialData: keepsPartialData, placement: { head, uri in
            if let destination = storage.hooks.withLock({ $0.downloadDestination }) { return destination(head, uri) }
            return SessionHooks.temporaryDestination()
        })
    }
}

extension SessionHooks {
    /// A fresh name in the temporary directory; `.keep`, so an existing file is never replaced.
    static func temporaryDestination() -> DownloadDestination {
        var directory = ProcessEnvironment.value("TMPDIR") ?? "/tmp"
        if directory.isEmpty { directory = "/tmp" }
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        var generator = SystemRandomNumberGenerator()
        let suffix = String(generator.next() as UInt64, radix: 16)
        return DownloadDestination(path: directory + "/courier-download-" + suffix, existingFile: .keep)
    }
}
