// RetryPolicy: when a failed request is sent again, and after how long (issue 13 §2;
// docs/retry.md). A Session value, off unless configured.
//
// What is retried: the methods RFC 9110 §9.2.2 calls idempotent (GET, HEAD, OPTIONS, TRACE, PUT,
// DELETE), and any other (POST, PATCH) only when the request carries an `Idempotency-Key` field
// (draft-ietf-httpapi-idempotency-key-header) or the caller opts in; statuses 408, 429, 502, 503,
// 504 (500 opt-in); connect failures, a connection closed or reset before any response byte, and
// timeouts. Never: a body that cannot be replayed (standard input), an attempt whose response
// bytes already reached the caller (a sink began), or a status whose `Retry-After` asks for longer
// than the policy's cap (the response is delivered at once rather than slept on).
//
// The delay is AWS's "full jitter", U(0, min(cap, base·2ⁿ)), unless the response says
// `Retry-After` (delta-seconds or an HTTP-date). A retry budget per host (gRPC's retry
// throttling: tokens start at the maximum, −1 per failed attempt, +ratio per success, retries
// only while tokens > max/2) keeps a failing server from a retry storm. The pool's one-time
// resend of a request that met a dead reused connection is another mechanism: it is neither an
// attempt here nor a charge on the budget.

import CourierCookies
import CourierHTTP1
import CourierPosix
import Synchronization

/// When a failed request is sent again, how often, and after how long.
public struct RetryPolicy: Sendable {
    /// How the delay before retry n (0 for the first) is chosen.
    public enum Backoff: Sendable, Hashable {
        /// U(0, min(cap, base·2ⁿ)): AWS's full jitter, the default (base 0.5 s, cap 30 s).
        case fullJitter(base: Duration, cap: Duration)
        /// min(cap, base·2ⁿ) without jitter (curl's `--retry` schedule: 1 s doubling, at most 10 min).
        case exponential(base: Duration, cap: Duration)
        /// The same delay every time (curl's `--retry-delay`).
        case constant(Duration)
    }

    /// Retries after the first attempt. Default 2.
    public var maximumRetries: Int = 2
    /// The delay schedule. Default full jitter, base 0.5 s, cap 30 s.
    public var backoff: Backoff = .fullJitter(base: .milliseconds(500), cap: .seconds(30))
    /// The longest `Retry-After` honoured; a server asking for longer gets its response delivered
    /// at once (no sleep, no retry). Nil: no cap. Default 30 s.
    public var maximumRetryAfter: Duration? = .seconds(30)
    /// No retry starts once this long has passed since the first attempt began, nor one whose
    /// `Retry-After` would end after it (curl's `--retry-max-time`). Nil: no limit.
    public var maximumTime: Duration? = nil
    /// Methods retried (upper-case). Default the idempotent ones: GET, HEAD, OPTIONS, TRACE, PUT,
    /// DELETE.
    public var methods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]
    /// Whether a request of another method (POST, PATCH) is retried when it carries an
    /// `Idempotency-Key` field (then with the same body). Default true.
    public var retriesWithIdempotencyKey = true
    /// Whether requests of any method are retried (the caller vouches for them). Default false.
    public var retriesAnyMethod = false
    /// Statuses retried. Default 408, 429, 502, 503, 504 (add 500 to retry it).
    public var statuses: Set<Int> = [408, 429, 502, 503, 504]
    /// Whether a connection that could not be made is retried (no route, every address failed).
    /// Default true.
    public var retriesConnectFailures = true
    /// Whether a failed name resolution is retried. Default true (curl retries it as a
    /// transient error).
    public var retriesResolutionFailures = true
    /// Whether a refused connection (ECONNREFUSED) is retried. Default true (curl: only with
    /// `--retry-connrefused`).
    public var retriesConnectionRefused = true
    /// Whether timeouts (connect, TLS handshake, idle, the attempt's total) are retried. Default true.
    public var retriesTimeouts = true
    /// Whether a connection closed or reset before any response byte is retried. Default true.
    public var retriesResets = true
    /// Whether every other transport error is retried too (curl's `--retry-all-errors`), still
    /// never after response bytes reached the caller. Default false.
    public var retriesAllErrors = false
    /// The per-host retry budget (gRPC retry throttling); nil: none. Default 10 tokens, ratio 0.1.
    public var budget: RetryBudget? = RetryBudget()

    /// The clock and sleeper (tests inject one that does not wait).
    package var clock: RetryClock = .system
    /// Random numbers in [0, 1) for the jitter (tests inject fixed ones).
    package var random: @Sendable () -> Double = { Double.random(in: 0..<1) }

    /// The defaults: 2 retries, full jitter from 0.5 s to 30 s, `Retry-After` up to 30 s, a
    /// budget of 10 tokens per host.
    public init() {}

    /// The default policy.
    public static let `default` = RetryPolicy()

    /// The delay before retry `n` (0-based) when the response names none.
    func delay(beforeRetry n: Int) -> Duration {
        switch backoff {
        case .constant(let delay): return delay
        case .exponential(let base, let cap): return RetryPolicy.doubled(base, times: n, cap: cap)
        case .fullJitter(let base, let cap):
            let ceiling = RetryPolicy.doubled(base, times: n, cap: cap)
            return ceiling * min(max(random(), 0), 1)
        }
    }

    /// min(cap, base·2ⁿ), without overflow.
    package static func doubled(_ base: Duration, times n: Int, cap: Duration) -> Duration {
        var value = base
        for _ in 0..<max(n, 0) {
            if value >= cap { break }
            value = value * 2
        }
        return min(value, cap)
    }

    /// Whether requests of `method` with `headers` may be sent again.
    func allows(method: String, headers: HTTPHeaders) -> Bool {
        if retriesAnyMethod || methods.contains(method) { return true }
        return retriesWithIdempotencyKey && headers.contains(name: "Idempotency-Key")
    }

    /// `Retry-After` (RFC 9110 §10.2.3) as a duration from now: delta-seconds, or an HTTP-date
    /// (a date in the past is 0). Nil when absent or unreadable.
    package static func retryAfter(_ headers: HTTPHeaders, now: Int64) -> Duration? {
        guard let field = headers.first(name: "Retry-After") else { return nil }
        let value = String(field.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        guard !value.isEmpty else { return nil }
        if value.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            // Saturated: a delta too large for Int64 is "longer than any cap".
            guard let seconds = Int64(value), seconds < Int64.max / 1_000_000_000 else { return .seconds(Int64.max / 1_000_000_000) }
            return .seconds(seconds)
        }
        guard let date = CookieDate.parse(value) else { return nil }
        return .seconds(max(0, date - now))
    }
}

/// gRPC's retry throttling for one host: tokens start at `maximumTokens`; each failed attempt
/// (a retryable status or error) takes 1, each other response gives back `tokenRatio`; a retry
/// is allowed only while more than half the tokens are left.
public struct RetryBudget: Sendable, Hashable {
    /// The most tokens (and the start). Default 10 (gRPC's example).
    public var maximumTokens: Double
    /// Tokens a success gives back. Default 0.1.
    public var tokenRatio: Double

    /// A budget.
    /// - Parameters:
    ///   - maximumTokens: the most tokens, more than 0. Default 10.
    ///   - tokenRatio: what a success gives back. Default 0.1.
    public init(maximumTokens: Double = 10, tokenRatio: Double = 0.1) {
        precondition(maximumTokens > 0 && tokenRatio >= 0, "a retry budget needs tokens")
        self.maximumTokens = maximumTokens
        self.tokenRatio = tokenRatio
    }
}

/// Time for the retry policy: now, and a sleep (cancellable).
package struct RetryClock: Sendable {
    package var now: @Sendable () -> Instant
    package var wallSeconds: @Sendable () -> Int64
    package var sleep: @Sendable (Duration) async throws -> Void

    package init(now: @escaping @Sendable () -> Instant, wallSeconds: @escaping @Sendable () -> Int64,
                 sleep: @escaping @Sendable (Duration) async throws -> Void) {
        self.now = now
        self.wallSeconds = wallSeconds
        self.sleep = sleep
    }

    package static let system = RetryClock(now: { Instant.now() }, wallSeconds: { WallClock.secondsSinceEpoch() },
                                           sleep: { try await Task.sleep(for: $0) })
}

/// Why an attempt is sent again.
public enum RetryReason: Sendable, Hashable, CustomStringConvertible {
    /// A retryable status (408, 429, 502, 503, 504, or the policy's own).
    case status(Int)
    /// The connection could not be made.
    case connectFailed
    /// The connection was refused.
    case connectionRefused
    /// A timeout (connect, idle, or the attempt's total).
    case timedOut
    /// The connection was closed or reset before any response byte.
    case connectionClosed
    /// Another transport error (`retriesAllErrors`).
    case otherError

    /// curl's words for it ("Problem : HTTP error.").
    public var description: String {
        switch self {
        case .status(let status): return "HTTP error \(status)"
        case .connectFailed: return "connect failure"
        case .connectionRefused: return "connection refused"
        case .timedOut: return "timeout"
        case .connectionClosed: return "connection closed"
        case .otherError: return "transport error"
        }
    }
}
