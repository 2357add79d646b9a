// NetworkActivityTracker: AFNetworkActivityIndicatorManager without UIKit — it decides when an
// activity indicator (the CLI's progress bar) is visible, given how many transfers are running.
//
// What it owns: the activity count, the four-state machine below, and at most one pending timer.
// The clock is injected (`ActivityTimerScheduler`), so tests drive time by hand.
//
// States and transitions (AFNetworking's, AFNetworkActivityIndicatorManager.m):
//
//   notActive     --count > 0-->                       delayingStart  (timer: activationDelay)
//   delayingStart --timer, count > 0-->                active         (visible)
//   delayingStart --timer, count == 0 / count == 0-->  notActive
//   active        --count == 0-->                      delayingEnd    (timer: completionDelay)
//   delayingEnd   --count > 0-->                       active         (timer cancelled)
//   delayingEnd   --timer-->                           notActive      (hidden)
//
// Why the delays: a transfer shorter than the activation delay (1.0 s) never shows the indicator,
// so quick requests do not flicker it; the completion delay (0.17 s) joins back-to-back transfers
// into one continuous period of activity.
//
// Invariants: `isVisible` is true exactly in `active` and `delayingEnd`; the visibility handler is
// called once per change, in order, outside the lock; a timer that fires after the state moved on
// is recognised by its generation number and ignored. When disabled, the state is `notActive`
// and the count is still kept (AFNetworking's `enabled`).

import Synchronization

/// A cancellable pending timer, made by an `ActivityTimerScheduler`.
public protocol ActivityTimer: Sendable {
    /// Stops the timer; its action will not run (a no-op when it already ran).
    func cancel()
}

/// Runs an action after a delay. Production code uses `TaskActivityTimerScheduler`; tests use a
/// scheduler whose time they advance by hand.
public protocol ActivityTimerScheduler: Sendable {
    /// Schedules `action` to run once after `delay`.
    /// - Parameters:
    ///   - delay: how long to wait.
    ///   - action: what to run.
    /// - Returns: a handle that cancels it.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ActivityTimer
}

/// Schedules with `Task.sleep` on the continuous clock.
public struct TaskActivityTimerScheduler: ActivityTimerScheduler {
    /// Creates the scheduler.
    public init() {}

    /// Schedules `action` in a task that sleeps `delay` first.
    /// - Parameters:
    ///   - delay: how long to wait.
    ///   - action: what to run.
    /// - Returns: a handle that cancels the task.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ActivityTimer {
        let task = Task {
            try? await Task.sleep(for: delay)
            if !Task.isCancelled { action() }
        }
        return TaskTimer(task: task)
    }

    private struct TaskTimer: ActivityTimer {
        let task: Task<Void, Never>
        func cancel() { task.cancel() }
    }
}

/// Decides when a network-activity indicator is visible (AFNetworkActivityIndicatorManager).
///
/// ```swift
/// let tracker = NetworkActivityTracker { visible in bar.setVisible(visible) }
/// tracker.incrementActivityCount()   // a transfer starts: shown after 1.0 s if still running
/// tracker.decrementActivityCount()   // it ends: hidden 0.17 s later unless another one starts
/// ```
public final class NetworkActivityTracker: Sendable {
    /// The indicator's state.
    public enum State: Sendable, Hashable {
        /// Hidden, no activity.
        case notActive
        /// Activity started; waiting `activationDelay` before showing.
        case delayingStart
        /// Visible.
        case active
        /// Activity ended; still visible for `completionDelay`.
        case delayingEnd
    }

    /// The default activation delay, AFNetworking's `kDefaultAFNetworkActivityManagerActivationDelay`.
    public static let defaultActivationDelay: Duration = .seconds(1)
    /// The default completion delay, AFNetworking's `kDefaultAFNetworkActivityManagerCompletionDelay`.
    public static let defaultCompletionDelay: Duration = .milliseconds(170)

    /// How long activity must last before the indicator shows.
    public let activationDelay: Duration
    /// How long the indicator stays after activity ends.
    public let completionDelay: Duration

    private struct Storage {
        var state: State = .notActive
        var count = 0
        var enabled = true
        var timer: (any ActivityTimer)?
        var generation: UInt64 = 0
        var visible = false
        /// Visibility changes not yet handed to the handler, oldest first.
        var pending: [Bool] = []
        /// Whether some caller is handing out `pending` now.
        var delivering = false
        /// The subscribers of `activityCounts()`, by a number of their own.
        var countSubscribers: [UInt64: AsyncStream<Int>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
    }

    private let storage = Mutex(Storage())
    private let scheduler: any ActivityTimerScheduler
    private let visibilityHandler: @Sendable (Bool) -> Void

    /// Creates a tracker.
    /// - Parameters:
    ///   - activationDelay: delay before showing (default 1.0 s).
    ///   - completionDelay: delay before hiding (default 0.17 s).
    ///   - scheduler: the timer source (default `TaskActivityTimerScheduler`).
    ///   - visibilityHandler: called with true when the indicator should show and false when it
    ///     should hide, once per change, in order (AFNetworking's `networkActivityActionBlock`).
    public init(activationDelay: Duration = NetworkActivityTracker.defaultActivationDelay,
                completionDelay: Duration = NetworkActivityTracker.defaultCompletionDelay,
                scheduler: any ActivityTimerScheduler = TaskActivityTimerScheduler(),
                visibilityHandler: @escaping @Sendable (Bool) -> Void = { _ in }) {
        self.activationDelay = activationDelay
        self.completionDelay = completionDelay
        self.scheduler = scheduler
        self.visibilityHandler = visibilityHandler
    }

    /// The current state.
    public var state: State { storage.withLock { $0.state } }
    /// The number of activities in progress.
    public var activityCount: Int { storage.withLock { $0.count } }
    /// Whether the indicator is visible (`active` or `delayingEnd`).
    public var isVisible: Bool { storage.withLock { $0.visible } }

    /// Whether the tracker shows anything; disabling hides the indicator at once (default true).
    public var isEnabled: Bool {
        get { storage.withLock { $0.enabled } }
        set {
            let change = storage.withLock { s -> Bool? in
                s.enabled = newValue
                guard !newValue else { return nil }
                return transition(&s, to: .notActive)
            }
            deliver(change)
        }
    }

    /// A tracker shared by whoever wants one (AFNetworkActivityIndicatorManager's
    /// `sharedManager`): give it to several sessions' `SessionConfiguration.activityTracker` to
    /// count all their tasks together.
    public static let shared = NetworkActivityTracker()

    /// Records that an activity (a transfer) started.
    public func incrementActivityCount() {
        let (change, count, subscribers) = storage.withLock { s -> (Bool?, Int, [AsyncStream<Int>.Continuation]) in
            s.count += 1
            return (countChanged(&s), s.count, Array(s.countSubscribers.values))
        }
        for subscriber in subscribers { subscriber.yield(count) }
        deliver(change)
    }

    /// Records that an activity ended (the count never goes below zero).
    public func decrementActivityCount() {
        let (change, count, subscribers) = storage.withLock { s -> (Bool?, Int, [AsyncStream<Int>.Continuation]) in
            let before = s.count
            s.count = max(0, s.count - 1)
            return (countChanged(&s), s.count, before == s.count ? [] : Array(s.countSubscribers.values))
        }
        for subscriber in subscribers { subscriber.yield(count) }
        deliver(change)
    }

    /// The activity count, now and after each change, in order: the first element is the
    /// current count. The stream lasts as long as the tracker, or until the consumer stops.
    /// - Returns: a new stream for each call.
    public func activityCounts() -> AsyncStream<Int> {
        let (stream, continuation) = AsyncStream<Int>.makeStream(bufferingPolicy: .unbounded)
        // The current count goes out under the lock, so no change can come between it and the
        // subscription.
        let id = storage.withLock { s -> UInt64 in
            continuation.yield(s.count)
            s.nextSubscriber += 1
            s.countSubscribers[s.nextSubscriber] = continuation
            return s.nextSubscriber
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.storage.withLock { $0.countSubscribers.removeValue(forKey: id) }
        }
        return stream
    }

    deinit {
        for subscriber in storage.withLock({ $0.countSubscribers.values }) { subscriber.finish() }
    }

    // MARK: The state machine

    /// AFNetworking's `updateCurrentStateForNetworkActivityChange`.
    private func countChanged(_ s: inout Storage) -> Bool? {
        guard s.enabled else { return nil }
        switch s.state {
        case .notActive:
            return s.count > 0 ? transition(&s, to: .delayingStart) : nil
        case .delayingStart:
            return s.count == 0 ? transition(&s, to: .notActive) : nil
        case .active:
            return s.count == 0 ? transition(&s, to: .delayingEnd) : nil
        case .delayingEnd:
            return s.count > 0 ? transition(&s, to: .active) : nil
        }
    }

    /// Enters `state`: cancels any timer, starts the one the state needs, and returns the new
    /// visibility when it changed.
    private func transition(_ s: inout Storage, to state: State) -> Bool? {
        s.timer?.cancel()
        s.timer = nil
        s.generation &+= 1
        s.state = state
        let generation = s.generation
        switch state {
        case .delayingStart:
            s.timer = scheduler.schedule(after: activationDelay) { [weak self] in self?.timerFired(generation) }
        case .delayingEnd:
            s.timer = scheduler.schedule(after: completionDelay) { [weak self] in self?.timerFired(generation) }
        case .notActive, .active:
            break
        }
        let visible = state == .active || state == .delayingEnd
        guard visible != s.visible else { return nil }
        s.visible = visible
        s.pending.append(visible)  // queued under the lock, so changes keep their order
        return visible
    }

    private func timerFired(_ generation: UInt64) {
        let change = storage.withLock { s -> Bool? in
            guard s.generation == generation, s.enabled else { return nil }
            s.timer = nil
            switch s.state {
            case .delayingStart: return transition(&s, to: s.count > 0 ? .active : .notActive)
            case .delayingEnd: return transition(&s, to: s.count > 0 ? .active : .notActive)
            case .notActive, .active: return nil
            }
        }
        deliver(change)
    }

    /// Hands queued visibility changes to the handler, outside the state lock and in the order
    /// they were made; one caller at a time does the handing out.
    private func deliver(_ change: Bool?) {
        guard change != nil else { return }
        let claimed = storage.withLock { s -> Bool in
            guard !s.delivering else { return false }
            s.delivering = true
            return true
        }
        guard claimed else { return }
        while let next = storage.withLock({ s -> Bool? in
            guard !s.pending.isEmpty else { s.delivering = false; return nil }
            return s.pending.removeFirst()
        }) {
            visibilityHandler(next)
        }
    }
}
