// SessionConfiguration.activityTracker: a session's tasks counted on a NetworkActivityTracker from
// resume to suspension or completion, and the count as an AsyncSequence (issue 16).

import Courier
import CourierLoopbackServer
import CourierTestSupport
import Testing

extension SessionTests {
    @Suite struct ActivityTracking {
        @Test("two sessions on one tracker: each task counts once from resume to suspension or completion")
        func countsTasks() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 1_000_000, sent: 5000)])) { server in
                let tracker = NetworkActivityTracker()
                let counts = Recorder<Int>()
                // Subscribed here, not inside the watcher: a task's resume reaches the tracker at
                // once, possibly before the watcher runs.
                let countStream = tracker.activityCounts()
                let watcher = Task {
                    for await count in countStream { counts.append(count) }
                }
                // And its starting value recorded before the first task runs.
                #expect(await eventually { counts.all == [0] })
                let first = makeSession { $0.activityTracker = tracker }
                let second = makeSession { $0.activityTracker = tracker }
                let untracked = makeSession()

                #expect(try await first.dataTask(with: server.request("/bytes/10")).value.readableBytes == 10)
                let slow = second.dataTask(with: server.request("/slow"))
                slow.resume()
                slow.resume()  // a second resume of a running task does not count twice
                #expect(await eventually { tracker.activityCount == 1 })
                _ = try await untracked.dataTask(with: server.request("/bytes/10")).value
                #expect(tracker.activityCount == 1, "a session without the tracker counts nothing")
                slow.suspend()
                #expect(tracker.activityCount == 0)
                slow.resume()
                #expect(tracker.activityCount == 1)
                slow.cancel()
                _ = await slow.response
                #expect(await eventually { tracker.activityCount == 0 })
                // A task cancelled before it ever ran was never counted.
                let never = first.dataTask(with: server.request("/bytes/10"))
                never.cancel()
                _ = await never.response
                #expect(tracker.activityCount == 0)

                for session in [first, second, untracked] { await session.finishTasksAndInvalidate() }
                #expect(await eventually { counts.all.count >= 7 })
                watcher.cancel()
                // 0 at subscription; the first task 1 → 0; the slow one 1, suspended 0, resumed 1, cancelled 0.
                #expect(counts.all == [0, 1, 0, 1, 0, 1, 0])
            }
        }

        @Test("the shared tracker is one object, and a stream's consumer can stop")
        func shared() async {
            #expect(NetworkActivityTracker.shared === NetworkActivityTracker.shared)
            let tracker = NetworkActivityTracker()
            tracker.incrementActivityCount()
            var iterator = tracker.activityCounts().makeAsyncIterator()
            #expect(await iterator.next() == 1, "the current count comes first")
            tracker.decrementActivityCount()
            #expect(await iterator.next() == 0)
            tracker.decrementActivityCount()  // already 0: no change, nothing yielded
            tracker.incrementActivityCount()
            #expect(await iterator.next() == 1)
        }
    }
}
