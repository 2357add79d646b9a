// ParallelMeter: the progress meter curl 7.88 writes to stderr in parallel mode (-Z), byte for
// byte (tool_progress.c): a header line, then one line redrawn with "\r" at most every 500 ms and
// a final one ended by a newline:
//
//   DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed
//   \r 50 --      6     0     3     0  --:--:-- --:--:-- --:--:--    19     \n
//
// DL%/UL% are shown only when every running transfer knows its total; sizes and the speed are
// curl's five-column figures (k, M, G, T, P by 1024); the speed is measured over the last ten
// redraws. Xfers counts the transfers started, Live those not yet ended. The numbers come from each
// task's progress handler; drawing is a plain write to stderr (StandardStreams, never stdout).

import Courier
import CourierPosix
import Synchronization

final class ParallelMeter: ProgressDisplay {
    private struct Transfer {
        var downloaded: UInt64 = 0
        var downloadTotal: UInt64 = 0
        var uploaded: UInt64 = 0
        var uploadTotal: UInt64 = 0
        var downloadTotalAdded = false
        var uploadTotalAdded = false
    }

    private struct Sample {
        var downloaded: UInt64
        var uploaded: UInt64
        var at: ContinuousClock.Instant
    }

    private struct State {
        var transfers: [Int: Transfer] = [:]
        var next = 0
        /// Transfers the runner started (curl's Xfers) and those that ended (Live is the rest).
        var added = 0
        var finished = 0
        var downloadedBefore: UInt64 = 0
        var uploadedBefore: UInt64 = 0
        var downloadTotal: UInt64 = 0
        var uploadTotal: UInt64 = 0
        var samples: [Sample] = []
        var sampleIndex = 0
        var header = false
        var lastDraw: ContinuousClock.Instant?
        var closed = false
    }

    private let state = Mutex(State())
    private let start = ContinuousClock.now
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    /// The meter's visibility does not follow the activity tracker: curl draws it from the start.
    var activityTracker: NetworkActivityTracker? { nil }

    init() {}

    /// Starts redrawing every 500 ms (curl's interval); the first line is drawn at once.
    func startTicking() {
        draw(final: false)
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                guard let self, !Task.isCancelled else { return }
                self.draw(final: false)
            }
        }
        ticker.withLock { $0 = task }
    }

    /// The runner started a transfer (it counts among Xfers and Live from now on).
    func transferAdded() { state.withLock { $0.added += 1 } }

    /// The runner saw a transfer end.
    func transferFinished() { state.withLock { $0.finished += 1 } }

    func begin() -> ProgressSlot {
        let id = state.withLock { s in
            s.next += 1
            s.transfers[s.next] = Transfer()
            return s.next
        }
        return ProgressSlot(
            download: { [self] progress in
                state.withLock { s in
                    s.transfers[id]?.downloaded = progress.completed
                    s.transfers[id]?.downloadTotal = progress.total ?? 0
                }
            },
            upload: { [self] progress in
                state.withLock { s in
                    s.transfers[id]?.uploaded = progress.completed
                    s.transfers[id]?.uploadTotal = progress.total ?? 0
                }
            },
            end: { [self] in
                state.withLock { s in
                    guard let t = s.transfers.removeValue(forKey: id) else { return }
                    s.downloadedBefore += t.downloaded
                    s.uploadedBefore += t.uploaded
                    // A total seen only now still counts (curl adds it at the next redraw).
                    if !t.downloadTotalAdded { s.downloadTotal += t.downloadTotal }
                    if !t.uploadTotalAdded { s.uploadTotal += t.uploadTotal }
                }
            })
    }

    /// The final line, with its newline.
    func close() {
        ticker.withLock { $0?.cancel(); $0 = nil }
        draw(final: true)
    }

    /// Draws a line now (a non-final one only when 500 ms have passed since the last).
    func draw(final: Bool) {
        let now = ContinuousClock.now
        let text = state.withLock { s -> String? in
            guard !s.closed else { return nil }
            if final { s.closed = true }
            var text = ""
            if !s.header {
                s.header = true
                text += "DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed\n"
            }
            if !final, let last = s.lastDraw, now - last <= .milliseconds(500) { return text.isEmpty ? nil : text }
            s.lastDraw = now
            text += ParallelMeter.line(&s, now: now, start: start, final: final)
            return text
        }
        if let text { StandardStreams.writeError(text) }
    }

    private static func line(_ s: inout State, now: ContinuousClock.Instant, start: ContinuousClock.Instant, final: Bool) -> String {
        var downloaded = s.downloadedBefore
        var uploaded = s.uploadedBefore
        var downloadKnown = true
        var uploadKnown = true
        for key in s.transfers.keys {
            guard var t = s.transfers[key] else { continue }
            downloaded += t.downloaded
            uploaded += t.uploaded
            if t.downloadTotal == 0 {
                downloadKnown = false
            } else if !t.downloadTotalAdded {
                s.downloadTotal += t.downloadTotal
                t.downloadTotalAdded = true
            }
            if t.uploadTotal == 0 {
                uploadKnown = false
            } else if !t.uploadTotalAdded {
                s.uploadTotal += t.uploadTotal
                t.uploadTotalAdded = true
            }
            s.transfers[key] = t
        }
        var downloadPercent = "--"
        var uploadPercent = "--"
        if downloadKnown && s.downloadTotal > 0 { downloadPercent = padded(String(downloaded * 100 / s.downloadTotal), 3) }
        if uploadKnown && s.uploadTotal > 0 { uploadPercent = padded(String(uploaded * 100 / s.uploadTotal), 3) }

        // The speed: over the ten last redraws once there are ten, else since the start.
        let sample = Sample(downloaded: downloaded, uploaded: uploaded, at: now)
        let oldest: Sample?
        if s.samples.count < 10 {
            s.samples.append(sample)
            oldest = s.samples.count == 10 ? s.samples[0] : nil
            s.sampleIndex = s.samples.count % 10
        } else {
            s.samples[s.sampleIndex] = sample
            s.sampleIndex = (s.sampleIndex + 1) % 10
            oldest = s.samples[s.sampleIndex]
        }
        let milliseconds = ParallelMeter.milliseconds(now - (oldest?.at ?? start))
        let baseDown = oldest?.downloaded ?? 0
        let baseUp = oldest?.uploaded ?? 0
        func rate(_ bytes: UInt64) -> UInt64 {
            guard milliseconds > 0 else { return 0 }  // curl divides by zero here; nothing is shown
            let value = Double(bytes) / (Double(milliseconds) / 1000)
            return value.isFinite && value < 1.8e19 ? UInt64(value) : 0
        }
        let speed = max(rate(downloaded &- baseDown), rate(uploaded &- baseUp))
        var total = "--:--:--"
        var left = "--:--:--"
        if downloadKnown && speed > 0 {
            total = clock(Int64(s.downloadTotal / speed))
            left = clock(Int64((s.downloadTotal &- downloaded) / speed))
        }
        let spent = clock(ParallelMeter.milliseconds(now - start) / 1000)
        let running = s.added - s.finished
        return "\r" + leftAligned(downloadPercent, 3) + " " + leftAligned(uploadPercent, 3) + " "
            + fiveColumns(downloaded) + " " + fiveColumns(uploaded) + " "
            + padded(String(s.added), 5) + " " + padded(String(running), 5) + "  "
            + total + " " + spent + " " + left + " " + fiveColumns(speed) + " "
            + (final ? "    \n" : "     ")
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }

    /// curl's max5data: at most five columns, with k, M, G, T, P (powers of 1024).
    static func fiveColumns(_ bytes: UInt64) -> String {
        let k: UInt64 = 1024, m = k * 1024, g = m * 1024, t = g * 1024, p = t * 1024
        if bytes < 100_000 { return padded(String(bytes), 5) }
        if bytes < 10_000 * k { return padded(String(bytes / k), 4) + "k" }
        if bytes < 100 * m { return padded(String(bytes / m), 2) + "." + String((bytes % m) / (m / 10)) + "M" }
        if bytes < 10_000 * m { return padded(String(bytes / m), 4) + "M" }
        if bytes < 100 * g { return padded(String(bytes / g), 2) + "." + String((bytes % g) / (g / 10)) + "G" }
        if bytes < 10_000 * g { return padded(String(bytes / g), 4) + "G" }
        if bytes < 10_000 * t { return padded(String(bytes / t), 4) + "T" }
        return padded(String(bytes / p), 4) + "P"
    }

    /// curl's time2str: "--:--:--" for nothing, "HH:MM:SS" (hours space-padded), "DDDd HHh", "DDDDDDDd".
    static func clock(_ seconds: Int64) -> String {
        guard seconds > 0 else { return "--:--:--" }
        let hours = seconds / 3600
        if hours <= 99 {
            let minutes = (seconds % 3600) / 60
            return padded(String(hours), 2) + ":" + zeroPadded(minutes) + ":" + zeroPadded(seconds % 60)
        }
        let days = seconds / 86400
        if days <= 999 { return padded(String(days), 3) + "d " + zeroPadded((seconds % 86400) / 3600) + "h" }
        return padded(String(days), 7) + "d"
    }

    private static func zeroPadded(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }

    static func padded(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
    }

    static func leftAligned(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
