// ProgressBar: curl's --progress-bar on stderr ("####    42.0%"). Its visibility is the sessions'
// NetworkActivityTracker (`SessionConfiguration.activityTracker`, issue 16): every session of the
// run counts its tasks on the bar's tracker from resume to completion, so the bar appears only
// once a transfer has lasted 1.0 s and goes away 0.17 s after the last one ended
// (AFNetworkActivityIndicatorManager's delays). Its numbers come from the running task's progress
// handler (the task progress path). It is drawn only while visible, at most ten times a second;
// hiding erases the line.

import Courier
import CourierPosix
import Synchronization

/// Where a transfer reports its progress: the bar, or with -Z curl's parallel meter.
protocol ProgressDisplay: Sendable {
    /// A transfer starts; its progress goes to the returned slot, whose `end` it calls when done.
    func begin() -> ProgressSlot
    /// The sessions' tracker, when the display's visibility follows one.
    var activityTracker: NetworkActivityTracker? { get }
    /// The run is over: the last output (erase the bar, the meter's final line).
    func close()
}

/// One transfer's progress reporting.
struct ProgressSlot: Sendable {
    /// Download progress (the response body).
    let download: @Sendable (TransferProgress) -> Void
    /// Upload progress (the request body).
    let upload: @Sendable (TransferProgress) -> Void
    /// The transfer ended.
    let end: @Sendable () -> Void
}

final class ProgressBar: ProgressDisplay {
    private struct State {
        var visible = false
        var completed: UInt64 = 0
        var total: UInt64?
        var lastDraw: ContinuousClock.Instant?
        var drawn = false
    }

    private let state = Mutex(State())
    private let width: Int
    private let tracker = Mutex<NetworkActivityTracker?>(nil)

    init() {
        width = max(20, (Terminal.columns(2) ?? 80) - 8)
        let tracker = NetworkActivityTracker { [weak self] visible in self?.setVisible(visible) }
        self.tracker.withLock { $0 = tracker }
    }

    /// The tracker every session of the run counts its tasks on: it shows and hides the bar.
    var activityTracker: NetworkActivityTracker? { tracker.withLock { $0 } }

    /// A transfer started: the bar shows its progress from zero.
    func begin() -> ProgressSlot {
        state.withLock { $0.completed = 0; $0.total = nil }
        return ProgressSlot(download: { [self] in update($0) }, upload: { _ in }, end: {})
    }

    /// Progress of the current transfer.
    func update(_ progress: TransferProgress) {
        let line = state.withLock { s -> String? in
            s.completed = progress.completed
            s.total = progress.total
            guard s.visible else { return nil }
            let now = ContinuousClock.now
            if let last = s.lastDraw, now - last < .milliseconds(100) { return nil }
            s.lastDraw = now
            s.drawn = true
            return render(s)
        }
        if let line { StandardStreams.writeError(line) }
    }

    /// Erases the bar now (at exit).
    func close() {
        activityTracker?.isEnabled = false
        setVisible(false)
    }

    private func setVisible(_ visible: Bool) {
        let text = state.withLock { s -> String? in
            guard s.visible != visible else { return nil }
            s.visible = visible
            if visible { s.drawn = true; s.lastDraw = ContinuousClock.now; return render(s) }
            guard s.drawn else { return nil }
            s.drawn = false
            return "\r" + String(repeating: " ", count: width + 8) + "\r"
        }
        if let text { StandardStreams.writeError(text) }
    }

    private func render(_ s: State) -> String {
        guard let total = s.total, total > 0 else {
            return "\r" + String(repeating: "#", count: 0) + "\(s.completed) bytes" + String(repeating: " ", count: 8)
        }
        let fraction = min(1, Double(s.completed) / Double(total))
        let filled = Int(fraction * Double(width))
        let percent = (fraction * 1000).rounded() / 10
        return "\r" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled)
            + " " + fixed(percent, 1) + "%"
    }
}
