// Syscall.swift: the one door to the kernel (design §7; style "The door to the kernel"). Every
// call into Glibc made by Courier lives in this file, in Syscall+Files.swift (files and
// download destinations) or in Syscall+SocketOptions.swift (AF_UNIX connects, local binding,
// keep-alive, interface look-ups), and every one goes through the same rules:
//
//   - EINTR is retried (a signal landed while the call was blocked or about to return).
//   - EAGAIN/EWOULDBLOCK on a non-blocking descriptor is not an error: it is returned as the
//     value `IOResult.wouldBlock`, and the caller waits for readiness.
//   - EBADF and EFAULT are programmer errors (a closed or foreign descriptor, a bad pointer): the
//     wrappers trap with a precondition instead of throwing, because no caller can recover from
//     having used the wrong descriptor, and continuing could touch someone else's file.
//   - Every other errno is thrown as a typed `Errno`.
//   - `close` is never retried; see `Sys.close(_:)`.
//   - Sends use MSG_NOSIGNAL and sendfile masks SIGPIPE for its own thread: a library never
//     changes the process's SIGPIPE disposition.
//
// errno is read immediately after the C call, inside `raw(_:)`, before any Swift code that could
// call into the C library (and so overwrite errno) runs.
//
// In debug builds each wrapper first asks `KernelMock.current` (a task-local, see
// KernelMock.swift), so a test can play the kernel: inject EINTR, EAGAIN, partial writes, resets.
// The mock sees only calls made from the test's own task, never those of an event-loop thread.

internal import Glibc
internal import CCourierLinux
import CourierBytes

/// The outcome of an operation on a non-blocking descriptor.
public enum IOResult<Value: Sendable>: Sendable {
    /// The kernel did the work and returned `Value` (for reads and writes, a byte count).
    case processed(Value)
    /// The operation would have blocked (EAGAIN/EWOULDBLOCK); wait for readiness and retry.
    case wouldBlock
}

extension IOResult: Equatable where Value: Equatable {}

/// A syscall's return value with errno as it was right after the call.
struct RawResult {
    var value: Int
    var errno: CInt
}

/// Reads errno right after a C call; `value` is the call's return value.
@inline(__always)
func raw<I: BinaryInteger>(_ value: I) -> RawResult {
    let v = Int(value)
    return RawResult(value: v, errno: v == -1 ? Glibc.errno : 0)
}

/// The syscall wrappers. Internal: the public surface is `Socket`, `File`, `EventLoop`, ...
enum Sys {
    /// The most iovecs one `sendmsg` takes (IOV_MAX).
    static let iovMax = Int(courier_iov_max())

    // MARK: The retry helper

    /// Runs `body` until it does not fail with EINTR.
    /// - Returns: `.processed(value)`, or `.wouldBlock` for EAGAIN/EWOULDBLOCK.
    /// - Throws: `Errno` for every other failure; traps on EBADF and EFAULT.
    @inline(__always)
    static func retrying(_ name: StaticString, _ body: () -> RawResult) throws(Errno) -> IOResult<Int> {
        while true {
            let r = body()
            guard r.value == -1 else { return .processed(r.value) }
            switch r.errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: throw failure(r.errno, in: name)
            }
        }
    }

    /// `retrying` for calls that cannot block (bind, listen, setsockopt, fstat, ...): EAGAIN is
    /// thrown like any other errno.
    @inline(__always)
    @discardableResult
    static func retryingNonBlocking(_ name: StaticString, _ body: () -> RawResult) throws(Errno) -> Int {
        while true {
            let r = body()
            guard r.value == -1 else { return r.value }
            if r.errno == EINTR { continue }
            throw failure(r.errno, in: name)
        }
    }

    /// The error to throw for `code`, after trapping on programmer errors.
    static func failure(_ code: CInt, in name: StaticString) -> Errno {
        precondition(code != EBADF && code != EFAULT,
                     "\(name): \(Errno(rawValue: code)): a closed or invalid descriptor or pointer was used")
        return Errno(rawValue: code)
    }

    /// Asks the debug kernel mock first; runs `real` when there is none or it passes through.
    @inline(__always)
    static func perform(_ call: @autoclosure () -> KernelCall,
                                into destination: UnsafeMutableRawBufferPointer? = nil,
                                _ real: () -> RawResult) -> RawResult {
        #if DEBUG
        if let kernel = KernelMock.current {
            switch kernel.reply(to: call()) {
            case .passthrough: break
            case .result(let n): return RawResult(value: n, errno: 0)
            case .error(let e): return RawResult(value: -1, errno: e.rawValue)
            case .performThenFail(let e):
                _ = real()
                return RawResult(value: -1, errno: e.rawValue)
            case .data(let bytes):
                guard let destination else { preconditionFailure("KernelReply.data answers reads only") }
                let n = min(bytes.count, destination.count)
                bytes.withUnsafeBytes { destination.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: n) }
                return RawResult(value: n, errno: 0)
            }
        }
        #endif
        return real()
    }

    // MARK: Descriptors

    /// close(2). Never retried: on Linux the descriptor is released even when close reports
    /// EINTR (the error concerns flushing, not the release), so a retry could close a descriptor
    /// another thread has just been given the same number for. EINTR is therefore treated as
    /// success; EBADF traps (a double close is a programmer error); other errors (EIO, ENOSPC on
    /// some file systems) are thrown, and the descriptor is released all the same.
    static func close(_ fd: CInt) throws(Errno) {
        let r = perform(.close(fd: fd)) { raw(Glibc.close(fd)) }
        guard r.value == -1, r.errno != EINTR else { return }
        throw failure(r.errno, in: "close")
    }

    // MARK: Sockets

    /// socket(2) for TCP, non-blocking and close-on-exec.
    static func tcpSocket(family: CInt) throws(Errno) -> CInt {
        let type = courier_sock_stream() | courier_sock_nonblock() | courier_sock_cloexec()
        return CInt(try retryingNonBlocking("socket") {
            perform(.other(name: "socket", fd: -1)) { raw(Glibc.socket(family, type, CInt(IPPROTO_TCP))) }
        })
    }

    /// socketpair(2) of AF_UNIX stream sockets, non-blocking and close-on-exec.
    static func socketPair() throws(Errno) -> (CInt, CInt) {
        var fds: (CInt, CInt) = (-1, -1)
        let type = courier_sock_stream() | courier_sock_nonblock() | courier_sock_cloexec()
        try retryingNonBlocking("socketpair") {
            withUnsafeMutableBytes(of: &fds) { p in
                raw(Glibc.socketpair(AF_UNIX, type, 0, p.baseAddress!.assumingMemoryBound(to: CInt.self)))
            }
        }
        return fds
    }

    /// setsockopt(2) with an int value.
    static func setOption(_ fd: CInt, level: CInt, name: CInt, value: CInt) throws(Errno) {
        var v = value
        try retryingNonBlocking("setsockopt") {
            raw(Glibc.setsockopt(fd, level, name, &v, socklen_t(MemoryLayout<CInt>.size)))
        }
    }

    /// getsockopt(2) of an int value.
    static func option(_ fd: CInt, level: CInt, name: CInt) throws(Errno) -> CInt {
        var v: CInt = 0
        var len = socklen_t(MemoryLayout<CInt>.size)
        try retryingNonBlocking("getsockopt") { raw(Glibc.getsockopt(fd, level, name, &v, &len)) }
        return v
    }

    /// Turns on TCP_NODELAY (requests are written whole; Nagle would only delay the last segment).
    static func setNoDelay(_ fd: CInt, _ on: Bool) throws(Errno) {
        try setOption(fd, level: CInt(IPPROTO_TCP), name: TCP_NODELAY, value: on ? 1 : 0)
    }

    /// Turns on SO_REUSEADDR (a listener can rebind while old connections sit in TIME_WAIT).
    static func setReuseAddress(_ fd: CInt) throws(Errno) {
        try setOption(fd, level: SOL_SOCKET, name: SO_REUSEADDR, value: 1)
    }

    /// Turns on IPV6_V6ONLY, so an IPv6 listener never also takes IPv4-mapped connections.
    static func setIPv6Only(_ fd: CInt) throws(Errno) {
        try setOption(fd, level: CInt(IPPROTO_IPV6), name: IPV6_V6ONLY, value: 1)
    }

    /// The pending error of a socket (SO_ERROR), cleared by reading it; 0 when there is none.
    static func pendingError(_ fd: CInt) throws(Errno) -> CInt {
        try option(fd, level: SOL_SOCKET, name: SO_ERROR)
    }

    /// bind(2).
    static func bind(_ fd: CInt, to address: SocketAddress) throws(Errno) {
        try retryingNonBlocking("bind") {
            address.withSockaddr { p, len in raw(Glibc.bind(fd, p, len)) }
        }
    }

    /// listen(2).
    static func listen(_ fd: CInt, backlog: CInt) throws(Errno) {
        try retryingNonBlocking("listen") { raw(Glibc.listen(fd, backlog)) }
    }

    /// accept4(2) with SOCK_NONBLOCK | SOCK_CLOEXEC: the accepted descriptor is born right.
    /// - Returns: the new descriptor, or `.wouldBlock` when no connection is waiting.
    static func accept(_ fd: CInt) throws(Errno) -> IOResult<CInt> {
        let flags = courier_sock_nonblock() | courier_sock_cloexec()
        let result = try retrying("accept4") {
            perform(.accept(fd: fd)) { raw(courier_accept4(fd, nil, nil, flags)) }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let n): return .processed(CInt(n))
        }
    }

    /// connect(2) on a non-blocking socket.
    /// - Returns: true when connected at once, false when the connect is in progress (EINPROGRESS):
    ///   wait until the socket is writable, then read `pendingError`.
    static func connect(_ fd: CInt, to address: SocketAddress) throws(Errno) -> Bool {
        // EINTR on a non-blocking connect means the connect continues asynchronously (POSIX);
        // calling connect again would report EALREADY, so EINTR is folded into "in progress".
        let r = perform(.connect(fd: fd, address: address)) {
            address.withSockaddr { p, len in raw(Glibc.connect(fd, p, len)) }
        }
        guard r.value == -1 else { return true }
        switch r.errno {
        case EINPROGRESS, EINTR: return false
        default: throw failure(r.errno, in: "connect")
        }
    }

    /// getsockname(2).
    static func localAddress(_ fd: CInt) throws(Errno) -> SocketAddress {
        try SocketAddress.fromSockaddr { (p, len) throws(Errno) -> Int in
            try retryingNonBlocking("getsockname") { raw(Glibc.getsockname(fd, p, len)) }
        }
    }

    /// getpeername(2).
    static func remoteAddress(_ fd: CInt) throws(Errno) -> SocketAddress {
        try SocketAddress.fromSockaddr { (p, len) throws(Errno) -> Int in
            try retryingNonBlocking("getpeername") { raw(Glibc.getpeername(fd, p, len)) }
        }
    }

    /// shutdown(2); `how` is SHUT_RD, SHUT_WR or SHUT_RDWR.
    static func shutdown(_ fd: CInt, how: CInt) throws(Errno) {
        try retryingNonBlocking("shutdown") {
            perform(.shutdown(fd: fd)) { raw(Glibc.shutdown(fd, how)) }
        }
    }

    // MARK: Netlink

    /// A NETLINK_ROUTE socket, non-blocking and close-on-exec, bound to a kernel-assigned port
    /// with `groups` (RTMGRP_* bits) joined, and a receive buffer of at least `receiveBuffer`
    /// bytes asked for (the kernel caps it at net.core.rmem_max; a small buffer only means an
    /// earlier ENOBUFS, which the monitor repairs with a full dump).
    static func netlinkRouteSocket(groups: UInt32, receiveBuffer: CInt) throws(Errno) -> CInt {
        let fd = CInt(try retryingNonBlocking("socket(AF_NETLINK)") {
            perform(.other(name: "socket", fd: -1)) { raw(courier_netlink_route_socket()) }
        })
        do {
            try setOption(fd, level: SOL_SOCKET, name: SO_RCVBUF, value: receiveBuffer)
            try retryingNonBlocking("bind(AF_NETLINK)") { raw(courier_netlink_bind(fd, groups)) }
        } catch {
            try? close(fd)
            throw error
        }
        return fd
    }

    /// Receives one netlink datagram (recvmsg). ENOBUFS (the socket overran and messages were
    /// lost) is thrown as `Errno.noBufferSpace` for the caller to resynchronise.
    /// - Returns: the byte count, the sender's port (0 for the kernel) and whether the datagram
    ///   was cut to fit `buffer`; or `.wouldBlock`.
    static func netlinkReceive(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer)
        throws(Errno) -> IOResult<(count: Int, sender: UInt32, truncated: Bool)> {
        var sender: UInt32 = 0
        var truncated: CInt = 0
        let result = try retrying("recvmsg(AF_NETLINK)") {
            perform(.read(fd: fd, capacity: buffer.count), into: buffer) {
                raw(courier_netlink_recv(fd, buffer.baseAddress, UInt(buffer.count), &sender, &truncated))
            }
        }
        switch result {
        case .wouldBlock: return .wouldBlock
        case .processed(let n): return .processed((n, sender, truncated != 0))
        }
    }

    // MARK: Reading and writing

    /// read(2) into `buffer`. A result of 0 is end of file (the peer closed its side).
    static func read(_ fd: CInt, into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> IOResult<Int> {
        try retrying("read") {
            perform(.read(fd: fd, capacity: buffer.count), into: buffer) {
                raw(Glibc.read(fd, buffer.baseAddress, buffer.count))
            }
        }
    }

    /// send(2) with MSG_NOSIGNAL: a peer that has gone away yields EPIPE, never SIGPIPE.
    static func send(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult<Int> {
        try retrying("send") {
            perform(.send(fd: fd, bytes: Array(bytes))) {
                raw(Glibc.send(fd, bytes.baseAddress, bytes.count, courier_msg_nosignal()))
            }
        }
    }

    /// write(2), for descriptors that are not sockets (eventfd, pipes, files).
    static func write(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult<Int> {
        try retrying("write") {
            perform(.send(fd: fd, bytes: Array(bytes))) { raw(Glibc.write(fd, bytes.baseAddress, bytes.count)) }
        }
    }

    /// sendmsg(2) with MSG_NOSIGNAL over the first `min(pieces, IOV_MAX)` pieces of `list`: one
    /// vectored write, no copy of buffer or static pieces. The caller consumes what was written.
    ///
    /// The iovec array (and a scratch area for inline pieces, whose bytes live inside a value)
    /// comes from `withUnsafeTemporaryAllocation`: on the stack for the usual handful of pieces,
    /// so a gather write does not allocate.
    /// At most `limit` bytes are offered (the last iovec is shortened): a rate cap's grant.
    static func send(_ fd: CInt, gather list: GatherList, limit: Int = Int.max) throws(Errno) -> IOResult<Int> {
        let pieces = list.pieces
        let n = min(pieces.count, iovMax)
        precondition(n > 0, "gather write of an empty list")
        var inlineBytes = 0
        for i in 0..<n { if case .inline(let b) = pieces[i] { inlineBytes += b.count } }
        var outcome: Result<IOResult<Int>, Errno> = .success(.wouldBlock)
        withUnsafeTemporaryAllocation(of: iovec.self, capacity: n) { iov in
            withUnsafeTemporaryAllocation(byteCount: max(inlineBytes, 1), alignment: 1) { scratch in
                var used = 0
                for i in 0..<n {
                    let piece = pieces[i]
                    if case .inline(let bytes) = piece {
                        // SAFETY: `used + bytes.count <= inlineBytes == scratch.count` (summed above).
                        let destination = scratch.baseAddress! + used
                        bytes.withUnsafeBytes { destination.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                        iov[i] = iovec(iov_base: destination, iov_len: bytes.count)
                        used += bytes.count
                    } else {
                        // SAFETY: a .buffer piece points into heap storage that `pieces` keeps
                        // alive and unmutated until this function returns; a .staticBytes piece
                        // points into the binary. Both pointers stay valid after the closure.
                        let (base, count) = piece.withUnsafeBytes { ($0.baseAddress, $0.count) }
                        iov[i] = iovec(iov_base: UnsafeMutableRawPointer(mutating: base), iov_len: count)
                    }
                }
                var offered = 0
                var count = n
                for i in 0..<n {
                    if offered + iov[i].iov_len >= limit {
                        iov[i].iov_len = limit - offered
                        count = i + 1
                        break
                    }
                    offered += iov[i].iov_len
                }
                outcome = Result { () throws(Errno) in try sendmsg(fd, UnsafeMutableBufferPointer(rebasing: iov[..<count])) }
            }
        }
        return try outcome.get()
    }

    private static func sendmsg(_ fd: CInt, _ iov: UnsafeMutableBufferPointer<iovec>) throws(Errno) -> IOResult<Int> {
        try retrying("sendmsg") {
            perform(.sendmsg(fd: fd, pieces: iov.map { Array(UnsafeRawBufferPointer(start: $0.iov_base, count: $0.iov_len)) })) {
                var message = msghdr()
                message.msg_iov = iov.baseAddress
                message.msg_iovlen = iov.count
                return raw(Glibc.sendmsg(fd, &message, courier_msg_nosignal()))
            }
        }
    }

    /// sendfile(2): up to `count` bytes of `file` from `offset` to the socket `fd`, in the kernel.
    ///
    /// sendfile has no MSG_NOSIGNAL. SIGPIPE is blocked for the calling thread around the call and
    /// a SIGPIPE it raised is consumed (sigtimedwait with a zero timeout) before the old mask comes
    /// back; the process-wide disposition is never touched (design §7).
    static func sendFile(_ fd: CInt, from file: CInt, offset: Int64, count: Int) throws(Errno) -> IOResult<Int> {
        try withoutBrokenPipeSignal { () throws(Errno) in
            try retrying("sendfile") {
                perform(.sendFile(fd: fd, file: file, offset: offset, count: count)) {
                    var off = off_t(offset)
                    return raw(Glibc.sendfile(fd, file, &off, count))
                }
            }
        }
    }

    /// write(2) to a pipe, FIFO or socket that is not ours to configure (a download written to
    /// `/dev/stdout` or a FIFO): EPIPE comes back as an error and no SIGPIPE reaches the process,
    /// as for `sendFile`.
    static func writeWithoutBrokenPipeSignal(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) -> IOResult<Int> {
        try withoutBrokenPipeSignal { () throws(Errno) in try write(fd, bytes) }
    }

    /// Runs `body` with SIGPIPE blocked for the calling thread; a SIGPIPE the body raised is
    /// consumed (sigtimedwait with a zero timeout) before the old mask comes back. The
    /// process-wide disposition is never touched (design §7).
    private static func withoutBrokenPipeSignal<T>(_ body: () throws(Errno) -> T) throws(Errno) -> T {
        var pipeOnly = sigset_t()
        sigemptyset(&pipeOnly)
        sigaddset(&pipeOnly, SIGPIPE)
        var previous = sigset_t()
        pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous)
        var pendingBefore = sigset_t()
        sigpending(&pendingBefore)
        let wasPending = sigismember(&pendingBefore, SIGPIPE) == 1
        defer {
            if sigismember(&previous, SIGPIPE) == 0 {
                if !wasPending {
                    var none = timespec(tv_sec: 0, tv_nsec: 0)
                    var pending = sigset_t()
                    sigpending(&pending)
                    if sigismember(&pending, SIGPIPE) == 1 { _ = sigtimedwait(&pipeOnly, nil, &none) }
                }
                pthread_sigmask(SIG_SETMASK, &previous, nil)
            }
        }
        return try body()
    }

    // MARK: epoll and eventfd

    /// epoll_create1(EPOLL_CLOEXEC).
    static func epollCreate() throws(Errno) -> CInt {
        CInt(try retryingNonBlocking("epoll_create1") { raw(epoll_create1(CInt(EPOLL_CLOEXEC))) })
    }

    /// epoll_ctl(2); `op` is EPOLL_CTL_ADD, _MOD or _DEL, `token` comes back with each event.
    static func epollControl(_ epfd: CInt, op: CInt, fd: CInt, events: UInt32, token: UInt64) throws(Errno) {
        try retryingNonBlocking("epoll_ctl") { raw(courier_epoll_ctl(epfd, op, fd, events, token)) }
    }

    static let epollAdd = CInt(EPOLL_CTL_ADD)
    static let epollModify = CInt(EPOLL_CTL_MOD)
    static let epollDelete = CInt(EPOLL_CTL_DEL)
    static let epollIn = courier_epollin()
    static let epollOut = courier_epollout()
    static let epollError = courier_epollerr()
    static let epollHangUp = courier_epollhup()
    static let epollReadHangUp = courier_epollrdhup()

    /// epoll_wait(2). An EINTR returns no events (the caller recomputes its timeout and waits
    /// again) rather than retrying with a timeout that is now too long.
    static func epollWait(_ epfd: CInt, into events: UnsafeMutableBufferPointer<courier_epoll_event>,
                          timeoutMilliseconds: CInt) throws(Errno) -> Int {
        let r = raw(courier_epoll_wait(epfd, events.baseAddress, CInt(events.count), timeoutMilliseconds))
        guard r.value == -1 else { return r.value }
        if r.errno == EINTR { return 0 }
        throw failure(r.errno, in: "epoll_wait")
    }

    /// eventfd(2) with EFD_CLOEXEC, and EFD_NONBLOCK unless `blocking`.
    static func eventFD(blocking: Bool) throws(Errno) -> CInt {
        let flags = CInt(EFD_CLOEXEC) | (blocking ? 0 : CInt(EFD_NONBLOCK))
        return CInt(try retryingNonBlocking("eventfd") { raw(eventfd(0, flags)) })
    }

    /// Adds one to an eventfd counter (wakes whoever waits on it). A full counter (EAGAIN) means
    /// a wake-up is already pending, which is all that is wanted.
    static func eventFDSignal(_ fd: CInt) throws(Errno) {
        var one: UInt64 = 1
        _ = try retrying("eventfd write") { raw(Glibc.write(fd, &one, 8)) }
    }

    /// Reads and resets an eventfd counter; blocks on a blocking eventfd.
    static func eventFDDrain(_ fd: CInt) throws(Errno) -> IOResult<UInt64> {
        var value: UInt64 = 0
        switch try retrying("eventfd read", { raw(Glibc.read(fd, &value, 8)) }) {
        case .wouldBlock: return .wouldBlock
        case .processed: return .processed(value)
        }
    }

    // MARK: Clock

    /// CLOCK_MONOTONIC in nanoseconds: never jumps with wall-clock changes.
    /// Seconds since the Unix epoch on CLOCK_REALTIME (the wall clock: it jumps when it is set).
    static func realtimeSeconds() -> Int64 {
        var ts = timespec()
        let r = clock_gettime(CLOCK_REALTIME, &ts)
        precondition(r == 0, "clock_gettime(CLOCK_REALTIME) failed")
        return Int64(ts.tv_sec)
    }

    /// CLOCK_REALTIME as seconds and microseconds since the Unix epoch.
    static func realtimeMicroseconds() -> (seconds: Int64, microseconds: Int64) {
        var ts = timespec()
        let r = clock_gettime(CLOCK_REALTIME, &ts)
        precondition(r == 0, "clock_gettime(CLOCK_REALTIME) failed")
        return (Int64(ts.tv_sec), Int64(ts.tv_nsec) / 1000)
    }

    /// The local hour, minute and second of `seconds` since the epoch (localtime_r: TZ or
    /// /etc/localtime, read by the C library on its first use).
    static func localTimeOfDay(_ seconds: Int64) -> (hour: Int, minute: Int, second: Int) {
        var t = time_t(seconds)
        var parts = tm()
        guard localtime_r(&t, &parts) != nil else { return (0, 0, 0) }
        return (Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    static func monotonicNanoseconds() -> Int64 {
        var ts = timespec()
        let r = clock_gettime(CLOCK_MONOTONIC, &ts)
        precondition(r == 0, "clock_gettime(CLOCK_MONOTONIC) failed")
        return Int64(ts.tv_sec) * 1_000_000_000 + Int64(ts.tv_nsec)
    }

    // MARK: Threads

    /// Starts a joinable pthread named `name` running `body`.
    static func spawnThread(name: String, _ body: @escaping @Sendable () -> Void) -> UInt {
        final class Box: @unchecked Sendable {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) { self.name = name; self.body = body }
        }
        let box = Unmanaged.passRetained(Box(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let r = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.name.withCString { courier_set_thread_name($0) }
            box.body()
            return nil
        }, box)
        precondition(r == 0, "pthread_create failed: \(Errno(rawValue: r))")
        return UInt(thread)
    }

    /// Waits for a thread started by `spawnThread` to end.
    static func joinThread(_ thread: UInt) {
        let r = pthread_join(pthread_t(thread), nil)
        precondition(r == 0, "pthread_join failed: \(Errno(rawValue: r))")
    }

    /// Lets a thread started by `spawnThread` end without being joined.
    static func detachThread(_ thread: UInt) {
        let r = pthread_detach(pthread_t(thread))
        precondition(r == 0, "pthread_detach failed: \(Errno(rawValue: r))")
    }

    /// The calling thread's pthread identity.
    static func currentThread() -> UInt { UInt(pthread_self()) }

    // MARK: The process (for the command-line tool)

    /// getenv(3).
    static func environmentValue(_ name: String) -> String? {
        name.withCString { getenv($0) }.map { String(cString: $0) }
    }

    /// isatty(3).
    static func isTerminal(_ fd: CInt) -> Bool { Glibc.isatty(fd) == 1 }

    /// uname(2)'s release field (the kernel's version, "6.1.0-18-amd64").
    static func kernelRelease() -> String? {
        var names = utsname()
        guard Glibc.uname(&names) == 0 else { return nil }
        return withUnsafeBytes(of: &names.release) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
    }

    /// The file name of the running executable: readlink(2) of /proc/self/exe, last component.
    static func executableName() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBufferPointer { raw in
            raw.withMemoryRebound(to: CChar.self) { Glibc.readlink("/proc/self/exe", $0.baseAddress!, $0.count) }
        }
        guard count > 0 else { return nil }
        let path = buffer[..<count]
        let name = path.lastIndex(of: UInt8(ascii: "/")).map { path[($0 + 1)...] } ?? path[...]
        return name.isEmpty ? nil : String(decoding: name, as: UTF8.self)
    }

    /// getrusage(RUSAGE_SELF): every thread of the process.
    static func resourceUsage() -> ResourceUsage {
        var usage = rusage()
        _ = Glibc.getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return ResourceUsage(userSeconds: seconds(usage.ru_utime), systemSeconds: seconds(usage.ru_stime),
                             voluntaryContextSwitches: Int(usage.ru_nvcsw), involuntaryContextSwitches: Int(usage.ru_nivcsw),
                             maximumResidentBytes: Int(usage.ru_maxrss) * 1024)
    }

    /// The terminal's width in columns (ioctl TIOCGWINSZ), or nil when `fd` is not a terminal.
    static func terminalColumns(_ fd: CInt) -> Int? {
        let columns = courier_terminal_columns(fd)
        return columns > 0 ? Int(columns) : nil
    }

    /// poll(2) until `fd` is readable (for a non-blocking standard stream).
    static func waitReadable(_ fd: CInt) { waitFor(fd, events: Int16(POLLIN)) }

    /// poll(2) until `fd` is writable (for a non-blocking standard stream).
    static func waitWritable(_ fd: CInt) { waitFor(fd, events: Int16(POLLOUT)) }

    private static func waitFor(_ fd: CInt, events: Int16) {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        _ = try? retryingNonBlocking("poll") { raw(Glibc.poll(&entry, 1, -1)) }
    }

    /// exit(3).
    static func exitProcess(_ code: CInt) -> Never { Glibc.exit(code) }

    /// signal(SIGPIPE, SIG_IGN): for the command-line tool only (a library never changes the
    /// process's signal dispositions); writes to a closed pipe then fail with EPIPE.
    static func ignoreBrokenPipe() { courier_ignore_sigpipe() }

    /// pipe2(O_CLOEXEC | O_NONBLOCK) with its capacity raised to `size` bytes where allowed.
    static func nonBlockingPipe(size: Int) throws(Errno) -> (read: CInt, write: CInt) {
        var fds: [CInt] = [-1, -1]
        try retryingNonBlocking("pipe2") { fds.withUnsafeMutableBufferPointer { raw(courier_pipe_nonblocking($0.baseAddress!, CInt(size))) } }
        return (fds[0], fds[1])
    }

    /// splice(2) from `input` into `output` (one of them a pipe): up to `count` bytes, at
    /// `outputOffset` when the output is a file (advanced by the call). `nonBlocking` adds
    /// SPLICE_F_NONBLOCK (the pipe side does not block; a non-blocking socket never does).
    static func splice(from input: CInt, to output: CInt, outputOffset: inout Int64?, count: Int, nonBlocking: Bool) throws(Errno) -> IOResult<Int> {
        let flags = courier_splice_move() | (nonBlocking ? courier_splice_nonblock() : 0)
        return try retrying("splice") {
            perform(.other(name: "splice", fd: input)) {
                if var offset = outputOffset {
                    let r = raw(courier_splice(input, nil, output, &offset, count, flags))
                    outputOffset = offset
                    return r
                }
                return raw(courier_splice(input, nil, output, nil, count, flags))
            }
        }
    }

    /// poll(2) for readability of `fd`, or of `wake`, for at most `milliseconds` (-1: no limit).
    /// Returns (fd readable or failed, wake readable); both false when the time ran out.
    static func waitReadable(_ fd: CInt, or wake: CInt, milliseconds: CInt) -> (ready: Bool, woken: Bool) {
        var entries = [pollfd(fd: fd, events: Int16(POLLIN), revents: 0), pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
        let n = (try? retryingNonBlocking("poll") { entries.withUnsafeMutableBufferPointer { raw(Glibc.poll($0.baseAddress!, 2, milliseconds)) } }) ?? 0
        guard n > 0 else { return (false, false) }
        return (entries[0].revents != 0, entries[1].revents != 0)
    }

    /// pipe2(O_CLOEXEC), both ends blocking.
    static func pipe() throws(Errno) -> (read: CInt, write: CInt) {
        var fds: [CInt] = [-1, -1]
        try retryingNonBlocking("pipe2") { fds.withUnsafeMutableBufferPointer { raw(courier_pipe_cloexec($0.baseAddress!)) } }
        return (fds[0], fds[1])
    }

    /// sigaction of SIGINT, SIGTERM, SIGHUP and SIGQUIT with the C handler that writes the
    /// signal's number as one byte to `fd` (async-signal-safe) and ends the process with
    /// 128 + N at the second signal.
    static func installTerminationHandlers(notifying fd: CInt) throws(Errno) {
        try retryingNonBlocking("sigaction") { raw(courier_install_termination_handlers(fd)) }
    }

    /// Ends the process by signal `signo` (its default action; SIGQUIT without a core file).
    static func dieBySignal(_ signo: CInt) -> Never {
        courier_die_by_signal(signo)
        Glibc._exit(128 + signo)
    }

    // MARK: Names and addresses (C library, no kernel)

    /// strerror_r's message for `code`.
    static func errorMessage(_ code: CInt) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            courier_strerror(code, buffer.baseAddress!, buffer.count)
            return String(cString: buffer.baseAddress!)
        }
    }

    /// inet_pton(3) for AF_INET (4 bytes) or AF_INET6 (16 bytes); nil when `text` is not one.
    static func parseAddress(_ text: String, v6: Bool) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: v6 ? 16 : 4)
        let ok = text.withCString { s in
            bytes.withUnsafeMutableBytes { inet_pton(v6 ? AF_INET6 : AF_INET, s, $0.baseAddress) }
        }
        return ok == 1 ? bytes : nil
    }

    /// inet_ntop(3): the canonical text form of 4 or 16 address bytes.
    static func formatAddress(_ bytes: UnsafeRawBufferPointer) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: Int(INET6_ADDRSTRLEN) + 1) { out in
            let p = inet_ntop(bytes.count == 16 ? AF_INET6 : AF_INET, bytes.baseAddress, out.baseAddress, socklen_t(out.count))
            precondition(p != nil, "inet_ntop of a valid address failed")
            return String(cString: out.baseAddress!)
        }
    }

    /// getaddrinfo(3) for TCP, any family. Blocking (it may query DNS): call only on the resolver
    /// thread. Returns the EAI code (0 on success), errno for EAI_SYSTEM, and the addresses in
    /// the order the C library sorted them (RFC 6724), without duplicates.
    static func getAddressInfo(host: String, port: UInt16, numericHostOnly: Bool) -> (code: CInt, errno: CInt, addresses: [SocketAddress]) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = courier_sock_stream()
        hints.ai_protocol = CInt(IPPROTO_TCP)
        hints.ai_flags = AI_NUMERICSERV | (numericHostOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let code = host.withCString { h in String(port).withCString { s in getaddrinfo(h, s, &hints, &list) } }
        let savedErrno = Glibc.errno
        guard code == 0 else { return (code, code == EAI_SYSTEM ? savedErrno : 0, []) }
        defer { freeaddrinfo(list) }
        var out: [SocketAddress] = []
        var node = list
        while let info = node {
            if let address = SocketAddress(sockaddr: info.pointee.ai_addr, length: Int(info.pointee.ai_addrlen)),
               !out.contains(address) {
                out.append(address)
            }
            node = info.pointee.ai_next
        }
        return (0, 0, out)
    }

    /// gai_strerror(3)'s message for an EAI code.
    static func addressInfoMessage(_ code: CInt) -> String { String(cString: gai_strerror(code)) }
}
