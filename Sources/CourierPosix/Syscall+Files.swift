// Syscall+Files.swift: the file and download-destination calls of the door to the kernel
// (Syscall.swift states the rules every wrapper follows: EINTR retried, EBADF/EFAULT trapped,
// every other errno thrown as `Errno`, the debug kernel mock asked first).

internal import Glibc
internal import CCourierLinux
import CourierBytes

extension Sys {
    // MARK: Files

    /// open(2) with O_CLOEXEC added.
    static func open(_ path: String, flags: CInt, mode: UInt32 = 0o600) throws(Errno) -> CInt {
        CInt(try retryingNonBlocking("open") {
            path.withCString { p in
                perform(.other(name: "open", fd: -1)) { raw(Glibc.open(p, flags | O_CLOEXEC, mode_t(mode))) }
            }
        })
    }

    /// mkostemp(3): creates and opens a new file named `prefix` + six unique characters, with
    /// O_EXCL, mode 0600 and O_CLOEXEC. Returns the descriptor and the path.
    static func makeTemporaryFile(prefix: String) throws(Errno) -> (CInt, String) {
        var template = Array((prefix + "XXXXXX").utf8CString)
        let fd = try retryingNonBlocking("mkostemp") {
            template.withUnsafeMutableBufferPointer { p in raw(courier_mkostemp(p.baseAddress!, O_CLOEXEC)) }
        }
        let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return (CInt(fd), path)
    }

    /// pread(2): reads at `offset` without moving the file position. 0 is end of file.
    static func pread(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        try retryingNonBlocking("pread") {
            perform(.read(fd: fd, capacity: buffer.count), into: buffer) {
                raw(Glibc.pread(fd, buffer.baseAddress, buffer.count, off_t(offset)))
            }
        }
    }

    /// pwrite(2): writes at `offset` without moving the file position; may write less.
    static func pwrite(_ fd: CInt, _ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(Errno) -> Int {
        try retryingNonBlocking("pwrite") {
            perform(.send(fd: fd, bytes: Array(bytes))) {
                raw(Glibc.pwrite(fd, bytes.baseAddress, bytes.count, off_t(offset)))
            }
        }
    }

    /// fstat(2)'s size field.
    static func fileSize(_ fd: CInt) throws(Errno) -> Int64 {
        var info = stat()
        try retryingNonBlocking("fstat") { raw(Glibc.fstat(fd, &info)) }
        return Int64(info.st_size)
    }

    /// ftruncate(2).
    static func truncate(_ fd: CInt, to length: Int64) throws(Errno) {
        try retryingNonBlocking("ftruncate") { raw(Glibc.ftruncate(fd, off_t(length))) }
    }

    /// getrandom(2) with no flags: fills `buffer` from the kernel's CSPRNG (blocking only before
    /// the pool is first initialised, at boot). Short reads and EINTR are retried.
    static func random(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) {
        var filled = 0
        while filled < buffer.count {
            let n = try retryingNonBlocking("getrandom") {
                raw(courier_getrandom(buffer.baseAddress! + filled, buffer.count - filled, 0))
            }
            filled += n
        }
    }

    /// fsync(2).
    static func sync(_ fd: CInt) throws(Errno) {
        try retryingNonBlocking("fsync") { raw(Glibc.fsync(fd)) }
    }

    /// rename(2): atomically replaces `to` with `from` (same file system).
    static func rename(_ from: String, to: String) throws(Errno) {
        try retryingNonBlocking("rename") {
            from.withCString { f in to.withCString { t in raw(Glibc.rename(f, t)) } }
        }
    }

    /// unlink(2).
    static func unlink(_ path: String) throws(Errno) {
        try retryingNonBlocking("unlink") { path.withCString { raw(Glibc.unlink($0)) } }
    }

    /// link(2): a second name for `from`; EEXIST when `to` exists (link never replaces).
    static func link(_ from: String, to: String) throws(Errno) {
        try retryingNonBlocking("link") {
            from.withCString { f in to.withCString { t in raw(Glibc.link(f, t)) } }
        }
    }

    /// mkdir(2) with `mode` (less the umask).
    static func makeDirectory(_ path: String, mode: UInt32) throws(Errno) {
        try retryingNonBlocking("mkdir") { path.withCString { raw(Glibc.mkdir($0, mode_t(mode))) } }
    }

    /// utimensat(AT_FDCWD, path, {access, modification}, 0): whole seconds, following links.
    static func setTimes(_ path: String, access: Int64, modification: Int64) throws(Errno) {
        var times = [timespec(tv_sec: Int(access), tv_nsec: 0), timespec(tv_sec: Int(modification), tv_nsec: 0)]
        try retryingNonBlocking("utimensat") {
            path.withCString { p in times.withUnsafeMutableBufferPointer { raw(Glibc.utimensat(AT_FDCWD, p, $0.baseAddress, 0)) } }
        }
    }

    /// dup2(2): makes `target` a copy of `source` (closing what `target` was).
    static func duplicate(_ source: CInt, onto target: CInt) throws(Errno) {
        try retryingNonBlocking("dup2") { raw(Glibc.dup2(source, target)) }
    }

    /// stat(2)'s size field for a path (following symbolic links).
    static func fileSize(atPath path: String) throws(Errno) -> Int64 {
        var size: Int64 = 0
        var directory: CInt = 0
        try retryingNonBlocking("stat") { path.withCString { raw(courier_stat($0, &size, &directory)) } }
        return size
    }

    /// Whether `path` names a directory (stat(2); false when it does not exist).
    static func isDirectory(atPath path: String) -> Bool {
        var size: Int64 = 0
        var directory: CInt = 0
        guard path.withCString({ courier_stat($0, &size, &directory) }) == 0 else { return false }
        return directory != 0
    }

    /// getxattr(2): the value of extended attribute `name` of `path`, or nil when the file has no
    /// such attribute (ENODATA). The size is asked first; a value that grew in between is asked
    /// again (ERANGE).
    static func extendedAttribute(_ name: String, atPath path: String) throws(Errno) -> [UInt8]? {
        while true {
            let size: Int
            do throws(Errno) {
                size = try retryingNonBlocking("getxattr") {
                    path.withCString { p in name.withCString { n in raw(courier_getxattr(p, n, nil, 0)) } }
                }
            } catch where error.rawValue == ENODATA {
                return nil
            }
            if size == 0 { return [] }
            var value = [UInt8](repeating: 0, count: size)
            do throws(Errno) {
                let n = try retryingNonBlocking("getxattr") {
                    value.withUnsafeMutableBytes { buffer in
                        path.withCString { p in name.withCString { n in raw(courier_getxattr(p, n, buffer.baseAddress, size)) } }
                    }
                }
                return Array(value.prefix(n))
            } catch where error.rawValue == ERANGE {
                continue
            } catch where error.rawValue == ENODATA {
                return nil
            }
        }
    }

    /// setxattr(2): creates or replaces extended attribute `name` of `path`.
    static func setExtendedAttribute(_ name: String, value: [UInt8], atPath path: String) throws(Errno) {
        try retryingNonBlocking("setxattr") {
            value.withUnsafeBytes { bytes in
                path.withCString { p in name.withCString { n in raw(courier_setxattr(p, n, bytes.baseAddress, bytes.count)) } }
            }
        }
    }

    /// removexattr(2). A missing attribute (ENODATA) is not an error.
    static func removeExtendedAttribute(_ name: String, atPath path: String) throws(Errno) {
        do throws(Errno) {
            try retryingNonBlocking("removexattr") {
                path.withCString { p in name.withCString { n in raw(courier_removexattr(p, n)) } }
            }
        } catch where error.rawValue == ENODATA {
            return
        }
    }

    // MARK: Download destinations (OutputFile.swift)

    /// The names in the directory `path` (opendir(3), readdir(3)), "." and ".." left out,
    /// sorted bytewise.
    static func directoryEntries(_ path: String) throws(Errno) -> [String] {
        guard let directory = path.withCString({ opendir($0) }) else { throw Errno(rawValue: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(directory) else {
                if errno != 0 { throw Errno(rawValue: errno) }
                break
            }
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// stat(2) (`followingLinks`) or lstat(2) of `path`; nil when nothing is there (ENOENT).
    static func status(atPath path: String, followingLinks: Bool) throws(Errno) -> stat? {
        var info = stat()
        do throws(Errno) {
            try retryingNonBlocking(followingLinks ? "stat" : "lstat") {
                path.withCString { p in
                    if followingLinks { return raw(stat(p, &info)) }
                    return raw(lstat(p, &info))
                }
            }
        } catch where error.rawValue == ENOENT {
            return nil
        }
        return info
    }

    /// open(directory, O_TMPFILE | O_RDWR | O_CLOEXEC, mode): a file with no name in `directory`,
    /// gone with its last descriptor unless `linkUnnamed` names it. EOPNOTSUPP where the file
    /// system cannot, EISDIR on kernels before 3.11.
    static func openUnnamed(inDirectory directory: String, mode: UInt32) throws(Errno) -> CInt {
        CInt(try retryingNonBlocking("open(O_TMPFILE)") {
            directory.withCString { d in
                perform(.other(name: "open(O_TMPFILE)", fd: -1)) { raw(courier_open_unnamed(d, O_RDWR | O_CLOEXEC, mode)) }
            }
        })
    }

    /// linkat(2) of /proc/self/fd/N (AT_SYMLINK_FOLLOW) to `path`: names an unnamed file. EEXIST
    /// when `path` exists (linkat never replaces).
    static func linkUnnamed(_ fd: CInt, to path: String) throws(Errno) {
        try retryingNonBlocking("linkat") {
            path.withCString { p in perform(.other(name: "linkat", fd: fd)) { raw(courier_link_unnamed(fd, p)) } }
        }
    }

    /// fstat(2).
    static func status(_ fd: CInt) throws(Errno) -> stat {
        var info = stat()
        try retryingNonBlocking("fstat") { raw(Glibc.fstat(fd, &info)) }
        return info
    }

    /// readlink(2): the target of symbolic link `path`, as stored (relative or absolute).
    static func readLink(_ path: String) throws(Errno) -> String {
        var capacity = 256
        while true {
            var buffer = [CChar](repeating: 0, count: capacity)
            let n = try retryingNonBlocking("readlink") {
                path.withCString { p in buffer.withUnsafeMutableBufferPointer { raw(Glibc.readlink(p, $0.baseAddress!, capacity)) } }
            }
            if n < capacity {
                return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            }
            capacity *= 4  // the target may have been cut: ask again with more room
        }
    }

    /// realpath(3): `path` with every symbolic link, "." and ".." resolved.
    static func realPath(_ path: String) throws(Errno) -> String {
        let r: UnsafeMutablePointer<CChar>? = path.withCString { Glibc.realpath($0, nil) }
        guard let r else { throw Errno(rawValue: Glibc.errno) }
        defer { free(r) }
        return String(cString: r)
    }

    /// fchmod(2): sets the permission bits (07777) of an open file.
    static func changeMode(_ fd: CInt, to mode: UInt32) throws(Errno) {
        try retryingNonBlocking("fchmod") { raw(Glibc.fchmod(fd, mode_t(mode))) }
    }

    /// fchown(2); `UInt32.max` leaves that id as it is.
    static func changeOwner(_ fd: CInt, user: UInt32, group: UInt32) throws(Errno) {
        try retryingNonBlocking("fchown") { raw(Glibc.fchown(fd, uid_t(user), gid_t(group))) }
    }

    /// fcntl(F_DUPFD_CLOEXEC): a new descriptor for the open file description of `fd`. Unlike the
    /// other wrappers, EBADF is thrown, not trapped: the number comes from the user (`-o /dev/fd/7`).
    static func duplicate(_ fd: CInt) throws(Errno) -> CInt {
        while true {
            let r = raw(Glibc.fcntl(fd, F_DUPFD_CLOEXEC, CInt(0)))
            if r.value >= 0 { return CInt(r.value) }
            if r.errno == EINTR { continue }
            throw Errno(rawValue: r.errno)
        }
    }

    /// poll(2) for writability for at most `milliseconds`; true when writable (or in error, which
    /// the next write reports).
    static func waitWritable(_ fd: CInt, milliseconds: CInt) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        let n = (try? retryingNonBlocking("poll") { raw(Glibc.poll(&entry, 1, milliseconds)) }) ?? 1
        return n > 0
    }

    /// The process's effective user id (geteuid(2)).
    static func effectiveUserID() -> UInt32 { UInt32(Glibc.geteuid()) }

    /// The process id (getpid(2)).
    static func processID() -> Int32 { Int32(Glibc.getpid()) }
}
