// NetworkTransfers: the transfers of one group of URLs, on a Session shared with every group whose
// session settings are the same (connections are reused between URLs, as curl reuses them).
//
// Per URL, by output:
// - stdout: a StreamTask; body slices are written as they arrive (-i/-I print the heads first,
//   redirect heads included with -L, as curl does);
// - a file (-o FILE, -O, -J): a DownloadTask (temporary file beside FILE, renamed on success,
//   removed on failure; `DownloadDestination` says whether an existing file may be replaced: -J's
//   name never replaces one, --no-clobber takes NAME.N) — with -C -, a DownloadTask resuming FILE
//   in place (ResumeData.partialPath == FILE) whose validator (ETag or Last-Modified) and total
//   length were kept in FILE's extended attribute `user.courier.validator` by an earlier run;
// - --json-response / --sanitize-nulls: a DataTask with AFNetworking's JSON serializer (as a
//   JSONDocument: no tree); compact JSON and one newline on success, nothing on stdout on
//   failure. Any JSON value is accepted at the top level (`null` prints `null`).
// Then, after each transfer: -D writes the response heads, --etag-save the ETag, -R the file's
// time. -f: a status >= 400 prints no body and exits 22 (--fail-with-body: after the body).
// SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the running task (which removes its temporary file; a
// -C - partial file keeps what arrived) and the process ends by the same signal (TransferRunner).
//
// Redirects (-L) follow curl's rules on top of the session's: after 301 and 302 only a POST
// becomes a GET (--post301/--post302 keep it), after 303 everything but HEAD does (--post303 keeps
// a POST); --proto-redir limits the schemes (exit 1); --location-trusted sends the credentials to
// other hosts too; -e ";auto" sets Referer to the previous URL.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// The extended attribute that keeps a partial download's validator: "VALIDATOR\nTOTAL" (TOTAL
/// may be empty), VALIDATOR an ETag (starting with `"` or `W/`) or a Last-Modified date.
let validatorAttribute = "user.courier.validator"

/// Where one URL's body goes.
enum OutputPlan: Sendable {
    /// Standard output.
    case stdout
    /// A file named on the command line (-o), after --output-dir and #N.
    case file(String)
    /// -O: the URL's name (or the reason there is none), in `directory` (--output-dir); with -J,
    /// the server's name when it gives one.
    case remote(urlName: Result<String, CLIError>, directory: String?)
}

/// What every group shares: the running tasks (for termination signals and -Z --fail-early) and
/// the signal that came.
final class TransferControl: Sendable {
    private struct Running {
        var tasks: [Int: any SessionTask] = [:]
        var next = 0
        /// -Z --fail-early: a transfer failed, the others are cancelled and end with 42.
        var aborted = false
    }

    private let running = Mutex(Running())
    /// The termination signal that arrived (0: none).
    private let signal = Atomic<Int32>(0)

    /// Registers a running task; the token unregisters it. A task registered after an abort is
    /// cancelled at once.
    func track(_ task: any SessionTask) -> Int {
        let (token, aborted) = running.withLock { r in
            r.next += 1
            r.tasks[r.next] = task
            return (r.next, r.aborted)
        }
        if aborted { task.cancel() }
        return token
    }

    func untrack(_ token: Int) { _ = running.withLock { $0.tasks.removeValue(forKey: token) } }

    /// -Z --fail-early: cancels every running transfer; they end with curl's 42.
    func abortAll() {
        let tasks = running.withLock { r -> [any SessionTask] in
            r.aborted = true
            return Array(r.tasks.values)
        }
        for task in tasks { task.cancel() }
    }

    /// Whether -Z --fail-early aborted the remaining transfers.
    var isAborted: Bool { running.withLock { $0.aborted } }

    /// A termination signal (run on the signal watcher thread, not in a signal handler): cancel
    /// the running tasks — a temporary file goes before its task completes, a -C - partial file
    /// keeps what arrived — and the runner then ends the process by the same signal. With no task
    /// running, end it at once; if the cancellation takes more than two seconds, end it anyway.
    func terminate(by signal: Int32) {
        self.signal.store(signal, ordering: .releasing)
        let tasks = running.withLock { Array($0.tasks.values) }
        guard !tasks.isEmpty else { ProcessControl.terminate(bySignal: signal) }
        for task in tasks { task.cancel() }
        Task {
            try? await Task.sleep(for: .seconds(2))
            ProcessControl.terminate(bySignal: signal)
        }
    }

    /// The termination signal that arrived, if one did.
    var terminationSignal: Int32? {
        let value = signal.load(ordering: .acquiring)
        return value == 0 ? nil : value
    }
}

/// Facts a redirect handler learns that the transfer needs afterwards.
final class RedirectMonitor: Sendable {
    private let refused = Mutex<String?>(nil)

    /// The scheme a redirect was refused for (--proto-redir), if one was.
    var refusedScheme: String? { refused.withLock { $0 } }
    func refuse(_ scheme: String) { refused.withLock { $0 = scheme } }
    func reset() { refused.withLock { $0 = nil } }
}

final class NetworkTransfers: Sendable {
    let options: TransferOptions
    let settings: TransferSettings
    let session: Session
    let control: TransferControl
    let progress: (any ProgressDisplay)?
    let monitor: RedirectMonitor
    /// -D files already written by an earlier transfer (appended to, not truncated).
    let dumpedFiles: SharedPaths

    init(options: TransferOptions, settings: TransferSettings, session: Session, monitor: RedirectMonitor, control: TransferControl,
         progress: (any ProgressDisplay)?, dumpedFiles: SharedPaths) {
        self.options = options
        self.settings = settings
        self.session = session
        self.monitor = monitor
        self.control = control
        self.progress = progress
        self.dumpedFiles = dumpedFiles
    }

    // MARK: Transfers

    /// One transfer. `responseStarted` is called once, when the first response head arrives or
    /// the transfer ends without one (-Z waits for it before more transfers go to the origin).
    func perform(_ prepared: PreparedRequest, output plan: OutputPlan, values: inout WriteOutValues,
                 responseStarted: (@Sendable () -> Void)? = nil) async throws(CLIError) {
        let request = prepared.request
        let slot = progress?.begin()
        defer { slot?.end() }
        let observed = ObservedEvents(verbose: options.global.verbose, stamped: options.global.traceTime, silent: options.global.silent, progress: slot,
                                      responseStarted: responseStarted)
        defer { observed.responseEnded() }
        monitor.reset()
        if let host = request.uri.host, host.unicodeDescription != host.description {
            // DNS, TLS, the Host field and cookies all use the ASCII form (docs/url.md).
            options.global.information("* International host name \(host.unicodeDescription) converted to \(host.text)\n")
        }
        // -D and --etag-save files exist (emptied) before the transfer, as curl opens them.
        try await prepareSideFiles()
        var failure: CLIError?
        do throws(CLIError) {
            if options.jsonResponse || options.sanitizeNulls {
                try await jsonTransfer(request, observed: observed, values: &values)
            } else {
                switch plan {
                case .stdout, .file("-"):
                    try await streamTransfer(request, observed: observed, values: &values)
                case .file(let path):
                    try await download(request, path: .fixed(path), observed: observed, values: &values)
                case .remote(let urlName, let directory):
                    try await download(request, path: .remote(urlName, directory: directory), observed: observed, values: &values)
                }
            }
        } catch {
            failure = error
        }
        observed.fill(&values)
        if let signal = control.terminationSignal { throw CLIError(128 + signal, "interrupted by signal \(signal)") }
        await writeSideFiles(observed)
        if let scheme = monitor.refusedScheme, failure == nil || failure?.code == 22 {
            failure = CLIError(1, "Protocol \"\(scheme)\" not supported or disabled in libcurl")
        }
        if let failure { throw failure }
        if let host = request.uri.host?.text {
            options.global.information("* Connection to host \(host) left intact\n")
        }
    }

    // MARK: -D, --etag-save

    private func prepareSideFiles() async throws(CLIError) {
        if let path = options.dumpHeader, path != "-", path != "%" {
            let first = dumpedFiles.insert(path)
            if first {
                do { try await BlockingIOThread.shared.run { () throws(Errno) in try writeFileReplacing(path, ByteBuffer()) } } catch {
                    throw CLIError(23, "Failed to open \(path): \(error)")
                }
            }
        }
        if let path = options.etagSave, path != "-" {
            do { try await BlockingIOThread.shared.run { () throws(Errno) in try writeFileReplacing(path, ByteBuffer()) } } catch {
                throw CLIError(23, "Failed creating file for saving etags: \"\(path)\": \(error)")
            }
        }
    }

    /// The side files are written on the file-I/O thread, standard output on its own thread.
    private func writeSideFiles(_ observed: ObservedEvents) async {
        let heads = observed.heads
        if let path = options.dumpHeader, path != "-" {
            var text = ""
            for head in heads { text += Trace.headText(head) }
            if path == "%" {
                StandardStreams.writeError(text)
            } else {
                let bytes = ByteBuffer(string: text)
                _ = try? await BlockingIOThread.shared.run { () throws(Errno) in try appendFile(path, bytes) }
            }
        }
        if let path = options.etagSave {
            var text = ""
            for head in heads {
                for value in head.headers["ETag"] where !value.isEmpty { text += value + "\n" }
            }
            if path == "-" {
                try? await StandardOutput.write(text)
            } else {
                let bytes = ByteBuffer(string: text)
                _ = try? await BlockingIOThread.shared.run { () throws(Errno) in try appendFile(path, bytes) }
            }
        }
    }

    private func fail(for status: Int) -> CLIError {
        CLIError(22, "The requested URL returned error: \(status)")
    }

    private func mapped(_ error: SessionError) -> CLIError {
        if let signal = control.terminationSignal { return CLIError(128 + signal, "interrupted by signal \(signal)") }
        if control.isAborted { return .abortedByOtherTransfer }
        return CLIError(Int32(error.curlExitCode), message(for: error))
    }

    private func writeStdout(_ buffer: ByteBuffer) async throws(CLIError) {
        do { try await StandardOutput.write(buffer) } catch {
            throw CLIError.writeFailure
        }
    }

    private func writeStdout(_ text: String) async throws(CLIError) { try await writeStdout(ByteBuffer(string: text)) }

    /// Whether a status fails the transfer (-f, --fail-with-body).
    private func fails(_ status: Int) -> Bool { (options.fail || options.failWithBody) && status >= 400 }

    // MARK: stdout

    private func streamTransfer(_ request: HTTPRequest, observed: ObservedEvents, values: inout WriteOutValues) async throws(CLIError) {
        let task = session.streamTask(with: request)
        task.setObserver(observed.observe)
        if let slot = observed.progress { task.setProgressHandler(upload: slot.upload, download: slot.download) }
        let token = control.track(task)
        defer { control.untrack(token) }
        let response: StreamedResponse
        do { response = try await task.value } catch {
            // A failure before any response still reports its times (-w %{time_total} of a
            // transfer that timed out is the deadline, as curl's).
            fill(&values, await task.completedMetrics())
            throw mapped(error)
        }
        values.httpCode = response.head.status
        values.contentType = response.head.headers.first(name: "Content-Type") ?? ""
        values.responseHeaders = response.head.headers
        let refused = monitor.refusedScheme != nil
        if (options.fail && response.head.status >= 400) || refused {
            // The error body is read and dropped (the connection stays reusable); cancelling a
            // stream task whose body is not being read does not complete it (session issue).
            do throws(SessionError) { for try await _ in response.body {} } catch {}
            fill(&values, await task.completedMetrics())
            values.httpCode = response.head.status
            if refused { return }
            throw fail(for: response.head.status)
        }
        // The first failed write to stdout (the reader went away: EPIPE, SIGPIPE being ignored)
        // cancels the task; the transfer then ends with curl's 23, whatever point of the body
        // it reached, and the next URL is still attempted.
        let output = StdoutWriter(task: task)
        if options.include || options.headOnly || options.dumpHeader == "-" {
            for head in observed.heads { await output.write(ByteBuffer(string: Trace.headText(head))) }
        }
        do throws(SessionError) {
            for try await slice in response.body {
                if !options.headOnly { await output.write(slice) }
            }
        } catch {
            fill(&values, await task.completedMetrics())
            values.httpCode = response.head.status
            if let failure = output.failure, control.terminationSignal == nil { throw failure }
            throw mapped(error)
        }
        fill(&values, await task.completedMetrics())
        values.httpCode = response.head.status
        if let failure = output.failure { throw failure }
        if fails(response.head.status) { throw fail(for: response.head.status) }
    }

    // MARK: Files

    private enum FileName: Sendable {
        case fixed(String)
        case remote(Result<String, CLIError>, directory: String?)
    }

    private func download(_ request: HTTPRequest, path given: FileName, observed: ObservedEvents, values: inout WriteOutValues) async throws(CLIError) {
        // -O without -J: the name is the URL's, known before anything is sent.
        var resolved = given
        if case .remote(let urlName, let directory) = given, !options.remoteHeaderName {
            switch urlName {
            case .success(let fromURL): resolved = .fixed(directory.map { $0 + "/" + fromURL } ?? fromURL)
            case .failure(let error): throw error
            }
        }
        let name = resolved
        let failOnError = options.fail
        let resuming = settings.resume
        let noClobber = options.noClobber
        let headerName = options.remoteHeaderName
        let createDirs = options.createDirs
        let removeOnError = options.removeOnError
        // -i and -I with a file: the heads (redirects' too, with -L) go into the file before the
        // body, as curl writes them; -D - still writes them to standard output.
        let headsInFile = options.include || options.headOnly
        let monitor = self.monitor
        let holder = Mutex<DownloadTask?>(nil)
        let refusedStatus = Atomic<Int>(0)
        let noName = Mutex<CLIError?>(nil)
        let placement: @Sendable (HTTPResponseHead, URI) -> DownloadDestination = { head, _ in
            var path: String
            var policy: ExistingFilePolicy = noClobber ? .numbered(limit: 99) : .replace
            switch name {
            case .fixed(let fixed):
                path = fixed
            case .remote(let urlName, let directory):
                var chosen: String?
                if headerName, let disposition = head.headers.first(name: "Content-Disposition"),
                   let given = OutputNames.contentDispositionName(disposition) {
                    chosen = given
                    // curl never overwrites a file with a name the server chose.
                    if !noClobber { policy = .keep }
                } else if case .success(let fromURL) = urlName {
                    chosen = fromURL
                }
                guard let chosen else {
                    if case .failure(let error) = urlName { noName.withLock { $0 = error } }
                    holder.withLock { $0 }?.cancel()
                    return DownloadDestination(path: "/dev/null")
                }
                path = directory.map { $0 + "/" + chosen } ?? chosen
            }
            // A 416 to a resume is the download task's to judge (the file may be complete: curl
            // does not fail on it either).
            if (failOnError && head.status >= 400 && !(resuming && head.status == 416)) || monitor.refusedScheme != nil {
                refusedStatus.store(head.status, ordering: .releasing)
                holder.withLock { $0 }?.cancel()
            }
            var heads: ByteBuffer?
            if headsInFile {
                var text = ""
                for head in observed.heads { text += Trace.headText(head) }
                heads = ByteBuffer(string: text)
            }
            return DownloadDestination(path: path, existingFile: policy, createsDirectories: createDirs,
                                       removesPartialFileOnFailure: removeOnError, leadingBytes: heads)
        }
        let fixedPath: String? = { if case .fixed(let path) = name { return path } else { return nil } }()
        if case .fixed(let path) = name { values.filenameEffective = path }
        if settings.resume, let path = fixedPath {
            // -C - continues a regular file; a device, a FIFO or standard output holds no partial
            // download (curl would write into it; refusing is safer).
            let target: OutputTarget
            do { target = try await BlockingIOThread.shared.run { () throws(Errno) in try OutputTarget.resolve(path) } } catch {
                throw CLIError(23, "Failure writing output to destination: \(path): \(error)")
            }
            guard target.isResumable else {
                throw CLIError.usage("-C - cannot resume in \(path): it is \(target.kindDescription), not a regular file")
            }
        }
        let task: DownloadTask
        if settings.resume, let path = fixedPath, let record = resumeRecord(for: request, at: path) {
            var headers = request.headers
            headers.remove(name: "Content-Type")
            task = session.downloadTask(resumingWith: record, headers: headers, placement: placement)
        } else {
            task = session.downloadTask(with: request, keepsPartialData: false, placement: placement)
        }
        holder.withLock { $0 = task }
        task.setObserver(observed.observe)
        if let slot = observed.progress { task.setProgressHandler(upload: slot.upload, download: slot.download) }
        let token = control.track(task)
        defer { control.untrack(token) }
        let result = await task.response
        fill(&values, result.metrics)
        if let head = result.head {
            values.httpCode = head.status
            values.contentType = head.headers.first(name: "Content-Type") ?? ""
            values.responseHeaders = head.headers
            // The record follows the bytes on disk: it changes only when the response was taken
            // (a refused resume — a mismatch, a 416 — leaves file and record as they were).
            var refusedResume = false
            if case .failure(let error) = result.result { refusedResume = error.code == .resumeMismatch || error.code == .rangeNotSatisfiable }
            if settings.resume, let path = fixedPath, head.status != 416, !refusedResume { saveValidator(head, at: path) }
        }
        if case .success(let path) = result.result { values.filenameEffective = path }
        if let error = noName.withLock({ $0 }) { throw error }
        let refused = refusedStatus.load(ordering: .acquiring)
        if monitor.refusedScheme != nil { return }
        if refused != 0 { throw fail(for: refused) }
        if options.dumpHeader == "-" {
            for head in observed.heads { try await writeStdout(Trace.headText(head)) }
        }
        switch result.result {
        case .failure(let error):
            if error.code == .fileWriteFailed, error.errno == .fileExists {
                throw CLIError(23, "Failure writing output to destination: \(noClobber ? "no free name (NAME.1 ... NAME.99 all exist)" : "refusing to overwrite an existing file"): \(error.message)")
            }
            throw mapped(error)
        case .success(let path):
            if options.remoteTime, let head = result.head, let text = head.headers.first(name: "Last-Modified"),
               let seconds = CurlDate.parse(text) {
                _ = await BlockingIOThread.shared.run { () -> Bool in (try? File.setTimes(atPath: path, to: seconds)) != nil }
            }
            if let head = result.head, options.failWithBody, head.status >= 400 { throw fail(for: head.status) }
        }
    }

    /// The resume record for FILE: its size, and the validator an earlier run saved.
    private func resumeRecord(for request: HTTPRequest, at path: String) -> ResumeData? {
        guard let size = try? File.size(atPath: path), size > 0 else { return nil }
        var entityTag: String?
        var lastModified: String?
        var total: UInt64?
        if let bytes = try? File.extendedAttribute(validatorAttribute, atPath: path) {
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            if let validator = lines.first, !validator.isEmpty {
                if validator.hasPrefix("\"") || validator.hasPrefix("W/") { entityTag = String(validator) } else { lastModified = String(validator) }
            }
            if lines.count > 1 { total = UInt64(lines[1]) }
        }
        return ResumeData(url: request.uri.description, entityTag: entityTag, lastModified: lastModified,
                          bytesOnDisk: UInt64(size), partialPath: path, totalLength: total)
    }

    /// Keeps the response's validator and total length on FILE for the next `-C -`.
    private func saveValidator(_ head: HTTPResponseHead, at path: String) {
        guard (try? File.size(atPath: path)) != nil else { return }
        let validator = head.headers.first(name: "ETag") ?? head.headers.first(name: "Last-Modified") ?? ""
        var total = ""
        if head.status == 206, let range = head.headers.first(name: "Content-Range"), let slash = range.lastIndex(of: "/") {
            let text = range[range.index(after: slash)...]
            if UInt64(text) != nil { total = String(text) }
        } else if head.status == 200, let length = head.headers.first(name: "Content-Length"), UInt64(length) != nil {
            total = length
        }
        // Without a validator the total alone is kept: a later 206 naming another total is then
        // still caught as a mismatch.
        guard !validator.isEmpty || !total.isEmpty else {
            try? File.removeExtendedAttribute(validatorAttribute, atPath: path)
            return
        }
        try? File.setExtendedAttribute(validatorAttribute, value: Array((validator + "\n" + total).utf8), atPath: path)
    }

    // MARK: --json-response

    private func jsonTransfer(_ request: HTTPRequest, observed: ObservedEvents, values: inout WriteOutValues) async throws(CLIError) {
        // A document, not a tree: the output is written from its tape in 64 KiB pieces, so a large
        // body costs the body plus its tape (a fraction of it), not a tree many times its size.
        let serializer = JSONDocumentResponseSerializer(removesKeysWithNullValues: options.sanitizeNulls)
        let task = session.dataTask(with: request, serializer: serializer)
        task.setObserver(observed.observe)
        if let slot = observed.progress { task.setProgressHandler(upload: slot.upload, download: slot.download) }
        let token = control.track(task)
        defer { control.untrack(token) }
        task.resume()
        let response = await task.response
        fill(&values, response.metrics)
        if let head = response.head {
            values.httpCode = head.status
            values.contentType = head.headers.first(name: "Content-Type") ?? ""
            values.responseHeaders = head.headers
        }
        switch response.result {
        case .failure(let error):
            throw mapped(error)
        case .success(let document):
            if options.include { for head in observed.heads { try await writeStdout(Trace.headText(head)) } }
            guard let document else { return }
            // The writer's callback is synchronous: the whole document is written on the standard
            // output thread, piece by piece, so a slow reader never blocks a thread of the pool.
            do {
                try await StandardOutput.run { () throws(Errno) in
                    try JSONWriter.write(document.root) { (chunk) throws(Errno) in
                        try StandardStreams.writeOutput(chunk)
                    }
                    try StandardStreams.writeOutput("\n")
                }
            } catch {
                throw CLIError.writeFailure
            }
        }
    }

    // MARK: Metrics

    private func fill(_ values: inout WriteOutValues, _ metrics: TaskMetrics) {
        values.numConnects = metrics.connectCount
        values.numRedirects = metrics.redirectCount
        values.httpConnect = metrics.proxyConnectStatus ?? 0
        values.sizeDownload = metrics.bytesReceived
        values.sizeUpload = metrics.bytesSent
        values.timeTotal = metrics.totalDuration
        values.urlEffective = metrics.effectiveURL
        if let last = metrics.transactions.last {
            values.timeNameLookup = last.dns ?? .zero
            values.timeConnect = (last.dns ?? .zero) + (last.connect ?? .zero)
            values.timeAppConnect = last.tlsHandshake.map { values.timeConnect + $0 } ?? .zero
            values.timePreTransfer = last.requestSent ?? .zero
            values.timeStartTransfer = last.firstByte ?? .zero
        }
    }

    /// The error line's text: the session's message, with the URL when it helps.
    private func message(for error: SessionError) -> String {
        if error.curlExitCode == 23 { return "Failure writing output to destination: " + error.message }
        if let connection = error.connectionError {
            switch error.curlExitCode {
            case 6: return "Could not resolve host: \(hostOf(error))"
            case 7: return "Failed to connect: \(connection.message)"
            case 28 where connection.code == .transferTooSlow: return connection.message
            case 28: return "Operation timed out: \(connection.message)"
            case 52: return "Empty reply from server"
            // curl's words, with the system's reason when there is one.
            case 55: return "Failed sending data to the peer" + (connection.errno.map { ": \($0.message)" } ?? "")
            case 56 where connection.errno != nil: return "Recv failure: \(connection.errno!.message)"
            default: return error.message
            }
        }
        return error.message
    }

    private func hostOf(_ error: SessionError) -> String {
        guard let url = error.url, let uri = try? URI(parsing: url) else { return "?" }
        return uri.host?.text ?? "?"
    }
}
