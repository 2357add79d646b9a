// NetworkTransfers: the transfers of one command line, on one Session (connections are reused
// between URLs, as curl reuses them).
//
// Per URL, by output:
// - stdout: a StreamTask; body slices are written as they arrive (-i/-I print the heads first,
//   redirect heads included with -L, as curl does);
// - -o FILE: a DownloadTask (temporary file beside FILE, renamed on success, removed on failure);
//   with -C -, a DownloadTask resuming FILE in place (ResumeData.partialPath == FILE) whose
//   validator (ETag or Last-Modified) and total length were kept in FILE's extended attribute
//   `user.courier.validator` by an earlier run;
// - --json-response / --sanitize-nulls: a DataTask with AFNetworking's JSON serializer (as a
//   JSONDocument: no tree); compact JSON and one newline on success, nothing on stdout on
//   failure. Any JSON value is accepted at the top level (`null` prints `null`).
// -f: a status >= 400 prints no body and exits 22. SIGINT, SIGTERM, SIGHUP and SIGQUIT cancel the
// running task (which removes its temporary file; a -C - partial file keeps what arrived) and the
// process ends by the same signal (TransferRunner).

import Courier
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

final class NetworkTransfers: Sendable {
    let options: TransferOptions
    let settings: TransferSettings
    let session: Session
    let progress: ProgressBar?
    private let current = Mutex<(any SessionTask)?>(nil)
    /// The termination signal that arrived (0: none).
    private let signal = Atomic<Int32>(0)

    init(options: TransferOptions, settings: TransferSettings) throws(CLIError) {
        self.options = options
        self.settings = settings
        self.session = Session(configuration: try NetworkTransfers.configuration(options: options, settings: settings))
        let showsBar = !options.silent && (options.progressBar || Terminal.isTerminal(2))
        progress = showsBar ? ProgressBar() : nil
    }

    // MARK: Configuration

    static func configuration(options: TransferOptions, settings: TransferSettings) throws(CLIError) -> SessionConfiguration {
        var c = SessionConfiguration()
        c.defaultHeaders = HTTPHeaders()  // the request carries every field (RequestBuilder)
        c.followsRedirects = options.location
        c.redirectLimit = settings.maxRedirects < 0 ? Int.max : settings.maxRedirects
        if let value = settings.connectTimeout { c.connectTimeout = value }
        if let value = settings.idleTimeout { c.idleTimeout = value }
        c.totalTimeout = settings.maxTime
        c.maximumDownloadSize = settings.maxFilesize
        c.acceptsCompressedResponses = options.compressed
        c.downloadFileMode = settings.createFileMode
        c.allowsInsecureRedirects = false
        if let path = options.caCertificate { c.tls.trustRoots = .pemFile(path: path) }
        if options.insecure { c.tls.certificateVerification = .none }
        var policy: SecurityPolicy?
        if let path = options.pinnedCertificate {
            let certificates: [Certificate]
            do { certificates = try Certificate.certificates(fromPEM: try readInputFile(path).readableBytesArray) } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.usage("--pinnedcert \(path): no certificate could be read (\(error))")
            }
            policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: certificates)
        }
        if let pin = options.pinnedPublicKey {
            var p = policy ?? SecurityPolicy()
            if pin.hasPrefix("sha256//") {
                do { p.pinnedPublicKeys = try PublicKeyPin.parseHashes(pin) } catch {
                    throw CLIError.usage("--pinnedpubkey: \(error.message)")
                }
            } else {
                let bytes = try readInputFile(pin).readableBytesArray
                do { p.pinnedPublicKeys = [try PublicKeyPin(publicKey: bytes)] } catch {
                    throw CLIError.usage("--pinnedpubkey \(pin): not a PEM or DER public key")
                }
            }
            policy = p
        }
        if var p = policy {
            p.allowInvalidCertificates = options.insecure
            p.validatesDomainName = !options.insecure
            c.securityPolicy = p
        }
        for text in options.resolve {
            guard let entry = ResolveOverride(parsing: text) else {
                throw CLIError.usage("--resolve expects HOST:PORT:ADDRESS, not \"\(printable(text))\"")
            }
            c.resolveOverrides.append(entry)
        }
        return c
    }

    // MARK: Transfers

    func perform(_ request: HTTPRequest, index: Int, values: inout WriteOutValues) async throws(CLIError) {
        let observed = ObservedEvents(verbose: options.verbose)
        if options.verbose, let host = request.uri.host, host.unicodeDescription != host.description {
            // DNS, TLS, the Host field and cookies all use the ASCII form (docs/url.md).
            StandardStreams.writeError("* International host name \(host.unicodeDescription) converted to \(host.text)\n")
        }
        progress?.transferStarted()
        defer { progress?.transferEnded() }
        let output = index < options.output.count ? options.output[index] : nil
        do throws(CLIError) {
            if options.jsonResponse || options.sanitizeNulls {
                try await jsonTransfer(request, observed: observed, values: &values)
            } else if let output, output != "-" {
                try await download(request, to: output, observed: observed, values: &values)
            } else {
                try await streamTransfer(request, observed: observed, values: &values)
            }
        } catch {
            observed.fill(&values)
            if let signal = terminationSignal { throw CLIError(128 + signal, "interrupted by signal \(signal)") }
            throw error
        }
        observed.fill(&values)
        if options.verbose, let host = request.uri.host?.text {
            StandardStreams.writeError("* Connection to host \(host) left intact\n")
        }
    }

    /// A termination signal (run on the signal watcher thread, not in a signal handler): cancel
    /// the running task — its temporary file goes before it completes, a -C - partial file keeps
    /// what arrived — and the runner then ends the process by the same signal. With no task
    /// running, end it at once; if the cancellation takes more than two seconds, end it anyway.
    func terminate(by signal: Int32) {
        self.signal.store(signal, ordering: .releasing)
        guard let task = current.withLock({ $0 }) else { ProcessControl.terminate(bySignal: signal) }
        task.cancel()
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

    func finish() async {
        progress?.close()
        await session.finishTasksAndInvalidate()
    }

    private func track(_ task: (any SessionTask)?) { current.withLock { $0 = task } }

    private func fail(for status: Int, url: String) -> CLIError {
        CLIError(22, "The requested URL returned error: \(status)")
    }

    private func mapped(_ error: SessionError) -> CLIError {
        if let signal = terminationSignal { return CLIError(128 + signal, "interrupted by signal \(signal)") }
        return CLIError(Int32(error.curlExitCode), message(for: error))
    }

    private func writeStdout(_ buffer: ByteBuffer) throws(CLIError) {
        do { try StandardStreams.writeOutput(buffer) } catch {
            throw CLIError.writeFailure
        }
    }

    private func writeStdout(_ text: String) throws(CLIError) { try writeStdout(ByteBuffer(string: text)) }

    // MARK: stdout

    private func streamTransfer(_ request: HTTPRequest, observed: ObservedEvents, values: inout WriteOutValues) async throws(CLIError) {
        let task = session.streamTask(with: request)
        task.setObserver(observed.observe)
        if let progress { task.setProgressHandler(upload: nil, download: { progress.update($0) }) }
        track(task)
        defer { track(nil) }
        let response: StreamedResponse
        do { response = try await task.response() } catch {
            values.numConnects = (await task.completedMetrics()).connectCount
            throw mapped(error)
        }
        values.httpCode = response.info.status
        values.contentType = response.head.headers.first(name: "Content-Type") ?? ""
        values.responseHeaders = response.info.headers
        if options.fail && response.info.status >= 400 {
            // The error body is read and dropped (the connection stays reusable); cancelling a
            // stream task whose body is not being read does not complete it (session issue).
            do throws(SessionError) { for try await _ in response.body {} } catch {}
            fill(&values, await task.completedMetrics())
            values.httpCode = response.info.status
            throw fail(for: response.info.status, url: response.url)
        }
        // The first failed write to stdout (the reader went away: EPIPE, SIGPIPE being ignored)
        // cancels the task; the transfer then ends with curl's 23, whatever point of the body
        // it reached, and the next URL is still attempted.
        let output = StdoutWriter(task: task)
        if options.include || options.headOnly {
            for head in observed.heads { output.write(ByteBuffer(string: Trace.headText(head))) }
        }
        do throws(SessionError) {
            for try await slice in response.body {
                if !options.headOnly { output.write(slice) }
            }
        } catch {
            fill(&values, await task.completedMetrics())
            values.httpCode = response.info.status
            if let failure = output.failure, terminationSignal == nil { throw failure }
            throw mapped(error)
        }
        fill(&values, await task.completedMetrics())
        values.httpCode = response.info.status
        if let failure = output.failure { throw failure }
    }

    // MARK: -o FILE

    private func download(_ request: HTTPRequest, to path: String, observed: ObservedEvents, values: inout WriteOutValues) async throws(CLIError) {
        values.filenameEffective = path
        let failOnError = options.fail
        let resuming = settings.resume
        let holder = Mutex<DownloadTask?>(nil)
        let refusedStatus = Atomic<Int>(0)
        let destination: @Sendable (HTTPResponseHead, URI) -> String = { head, _ in
            // A 416 to a resume is the download task's to judge (the file may be complete: curl
            // does not fail on it either).
            if failOnError && head.status >= 400 && !(resuming && head.status == 416) {
                refusedStatus.store(head.status, ordering: .releasing)
                holder.withLock { $0 }?.cancel()
            }
            return path
        }
        if settings.resume {
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
        if settings.resume, let record = resumeRecord(for: request, at: path) {
            var headers = request.headers
            headers.remove(name: "Content-Type")
            task = session.downloadTask(resumingWith: record, headers: headers, destination: destination)
        } else {
            task = session.downloadTask(with: request, keepsPartialData: false, destination: destination)
        }
        holder.withLock { $0 = task }
        task.setObserver(observed.observe)
        if let progress { task.setProgressHandler(upload: nil, download: { progress.update($0) }) }
        track(task)
        defer { track(nil) }
        let result = await task.result()
        fill(&values, result.metrics)
        if let head = result.head {
            values.httpCode = head.status
            values.contentType = head.headers.first(name: "Content-Type") ?? ""
            values.responseHeaders = head.headers
            // The record follows the bytes on disk: it changes only when the response was taken
            // (a refused resume — a mismatch, a 416 — leaves file and record as they were).
            var refusedResume = false
            if case .failure(let error) = result.result { refusedResume = error.code == .resumeMismatch || error.code == .rangeNotSatisfiable }
            if settings.resume && head.status != 416 && !refusedResume { saveValidator(head, at: path) }
        }
        let refused = refusedStatus.load(ordering: .acquiring)
        if refused != 0 { throw fail(for: refused, url: request.uri.redactedDescription) }
        if options.include || options.headOnly {
            for head in observed.heads { try writeStdout(Trace.headText(head)) }
        }
        if case .failure(let error) = result.result { throw mapped(error) }
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
        if let progress { task.setProgressHandler(upload: nil, download: { progress.update($0) }) }
        track(task)
        defer { track(nil) }
        task.resume()
        let response = await task.response()
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
            if options.include { for head in observed.heads { try writeStdout(Trace.headText(head)) } }
            guard let document else { return }
            try JSONWriter.write(document.root) { (chunk) throws(CLIError) in
                var piece = ByteBuffer(capacity: chunk.count)
                piece.writeBytes(chunk)
                try writeStdout(piece)
            }
            try writeStdout("\n")
        }
    }

    // MARK: Metrics

    private func fill(_ values: inout WriteOutValues, _ metrics: TaskMetrics) {
        values.numConnects = metrics.connectCount
        values.numRedirects = metrics.redirectCount
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
            case 28: return "Operation timed out: \(connection.message)"
            case 52: return "Empty reply from server"
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

/// Writes one transfer's body to stdout; the first failure is kept and cancels the task, and
/// nothing more is written.
final class StdoutWriter: Sendable {
    private let task: StreamTask
    private let failed = Mutex<CLIError?>(nil)

    init(task: StreamTask) { self.task = task }

    /// The write failure, once there was one.
    var failure: CLIError? { failed.withLock { $0 } }

    func write(_ buffer: ByteBuffer) {
        guard failure == nil else { return }
        do { try StandardStreams.writeOutput(buffer) } catch {
            failed.withLock { $0 = .writeFailure }
            task.cancel()
        }
    }
}

/// What the observer saw during one task: the -v trace (written at once) and the response heads.
final class ObservedEvents: Sendable {
    private struct State {
        var heads: [ResponseHeadInfo] = []
        var remoteAddress: String?
        var remotePort: UInt16?
        var requestSize: UInt64 = 0
        var headerSize: UInt64 = 0
    }

    private let state = Mutex(State())
    private let verbose: Bool

    init(verbose: Bool) { self.verbose = verbose }

    var heads: [ResponseHeadInfo] { state.withLock { $0.heads } }

    func observe(_ event: TaskEvent) {
        if verbose { StandardStreams.writeError(Trace.text(for: event)) }
        state.withLock { s in
            switch event {
            case .connected(_, let port, let address, _, _):
                s.remoteAddress = address
                s.remotePort = port
            case .responseHead(let info):
                s.heads.append(info)
                s.headerSize += UInt64(Trace.headText(info).utf8.count)
            case .requestHead(let bytes):
                s.requestSize += UInt64(bytes.readableBytes)
            case .redirect:
                break
            }
        }
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
                if last.status / 100 == 3, let location = last.headers.first(name: "Location") { values.redirectURL = location }
            }
        }
    }
}
