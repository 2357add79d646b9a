// TransferObservers: what the transfers share with the session's callbacks — the stdout writer
// that cancels on a broken pipe, the events recorded for -i, -v, -D and -w, the side files -D and
// --etag-save write, and the paths -D has already begun.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// Writes one transfer's body to stdout; the first failure is kept and cancels the task, and
/// nothing more is written.
final class StdoutWriter: Sendable {
    private let task: StreamTask
    private let failed = Mutex<CLIError?>(nil)

    init(task: StreamTask) { self.task = task }

    /// The write failure, once there was one.
    var failure: CLIError? { failed.withLock { $0 } }

    /// Writes on the standard output thread; the task suspends while a slow reader holds it up.
    func write(_ buffer: ByteBuffer) async {
        guard failure == nil else { return }
        do { try await StandardOutput.write(buffer) } catch {
            failed.withLock { $0 = .writeFailure }
            task.cancel()
        }
    }
}

/// What the observer saw during one task: the -v trace (written at once) and the response heads.
final class ObservedEvents: Sendable {
    private struct State {
        var heads: [HTTPResponseHead] = []
        var remoteAddress: String?
        var connected = false
        var remotePort: UInt16?
        var requestSize: UInt64 = 0
        var headerSize: UInt64 = 0
    }

    private let state = Mutex(State())
    private let verbose: Bool
    /// -v lines carry --trace-time's stamp.
    private let stamped: Bool
    private let silent: Bool
    /// Where the transfer's progress goes (the bar or the -Z meter), if anywhere.
    let progress: ProgressSlot?
    /// Called once: at the first response head, or when the transfer ends without one.
    private let responseStarted: Mutex<(@Sendable () -> Void)?>

    init(verbose: Bool, stamped: Bool = false, silent: Bool = false, progress: ProgressSlot? = nil,
         responseStarted: (@Sendable () -> Void)? = nil) {
        self.verbose = verbose
        self.stamped = stamped
        self.silent = silent
        self.progress = progress
        self.responseStarted = Mutex(responseStarted)
    }

    /// The transfer is over: a caller still waiting for a response head is told.
    func responseEnded() {
        let callback = responseStarted.withLock { c in defer { c = nil }; return c }
        callback?()
    }

    var heads: [HTTPResponseHead] { state.withLock { $0.heads } }

    func observe(_ event: TaskEvent) {
        if verbose {
            let text = Trace.text(for: event)
            StandardStreams.writeError(stamped ? TraceClock.stamped(text) : text)
        }
        if case .retry(_, let reason, let delay, let left) = event {
            // curl's warning (shown unless -s), seconds rounded down; curl counts this retry among
            // those "left" (it decrements after printing).
            warn("Problem \(Trace.retryProblem(reason)). Will retry in \(delay.components.seconds) seconds. \(left + 1) retries left.",
                 silent: silent)
        }
        var didStart = false
        state.withLock { s in
            switch event {
            case .connected(_, let port, let address, _, _):
                s.remoteAddress = address
                s.connected = true
                s.remotePort = port
            case .responseHead(let info):
                s.heads.append(info)
                didStart = true
                s.headerSize += UInt64(Trace.headText(info).utf8.count)
            case .requestHead(let bytes):
                s.requestSize += UInt64(bytes.readableBytes)
            case .redirect, .cookieStored, .retry, .cache, .resumed, .suspended:
                break
            }
        }
        if didStart { responseEnded() }
    }

    func fill(_ values: inout WriteOutValues) {
        state.withLock { s in
            values.remoteIP = s.remoteAddress.map(Trace.addressWithoutPort) ?? ""
            values.remotePort = s.remotePort.map(String.init) ?? ""
            values.sizeHeader = s.headerSize
            values.sizeRequest = s.requestSize
            if let last = s.heads.last {
                values.httpVersion = last.version == .http1_0 ? "1.0" : "1.1"
                values.numHeaders = last.headers.count
                if last.status / 100 == 3, let location = last.headers.first(name: "Location") {
                    // curl reports the Location resolved against the URL it answered.
                    let base = try? URI(parsing: values.urlEffective)
                    values.redirectURL = (try? base?.resolving(location))?.redactedDescription ?? location
                }
            }
            // curl keeps the last Content-Type of the chain (a redirect's, when the final
            // response has none), and reports no scheme for a transfer that never connected.
            if let type = s.heads.compactMap({ $0.headers.first(name: "Content-Type") }).last { values.contentType = type }
            if !s.connected { values.scheme = "" }
        }
    }
}

/// Replaces (or creates, 0666 less the umask) a small side file: -D, --etag-save.
func writeFileReplacing(_ path: String, _ bytes: ByteBuffer) throws(Errno) {
    let file = try File.open(path, access: .writeOnly, create: true, truncate: true, mode: 0o666)
    defer { try? file.close() }
    try file.write(bytes, at: 0)
}

/// Appends to a side file (created when missing).
func appendFile(_ path: String, _ bytes: ByteBuffer) throws(Errno) {
    let file = try File.open(path, access: .writeOnly, create: true, mode: 0o666)
    defer { try? file.close() }
    try file.write(bytes, at: try file.size())
}

/// Paths shared between groups (the -D files already begun).
final class SharedPaths: Sendable {
    private let paths = Mutex<Set<String>>([])

    /// Adds `path`; whether it was new.
    func insert(_ path: String) -> Bool { paths.withLock { $0.insert(path).inserted } }
}

extension GlobalOptions {
    /// Writes an information line ("* ...\n") where the trace goes: stderr with -v (stamped with
    /// --trace-time), an "== Info: " record with --trace or --trace-ascii, nowhere otherwise.
    func information(_ text: String) {
        if let trace {
            trace.info(text)
        } else if verbose {
            StandardStreams.writeError(traceTime ? TraceClock.stamped(text) : text)
        }
    }
}
