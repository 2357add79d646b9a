// MultipartBodyStream: AFNetworking's AFMultipartBodyStream + AFHTTPBodyPart — the body of a form
// as a pull state machine.
//
// Every transition lives in this file and in MultipartBodyStream+Segments.swift. Theory of
// operation: a cursor walks the form part by part; each part is its framing (delimiter line, then
// header block, both precomputed in the form's framing buffer), then its body; after the last part
// comes the close delimiter. Bytes leave either by copy (`read(into:)`) or by description
// (`nextSegment(maxBytes:)`: framing and in-memory bodies as shared slices, file bodies as ranges
// the transport sendfiles). Both walk the same states, so they produce the same bytes.
//
//           ┌──────────────────────────── next part ───────────────────────────┐
//           ▼                                                                  │
//   ──▶ boundary(i) ──▶ headers(i) ──▶ [enter body] ──▶ body(i) ──▶ [finish body]
//                                        checks           │              │ checks
//                                                         ▼              ▼ last part
//                                                      failed ◀── finalBoundary ──▶ done
//
// Checks at the edges of a body (why AFNetworking's "wrong length, silently" cannot happen here):
//   - entering a file body: the file's size and identity equal those recorded at append time;
//   - inside: a read that returns 0 before the declared length ends the body with an error;
//   - finishing a file body: size and identity are checked again (a file that grew is caught);
//   - finishing a stream body: one more byte is asked for; getting one means the stream is longer
//     than declared.
//
// Invariants:
//   - `produced` is the number of body bytes handed out, always <= contentLength;
//   - whatever the sequence of read sizes, the bytes handed out are the same;
//   - failed is sticky; only `restart()` starts a new pass (which checks everything again).

import CourierBytes

/// The body of a `MultipartForm`, produced on demand with an exact length, restartable, zero copy.
public struct MultipartBodyStream: Sendable {
    /// Where the stream is, for progress reporting and diagnostics.
    public enum Phase: Sendable, Hashable {
        /// Producing part `part`'s delimiter line (AFNetworking's encapsulation boundary phase).
        case boundary(part: Int)
        /// Producing part `part`'s header block.
        case headers(part: Int)
        /// Producing part `part`'s body.
        case body(part: Int)
        /// Producing the close delimiter.
        case finalBoundary
        /// Every byte has been produced.
        case done
        /// The body failed; `restart()` starts again.
        case failed
    }

    enum State: Sendable {
        /// At framing index `index` of part `part` (delimiter, then headers).
        case lead(part: Int, index: Int)
        /// At byte `offset` of part `part`'s body (entered: checks done, reader made).
        case body(part: Int, offset: UInt64)
        /// At byte `offset` of the close delimiter.
        case close(offset: Int)
        case done
        case failed(MultipartError)
    }

    /// The form this body renders.
    public let form: MultipartForm
    let fileSystem: (any MultipartFileSystem)?
    var state: State
    var reader: (any MultipartStreamReader)?
    var produced: UInt64 = 0
    /// Reused for stream segments and for file bytes written to a sink.
    var scratch = ByteBuffer()

    /// Creates the body of `form`.
    /// - Parameters:
    ///   - form: the form.
    ///   - fileSystem: reads file parts; required when the form has any (a programmer error
    ///     otherwise).
    public init(form: MultipartForm, fileSystem: (any MultipartFileSystem)? = nil) {
        precondition(fileSystem != nil || !form.parts.contains { if case .file = $0.body { return true }; return false },
                     "a form with file parts needs a file system")
        self.form = form
        self.fileSystem = fileSystem
        self.state = form.parts.isEmpty ? .done : .lead(part: 0, index: form.parts[0].leadStart)
    }

    /// The exact number of bytes of the body.
    public var contentLength: UInt64 { form.contentLength }
    /// The number of bytes produced so far in this pass.
    public var bytesProduced: UInt64 { produced }
    /// Whether every byte has been produced.
    public var isFinished: Bool { if case .done = state { return true }; return false }

    /// Where the stream is.
    public var phase: Phase {
        switch state {
        case .lead(let part, let index):
            return index < form.parts[part].headerStart ? .boundary(part: part) : .headers(part: part)
        case .body(let part, _): return .body(part: part)
        case .close: return .finalBoundary
        case .done: return .done
        case .failed: return .failed
        }
    }

    /// The error the body failed with, if it failed.
    public var error: MultipartError? { if case .failed(let error) = state { return error }; return nil }

    /// Starts again from the first byte (for a redirect or an authentication retry). Stream parts
    /// get fresh readers and file parts are checked again.
    public mutating func restart() {
        abandonCurrentPart()
        produced = 0
        state = form.parts.isEmpty ? .done : .lead(part: 0, index: form.parts[0].leadStart)
    }

    // MARK: Reading by copy

    /// Copies the next bytes of the body into `destination`.
    ///
    /// Fills `destination` unless the body ends first; any sequence of sizes gives the same bytes.
    /// - Parameter destination: where to put the bytes.
    /// - Returns: the number of bytes written; 0 only when the body is finished (or `destination`
    ///   is empty).
    /// - Throws: `MultipartError` when a file or stream no longer matches its part; the stream then
    ///   stays failed until `restart()`.
    public mutating func read(into destination: UnsafeMutableRawBufferPointer) throws(MultipartError) -> Int {
        guard let base = destination.baseAddress else {
            if case .failed(let error) = state { throw error }
            return 0
        }
        let capacity = destination.count
        var written = 0
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .done:
                return written
            case .lead(let p, let index):
                let end = form.parts[p].leadEnd
                if index == end {
                    try enterBody(p)
                    continue
                }
                if written == capacity { return written }
                let n = min(end - index, capacity - written)
                form.framing.withUnsafeReadableBytes { framing in
                    // SAFETY: framing's reader index is 0, so absolute index == offset; index + n <= end
                    // <= writerIndex; written + n <= capacity.
                    (base + written).copyMemory(from: framing.baseAddress! + index, byteCount: n)
                }
                written += n
                produced += UInt64(n)
                state = .lead(part: p, index: index + n)
            case .body(let p, let offset):
                let length = form.parts[p].bodyLength
                if offset == length {
                    try finishBody(p)
                    continue
                }
                if written == capacity { return written }
                let n = Int(min(length - offset, UInt64(capacity - written)))
                let region = UnsafeMutableRawBufferPointer(start: base + written, count: n)
                let got = try fillBody(p, offset: offset, into: region)
                written += got
                produced += UInt64(got)
                state = .body(part: p, offset: offset + UInt64(got))
            case .close(let offset):
                let close = form.closeDelimiter
                let end = close.readableBytes
                if written == capacity { return written }
                let n = min(end - offset, capacity - written)
                close.withUnsafeReadableBytes { bytes in
                    // SAFETY: offset + n <= bytes.count; written + n <= capacity.
                    (base + written).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
                }
                written += n
                produced += UInt64(n)
                state = offset + n == end ? .done : .close(offset: offset + n)
            }
        }
    }

    /// Appends up to `maxBytes` next bytes of the body to `buffer`.
    /// - Parameters:
    ///   - buffer: the buffer to append to (it grows as needed).
    ///   - maxBytes: the most bytes to append.
    /// - Returns: the number of bytes appended; 0 only when the body is finished.
    /// - Throws: `MultipartError` as `read(into:)` does.
    @discardableResult
    public mutating func read(into buffer: inout ByteBuffer, maxBytes: Int) throws(MultipartError) -> Int {
        precondition(maxBytes >= 0, "negative maxBytes")
        let want = Int(min(UInt64(maxBytes), contentLength - produced))
        if want == 0 {
            if case .failed(let error) = state { throw error }
            return 0
        }
        return try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { (region) throws(MultipartError) -> Int in
            try self.read(into: UnsafeMutableRawBufferPointer(rebasing: region[0..<want]))
        }
    }

    // MARK: Body edges and fills

    /// Starts part `p`'s body: checks a file, starts a stream.
    mutating func enterBody(_ p: Int) throws(MultipartError) {
        // Switch on the element in place: copying the whole Part would retain all its fields.
        switch form.parts[p].body {
        case .bytes:
            break
        case .file(let file):
            try checkFile(file, part: p)
        case .stream(let stream, _):
            do {
                reader = try stream.makeReader()
            } catch {
                throw fail(.streamFailed, part: p, underlying: error)
            }
        }
        state = .body(part: p, offset: 0)
    }

    /// Ends part `p`'s body: checks a file again, makes sure a stream has nothing more.
    mutating func finishBody(_ p: Int) throws(MultipartError) {
        switch form.parts[p].body {
        case .bytes:
            break
        case .file(let file):
            try checkFile(file, part: p)
            fileSystem!.finishedReading(fileAt: file.path)
        case .stream:
            // One more byte means the stream is longer than its declared length.
            var probe: UInt8 = 0
            let extra: Int
            do {
                extra = try withUnsafeMutableBytes(of: &probe) { try reader!.read(into: $0) }
            } catch {
                throw fail(.streamFailed, part: p, underlying: error)
            }
            if extra > 0 { throw fail(.streamTooLong, part: p) }
            reader = nil
        }
        let next = p + 1
        state = next < form.parts.count ? .lead(part: next, index: form.parts[next].leadStart) : .close(offset: 0)
    }

    /// Copies at least one byte of part `p`'s body at `offset` into `region` (which is no longer
    /// than what remains of the body) and returns how many.
    mutating func fillBody(_ p: Int, offset: UInt64, into region: UnsafeMutableRawBufferPointer) throws(MultipartError) -> Int {
        switch form.parts[p].body {
        case .bytes(let bytes):
            bytes.withUnsafeReadableBytes { source in
                // SAFETY: offset + region.count <= bodyLength == source.count.
                region.baseAddress!.copyMemory(from: source.baseAddress! + Int(offset), byteCount: region.count)
            }
            return region.count
        case .file(let file):
            let got: Int
            do {
                got = try fileSystem!.read(fileAt: file.path, offset: file.offset + offset, into: region)
            } catch {
                throw fail(.fileReadFailed, part: p, underlying: error)
            }
            precondition(got >= 0 && got <= region.count, "file system read outside the buffer")
            // End of file before the declared length: the file shrank since it was appended.
            if got == 0 { throw fail(.fileSizeChanged, part: p) }
            return got
        case .stream:
            let got: Int
            do {
                got = try reader!.read(into: region)
            } catch {
                throw fail(.streamFailed, part: p, underlying: error)
            }
            precondition(got >= 0 && got <= region.count, "stream read outside the buffer")
            if got == 0 { throw fail(.streamEndedEarly, part: p) }
            return got
        }
    }

    /// Compares a file's current attributes with those recorded at append time.
    mutating func checkFile(_ file: MultipartFileRange, part p: Int) throws(MultipartError) {
        let now: MultipartFileAttributes
        do {
            now = try fileSystem!.attributes(ofFileAt: file.path)
        } catch {
            throw fail(.fileUnavailable, part: p, underlying: error)
        }
        if now.size != file.expectedAttributes.size { throw fail(.fileSizeChanged, part: p) }
        if let expected = file.expectedAttributes.identity, now.identity != expected {
            throw fail(.fileIdentityChanged, part: p)
        }
    }

    /// Makes the stream fail for good with `code` at the current offset and returns the error.
    mutating func fail(_ code: MultipartError.Code, part: Int?, underlying: (any Error)? = nil) -> MultipartError {
        let error = MultipartError(code, partIndex: part, offset: produced, underlying: underlying)
        abandonCurrentPart()
        state = .failed(error)
        return error
    }

    /// Lets go of the current part's reader or file, if any.
    mutating func abandonCurrentPart() {
        reader = nil
        if case .body(let p, _) = state, case .file(let file) = form.parts[p].body {
            fileSystem?.finishedReading(fileAt: file.path)
        }
    }
}
