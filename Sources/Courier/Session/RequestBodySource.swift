// RequestBodySource: a request body as the segments that go on the wire, produced off the
// cooperative pool (design §4). Opening and reading files, checking a multipart file part's size,
// and reading a caller's stream may each block — on a slow disk, or without end on a pipe — so
// they run on a blocking-I/O thread and the transfer awaits them. Files use the process's shared
// thread; a body with a stream gets a thread of its own, stopped when the body ends, because a
// stream can wait forever (standard input, a FIFO) and must not hold up other transfers' file
// writes queued behind it. An asynchronous stream (`AsyncBodyStream`) is awaited where it is.
//
// The live exchange (`Transfer.sendBody`) and `Session.renderedRequest` both consume this one
// source, so what `--offline` prints and what the wire carries are the same bytes by construction
// (they drifted apart twice when each walked the body its own way).

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPosix

/// A request body, segment by segment.
final class RequestBodySource {
    /// One piece of the body.
    enum Segment {
        /// Bytes as they go out (one chunk each when the body is sent chunked).
        case bytes(ByteBuffer)
        /// A range of an open file, for `sendfile`; only when the consumer asked for ranges.
        case fileRange(File, path: String, offset: Int64, count: Int)

        var count: Int {
            switch self {
            case .bytes(let bytes): return bytes.readableBytes
            case .fileRange(_, _, _, let count): return count
            }
        }
    }

    private enum State {
        case bytes(ByteBuffer)
        /// `file` is the descriptor the length was measured on (`MeasuredBody`); it is shared
        /// with later attempts of the same request, so the source never closes it.
        case file(path: String, total: UInt64, file: File?, offset: UInt64)
        case stream(total: UInt64?, any MultipartStream, reader: (any MultipartStreamReader)?, sent: UInt64)
        case asyncStream(total: UInt64?, any AsyncBodyStream, reader: (any AsyncBodyReader)?, sent: UInt64)
        case multipart(MultipartForm, MultipartBodyStream?, pending: [MultipartSegment], hasStreams: Bool,
                       open: (path: String, file: File)?)
        case done
    }

    private var state: State
    private let url: String
    /// The thread a stream body is read on; made on first use, stopped by `close()`.
    private var streamThread: BlockingIOThread?
    /// A multipart form's bandwidth limit, when it has one and the body goes on the wire.
    private let throttle: MultipartThrottle?
    /// When the first paced byte was handed over, and how many have been since.
    private var pacingStart: ContinuousClock.Instant?
    private var pacedBytes: UInt64 = 0

    /// The most bytes in one segment read into memory (a stream read is at most 64 KiB, one
    /// chunk on the wire).
    static let segmentSize = 256 * 1024
    /// The most bytes in one file range handed to `sendfile`.
    static let rangeSize = 1 << 20

    /// - Parameters:
    ///   - body: the request's body.
    ///   - measured: its length as the head declares it and, for a file, the descriptor that
    ///     length was taken from (the body must keep to it).
    ///   - url: the redacted URL, for error messages.
    ///   - paced: whether a form's `throttle` applies (the wire: yes; a rendering: no).
    init(_ body: HTTPRequest.Body, measured: MeasuredBody, url: String, paced: Bool = true) {
        let length = measured.length
        self.url = url
        if paced, case .multipart(let form) = body { throttle = form.throttle } else { throttle = nil }
        let total: UInt64?
        if case .known(let n) = length { total = n } else { total = nil }
        switch body {
        case .none: state = .done
        case .bytes(let buffer): state = buffer.readableBytes > 0 ? .bytes(buffer) : .done
        case .file(let path): state = .file(path: path, total: total ?? 0, file: measured.file, offset: 0)
        case .stream(_, let stream): state = .stream(total: total, stream, reader: nil, sent: 0)
        case .asyncStream(_, let stream): state = .asyncStream(total: total, stream, reader: nil, sent: 0)
        case .multipart(let form):
            let hasStreams = form.parts.contains { if case .stream = $0.body { return true } else { return false } }
            state = .multipart(form, nil, pending: [], hasStreams: hasStreams, open: nil)
        }
    }

    deinit { close() }

    /// Closes the open file and stops the stream's thread; idempotent.
    func close() {
        switch state {
        case .multipart(_, _, _, _, let open): try? open?.file.close()
        default: break
        }
        state = .done
        streamThread?.stop()
        streamThread = nil
    }

    /// The next segment, or nil at the end of the body.
    /// - Parameter fileRanges: true when the consumer sends file ranges itself (`sendfile` on a
    ///   plain connection); false to get every byte in memory (TLS, the offline rendering).
    /// - Throws: `SessionError` `.fileReadFailed` when a file or stream cannot be read, is shorter
    ///   or longer than declared, or changed size while it was sent.
    func next(fileRanges: Bool) async throws(SessionError) -> Segment? {
        switch state {
        case .done:
            return nil
        case .bytes(var buffer):
            let slice = buffer.readSlice(length: min(buffer.readableBytes, Self.segmentSize))!
            state = buffer.readableBytes > 0 ? .bytes(buffer) : .done
            return .bytes(slice)
        case .file(let path, let total, let open, let offset):
            return try await nextOfFile(path: path, total: total, open: open, offset: offset, fileRanges: fileRanges)
        case .stream(let total, let stream, let reader, let sent):
            return try await nextOfStream(total: total, stream: stream, reader: reader, sent: sent)
        case .asyncStream(let total, let stream, let reader, let sent):
            return try await nextOfAsyncStream(total: total, stream: stream, reader: reader, sent: sent)
        case .multipart(let form, let stream, let pending, let hasStreams, let open):
            let segment = try await nextOfForm(form, stream: stream, pending: pending, hasStreams: hasStreams, open: open,
                                               fileRanges: fileRanges)
            if let throttle, let segment { await pace(segment.count, throttle) }
            return segment
        }
    }

    /// Waits, asynchronously, until handing over `count` more bytes keeps to the form's rate
    /// (AFNetworking sleeps its stream's thread instead; here no thread is held).
    private func pace(_ count: Int, _ throttle: MultipartThrottle) async {
        let clock = ContinuousClock()
        let start = pacingStart ?? clock.now
        pacingStart = start
        pacedBytes += UInt64(count)
        let wait = throttle.delay(afterSending: pacedBytes, elapsed: clock.now - start)
        // Cancellation ends the wait early; the transfer notices it at its next step.
        if wait > .zero { try? await Task.sleep(for: wait) }
    }

    // MARK: A file

    private func nextOfFile(path: String, total: UInt64, open: File?, offset: UInt64,
                            fileRanges: Bool) async throws(SessionError) -> Segment? {
        if offset >= total {
            // The descriptor is not closed here: later attempts of the request share it, and it
            // closes when the last holder lets it go.
            state = .done
            return nil
        }
        let file: File
        if let open { file = open } else {
            do { file = try await BlockingIOThread.shared.run { () throws(Errno) in try File.open(path) } } catch {
                state = .done
                var failure = SessionError(.fileReadFailed, "cannot open the upload file \(path): \(error)", url: url)
                failure.errno = error
                throw failure
            }
        }
        let count = Int(min(total - offset, UInt64(fileRanges ? Self.rangeSize : Self.segmentSize)))
        state = .file(path: path, total: total, file: file, offset: offset + UInt64(count))
        if fileRanges { return .fileRange(file, path: path, offset: Int64(offset), count: count) }
        return .bytes(try await read(file, path: path, offset: Int64(offset), count: count))
    }

    /// Reads exactly `count` bytes of `file` at `offset` on the shared blocking-I/O thread.
    private func read(_ file: File, path: String, offset: Int64, count: Int) async throws(SessionError) -> ByteBuffer {
        let chunk: ByteBuffer
        do {
            chunk = try await BlockingIOThread.shared.run { () throws(Errno) -> ByteBuffer in
                var chunk = ByteBuffer(capacity: count)
                var at = offset
                while chunk.readableBytes < count {
                    let n = try file.read(into: &chunk, maxBytes: count - chunk.readableBytes, at: at)
                    if n == 0 { break }
                    at += Int64(n)
                }
                return chunk
            }
        } catch {
            close()
            var failure = SessionError(.fileReadFailed, "reading \(path) failed: \(error)", url: url)
            failure.errno = error
            throw failure
        }
        if chunk.readableBytes < count {
            close()
            throw SessionError(.fileReadFailed, "\(path) became shorter while it was sent", url: url)
        }
        return chunk
    }

    // MARK: A stream

    private func nextOfStream(total: UInt64?, stream: any MultipartStream, reader: (any MultipartStreamReader)?,
                              sent: UInt64) async throws(SessionError) -> Segment? {
        let thread = try ownThread()
        // The reader moves to the stream's thread and back with each read: one read at a time,
        // and the transfer awaits each, so the reader is never used from two threads at once.
        let outcome = await thread.run { () -> Result<(ByteBuffer, any MultipartStreamReader), StreamFailure> in
            var current: any MultipartStreamReader
            if let reader { current = reader } else {
                do { current = try stream.makeReader() } catch { return .failure(.start(error)) }
            }
            var chunk = ByteBuffer()
            do {
                _ = try chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { raw in
                    try current.read(into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(64 * 1024)))
                }
            } catch {
                return .failure(.read(error))
            }
            return .success((chunk, current))
        }
        switch outcome {
        case .failure(let failure):
            throw self.failure(failure)
        case .success(let (chunk, current)):
            guard try checked(chunk, total: total, sent: sent) else { return nil }
            state = .stream(total: total, stream, reader: current, sent: sent + UInt64(chunk.readableBytes))
            return .bytes(chunk)
        }
    }

    /// The next chunk of an asynchronous stream: produced by async code, so awaited here (an
    /// empty chunk is skipped: on a chunked body it would read as the end).
    private func nextOfAsyncStream(total: UInt64?, stream: any AsyncBodyStream, reader: (any AsyncBodyReader)?,
                                   sent: UInt64) async throws(SessionError) -> Segment? {
        var current: any AsyncBodyReader
        if let reader { current = reader } else {
            do { current = try stream.makeAsyncReader() } catch { throw failure(.start(error)) }
        }
        while true {
            let chunk: ByteBuffer?
            do { chunk = try await current.next() } catch { throw failure(.read(error)) }
            guard let chunk else {
                _ = try checked(ByteBuffer(), total: total, sent: sent)  // the end: throws when short
                return nil
            }
            if chunk.readableBytes == 0 { continue }
            guard try checked(chunk, total: total, sent: sent) else { return nil }
            state = .asyncStream(total: total, stream, reader: current, sent: sent + UInt64(chunk.readableBytes))
            return .bytes(chunk)
        }
    }

    private enum StreamFailure: Error { case start(any Error), read(any Error) }

    /// The session error for a stream that could not start or be read; the body ends.
    private func failure(_ failure: StreamFailure) -> SessionError {
        close()
        var error: SessionError
        switch failure {
        case .start(let cause):
            error = SessionError(.fileReadFailed, "the upload stream cannot start: \(cause)", url: url)
            error.underlying = cause
        case .read(let cause):
            error = SessionError(.fileReadFailed, "reading the upload stream failed: \(cause)", url: url)
            error.underlying = cause
        }
        return error
    }

    /// Holds a stream to its declared length: false at its end (an empty `chunk`), after which the
    /// body is closed; throws when it ends short or runs long.
    private func checked(_ chunk: ByteBuffer, total: UInt64?, sent: UInt64) throws(SessionError) -> Bool {
        let n = UInt64(chunk.readableBytes)
        if n == 0 {
            close()
            if let total, sent != total {
                throw SessionError(.fileReadFailed, "the upload stream ended after \(sent) of its declared \(total) bytes", url: url)
            }
            return false
        }
        if let total, sent + n > total {
            close()
            throw SessionError(.fileReadFailed, "the upload stream is longer than its declared \(total) bytes", url: url)
        }
        return true
    }

    /// The stream's own thread, made on first use.
    private func ownThread() throws(SessionError) -> BlockingIOThread {
        if let streamThread { return streamThread }
        do {
            let thread = try BlockingIOThread(name: "courier-upload")
            streamThread = thread
            return thread
        } catch {
            close()
            throw SessionError(.fileReadFailed, "cannot start a thread to read the upload stream: \(error)", url: url)
        }
    }

    // MARK: A multipart form

    private func nextOfForm(_ form: MultipartForm, stream: MultipartBodyStream?, pending: [MultipartSegment], hasStreams: Bool,
                            open: (path: String, file: File)?, fileRanges: Bool) async throws(SessionError) -> Segment? {
        var pending = pending, open = open
        if pending.isEmpty {
            // Segments are made where the form's I/O may happen: a form of bytes alone needs none
            // and is walked here; file parts are checked (stat) on the shared thread, a batch of
            // segments per trip; stream parts are read on the stream's own thread, one per trip.
            var body = stream ?? form.makeBodyStream(fileSystem: PosixFileSystem(mimeTypes: nil))
            // A throttled form goes out in packets of the throttle's size.
            let unit = min(fileRanges ? Self.rangeSize : Self.segmentSize, throttle?.packetSize ?? .max)
            let needsIO = form.parts.contains { if case .bytes = $0.body { return false } else { return true } }
            let batch: Result<(MultipartBodyStream, [MultipartSegment]), MultipartError>
            if !needsIO {
                batch = Self.batch(&body, unit: unit, oneAtATime: false)
            } else {
                let thread = hasStreams ? try ownThread() : BlockingIOThread.shared
                let moving = body
                batch = await thread.run { () -> Result<(MultipartBodyStream, [MultipartSegment]), MultipartError> in
                    var body = moving
                    return Self.batch(&body, unit: unit, oneAtATime: hasStreams)
                }
            }
            switch batch {
            case .failure(let error):
                close()
                throw formFailure(form, error)
            case .success(let (advanced, segments)):
                if segments.isEmpty {
                    close()
                    return nil
                }
                state = .multipart(form, advanced, pending: segments, hasStreams: hasStreams, open: open)
                pending = segments
            }
        }
        guard case .multipart(_, var body, _, _, _) = state else { return nil }
        let segment = pending.removeFirst()
        switch segment {
        case .bytes(let bytes):
            state = .multipart(form, body, pending: pending, hasStreams: hasStreams, open: open)
            return .bytes(bytes)
        case .file(let range):
            if open?.path != range.path {
                let previous = open?.file
                do {
                    let file = try await BlockingIOThread.shared.run { () throws(Errno) -> File in
                        try? previous?.close()
                        return try File.open(range.path)
                    }
                    open = (range.path, file)
                } catch {
                    body?.fileSegmentFailed(range, bytesTransferred: 0, underlying: error)
                    close()
                    var failure = SessionError(.fileReadFailed, "cannot open \(range.path): \(error)", url: url)
                    failure.errno = error
                    throw failure
                }
            }
            state = .multipart(form, body, pending: pending, hasStreams: hasStreams, open: open)
            if fileRanges {
                return .fileRange(open!.file, path: range.path, offset: Int64(range.offset), count: range.length)
            }
            return .bytes(try await read(open!.file, path: range.path, offset: Int64(range.offset), count: range.length))
        }
    }

    /// The most segments made in one trip to the blocking-I/O thread.
    private static let maximumBatch = 64

    /// Segments of at most `unit` bytes from `body`: one when `oneAtATime` (a stream read may
    /// wait), else up to `maximumBatch` of them holding at most `segmentSize` bytes of memory.
    private static func batch(_ body: inout MultipartBodyStream, unit: Int,
                              oneAtATime: Bool) -> Result<(MultipartBodyStream, [MultipartSegment]), MultipartError> {
        var segments: [MultipartSegment] = []
        var bytes = 0
        do throws(MultipartError) {
            while let segment = try body.nextSegment(maxBytes: unit) {
                segments.append(segment)
                if oneAtATime || segments.count >= maximumBatch { break }
                // A file range costs no I/O to make (only a part's start and end stat the
                // file), so ranges are batched: one trip to the thread per 64 of them, not one
                // per MiB. Bytes in memory are bounded by `segmentSize`.
                if case .bytes = segment { bytes += segment.count }
                if bytes >= segmentSize { break }
            }
        } catch {
            return .failure(error)
        }
        return .success((body, segments))
    }

    /// The error for a failed form: it names the file of the part that failed, when there is one.
    private func formFailure(_ form: MultipartForm, _ error: MultipartError) -> SessionError {
        // The connection is closed by the failed exchange: the part stays short, so the server
        // never takes the body for complete. The check before a part is sent sees a shrunken
        // file as often as the send does.
        var what = "a multipart part"
        if let index = error.partIndex, form.parts.indices.contains(index), case .file(let file) = form.parts[index].body {
            what = file.path
        }
        return SessionError(.fileReadFailed, "reading \(what) failed: \(error)", url: url)
    }
}
