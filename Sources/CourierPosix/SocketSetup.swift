// SocketSetup: what is done to a client socket between socket(2) and connect(2) — the local end
// it is bound to (curl --interface, --local-port) and its TCP keep-alive probes (curl
// --keepalive-time, --no-keepalive) — and UnixSocketAddress, the other kind of place a client can
// connect to (curl --unix-socket, --abstract-unix-socket).
//
// Binding follows curl's bindlocal (lib/cf-socket.c): with a device (`if!NAME`, or a NAME that is
// an interface) SO_BINDTODEVICE is asked for first, and when the kernel refuses it (EPERM without
// CAP_NET_RAW) the socket is still bound to the interface's address, as curl does; then bind(2)
// to the address of the attempt's family (or the wildcard) and the first free port of the range,
// trying each in turn. Every failure is a `Errno` the connector reports as a bind failure (curl's
// exit 45), never as a refused connection.

/// An AF_UNIX stream socket to connect to: a path in the file system, or a name in Linux's
/// abstract namespace (no file; the name is not NUL-terminated).
public struct UnixSocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The path, or the abstract name without its leading NUL.
    public var name: String
    /// Whether `name` is in the abstract namespace.
    public var isAbstract: Bool

    /// A socket file at `path`.
    /// - Parameter path: the socket's path (at most 107 bytes: sockaddr_un's limit).
    public init(path: String) {
        name = path
        isAbstract = false
    }

    /// A socket in the abstract namespace.
    /// - Parameter abstractName: the name, without the leading NUL byte.
    public init(abstractName: String) {
        name = abstractName
        isAbstract = true
    }

    /// The path, or "@name" for an abstract socket (as ss(8) and /proc/net/unix show them).
    public var description: String { isAbstract ? "@" + name : name }
}

/// TCP keep-alive probes (SO_KEEPALIVE with TCP_KEEPIDLE and TCP_KEEPINTVL).
public struct TCPKeepAlive: Hashable, Sendable {
    /// How long a connection is idle before the first probe.
    public var idle: Duration
    /// The time between probes.
    public var interval: Duration

    /// Probes after `idle` of silence, then every `interval`.
    public init(idle: Duration, interval: Duration) {
        self.idle = idle
        self.interval = interval
    }

    /// The same time for both (curl --keepalive-time: 60 s unless given).
    public init(seconds: Int) {
        self.init(idle: .seconds(seconds), interval: .seconds(seconds))
    }
}

/// The local end of a client socket and its options, applied before connect(2).
public struct SocketSetup: Hashable, Sendable {
    /// The interface the socket is tied to with SO_BINDTODEVICE; nil for none.
    public var device: String?
    /// The local addresses to bind to: the one of the attempt's family is used. Empty: the
    /// wildcard address (the kernel picks by route). When it holds addresses of one family only,
    /// an attempt to an address of the other family fails (EAFNOSUPPORT), as curl's does.
    public var localAddresses: [IPAddress]
    /// The local ports to try, in order, until one is free; nil: a port the kernel picks.
    public var localPorts: ClosedRange<UInt16>?
    /// TCP keep-alive probes; nil: the socket's default (no probes).
    public var keepAlive: TCPKeepAlive?

    /// No binding and no keep-alive (the defaults).
    public init(device: String? = nil, localAddresses: [IPAddress] = [], localPorts: ClosedRange<UInt16>? = nil,
                keepAlive: TCPKeepAlive? = nil) {
        self.device = device
        self.localAddresses = localAddresses
        self.localPorts = localPorts
        self.keepAlive = keepAlive
    }

    /// Whether the socket is bound before connect.
    public var binds: Bool { device != nil || !localAddresses.isEmpty || localPorts != nil }

    /// The addresses of the interface named `name`, or nil when there is no such interface.
    /// - Parameter name: an interface name ("eth0", "lo").
    /// - Returns: its IPv4 and IPv6 addresses (possibly none), or nil.
    public static func interfaceAddresses(_ name: String) -> [IPAddress]? { Sys.interfaceAddresses(name) }

    /// Applies the keep-alive setting (which cannot fail in a way that matters: an error is
    /// thrown) and the binding (whose failure is a `SocketSetupError`).
    func apply(to socket: Socket, family: IPAddress.Family) throws(SocketSetupError) {
        let fd = socket.fileDescriptor
        if let keepAlive {
            do {
                try Sys.setKeepAlive(fd, idleSeconds: CInt(clamping: max(1, keepAlive.idle.components.seconds)),
                                     intervalSeconds: CInt(clamping: max(1, keepAlive.interval.components.seconds)))
            } catch { throw SocketSetupError(stage: .keepAlive, errno: error) }
        }
        guard binds else { return }
        if let device {
            // curl's bindlocal: a refused SO_BINDTODEVICE (EPERM) still binds the address below.
            try? Sys.bindToDevice(fd, device)
        }
        let ip: IPAddress
        if localAddresses.isEmpty {
            ip = family == .v4 ? .anyV4 : .anyV6
        } else if let match = localAddresses.first(where: { $0.family == family }) {
            ip = match
        } else {
            throw SocketSetupError(stage: .bind, errno: .addressFamilyNotSupported)
        }
        let ports = localPorts ?? 0...0
        var lastError = Errno.addressInUse
        for port in ports {
            do {
                try Sys.bind(fd, to: SocketAddress(ip: ip, port: port))
                return
            } catch {
                lastError = error
                // Only a taken port moves on to the next one; anything else fails at once.
                guard error == .addressInUse || error == .permissionDenied else { break }
            }
        }
        throw SocketSetupError(stage: .bind, errno: lastError, address: SocketAddress(ip: ip, port: ports.lowerBound))
    }
}

/// Setting up a socket before its connect failed.
public struct SocketSetupError: Error, Sendable, CustomStringConvertible {
    /// What failed.
    public enum Stage: Hashable, Sendable {
        /// bind(2) (no port of the range free, the address not local, ...): curl's exit 45.
        case bind
        /// Setting the keep-alive options.
        case keepAlive
    }

    /// What failed.
    public var stage: Stage
    /// The system's reason.
    public var errno: Errno
    /// The local address (with the range's first port) a bind tried.
    public var address: SocketAddress?

    /// Creates an error.
    public init(stage: Stage, errno: Errno, address: SocketAddress? = nil) {
        self.stage = stage
        self.errno = errno
        self.address = address
    }

    /// "bind failed with errno 98: Address already in use" (curl's words for a bind).
    public var description: String {
        switch stage {
        case .bind: return "bind failed with errno \(errno.rawValue): \(errno.message)"
        case .keepAlive: return "setting TCP keep-alive failed: \(errno.message)"
        }
    }
}
