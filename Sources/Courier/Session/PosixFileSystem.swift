// PosixFileSystem: the multipart body stream's file access on Linux (CourierMultipart is pure and
// asks through `MultipartFileSystem`). Attributes come from stat(2) at the time of the call — size
// and identity (device, inode, modification time) — so a file that changes between building the
// form and sending it is caught by the body stream; bytes come from pread on one descriptor kept
// open per file until the stream says it is done with it.
//
// Only regular files are parts: a directory, a FIFO, a socket or a device is refused when it is
// appended (the CLI's exit 26, before anything is sent). stat(2) comes first, so a FIFO is never
// opened — open(2) would block until a writer came.
//
// MIME types of file parts come from the system's database, /etc/mime.types, read once per process
// (`SystemMIMETypes`); without that file, the built-in table answers.

import CourierBytes
import CourierMultipart
import CourierPosix
import Synchronization

/// Reads multipart file parts from the local file system.
public final class PosixFileSystem: MultipartFileSystem {
    /// A path that is not a regular file, refused as a file part.
    public struct NotARegularFile: Error, Sendable, CustomStringConvertible {
        /// The path.
        public var path: String
        /// What is there ("a directory", "a FIFO", ...).
        public var kind: String
        /// `PATH is KIND, not a regular file`.
        public var description: String { "\(path) is \(kind), not a regular file" }
    }

    private let files = Mutex<[String: File]>([:])
    private let mimeTypes: MIMETypeTable?

    /// Creates a file system view (each keeps its own open descriptors).
    /// - Parameter mimeTypes: the type database for file parts appended without a type; by default
    ///   the system's (/etc/mime.types, read once), nil for the built-in table.
    public init(mimeTypes: MIMETypeTable? = SystemMIMETypes.table) {
        self.mimeTypes = mimeTypes
    }

    /// The file's current size and identity.
    /// - Parameter path: the file.
    /// - Returns: its attributes.
    /// - Throws: `Errno` when nothing is there or it cannot be examined; `NotARegularFile` for a
    ///   directory, FIFO, socket or device.
    public func attributes(ofFileAt path: String) throws -> MultipartFileAttributes {
        guard let status = try File.status(atPath: path) else { throw Errno.noSuchFileOrDirectory }
        guard status.kind == .regular else { throw NotARegularFile(path: path, kind: status.kind.article) }
        let identity = MultipartFileIdentity(device: status.device, inode: status.inode,
                                             modificationSeconds: status.modificationTime,
                                             modificationNanoseconds: status.modificationNanoseconds)
        return MultipartFileAttributes(size: UInt64(status.size), identity: identity)
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

    /// The type from the system's database (`application/octet-stream` for an extension it does
    /// not list), or from the built-in table when there is no database.
    /// - Parameter fileName: the file name.
    /// - Returns: the type.
    public func mimeType(forFileName fileName: String) -> String {
        mimeTypes?.type(forFileName: fileName) ?? MultipartMIMEType.forFileName(fileName)
    }

    deinit {
        for file in files.withLock({ Array($0.values) }) { try? file.close() }
    }
}

/// The system's MIME type database: /etc/mime.types (Debian's `media-types` package).
public enum SystemMIMETypes {
    /// Where the database is read from.
    public static let path = "/etc/mime.types"

    /// The table read from `path` on first use, once per process; nil when the file is absent or
    /// unreadable (then the built-in table answers). The read is small (≈ 70 KB) and local; a
    /// caller that must not block the current thread on it can touch this first on a thread of
    /// its own.
    public static let table: MIMETypeTable? = load(path)

    /// Reads and parses a mime.types file.
    /// - Parameter path: the file.
    /// - Returns: the table, or nil when the file cannot be read or lists nothing.
    public static func load(_ path: String) -> MIMETypeTable? {
        guard let status = try? File.status(atPath: path), status.kind == .regular,
              let file = try? File.open(path) else { return nil }
        defer { try? file.close() }
        var contents = ByteBuffer()
        var offset: Int64 = 0
        while true {
            guard let n = try? file.read(into: &contents, maxBytes: 64 * 1024, at: offset), n > 0 else { break }
            offset += Int64(n)
            // A database, not a dump: stop at 16 MiB whatever the file claims.
            if offset > 16 << 20 { return nil }
        }
        let table = contents.withUnsafeReadableBytes { MIMETypeTable(parsing: $0) }
        return table.count > 0 ? table : nil
    }
}
