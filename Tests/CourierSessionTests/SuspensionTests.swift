// Suspension told and followed (issue 16, AFNetworking's did-suspend / did-resume notifications):
// for every task kind, a real change of state is told once — to the task's observer
// (`TaskEvent.resumed` / `.suspended`), its state stream, and the session's events — and a
// TaskBinding and the session's activity tracker follow it (a suspended task is not active). A
// suspension that changes nothing (never ran, already suspended, finished) tells nothing.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierTestSupport
import Synchronization
import Testing

extension BoundCell {
    /// The activity values the binding delivered, in order.
    var activity: [Bool] {
        updates.withLock { updates in
            updates.compactMap { update -> Bool? in
                if case .activity(let on) = update { return on }
                return nil
            }
        }
    }
}

extension SessionTests {
    @Suite struct Suspension {
        enum Kind: String, CaseIterable, Sendable { case data, upload, download, stream }

        static let size = 2_000_000

        /// 104,000 bytes of the body (a whole number of pattern periods), a pause so that the
        /// suspension lands in the middle of the body, then the rest.
        static let pausingBody: LoopbackScript = { _ in
            [.text("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n"), .writePattern(count: 104_000), .pause(.seconds(1)),
             .writePattern(count: size - 104_000)]
        }

        /// A suspended task of `kind` for /slow, and what waits for its body (its length, or nil).
        static func makeTask(_ kind: Kind, session: Session, server: LoopbackServer,
                             directory: String) -> (any SessionTask, @Sendable () async -> Int?) {
            switch kind {
            case .data:
                let task = session.dataTask(with: server.request("/slow"))
                return (task, { try? await task.value.readableBytes })
            case .upload:
                let task = session.uploadTask(with: server.request(.post, "/slow"), from: .bytes(ByteBuffer(bytes: pattern(1000))))
                return (task, { try? await task.value.readableBytes })
            case .download:
                let path = directory + "/body"
                let task = session.downloadTask(with: server.request("/slow")) { _, _ in path }
                return (task, { (try? await task.value).flatMap { readFile($0)?.count } })
            case .stream:
                let task = session.streamTask(with: server.request("/slow"))
                return (task, { try? await task.value.body.collect().readableBytes })
            }
        }

        @Test("suspend mid-transfer, resume: told once per change; the binding and the tracker follow", arguments: Kind.allCases)
        func suspendAndResume(_ kind: Kind) async throws {
            try await withServer(scripted(["/slow": Self.pausingBody])) { server in
                let tracker = NetworkActivityTracker()
                let session = makeSession { $0.activityTracker = tracker }
                let log = EventLog(session)
                let directory = makeTemporaryDirectory()
                defer { removeTree(directory) }
                let (task, finish) = Self.makeTask(kind, session: session, server: server, directory: directory)
                let told = Recorder<String>()
                task.setObserver { event in
                    switch event {
                    case .resumed: told.append("resumed")
                    case .suspended: told.append("suspended")
                    default: break
                    }
                }
                let states = Recorder<TaskState>()
                let stateStream = task.stateChanges()  // subscribed now, before any change
                let stateWatcher = Task { for await state in stateStream { states.append(state) } }
                let received = Recorder<UInt64>()
                let progressStream = task.downloadProgress()
                let progressWatcher = Task { for await value in progressStream { received.append(value.completed) } }
                let cell = BoundCell()
                let binding = TaskBinding<BoundCell> { cell, update in cell.updates.withLock { $0.append(update) } }
                binding.bind(task, to: cell)

                // Never ran: suspending it changes nothing.
                task.suspend()
                #expect(task.state == .suspended)

                task.resume()
                let outcome = Task { await finish() }
                #expect(await eventually { (received.all.last ?? 0) > 0 })
                #expect(await eventually { tracker.activityCount == 1 && cell.activity.last == true })

                task.suspend()
                #expect(task.state == .suspended)
                #expect(tracker.activityCount == 0, "the tracker is told before suspend() returns")
                #expect(await eventually { cell.activity.last == false }, "a suspended task's binding is not active")
                task.suspend()  // already suspended: nothing
                try await Task.sleep(for: .milliseconds(200))
                #expect(tracker.activityCount == 0)
                #expect((received.all.last ?? 0) < UInt64(Self.size), "suspended before the end of the body")

                task.resume()
                #expect(task.state == .running)
                #expect(tracker.activityCount == 1)
                #expect(await eventually { cell.activity.last == true }, "active again once resumed")
                #expect(await outcome.value == Self.size)
                #expect(await eventually { cell.activity.last == false && binding.tableSize == 0 })
                #expect(await eventually { tracker.activityCount == 0 })

                // Finished: suspending or resuming it changes nothing.
                task.suspend()
                task.resume()
                #expect(task.state == .completed)
                await session.finishTasksAndInvalidate()
                await stateWatcher.value
                await progressWatcher.value

                #expect(told.all == ["resumed", "suspended", "resumed"])
                #expect(states.all == [.suspended, .running, .suspended, .running, .completed])
                #expect(cell.activity == [false, true, false, true, false])
                let id = task.identifier
                let events = await log.finished().map(\.summary).filter { !$0.hasPrefix("moved") }
                #expect(events == ["resumed \(id)", "suspended \(id)", "resumed \(id)", "completed \(id) ok", "invalidated"])
                #expect(tracker.activityCount == 0)
            }
        }

        @Test("suspended right after its first resume: the session hears resumed, then suspended; the tracker counts nothing")
        func suspendRightAfterFirstResume() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 1_000_000, sent: 5000)])) { server in
                let tracker = NetworkActivityTracker()
                let session = makeSession { $0.activityTracker = tracker }
                let log = EventLog(session)
                let rounds = 20
                for _ in 0..<rounds {
                    let task = session.dataTask(with: server.request("/slow"))
                    let states = Recorder<TaskState>()
                    let stateStream = task.stateChanges()  // subscribed now, before any change
                let stateWatcher = Task { for await state in stateStream { states.append(state) } }
                    task.resume()
                    task.suspend()
                    #expect(tracker.activityCount == 0)
                    try await Task.sleep(for: .milliseconds(20))
                    #expect(tracker.activityCount == 0, "a late resumed event must not count a suspended task")
                    task.cancel()
                    _ = await task.response
                    await stateWatcher.value
                    #expect(states.all == [.suspended, .running, .suspended, .canceling, .completed])
                }
                await session.finishTasksAndInvalidate()
                let events = await log.finished().map(\.summary)
                let expected = (1...rounds).flatMap { ["resumed \($0)", "suspended \($0)", "completed \($0) cancelled"] }
                #expect(events == expected + ["invalidated"])
                #expect(tracker.activityCount == 0)
            }
        }

        @Test("a task cancelled before it ran, or whose stream is asked for after it finished, tells only its end")
        func neverRan() async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/bytes/10"))
                let told = Recorder<TaskEvent>()
                task.setObserver { told.append($0) }
                let states = Recorder<TaskState>()
                let stateStream = task.stateChanges()  // subscribed now, before any change
                let stateWatcher = Task { for await state in stateStream { states.append(state) } }
                task.suspend()
                task.cancel()
                #expect(failure(await task.response.result)?.code == .cancelled)
                await stateWatcher.value
                #expect(states.all == [.suspended, .canceling, .completed])
                #expect(told.all.isEmpty)
                var late: [TaskState] = []
                for await state in task.stateChanges() { late.append(state) }
                #expect(late == [.completed], "a finished task's stream has its state and ends")
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
