// RouteLookup: "is there a route to this address", asked of the kernel the way `ip route get`
// asks it — one RTM_GETROUTE request (not a dump) for the destination, on a NETLINK_ROUTE socket
// of its own. The kernel answers with the route it would use (RTM_NEWROUTE: type, output
// interface, gateway) or with an error (ENETUNREACH when no route matches; EHOSTUNREACH,
// EACCES or EINVAL for unreachable, prohibit and blackhole routes).
//
// Why it does not wait: rtnetlink handles a request inside sendmsg(2) (netlink_unicast to the
// kernel socket runs rtnetlink_rcv synchronously), so the answer is already queued on our socket
// when send returns and the non-blocking recv reads it at once. A would-block there would mean a
// kernel that queued nothing: it is reported as EAGAIN rather than waited for.
//
// The request and answer parsing are pure (`request`, `answer(from:)`) so they are tested byte by
// byte without a socket; `lookUp` is the I/O around them.

/// The route the kernel would use for one destination, or why there is none.
public struct RouteAnswer: Hashable, Sendable {
    /// RTN_* route type: 1 unicast, 2 local, 3 broadcast, 4 anycast, 5 multicast, 6 blackhole,
    /// 7 unreachable, 8 prohibit, 9 throw; 0 when the kernel answered with an error.
    public var type: UInt8
    /// The interface the packet would leave through (RTA_OIF).
    public var outputInterface: Int32?
    /// The next-hop gateway (RTA_GATEWAY), network-order bytes.
    public var gateway: [UInt8]?
    /// The positive errno of an error answer (ENETUNREACH = 101 when nothing matches); 0 when the
    /// kernel returned a route.
    public var errno: Int32

    /// Creates an answer.
    /// - Parameters:
    ///   - type: the RTN_* type (0 for an error answer).
    ///   - outputInterface: RTA_OIF.
    ///   - gateway: RTA_GATEWAY.
    ///   - errno: the error, 0 for a route.
    public init(type: UInt8, outputInterface: Int32?, gateway: [UInt8]?, errno: Int32) {
        self.type = type
        self.outputInterface = outputInterface
        self.gateway = gateway
        self.errno = errno
    }

    /// Whether packets to the destination would be sent: a unicast, local, broadcast, anycast or
    /// multicast route (blackhole, unreachable, prohibit and throw routes, and errors, are not).
    public var isRouted: Bool { errno == 0 && (1...5).contains(type) }

    /// Whether the route is a local one (the destination is one of this host's addresses, or
    /// 127.0.0.0/8): traffic goes through loopback.
    public var isLocal: Bool { errno == 0 && type == RouteLookup.typeLocal }
}

/// Why a route lookup could not be made or answered.
public struct RouteLookupError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The failing system call's error (socket refused in a sandbox, EMFILE, ...).
    public let errno: Errno
    /// Creates an error.
    /// - Parameter errno: the system error.
    public init(errno: Errno) { self.errno = errno }
    /// A short text for people; not API.
    public var description: String { "route lookup: \(errno)" }
}

/// RTM_GETROUTE for one destination.
public enum RouteLookup {
    /// RTN_LOCAL.
    public static let typeLocal: UInt8 = 2
    static let attributeDestination: UInt16 = 1  // RTA_DST
    static let familyV4: UInt8 = 2               // AF_INET
    static let familyV6: UInt8 = 10              // AF_INET6

    /// The request bytes: nlmsghdr (NLM_F_REQUEST), struct rtmsg with the family and a full-length
    /// destination prefix, RTA_DST with the address, and RTA_OIF with the scope of a scoped IPv6
    /// address (fe80::1%2), as `ip route get ADDR oif DEV` sends.
    /// - Parameters:
    ///   - destination: the address to route to.
    ///   - sequence: the sequence number the answer will carry.
    /// - Returns: the request.
    public static func request(for destination: IPAddress, sequence: UInt32) -> [UInt8] {
        let address = destination.bytes
        var bytes = [UInt8](repeating: 0, count: Netlink.headerSize + 12)
        func attribute(_ type: UInt16, _ value: [UInt8]) {
            let length = 4 + value.count
            bytes.append(contentsOf: [UInt8(truncatingIfNeeded: length), UInt8(truncatingIfNeeded: length >> 8),
                                      UInt8(truncatingIfNeeded: type), UInt8(truncatingIfNeeded: type >> 8)])
            bytes.append(contentsOf: value)
            while bytes.count % 4 != 0 { bytes.append(0) }
        }
        attribute(attributeDestination, address)
        if destination.family == .v6, destination.scopeID != 0 {
            let oif = destination.scopeID
            attribute(Netlink.routeOIF, [UInt8(truncatingIfNeeded: oif), UInt8(truncatingIfNeeded: oif >> 8),
                                         UInt8(truncatingIfNeeded: oif >> 16), UInt8(truncatingIfNeeded: oif >> 24)])
        }
        let total = UInt32(bytes.count)
        bytes.withUnsafeMutableBytes { p in
            p.storeBytes(of: total, toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: Netlink.getRoute, toByteOffset: 4, as: UInt16.self)
            p.storeBytes(of: Netlink.flagRequest, toByteOffset: 6, as: UInt16.self)
            p.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
            p[Netlink.headerSize] = destination.family == .v4 ? familyV4 : familyV6
            p[Netlink.headerSize + 1] = destination.family == .v4 ? 32 : 128
        }
        return bytes
    }

    /// Reads the answer to a request out of parsed messages: the first RTM_NEWROUTE or error
    /// carrying `sequence`.
    /// - Parameters:
    ///   - messages: the parsed datagram.
    ///   - sequence: the request's sequence number.
    /// - Returns: the answer, or nil when the messages hold none for this request.
    public static func answer(from messages: [NetlinkMessage], sequence: UInt32) -> RouteAnswer? {
        for message in messages where message.header.sequence == sequence {
            switch message.body {
            case .route(let route, removed: false):
                return RouteAnswer(type: route.type, outputInterface: route.outputInterface ?? route.nextHopInterfaces.first,
                                   gateway: route.gateway, errno: 0)
            case .error(let errno) where errno != 0:
                return RouteAnswer(type: 0, outputInterface: nil, gateway: nil, errno: errno)
            default:
                continue
            }
        }
        return nil
    }

    /// Asks the kernel for its route to `destination` (what `ip route get` prints). Does not wait:
    /// see the file comment. Safe on any thread; costs a socket and four system calls.
    /// - Parameter destination: the address.
    /// - Returns: the kernel's answer; an unroutable address is an answer (`isRouted` false), not
    ///   an error.
    /// - Throws: `RouteLookupError` when netlink is unavailable or the kernel answered nothing
    ///   readable.
    public static func lookUp(_ destination: IPAddress) throws(RouteLookupError) -> RouteAnswer {
        let fd: CInt
        do {
            fd = try Sys.netlinkRouteSocket(groups: 0, receiveBuffer: 64 * 1024)
        } catch {
            throw RouteLookupError(errno: error)
        }
        defer { try? Sys.close(fd) }
        let sequence: UInt32 = 1
        let request = request(for: destination, sequence: sequence)
        var sent: Result<IOResult<Int>, Errno> = .success(.wouldBlock)
        request.withUnsafeBytes { bytes in sent = Result { () throws(Errno) in try Sys.send(fd, bytes) } }
        switch sent {
        case .failure(let error): throw RouteLookupError(errno: error)
        case .success(.processed(let n)) where n == request.count: break
        case .success: throw RouteLookupError(errno: .noBufferSpace)
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        // Bounded: the kernel queues one answer (an unexpected unicast from another process is
        // skipped by its sender port, at most a few times).
        for _ in 0..<4 {
            let received: IOResult<(count: Int, sender: UInt32, truncated: Bool)>
            do {
                received = try Sys.netlinkReceive(fd, into: buffer)
            } catch {
                throw RouteLookupError(errno: error)
            }
            guard case .processed(let datagram) = received else { throw RouteLookupError(errno: .wouldBlock) }
            guard datagram.sender == 0, !datagram.truncated else { continue }
            guard let messages = try? NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<datagram.count])),
                  let answer = answer(from: messages, sequence: sequence) else { continue }
            return answer
        }
        throw RouteLookupError(errno: .wouldBlock)
    }
}
