// OutputFile: where a download's bytes go, by the rules of curl's `-o` — the same code for the
// command-line tool and the library's download tasks (docs/cli.md "Where -o writes",
// docs/session.md "Downloads"):
//
// - The path is resolved first (`OutputTarget.resolve`): a symbolic link is followed and the link
//   itself stays a link (40 links at most, then ELOOP as the kernel says). A link into
//   /proc/<this process>/fd — /dev/stdout, /dev/stderr, /dev/fd/N, /proc/self/fd/N — names one of
//   this process's descriptors, which is written through a duplicate of it: at its own position,
//   nothing truncated, exactly as `-o -` writes to standard output.
// - A character or block device, a FIFO or a socket is opened and written as it is: no temporary
//   file, no rename, never replaced. A FIFO is opened O_NONBLOCK, so "no reader yet" (ENXIO) and
//   "the pipe is full" (a short write) come back as values the caller can wait on and cancel
//   instead of a thread stuck in open(2) or write(2).
// - A regular file, or a new one, is written into a temporary file in the target's directory that
//   has no name until it is complete: open(dir, O_TMPFILE), then at `commit()` linkat through
//   /proc/self/fd/N (AT_SYMLINK_FOLLOW) — straight to the target's name for a new file, else to a
//   unique name renamed over the target (rename(2) is atomic on one file system). A process killed
//   at any point (SIGKILL, a power cut) leaves nothing behind but in that last instant. Where the
//   file system or kernel refuses O_TMPFILE (EOPNOTSUPP, EISDIR before Linux 3.11), the temporary
//   file is a named `.courier-XXXXXX` from the start. A new file is
//   created with `createMode` (0666 unless told otherwise) less the process's umask — open(2)
//   applies the umask and the directory's default ACL, as for curl's files. A file that existed
//   keeps its permission bits (setuid/setgid included) and, where the process may set them, its
//   owner and group; it is a new inode, so other hard links to it keep the old contents.
// - When the directory is not writable but the existing file is, the file itself is truncated and
//   written in place. That case is not atomic: a failure leaves what arrived.
// - A resumed download appends to the existing regular file at the validated offset.
// - Never replacing (`ExistingFilePolicy`): `.keep` refuses a name that exists (EEXIST, at open
//   and again at commit: the unnamed file is linked with linkat, which never replaces, and a named
//   fallback with link(2)); `.numbered` gives the new file the first free name among NAME,
//   NAME.1 ... NAME.limit at commit (curl's --no-clobber), by the same exclusive links. Those names
//   are the path as given (a symbolic link there counts as taken, as curl's O_EXCL open sees it).
//   Devices, FIFOs and descriptors are written as they are whatever the policy: nothing of them is
//   replaced.
//
// Every call here may block (a slow disk, a FIFO's reader): run them on `BlockingIOThread`, never
// on a thread of the cooperative pool (design §4).

import CourierBytes
import Synchronization
internal import Glibc

/// What stat(2) says about a path: its kind and the metadata a replaced file keeps.
public struct FileStatus: Sendable, Equatable {
    /// The file type (st_mode & S_IFMT).
    public enum Kind: Sendable, Equatable {
        /// A regular file.
        case regular
        /// A directory.
        case directory
        /// A character device (/dev/null, a terminal).
        case characterDevice
        /// A block device.
        case blockDevice
        /// A FIFO (named pipe).
        case fifo
        /// A UNIX-domain socket.
        case socket
        /// A symbolic link (only from lstat).
        case symbolicLink
        /// Anything else.
        case unknown
    }

    /// The file type.
    public var kind: Kind
    /// The permission bits, setuid, setgid and sticky included (st_mode & 07777).
    public var permissions: UInt32
    /// The owner's user id.
    public var owner: UInt32
    /// The group id.
    public var group: UInt32
    /// The size in bytes.
    public var size: Int64
    /// The number of hard links.
    public var linkCount: Int
    /// The last modification, in whole seconds since 1970 (st_mtime).
    public var modificationTime: Int64
    /// The nanoseconds part of the last modification (`st_mtim.tv_nsec`).
    public var modificationNanoseconds: Int64
    /// The device the file lives on (`st_dev`).
    public var device: UInt64
    /// The inode number (`st_ino`).
    public var inode: UInt64
    /// The device a character or block device file stands for (`st_rdev`); 0 for other files.
    public var specialDevice: UInt64

    init(_ info: stat) {
        // The S_IF* values are fixed by the Linux ABI; spelled out because Glibc's macros import
        // with a different integer type than st_mode.
        switch UInt32(info.st_mode) & 0o170000 {
        case 0o100000: kind = .regular
        case 0o040000: kind = .directory
        case 0o020000: kind = .characterDevice
        case 0o060000: kind = .blockDevice
        case 0o010000: kind = .fifo
        case 0o140000: kind = .socket
        case 0o120000: kind = .symbolicLink
        default: kind = .unknown
        }
        permissions = UInt32(info.st_mode) & 0o7777
        owner = UInt32(info.st_uid)
        group = UInt32(info.st_gid)
        size = Int64(info.st_size)
        linkCount = Int(info.st_nlink)
        modificationTime = Int64(info.st_mtim.tv_sec)
        modificationNanoseconds = Int64(info.st_mtim.tv_nsec)
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        specialDevice = UInt64(info.st_rdev)
    }

    /// Whether this is one of Linux's memory character devices that take any write at once and
    /// never block: /dev/null (1:3), /dev/zero (1:5) and /dev/full (1:7), wherever their device
    /// files are (mknod in a temporary directory included).
    public var isNeverBlockingDevice: Bool {
        guard kind == .characterDevice else { return false }
        // Linux's dev_t encoding (glibc's gnu_dev_major / gnu_dev_minor).
        let major = ((specialDevice >> 8) & 0xFFF) | ((specialDevice >> 32) & ~UInt64(0xFFF))
        let minor = (specialDevice & 0xFF) | ((specialDevice >> 12) & ~UInt64(0xFF))
        return major == 1 && (minor == 3 || minor == 5 || minor == 7)
    }
}

extension FileStatus.Kind {
    /// "a character device", "a FIFO", ... for messages.
    public var article: String {
        switch self {
        case .regular: return "a regular file"
        case .directory: return "a directory"
        case .characterDevice: return "a character device"
        case .blockDevice: return "a block device"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .symbolicLink: return "a symbolic link"
        case .unknown: return "a special file"
        }
    }
}

extension File {
    /// stat(2) of `path` (lstat(2) when `followingLinks` is false).
    /// - Parameters:
    ///   - path: the path.
    ///   - followingLinks: whether a final symbolic link is followed.
    /// - Returns: the status, or nil when nothing is at `path`.
    /// - Throws: `Errno` (EACCES, ENOTDIR, ELOOP, ...).
    public static func status(atPath path: String, followingLinks: Bool = true) throws(Errno) -> FileStatus? {
        try Sys.status(atPath: path, followingLinks: followingLinks).map(FileStatus.init)
    }

    /// fstat(2) of this file.
    /// - Returns: its status.
    /// - Throws: `Errno`.
    public func status() throws(Errno) -> FileStatus { FileStatus(try Sys.status(fileDescriptor)) }
}

/// A download destination, resolved: what the path names once symbolic links are followed.
public struct OutputTarget: Sendable, Equatable {
    /// What is at the resolved path.
    public enum Kind: Sendable, Equatable {
        /// Nothing yet: a new file will be created.
        case newFile
        /// An existing regular file, replaced at the end (its status is kept).
        case regularFile(FileStatus)
        /// A directory: it cannot be written (EISDIR).
        case directory
        /// A character or block device, a FIFO, a socket: written as it is.
        case special(FileStatus.Kind)
        /// One of this process's open descriptors (/dev/stdout, /dev/fd/N): written through a
        /// duplicate, at its own position.
        case descriptor(CInt)
        /// A descriptor of another process (/proc/PID/fd/N): opened through the link, as curl
        /// opens it.
        case otherProcessDescriptor
    }

    /// The path as given.
    public let path: String
    /// The path after symbolic links: the file that is written or replaced.
    public let resolvedPath: String
    /// What is there.
    public let kind: Kind

    /// Whether the target is written as it is (no temporary file, no rename).
    public var isWrittenDirectly: Bool {
        switch kind {
        case .newFile, .regularFile, .directory: return false
        case .special, .descriptor, .otherProcessDescriptor: return true
        }
    }

    /// Whether a partial download can be resumed in it (a regular file, or none yet).
    public var isResumable: Bool {
        switch kind {
        case .newFile, .regularFile: return true
        default: return false
        }
    }

    /// "a FIFO", "standard output", ... for messages.
    public var kindDescription: String {
        switch kind {
        case .newFile: return "a new file"
        case .regularFile: return "a regular file"
        case .directory: return "a directory"
        case .special(let kind): return kind.article
        case .descriptor(1): return "standard output"
        case .descriptor(2): return "standard error"
        case .descriptor(let fd): return "descriptor \(fd)"
        case .otherProcessDescriptor: return "another process's descriptor"
        }
    }

    /// Follows symbolic links from `path` and looks at what is there.
    /// - Parameter path: the destination as given.
    /// - Returns: the resolved target.
    /// - Throws: `Errno` (ELOOP after 40 links, EACCES, ENOTDIR, ...).
    public static func resolve(_ path: String) throws(Errno) -> OutputTarget {
        var current = path
        var links = 0
        while true {
            guard let status = try File.status(atPath: current, followingLinks: false) else {
                return OutputTarget(path: path, resolvedPath: current, kind: .newFile)
            }
            switch status.kind {
            case .symbolicLink:
                switch try descriptorLink(current) {
                case .own(let fd): return OutputTarget(path: path, resolvedPath: current, kind: .descriptor(fd))
                case .otherProcess: return OutputTarget(path: path, resolvedPath: current, kind: .otherProcessDescriptor)
                case .none: break
                }
                links += 1
                guard links <= 40 else { throw Errno(rawValue: ELOOP) }
                let link = try Sys.readLink(current)
                current = link.hasPrefix("/") ? link : OutputTarget.directory(of: current) + "/" + link
            case .regular:
                return OutputTarget(path: path, resolvedPath: current, kind: .regularFile(status))
            case .directory:
                return OutputTarget(path: path, resolvedPath: current, kind: .directory)
            case .characterDevice, .blockDevice, .fifo, .socket, .unknown:
                return OutputTarget(path: path, resolvedPath: current, kind: .special(status.kind))
            }
        }
    }

    /// The directory part of `path` ("." for a bare name, "/" for a name at the root).
    public static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let directory = String(path[..<slash])
        return directory.isEmpty ? "/" : directory
    }

    private enum DescriptorLink { case own(CInt), otherProcess, none }

    /// Whether the symbolic link at `path` is an entry of a /proc/PID/fd directory (the kernel's
    /// "magic" links, whose targets are not paths: "pipe:[1234]", or a deleted file).
    private static func descriptorLink(_ path: String) throws(Errno) -> DescriptorLink {
        let name = path[path.index(after: path.lastIndex(of: "/") ?? path.startIndex)...]
        guard let number = CInt(name), number >= 0, path.contains("/") else { return .none }
        guard let parent = try? Sys.realPath(directory(of: path)) else { return .none }
        // /proc/PID/fd or /proc/PID/task/TID/fd
        let parts = parent.split(separator: "/")
        guard parts.first == "proc", parts.last == "fd", let pid = Int32(parts[1]) else { return .none }
        guard parts.count == 3 || (parts.count == 5 && parts[2] == "task" && Int32(parts[3]) != nil) else { return .none }
        return pid == Sys.processID() ? .own(number) : .otherProcess
    }
}

/// What a fresh download does when a file already has its name.
public enum ExistingFilePolicy: Sendable, Equatable {
    /// Replace it atomically on success (curl's `-o`).
    case replace
    /// Leave it and fail with EEXIST (curl's `-J`).
    case keep
    /// Leave it and take the first free name among NAME.1 ... NAME.limit; EEXIST when none is
    /// free (curl's `--no-clobber`, limit 100).
    case numbered(limit: Int)
}

/// A download being written, by the rules at the top of this file.
public final class OutputFile: Sendable {
    /// How the bytes reach the target.
    public enum Strategy: Sendable, Equatable {
        /// Into a temporary file renamed over the target at `commit()`.
        case replace
        /// Into the target itself, truncated first (its directory is not writable).
        case inPlace
        /// Into the device, FIFO, socket or descriptor as it is.
        case direct
        /// Appended to the existing regular file (a resumed download), which `commit()` moves to
        /// the target when it is elsewhere.
        case append
    }

    /// The file that becomes the target at `commit()`.
    private enum Temporary: Sendable, Equatable {
        /// O_TMPFILE: no name until `commit()` (or `keepPartial()`) links it.
        case unnamed
        /// A named file in the target's directory (the fallback, or a partial file moved).
        case named(String)
    }

    private struct State {
        var offset: Int64
        var temporary: Temporary?
        var closed = false
        var committedPath: String?
    }

    /// The resolved destination.
    public let target: OutputTarget
    /// How it is written.
    public let strategy: Strategy
    private let file: File
    private let state: Mutex<State>
    /// The replaced file's status: its mode and owner go onto the new file.
    private let replaced: FileStatus?
    /// Whether writes may fail with EAGAIN (a FIFO we opened O_NONBLOCK): then `write` returns
    /// short and the caller waits with `waitUntilWritable`.
    private let nonBlocking: Bool
    /// A pipe, FIFO or socket: writes must not raise SIGPIPE in a library's process.
    private let isPipeLike: Bool
    /// Written directly to a device whose writes and close never block (/dev/null): callers may
    /// write and commit from any thread, without a trip to a thread kept for blocking calls.
    public let neverBlocks: Bool
    /// The start of a name given to a temporary file.
    private let prefix: String
    /// What to do about a file that has the target's name.
    private let policy: ExistingFilePolicy

    private init(target: OutputTarget, strategy: Strategy, file: File, offset: Int64 = 0, temporary: Temporary? = nil,
                 replaced: FileStatus? = nil, nonBlocking: Bool = false, isPipeLike: Bool = false, neverBlocks: Bool = false,
                 prefix: String = ".courier-",
                 policy: ExistingFilePolicy = .replace) {
        self.policy = policy
        self.target = target
        self.strategy = strategy
        self.file = file
        self.state = Mutex(State(offset: offset, temporary: temporary))
        self.replaced = replaced
        self.nonBlocking = nonBlocking
        self.isPipeLike = isPipeLike
        self.neverBlocks = neverBlocks
        self.prefix = prefix
    }

    /// Opens `target` for a fresh download.
    /// - Parameters:
    ///   - target: the resolved destination.
    ///   - createMode: the mode of a new file before the umask (open(2)'s mode; 0666 as curl).
    ///   - temporaryPrefix: the start of a temporary file's name, when it gets one.
    ///   - policy: what to do about a file with the target's name (regular files only).
    /// - Returns: the open output.
    /// - Throws: `Errno`: EISDIR for a directory, ENXIO for a FIFO with no reader yet (open it
    ///   again once one may have come) or a socket (which cannot be opened), EEXIST for an existing
    ///   file with `.keep`, EACCES, ENOENT, ...
    public static func create(for target: OutputTarget, mode createMode: UInt32 = 0o666,
                              temporaryPrefix: String = ".courier-", existing policy: ExistingFilePolicy = .replace) throws(Errno) -> OutputFile {
        let directory = OutputTarget.directory(of: target.resolvedPath)
        if policy != .replace {
            switch target.kind {
            case .newFile, .regularFile:
                // Never replacing: a file there is refused (.keep) or passed by (.numbered); the
                // new file is linked in at commit under a name nobody has, next to the path given.
                if case .regularFile = target.kind, policy == .keep { throw Errno.fileExists }
                let near = OutputTarget.directory(of: target.path)
                let (file, temporary) = try makeTemporary(in: near, prefix: temporaryPrefix, mode: createMode)
                return OutputFile(target: target, strategy: .replace, file: file, temporary: temporary, prefix: temporaryPrefix,
                                  policy: policy)
            default:
                break
            }
        }
        switch target.kind {
        case .directory:
            throw Errno(rawValue: EISDIR)
        case .newFile:
            let (file, temporary) = try makeTemporary(in: directory, prefix: temporaryPrefix, mode: createMode)
            return OutputFile(target: target, strategy: .replace, file: file, temporary: temporary, prefix: temporaryPrefix)
        case .regularFile(let status):
            do {
                let (file, temporary) = try makeTemporary(in: directory, prefix: temporaryPrefix, mode: 0o600)
                return OutputFile(target: target, strategy: .replace, file: file, temporary: temporary, replaced: status,
                                  prefix: temporaryPrefix)
            } catch where error.rawValue == EACCES || error.rawValue == EPERM {
                // The directory cannot take a new file; the file itself may still be writable.
                let file = try File.open(target.resolvedPath, access: .writeOnly, truncate: true)
                return OutputFile(target: target, strategy: .inPlace, file: file)
            }
        case .descriptor(let fd):
            let file = File(adopting: try Sys.duplicate(fd), path: target.path)
            let status = try file.status()
            return OutputFile(target: target, strategy: .direct, file: file, isPipeLike: status.kind == .fifo || status.kind == .socket,
                              neverBlocks: status.isNeverBlockingDevice)
        case .special(let kind):
            var flags = O_WRONLY | O_NOCTTY
            if kind == .fifo { flags |= O_NONBLOCK }
            let file = File(adopting: try Sys.open(target.resolvedPath, flags: flags), path: target.resolvedPath)
            // The opened file, not the path's earlier status: it is what is written.
            let neverBlocks = kind == .characterDevice && ((try? file.status())?.isNeverBlockingDevice ?? false)
            return OutputFile(target: target, strategy: .direct, file: file, nonBlocking: kind == .fifo,
                              isPipeLike: kind == .fifo || kind == .socket, neverBlocks: neverBlocks)
        case .otherProcessDescriptor:
            // As curl opens any path: "wb" (truncated when it is a regular file).
            let file = File(adopting: try Sys.open(target.path, flags: O_WRONLY | O_NOCTTY | O_TRUNC), path: target.path)
            let status = try file.status()
            return OutputFile(target: target, strategy: .direct, file: file, isPipeLike: status.kind == .fifo || status.kind == .socket,
                              neverBlocks: status.isNeverBlockingDevice)
        }
    }

    /// Opens the existing regular file `partial` to append at `offset` (a resumed download). A
    /// file longer than `offset` is cut back to it, so the bytes appended land exactly after the
    /// validated prefix.
    /// - Parameters:
    ///   - partial: the resolved partial file; it must be a regular file.
    ///   - offset: the validated length.
    ///   - destination: where the completed file goes when that is not `partial` itself (a
    ///     library download kept its partial bytes in a temporary file): `commit()` renames it
    ///     there, carrying over an existing file's mode and owner. It must be a regular file or a
    ///     new one.
    /// - Returns: the open output.
    /// - Throws: `Errno`: EINVAL when the file is shorter than `offset` or either is not a
    ///   regular file.
    public static func append(to partial: OutputTarget, at offset: Int64, movingTo destination: OutputTarget? = nil) throws(Errno) -> OutputFile {
        guard case .regularFile = partial.kind else { throw Errno(rawValue: EINVAL) }
        var replaced: FileStatus?
        switch destination?.kind {
        case nil, .newFile?: break
        case .regularFile(let status)?: replaced = status
        default: throw Errno(rawValue: EINVAL)
        }
        let file = try File.open(partial.resolvedPath, access: .writeOnly)
        let size = try file.size()
        guard size >= offset else { throw Errno(rawValue: EINVAL) }
        if size > offset { try file.truncate(to: offset) }
        return OutputFile(target: destination ?? partial, strategy: .append, file: file, offset: offset,
                          temporary: destination == nil ? nil : .named(partial.resolvedPath), replaced: replaced)
    }

    /// The temporary file's path while it has one: the named fallback of `.replace`, or the
    /// partial file an `.append` moves to the target. nil for an unnamed (O_TMPFILE) file.
    public var temporaryPath: String? {
        state.withLock { s in
            if case .named(let path)? = s.temporary { return path }
            return nil
        }
    }

    /// Whether the temporary file has no name (O_TMPFILE): a process killed now leaves nothing.
    public var isUnnamed: Bool { state.withLock { $0.temporary == .unnamed } }

    /// Whether `commit()` moves a file into place (rather than closing one written where it is).
    public var movesIntoPlace: Bool { state.withLock { $0.temporary != nil } }

    /// The path the output went to, once `commit()` succeeded: the target's path as given (a
    /// symbolic link's name, not the file it names), or with `.numbered` the free name taken
    /// (NAME.N).
    public var committedPath: String? { state.withLock { $0.committedPath } }

    /// The file offset reached: bytes written since opening, plus the append offset.
    public var offset: Int64 { state.withLock { $0.offset } }

    /// Writes bytes at the current end of the output.
    /// - Parameter bytes: the bytes.
    /// - Returns: how many were taken: all of them, except for a FIFO whose reader is slower than
    ///   the writer (then wait with `waitUntilWritable` and write the rest).
    /// - Throws: `Errno` (ENOSPC, EIO, EPIPE when a FIFO's or pipe's reader went away, ...).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> Int {
        let offset = state.withLock { $0.offset }
        var done = 0
        if strategy == .direct {
            let fd = file.fileDescriptor
            writing: while done < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
                switch isPipeLike ? try Sys.writeWithoutBrokenPipeSignal(fd, rest) : try Sys.write(fd, rest) {
                case .processed(let n):
                    done += n
                case .wouldBlock:
                    if nonBlocking { break writing }
                    Sys.waitWritable(fd)  // an inherited descriptor someone made non-blocking
                }
            }
        } else {
            try file.write(bytes, at: offset)
            done = bytes.count
        }
        state.withLock { $0.offset += Int64(done) }
        return done
    }

    /// Whether `splice(from:with:count:idleTimeout:progress:)` can be used: a regular file (new,
    /// replaced, written in place or appended), not a device, FIFO or descriptor written directly.
    public var acceptsSplice: Bool { strategy != .direct }

    /// Moves bytes from `socket` to the end of the output with `splicer`, inside the kernel (no
    /// copy through this process). Blocking: call it on a `BlockingIOThread`.
    /// - Parameters:
    ///   - socket: a connected socket no event loop watches meanwhile.
    ///   - splicer: the pipe to move through.
    ///   - count: the bytes to move, or nil for all until the peer closes.
    ///   - idleTimeout: the longest wait for the socket's next bytes.
    ///   - progress: called with the bytes moved so far.
    /// - Returns: what was moved.
    /// - Throws: `SpliceError`; the bytes it reports as moved are written (and counted).
    public func splice(from socket: Socket, with splicer: SocketSplicer, count: UInt64?, idleTimeout: Duration,
                       progress: (UInt64) -> Void) throws(SpliceError) -> SocketSplicer.Outcome {
        precondition(acceptsSplice, "splice into a \(strategy) output")
        let offset = state.withLock { $0.offset }
        do {
            let outcome = try splicer.splice(from: socket, to: file, at: offset, count: count, idleTimeout: idleTimeout, progress: progress)
            state.withLock { $0.offset += Int64(outcome.bytesMoved) }
            return outcome
        } catch {
            state.withLock { $0.offset += Int64(error.bytesMoved) }
            throw error
        }
    }

    /// Writes a buffer's readable bytes (not consumed); see `write(_:)`.
    /// - Parameter buffer: the bytes.
    /// - Returns: how many were taken.
    /// - Throws: `Errno`.
    public func write(_ buffer: ByteBuffer) throws(Errno) -> Int {
        try buffer.withUnsafeReadableBytes { (bytes) throws(Errno) -> Int in try write(bytes) }
    }

    /// Waits up to `milliseconds` for a FIFO to take more bytes (poll(2)).
    /// - Parameter milliseconds: the longest wait.
    /// - Returns: true when it is writable (or failed: the next write says how).
    public func waitUntilWritable(milliseconds: Int32) -> Bool {
        Sys.waitWritable(file.fileDescriptor, milliseconds: milliseconds)
    }

    /// Finishes the output: a temporary file gets the replaced file's mode and owner and takes
    /// the target's place — an unnamed file is linked straight to a new target's name, or to a
    /// unique name renamed over an existing target; every other output is closed.
    /// - Throws: `Errno` (from linkat, rename, fchmod or close); a fresh temporary file is gone
    ///   then, a partial file being completed stays.
    public func commit() throws(Errno) {
        let temporary = state.withLock { s -> Temporary? in
            s.closed = true
            return s.temporary
        }
        guard let temporary else {
            try file.close()
            state.withLock { $0.committedPath = target.path }
            return
        }
        if policy != .replace {
            try commitWithoutReplacing(temporary)
            return
        }
        var named: String?
        do throws(Errno) {
            if let replaced { try carryOver(replaced) }
            switch temporary {
            case .named(let path):
                named = path
            case .unnamed:
                if replaced == nil {
                    // A new file: linkat gives it the target's name in one step; nothing else
                    // is ever visible. Someone else's file there since: replace it as below.
                    do throws(Errno) {
                        try Sys.linkUnnamed(file.fileDescriptor, to: target.resolvedPath)
                        state.withLock { s in
                            s.temporary = nil
                            s.committedPath = target.path
                        }
                        try file.close()
                        return
                    } catch where error.rawValue == EEXIST {}
                }
                named = try linkUnique()
            }
            try file.close()
            try File.rename(named!, to: target.resolvedPath)
            state.withLock { s in
                s.temporary = nil
                s.committedPath = target.path
            }
        } catch {
            if strategy == .replace, let named { try? File.remove(named) }
            state.withLock { $0.temporary = nil }
            throw error
        }
    }

    /// Commits under the first name nobody has: the path given, then (with `.numbered`) NAME.1
    /// ... NAME.limit, each by an exclusive link (linkat for an unnamed file, link(2) for a named
    /// one), so an existing file is never replaced, whatever appears in between.
    private func commitWithoutReplacing(_ temporary: Temporary) throws(Errno) {
        var candidates = [target.path]
        if case .numbered(let limit) = policy, limit > 0 { candidates += (1...limit).map { target.path + ".\($0)" } }
        defer {
            if case .named(let path) = temporary { try? File.remove(path) }
            state.withLock { $0.temporary = nil }
            try? file.close()
        }
        for candidate in candidates {
            do throws(Errno) {
                switch temporary {
                case .unnamed: try Sys.linkUnnamed(file.fileDescriptor, to: candidate)
                case .named(let path): try Sys.link(path, to: candidate)
                }
                state.withLock { $0.committedPath = candidate }
                return
            } catch where error == .fileExists {
                continue
            }
        }
        throw Errno.fileExists
    }

    /// Gives the new file the replaced one's owner and group where the process may (root may;
    /// anyone may keep a group they belong to), then its permission bits (after chown, which
    /// clears setuid and setgid).
    private func carryOver(_ replaced: FileStatus) throws(Errno) {
        let fd = file.fileDescriptor
        let current = try file.status()
        if current.owner != replaced.owner || current.group != replaced.group {
            do throws(Errno) {
                try Sys.changeOwner(fd, user: replaced.owner, group: replaced.group)
            } catch {
                // Not root: the new file is the writer's; keep the group if allowed.
                if current.group != replaced.group { try? Sys.changeOwner(fd, user: UInt32.max, group: replaced.group) }
            }
        }
        try Sys.changeMode(fd, to: replaced.permissions)
    }

    /// Links the unnamed file to a new unique name in the target's directory.
    private func linkUnique() throws(Errno) -> String {
        let base = OutputTarget.directory(of: target.resolvedPath) + "/" + prefix
        var attempts = 0
        while true {
            let name = base + OutputFile.uniqueSuffix()
            do throws(Errno) {
                try Sys.linkUnnamed(file.fileDescriptor, to: name)
                return name
            } catch where error.rawValue == EEXIST && attempts < 100 {
                attempts += 1
            }
        }
    }

    /// Abandons the output: a temporary file is closed and removed (an unnamed one simply goes
    /// with its descriptor); the target is left as it is (for `.inPlace` and `.append` it holds
    /// what was written).
    public func discard() {
        let (temporary, wasClosed) = state.withLock { s -> (Temporary?, Bool) in
            let result = (s.temporary, s.closed)
            s.closed = true
            s.temporary = nil
            return result
        }
        if !wasClosed { try? file.close() }
        if strategy == .replace, case .named(let path)? = temporary { try? File.remove(path) }
    }

    /// Closes the output and keeps what was written as a partial download.
    /// - Returns: the path of the partial file: the temporary file for `.replace` (an unnamed one
    ///   is given a name first), the partial file for `.append`, the target for `.inPlace`; nil
    ///   for a direct output (nothing can be resumed there) or when no name could be given.
    public func keepPartial() -> String? {
        let (temporary, wasClosed) = state.withLock { s -> (Temporary?, Bool) in
            let result = (s.temporary, s.closed)
            s.closed = true
            s.temporary = nil
            return result
        }
        var kept: String?
        switch (strategy, temporary) {
        case (.direct, _): kept = nil
        case (.inPlace, _): kept = target.resolvedPath
        case (_, .named(let path)?): kept = path
        case (_, .unnamed?): kept = wasClosed ? nil : try? linkUnique()
        case (_, nil): kept = strategy == .append ? target.resolvedPath : nil
        }
        if !wasClosed { try? file.close() }
        return kept
    }

    /// Opens the temporary file of a replace: unnamed (O_TMPFILE) in `directory`, or — where the
    /// file system or the kernel cannot (EOPNOTSUPP, EISDIR) — a new file with a unique name
    /// (O_CREAT | O_EXCL). Either way `mode` less the umask, O_CLOEXEC, read and write.
    private static func makeTemporary(in directory: String, prefix: String, mode: UInt32) throws(Errno) -> (File, Temporary) {
        do throws(Errno) {
            let fd = try Sys.openUnnamed(inDirectory: directory, mode: mode)
            return (File(adopting: fd, path: directory), .unnamed)
        } catch where error.rawValue == EOPNOTSUPP || error.rawValue == EISDIR {
            let (file, path) = try makeNamedTemporary(in: directory, prefix: prefix, mode: mode)
            return (file, .named(path))
        }
    }

    /// Creates a new file with a unique name in `directory` (O_CREAT | O_EXCL, `mode` less the
    /// umask, O_CLOEXEC), opened for reading and writing.
    static func makeNamedTemporary(in directory: String, prefix: String, mode: UInt32) throws(Errno) -> (File, String) {
        let base = (directory.hasSuffix("/") ? directory : directory + "/") + prefix
        var attempts = 0
        while true {
            let name = base + uniqueSuffix()
            do throws(Errno) {
                let fd = try Sys.open(name, flags: O_RDWR | O_CREAT | O_EXCL, mode: mode)
                return (File(adopting: fd, path: name), name)
            } catch where error.rawValue == EEXIST && attempts < 100 {
                attempts += 1
            }
        }
    }

    /// Six random characters of [A-Za-z0-9], as mkstemp's.
    private static func uniqueSuffix() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        var random = SystemRandomNumberGenerator()
        var suffix = ""
        for _ in 0..<6 { suffix.unicodeScalars.append(Unicode.Scalar(alphabet[Int(random.next(upperBound: UInt64(alphabet.count)))])) }
        return suffix
    }
}
