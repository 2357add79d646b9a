// Transfer: one task's exchanges, from the first request to the end of the final body. It owns the
// redirect loop, the 401 challenge retry, sending bodies with upload progress, and the receive
// pipeline (pause gate → content decoding → size limits → download progress → sink).
//
// Each exchange runs inside `ConnectionPool.execute`, so a connection is leased for exactly one
// request and given back (or closed) when the exchange returns. The pool's retry-once rule may run
// the exchange closure twice for an idempotent request; the closure is written so a second run
// starts from scratch (the body is replayed from its source, the sink has not begun yet).
//
// Invariants:
// - the sink's `begin` is called at most once, with the final response head, before any body byte;
// - a failure after `begin` is reported to the sink (`abort`) so it can discard or keep bytes;
// - nothing is sent when the request is invalid (scheme, host, header bytes): those errors come
//   from `RequestPreparation` before a connection is leased.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierURL
import Synchronization

/// Receives the final response of a task.
protocol ResponseSink: Sendable {
    /// The final head arrived; may throw to refuse it (nothing of the body is read then).
    func begin(_ head: HTTPResponseHead, request: HTTPRequest) async throws(SessionError)
    /// The next decoded body bytes, in order.
    func write(_ bytes: ByteBuffer) async throws(SessionError)
    /// The body ended.
    func finish() async throws(SessionError)
    /// The transfer failed after `begin` (or before it, with `begun` false).
    func abort(_ error: SessionError, begun: Bool) async
    /// Where the body may be spliced in the kernel instead of written (a regular file), once
    /// `begin` has opened it; nil (the default) writes every byte through `write`.
    var spliceOutput: OutputFile? { get }
}

extension ResponseSink {
    var spliceOutput: OutputFile? { nil }
}

/// The outcome of a transfer: the final head (the sink has consumed the body).
struct TransferOutcome: Sendable {
    var head: HTTPResponseHead
    var request: HTTPRequest
}

/// Collects metrics as the transfer goes.
final class MetricsRecorder: Sendable {
    private struct State {
        var metrics: TaskMetrics
        /// The last URI described by `url(of:)`, and its description.
        var described: (uri: URI, text: String)?
    }
    private let state: Mutex<State>
    let started: Instant

    /// - Parameters:
    ///   - url: the task's URL as metrics and errors show it (`redactedDescription`).
    ///   - uri: the URI `url` describes, when known: `url(of:)` answers it without a new string.
    init(url: String, uri: URI? = nil) {
        started = Instant.now()
        state = Mutex(State(metrics: TaskMetrics(effectiveURL: url), described: uri.map { ($0, url) }))
    }

    /// `uri.redactedDescription`, made once per URI: a transfer names the same URI in its metrics
    /// and its errors several times per request (each a new string: docs/benchmarks.md, "Memory").
    func url(of uri: URI) -> String {
        if let text = state.withLock({ s in s.described.flatMap { $0.uri == uri ? $0.text : nil } }) { return text }
        let text = uri.redactedDescription
        state.withLock { $0.described = (uri, text) }
        return text
    }

    func update(_ body: (inout TaskMetrics) -> Void) { state.withLock { body(&$0.metrics) } }

    func updateTransaction(_ body: (inout TransactionMetrics) -> Void) {
        state.withLock { s in
            guard !s.metrics.transactions.isEmpty else { return }
            body(&s.metrics.transactions[s.metrics.transactions.count - 1])
        }
    }

    var elapsed: Duration { Instant.now() - started }

    /// Adds a response head's size to the task's total and returns the new total.
    func addResponseHead(_ bytes: Int) -> Int {
        state.withLock { s in
            s.metrics.responseHeadBytes += bytes
            return s.metrics.responseHeadBytes
        }
    }

    /// The metrics so far, the duration up to now.
    var snapshot: TaskMetrics {
        let total = elapsed
        return state.withLock { s in
            var metrics = s.metrics
            metrics.totalDuration = total
            return metrics
        }
    }

    func finish() -> TaskMetrics {
        let total = elapsed
        return state.withLock { s in
            s.metrics.totalDuration = total
            return s.metrics
        }
    }
}

struct Transfer: Sendable {
    let storage: SessionState
    let core: TaskLifecycle
    let metrics: MetricsRecorder
    /// Resumed downloads ask for a range; then no compression is requested.
    let isRangeRequest: Bool
    /// The timeout error once the total deadline passed: the transfer is then cancelled, and
    /// whatever it reports on the way out names the deadline ("timed out", curl 28, -1001),
    /// never "cancelled" (reserved for the caller's cancel). Nil without a total timeout (made
    /// only for a transfer that has one: an allocation per request otherwise).
    var deadline: Deadline? = nil
    /// The task's retries under the session's retry policy (nil: none).
    var retry: RetryController? = nil

    var configuration: SessionConfiguration { storage.configuration }

    /// Runs the transfer under its total timeout: the request's own `timeout` when it has one
    /// (AFNetworking's `timeoutInterval`; here a bound on the whole task, redirects included, since
    /// connections are shared and their idle timeout is the session's), else the session's.
    func run(_ request: HTTPRequest, sink: some ResponseSink) async throws(SessionError) -> TransferOutcome {
        // The transfer runs on its connections' event loop (issue: transport at wire speed):
        // pulling bytes that are already read is then a plain call on the same thread. Whatever
        // comes after it (serializers, the caller's code) runs on the caller's executor again.
        if var failure = storage.resolverFailure {
            failure.url = request.uri.redactedDescription
            throw failure
        }
        let loop = storage.pool.eventLoop
        return try await withTaskExecutorPreference(loop) { () async throws(SessionError) -> TransferOutcome in
            guard let policy = configuration.retryPolicy else { return try await runOnLoop(request, sink: sink) }
            return try await runRetrying(request, sink: sink, policy: policy)
        }
    }

    /// The attempts of a task under a retry policy, outermost (issue 13: retry → redirects →
    /// cookies → the exchange): each attempt starts from the caller's request again, with a
    /// deadline of its own (the total timeout bounds one attempt, as curl's `-m` does with
    /// `--retry`). An attempt that fails before anything reached the sink, in a way the policy
    /// retries, throws an error carrying the plan; the sink never hears of it.
    private func runRetrying(_ request: HTTPRequest, sink: some ResponseSink, policy: RetryPolicy) async throws(SessionError) -> TransferOutcome {
        let host = (request.uri.host?.text ?? "") + ":" + String(request.uri.effectivePort ?? 0)
        let controller = RetryController(policy: policy, budgets: storage.retryBudgets, host: host)
        while true {
            var attempt = Transfer(storage: storage, core: core, metrics: metrics, isRangeRequest: isRangeRequest)
            attempt.retry = controller
            do {
                return try await attempt.runOnLoop(request, sink: sink)
            } catch {
                guard let plan = error.retryPlan else { throw error }
                core.emit(.retry(attempt: plan.attempt, reason: plan.reason, delay: plan.delay, retriesLeft: plan.retriesLeft))
                metrics.update { $0.retryCount += 1 }
                var slept = true
                do { try await policy.clock.sleep(plan.delay) } catch { slept = false }
                if !slept || core.isCancelled || Task.isCancelled {
                    let failure = SessionError(.cancelled, "the task was cancelled", url: request.uri.redactedDescription)
                    await sink.abort(failure, begun: false)
                    throw failure
                }
            }
        }
    }

    private func runOnLoop(_ request: HTTPRequest, sink: some ResponseSink) async throws(SessionError) -> TransferOutcome {
        guard let total = request.timeout ?? configuration.totalTimeout else {
            return try await runLoop(request, sink: sink)
        }
        let deadline = Deadline()
        var timed = self
        timed.deadline = deadline
        let transfer = timed
        let outcome: Result<TransferOutcome, SessionError> = await withTaskGroup(of: Result<TransferOutcome, SessionError>?.self) { group in
            group.addTask {
                do throws(SessionError) { return .success(try await transfer.runLoop(request, sink: sink)) } catch { return .failure(error) }
            }
            group.addTask {
                try? await Task.sleep(for: total)
                if Task.isCancelled { return nil }
                var error = ConnectionError(.totalTimeout, "the operation took longer than \(total)")
                error.message = "operation timed out after \(total)"
                let failure = SessionError.connection(error, url: request.uri.redactedDescription)
                // Recorded before the transfer is cancelled, so its way out reports this.
                deadline.pass(failure)
                return .failure(failure)
            }
            var result: Result<TransferOutcome, SessionError>?
            while let next = await group.next() {
                if let next {
                    result = next
                    break
                }
            }
            group.cancelAll()
            // The loser still runs its cancellation; wait so no work outlives the task.
            while let next = await group.next() {
                // A timed-out attempt the retry policy takes over: its plan is the outcome.
                if case .failure(let error)? = next, error.retryPlan != nil { result = next }
            }
            return result!
        }
        if case .failure(let error) = outcome, error.connectionError?.code == .totalTimeout, error.retryPlan == nil {
            await sink.abort(error, begun: true)
        }
        return try outcome.get()
    }

    private func runLoop(_ original: HTTPRequest, sink: some ResponseSink) async throws(SessionError) -> TransferOutcome {
        var request = RequestPreparation.prepare(original, configuration: configuration, isRangeRequest: isRangeRequest)
        // The requests of the redirect chain (method and URL), made at the first redirect: most
        // transfers have none.
        var visited: Set<String> = []
        var redirects = 0
        var authentication = AuthenticationState()
        // A 417 answered this request's Expect: 100-continue: it is sent once more without it.
        var expectationRefused = false
        var proxyAnswered = false
        // A 304 that did not select the stored response: the request goes again without conditions.
        var cacheUnconditional = false
        while true {
            try checkCancelled(request)
            var origin = try RequestPreparation.origin(of: request.uri)
            // The proxy is decided for each hop's URL (NO_PROXY, the scheme's proxy).
            let route: ProxyRoute?
            do throws(SessionError) {
                route = try RequestPreparation.proxyRoute(for: request, settings: storage.proxies)
            } catch {
                var failure = error
                failure.url = request.uri.redactedDescription
                await sink.abort(failure, begun: false)
                throw failure
            }
            origin.proxy = route
            // Cookies are computed for each hop's URL (redirects, 401 retries): `request` stays
            // without the jar's cookies, `sent` carries them.
            var sent = RequestPreparation.addingCookies(to: request, from: configuration.cookieJar)
            // The cache sits between the cookies and the proxy (issue 13's order).
            var cacheContext: CacheContext?
            switch try await consultCache(sent, request: request, sink: sink, unconditional: cacheUnconditional) {
            case .served(let outcome): return outcome
            case .proceed(let next, let context): (sent, cacheContext) = (next, context)
            }
            sent = RequestPreparation.routing(sent, through: route, answering407: proxyAnswered)
            let body = try await RequestPreparation.measure(sent)
            let length = body.length
            let (asking, expectTimeout) = RequestPreparation.addingExpectation(to: sent, length: length, configuration: configuration,
                                                                               refused: expectationRefused)
            let encoded = try RequestPreparation.encodeHead(asking, length: length)
            let step = try await exchange(asking, callerRequest: request, origin: origin, body: body, encoded: encoded,
                                          expectTimeout: expectTimeout, sink: sink, redirectsSoFar: redirects,
                                          authentication: authentication, mayResendWithoutExpect: !expectationRefused,
                                          mayAnswer407: !proxyAnswered, cache: cacheContext)
            switch step {
            case .final(let outcome):
                return outcome
            case .resendUnconditional:
                cacheUnconditional = true
            case .proxyAuthenticate:
                // Answered once: a second 407 is the task's response.
                proxyAnswered = true
            case .resendWithoutExpectation:
                // RFC 9110 §10.1.1: a client that gets 417 may repeat the request without the
                // expectation (curl does, once); the body is replayed from its source.
                expectationRefused = true
                request.headers.remove(name: "Expect")
            case .authenticate(let credential, let answer, let stale):
                if stale { authentication.staleRetried = true } else { authentication.failures += 1 }
                authentication.credential = credential
                authentication.scheme = answer.scheme
                // Where curl and RequestPreparation put credentials: first after Host.
                if request.headers.contains(name: "Authorization") {
                    request.headers.replaceOrAdd(name: "Authorization", value: answer.authorization)
                } else {
                    request.headers = HTTPHeaders([("Authorization", answer.authorization)] + request.headers.map { ($0.name, $0.value) })
                }
            case .redirect(let head, let prepared):
                redirects += 1
                guard redirects <= configuration.redirectLimit, let next = prepared else {
                    let error = SessionError(.tooManyRedirects, "maximum (\(configuration.redirectLimit)) redirects followed",
                                             url: request.uri.redactedDescription)
                    await sink.abort(error, begun: false)
                    throw error
                }
                if visited.isEmpty { visited.insert(request.method.rawValue + " " + request.uri.description) }
                let key = next.method.rawValue + " " + next.uri.description
                guard visited.insert(key).inserted else {
                    let error = SessionError(.redirectLoop, "the redirect to \(next.uri.redactedDescription) leads back to an earlier request",
                                             url: next.uri.redactedDescription)
                    await sink.abort(error, begun: false)
                    throw error
                }
                core.emit(.redirect(from: request.uri, to: next.uri, status: head.status))
                metrics.update { $0.redirectCount += 1 }
                request = next
            }
        }
    }

    private enum Step: Sendable {
        case final(TransferOutcome)
        /// A redirect to follow with the next request (nil: over the redirect limit).
        case redirect(HTTPResponseHead, next: HTTPRequest?)
        /// Send the request again with this answer; `stale`: the answer to a Digest stale=true.
        case authenticate(Credential, ChallengeAnswer, stale: Bool)
        /// A 417 to Expect: 100-continue: the same request again without the expectation.
        case resendWithoutExpectation
        /// A proxy's 407 asking for Basic, to answer with the proxy's credentials.
        case proxyAuthenticate
        /// A 304 to the cache's validation that does not select the stored response.
        case resendUnconditional
    }

    /// What the task has answered 401s with so far.
    private struct AuthenticationState: Sendable {
        /// 401s the challenge handler answered (it is asked once per task).
        var failures = 0
        /// The credential and scheme of the last answer.
        var credential: Credential?
        var scheme: AuthenticationScheme?
        /// Whether a Digest stale=true was already answered (once per task).
        var staleRetried = false
    }

    private func checkCancelled(_ request: HTTPRequest) throws(SessionError) {
        if core.isCancelled {
            throw SessionError(.cancelled, "the task was cancelled", url: request.uri.redactedDescription)
        }
        if Task.isCancelled {
            throw deadline?.error ?? SessionError(.cancelled, "the task was cancelled", url: request.uri.redactedDescription)
        }
    }

    /// One request and its response on a pooled connection.
    /// `request` is sent; `callerRequest` is the same request without the jar's cookies, from which
    /// a redirect's next request is made.
    private func exchange(_ request: HTTPRequest, callerRequest: HTTPRequest, origin: ConnectionPool.Origin, body: MeasuredBody,
                          encoded: EncodedHead, expectTimeout: Duration?, sink: some ResponseSink, redirectsSoFar: Int,
                          authentication: AuthenticationState, mayResendWithoutExpect: Bool,
                          mayAnswer407: Bool, cache: CacheContext?) async throws(SessionError) -> Step {
        let begun = OneWayFlag()
        do {
            return try await storage.pool.execute(origin: origin, method: request.method, isBodyReplayable: true) { connection in
                try await self.exchange(on: connection, request: request, callerRequest: callerRequest, body: body, encoded: encoded,
                                        expectTimeout: expectTimeout, sink: sink, begun: begun, redirectsSoFar: redirectsSoFar,
                                        authentication: authentication, mayResendWithoutExpect: mayResendWithoutExpect,
                                        answering407: mayAnswer407 ? origin.proxy : nil, cache: cache)
            }
        } catch {
            if let refused = error as? ConnectionError, refused.code == .proxyTunnelFailed {
                // The proxy refused the tunnel: the trace shows its CONNECT exchanges.
                reportTunnel(refused.tunnelExchanges)
                metrics.update { $0.proxyConnectStatus = refused.proxyStatus }
            }
            let url = metrics.url(of: request.uri)
            var failure = Transfer.sessionError(error, url: url, core: core, limits: configuration.parserLimits)
            if failure.code == .cancelled, !core.isCancelled, let timedOut = deadline?.error { failure = timedOut }
            // Nothing reached the caller: the retry policy may send it again (the sink is not told).
            if failure.retryPlan == nil, !begun.isSet, !core.isCancelled, let retry,
               let plan = retry.plan(error: failure, request: request) {
                failure.retryPlan = plan
            }
            if failure.retryPlan != nil { throw failure }
            await sink.abort(failure, begun: begun.isSet)
            throw failure
        }
    }

    /// Shows the CONNECT exchanges of a tunnel as the heads they were (curl's `-v` and `-i` show
    /// them too).
    private func reportTunnel(_ exchanges: [TunnelExchange]) {
        guard core.hasObserver else { return }
        for exchange in exchanges {
            core.emit(.requestHead(ByteBuffer(bytes: exchange.requestHead)))
            core.emit(.responseHead(exchange.response))
        }
    }

    static func sessionError(_ error: any Error, url: String, core: TaskLifecycle, limits: HTTP1ParserLimits) -> SessionError {
        if core.isCancelled { return SessionError(.cancelled, "the task was cancelled", url: url) }
        var result: SessionError
        switch error {
        case let error as SessionError: return error
        case let error as ConnectionError: result = .connection(error, url: url)
        case is CancellationError: return SessionError(.cancelled, "the task was cancelled", url: url)
        case let error as PoolErrorConvertible: result = .connection(error.connectionError, url: url)
        default: return .connection(ConnectionError(.connectFailed, "\(error)"), url: url)
        }
        // The peer broke HTTP or a limit: say which rule or limit, with its configured value.
        if let connection = result.connectionError, let parserError = connection.parserError,
           connection.code == .protocolError || parserError.code == .incompleteHead {
            result.message = parserError.explanation(limits: limits)
        }
        return result
    }

    private func exchange(on connection: HTTP1Connection, request: HTTPRequest, callerRequest: HTTPRequest, body: MeasuredBody,
                          encoded: EncodedHead, expectTimeout: Duration?, sink: some ResponseSink, begun: OneWayFlag, redirectsSoFar: Int,
                          authentication: AuthenticationState, mayResendWithoutExpect: Bool,
                          answering407 route: ProxyRoute?, cache: CacheContext?) async throws -> Step {
        let reused = connection.requestCount > 0
        if core.hasObserver {
            let remote = connection.remoteAddress.map { "\($0)" }
            // Through a proxy the TCP peer is the proxy: -v names it, as curl does.
            let peer = connection.proxy.map { ($0.host, $0.port) } ?? (connection.host, connection.port)
            core.emit(.connected(host: peer.0, port: peer.1, address: remote, reused: reused, tls: connection.usesTLS))
        }
        if !reused {
            let tunnel = connection.tunnelExchanges
            if let last = tunnel.last {
                reportTunnel(tunnel)
                metrics.update { $0.proxyConnectStatus = last.response.status }
            }
        }
        let offset = metrics.elapsed
        let attempt = retry?.attempt ?? 1
        let timings = connection.timings
        let url = metrics.url(of: request.uri)
        metrics.update { m in
            if !reused { m.connectCount += 1 }
            var transaction = TransactionMetrics(url: url, reusedConnection: reused)
            transaction.attempt = attempt
            transaction.fetchStart = offset
            if !reused {
                transaction.dns = timings.resolution
                transaction.connect = timings.connect
                transaction.tlsHandshake = timings.tlsHandshake
            }
            m.transactions.append(transaction)
        }
        if core.hasObserver { core.emit(.requestHead(ByteBuffer(bytes: encoded.bytes.joined))) }

        // The head was encoded once, before the connection was leased: the observer saw these
        // bytes, and these bytes go out.
        try await connection.sendHead(encoded: encoded, method: request.method, headers: request.headers,
                                      expectContinueTimeout: expectTimeout)
        var sent: UInt64 = 0
        do {
            try await sendBody(request, body: body, on: connection, sent: &sent)
        } catch let error as ConnectionError where error.code == .earlyResponse {
            // The server answered before it took the whole body (an early 413 or 401, or a
            // response that closes): the upload stopped, and that response is the answer, as
            // curl delivers it. The connection closes after it; the request is never sent again.
        }
        metrics.update { $0.bytesSent = sent }
        let requestSent = metrics.elapsed
        metrics.updateTransaction { $0.requestSent = requestSent }

        let response = try await connection.receiveResponse()
        let firstByte = metrics.elapsed
        let expectOutcome = response.expectContinue
        metrics.updateTransaction { t in
            t.firstByte = firstByte
            t.expectContinue = expectOutcome
        }
        let head = response.head
        // Each head is bounded by the parser; the sum over the redirect chain is bounded here.
        let headBytes = metrics.addResponseHead(head.encodedSize)
        if headBytes > configuration.maximumTotalHeadSize {
            await connection.close()
            throw SessionError(.responseHeadsTooLarge,
                               "Too large response heads: \(headBytes) bytes over \(redirectsSoFar + 1) responses, more than "
                               + "\(configuration.maximumTotalHeadSize) (limit maximumTotalHeadSize)", url: request.uri.redactedDescription)
        }
        core.emit(.responseHead(head))
        // Every response head's Set-Cookie fields, redirects and 401s included.
        if let jar = configuration.cookieJar {
            for result in jar.receive(head.headers, for: request.uri) {
                switch result {
                case .stored(let cookie): core.emit(.cookieStored(cookie, replaced: false))
                case .replaced(let cookie): core.emit(.cookieStored(cookie, replaced: true))
                case .deleted, .rejected: break
                }
            }
        }

        if let cache { await invalidateIfUnsafe(cache, request: request, status: head.status, headers: head.headers) }
        if head.status == 304, let cache, let variant = cache.validating {
            try await drain(response.body, connection: connection)
            metrics.updateTransaction { $0.completed = self.metrics.elapsed }
            // The stored body goes to the sink: from here a failure has begun it.
            begun.set()
            guard let outcome = try await answerNotModified(cache, variant: variant, headers: head.headers, request: request,
                                                            sink: sink) else { return .resendUnconditional }
            return .final(outcome)
        }
        if head.status == 407, let route, !route.tunnel, route.server.credential != nil,
           !request.headers.contains(name: "Proxy-Authorization"), RequestPreparation.asksForBasic(head.headers) {
            try await drain(response.body, connection: connection)
            metrics.updateTransaction { $0.completed = self.metrics.elapsed }
            return .proxyAuthenticate
        }
        // A retryable status (408, 429, 503, ...): unless this was the last chance, its body is
        // dropped and the request sent again later; the caller only ever sees the final answer.
        if let retry, let plan = retry.plan(status: head.status, headers: head.headers, request: request) {
            try await drain(response.body, connection: connection)
            metrics.updateTransaction { $0.completed = self.metrics.elapsed }
            var signal = SessionError(.connection, "the server answered \(head.status): the request will be sent again",
                                      url: request.uri.redactedDescription)
            signal.retryPlan = plan
            throw signal
        }
        if head.status == 417, mayResendWithoutExpect, expectOutcome != nil {
            try await drain(response.body, connection: connection)
            metrics.updateTransaction { $0.completed = self.metrics.elapsed }
            return .resendWithoutExpectation
        }
        if configuration.followsRedirects && RedirectRules.isFollowable(head.status),
           let location = try await redirectLocation(response, connection: connection, url: request.uri.redactedDescription) {
            let decision = try await redirect(to: location, from: callerRequest, head: head, redirectsSoFar: redirectsSoFar,
                                              body: response.body, connection: connection)
            // A refused redirect falls through: the 3xx is the response.
            if case .refused = decision {} else {
                try await drain(response.body, connection: connection)
                metrics.updateTransaction { $0.completed = self.metrics.elapsed }
                if case .follow(let next) = decision { return .redirect(head, next: next) }
                return .redirect(head, next: nil)
            }
        }
        // The origin a Digest answer names, made only for a 401 (a string per request otherwise).
        func authOrigin() -> String {
            "\(request.uri.scheme ?? "http")://\(request.uri.host?.text ?? ""):\(request.uri.effectivePort.map { String($0) } ?? "")"
        }
        if head.status == 401, authentication.scheme == .digest, !authentication.staleRetried, let credential = authentication.credential,
           let digest = DigestChallenge.first(in: (try? AuthenticationChallenge.parse(head.headers["WWW-Authenticate"])) ?? []),
           digest.isStale {
            // RFC 7616 §3.3: stale=true — the credentials were right, only the nonce had expired:
            // answer the new nonce once, without asking the handler again.
            try await drain(response.body, connection: connection)
            let value = digest.answer(credential: credential, method: request.method.rawValue, target: request.effectiveRequestTarget,
                                      origin: authOrigin(), counts: storage.digestNonceCounts)
            return .authenticate(credential, ChallengeAnswer(scheme: .digest, authorization: value), stale: true)
        }
        if head.status == 401, let handler = storage.hooks.withLock({ $0.challenge }), authentication.failures == 0 {
            // User code runs off the loop: a slow handler must not stall the loop's other connections.
            let disposition = await withTaskExecutorPreference(globalConcurrentExecutor) {
                await handler(.httpAuthentication(response: head, url: request.uri, previousFailureCount: authentication.failures))
            }
            switch disposition {
            case .useCredential(let credential?):
                // The strongest scheme offered that the session allows (Digest over Basic); none
                // allowed: the 401 is the answer.
                guard let answer = ChallengeAnswer.choose(for: head, credential: credential, schemes: configuration.authenticationSchemes,
                                                          method: request.method.rawValue, target: request.effectiveRequestTarget,
                                                          origin: authOrigin(), counts: storage.digestNonceCounts) else { break }
                try await drain(response.body, connection: connection)
                return .authenticate(credential, answer, stale: false)
            case .cancelAuthenticationChallenge:
                await connection.close()
                throw SessionError(.cancelled, "the authentication challenge was cancelled", url: request.uri.redactedDescription)
            case .fail(let error):
                await connection.close()
                var failure = SessionError(.connection, "the challenge handler failed the task: \(error)", url: request.uri.redactedDescription)
                failure.underlying = error
                throw failure
            default: break
            }
        }

        if let cache, let writer = await cachingWriter(cache, request: request, head: head) {
            let caching = CachingSink(inner: sink, writer: writer, stored: { self.recordCache(.stored) })
            try await receiveBody(response, head: head, request: request, sink: caching, begun: begun, connection: connection)
        } else {
            try await receiveBody(response, head: head, request: request, sink: sink, begun: begun, connection: connection)
        }
        metrics.updateTransaction { $0.completed = self.metrics.elapsed }
        return .final(TransferOutcome(head: head, request: request))
    }

    // MARK: Receiving

    private func receiveBody(_ response: HTTP1Response, head: HTTPResponseHead, request: HTTPRequest,
                             sink: some ResponseSink, begun: OneWayFlag, connection: HTTP1Connection) async throws {
        let url = metrics.url(of: request.uri)
        let announced = configuration.ignoresContentLength ? nil : head.headers.first(name: "Content-Length").flatMap { UInt64($0) }
        var decoder = try ContentDecoding.make(for: head.headers, request: request, configuration: configuration, url: url)
        if let limit = configuration.maximumDownloadSize, decoder.isIdentity, let announced, announced > limit {
            await connection.close()
            throw SessionError(.fileTooLarge, "the body (\(announced) bytes) exceeds the maximum file size (\(limit))", url: url)
        }
        let total = decoder.isIdentity ? announced : nil
        // The observer sees every event up to this head (the heads, their cookies) before the
        // caller gets the response: a stream task's caller that reads what its observer recorded
        // as soon as `value` returns finds the head there (courier -I printed nothing in
        // about 2 % of runs). The callback queue is usually idle here: no suspension then.
        if core.hasObserver { await core.callbacksDrained() }
        try await sink.begin(head, request: request)
        begun.set()
        var received: UInt64 = 0
        core.reportDownload(TransferProgress(completed: 0, total: total))

        func deliver(_ bytes: ByteBuffer) async throws {
            guard bytes.readableBytes > 0 else { return }
            received += UInt64(bytes.readableBytes)
            if let limit = configuration.maximumDownloadSize, received > limit {
                await connection.close()
                throw SessionError(.fileTooLarge, "the body exceeds the maximum file size (\(limit) bytes)", url: url)
            }
            try await sink.write(bytes)
            metrics.update { $0.bytesReceived = received }
            core.reportDownload(TransferProgress(completed: received, total: total))
        }

        // A body going to a regular file, as it is on the wire, over a plain connection, moves
        // from the socket to the file in the kernel (splice): no byte crosses this process.
        // A receive-rate cap is applied where the process reads, so a capped body is not spliced.
        if configuration.splicesDownloads, configuration.maximumReceiveRate == nil, configuration.lowSpeedLimit == nil,
           configuration.wireTap == nil,
           decoder.isIdentity, !connection.usesTLS, let output = sink.spliceOutput {
            let before = received
            let moved = try await spliceBody(response, into: output, receivedBefore: before, total: total, deliver: deliver,
                                             connection: connection, url: url)
            received += moved
            metrics.update { [received] in $0.bytesReceived = received }
        }

        var iterator = response.body.makeAsyncIterator()
        while true {
            try await core.waitWhileSuspended()
            guard let slice = try await iterator.next() else { break }
            if decoder.passesSlicesThrough {
                try await deliver(slice)
                continue
            }
            for piece in try decoder.decode(slice, url: url) { try await deliver(piece) }
        }
        for piece in try decoder.finish(url: url) { try await deliver(piece) }
        try await sink.finish()
    }

    /// Splices the rest of a Content-Length body from the socket into `output`, in segments
    /// between which a suspended task waits (no byte is read while it is paused); the bytes
    /// decoded before are written first. Returns having moved everything, or having moved nothing
    /// more when the connection cannot lend its body (the caller reads the rest as usual).
    /// - Returns: the bytes spliced (the decoded ones before them went through `deliver`).
    private func spliceBody(_ response: HTTP1Response, into output: OutputFile, receivedBefore: UInt64, total: UInt64?,
                            deliver: (ByteBuffer) async throws -> Void, connection: HTTP1Connection, url: String) async throws -> UInt64 {
        guard let loan = await connection.lendBody(exchange: response.body.exchange) else { return 0 }
        let decoded = UInt64(loan.decoded.first?.readableBytes ?? 0) + loan.decoded.rest.reduce(0) { $0 + UInt64($1.readableBytes) }
        if let limit = configuration.maximumDownloadSize, receivedBefore + decoded + loan.remaining > limit {
            await connection.returnLoan(moved: 0, endOfStream: false, error: ConnectionError(.cancelled, "the body is too large"))
            throw SessionError(.fileTooLarge, "the body exceeds the maximum file size (\(limit) bytes)", url: url)
        }
        var moved: UInt64 = 0
        var loanError: ConnectionError?
        var endOfStream = false
        do {
            if let first = loan.decoded.first { try await deliver(first) }
            for slice in loan.decoded.rest { try await deliver(slice) }
            let splicer = try SessionSplicers.take()
            // Kept for the next download only when it ended clean (an empty pipe, no signal).
            var clean = false
            defer { if clean { SessionSplicers.give(splicer) } }
            let base = receivedBefore + decoded
            let idle = configuration.idleTimeout
            let core = self.core
            while moved < loan.remaining && !endOfStream {
                try await core.waitWhileSuspended()
                let segment = min(loan.remaining - moved, SessionSplicers.segment)
                let done = moved
                let outcome = try await withTaskCancellationHandler {
                    try await BlockingIOThread.shared.run { () throws(SpliceError) -> SocketSplicer.Outcome in
                        try output.splice(from: loan.socket, with: splicer, count: segment, idleTimeout: idle) { count in
                            core.reportDownload(TransferProgress(completed: base + done + count, total: total))
                        }
                    }
                } onCancel: {
                    splicer.interrupt()
                }
                moved += outcome.bytesMoved
                endOfStream = outcome.endOfStream
            }
            clean = !Task.isCancelled
            SessionSplicers.count(moved)
            if endOfStream && moved < loan.remaining {
                var error = ConnectionError(.bodyTruncated, "the connection closed before the end of the response body")
                error.parserError = HTTPParserError(.bodyShorterThanAnnounced, offset: Int(moved))
                loanError = error
            }
        } catch let error as SpliceError {
            moved += error.bytesMoved
            switch error.code {
            case .interrupted: loanError = ConnectionError(.cancelled, "the task was cancelled")
            case .timedOut: loanError = ConnectionError(.idleTimeout, "no data moved for \(configuration.idleTimeout)")
            case .unsupported: loanError = nil  // the rest is read as usual
            default:  // .failed
                if error.whileWriting {
                    await connection.returnLoan(moved: 0, endOfStream: false, error: ConnectionError(.cancelled, "writing the download failed"))
                    var failure = SessionError(.fileWriteFailed, "writing the download failed: \(error)", url: url)
                    failure.errno = error.errno
                    throw failure
                }
                var failure = ConnectionError(.remoteClosed, "receiving failed")
                failure.errno = error.errno
                loanError = failure
            }
        } catch {
            await connection.returnLoan(moved: 0, endOfStream: false, error: ConnectionError(.cancelled, "the task was cancelled"))
            throw error
        }
        await connection.returnLoan(moved: moved, endOfStream: endOfStream, error: loanError)
        if let loanError { throw loanError }
        return moved
    }
}

/// The splicers of this process's transfers: each holds a pipe, kept for the next transfer
/// instead of being made and closed per download.
package enum SessionSplicers {
    /// Bytes spliced between two looks at the task's suspension.
    static let segment: UInt64 = 8 << 20
    private static let idle = Mutex<[SocketSplicer]>([])
    private static let spliced = Atomic<UInt64>(0)

    /// Body bytes this process moved by splicing so far (for tests).
    package static var bytesSpliced: UInt64 { spliced.load(ordering: .relaxed) }

    static func count(_ bytes: UInt64) { spliced.add(bytes, ordering: .relaxed) }

    static func take() throws -> SocketSplicer {
        if let splicer = idle.withLock({ $0.popLast() }) { return splicer }
        return try SocketSplicer()
    }

    static func give(_ splicer: SocketSplicer) {
        idle.withLock { if $0.count < 4 { $0.append(splicer) } }
    }
}

/// Errors that carry a transport error for the session to report.
protocol PoolErrorConvertible {
    var connectionError: ConnectionError { get }
}

/// The transfer's total deadline: set once, by the timer, with the error it reports.
final class Deadline: Sendable {
    private let passed = Mutex<SessionError?>(nil)

    /// Records that the deadline passed.
    func pass(_ error: SessionError) { passed.withLock { if $0 == nil { $0 = error } } }

    /// The timeout error once the deadline passed; nil before.
    var error: SessionError? { passed.withLock { $0 } }
}

/// A one-way flag shared with a Sendable closure.
final class OneWayFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .relaxed) }
    func set() { value.store(true, ordering: .relaxed) }
}


extension HTTPResponseHead {
    /// The head's size as it would be written: `HTTP/1.x SSS reason` CRLF, each `name: value`
    /// CRLF, the final CRLF (the parsed head keeps no count of the bytes as they arrived).
    var encodedSize: Int {
        var size = 13 + reason.utf8.count + 2 + 2
        for (name, value) in headers { size += name.utf8.count + 2 + value.utf8.count + 2 }
        return size
    }
}
