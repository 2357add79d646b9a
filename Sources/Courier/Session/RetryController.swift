// RetryController: one task's retries under a RetryPolicy — how many were made, whether the next
// failure is retried and after how long — and the session's per-host retry budgets. The Transfer
// asks it at two points only, both before anything of the response reached the caller's sink: a
// final response head (its status and Retry-After), and a failed attempt (its error).

import CourierBytes
import CourierHTTP1
import CourierPosix
import Synchronization

/// A retry decided on: wait `delay`, then attempt `attempt` (2 for the first retry).
struct RetryPlan: Sendable {
    var delay: Duration
    var reason: RetryReason
    var attempt: Int
    var retriesLeft: Int
}

/// The session's retry budgets, one per host (gRPC retry throttling).
final class RetryBudgets: Sendable {
    private let tokens = Mutex<[String: Double]>([:])

    /// A failed attempt (retryable status or error) takes a token.
    func failure(_ host: String, _ budget: RetryBudget) {
        tokens.withLock { t in t[host] = max(0, (t[host] ?? budget.maximumTokens) - 1) }
    }

    /// Any other response gives `tokenRatio` back.
    func success(_ host: String, _ budget: RetryBudget) {
        tokens.withLock { t in t[host] = min(budget.maximumTokens, (t[host] ?? budget.maximumTokens) + budget.tokenRatio) }
    }

    /// Retries are allowed while more than half the tokens are left.
    func allowsRetry(_ host: String, _ budget: RetryBudget) -> Bool {
        tokens.withLock { t in (t[host] ?? budget.maximumTokens) > budget.maximumTokens / 2 }
    }

    /// The tokens left for `host` (tests).
    func tokens(for host: String) -> Double? { tokens.withLock { $0[host] } }
}

final class RetryController: Sendable {
    let policy: RetryPolicy
    private let budgets: RetryBudgets
    private let host: String
    private let started: Instant
    private let retries = Mutex(0)

    init(policy: RetryPolicy, budgets: RetryBudgets, host: String) {
        self.policy = policy
        self.budgets = budgets
        self.host = host
        self.started = policy.clock.now()
    }

    /// The attempt running now (1 for the first).
    var attempt: Int { retries.withLock { $0 } + 1 }

    /// A final response head of `request`: a retry plan when its status is retryable and the
    /// policy, the budget and `Retry-After` allow one; nil when it is the answer.
    func plan(status: Int, headers: HTTPHeaders, request: HTTPRequest) -> RetryPlan? {
        guard policy.statuses.contains(status) else {
            if let budget = policy.budget { budgets.success(host, budget) }
            return nil
        }
        if let budget = policy.budget { budgets.failure(host, budget) }
        let after = RetryPolicy.retryAfter(headers, now: policy.clock.wallSeconds())
        return plan(.status(status), retryAfter: after, request: request)
    }

    /// A failed attempt of `request` whose response never reached the caller: a retry plan when
    /// the error is of a kind the policy retries; nil otherwise.
    func plan(error: SessionError, request: HTTPRequest) -> RetryPlan? {
        guard let reason = reason(for: error) else { return nil }
        if let budget = policy.budget { budgets.failure(host, budget) }
        return plan(reason, retryAfter: nil, request: request)
    }

    private func plan(_ reason: RetryReason, retryAfter: Duration?, request: HTTPRequest) -> RetryPlan? {
        guard policy.allows(method: ASCIICase.uppercased(request.method.rawValue), headers: request.headers),
              request.body.isReplayable else { return nil }
        let elapsed = policy.clock.now() - started
        if let limit = policy.maximumTime, elapsed >= limit { return nil }
        var delay: Duration
        if let retryAfter {
            // Longer than the cap: the response is the answer now, rather than a long sleep.
            if let cap = policy.maximumRetryAfter, retryAfter > cap { return nil }
            if let limit = policy.maximumTime, elapsed + retryAfter > limit { return nil }
            delay = retryAfter
        } else {
            delay = .zero
        }
        if let budget = policy.budget, !budgets.allowsRetry(host, budget) { return nil }
        return retries.withLock { (n: inout Int) -> RetryPlan? in
            guard n < policy.maximumRetries else { return nil }
            if retryAfter == nil { delay = policy.delay(beforeRetry: n) }
            n += 1
            return RetryPlan(delay: delay, reason: reason, attempt: n + 1, retriesLeft: policy.maximumRetries - n)
        }
    }

    /// The kind of failure, when the policy retries it.
    private func reason(for error: SessionError) -> RetryReason? {
        guard error.code == .connection, let connection = error.connectionError else {
            return nil
        }
        switch connection.code {
        case .connectFailed:
            if connection.resolutionError != nil {
                return policy.retriesResolutionFailures ? .connectFailed : nil
            }
            if connection.connectError?.code == .connectionRefused {
                return policy.retriesConnectionRefused ? .connectionRefused : (policy.retriesAllErrors ? .otherError : nil)
            }
            return policy.retriesConnectFailures || policy.retriesAllErrors ? .connectFailed : nil
        case .connectTimeout, .tlsHandshakeTimeout, .idleTimeout, .totalTimeout:
            return policy.retriesTimeouts ? .timedOut : nil
        case .remoteClosed, .notReusable:
            if connection.sawResponseBytes != true && policy.retriesResets { return .connectionClosed }
            return policy.retriesAllErrors ? .otherError : nil
        case .cancelled, .invalidRequest:
            return nil
        default:
            return policy.retriesAllErrors ? .otherError : nil
        }
    }
}

extension HTTPRequest.Body {
    /// Whether the body can be sent again from its first byte (every body but a one-pass stream,
    /// such as standard input).
    var isReplayable: Bool {
        switch self {
        case .stream(_, let stream): return stream.isReplayable
        case .asyncStream(_, let stream): return stream.isReplayable
        default: return true
        }
    }
}
