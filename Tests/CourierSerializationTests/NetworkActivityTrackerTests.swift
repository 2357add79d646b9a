// NetworkActivityTracker: AFNetworkActivityIndicatorManager's state machine driven by a manual
// clock — the activation delay (1.0 s) hides short transfers, the completion delay (0.17 s)
// joins back-to-back ones, stale timers are ignored, and disabling hides at once.

import Courier
import Synchronization
import Testing

/// A scheduler whose time moves only when the test says so.
final class ManualScheduler: ActivityTimerScheduler {
    private struct Entry {
        let id: Int
        let due: Duration
        let action: @Sendable () -> Void
        var cancelled = false
    }

    private struct State {
        var now: Duration = .zero
        var nextID = 0
        var entries: [Entry] = []
    }

    private let state = Mutex(State())

    final class Timer: ActivityTimer {
        let cancelAction: @Sendable () -> Void
        init(_ cancelAction: @escaping @Sendable () -> Void) { self.cancelAction = cancelAction }
        func cancel() { cancelAction() }
    }

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ActivityTimer {
        let id = state.withLock { s -> Int in
            s.nextID += 1
            s.entries.append(Entry(id: s.nextID, due: s.now + delay, action: action))
            return s.nextID
        }
        return Timer { [weak self] in
            self?.state.withLock { s in
                if let index = s.entries.firstIndex(where: { $0.id == id }) { s.entries[index].cancelled = true }
            }
        }
    }

    /// Pending, not cancelled timers.
    var pendingCount: Int { state.withLock { $0.entries.filter { !$0.cancelled }.count } }

    /// Moves time forward, running every timer that falls due, in order.
    func advance(by duration: Duration) {
        let target = state.withLock { $0.now + duration }
        while true {
            let next = state.withLock { s -> (@Sendable () -> Void)? in
                guard let index = s.entries.indices.filter({ s.entries[$0].due <= target })
                    .min(by: { s.entries[$0].due < s.entries[$1].due }) else { return nil }
                let entry = s.entries.remove(at: index)
                s.now = max(s.now, entry.due)
                return entry.cancelled ? {} : entry.action
            }
            guard let next else { break }
            next()
        }
        state.withLock { $0.now = target }
    }
}

/// Records visibility changes.
final class VisibilityLog: Sendable {
    private let changes = Mutex<[Bool]>([])
    func record(_ visible: Bool) { changes.withLock { $0.append(visible) } }
    var values: [Bool] { changes.withLock { $0 } }
}

private func makeTracker() -> (NetworkActivityTracker, ManualScheduler, VisibilityLog) {
    let scheduler = ManualScheduler()
    let log = VisibilityLog()
    let tracker = NetworkActivityTracker(scheduler: scheduler) { log.record($0) }
    return (tracker, scheduler, log)
}

@Suite("NetworkActivityTracker")
struct NetworkActivityTrackerTests {
    @Test("AFNetworking's delays are the defaults")
    func defaults() {
        #expect(NetworkActivityTracker.defaultActivationDelay == .seconds(1))
        #expect(NetworkActivityTracker.defaultCompletionDelay == .milliseconds(170))
        let (tracker, _, _) = makeTracker()
        #expect(tracker.state == .notActive)
        #expect(!tracker.isVisible)
        #expect(tracker.isEnabled)
    }

    @Test("a transfer shorter than the activation delay never shows the indicator")
    func shortTransferStaysHidden() {
        let (tracker, scheduler, log) = makeTracker()
        tracker.incrementActivityCount()
        #expect(tracker.state == .delayingStart)
        scheduler.advance(by: .milliseconds(999))
        #expect(!tracker.isVisible)
        tracker.decrementActivityCount()
        #expect(tracker.state == .notActive)
        scheduler.advance(by: .seconds(5))
        #expect(log.values.isEmpty)
        #expect(scheduler.pendingCount == 0)
    }

    @Test("a transfer shows after 1.0 s and hides 0.17 s after it ends")
    func longTransferShowsThenHides() {
        let (tracker, scheduler, log) = makeTracker()
        tracker.incrementActivityCount()
        scheduler.advance(by: .seconds(1))
        #expect(tracker.state == .active)
        #expect(log.values == [true])
        tracker.decrementActivityCount()
        #expect(tracker.state == .delayingEnd)
        #expect(tracker.isVisible)
        scheduler.advance(by: .milliseconds(169))
        #expect(tracker.isVisible)
        scheduler.advance(by: .milliseconds(1))
        #expect(tracker.state == .notActive)
        #expect(log.values == [true, false])
    }

    @Test("a transfer starting within the completion delay keeps the indicator on without a flicker")
    func backToBackTransfersJoin() {
        let (tracker, scheduler, log) = makeTracker()
        tracker.incrementActivityCount()
        scheduler.advance(by: .seconds(2))
        tracker.decrementActivityCount()
        scheduler.advance(by: .milliseconds(100))
        tracker.incrementActivityCount()
        #expect(tracker.state == .active)
        scheduler.advance(by: .seconds(1))  // the cancelled completion timer must not fire
        #expect(tracker.state == .active)
        #expect(log.values == [true])
        tracker.decrementActivityCount()
        scheduler.advance(by: .milliseconds(170))
        #expect(log.values == [true, false])
    }

    @Test("the count goes up and down with overlapping transfers and never below zero")
    func countingOverlaps() {
        let (tracker, scheduler, log) = makeTracker()
        tracker.incrementActivityCount()
        tracker.incrementActivityCount()
        #expect(tracker.activityCount == 2)
        scheduler.advance(by: .seconds(1))
        tracker.decrementActivityCount()
        #expect(tracker.state == .active)
        tracker.decrementActivityCount()
        tracker.decrementActivityCount()
        #expect(tracker.activityCount == 0)
        #expect(tracker.state == .delayingEnd)
        scheduler.advance(by: .seconds(1))
        #expect(log.values == [true, false])
    }

    @Test("disabling hides the indicator at once and ignores pending timers")
    func disabling() {
        let (tracker, scheduler, log) = makeTracker()
        tracker.incrementActivityCount()
        scheduler.advance(by: .seconds(1))
        tracker.isEnabled = false
        #expect(tracker.state == .notActive)
        #expect(log.values == [true, false])
        tracker.incrementActivityCount()
        scheduler.advance(by: .seconds(3))
        #expect(log.values == [true, false])
        #expect(tracker.activityCount == 2)
    }

    @Test("the task scheduler runs an action after its delay and not after cancel")
    func taskScheduler() async throws {
        let log = VisibilityLog()
        let scheduler = TaskActivityTimerScheduler()
        _ = scheduler.schedule(after: .milliseconds(10)) { log.record(true) }
        let cancelled = scheduler.schedule(after: .milliseconds(10)) { log.record(false) }
        cancelled.cancel()
        for _ in 0..<200 where log.values.isEmpty { try await Task.sleep(for: .milliseconds(5)) }
        try await Task.sleep(for: .milliseconds(30))
        #expect(log.values == [true])
    }
}
