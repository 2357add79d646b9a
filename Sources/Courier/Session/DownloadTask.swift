// DownloadTask: a response body written to a file. Nothing is ever half-written at the
// destination (design §6), and nothing is replaced that is not a regular file (OutputFile, the
// rules of curl's -o, shared with the command-line tool):
// - the destination is resolved first: a symbolic link is followed (the link stays); a device, a
//   FIFO, a socket or one of the process's descriptors (/dev/stdout, /dev/fd/N) is written as it
//   is — no temporary file, no rename, no resume data;
// - a regular file (or a new one) is written into a temporary file in its directory and renamed
//   over it only after the last byte (rename is atomic on one file system); a new file gets
//   `SessionConfiguration.downloadFileMode` (0666) less the umask, an existing one keeps its mode
//   and, where allowed, its owner; when the directory is not writable but the file is, the file
//   is written in place;
// - a failed or cancelled download removes its temporary file, or keeps it as resume data when the
//   server gave a validator (ETag / Last-Modified) or `Accept-Ranges: bytes`;
// - a resumed download sends `Range: bytes=N-` (+ `If-Range`), appends only a 206 whose
//   Content-Range starts at N (and names the recorded total) to a regular partial file, restarts
//   into a fresh temporary file on 200, and fails with `.resumeMismatch` otherwise, leaving the
//   partial file as it was. A 416 whose `Content-Range: bytes */N` names exactly the N bytes on
//   disk (and the recorded total, if any) means the partial file is the whole resource: the task
//   succeeds with it, its body ignored (curl takes a 416 to a resume as success too); any other
//   416 is `.rangeNotSatisfiable`.
// - a destination may ask never to replace a file (`DownloadDestination.existingFile`: curl's -J
//   and --no-clobber), to create missing directories (--create-dirs) and to remove a file written
//   in place or resumed when the download fails (--remove-on-error).
// File writes run on `BlockingIOThread`, never on the cooperative pool.

import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierPosix
import CourierURL
import Synchronization

/// The resume record of a partial download (NSURLSessionDownloadTask's resume data, documented
/// and stable): what was asked, what validates it, and where the bytes are.
public struct ResumeData: Sendable, Equatable, Codable {
    /// The URL of the download (after redirects).
    public var url: String
    /// The response's ETag, if any (preferred for If-Range).
    public var entityTag: String?
    /// The response's Last-Modified, if any.
    public var lastModified: String?
    /// How many bytes of the body are in `partialPath`.
    public var bytesOnDisk: UInt64
    /// The file holding the partial body. Equal to the destination: append in place (curl -C -).
    public var partialPath: String
    /// The full body length, when the server named it.
    public var totalLength: UInt64?

    /// Creates a record.
    /// - Parameters:
    ///   - url: the URL.
    ///   - entityTag: the ETag, if any.
    ///   - lastModified: the Last-Modified value, if any.
    ///   - bytesOnDisk: bytes already downloaded.
    ///   - partialPath: where they are.
    ///   - totalLength: the full length, if known.
    public init(url: String, entityTag: String? = nil, lastModified: String? = nil, bytesOnDisk: UInt64,
                partialPath: String, totalLength: UInt64? = nil) {
        self.url = url
        self.entityTag = entityTag
        self.lastModified = lastModified
        self.bytesOnDisk = bytesOnDisk
        self.partialPath = partialPath
        self.totalLength = totalLength
    }

    /// The record as JSON text (keys: url, entityTag, lastModified, bytesOnDisk, partialPath,
    /// totalLength).
    /// - Returns: the JSON text.
    public func encoded() -> String {
        let bytes = (try? CourierJSONEncoder().encode(self)) ?? []
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Reads a record written by `encoded()`.
    /// - Parameter encoded: the JSON text.
    /// - Throws: `SessionError.resumeMismatch` when the text is not a record.
    public init(encoded: String) throws(SessionError) {
        do { self = try CourierJSONDecoder().decode(ResumeData.self, from: encoded) } catch {
            throw SessionError(.resumeMismatch, "the resume data is not valid: \(error)")
        }
    }

    /// The validator for If-Range: the ETag when it is strong, else Last-Modified (RFC 9110
    /// §13.1.5: a weak ETag cannot be used).
    public var ifRangeValidator: String? {
        if let entityTag, !entityTag.hasPrefix("W/") { return entityTag }
        return lastModified
    }
}

/// Where a download goes and how: the path, and what to do about what is already there.
public struct DownloadDestination: Sendable {
    /// The file (or device, FIFO, /dev/stdout) to write.
    public var path: String
    /// What happens to an existing regular file of that name: replaced on success (default),
    /// kept with the download failing (`.keep`), or kept with the download taking NAME.N.
    public var existingFile: ExistingFilePolicy
    /// Whether missing directories of the path are created (mode 0750 less the umask, as curl's
    /// --create-dirs), when the response arrives.
    public var createsDirectories: Bool
    /// Whether a failed download removes the file it wrote in place (a regular file in a
    /// directory that cannot take a temporary file) or appended to (a resumed download), as
    /// curl's --remove-on-error; otherwise that file keeps what arrived.
    public var removesPartialFileOnFailure: Bool
    /// Bytes written to the file before the body (curl's `-i -o FILE` puts the response heads
    /// there); nil or empty for none. They are not counted as body bytes.
    public var leadingBytes: ByteBuffer?

    /// Creates a destination.
    /// - Parameters:
    ///   - path: the file.
    ///   - existingFile: what to do about an existing file (default: replace it on success).
    ///   - createsDirectories: whether missing directories are created (default false).
    ///   - removesPartialFileOnFailure: whether a failure removes a file written in place or
    ///     resumed (default false).
    ///   - leadingBytes: bytes written before the body (default none).
    public init(path: String, existingFile: ExistingFilePolicy = .replace, createsDirectories: Bool = false,
                removesPartialFileOnFailure: Bool = false, leadingBytes: ByteBuffer? = nil) {
        self.path = path
        self.leadingBytes = leadingBytes
        self.existingFile = existingFile
        self.createsDirectories = createsDirectories
        self.removesPartialFileOnFailure = removesPartialFileOnFailure
    }
}

/// A parsed `Content-Range: bytes first-last/total` (RFC 9110 §14.4).
struct ContentRange: Equatable {
    var first: UInt64
    var last: UInt64
    var total: UInt64?

    init?(_ value: String) {
        var text = Substring(value)
        guard text.hasPrefix("bytes ") else { return nil }
        text = text.dropFirst(6)
        guard let slash = text.firstIndex(of: "/"), let dash = text.firstIndex(of: "-"), dash < slash else { return nil }
        guard let first = UInt64(text[..<dash]), let last = UInt64(text[text.index(after: dash)..<slash]), first <= last else { return nil }
        let totalText = text[text.index(after: slash)...]
        if totalText == "*" {
            total = nil
        } else {
            guard let total = UInt64(totalText), last < total else { return nil }
            self.total = total
        }
        self.first = first
        self.last = last
    }

    /// The complete length of `bytes */N` (RFC 9110 §14.4 `unsatisfied-range`, sent with a 416).
    static func unsatisfiedLength(_ value: String) -> UInt64? {
        guard value.hasPrefix("bytes */") else { return nil }
        return UInt64(value.dropFirst(8))
    }
}

/// Writes the body to a file, per the rules at the top of this file.
final class FileSink: ResponseSink {
    private struct State {
        var output: OutputFile?
        var destination: String?
        var removesOnFailure = false
        var head: HTTPResponseHead?
        var url: String = ""
        var entityTag: String?
        var lastModified: String?
        var total: UInt64?
        var resumable = false
        var resumeData: ResumeData?
        var finalPath: String?
    }
    private let state = Mutex(State())
    let resume: ResumeData?
    let keepsPartialData: Bool
    let createMode: UInt32
    let destination: @Sendable (HTTPResponseHead, URI) -> DownloadDestination
    let onMoved: @Sendable (String) -> Void
    /// Told when the file could not be committed to its destination (moved into place, or
    /// closed where it was written).
    let onMoveFailed: @Sendable (SessionError) -> Void

    init(resume: ResumeData?, keepsPartialData: Bool, createMode: UInt32,
         destination: @escaping @Sendable (HTTPResponseHead, URI) -> DownloadDestination,
         onMoved: @escaping @Sendable (String) -> Void, onMoveFailed: @escaping @Sendable (SessionError) -> Void = { _ in }) {
        self.onMoveFailed = onMoveFailed
        self.resume = resume
        self.keepsPartialData = keepsPartialData
        self.createMode = createMode
        self.destination = destination
        self.onMoved = onMoved
    }

    var head: HTTPResponseHead? { state.withLock { $0.head } }

    /// A regular-file output takes spliced bytes (the transfer moves them in the kernel).
    var spliceOutput: OutputFile? {
        state.withLock { s in s.output.flatMap { $0.acceptsSplice ? $0 : nil } }
    }
    var resumeData: ResumeData? { state.withLock { $0.resumeData } }
    var finalPath: String? { state.withLock { $0.finalPath } }

    func begin(_ head: HTTPResponseHead, request: HTTPRequest) async throws(SessionError) {
        let url = request.uri.redactedDescription
        // Kept before any check, so a refused response (416, a mismatch) is still reported.
        state.withLock { $0.head = head }
        let placement = destination(head, request.uri)
        let target = placement.path
        let entityTag = head.headers.first(name: "ETag")
        let lastModified = head.headers.first(name: "Last-Modified")
        let acceptsRanges = head.headers.first(name: "Accept-Ranges").map { HTTPHeaders.namesEqual($0, "bytes") } ?? false
        let announced = head.headers.first(name: "Content-Length").flatMap { UInt64($0) }

        var appendAt: UInt64?
        var total = announced
        if let resume, resume.bytesOnDisk > 0 {
            switch head.status {
            case 206:
                guard let range = head.headers.first(name: "Content-Range").flatMap(ContentRange.init) else {
                    throw SessionError(.resumeMismatch, "the 206 response has no valid Content-Range", url: url)
                }
                guard range.first == resume.bytesOnDisk else {
                    throw SessionError(.resumeMismatch, "the server resumed at byte \(range.first), not at \(resume.bytesOnDisk)", url: url)
                }
                if let expected = resume.totalLength, let got = range.total, expected != got {
                    throw SessionError(.resumeMismatch, "the resource's length changed from \(expected) to \(got) bytes", url: url)
                }
                appendAt = resume.bytesOnDisk
                total = range.total
            case 200:
                break  // the server sent the whole resource: start again in a fresh file
            case 416:
                let length = head.headers.first(name: "Content-Range").flatMap(ContentRange.unsatisfiedLength)
                if let length, length == resume.bytesOnDisk, resume.totalLength.map({ $0 == length }) ?? true {
                    try await completeWithPartialFile(resume, target: target, replacing: placement.existingFile == .replace, url: url)
                    return
                }
                throw SessionError(.rangeNotSatisfiable, "the server cannot resume at byte \(resume.bytesOnDisk) (416"
                                   + (length.map { ", the resource has \($0) bytes" } ?? "") + ")", url: url)
            default:
                throw SessionError(.resumeMismatch, "the server answered the resume request with \(head.status)", url: url)
            }
        }
        // The destination closure may have cancelled the task (curl's -f refuses a 4xx there):
        // nothing is opened then, so a file written in place is not truncated for nothing.
        if Task.isCancelled { throw SessionError(.cancelled, "the task was cancelled", url: url) }

        let output: OutputFile
        if let appendAt, let partialPath = resume?.partialPath {
            let partial = try await Self.io(url: url, path: partialPath) { () throws(Errno) in try OutputTarget.resolve(partialPath) }
            guard case .regularFile = partial.kind else {
                throw SessionError(.invalidDestination, "cannot resume the download in \(partialPath): it is \(partial.kindDescription); "
                                   + "only a regular file holds a partial download", url: url)
            }
            // The partial file is the destination (curl -C -), or a kept temporary file moved to
            // the destination at the end, which must then be a regular file or a new one.
            var destinationTarget: OutputTarget?
            if target != partialPath {
                let resolved = try await Self.io(url: url, path: target) { () throws(Errno) in try OutputTarget.resolve(target) }
                if resolved.resolvedPath != partial.resolvedPath {
                    guard resolved.isResumable else {
                        throw SessionError(.invalidDestination, "cannot complete the resumed download at \(target): it is "
                                           + "\(resolved.kindDescription); only a regular file can take the partial file's place", url: url)
                    }
                    destinationTarget = resolved
                }
            }
            let destination = destinationTarget
            output = try await Self.io(url: url, path: partialPath) { () throws(Errno) in
                try OutputFile.append(to: partial, at: Int64(appendAt), movingTo: destination)
            }
        } else {
            output = try await Self.open(target, mode: createMode, url: url, existing: placement.existingFile,
                                         createsDirectories: placement.createsDirectories)
        }
        let appending = output.strategy == .append
        state.withLock { s in
            s.output = output
            s.destination = target
            s.removesOnFailure = placement.removesPartialFileOnFailure
            s.head = head
            s.url = url
            s.entityTag = entityTag ?? (appending ? resume?.entityTag : nil)
            s.lastModified = lastModified ?? (appending ? resume?.lastModified : nil)
            s.total = total ?? ((appending ? nil : announced))
            s.resumable = entityTag != nil || lastModified != nil || acceptsRanges || appending
        }
        if let leading = placement.leadingBytes, leading.readableBytes > 0 { try await write(leading) }
    }

    /// The partial file already holds the whole resource (a 416 naming its size): it becomes the
    /// result — in place, or renamed to the destination when that is another path — and the 416's
    /// body is dropped (no output is open, so `write` ignores it).
    private func completeWithPartialFile(_ resume: ResumeData, target: String, replacing: Bool, url: String) async throws(SessionError) {
        let partialPath = resume.partialPath
        let moved = try await Self.io(url: url, path: target) { () throws(Errno) -> Bool in
            let partial = try OutputTarget.resolve(partialPath)
            guard case .regularFile = partial.kind else { throw Errno.noSuchFileOrDirectory }
            let destination = try OutputTarget.resolve(target)
            if destination.resolvedPath == partial.resolvedPath { return false }
            // Another file there is replaced only when the destination allows it (not -J or
            // --no-clobber), and only a regular file or a new one (as a completed resume).
            guard destination.isResumable, replacing || destination.kind == .newFile else { throw Errno(rawValue: 17) }  // EEXIST
            try File.rename(partial.resolvedPath, to: destination.resolvedPath)
            return true
        }
        state.withLock { s in
            s.url = url
            s.finalPath = target
        }
        if moved { onMoved(target) }
    }

    /// Resolves and opens a fresh destination, in one trip to the file thread. A FIFO with no
    /// reader yet is opened again every 20 ms until one comes (curl blocks in open(2) there),
    /// without holding a thread, and a cancelled task stops waiting.
    static func open(_ path: String, mode: UInt32, url: String, existing: ExistingFilePolicy = .replace,
                     createsDirectories: Bool = false) async throws(SessionError) -> OutputFile {
        enum Attempt: Sendable {
            case opened(OutputFile)
            case directory
            case noReaderYet
            case failed(Errno, OutputTarget?)
        }
        while true {
            let attempt = await BlockingIOThread.shared.run { () -> Attempt in
                if createsDirectories {
                    do throws(Errno) { try File.makeDirectories(OutputTarget.directory(of: path), mode: 0o750) } catch {
                        return .failed(error, nil)
                    }
                }
                let target: OutputTarget
                do throws(Errno) { target = try OutputTarget.resolve(path) } catch { return .failed(error, nil) }
                if target.kind == .directory { return .directory }
                do throws(Errno) { return .opened(try OutputFile.create(for: target, mode: mode, existing: existing)) } catch {
                    if error == .noSuchDeviceOrAddress && target.kind == .special(.fifo) { return .noReaderYet }
                    return .failed(error, target)
                }
            }
            switch attempt {
            case .opened(let output):
                return output
            case .directory:
                var error = SessionError(.invalidDestination, "cannot write the download to \(path): it is a directory", url: url)
                error.errno = .isDirectory
                throw error
            case .noReaderYet:
                do { try await Task.sleep(for: .milliseconds(20)) } catch {
                    throw SessionError(.cancelled, "the task was cancelled", url: url)
                }
            case .failed(let error, let target):
                throw fileError(error, path: path, target: target, url: url)
            }
        }
    }

    func write(_ bytes: ByteBuffer) async throws(SessionError) {
        let (output, url, path) = state.withLock { ($0.output, $0.url, $0.destination ?? "") }
        guard let output else { return }
        if output.neverBlocks {
            // /dev/null and its kind take every write at once: no trip to the file thread (with
            // `-o /dev/null` per URL, the trips were most of a small download's cost).
            do throws(Errno) { _ = try output.write(bytes) } catch {
                throw Self.fileError(error, path: path, target: output.target, url: url)
            }
            return
        }
        var rest = bytes
        while true {
            let chunk = rest
            let taken = try await Self.io(url: url, path: path) { () throws(Errno) in try output.write(chunk) }
            rest.moveReaderIndex(forwardBy: taken)
            if rest.readableBytes == 0 { return }
            // A FIFO whose reader is behind: wait in slices of 100 ms, so a cancelled task stops.
            if Task.isCancelled { throw SessionError(.cancelled, "the task was cancelled", url: url) }
            _ = await BlockingIOThread.shared.run { output.waitUntilWritable(milliseconds: 100) }
        }
    }

    func finish() async throws(SessionError) {
        let (output, target, url) = state.withLock { ($0.output, $0.destination, $0.url) }
        guard let output, let target else { return }
        // A resume answered with 200 restarted into a fresh file: the old partial file is now
        // superseded and goes, unless it is the destination (replaced by the rename).
        let supersededPartial = resume.flatMap { r -> String? in
            output.strategy != .append && r.partialPath != target && r.partialPath != output.target.resolvedPath ? r.partialPath : nil
        }
        // Renamed into place (a temporary file, or a partial file completed elsewhere), rather
        // than written where it already was.
        let moved = output.movesIntoPlace
        do throws(SessionError) {
            if output.neverBlocks && supersededPartial == nil {
                // Committing a device written directly is closing it: nothing that blocks.
                do throws(Errno) { try output.commit() } catch { throw Self.fileError(error, path: target, target: output.target, url: url) }
            } else {
                try await Self.io(url: url, path: target) { () throws(Errno) in
                    try output.commit()
                    if let supersededPartial { try? File.remove(supersededPartial) }
                }
            }
        } catch {
            onMoveFailed(error)
            throw error
        }
        let final = output.committedPath ?? target
        state.withLock { s in
            s.output = nil
            s.finalPath = final
        }
        if moved { onMoved(final) }
    }

    func abort(_ error: SessionError, begun: Bool) async {
        let snapshot = state.withLock { s -> State in
            let copy = s
            s.output = nil
            return copy
        }
        guard let output = snapshot.output else { return }
        let offset = output.offset
        let keep: Bool
        switch output.strategy {
        case .append: keep = true
        case .replace, .inPlace: keep = keepsPartialData && snapshot.resumable && offset > 0
        case .direct: keep = false
        }
        // --remove-on-error: a file written in place or appended to goes instead of keeping
        // what arrived (a temporary file goes anyway; a device is not a file to remove).
        let removes = snapshot.removesOnFailure && (output.strategy == .inPlace || output.strategy == .append)
        let partialPath = await BlockingIOThread.shared.run { () -> String? in
            if removes {
                output.discard()
                try? File.remove(output.target.resolvedPath)
                return nil
            }
            if keep { return output.keepPartial() }
            output.discard()
            return nil
        }
        if let partialPath {
            let record = ResumeData(url: snapshot.url, entityTag: snapshot.entityTag, lastModified: snapshot.lastModified,
                                    bytesOnDisk: UInt64(offset), partialPath: partialPath, totalLength: snapshot.total)
            state.withLock { $0.resumeData = record }
        }
    }

    static func io<T: Sendable>(url: String, path: String, _ body: @escaping @Sendable () throws(Errno) -> T) async throws(SessionError) -> T {
        do {
            return try await BlockingIOThread.shared.run(body)
        } catch {
            throw fileError(error, path: path, target: nil, url: url)
        }
    }

    /// A failed file operation as a session error naming the file and, for a special file, what
    /// it is.
    static func fileError(_ error: Errno, path: String, target: OutputTarget?, url: String) -> SessionError {
        var what = path
        if let target, target.isWrittenDirectly { what += " (\(target.kindDescription))" }
        var failure = SessionError(.fileWriteFailed, "writing the download to \(what) failed: \(error)", url: url)
        failure.errno = error
        return failure
    }
}

/// A task that downloads to a file. Its outcome reads as every task's does (`ResponseTask`):
/// `try await task.value` is the file's final path; `await task.response` adds the head, the
/// error and, after a failure that kept bytes, the `resumeData` to continue from.
public final class DownloadTask: TaskCoreOwner, ResponseTask, Sendable {
    let core: TaskLifecycle
    private let outcome = OnceValue<TaskResponse<String>>()

    /// A task that has already failed with `error` before anything was sent (a resume record
    /// whose URL does not parse).
    init(session: SessionState, failing error: SessionError, resume: ResumeData?) {
        LiveObjects.created(.task)
        core = TaskLifecycle(identifier: session.refusedIdentifier())
        outcome.set(TaskResponse(head: nil, result: .failure(error), metrics: TaskMetrics(effectiveURL: ""), resumeData: resume))
        core.markCompleted()
    }

    init(session: SessionState, request: HTTPRequest, resume: ResumeData?, keepsPartialData: Bool,
         destination: @escaping @Sendable (HTTPResponseHead, URI) -> DownloadDestination) {
        LiveObjects.created(.task)
        let url = request.uri.redactedDescription
        guard let core = session.register() else {
            core = TaskLifecycle(identifier: session.refusedIdentifier())
            outcome.set(TaskResponse(head: nil, result: .failure(SessionError(.invalidated, "the session was invalidated", url: url)),
                                     metrics: TaskMetrics(effectiveURL: url), resumeData: resume))
            core.markCompleted()
            return
        }
        self.core = core
        let outcome = self.outcome
        var request = request
        let isRange = (resume?.bytesOnDisk ?? 0) > 0
        if let resume, resume.bytesOnDisk > 0 {
            // Where curl writes Range: first after Host and the credentials; If-Range after it.
            var fields = request.headers.map { ($0.name, $0.value) }.filter {
                !HTTPHeaders.namesEqual($0.0, "Range") && !HTTPHeaders.namesEqual($0.0, "If-Range")
            }
            var at = 0
            while at < fields.count && (HTTPHeaders.namesEqual(fields[at].0, "Host") || HTTPHeaders.namesEqual(fields[at].0, "Authorization")) {
                at += 1
            }
            var range = [("Range", "bytes=\(resume.bytesOnDisk)-")]
            if let validator = resume.ifRangeValidator { range.append(("If-Range", validator)) }
            fields.insert(contentsOf: range, at: at)
            request.headers = HTTPHeaders(fields)
        }
        let prepared = request
        core.install(work: { core in
            let metrics = MetricsRecorder(url: url, uri: prepared.uri)
            let identifier = core.identifier
            let sink = FileSink(resume: resume, keepsPartialData: keepsPartialData, createMode: session.configuration.downloadFileMode,
                                destination: destination,
                                onMoved: { path in session.post(.downloadMoved(identifier, to: path)) },
                                onMoveFailed: { error in session.post(.downloadMoveFailed(identifier, error: error)) })
            let transfer = Transfer(storage: session, core: core, metrics: metrics, isRangeRequest: isRange)
            let result: TaskResponse<String>
            do throws(SessionError) {
                let final = try await transfer.run(prepared, sink: sink)
                let effectiveURL = metrics.url(of: final.request.uri)
                metrics.update { $0.effectiveURL = effectiveURL }
                result = TaskResponse(head: final.head, result: .success(sink.finalPath ?? ""), metrics: metrics.finish())
            } catch {
                // Resume data: the kept partial file, else the record we started from (untouched).
                result = TaskResponse(head: sink.head, result: .failure(error), metrics: metrics.finish(),
                                      resumeData: sink.resumeData ?? resume)
            }
            // The last progress value and event, and the session's resumed and suspended events,
            // come before completion.
            await core.finishWork()
            let location: String? = if case .success(let path) = result.result { path } else { nil }
            session.taskFinished(identifier, error: result.result.failure, metrics: result.metrics, location: location)
            outcome.set(result)
        }, cancelledBeforeStart: {
            let error = SessionError(.cancelled, "the task was cancelled", url: url)
            core.markCompleted()
            let metrics = TaskMetrics(effectiveURL: url)
            session.taskFinished(core.identifier, error: error, metrics: metrics)
            outcome.set(TaskResponse(head: nil, result: .failure(error), metrics: metrics, resumeData: resume))
        })
    }

    deinit {
        LiveObjects.destroyed(.task)
        // A task nobody resumed and nobody can resume any more (its only handle is going) is
        // cancelled, so the session does not keep it, and an invalidation does not wait for it.
        if !core.hasStarted { core.cancel() }
    }

    /// Resumes the task if it never ran and waits for it to complete: the final path or the
    /// error, the head, the metrics, and resume data after a failure.
    public var response: TaskResponse<String> {
        get async {
            if !core.hasStarted { core.resume() }
            return await outcome.wait()
        }
    }

    /// Calls `handler` with the outcome on `executor` when the task completes (it does not resume
    /// the task).
    /// - Parameters:
    ///   - executor: where the handler runs.
    ///   - handler: the completion handler.
    public func onCompletion(on executor: CallbackExecutor, _ handler: @escaping @Sendable (TaskResponse<String>) -> Void) {
        outcome.whenSet(on: executor, handler)
    }
}
