// PosixFileSystem: the multipart body stream's file access on Linux (CourierMultipart is pure and
// asks through `MultipartFileSystem`). Sizes come from fstat at the time of the call, so a file that
// changes between building the form and sending it is caught by the body stream; bytes come from
// pread on one descriptor kept open per file until the stream says it is done with it.

import CourierBytes
import CourierMultipart
import CourierPosix
import Synchronization

/// Reads multipart file parts from the local file system.
public final class PosixFileSystem: MultipartFileSystem {
    private let files = Mutex<[String: File]>([:])

    /// Creates a file system view (each keeps its own open descriptors).
    public init() {}

    /// The file's current size.
    /// - Parameter path: the file.
    /// - Returns: its attributes (size; no identity).
    /// - Throws: `Errno` when the file cannot be opened.
    public func attributes(ofFileAt path: String) throws -> MultipartFileAttributes {
        let file = try File.open(path)
        defer { try? file.close() }
        return MultipartFileAttributes(size: UInt64(try file.size()))
    }

    /// Reads bytes at `offset`.
    /// - Parameters:
    ///   - path: the file.
    ///   - offset: where to start.
    ///   - buffer: the destination.
    /// - Returns: bytes read (0 at end of file).
    /// - Throws: `Errno`.
    public func read(fileAt path: String, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let file = try files.withLock { (files) throws -> File in
            if let file = files[path] { return file }
            let file = try File.open(path)
            files[path] = file
            return file
        }
        var chunk = ByteBuffer(capacity: buffer.count)
        let n = try file.read(into: &chunk, maxBytes: buffer.count, at: Int64(offset))
        chunk.withUnsafeReadableBytes { buffer.copyMemory(from: $0) }
        return n
    }

    /// Closes the descriptor kept for `path`.
    /// - Parameter path: the file.
    public func finishedReading(fileAt path: String) {
        let file = files.withLock { $0.removeValue(forKey: path) }
        try? file?.close()
    }

    deinit {
        for file in files.withLock({ Array($0.values) }) { try? file.close() }
    }
}
