// PosixFileSystem: the multipart body stream's file access on Linux (CourierMultipart is pure and
// asks through `MultipartFileSystem`). Sizes come from fstat at the time of the call, so a file that
// changes between building the form and sending it is detected by the body stream.

import CourierBytes
import CourierMultipart
import CourierPosix

/// Reads multipart file parts from the local file system.
public struct PosixFileSystem: MultipartFileSystem {
    /// Creates the file system view.
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
        let file = try File.open(path)
        defer { try? file.close() }
        var scratch = ByteBuffer()
        let n = try file.read(into: &scratch, maxBytes: buffer.count, at: Int64(offset))
        scratch.withUnsafeReadableBytes { raw in
            buffer.baseAddress!.copyMemory(from: raw.baseAddress!, byteCount: n)
        }
        return n
    }
}
