// NetlinkMessage: a pure parser for rtnetlink datagrams (NETLINK_ROUTE) — the link, address and
// route messages Reachability needs — and the builder of the dump requests. No I/O, no Glibc: it
// takes the bytes one recv(2) returned and gives typed values, so it is tested on captured bytes.
//
// What it implements (the kernel's UAPI headers are the specification; the numbers below are
// stable ABI and are spelled out here so this file needs no C module):
//   linux/netlink.h    struct nlmsghdr (16 bytes: len u32, type u16, flags u16, seq u32, pid u32),
//                      NLMSG_ALIGN (4), NLMSG_NOOP/ERROR/DONE/OVERRUN, NLM_F_MULTI/DUMP_INTR
//   linux/rtnetlink.h  struct rtattr (len u16, type u16; RTA_ALIGN 4), struct rtmsg (12 bytes),
//                      struct rtnexthop (8 bytes, RTNH_ALIGN 4), RTM_* types, RTA_* attributes
//   linux/if_link.h    struct ifinfomsg (16 bytes), IFLA_IFNAME, IFLA_OPERSTATE
//   linux/if_addr.h    struct ifaddrmsg (8 bytes), IFA_ADDRESS/LOCAL/FLAGS, IFA_F_* flags
// Integers are in host byte order (netlink is a local protocol); addresses are network-order bytes.
//
// Invariants and rules:
// - A datagram is whole (SOCK_RAW keeps boundaries; a truncated one is reported by the socket and
//   never handed here): so there is no "need more data" — a message or attribute whose length runs
//   past the end, or is shorter than its fixed header, throws `NetlinkParseError` with the offset.
// - A message's length is counted from its header; the next message starts at the length rounded
//   up to 4 (NLMSG_ALIGN). The last message and the last attribute may omit their padding.
// - Attributes of a known type with the wrong size throw (`badAttribute`): a u32 that is not 4
//   bytes is a kernel this parser does not understand, not something to guess at. Unknown
//   attribute and message types are skipped (the kernel adds attributes over time).
// - The attribute type is masked with NLA_TYPE_MASK (the nested and byte-order flag bits cleared).

import CourierBytes

/// Why a netlink datagram could not be parsed.
public struct NetlinkParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable reason.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .badMessageLength, .shortPayload, .badAttributeLength, .badAttribute
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A message header's length is below 16 bytes or runs past the datagram.
        public static let badMessageLength = Code("badMessageLength")
        /// A message is shorter than the fixed structure its type carries.
        public static let shortPayload = Code("shortPayload")
        /// An attribute's length is below 4 bytes or runs past its message.
        public static let badAttributeLength = Code("badAttributeLength")
        /// A known attribute has the wrong size.
        public static let badAttribute = Code("badAttribute")
    }

    /// The reason.
    public let code: Code
    /// The byte offset in the datagram where the problem starts.
    public let offset: Int

    /// "badAttribute at 112".
    public var description: String { "\(code.rawValue) at \(offset)" }
}

/// The fixed header of every netlink message (struct nlmsghdr).
public struct NetlinkHeader: Hashable, Sendable {
    /// The message length, header included (nlmsg_len).
    public var length: UInt32
    /// The message type (nlmsg_type).
    public var type: UInt16
    /// The flags (nlmsg_flags): NLM_F_MULTI, NLM_F_DUMP_INTR, ...
    public var flags: UInt16
    /// The sequence number of the request this answers; 0 for notifications (nlmsg_seq).
    public var sequence: UInt32
    /// The sender's port; 0 for the kernel (nlmsg_pid).
    public var portID: UInt32

    /// Whether the kernel's dump was interrupted by a change (NLM_F_DUMP_INTR): dump again.
    public var isDumpInterrupted: Bool { flags & Netlink.flagDumpInterrupted != 0 }
}

/// A network interface as RTM_NEWLINK / RTM_DELLINK describe it (struct ifinfomsg + attributes).
public struct LinkInfo: Hashable, Sendable {
    /// The interface index (ifi_index).
    public var index: Int32
    /// The ARPHRD_* hardware type (ifi_type): 1 Ethernet, 772 loopback, ...
    public var hardwareType: UInt16
    /// The IFF_* flags (ifi_flags), IFF_RUNNING included (the kernel's operational view).
    public var flags: UInt32
    /// The name (IFLA_IFNAME), e.g. "eth0".
    public var name: String?
    /// The RFC 2863 operational state (IFLA_OPERSTATE): 6 is up.
    public var operationalState: UInt8?
}

/// An interface address as RTM_NEWADDR / RTM_DELADDR describe it (struct ifaddrmsg + attributes).
public struct AddressInfo: Hashable, Sendable {
    /// AF_INET (2) or AF_INET6 (10).
    public var family: UInt8
    /// The prefix length.
    public var prefixLength: UInt8
    /// The IFA_F_* flags: IFA_FLAGS when present (32 bits), else ifa_flags.
    public var flags: UInt32
    /// The scope (ifa_scope): 0 universe (global), 253 link, 254 host.
    public var scope: UInt8
    /// The interface index (ifa_index).
    public var interfaceIndex: Int32
    /// The address bytes: IFA_LOCAL when present (the interface's own address on point-to-point
    /// links), else IFA_ADDRESS.
    public var address: [UInt8]
}

/// A route as RTM_NEWROUTE / RTM_DELROUTE describe it (struct rtmsg + attributes).
public struct RouteInfo: Hashable, Sendable {
    /// AF_INET (2) or AF_INET6 (10).
    public var family: UInt8
    /// The destination prefix length; 0 for a default route.
    public var destinationLength: UInt8
    /// The routing table: RTA_TABLE when present, else rtm_table (254 main, 255 local).
    public var table: UInt32
    /// Who installed it (rtm_protocol): 2 kernel, 3 boot, 4 static, 16 DHCP, ...
    public var routeProtocol: UInt8
    /// The scope (rtm_scope).
    public var scope: UInt8
    /// The route type (rtm_type): 1 unicast, 2 local, 6 blackhole, 7 unreachable, ...
    public var type: UInt8
    /// The output interface (RTA_OIF).
    public var outputInterface: Int32?
    /// The gateway's address bytes (RTA_GATEWAY).
    public var gateway: [UInt8]?
    /// The metric (RTA_PRIORITY); 0 when absent.
    public var priority: UInt32
    /// The interfaces of a multipath route's next hops (RTA_MULTIPATH), in order.
    public var nextHopInterfaces: [Int32]

    /// Every interface the route leaves through: RTA_OIF and the multipath next hops.
    public var interfaces: [Int32] {
        (outputInterface.map { [$0] } ?? []) + nextHopInterfaces
    }
}

/// One parsed netlink message.
public struct NetlinkMessage: Hashable, Sendable {
    /// What the message says.
    public enum Body: Hashable, Sendable {
        /// RTM_NEWLINK (`removed` false) or RTM_DELLINK.
        case link(LinkInfo, removed: Bool)
        /// RTM_NEWADDR or RTM_DELADDR.
        case address(AddressInfo, removed: Bool)
        /// RTM_NEWROUTE or RTM_DELROUTE.
        case route(RouteInfo, removed: Bool)
        /// NLMSG_DONE: the end of a dump.
        case done
        /// NLMSG_ERROR: `errno` is 0 for an acknowledgement, else a positive errno.
        case error(errno: Int32)
        /// NLMSG_OVERRUN: data was lost.
        case overrun
        /// Any other type (NLMSG_NOOP, message types this parser does not read).
        case other
    }

    /// The header.
    public var header: NetlinkHeader
    /// The content.
    public var body: Body
}

/// The numbers of the netlink and rtnetlink UAPI this module uses (stable kernel ABI).
public enum Netlink {
    static let headerSize = 16
    static let messageNoop: UInt16 = 1
    static let messageError: UInt16 = 2
    static let messageDone: UInt16 = 3
    static let messageOverrun: UInt16 = 4

    static let newLink: UInt16 = 16, deleteLink: UInt16 = 17, getLink: UInt16 = 18
    static let newAddress: UInt16 = 20, deleteAddress: UInt16 = 21, getAddress: UInt16 = 22
    static let newRoute: UInt16 = 24, deleteRoute: UInt16 = 25, getRoute: UInt16 = 26

    static let flagRequest: UInt16 = 0x1
    static let flagMulti: UInt16 = 0x2
    static let flagDumpInterrupted: UInt16 = 0x10
    static let flagDump: UInt16 = 0x300

    static let linkName: UInt16 = 3          // IFLA_IFNAME
    static let linkOperState: UInt16 = 16    // IFLA_OPERSTATE
    static let addrAddress: UInt16 = 1       // IFA_ADDRESS
    static let addrLocal: UInt16 = 2         // IFA_LOCAL
    static let addrFlags: UInt16 = 8         // IFA_FLAGS
    static let routeOIF: UInt16 = 4          // RTA_OIF
    static let routeGateway: UInt16 = 5      // RTA_GATEWAY
    static let routePriority: UInt16 = 6     // RTA_PRIORITY
    static let routeMultipath: UInt16 = 9    // RTA_MULTIPATH
    static let routeTable: UInt16 = 15       // RTA_TABLE
    static let attributeTypeMask: UInt16 = 0x3FFF  // NLA_TYPE_MASK

    /// IFF_UP.
    public static let interfaceUp: UInt32 = 0x1
    /// IFF_LOOPBACK.
    public static let interfaceLoopback: UInt32 = 0x8
    /// IFF_RUNNING (operationally up: carrier and not dormant).
    public static let interfaceRunning: UInt32 = 0x40
    /// ARPHRD_ETHER: Ethernet (and Wi-Fi, which presents itself as Ethernet).
    public static let hardwareEthernet: UInt16 = 1
    /// ARPHRD_LOOPBACK.
    public static let hardwareLoopback: UInt16 = 772
    /// IFA_F_DADFAILED: duplicate address detection failed; the address is unusable.
    public static let addressDADFailed: UInt32 = 0x08
    /// IFA_F_TENTATIVE: duplicate address detection still running; not yet usable.
    public static let addressTentative: UInt32 = 0x40
    /// RT_SCOPE_UNIVERSE: a global address or route.
    public static let scopeUniverse: UInt8 = 0
    /// RTN_UNICAST.
    public static let routeTypeUnicast: UInt8 = 1
    /// RT_TABLE_LOCAL: the kernel's table of local and broadcast addresses.
    public static let tableLocal: UInt32 = 255

    /// RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_IFADDR | RTMGRP_IPV6_ROUTE:
    /// the multicast groups a route monitor joins.
    public static let routeMonitorGroups: UInt32 = 0x1 | 0x10 | 0x40 | 0x100 | 0x400
}

/// Parses rtnetlink datagrams and builds requests.
public enum NetlinkParser {
    /// Parses every message of one datagram.
    /// - Parameter datagram: the bytes one recv(2) returned.
    /// - Returns: the messages in order.
    /// - Throws: `NetlinkParseError` with the offset of the first malformed message or attribute.
    public static func parse(_ datagram: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [NetlinkMessage] {
        var messages: [NetlinkMessage] = []
        var offset = 0
        while offset < datagram.count {
            guard datagram.count - offset >= Netlink.headerSize else {
                throw NetlinkParseError(code: .badMessageLength, offset: offset)
            }
            let header = NetlinkHeader(length: load(datagram, offset, UInt32.self),
                                       type: load(datagram, offset + 4, UInt16.self),
                                       flags: load(datagram, offset + 6, UInt16.self),
                                       sequence: load(datagram, offset + 8, UInt32.self),
                                       portID: load(datagram, offset + 12, UInt32.self))
            let length = Int(header.length)
            guard length >= Netlink.headerSize, length <= datagram.count - offset else {
                throw NetlinkParseError(code: .badMessageLength, offset: offset)
            }
            let payload = Region(start: offset + Netlink.headerSize, end: offset + length)
            let body = try parseBody(type: header.type, payload, in: datagram)
            messages.append(NetlinkMessage(header: header, body: body))
            // NLMSG_ALIGN; the last message may end without its padding.
            offset = min(datagram.count, offset + align(length))
        }
        return messages
    }

    /// Parses every message of one datagram held in an array.
    /// - Parameter datagram: the bytes.
    /// - Returns: the messages in order.
    /// - Throws: `NetlinkParseError`.
    public static func parse(_ datagram: [UInt8]) throws(NetlinkParseError) -> [NetlinkMessage] {
        var result: Result<[NetlinkMessage], NetlinkParseError> = .success([])
        datagram.withUnsafeBytes { bytes in result = Result { () throws(NetlinkParseError) in try parse(bytes) } }
        return try result.get()
    }

    /// What a dump request asks for.
    public enum Dump: Sendable, Hashable, CaseIterable {
        /// RTM_GETLINK: every interface.
        case links
        /// RTM_GETADDR: every address of every family.
        case addresses
        /// RTM_GETROUTE: every route of every family and table.
        case routes
    }

    /// A dump request: nlmsghdr with NLM_F_REQUEST | NLM_F_DUMP and a zeroed family-AF_UNSPEC
    /// structure of the type's size.
    /// - Parameters:
    ///   - dump: what to dump.
    ///   - sequence: the sequence number the answers will carry.
    /// - Returns: the request bytes.
    public static func dumpRequest(_ dump: Dump, sequence: UInt32) -> [UInt8] {
        let type: UInt16
        let bodySize: Int
        switch dump {
        case .links: type = Netlink.getLink; bodySize = 16       // struct ifinfomsg
        case .addresses: type = Netlink.getAddress; bodySize = 8 // struct ifaddrmsg
        case .routes: type = Netlink.getRoute; bodySize = 12     // struct rtmsg
        }
        var bytes = [UInt8](repeating: 0, count: Netlink.headerSize + bodySize)
        bytes.withUnsafeMutableBytes { p in
            p.storeBytes(of: UInt32(Netlink.headerSize + bodySize), toByteOffset: 0, as: UInt32.self)
            p.storeBytes(of: type, toByteOffset: 4, as: UInt16.self)
            p.storeBytes(of: Netlink.flagRequest | Netlink.flagDump, toByteOffset: 6, as: UInt16.self)
            p.storeBytes(of: sequence, toByteOffset: 8, as: UInt32.self)
        }
        return bytes
    }

    // MARK: Bodies

    /// A half-open byte range of the datagram.
    private struct Region {
        var start: Int
        var end: Int
        var count: Int { end - start }
    }

    private static func parseBody(type: UInt16, _ payload: Region,
                                  in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> NetlinkMessage.Body {
        switch type {
        case Netlink.newLink, Netlink.deleteLink:
            return .link(try parseLink(payload, in: d), removed: type == Netlink.deleteLink)
        case Netlink.newAddress, Netlink.deleteAddress:
            return .address(try parseAddress(payload, in: d), removed: type == Netlink.deleteAddress)
        case Netlink.newRoute, Netlink.deleteRoute:
            return .route(try parseRoute(payload, in: d), removed: type == Netlink.deleteRoute)
        case Netlink.messageDone:
            return .done
        case Netlink.messageError:
            // struct nlmsgerr: a negative errno (0 for an ACK), then the request's header.
            guard payload.count >= 4 else { throw NetlinkParseError(code: .shortPayload, offset: payload.start) }
            return .error(errno: 0 &- load(d, payload.start, Int32.self))
        case Netlink.messageOverrun:
            return .overrun
        default:
            return .other
        }
    }

    private static func parseLink(_ p: Region, in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> LinkInfo {
        // struct ifinfomsg { u8 family; u8 pad; u16 type; i32 index; u32 flags; u32 change; }
        guard p.count >= 16 else { throw NetlinkParseError(code: .shortPayload, offset: p.start) }
        var link = LinkInfo(index: load(d, p.start + 4, Int32.self), hardwareType: load(d, p.start + 2, UInt16.self),
                            flags: load(d, p.start + 8, UInt32.self), name: nil, operationalState: nil)
        try forEachAttribute(Region(start: p.start + 16, end: p.end), in: d) { (type, value) throws(NetlinkParseError) in
            switch type {
            case Netlink.linkName: link.name = cString(value, in: d)
            case Netlink.linkOperState: link.operationalState = try fixed(value, in: d, as: UInt8.self)
            default: break
            }
        }
        return link
    }

    private static func parseAddress(_ p: Region, in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> AddressInfo {
        // struct ifaddrmsg { u8 family; u8 prefixlen; u8 flags; u8 scope; u32 index; }
        guard p.count >= 8 else { throw NetlinkParseError(code: .shortPayload, offset: p.start) }
        var info = AddressInfo(family: d[p.start], prefixLength: d[p.start + 1], flags: UInt32(d[p.start + 2]),
                               scope: d[p.start + 3], interfaceIndex: Int32(bitPattern: load(d, p.start + 4, UInt32.self)),
                               address: [])
        var local: [UInt8]? = nil
        var address: [UInt8]? = nil
        try forEachAttribute(Region(start: p.start + 8, end: p.end), in: d) { (type, value) throws(NetlinkParseError) in
            switch type {
            case Netlink.addrAddress: address = try addressBytes(value, in: d)
            case Netlink.addrLocal: local = try addressBytes(value, in: d)
            case Netlink.addrFlags: info.flags = try fixed(value, in: d, as: UInt32.self)
            default: break
            }
        }
        info.address = local ?? address ?? []
        return info
    }

    private static func parseRoute(_ p: Region, in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> RouteInfo {
        // struct rtmsg { u8 family, dst_len, src_len, tos, table, protocol, scope, type; u32 flags; }
        guard p.count >= 12 else { throw NetlinkParseError(code: .shortPayload, offset: p.start) }
        var route = RouteInfo(family: d[p.start], destinationLength: d[p.start + 1], table: UInt32(d[p.start + 4]),
                              routeProtocol: d[p.start + 5], scope: d[p.start + 6], type: d[p.start + 7],
                              outputInterface: nil, gateway: nil, priority: 0, nextHopInterfaces: [])
        try forEachAttribute(Region(start: p.start + 12, end: p.end), in: d) { (type, value) throws(NetlinkParseError) in
            switch type {
            case Netlink.routeOIF: route.outputInterface = Int32(bitPattern: try fixed(value, in: d, as: UInt32.self))
            case Netlink.routeGateway: route.gateway = try addressBytes(value, in: d)
            case Netlink.routePriority: route.priority = try fixed(value, in: d, as: UInt32.self)
            case Netlink.routeTable: route.table = try fixed(value, in: d, as: UInt32.self)
            case Netlink.routeMultipath: route.nextHopInterfaces = try parseNextHops(value, in: d)
            default: break
            }
        }
        return route
    }

    /// RTA_MULTIPATH: struct rtnexthop { u16 len; u8 flags; u8 hops; i32 ifindex; } each followed
    /// by its own attributes, every entry aligned to 4 (RTNH_ALIGN).
    private static func parseNextHops(_ r: Region, in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [Int32] {
        var interfaces: [Int32] = []
        var offset = r.start
        while offset < r.end {
            guard r.end - offset >= 8 else { throw NetlinkParseError(code: .badAttribute, offset: offset) }
            let length = Int(load(d, offset, UInt16.self))
            guard length >= 8, length <= r.end - offset else { throw NetlinkParseError(code: .badAttribute, offset: offset) }
            interfaces.append(load(d, offset + 4, Int32.self))
            offset = min(r.end, offset + align(length))
        }
        return interfaces
    }

    // MARK: Attributes

    /// Calls `body` with each attribute's type (masked) and value region.
    private static func forEachAttribute(_ r: Region, in d: UnsafeRawBufferPointer,
                                         _ body: (UInt16, Region) throws(NetlinkParseError) -> Void) throws(NetlinkParseError) {
        var offset = r.start
        while offset < r.end {
            guard r.end - offset >= 4 else { throw NetlinkParseError(code: .badAttributeLength, offset: offset) }
            let length = Int(load(d, offset, UInt16.self))
            guard length >= 4, length <= r.end - offset else {
                throw NetlinkParseError(code: .badAttributeLength, offset: offset)
            }
            let type = load(d, offset + 2, UInt16.self) & Netlink.attributeTypeMask
            try body(type, Region(start: offset + 4, end: offset + length))
            // RTA_ALIGN; the last attribute may end without its padding.
            offset = min(r.end, offset + align(length))
        }
    }

    private static func fixed<T: FixedWidthInteger>(_ r: Region, in d: UnsafeRawBufferPointer, as: T.Type) throws(NetlinkParseError) -> T {
        guard r.count == MemoryLayout<T>.size else { throw NetlinkParseError(code: .badAttribute, offset: r.start - 4) }
        return load(d, r.start, T.self)
    }

    private static func addressBytes(_ r: Region, in d: UnsafeRawBufferPointer) throws(NetlinkParseError) -> [UInt8] {
        // 4 bytes for AF_INET, 16 for AF_INET6; other families (e.g. AF_MPLS labels) are not read.
        guard r.count == 4 || r.count == 16 else { throw NetlinkParseError(code: .badAttribute, offset: r.start - 4) }
        return Array(UnsafeRawBufferPointer(rebasing: d[r.start..<r.end]))
    }

    /// A NUL-terminated string attribute (the NUL is optional at the very end); bytes that are not
    /// UTF-8 become U+FFFD.
    private static func cString(_ r: Region, in d: UnsafeRawBufferPointer) -> String {
        var end = r.start
        while end < r.end, d[end] != 0 { end += 1 }
        return String(decoding: UnsafeRawBufferPointer(rebasing: d[r.start..<end]), as: UTF8.self)
    }

    @inline(__always)
    private static func align(_ length: Int) -> Int { (length + 3) & ~3 }

    @inline(__always)
    private static func load<T: FixedWidthInteger>(_ d: UnsafeRawBufferPointer, _ offset: Int, _: T.Type) -> T {
        // SAFETY: every caller has checked `offset + MemoryLayout<T>.size <= d.count` (a message is
        // at least 16 bytes and inside the datagram; fixed structures and attribute headers are
        // length-checked before they are read). Netlink integers are in host order.
        d.loadUnaligned(fromByteOffset: offset, as: T.self)
    }
}
