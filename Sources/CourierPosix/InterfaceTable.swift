// InterfaceTable: the kernel's interfaces, addresses and default routes as rtnetlink reports them,
// kept up to date by applying `NetlinkMessage`s, and the rule that picks the path traffic would
// take. Pure: no I/O, fed by the route monitor (live) or by captured bytes (tests).
//
// What it keeps
// - Every link (index → name, ARPHRD type, IFF flags).
// - Every address (keyed as the kernel keys them: interface, family, address, prefix length).
// - Default routes only (destination length 0), keyed by family, table, metric, interfaces and
//   gateway — enough to match an RTM_DELROUTE with the RTM_NEWROUTE it undoes.
//
// Kernel behaviour it compensates for: when an interface is set administratively down, IPv4
// routes through it are flushed without RTM_DELROUTE notifications (fib_disable_ip), and a deleted
// link's addresses and routes may go without messages; so a link that is not IFF_UP, or is
// deleted, takes its routes with it (and a deleted link its addresses). When it comes back up,
// the routes come back with RTM_NEWROUTE from whoever installs them.
//
// The rule (`primaryPath`), documented in docs/reachability.md:
// - An interface is usable when IFF_UP and IFF_RUNNING are set and IFF_LOOPBACK is not.
// - The path is the usable interface of the best default route — unicast, not in the local table
//   (255), lowest metric first, then IPv4 before IPv6, then lowest interface index. Multipath
//   routes count through any usable next hop.
// - Failing that, the lowest-index usable interface with a usable global address (scope universe,
//   neither tentative nor DAD-failed): a network with no gateway is still a network, as
//   SCNetworkReachability's "any address" target (AFNetworking's default manager) sees it.
// - Failing that, no path: not reachable. Loopback alone is never a path.

/// The interfaces, addresses and default routes the kernel reports, updated message by message.
public struct InterfaceTable: Hashable, Sendable {
    /// A network interface.
    public struct Interface: Hashable, Sendable {
        /// The interface index.
        public var index: Int32
        /// The name ("eth0"), empty if the kernel gave none.
        public var name: String
        /// The ARPHRD_* hardware type.
        public var hardwareType: UInt16
        /// The IFF_* flags.
        public var flags: UInt32

        /// Up, running and not loopback: a candidate for reachability.
        public var isUsable: Bool {
            flags & Netlink.interfaceUp != 0 && flags & Netlink.interfaceRunning != 0
                && flags & Netlink.interfaceLoopback == 0 && hardwareType != Netlink.hardwareLoopback
        }
    }

    /// Why an interface was chosen.
    public enum PathReason: Hashable, Sendable {
        /// It carries a default route.
        case defaultRoute
        /// It has a global address (no usable default route exists).
        case globalAddress
    }

    /// The interface traffic would leave through, and why.
    public struct Path: Hashable, Sendable {
        /// The interface.
        public var interface: Interface
        /// Why it was chosen.
        public var reason: PathReason
    }

    private struct AddressKey: Hashable, Sendable {
        var interfaceIndex: Int32
        var family: UInt8
        var address: [UInt8]
        var prefixLength: UInt8
    }

    private struct RouteKey: Hashable, Sendable {
        var family: UInt8
        var table: UInt32
        var priority: UInt32
        var interfaces: [Int32]
        var gateway: [UInt8]?
    }

    /// Interfaces by index.
    public private(set) var interfaces: [Int32: Interface] = [:]
    private var addresses: [AddressKey: AddressInfo] = [:]
    private var defaultRoutes: Set<RouteKey> = []

    /// An empty table.
    public init() {}

    /// The number of addresses held.
    public var addressCount: Int { addresses.count }
    /// The number of default routes held.
    public var defaultRouteCount: Int { defaultRoutes.count }

    /// Applies one message; messages that are not about links, addresses or routes are ignored.
    /// - Parameter message: a parsed message.
    /// - Returns: true when the table changed.
    @discardableResult
    public mutating func apply(_ message: NetlinkMessage) -> Bool {
        let before = self
        switch message.body {
        case .link(let link, let removed):
            if removed {
                interfaces[link.index] = nil
                addresses = addresses.filter { $0.key.interfaceIndex != link.index }
                dropRoutes(through: link.index)
            } else {
                interfaces[link.index] = Interface(index: link.index, name: link.name ?? interfaces[link.index]?.name ?? "",
                                                   hardwareType: link.hardwareType, flags: link.flags)
                if link.flags & Netlink.interfaceUp == 0 { dropRoutes(through: link.index) }
            }
        case .address(let info, let removed):
            let key = AddressKey(interfaceIndex: info.interfaceIndex, family: info.family, address: info.address,
                                 prefixLength: info.prefixLength)
            addresses[key] = removed ? nil : info
        case .route(let route, let removed):
            guard route.destinationLength == 0 else { break }
            let key = RouteKey(family: route.family, table: route.table, priority: route.priority,
                               interfaces: route.interfaces, gateway: route.gateway)
            if removed {
                defaultRoutes.remove(key)
            } else if route.type == Netlink.routeTypeUnicast && route.table != Netlink.tableLocal {
                defaultRoutes.insert(key)
            }
        case .done, .error, .overrun, .other:
            break
        }
        return self != before
    }

    /// Removes everything (before a full resynchronisation).
    public mutating func removeAll() {
        self = InterfaceTable()
    }

    private mutating func dropRoutes(through index: Int32) {
        defaultRoutes = defaultRoutes.filter { !$0.interfaces.contains(index) }
    }

    /// The interface traffic would leave through, by the rule in the file comment.
    /// - Returns: the path, or nil when nothing but loopback (or nothing usable) is there.
    public func primaryPath() -> Path? {
        var best: (key: (UInt32, Int, Int32), interface: Interface)? = nil
        for route in defaultRoutes {
            for index in route.interfaces {
                guard let interface = interfaces[index], interface.isUsable else { continue }
                // Lowest metric, then IPv4 (AF_INET 2) before IPv6 (10), then lowest index.
                let key = (route.priority, route.family == 2 ? 0 : 1, index)
                if best == nil || key < best!.key { best = (key, interface) }
            }
        }
        if let best { return Path(interface: best.interface, reason: .defaultRoute) }

        var fallback: Interface? = nil
        for info in addresses.values where info.scope == Netlink.scopeUniverse
            && info.flags & (Netlink.addressTentative | Netlink.addressDADFailed) == 0 {
            guard let interface = interfaces[info.interfaceIndex], interface.isUsable else { continue }
            if fallback == nil || interface.index < fallback!.index { fallback = interface }
        }
        return fallback.map { Path(interface: $0, reason: .globalAddress) }
    }

    /// A copy holding only the interfaces `include` accepts, with their addresses and the routes
    /// through them (for tests and for asking "what if only these existed").
    /// - Parameter include: whether to keep an interface.
    /// - Returns: the filtered table.
    public func filtered(_ include: (Interface) -> Bool) -> InterfaceTable {
        var copy = self
        copy.interfaces = interfaces.filter { include($0.value) }
        copy.addresses = addresses.filter { copy.interfaces[$0.key.interfaceIndex] != nil }
        copy.defaultRoutes = defaultRoutes.filter { $0.interfaces.allSatisfy { copy.interfaces[$0] != nil } }
        return copy
    }
}
