// TaskMetrics: what a task measured (NSURLSessionTaskMetrics reduced to HTTP/1.1), and the figures
// curl's --write-out variables need.

import CourierPool

/// Measurements of one task.
public struct TaskMetrics: Sendable {
    /// One entry per request sent (redirect hops, authentication retries).
    public var transactions: [TransactionMetrics] = []
    /// Redirects followed (curl `num_redirects`).
    public var redirectCount: Int = 0
    /// Attempts the retry policy started after the first (curl `num_retries`).
    public var retryCount: Int = 0
    /// What the HTTP cache did, in order (e.g. `[.miss, .stored]`, `[.hit]`,
    /// `[.revalidated]`); empty without a cache.
    public var cacheEvents: [CacheEvent] = []
    /// The status of the last proxy reply to a CONNECT this task's connections were opened with
    /// (curl's `%{http_connect}`); nil when no tunnel was opened for the task.
    public var proxyConnectStatus: Int? = nil
    /// New connections opened for this task (curl `num_connects`).
    public var connectCount: Int = 0
    /// Request body bytes sent by the last request (curl `size_upload`).
    public var bytesSent: UInt64 = 0
    /// Decoded body bytes of the final response (curl `size_download`).
    public var bytesReceived: UInt64 = 0
    /// Bytes of every response head the task received, redirects and authentication retries
    /// included (as re-rendered from the parsed head: status line, fields, final empty line);
    /// bounded by `SessionConfiguration.maximumTotalHeadSize`.
    public var responseHeadBytes: Int = 0
    /// From the start of the task to its end (curl `time_total`).
    public var totalDuration: Duration = .zero
    /// The URL of the last request (curl `url_effective`).
    public var effectiveURL: String

    /// Empty metrics for `effectiveURL`.
    /// - Parameter effectiveURL: the task's URL.
    public init(effectiveURL: String) { self.effectiveURL = effectiveURL }
}

/// Measurements of one request and response. Offsets are from the start of the task.
public struct TransactionMetrics: Sendable {
    /// The request's URL (userinfo removed).
    public var url: String
    /// Whether the request went on a connection that had carried an earlier request.
    public var reusedConnection: Bool
    /// The retry policy's attempt this request belongs to (1: the first).
    public var attempt: Int = 1
    /// When the connection was leased.
    public var fetchStart: Duration?
    /// Name resolution of a new connection.
    public var dns: Duration?
    /// The TCP connect of a new connection.
    public var connect: Duration?
    /// The TLS handshake of a new connection.
    public var tlsHandshake: Duration?
    /// When the last request byte was sent.
    public var requestSent: Duration?
    /// When the response head arrived.
    public var firstByte: Duration?
    /// When the response body ended.
    public var completed: Duration?
    /// How the wait for 100 Continue ended, when the request asked (`Expect: 100-continue`).
    public var expectContinue: ExpectContinueOutcome?

    /// Creates a record.
    /// - Parameters:
    ///   - url: the URL.
    ///   - reusedConnection: whether the connection was reused.
    public init(url: String, reusedConnection: Bool) {
        self.url = url
        self.reusedConnection = reusedConnection
    }
}

extension PoolError: PoolErrorConvertible {
    var connectionError: ConnectionError {
        switch code {
        case .waitDeadlineExceeded: return ConnectionError(.connectTimeout, "no connection became free in time")
        case .cancelled, .poolShutdown: return ConnectionError(.cancelled, "the request was cancelled (\(code))")
        default: return ConnectionError(.connectFailed, "the connection failed (\(code))")
        }
    }
}
