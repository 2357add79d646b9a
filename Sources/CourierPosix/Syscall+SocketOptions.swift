// Syscall+SocketOptions.swift: the wrappers for what a client does to a socket before it connects
// — an AF_UNIX socket and its connect (curl --unix-socket, --abstract-unix-socket), the local
// binding (curl --interface, --local-port: SO_BINDTODEVICE, bind), TCP keep-alive probes (curl
// --keepalive-time) — and the interface look-ups they need (if_nametoindex, getifaddrs). The rules
// of Syscall.swift apply unchanged: EINTR retried, EAGAIN a value, every other errno a typed Errno.

internal import Glibc
internal import CCourierLinux

extension Sys {
    /// socket(2) for an AF_UNIX stream, non-blocking and close-on-exec.
    static func unixStreamSocket() throws(Errno) -> CInt {
        let type = courier_sock_stream() | courier_sock_nonblock() | courier_sock_cloexec()
        return CInt(try retryingNonBlocking("socket") {
            perform(.other(name: "socket", fd: -1)) { raw(Glibc.socket(AF_UNIX, type, 0)) }
        })
    }

    /// connect(2) of a non-blocking AF_UNIX socket.
    /// - Returns: `.processed(())` when connected; `.wouldBlock` when the listener's backlog is full
    ///   (EAGAIN: unlike TCP nothing is in progress, the connect must be made again later).
    /// - Throws: ENAMETOOLONG for a path that does not fit sockaddr_un; ENOENT, ECONNREFUSED,
    ///   EACCES, ... as connect(2) reports them.
    static func connect(_ fd: CInt, toUnix address: UnixSocketAddress) throws(Errno) -> IOResult<Void> {
        var sun = sockaddr_un()
        sun.sun_family = sa_family_t(AF_UNIX)
        let name = address.isAbstract ? [0] + Array(address.name.utf8) : Array(address.name.utf8)
        let capacity = MemoryLayout.size(ofValue: sun.sun_path)
        // A path needs its NUL inside sun_path; an abstract name is counted by the length alone.
        guard name.count + (address.isAbstract ? 0 : 1) <= capacity else { throw Errno.nameTooLong }
        withUnsafeMutableBytes(of: &sun.sun_path) { $0.copyBytes(from: name) }
        let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (address.isAbstract ? 0 : 1))
        let r = perform(.other(name: "connect", fd: fd)) {
            withUnsafePointer(to: &sun) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw(Glibc.connect(fd, $0, length)) }
            }
        }
        guard r.value == -1 else { return .processed(()) }
        switch r.errno {
        case EAGAIN, EINPROGRESS, EINTR: return .wouldBlock
        default: throw failure(r.errno, in: "connect")
        }
    }

    /// SO_BINDTODEVICE: the socket sends and receives through `interface` only (needs
    /// CAP_NET_RAW before Linux 5.7 for an unbound socket: EPERM otherwise).
    static func bindToDevice(_ fd: CInt, _ interface: String) throws(Errno) {
        var bytes = Array(interface.utf8) + [0]
        try retryingNonBlocking("setsockopt(SO_BINDTODEVICE)") {
            raw(Glibc.setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, &bytes, socklen_t(bytes.count)))
        }
    }

    /// SO_KEEPALIVE on, with the idle time before the first probe and the interval between probes
    /// (TCP_KEEPIDLE, TCP_KEEPINTVL), in whole seconds.
    static func setKeepAlive(_ fd: CInt, idleSeconds: CInt, intervalSeconds: CInt) throws(Errno) {
        try setOption(fd, level: SOL_SOCKET, name: SO_KEEPALIVE, value: 1)
        try setOption(fd, level: CInt(IPPROTO_TCP), name: TCP_KEEPIDLE, value: idleSeconds)
        try setOption(fd, level: CInt(IPPROTO_TCP), name: TCP_KEEPINTVL, value: intervalSeconds)
    }

    /// SO_KEEPALIVE off.
    static func clearKeepAlive(_ fd: CInt) throws(Errno) {
        try setOption(fd, level: SOL_SOCKET, name: SO_KEEPALIVE, value: 0)
    }

    /// The addresses of the interface named `name` (getifaddrs), or nil when there is no
    /// interface of that name (if_nametoindex). A netlink dump answered by the kernel at once.
    static func interfaceAddresses(_ name: String) -> [IPAddress]? {
        guard if_nametoindex(name) != 0 else { return nil }
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var result: [IPAddress] = []
        var entry = list
        while let current = entry {
            defer { entry = current.pointee.ifa_next }
            guard let cName = current.pointee.ifa_name, String(cString: cName) == name,
                  let sa = current.pointee.ifa_addr else { continue }
            let length = CInt(sa.pointee.sa_family) == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
            if let address = SocketAddress(sockaddr: UnsafePointer(sa), length: length) { result.append(address.ip) }
        }
        return result
    }
}
