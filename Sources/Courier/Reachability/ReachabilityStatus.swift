// ReachabilityStatus: AFNetworkReachabilityStatus on Linux, and the rule that maps the route
// monitor's chosen interface to it.
//
// AFNetworking's states were Unknown (-1), NotReachable (0), ReachableViaWWAN (1) and
// ReachableViaWiFi (2). Linux has no WWAN flag; what a program can tell from rtnetlink and sysfs
// is whether the interface carrying traffic is 802.11 (wireless), Ethernet (wired) or something
// else (a tunnel, PPP, a cellular modem's raw-IP device, InfiniBand...). The strings follow
// AFStringFromNetworkReachabilityStatus: "Unknown", "Not Reachable", and "Reachable via Wired",
// "Reachable via Wireless", "Reachable" for the three kinds, and "Reachable via Loopback" for a
// host or address watcher whose destination is this machine.

import CourierPosix

/// Whether the network can be reached, and over what kind of interface.
public enum ReachabilityStatus: Hashable, Sendable, CustomStringConvertible {
    /// The kind of interface traffic leaves through.
    public enum InterfaceKind: Hashable, Sendable {
        /// Ethernet (ARPHRD_ETHER that is not 802.11).
        case wired
        /// 802.11: /sys/class/net/NAME/wireless or phy80211 exists.
        case wireless
        /// Anything else: tunnels, PPP, raw-IP cellular devices, InfiniBand, ...
        case other
        /// The loopback interface: a host or address watcher whose destination is this machine
        /// (localhost, 127.0.0.0/8, ::1, one of its own addresses). The default-route watcher
        /// never reports it.
        case loopback
    }

    /// Not known yet: monitoring has not started or has not finished its first full dump.
    case unknown
    /// No interface other than loopback is up, running and routed (or addressed).
    case notReachable
    /// Reachable through an interface of this kind.
    case reachable(InterfaceKind)

    /// Whether the network is reachable (AFNetworking's `reachable`).
    public var isReachable: Bool {
        if case .reachable = self { return true }
        return false
    }

    /// AFStringFromNetworkReachabilityStatus, adapted: "Unknown", "Not Reachable",
    /// "Reachable via Wired", "Reachable via Wireless", "Reachable".
    public var localizedDescription: String {
        switch self {
        case .unknown: return "Unknown"
        case .notReachable: return "Not Reachable"
        case .reachable(.wired): return "Reachable via Wired"
        case .reachable(.wireless): return "Reachable via Wireless"
        case .reachable(.other): return "Reachable"
        case .reachable(.loopback): return "Reachable via Loopback"
        }
    }

    /// The same text as `localizedDescription`.
    public var description: String { localizedDescription }

    /// The status a synced interface table gives.
    /// - Parameters:
    ///   - table: the kernel's interfaces, addresses and default routes.
    ///   - isWireless: whether the interface of this name is 802.11 (the monitor asks sysfs).
    /// - Returns: `.notReachable` when the table has no path; else `.reachable` with the path's
    ///   interface kind: wireless when `isWireless` says so, wired for other ARPHRD_ETHER
    ///   interfaces, other for the rest.
    public static func evaluate(_ table: InterfaceTable, isWireless: (String) -> Bool) -> ReachabilityStatus {
        guard let path = table.primaryPath() else { return .notReachable }
        return .reachable(kind(of: path.interface, isWireless: isWireless))
    }

    /// The kind of an interface (wireless first: Wi-Fi devices present themselves as Ethernet).
    /// - Parameters:
    ///   - interface: the interface.
    ///   - isWireless: whether the interface of this name is 802.11.
    /// - Returns: its kind.
    public static func kind(of interface: InterfaceTable.Interface, isWireless: (String) -> Bool) -> InterfaceKind {
        if interface.hardwareType == Netlink.hardwareLoopback || interface.flags & Netlink.interfaceLoopback != 0 {
            return .loopback
        }
        if isWireless(interface.name) { return .wireless }
        if interface.hardwareType == Netlink.hardwareEthernet { return .wired }
        return .other
    }
}
