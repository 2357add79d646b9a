// File: the single owner of one regular-file descriptor, for downloads (temporary file, then
// rename over the destination) and multipart uploads (pread or sendfile from a file). Every
// descriptor is O_CLOEXEC; temporary files are created with O_EXCL and mode 0600 (mkostemp).
//
// File I/O blocks (a disk can be slow); call these from an event-loop thread or another thread
// you own, never from a task on Swift's cooperative pool (design §4).

import CourierBytes
import Synchronization
internal import Glibc

/// An open regular file that owns its descriptor and closes it exactly once.
public final class File: @unchecked Sendable {
    /// How a file is opened.
    public enum Access: Sendable {
        /// O_RDONLY.
        case readOnly
        /// O_WRONLY.
        case writeOnly
        /// O_RDWR.
        case readWrite
    }

    private let descriptor: Atomic<CInt>
    /// The path the file was opened or created at.
    public let path: String

    init(adopting fd: CInt, path: String) {
        descriptor = Atomic(fd)
        self.path = path
    }

    deinit {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { try? Sys.close(fd) }
    }

    /// The descriptor. Traps after `close()`.
    public var fileDescriptor: CInt {
        let fd = descriptor.load(ordering: .acquiring)
        precondition(fd >= 0, "file used after close()")
        return fd
    }

    /// Opens a file (O_CLOEXEC always).
    /// - Parameters:
    ///   - path: the file.
    ///   - access: read, write or both.
    ///   - create: create it when missing.
    ///   - truncate: empty it on open.
    ///   - mode: the mode of a file it creates, before the umask (default 0600).
    /// - Returns: the open file.
    /// - Throws: `Errno` (ENOENT, EACCES, EISDIR, ...).
    public static func open(_ path: String, access: Access = .readOnly, create: Bool = false,
                            truncate: Bool = false, mode: UInt32 = 0o600) throws(Errno) -> File {
        var flags: CInt
        switch access {
        case .readOnly: flags = O_RDONLY
        case .writeOnly: flags = O_WRONLY
        case .readWrite: flags = O_RDWR
        }
        if create { flags |= O_CREAT }
        if truncate { flags |= O_TRUNC }
        return File(adopting: try Sys.open(path, flags: flags, mode: mode), path: path)
    }

    /// Creates a new, empty file with a unique name in `directory` (mkostemp: O_EXCL, mode 0600,
    /// O_CLOEXEC), opened for reading and writing. Put it in the destination's directory so the
    /// final `rename` stays on one file system and is atomic.
    /// - Parameters:
    ///   - directory: where to create it.
    ///   - prefix: the start of the file name; six unique characters follow.
    /// - Returns: the file; its `path` is the name chosen.
    /// - Throws: `Errno` (ENOENT, EACCES, ENOSPC, ...).
    public static func makeTemporary(in directory: String, prefix: String = ".courier-") throws(Errno) -> File {
        let base = directory.hasSuffix("/") ? directory : directory + "/"
        let (fd, path) = try Sys.makeTemporaryFile(prefix: base + prefix)
        return File(adopting: fd, path: path)
    }

    /// Reads up to `maxBytes` at `offset` (pread), appending to `buffer`.
    /// - Parameters:
    ///   - buffer: receives the bytes.
    ///   - maxBytes: the most to read.
    ///   - offset: the file position; the file's own position is unchanged.
    /// - Returns: the bytes read; 0 at end of file.
    /// - Throws: `Errno` (EIO, EISDIR, ...).
    @discardableResult
    public func read(into buffer: inout ByteBuffer, maxBytes: Int, at offset: Int64) throws(Errno) -> Int {
        precondition(maxBytes > 0, "maxBytes must be positive")
        let fd = fileDescriptor
        return try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maxBytes) { (region) throws(Errno) -> Int in
            try Sys.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: region[..<maxBytes]), at: offset)
        }
    }

    /// Reads what the file has at its own position (read(2)), up to `buffer.count` bytes — for
    /// files without positions (a FIFO, a device), waiting until something comes.
    /// - Parameter buffer: where the bytes go.
    /// - Returns: the bytes read; 0 at end of file.
    /// - Throws: `Errno` (EIO, EISDIR, ...).
    public func readSequentially(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            switch try Sys.read(fileDescriptor, into: buffer) {
            case .processed(let n): return n
            case .wouldBlock: Sys.waitReadable(fileDescriptor)
            }
        }
    }

    /// Writes all of `bytes` at `offset` (pwrite, repeated after short writes).
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - offset: the file position.
    /// - Throws: `Errno` (ENOSPC, EIO, EFBIG, ...); part of the bytes may have been written.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) {
        let fd = fileDescriptor
        var done = 0
        while done < bytes.count {
            let n = try Sys.pwrite(fd, UnsafeRawBufferPointer(rebasing: bytes[done...]), at: offset + Int64(done))
            precondition(n > 0, "pwrite of a non-empty range wrote nothing")
            done += n
        }
    }

    /// Writes a buffer's readable bytes at `offset`.
    /// - Parameters:
    ///   - buffer: the bytes (not consumed).
    ///   - offset: the file position.
    /// - Throws: `Errno`.
    public func write(_ buffer: ByteBuffer, at offset: Int64) throws(Errno) {
        try buffer.withUnsafeReadableBytes { (bytes) throws(Errno) in try write(bytes, at: offset) }
    }

    /// The file's size (fstat).
    /// - Returns: the size in bytes.
    /// - Throws: `Errno`.
    public func size() throws(Errno) -> Int64 { try Sys.fileSize(fileDescriptor) }

    /// Flushes the file's data and metadata to the device (fsync).
    /// - Throws: `Errno` (EIO, ENOSPC).
    public func sync() throws(Errno) { try Sys.sync(fileDescriptor) }

    /// Closes the descriptor now (once; later use traps).
    /// - Throws: `Errno` for a close that reported an error; the descriptor is released anyway.
    public func close() throws(Errno) {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        precondition(fd >= 0, "file closed twice")
        try Sys.close(fd)
    }

    /// Renames `source` to `destination`, atomically replacing it (rename(2); same file system).
    /// - Parameters:
    ///   - source: the existing path.
    ///   - destination: the new path.
    /// - Throws: `Errno` (EXDEV across file systems, ENOENT, EACCES, ...).
    public static func rename(_ source: String, to destination: String) throws(Errno) {
        try Sys.rename(source, to: destination)
    }

    /// Removes a name from the file system (unlink(2)).
    /// - Parameter path: the file.
    /// - Throws: `Errno` (ENOENT, EACCES, EISDIR, ...).
    public static func remove(_ path: String) throws(Errno) { try Sys.unlink(path) }

    /// The names in a directory, "." and ".." left out, sorted bytewise (blocking: call it on a
    /// thread kept for blocking calls).
    /// - Parameter path: the directory.
    /// - Returns: the names, not paths.
    /// - Throws: `Errno` (ENOENT, ENOTDIR, EACCES, ...).
    public static func entries(inDirectory path: String) throws(Errno) -> [String] { try Sys.directoryEntries(path) }

    /// The whole contents of a file, read to its end (blocking: call it on a thread kept for
    /// blocking calls).
    /// - Parameters:
    ///   - path: the file.
    ///   - limit: the most bytes accepted; a longer file is EFBIG.
    /// - Returns: the bytes.
    /// - Throws: `Errno`.
    public static func contents(atPath path: String, limit: Int) throws(Errno) -> ByteBuffer {
        let file = try File.open(path)
        defer { try? file.close() }
        var buffer = ByteBuffer(capacity: 4096)
        var offset: Int64 = 0
        while true {
            let n = try file.read(into: &buffer, maxBytes: 1 << 16, at: offset)
            if n == 0 { return buffer }
            offset += Int64(n)
            if offset > Int64(limit) { throw Errno.fileTooLarge }
        }
    }
}

extension File {
    /// Sets the file's length (ftruncate): cuts it, or extends it with zeros.
    /// - Parameter length: the new length.
    /// - Throws: `Errno`.
    public func truncate(to length: Int64) throws(Errno) { try Sys.truncate(fileDescriptor, to: length) }
}
