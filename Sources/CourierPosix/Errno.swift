// Errno: the typed error every failing syscall throws (design §6, §7). A value type over the C
// `errno` code with the C name ("ECONNRESET") and the C library's message; swift-system's
// `Errno` is the model. Codes that are programmer errors (EBADF, EFAULT) never become an `Errno`:
// the syscall wrappers trap on them (see Syscall.swift).

/// An error code from the kernel or the C library, as set in `errno`.
///
/// Compare against the named constants (`error == .connectionReset`) rather than the message,
/// which is not API.
public struct Errno: Error, Hashable, Sendable, CustomStringConvertible {
    /// The C value of `errno`.
    public let rawValue: CInt

    /// Creates the error for a raw `errno` value.
    /// - Parameter rawValue: the C code.
    public init(rawValue: CInt) { self.rawValue = rawValue }

    /// The C name of the code ("ECONNRESET"), or "errno N" for a code without a name here.
    public var name: String { Errno.names[rawValue] ?? "errno \(rawValue)" }

    /// The C library's message for the code (`strerror_r`), for people, not for matching.
    public var message: String { Sys.errorMessage(rawValue) }

    /// "ECONNRESET (Connection reset by peer)".
    public var description: String { "\(name) (\(message))" }

    // Values are Linux's (asm-generic/errno-base.h, errno.h); they are ABI and never change.

    /// `EPERM`: operation not permitted.
    public static let notPermitted = Errno(rawValue: 1)
    /// `ENOENT`: no such file or directory.
    public static let noSuchFileOrDirectory = Errno(rawValue: 2)
    /// `EINTR`: interrupted system call (retried by the wrappers; never thrown by them).
    public static let interrupted = Errno(rawValue: 4)
    /// `EIO`: input/output error.
    public static let ioError = Errno(rawValue: 5)
    /// `ENXIO`: no such device or address (a FIFO with no reader opened O_NONBLOCK, a socket opened
    /// as a file).
    public static let noSuchDeviceOrAddress = Errno(rawValue: 6)
    /// `EBADF`: bad file descriptor (a programmer error; the wrappers trap on it).
    public static let badFileDescriptor = Errno(rawValue: 9)
    /// `EAGAIN` / `EWOULDBLOCK`: the operation would block (returned as `IOResult.wouldBlock`).
    public static let wouldBlock = Errno(rawValue: 11)
    /// `ENOMEM`: out of memory.
    public static let noMemory = Errno(rawValue: 12)
    /// `EACCES`: permission denied.
    public static let permissionDenied = Errno(rawValue: 13)
    /// `EFAULT`: bad address (a programmer error; the wrappers trap on it).
    public static let badAddress = Errno(rawValue: 14)
    /// `EEXIST`: file exists.
    public static let fileExists = Errno(rawValue: 17)
    /// `EXDEV`: cross-device link (rename across file systems).
    public static let crossDeviceLink = Errno(rawValue: 18)
    /// `ENOTDIR`: not a directory.
    public static let notDirectory = Errno(rawValue: 20)
    /// `EISDIR`: is a directory.
    public static let isDirectory = Errno(rawValue: 21)
    /// `EINVAL`: invalid argument.
    public static let invalidArgument = Errno(rawValue: 22)
    /// `ENFILE`: too many open files in the system.
    public static let tooManyOpenFilesInSystem = Errno(rawValue: 23)
    /// `EMFILE`: too many open files in this process.
    public static let tooManyOpenFiles = Errno(rawValue: 24)
    /// `EFBIG`: file too large.
    public static let fileTooLarge = Errno(rawValue: 27)
    /// `ENOSPC`: no space left on device.
    public static let noSpace = Errno(rawValue: 28)
    /// `EPIPE`: broken pipe (the peer closed; sends use MSG_NOSIGNAL so no SIGPIPE is raised).
    public static let brokenPipe = Errno(rawValue: 32)
    /// `ENAMETOOLONG`: file name too long.
    public static let nameTooLong = Errno(rawValue: 36)
    /// `ENOTSOCK`: not a socket.
    public static let notSocket = Errno(rawValue: 88)
    /// `EPROTONOSUPPORT`: protocol not supported.
    public static let protocolNotSupported = Errno(rawValue: 93)
    /// `EOPNOTSUPP`: operation not supported.
    public static let notSupported = Errno(rawValue: 95)
    /// `EAFNOSUPPORT`: address family not supported (e.g. IPv6 disabled).
    public static let addressFamilyNotSupported = Errno(rawValue: 97)
    /// `EADDRINUSE`: address already in use.
    public static let addressInUse = Errno(rawValue: 98)
    /// `EADDRNOTAVAIL`: cannot assign requested address.
    public static let addressNotAvailable = Errno(rawValue: 99)
    /// `ENETDOWN`: network is down.
    public static let networkDown = Errno(rawValue: 100)
    /// `ENETUNREACH`: network is unreachable.
    public static let networkUnreachable = Errno(rawValue: 101)
    /// `ECONNABORTED`: software caused connection abort.
    public static let connectionAborted = Errno(rawValue: 103)
    /// `ECONNRESET`: connection reset by peer.
    public static let connectionReset = Errno(rawValue: 104)
    /// `ENOBUFS`: no buffer space available.
    public static let noBufferSpace = Errno(rawValue: 105)
    /// `EISCONN`: the socket is already connected.
    public static let alreadyConnected = Errno(rawValue: 106)
    /// `ENOTCONN`: the socket is not connected.
    public static let notConnected = Errno(rawValue: 107)
    /// `ETIMEDOUT`: connection timed out.
    public static let timedOut = Errno(rawValue: 110)
    /// `ECONNREFUSED`: connection refused.
    public static let connectionRefused = Errno(rawValue: 111)
    /// `EHOSTDOWN`: host is down.
    public static let hostDown = Errno(rawValue: 112)
    /// `EHOSTUNREACH`: no route to host.
    public static let hostUnreachable = Errno(rawValue: 113)
    /// `EALREADY`: operation already in progress.
    public static let alreadyInProgress = Errno(rawValue: 114)
    /// `EINPROGRESS`: operation now in progress (a non-blocking connect has started).
    public static let inProgress = Errno(rawValue: 115)

    private static let names: [CInt: String] = [
        1: "EPERM", 2: "ENOENT", 3: "ESRCH", 4: "EINTR", 5: "EIO", 6: "ENXIO", 7: "E2BIG",
        8: "ENOEXEC", 9: "EBADF", 10: "ECHILD", 11: "EAGAIN", 12: "ENOMEM", 13: "EACCES",
        14: "EFAULT", 16: "EBUSY", 17: "EEXIST", 18: "EXDEV", 19: "ENODEV", 20: "ENOTDIR",
        21: "EISDIR", 22: "EINVAL", 23: "ENFILE", 24: "EMFILE", 25: "ENOTTY", 26: "ETXTBSY",
        27: "EFBIG", 28: "ENOSPC", 29: "ESPIPE", 30: "EROFS", 31: "EMLINK", 32: "EPIPE",
        33: "EDOM", 34: "ERANGE", 35: "EDEADLK", 36: "ENAMETOOLONG", 37: "ENOLCK", 38: "ENOSYS",
        39: "ENOTEMPTY", 40: "ELOOP", 75: "EOVERFLOW", 88: "ENOTSOCK", 89: "EDESTADDRREQ",
        90: "EMSGSIZE", 91: "EPROTOTYPE", 92: "ENOPROTOOPT", 93: "EPROTONOSUPPORT",
        95: "EOPNOTSUPP", 97: "EAFNOSUPPORT", 98: "EADDRINUSE", 99: "EADDRNOTAVAIL",
        100: "ENETDOWN", 101: "ENETUNREACH", 102: "ENETRESET", 103: "ECONNABORTED",
        104: "ECONNRESET", 105: "ENOBUFS", 106: "EISCONN", 107: "ENOTCONN", 108: "ESHUTDOWN",
        110: "ETIMEDOUT", 111: "ECONNREFUSED", 112: "EHOSTDOWN", 113: "EHOSTUNREACH",
        114: "EALREADY", 115: "EINPROGRESS", 122: "EDQUOT", 125: "ECANCELED",
    ]
}
