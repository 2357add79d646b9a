// Session lifecycle: metrics (connections made and reused, redirects), events in order,
// finishTasksAndInvalidate and invalidateAndCancel, tasks refused after invalidation, and no
// descriptor left behind once a session is invalidated.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import CourierTestSupport
import Testing

extension SessionTests {
    @Suite struct Lifecycle {
        @Test func metricsCountConnectionsAndReuse() async throws {
            try await withServer { server in
                let session = makeSession()
                let first = await session.dataTask(with: server.request("/bytes/10")).onlyResponse()
                #expect(first.metrics.connectCount == 1)
                #expect(first.metrics.transactions.count == 1)
                #expect(first.metrics.transactions.first?.reusedConnection == false)
                #expect(first.metrics.transactions.first?.connect != nil)
                #expect(first.metrics.transactions.first?.firstByte != nil)
                #expect(first.metrics.redirectCount == 0)
                #expect(first.metrics.totalDuration > .zero)
                let second = await session.dataTask(with: server.request("/bytes/10")).onlyResponse()
                #expect(second.metrics.connectCount == 0)
                #expect(second.metrics.transactions.first?.reusedConnection == true)
                #expect(server.acceptedConnections == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func metricsCountRedirects() async throws {
            let scripts: [String: LoopbackScript] = [
                "/a": { _ in [.response(status: 302, headers: ["Location: /b"])] },
                "/b": { _ in [.response(status: 301, headers: ["Location: /bytes/5"], body: "moved")] },
            ]
            try await withServer(scripted(scripts)) { server in
                let session = makeSession()
                let redirects = Recorder<String>()
                let task = session.dataTask(with: server.request("/a"))
                task.setObserver { event in
                    if case .redirect(let from, let to, let status) = event { redirects.append("\(status) \(from.requestTarget) → \(to.requestTarget)") }
                }
                let response = await task.onlyResponse()
                #expect(response.result.successValue?.readableString == "abcde")
                #expect(response.metrics.redirectCount == 2)
                #expect(response.metrics.transactions.count == 3)
                #expect(response.metrics.connectCount == 1, "every hop on the one connection")
                #expect(response.metrics.effectiveURL == server.url("/bytes/5").redactedDescription)
                #expect(redirects.all == ["302 /a → /b", "301 /b → /bytes/5"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func eventsInOrder() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession()
                let log = EventLog(session)
                _ = try await session.dataTask(with: server.request("/bytes/3")).value
                let destination = directory + "/d.bin"
                _ = await session.downloadTask(with: server.request("/bytes/3")) { _, _ in destination }.response
                _ = await session.dataTask(with: server.request("/status/500")).onlyResponse()
                await session.finishTasksAndInvalidate()
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "completed 1 ok", "resumed 2", "moved 2 \(destination)", "completed 2 ok",
                                   "resumed 3", "completed 3 serialization", "invalidated"])
                // A subscriber after invalidation sees only the end.
                var late: [String] = []
                for await event in session.events() { late.append(event.summary) }
                #expect(late == ["invalidated"])
            }
        }

        /// A task that fails at once (before any I/O) still reports "resumed" before "completed".
        @Test func resumedComesBeforeCompletedEvenForImmediateFailures() async throws {
            let session = makeSession()
            let log = EventLog(session)
            let request = HTTPRequest(method: .get, uri: try URI(parsing: "ftp://127.0.0.1/x"))
            for _ in 0..<200 {
                let error = failure(await session.dataTask(with: request).valueResult())
                #expect(error?.code == .unsupportedScheme)
            }
            await session.finishTasksAndInvalidate()
            let events = await log.finished()
            var resumed: Set<Int> = []
            var outOfOrder = 0
            for event in events {
                switch event {
                case .taskResumed(let id): resumed.insert(id)
                case .taskCompleted(let completion): if !resumed.contains(completion.identifier) { outOfOrder += 1 }
                default: break
                }
            }
            #expect(outOfOrder == 0)
            #expect(events.count == 401)
        }

        @Test func finishTasksAndInvalidateLetsRunningTasksFinish() async throws {
            let script: LoopbackScript = { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nab"), .pause(.milliseconds(300)), .text("cd")] }
            try await withServer(scripted(["/slow": script])) { server in
                let session = makeSession()
                let log = EventLog(session)
                let task = session.dataTask(with: server.request("/slow"))
                task.resume()
                #expect(await eventually { server.requestCount == 1 })
                await session.finishTasksAndInvalidate()
                #expect(task.state == .completed, "invalidation waited for the task")
                let got = try await task.value
                #expect(got.readableString == "abcd")
                // Every kind of task made afterwards is refused.
                let data = await session.dataTask(with: server.request("/bytes/1")).response
                #expect(failure(data.result)?.code == .invalidated)
                let download = await session.downloadTask(with: server.request("/bytes/1")) { _, _ in "/tmp/not-there" }.response
                #expect(failure(download.result)?.code == .invalidated)
                let stream = session.streamTask(with: server.request("/bytes/1"))
                do {
                    _ = try await stream.value
                    Issue.record("a stream task after invalidation must fail")
                } catch let error as SessionError {
                    #expect(error.code == .invalidated)
                }
                #expect(stream.state == .completed)
                #expect(server.requestCount == 1)
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 }, "the pool was shut down")
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "completed 1 ok", "invalidated"])
            }
        }

        @Test func invalidateAndCancelCancelsRunningTasks() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 100_000, sent: 100)])) { server in
                let session = makeSession()
                let log = EventLog(session)
                let tasks = (0..<3).map { _ in session.dataTask(with: server.request("/slow")) }
                for task in tasks { task.resume() }
                #expect(await eventually { server.requestCount == 3 })
                let started = ContinuousClock.now
                await session.invalidateAndCancel()
                #expect(ContinuousClock.now - started < .seconds(3))
                for task in tasks {
                    #expect(task.state == .completed)
                    #expect(failure(await task.response.result)?.code == .cancelled)
                }
                let unstarted = session.dataTask(with: server.request("/slow"))
                #expect(failure(await unstarted.response.result)?.code == .invalidated)
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
                let events = await log.finished().map(\.summary)
                #expect(events.last == "invalidated")
                #expect(events.filter { $0.hasSuffix("cancelled") }.count == 3)
            }
        }

        /// invalidateAndCancel after finishTasksAndInvalidate still cancels what runs, and both
        /// calls return only once the session is invalidated (NSURLSession's rules).
        @Test func invalidateAndCancelAfterFinishTasksAndInvalidate() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 100_000, sent: 100)])) { server in
                let session = makeSession()
                let log = EventLog(session)
                let task = session.dataTask(with: server.request("/slow"))
                task.resume()
                #expect(await eventually { server.requestCount == 1 })
                let finishing = Task { await session.finishTasksAndInvalidate() }
                try await Task.sleep(for: .milliseconds(100))
                #expect(task.state == .running, "finishTasksAndInvalidate does not cancel")
                await session.invalidateAndCancel()
                #expect(failure(await task.response.result)?.code == .cancelled)
                // A subscriber now sees only the end: invalidateAndCancel returned after invalidation.
                var late: [String] = []
                for await event in session.events() { late.append(event.summary) }
                #expect(late == ["invalidated"])
                await finishing.value
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "completed 1 cancelled", "invalidated"])
            }
        }

        @Test func noDescriptorIsLeftAfterInvalidation() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                // Warm up the process-wide loop, resolver and file thread.
                let warm = makeSession()
                _ = try await warm.dataTask(with: server.request("/bytes/1")).value
                _ = await warm.downloadTask(with: server.request("/bytes/1")) { _, _ in directory + "/warm" }.response
                await warm.finishTasksAndInvalidate()
                #expect(await eventually { server.openConnections == 0 })
                let baseline = openDescriptorCount()

                let session = makeSession { $0.maximumConnectionsPerHost = 4 }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for i in 0..<8 {
                        group.addTask {
                            let body = try await session.dataTask(with: server.request("/bytes/\(100_000 + i)")).value
                            #expect(body.readableBytes == 100_000 + i)
                        }
                    }
                    try await group.waitForAll()
                }
                _ = await session.downloadTask(with: server.request("/bytes/5000")) { _, _ in directory + "/d" }.response
                _ = await session.uploadTask(with: server.request(.post, "/upload"), from: .bytes(ByteBuffer(bytes: pattern(1000)))).onlyResponse()
                let stream = session.streamTask(with: server.request("/bytes/200000"))
                _ = try await stream.value.body.collect()
                #expect(openDescriptorCount() > baseline, "pooled connections are open before invalidation")
                await session.finishTasksAndInvalidate()
                #expect(await eventually(.seconds(3)) { openDescriptorCount() == baseline },
                        "descriptors: \(openDescriptorCount()) after, \(baseline) before")
                #expect(server.openConnections == 0)
            }
        }

        @Test func releasingASessionClosesItsConnections() async throws {
            try await withServer { server in
                do {
                    let session = makeSession()
                    _ = try await session.dataTask(with: server.request("/bytes/1")).value
                    #expect(server.openConnections == 1)
                }
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
            }
        }
    }
}

extension DataTask {
    /// Resumes the task and waits for its response.
    func onlyResponse() async -> TaskResponse<Value> {
        resume()
        return await response
    }

    /// Resumes the task and returns its result.
    func valueResult() async -> Result<Value, SessionError> {
        resume()
        return await response.result
    }
}
