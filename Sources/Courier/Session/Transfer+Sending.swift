// Transfer+Sending: the request body from its source (bytes, a file, a form, a stream) to the
// connection, with upload progress; file ranges are read off the cooperative pool.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierURL
import Synchronization

extension Transfer {
    // MARK: Sending

    /// Sends the request body, counting the bytes handed to the connection in `sent` (kept when
    /// it throws: an upload stopped by an early response still reports what went out).
    func sendBody(_ request: HTTPRequest, length: BodyLength, on connection: HTTP1Connection,
                          sent: inout UInt64) async throws {
        let total: UInt64?
        switch length {
        case .known(let n): total = n
        default: total = nil
        }
        func report() { core.reportUpload(TransferProgress(completed: sent, total: total)) }

        switch request.body {
        case .none:
            return
        case .bytes(var buffer):
            guard buffer.readableBytes > 0 else { return }
            // Slices share the buffer's storage: progress every 256 KiB without copying.
            while buffer.readableBytes > 0 {
                let slice = buffer.readSlice(length: min(buffer.readableBytes, 256 * 1024))!
                try await connection.writeBody(slice)
                sent += UInt64(slice.readableBytes)
                report()
            }
        case .multipart(let form):
            // Segments: framing and in-memory parts as shared slices, file ranges with sendfile on
            // plain connections (zero copy) or read into one buffer over TLS. The parts' types
            // were fixed when they were appended: no MIME database is read here, on the pool.
            var stream = form.makeBodyStream(fileSystem: PosixFileSystem(mimeTypes: nil))
            var openFile: (path: String, file: File)?
            defer { try? openFile?.file.close() }
            while true {
                let segment: MultipartSegment?
                do { segment = try stream.nextSegment(maxBytes: 1 << 20) } catch {
                    // The connection is closed by the failed exchange: the part stays short, so
                    // the server never takes the body for complete. The message names the file
                    // (the check before a part is sent sees a shrunken file as often as the send).
                    var what = "a multipart part"
                    if let index = error.partIndex, form.parts.indices.contains(index),
                       case .file(let file) = form.parts[index].body {
                        what = file.path
                    }
                    throw SessionError(.fileReadFailed, "reading \(what) failed: \(error)", url: request.uri.redactedDescription)
                }
                guard let segment else { break }
                switch segment {
                case .bytes(let bytes):
                    try await connection.writeBody(bytes)
                case .file(let range):
                    if openFile?.path != range.path {
                        try? openFile?.file.close()
                        do { openFile = (range.path, try File.open(range.path)) } catch {
                            stream.fileSegmentFailed(range, bytesTransferred: 0, underlying: error)
                            throw SessionError(.fileReadFailed, "cannot open \(range.path): \(error)", url: request.uri.redactedDescription)
                        }
                    }
                    try await writeRange(of: openFile!.file, path: range.path, offset: Int64(range.offset), count: range.length,
                                         on: connection, url: request.uri.redactedDescription)
                }
                sent += UInt64(segment.count)
                report()
            }
        case .file(let path):
            let file: File
            do { file = try File.open(path) } catch {
                throw SessionError(.fileReadFailed, "cannot open the upload file \(path): \(error)", url: request.uri.redactedDescription)
            }
            defer { try? file.close() }
            let count = Int(total ?? 0)
            var offset = 0
            while offset < count {
                let piece = min(count - offset, 1 << 20)
                try await writeRange(of: file, path: path, offset: Int64(offset), count: piece, on: connection,
                                     url: request.uri.redactedDescription)
                offset += piece
                sent += UInt64(piece)
                report()
            }
        case .stream(_, let stream):
            var reader: any MultipartStreamReader
            do { reader = try stream.makeReader() } catch {
                throw SessionError(.fileReadFailed, "the upload stream cannot start: \(error)", url: request.uri.redactedDescription)
            }
            while true {
                var chunk = ByteBuffer()
                let n: Int
                do {
                    n = try chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { raw in
                        try reader.read(into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(64 * 1024)))
                    }
                } catch {
                    throw SessionError(.fileReadFailed, "reading the upload stream failed: \(error)", url: request.uri.redactedDescription)
                }
                if n == 0 { break }
                if let total, sent + UInt64(n) > total {
                    throw SessionError(.fileReadFailed, "the upload stream is longer than its declared \(total) bytes",
                                       url: request.uri.redactedDescription)
                }
                try await connection.writeBody(chunk)
                sent += UInt64(n)
                report()
            }
            if let total, sent != total {
                throw SessionError(.fileReadFailed, "the upload stream ended after \(sent) of its declared \(total) bytes",
                                   url: request.uri.redactedDescription)
            }
        case .asyncStream(_, let stream):
            try await sendAsyncStream(stream, request: request, total: total, on: connection, sent: &sent)
        }
        // A declared length of 0 opens no body on the connection (the head's Content-Length: 0 is
        // the whole of it), so there is nothing to end.
        if case .known(0) = length { return }
        try await connection.finishBody()
    }

    /// Sends an asynchronous body stream, chunk by chunk as its reader produces them (an empty
    /// chunk is skipped: on a chunked body it would read as the end), holding it to its declared
    /// length.
    func sendAsyncStream(_ stream: any AsyncBodyStream, request: HTTPRequest, total: UInt64?, on connection: HTTP1Connection,
                         sent: inout UInt64) async throws {
        let url = request.uri.redactedDescription
        var reader: any AsyncBodyReader
        do { reader = try stream.makeAsyncReader() } catch {
            throw SessionError(.fileReadFailed, "the upload stream cannot start: \(error)", url: url)
        }
        while true {
            let chunk: ByteBuffer?
            do { chunk = try await reader.next() } catch {
                var failure = SessionError(.fileReadFailed, "reading the upload stream failed: \(error)", url: url)
                failure.underlying = error
                throw failure
            }
            guard let chunk else { break }
            let n = UInt64(chunk.readableBytes)
            if n == 0 { continue }
            if let total, sent + n > total {
                throw SessionError(.fileReadFailed, "the upload stream is longer than its declared \(total) bytes", url: url)
            }
            try await connection.writeBody(chunk)
            sent += n
            core.reportUpload(TransferProgress(completed: sent, total: total))
        }
        if let total, sent != total {
            throw SessionError(.fileReadFailed, "the upload stream ended after \(sent) of its declared \(total) bytes", url: url)
        }
    }

    /// Sends a file range: sendfile on plain connections, read-and-write over TLS.
    func writeRange(of file: File, path: String, offset: Int64, count: Int, on connection: HTTP1Connection,
                            url: String) async throws {
        if !connection.usesTLS {
            do throws(ConnectionError) {
                try await connection.writeFile(file, offset: offset, count: count)
            } catch {
                // The file ended before the range (it shrank while being sent): the connection
                // has failed and is closed, so the server never sees a complete-looking body.
                if error.code == .invalidRequest {
                    throw SessionError(.fileReadFailed, "\(path) became shorter while it was sent (\(error.message))", url: url)
                }
                throw error
            }
            return
        }
        // Over TLS the bytes must be encrypted here: the file is read on the blocking-I/O thread,
        // never on the event loop or the cooperative pool (a slow disk must not stall either).
        var done = 0
        while done < count {
            let piece = min(count - done, 256 * 1024), at = offset + Int64(done)
            let chunk: ByteBuffer
            do {
                chunk = try await BlockingIOThread.shared.run { () throws(Errno) -> ByteBuffer in
                    var chunk = ByteBuffer()
                    _ = try file.read(into: &chunk, maxBytes: piece, at: at)
                    return chunk
                }
            } catch {
                throw SessionError(.fileReadFailed, "reading \(path) failed: \(error)", url: url)
            }
            let n = chunk.readableBytes
            if n == 0 { throw SessionError(.fileReadFailed, "\(path) became shorter while it was sent", url: url) }
            try await connection.writeBody(chunk)
            done += n
        }
    }
}
