// Socket: the single owner of one socket descriptor. Every socket is non-blocking and
// close-on-exec from birth (SOCK_NONBLOCK | SOCK_CLOEXEC, accept4), every send uses
// MSG_NOSIGNAL, and the descriptor is closed exactly once: by `close()` or, failing that, by
// deinit. Using a socket after `close()` is a programmer error and traps.
//
// Threading: a Socket is Sendable so it can be handed to the event loop, but it is not a
// synchronised object: use it from one thread at a time — in practice the loop thread that it is
// registered with (design §4). Only the open/closed state is atomic, so a racing double close is
// still a single close(2).

import CourierBytes
import Synchronization
internal import Glibc

/// The direction(s) `Socket.shutdown(_:)` closes.
public enum ShutdownDirection: Sendable {
    /// No more receives (SHUT_RD).
    case read
    /// No more sends; the peer reads end of file (SHUT_WR).
    case write
    /// Both (SHUT_RDWR).
    case both
}

/// A non-blocking TCP (or, for tests, AF_UNIX) socket that owns its descriptor.
public final class Socket: @unchecked Sendable, CustomStringConvertible {
    private let descriptor: Atomic<CInt>

    /// Takes ownership of `fd`, which must be an open non-blocking socket.
    init(adopting fd: CInt) {
        precondition(fd >= 0, "invalid descriptor")
        descriptor = Atomic(fd)
    }

    deinit {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        if fd >= 0 { try? Sys.close(fd) }
    }

    /// The descriptor, for registration with an event loop. Traps after `close()`.
    public var fileDescriptor: CInt {
        let fd = descriptor.load(ordering: .acquiring)
        precondition(fd >= 0, "socket used after close()")
        return fd
    }

    /// Whether `close()` has not been called yet.
    public var isOpen: Bool { descriptor.load(ordering: .acquiring) >= 0 }

    /// "Socket(fd: 7)" or "Socket(closed)".
    public var description: String {
        let fd = descriptor.load(ordering: .relaxed)
        return fd >= 0 ? "Socket(fd: \(fd))" : "Socket(closed)"
    }

    // MARK: Creating

    /// Creates an unconnected non-blocking TCP socket.
    /// - Parameters:
    ///   - family: IPv4 or IPv6.
    ///   - noDelay: whether to set TCP_NODELAY (on by default: Courier writes whole requests).
    /// - Returns: the socket.
    /// - Throws: `Errno` (EAFNOSUPPORT when the family is unavailable, EMFILE, ...).
    public static func makeTCP(family: IPAddress.Family, noDelay: Bool = true) throws(Errno) -> Socket {
        let socket = Socket(adopting: try Sys.tcpSocket(family: family == .v4 ? AF_INET : AF_INET6))
        if noDelay { try Sys.setNoDelay(socket.fileDescriptor, true) }
        return socket
    }

    /// Creates a listening TCP socket bound to `address` with SO_REUSEADDR (and IPV6_V6ONLY for
    /// IPv6). Port 0 picks a free port; read it back with `localAddress()`.
    /// - Parameters:
    ///   - address: where to listen.
    ///   - backlog: the accept queue length.
    /// - Returns: the listener; accept from it when it is readable.
    /// - Throws: `Errno` (EADDRINUSE, EADDRNOTAVAIL, EACCES, ...).
    public static func listening(on address: SocketAddress, backlog: Int32 = 511) throws(Errno) -> Socket {
        let socket = Socket(adopting: try Sys.tcpSocket(family: address.family == .v4 ? AF_INET : AF_INET6))
        let fd = socket.fileDescriptor
        try Sys.setReuseAddress(fd)
        if address.family == .v6 { try Sys.setIPv6Only(fd) }
        try Sys.bind(fd, to: address)
        try Sys.listen(fd, backlog: backlog)
        return socket
    }

    /// Creates a connected pair of AF_UNIX stream sockets (socketpair(2)), non-blocking: an
    /// in-process pipe for tests and for driving socket code without TCP.
    /// - Returns: the two ends.
    /// - Throws: `Errno`.
    public static func makePair() throws(Errno) -> (Socket, Socket) {
        let (a, b) = try Sys.socketPair()
        return (Socket(adopting: a), Socket(adopting: b))
    }

    // MARK: Connecting and accepting

    /// Starts a non-blocking connect.
    /// - Parameter address: the peer.
    /// - Returns: true when connected at once (possible on loopback); false when the connect is
    ///   in progress: wait until the socket is writable, then call `finishConnect()`.
    /// - Throws: `Errno` (ECONNREFUSED, ENETUNREACH, EADDRNOTAVAIL, ...).
    public func connect(to address: SocketAddress) throws(Errno) -> Bool {
        try Sys.connect(fileDescriptor, to: address)
    }

    /// Completes a connect that was in progress, once the socket reported writable (or error).
    /// - Throws: the connect's error (SO_ERROR), e.g. `Errno.connectionRefused`.
    public func finishConnect() throws(Errno) {
        let code = try Sys.pendingError(fileDescriptor)
        if code != 0 { throw Errno(rawValue: code) }
    }

    /// Accepts one waiting connection (accept4 with SOCK_NONBLOCK | SOCK_CLOEXEC).
    /// - Returns: the connection, or `.wouldBlock` when none is waiting.
    /// - Throws: `Errno` (EMFILE, ECONNABORTED, ...).
    public func accept() throws(Errno) -> IOResult<Socket> {
        switch try Sys.accept(fileDescriptor) {
        case .wouldBlock: return .wouldBlock
        case .processed(let fd): return .processed(Socket(adopting: fd))
        }
    }

    /// Sets or clears TCP_NODELAY.
    /// - Parameter on: whether to disable Nagle's algorithm.
    /// - Throws: `Errno`.
    public func setNoDelay(_ on: Bool) throws(Errno) { try Sys.setNoDelay(fileDescriptor, on) }

    /// The local endpoint (getsockname).
    /// - Returns: the address this socket is bound to.
    /// - Throws: `Errno`.
    public func localAddress() throws(Errno) -> SocketAddress { try Sys.localAddress(fileDescriptor) }

    /// The peer's endpoint (getpeername).
    /// - Returns: the connected peer.
    /// - Throws: `Errno` (ENOTCONN before the connect completes).
    public func remoteAddress() throws(Errno) -> SocketAddress { try Sys.remoteAddress(fileDescriptor) }

    // MARK: Reading

    /// Reads what is available, up to `maxBytes`, appending to `buffer`.
    /// - Parameters:
    ///   - buffer: receives the bytes at its writer index (room is made first).
    ///   - maxBytes: the most to read in one call.
    /// - Returns: `.processed(n)` with n > 0 bytes appended, `.processed(0)` at end of stream
    ///   (the peer shut down its side), or `.wouldBlock`.
    /// - Throws: `Errno` (ECONNRESET, ETIMEDOUT, ...).
    public func read(into buffer: inout ByteBuffer, maxBytes: Int = 65536) throws(Errno) -> IOResult<Int> {
        precondition(maxBytes > 0, "maxBytes must be positive")
        let fd = fileDescriptor
        var result: IOResult<Int> = .wouldBlock
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maxBytes) { (region) throws(Errno) -> Int in
            let target = UnsafeMutableRawBufferPointer(rebasing: region[..<min(region.count, maxBytes)])
            result = try Sys.read(fd, into: target)
            if case .processed(let n) = result { return n }
            return 0
        }
        return result
    }

    // MARK: Writing

    /// Sends bytes (send with MSG_NOSIGNAL).
    /// - Parameter bytes: the bytes.
    /// - Returns: `.processed(n)`, where n may be less than `bytes.count`, or `.wouldBlock`.
    /// - Throws: `Errno` (EPIPE, ECONNRESET, ...).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult<Int> {
        try Sys.send(fileDescriptor, bytes)
    }

    /// Sends as much of `list` as the kernel takes now, with vectored writes (sendmsg with
    /// MSG_NOSIGNAL, at most IOV_MAX pieces each), and drops what was sent from `list`.
    ///
    /// It writes again only while the kernel took everything offered (more than IOV_MAX pieces);
    /// a short write means the send buffer is full, so it returns rather than spend a syscall on
    /// the EAGAIN that would follow.
    /// - Parameter list: the pieces; on return it holds what is still unsent.
    /// - Returns: `.processed(n)` with the bytes sent (check `list.isEmpty` for completion), or
    ///   `.wouldBlock` when nothing could be sent.
    /// - Throws: `Errno` (EPIPE, ECONNRESET, ...).
    public func write(gathering list: inout GatherList) throws(Errno) -> IOResult<Int> {
        try write(gathering: &list, maxBytes: Int.max)
    }

    /// Sends at most `maxBytes` of `list` (a rate cap's grant), as `write(gathering:)` does.
    /// - Parameters:
    ///   - list: the pieces; on return it holds what is still unsent.
    ///   - maxBytes: the most bytes to send (positive).
    /// - Returns: `.processed(n)` with n ≤ `maxBytes`, or `.wouldBlock`.
    /// - Throws: `Errno` (EPIPE, ECONNRESET, ...).
    public func write(gathering list: inout GatherList, maxBytes: Int) throws(Errno) -> IOResult<Int> {
        precondition(maxBytes > 0, "maxBytes must be positive")
        let fd = fileDescriptor
        var total = 0
        while !list.isEmpty && total < maxBytes {
            let offered = min(maxBytes - total, list.pieces.count <= Sys.iovMax
                ? list.count : list.pieces.prefix(Sys.iovMax).reduce(0) { $0 + $1.count })
            switch try Sys.send(fd, gather: list, limit: maxBytes - total) {
            case .wouldBlock:
                return total == 0 ? .wouldBlock : .processed(total)
            case .processed(let n):
                list.consume(n)
                total += n
                if n < offered { return .processed(total) }
            }
        }
        return .processed(total)
    }

    /// Sends up to `count` bytes of `file` from `offset` in the kernel (sendfile(2)); the file's
    /// own position is not used or moved. SIGPIPE is never raised (see Syscall.swift).
    /// - Parameters:
    ///   - file: an open regular file.
    ///   - offset: where in the file to start.
    ///   - count: the most bytes to send.
    /// - Returns: `.processed(n)` (n may be short; 0 means `offset` is at end of file), or
    ///   `.wouldBlock`.
    /// - Throws: `Errno` (EPIPE, ECONNRESET, EINVAL for a file that cannot be mapped, ...).
    public func sendFile(_ file: File, offset: Int64, count: Int) throws(Errno) -> IOResult<Int> {
        try Sys.sendFile(fileDescriptor, from: file.fileDescriptor, offset: offset, count: count)
    }

    /// Shuts down one or both directions (shutdown(2)); the descriptor stays open.
    /// - Parameter direction: what to shut.
    /// - Throws: `Errno` (ENOTCONN).
    public func shutdown(_ direction: ShutdownDirection) throws(Errno) {
        let how: CInt
        switch direction {
        case .read: how = CInt(SHUT_RD)
        case .write: how = CInt(SHUT_WR)
        case .both: how = CInt(SHUT_RDWR)
        }
        try Sys.shutdown(fileDescriptor, how: how)
    }

    /// Closes the descriptor now (once; later use of the socket traps). Deregister it from its
    /// event loop first: the number may be reused at once.
    /// - Throws: `Errno` for a close that reported an error; the descriptor is released anyway.
    public func close() throws(Errno) {
        let fd = descriptor.exchange(-1, ordering: .acquiringAndReleasing)
        precondition(fd >= 0, "socket closed twice")
        try Sys.close(fd)
    }
}
