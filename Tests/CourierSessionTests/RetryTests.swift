// The retry policy (issue 13 §2; docs/retry.md) against scripted loopback replies: 503 with
// Retry-After as delta-seconds and as an HTTP-date, a 429 asking for longer than the cap, a reset
// before any byte, a POST that must not be sent twice (and one with an Idempotency-Key that may),
// a body that cannot be replayed, a body cut after bytes reached the caller, a per-attempt
// timeout, and the per-host budget under a server that always fails. The policy's clock is
// injected: no test sleeps for the delays it checks.

import Courier
import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierLoopbackServer
import CourierMultipart
import CourierPosix
import Synchronization
import Testing

/// A retry clock that records each sleep and moves time forward by it instead of waiting.
final class ManualRetryClock: Sendable {
    static let wallStart: Int64 = 1_764_000_000
    private let state = Mutex<(sleeps: [Duration], offset: Duration)>(([], .zero))
    private let base = Instant.now()

    var sleeps: [Duration] { state.withLock { $0.sleeps } }

    var clock: RetryClock {
        RetryClock(now: { [self] in base + state.withLock { $0.offset } },
                   wallSeconds: { [self] in ManualRetryClock.wallStart + state.withLock { $0.offset.components.seconds } },
                   sleep: { [self] duration in
                       try Task.checkCancellation()
                       state.withLock { $0.sleeps.append(duration); $0.offset += duration }
                   })
    }
}

/// A policy on the manual clock, with the jitter fixed at the top of its range.
func testPolicy(_ clock: ManualRetryClock, _ configure: (inout RetryPolicy) -> Void = { _ in }) -> RetryPolicy {
    var policy = RetryPolicy()
    policy.clock = clock.clock
    policy.random = { 1 }
    configure(&policy)
    return policy
}

/// Replies per attempt: the n-th request to the path gets `replies[n]` (the last one repeats).
func attempts(_ replies: [[LoopbackAction]], count: Counter) -> LoopbackScript {
    { _ in
        count.increment()
        return replies[min(count.count - 1, replies.count - 1)]
    }
}

extension SessionTests {
    @Suite struct Retries {
        @Test func a503WithRetryAfterInSecondsIsRetriedAfterThatLong() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.response(status: 503, headers: ["Retry-After: 7"], body: "busy")],
                                                           [.response(body: "done")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let events = Recorder<TaskEvent>()
                let task = session.dataTask(with: server.request("/r"))
                task.setObserver { events.append($0) }
                let response = await task.response
                #expect(response.head?.status == 200)
                #expect(response.body?.readableString == "done", "only the final body reaches the caller")
                #expect(count.count == 2)
                #expect(clock.sleeps == [.seconds(7)])
                #expect(response.metrics.retryCount == 1)
                #expect(response.metrics.transactions.map(\.attempt) == [1, 2])
                let retries = events.all.compactMap { event -> String? in
                    if case .retry(let attempt, let reason, let delay, let left) = event { return "\(attempt) \(reason) \(delay) \(left)" }
                    return nil
                }
                #expect(retries == ["2 HTTP error 503 7.0 seconds 1"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func a503WithAnHTTPDateIsRetriedAtThatDate() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            let date = CookieDate.format(ManualRetryClock.wallStart + 12)
            try await withServer(scripted(["/r": attempts([[.response(status: 503, headers: ["Retry-After: \(date)"])],
                                                           [.response(body: "done")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let response = await session.dataTask(with: server.request("/r")).response
                #expect(response.head?.status == 200)
                #expect(clock.sleeps == [.seconds(12)])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func a429AskingForMoreThanTheCapIsTheAnswerAtOnce() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.response(status: 429, headers: ["Retry-After: 86400"], body: "later")],
                                                           [.response(body: "done")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let response = await session.dataTask(with: server.request("/r")).response
                #expect(response.head?.status == 429)
                #expect(response.body?.readableString == "later")
                #expect(count.count == 1)
                #expect(clock.sleeps.isEmpty, "no sleep on a server that asks for a day")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func fullJitterDelaysWithinTheDoublingCeiling() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.response(status: 502)], [.response(status: 504)],
                                                           [.response(status: 503)]], count: count)])) { server in
                let session = makeSession {
                    $0.retryPolicy = testPolicy(clock) { p in p.random = { 0.5 } }
                }
                let response = await session.dataTask(with: server.request("/r")).response
                // Two retries (the default), then the last answer is delivered.
                #expect(response.head?.status == 503)
                #expect(count.count == 3)
                // U(0, min(30 s, 0.5 s · 2ⁿ)) with the random number fixed at 0.5.
                #expect(clock.sleeps == [.milliseconds(250), .milliseconds(500)])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aResetBeforeAnyResponseByteIsRetried() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.reset], [.response(body: "done")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let response = await session.dataTask(with: server.request("/r")).response
                #expect(response.head?.status == 200, "\(response.result)")
                #expect(count.count == 2)
                #expect(response.metrics.retryCount == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBodyCutAfterBytesReachedTheCallerIsNotRetried() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.text("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789"),
                                                            .pause(.milliseconds(50)), .reset]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let response = await session.dataTask(with: server.request("/r")).response
                guard case .failure(let error) = response.result else {
                    Issue.record("a cut body must fail")
                    return
                }
                #expect(error.connectionError?.code == .bodyTruncated || error.connectionError?.code == .remoteClosed, "\(error)")
                #expect(count.count == 1)
                #expect(clock.sleeps.isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aPOSTIsNotSentTwiceWithoutAnIdempotencyKey() async throws {
            let count = Counter()
            let bodies = Recorder<[UInt8]>()
            let clock = ManualRetryClock()
            let script: LoopbackScript = { request in
                count.increment()
                bodies.append(request.body)
                return [count.count == 1 || count.count == 2 ? .response(status: 503) : .response(body: "done")]
            }
            try await withServer(scripted(["/r": script])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let plain = await session.dataTask(with: server.request(.post, "/r", body: .bytes(ByteBuffer(string: "a=1")))).response
                #expect(plain.head?.status == 503)
                #expect(count.count == 1, "a POST is not idempotent: sent once")
                let keyed = await session.dataTask(with: server.request(.post, "/r", headers: ["Idempotency-Key": "k-1"],
                                                                        body: .bytes(ByteBuffer(string: "a=1")))).response
                #expect(keyed.head?.status == 200)
                #expect(count.count == 3)
                #expect(bodies.all == [Array("a=1".utf8), Array("a=1".utf8), Array("a=1".utf8)], "the same body each time")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBodyThatCannotBeReplayedIsNotSentAgain() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.response(status: 503)], [.response(body: "done")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                let response = await session.uploadTask(with: server.request(.put, "/r"), from: .stream(length: 5, OnePassStream())).response
                #expect(response.head?.status == 503)
                #expect(count.count == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aTimeoutBoundsOneAttemptAndIsRetried() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.stall], [.response(body: "done")]], count: count)])) { server in
                let session = makeSession {
                    $0.totalTimeout = .milliseconds(300)
                    $0.retryPolicy = testPolicy(clock)
                }
                let response = await session.dataTask(with: server.request("/r")).response
                #expect(response.head?.status == 200, "\(response.result)")
                #expect(count.count == 2)
                #expect(response.metrics.retryCount == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theBudgetStopsRetriesAgainstAServerThatAlwaysFails() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            try await withServer(scripted(["/r": attempts([[.response(status: 503)]], count: count)])) { server in
                let session = makeSession {
                    $0.retryPolicy = testPolicy(clock) { p in
                        p.maximumRetries = 5
                        p.budget = RetryBudget(maximumTokens: 10, tokenRatio: 0.1)
                    }
                }
                var retries: [Int] = []
                for _ in 0..<4 {
                    let response = await session.dataTask(with: server.request("/r")).response
                    #expect(response.head?.status == 503)
                    retries.append(response.metrics.retryCount)
                }
                // 10 tokens, −1 per failure, retries only above 5: the first task fails 5 times
                // (4 retries), every later one once. A storm would have been 4 × 6 requests.
                #expect(retries == [4, 0, 0, 0])
                #expect(count.count == 8)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theDeadConnectionResendIsNotARetry() async throws {
            let count = Counter()
            let clock = ManualRetryClock()
            // The first answer keeps the connection, then the server closes it while it idles:
            // the pool's own handling (drop it, or resend once on a fresh connection) takes care
            // of the next GET — not an attempt of the policy: no event, no sleep, no retry count.
            try await withServer(scripted(["/first": { _ in [.response(body: "one"), .pause(.milliseconds(100)), .close] },
                                           "/r": attempts([[.response(body: "two")]], count: count)])) { server in
                let session = makeSession { $0.retryPolicy = testPolicy(clock) }
                _ = await session.dataTask(with: server.request("/first")).response
                try await Task.sleep(for: .milliseconds(300))
                let events = Recorder<TaskEvent>()
                let task = session.dataTask(with: server.request("/r"))
                task.setObserver { events.append($0) }
                let response = await task.response
                #expect(response.body?.readableString == "two", "\(response.result)")
                #expect(response.metrics.retryCount == 0)
                #expect(!events.all.contains { if case .retry = $0 { return true } else { return false } })
                #expect(clock.sleeps.isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func withoutAPolicyNothingIsRetried() async throws {
            let count = Counter()
            try await withServer(scripted(["/r": attempts([[.response(status: 503)], [.response(body: "done")]], count: count)])) { server in
                let session = makeSession()
                let response = await session.dataTask(with: server.request("/r")).response
                #expect(response.head?.status == 503)
                #expect(count.count == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func retryAfterIsReadAsDeltaSecondsOrAnHTTPDate() {
            let now: Int64 = 1_764_000_000
            func after(_ value: String) -> Duration? { RetryPolicy.retryAfter(["Retry-After": value], now: now) }
            #expect(after("120") == .seconds(120))
            #expect(after(" 0 ") == .zero)
            #expect(after(CookieDate.format(now + 30)) == .seconds(30))
            #expect(after(CookieDate.format(now - 30)) == .zero, "a date in the past: at once")
            #expect(after("soon") == nil)
            #expect(after("99999999999999999999")! > .seconds(1 << 32), "saturated, not wrapped")
            #expect(RetryPolicy.doubled(.milliseconds(500), times: 200, cap: .seconds(30)) == .seconds(30))
        }
    }
}

/// A stream that can be read once (standard input's shape).
struct OnePassStream: UploadStream {
    var isReplayable: Bool { false }
    func makeReader() throws -> any MultipartStreamReader { Reader() }
    struct Reader: MultipartStreamReader {
        var left = 5
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = min(left, buffer.count)
            for i in 0..<n { buffer[i] = UInt8(ascii: "x") }
            left -= n
            return n
        }
    }
}
