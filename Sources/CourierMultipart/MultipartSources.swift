// The doors of a pure module: the protocols through which the body stream reaches files, streams
// and sinks that live in the I/O layer.
//
// CourierMultipart never opens a file, never reads a clock and never draws a random number. A file
// part is a description (path, byte range, the size and identity it had when it was appended); a
// `MultipartFileSystem` supplied by the caller reads the bytes (CourierPosix will supply the real
// one; tests supply `MultipartMemoryFileSystem` or their own fakes). A stream part is a
// `MultipartStream` that can start a fresh reader for every pass over the body, which is what makes
// the body restartable for redirects and authentication retries.

import CourierBytes

/// What identifies a file beyond its path, so that a file replaced at the same path is noticed.
public struct MultipartFileIdentity: Sendable, Hashable {
    /// The device the file lives on (`st_dev`).
    public var device: UInt64
    /// The file's inode number (`st_ino`).
    public var inode: UInt64
    /// The last modification time, whole seconds since the epoch (`st_mtim.tv_sec`).
    public var modificationSeconds: Int64
    /// The nanoseconds part of the last modification time (`st_mtim.tv_nsec`).
    public var modificationNanoseconds: Int64

    /// Creates an identity.
    /// - Parameters:
    ///   - device: `st_dev`.
    ///   - inode: `st_ino`.
    ///   - modificationSeconds: `st_mtim.tv_sec`.
    ///   - modificationNanoseconds: `st_mtim.tv_nsec`.
    public init(device: UInt64, inode: UInt64, modificationSeconds: Int64, modificationNanoseconds: Int64) {
        self.device = device
        self.inode = inode
        self.modificationSeconds = modificationSeconds
        self.modificationNanoseconds = modificationNanoseconds
    }
}

/// The size and identity of a file at one moment.
public struct MultipartFileAttributes: Sendable, Hashable {
    /// The file's size in bytes.
    public var size: UInt64
    /// The file's identity, when the file system can tell it; nil skips the identity check.
    public var identity: MultipartFileIdentity?

    /// Creates attributes.
    /// - Parameters:
    ///   - size: the size in bytes.
    ///   - identity: device, inode and modification time, if known.
    public init(size: UInt64, identity: MultipartFileIdentity? = nil) {
        self.size = size
        self.identity = identity
    }
}

/// Reads files for the body stream. The I/O layer supplies the real one; it may keep descriptors
/// open between calls and close them in `finishedReading(fileAt:)`.
public protocol MultipartFileSystem: Sendable {
    /// The current size and identity of the file at `path`.
    /// - Parameter path: the file's path.
    /// - Returns: its attributes.
    /// - Throws: any error when the file cannot be examined (missing, no permission).
    func attributes(ofFileAt path: String) throws -> MultipartFileAttributes

    /// Reads bytes of the file at `path` starting at `offset` into `buffer`.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - offset: the file offset of the first byte to read.
    ///   - buffer: where to put the bytes; at least one byte long.
    /// - Returns: the number of bytes read, at most `buffer.count`; 0 only at end of file.
    /// - Throws: any error when reading fails.
    func read(fileAt path: String, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int

    /// Tells the file system that the body stream has finished with the file at `path` for this
    /// pass (its part ended, failed or the stream restarted), so a cached descriptor can be closed.
    /// - Parameter path: the file's path.
    func finishedReading(fileAt path: String)

    /// The MIME type of a file part whose type the caller did not give, from its file name (the
    /// platform's type database, as AFNetworking asks the platform).
    /// - Parameter fileName: the file name (a last path component).
    /// - Returns: the type.
    func mimeType(forFileName fileName: String) -> String
}

extension MultipartFileSystem {
    /// Does nothing: a file system that keeps no descriptors has nothing to close.
    /// - Parameter path: the file's path.
    public func finishedReading(fileAt path: String) {}

    /// The built-in table's answer (`MultipartMIMEType.forFileName`).
    /// - Parameter fileName: the file name.
    /// - Returns: the type.
    public func mimeType(forFileName fileName: String) -> String { MultipartMIMEType.forFileName(fileName) }
}

/// A source of bytes of a declared length that can be read again from its start: each pass over
/// the body asks for a fresh reader (the `makeIterator` shape of `Sequence`).
public protocol MultipartStream: Sendable {
    /// Starts reading from the first byte.
    /// - Returns: a reader positioned at byte 0.
    /// - Throws: any error when the stream cannot be (re)started.
    func makeReader() throws -> any MultipartStreamReader

    /// Whether `makeReader` can start a second pass (a retry sends the body again only then).
    /// Default true; a one-pass source such as standard input says false.
    var isReplayable: Bool { get }
}

extension MultipartStream {
    /// Replayable unless the stream says otherwise.
    public var isReplayable: Bool { true }
}

/// One pass over a `MultipartStream`.
public protocol MultipartStreamReader: Sendable {
    /// Reads the next bytes into `buffer`.
    /// - Parameter buffer: where to put the bytes; at least one byte long.
    /// - Returns: the number of bytes read, at most `buffer.count`; 0 only at the end of the stream.
    /// - Throws: any error when reading fails.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int
}

/// A destination for a whole body (AFNetworking's
/// `requestWithMultipartFormRequest:writingStreamContentsToFile:`): the I/O layer supplies a file
/// writer; tests use `MultipartCollectingSink`.
public protocol MultipartSink {
    /// Accepts the readable bytes of `bytes`, all of them, in order.
    /// - Parameter bytes: the next bytes of the body; the sink may keep the buffer (it is a value).
    /// - Throws: any error when the bytes cannot be written.
    mutating func write(_ bytes: ByteBuffer) throws
}

/// A sink that collects everything written to it in memory.
public struct MultipartCollectingSink: MultipartSink, Sendable {
    /// Everything written so far.
    public private(set) var bytes: ByteBuffer
    /// The number of `write` calls received.
    public private(set) var writeCount: Int = 0

    /// Creates an empty sink.
    public init() { bytes = ByteBuffer() }

    /// Appends `bytes`.
    /// - Parameter bytes: the next bytes.
    public mutating func write(_ bytes: ByteBuffer) {
        self.bytes.writeBuffer(bytes)
        writeCount += 1
    }
}

/// An immutable in-memory file system: for tests, fuzzing and benchmarks, and for callers whose
/// "files" are already in memory.
public struct MultipartMemoryFileSystem: MultipartFileSystem {
    /// One file: its contents and the identity it reports.
    public struct File: Sendable, Hashable {
        /// The contents.
        public var contents: ByteBuffer
        /// The identity reported by `attributes(ofFileAt:)`.
        public var identity: MultipartFileIdentity?

        /// Creates a file.
        /// - Parameters:
        ///   - contents: the bytes.
        ///   - identity: the identity to report, if any.
        public init(contents: ByteBuffer, identity: MultipartFileIdentity? = nil) {
            self.contents = contents
            self.identity = identity
        }
    }

    /// The error thrown for a path that holds no file.
    public struct NoSuchFile: Error, Hashable {
        /// The path asked for.
        public var path: String
    }

    /// The files, by path.
    public var files: [String: File]

    /// Creates a file system holding `files`.
    /// - Parameter files: the files, by path.
    public init(files: [String: File] = [:]) { self.files = files }

    /// Creates a file system holding byte arrays, with no identities.
    /// - Parameter contents: the file contents, by path.
    public init(contents: [String: [UInt8]]) {
        files = contents.mapValues { File(contents: ByteBuffer(bytes: $0)) }
    }

    /// The size and identity of a stored file.
    /// - Throws: `NoSuchFile` when nothing is stored at `path`.
    public func attributes(ofFileAt path: String) throws -> MultipartFileAttributes {
        guard let file = files[path] else { throw NoSuchFile(path: path) }
        return MultipartFileAttributes(size: UInt64(file.contents.readableBytes), identity: file.identity)
    }

    /// Copies stored bytes into `buffer`.
    /// - Throws: `NoSuchFile` when nothing is stored at `path`.
    public func read(fileAt path: String, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        guard let file = files[path] else { throw NoSuchFile(path: path) }
        let size = UInt64(file.contents.readableBytes)
        guard offset < size else { return 0 }
        let count = min(buffer.count, Int(size - offset))
        file.contents.withUnsafeReadableBytes { source in
            // SAFETY: offset + count <= size == source.count and count <= buffer.count.
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + Int(offset), byteCount: count)
        }
        return count
    }
}

/// A stream over bytes already in memory: each reader starts again at the first byte.
public struct MultipartBytesStream: MultipartStream {
    /// The bytes the stream yields.
    public var bytes: ByteBuffer

    /// Creates a stream yielding `bytes`.
    /// - Parameter bytes: the stream's contents.
    public init(_ bytes: ByteBuffer) { self.bytes = bytes }

    /// A reader at the first byte.
    public func makeReader() -> any MultipartStreamReader { Reader(remaining: bytes) }

    struct Reader: MultipartStreamReader {
        var remaining: ByteBuffer

        mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(buffer.count, remaining.readableBytes)
            guard count > 0 else { return 0 }
            remaining.withUnsafeReadableBytes { source in
                // SAFETY: count <= source.count and count <= buffer.count.
                buffer.baseAddress!.copyMemory(from: source.baseAddress!, byteCount: count)
            }
            remaining.moveReaderIndex(forwardBy: count)
            return count
        }
    }
}
