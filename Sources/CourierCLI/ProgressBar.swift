// ProgressBar: curl's --progress-bar on stderr ("####    42.0%"), shown by a
// NetworkActivityTracker — so it appears only once a transfer has lasted 1.0 s and goes away
// 0.17 s after the last one ended (AFNetworkActivityIndicatorManager's delays). It is drawn only
// while visible, at most ten times a second; hiding erases the line.

import Courier
import CourierPosix
import Synchronization

final class ProgressBar: Sendable {
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

    private var activity: NetworkActivityTracker? { tracker.withLock { $0 } }

    /// A transfer started.
    func transferStarted() {
        state.withLock { $0.completed = 0; $0.total = nil }
        activity?.incrementActivityCount()
    }

    /// A transfer ended.
    func transferEnded() { activity?.decrementActivityCount() }

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
        activity?.isEnabled = false
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
