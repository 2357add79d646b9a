// MultipartBodyStream, zero copy: the body described as segments, and the whole body pumped into a
// sink.
//
// A segment is either bytes the caller can write as they are (`.bytes`: a slice of the form's
// framing buffer or of an in-memory part — the same storage, never copied) or a range of a file
// (`.file`) that a transport on plain TCP sends with sendfile(2) and over TLS reads into one pooled
// buffer (design §3). No temporary file, whatever the size of the form. Stream parts cannot be
// described, so their bytes are read into one reused scratch buffer.
//
// Contract with the transport: ask for the next segment only once the previous one has been
// written in full. That is what lets the machine check a file again after its last range was sent
// (a file that grew while being sent is caught there). When a file range cannot be sent in full
// (sendfile reports end of file early, or an I/O error), the transport calls
// `fileSegmentFailed(_:bytesTransferred:underlying:)`, which fails the body with the right part and
// offset.

import CourierBytes

/// A run of body bytes as a transport sends it.
public enum MultipartSegment: Sendable, Equatable {
    /// Bytes to write as they are (shared with the form, not copied).
    case bytes(ByteBuffer)
    /// A range of a file to send (sendfile) or read.
    case file(MultipartFileSegment)

    /// The number of body bytes in the segment.
    public var count: Int {
        switch self {
        case .bytes(let bytes): return bytes.readableBytes
        case .file(let file): return file.length
        }
    }
}

/// A range of a file that is part of the body.
public struct MultipartFileSegment: Sendable, Hashable {
    /// The index of the part the range belongs to.
    public var partIndex: Int
    /// The file's path.
    public var path: String
    /// The file offset of the first byte.
    public var offset: UInt64
    /// The number of bytes.
    public var length: Int
    /// The body offset of the first byte (for error reports and progress).
    public var bodyOffset: UInt64

    /// Creates a file segment.
    /// - Parameters:
    ///   - partIndex: the part.
    ///   - path: the file's path.
    ///   - offset: the file offset of the first byte.
    ///   - length: the number of bytes.
    ///   - bodyOffset: the body offset of the first byte.
    public init(partIndex: Int, path: String, offset: UInt64, length: Int, bodyOffset: UInt64) {
        self.partIndex = partIndex
        self.path = path
        self.offset = offset
        self.length = length
        self.bodyOffset = bodyOffset
    }
}

extension MultipartBodyStream {
    /// Describes the next run of the body, at most `maxBytes` long, and moves past it.
    ///
    /// A delimiter line and the header block that follows it come as one `.bytes` segment; an
    /// in-memory body as slices of its buffer; a file body as `.file` ranges.
    /// - Parameter maxBytes: the most bytes the segment may hold (at least 1).
    /// - Returns: the segment, or nil when the body is finished.
    /// - Throws: `MultipartError` when a file or stream no longer matches its part.
    public mutating func nextSegment(maxBytes: Int) throws(MultipartError) -> MultipartSegment? {
        precondition(maxBytes > 0, "maxBytes must be positive")
        while true {
            switch state {
            case .failed(let error):
                throw error
            case .done:
                return nil
            case .lead(let p, let index):
                let end = form.parts[p].leadEnd
                if index == end {
                    try enterBody(p)
                    continue
                }
                let n = min(end - index, maxBytes)
                state = .lead(part: p, index: index + n)
                produced += UInt64(n)
                return .bytes(form.framing.getSlice(at: index, length: n)!)
            case .body(let p, let offset):
                let length = form.parts[p].bodyLength
                if offset == length {
                    try finishBody(p)
                    continue
                }
                let n = Int(min(length - offset, UInt64(maxBytes)))
                switch form.parts[p].body {
                case .bytes(let bytes):
                    state = .body(part: p, offset: offset + UInt64(n))
                    produced += UInt64(n)
                    return .bytes(bytes.getSlice(at: bytes.readerIndex + Int(offset), length: n)!)
                case .file(let file):
                    let segment = MultipartFileSegment(partIndex: p, path: file.path, offset: file.offset + offset,
                                                       length: n, bodyOffset: produced)
                    state = .body(part: p, offset: offset + UInt64(n))
                    produced += UInt64(n)
                    return .file(segment)
                case .stream:
                    // The reader is moved out while the scratch buffer is written, so the two
                    // accesses to `self` do not overlap.
                    var current = reader
                    reader = nil
                    var caught: (any Error)?
                    scratch.clear()
                    let got = scratch.writeWithUnsafeMutableBytes(minimumWritableBytes: n) { region -> Int in
                        do {
                            return try current!.read(into: UnsafeMutableRawBufferPointer(rebasing: region[0..<n]))
                        } catch {
                            caught = error
                            return 0
                        }
                    }
                    reader = current
                    if let caught { throw fail(.streamFailed, part: p, underlying: caught) }
                    precondition(got <= n, "stream read outside the buffer")
                    if got == 0 { throw fail(.streamEndedEarly, part: p) }
                    state = .body(part: p, offset: offset + UInt64(got))
                    produced += UInt64(got)
                    return .bytes(scratch)
                }
            case .close(let offset):
                let end = form.closeDelimiter.readableBytes
                let n = min(end - offset, maxBytes)
                state = offset + n == end ? .done : .close(offset: offset + n)
                produced += UInt64(n)
                return .bytes(form.closeDelimiter.getSlice(at: form.closeDelimiter.readerIndex + offset, length: n)!)
            }
        }
    }

    /// Reports that a file segment could not be sent in full, and fails the body.
    /// - Parameters:
    ///   - segment: the file segment last returned by `nextSegment(maxBytes:)`.
    ///   - bytesTransferred: how many of its bytes were sent before the failure.
    ///   - underlying: the I/O error, or nil when the file ended early (it shrank).
    /// - Returns: the error the body now fails with (`.fileSizeChanged` or `.fileReadFailed`).
    @discardableResult
    public mutating func fileSegmentFailed(
        _ segment: MultipartFileSegment, bytesTransferred: Int, underlying: (any Error)?
    ) -> MultipartError {
        precondition(bytesTransferred >= 0 && bytesTransferred <= segment.length, "bytesTransferred outside the segment")
        let error = MultipartError(underlying == nil ? .fileSizeChanged : .fileReadFailed, partIndex: segment.partIndex,
                                   offset: segment.bodyOffset + UInt64(bytesTransferred), underlying: underlying)
        abandonCurrentPart()
        state = .failed(error)
        return error
    }

    /// Writes the rest of the body into `sink` (AFNetworking's
    /// `requestWithMultipartFormRequest:writingStreamContentsToFile:`, without its silent
    /// truncation): in-memory runs go to the sink as shared slices, file and stream bytes through
    /// one reused buffer of `chunkSize` bytes.
    /// - Parameters:
    ///   - sink: where the bytes go.
    ///   - chunkSize: the most bytes handed to the sink at once.
    /// - Returns: the number of bytes written by this call.
    /// - Throws: `MultipartError` — the file and stream errors of `read(into:)`, or `.sinkFailed`.
    @discardableResult
    public mutating func write(to sink: inout some MultipartSink, chunkSize: Int = 64 * 1024) throws(MultipartError) -> UInt64 {
        precondition(chunkSize > 0, "chunkSize must be positive")
        let start = produced
        let fileSystem = self.fileSystem
        while let segment = try nextSegment(maxBytes: chunkSize) {
            switch segment {
            case .bytes(let bytes):
                try write(bytes, to: &sink, offset: produced - UInt64(bytes.readableBytes))
            case .file(let file):
                var done = 0
                while done < file.length {
                    let n = file.length - done
                    scratch.clear()
                    let got: Int
                    do {
                        got = try scratch.writeWithUnsafeMutableBytes(minimumWritableBytes: n) { region in
                            try fileSystem!.read(fileAt: file.path, offset: file.offset + UInt64(done),
                                                      into: UnsafeMutableRawBufferPointer(rebasing: region[0..<n]))
                        }
                    } catch {
                        throw fileSegmentFailed(file, bytesTransferred: done, underlying: error)
                    }
                    if got == 0 { throw fileSegmentFailed(file, bytesTransferred: done, underlying: nil) }
                    try write(scratch, to: &sink, offset: file.bodyOffset + UInt64(done))
                    done += got
                }
            }
        }
        return produced - start
    }

    private mutating func write(_ bytes: ByteBuffer, to sink: inout some MultipartSink, offset: UInt64) throws(MultipartError) {
        do {
            try sink.write(bytes)
        } catch {
            abandonCurrentPart()
            let failure = MultipartError(.sinkFailed, partIndex: nil, offset: offset, underlying: error)
            state = .failed(failure)
            throw failure
        }
    }
}

extension MultipartForm {
    /// Creates the body stream of this form.
    /// - Parameter fileSystem: reads file parts; required when the form has any.
    /// - Returns: a stream at the first byte.
    public func makeBodyStream(fileSystem: (any MultipartFileSystem)? = nil) -> MultipartBodyStream {
        MultipartBodyStream(form: self, fileSystem: fileSystem)
    }

    /// Appends the whole body to `buffer` (one capacity reservation, then bulk copies).
    /// - Parameters:
    ///   - buffer: the buffer to append to; reuse one across calls to avoid allocations.
    ///   - fileSystem: reads file parts; required when the form has any.
    /// - Throws: `MultipartError` as `MultipartBodyStream.read(into:)` does.
    public func render(into buffer: inout ByteBuffer, fileSystem: (any MultipartFileSystem)? = nil) throws(MultipartError) {
        var stream = makeBodyStream(fileSystem: fileSystem)
        guard contentLength <= UInt64(Int.max) else { throw MultipartError(.contentLengthOverflow) }
        let total = Int(contentLength)
        buffer.reserveCapacity(minimumWritableBytes: total)
        var done = 0
        while done < total {
            let got = try stream.read(into: &buffer, maxBytes: total - done)
            precondition(got > 0, "body ended before its content length")
            done += got
        }
    }

    /// The whole body as an array (for tests, `--offline`, and cross-checking with other parsers).
    /// - Parameter fileSystem: reads file parts; required when the form has any.
    /// - Returns: the body bytes.
    /// - Throws: `MultipartError` as `MultipartBodyStream.read(into:)` does.
    public func renderedBytes(fileSystem: (any MultipartFileSystem)? = nil) throws(MultipartError) -> [UInt8] {
        var buffer = ByteBuffer()
        try render(into: &buffer, fileSystem: fileSystem)
        return buffer.readableBytesArray
    }

    /// Writes the whole body into `sink` (AFNetworking's
    /// `requestWithMultipartFormRequest:writingStreamContentsToFile:`).
    /// - Parameters:
    ///   - sink: where the bytes go.
    ///   - fileSystem: reads file parts; required when the form has any.
    ///   - chunkSize: the most bytes handed to the sink at once.
    /// - Returns: the number of bytes written (the content length).
    /// - Throws: `MultipartError` — file and stream errors, or `.sinkFailed`.
    @discardableResult
    public func writeBody(to sink: inout some MultipartSink, fileSystem: (any MultipartFileSystem)? = nil,
                          chunkSize: Int = 64 * 1024) throws(MultipartError) -> UInt64 {
        var stream = makeBodyStream(fileSystem: fileSystem)
        return try stream.write(to: &sink, chunkSize: chunkSize)
    }
}
