// SocketAddress and IPAddress: IPv4 and IPv6 endpoints as plain values (no C types in the
// public surface). Text goes through inet_pton/inet_ntop, so parsing is exactly the C library's
// strict form (a dotted quad of four decimal parts for IPv4, RFC 4291 §2.2 text for IPv6) and
// formatting is the canonical RFC 5952 form. The sockaddr conversions live in
// SocketAddress+Sockaddr.swift.

import CourierBytes

/// An IPv4 or IPv6 address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address family.
    public enum Family: Hashable, Sendable {
        /// IPv4 (AF_INET), 4 bytes.
        case v4
        /// IPv6 (AF_INET6), 16 bytes.
        case v6
    }

    /// The address family.
    public let family: Family
    /// The address bytes in network order: 4 for IPv4, 16 for IPv6.
    let storage: InlineBytes
    /// The IPv6 scope (interface index) for link-local addresses; 0 otherwise and for IPv4.
    public let scopeID: UInt32

    /// Creates an address from its bytes in network order.
    /// - Parameters:
    ///   - bytes: 4 bytes (IPv4) or 16 bytes (IPv6).
    ///   - scopeID: the IPv6 interface index; must be 0 for IPv4.
    /// - Returns: nil when `bytes` has another length.
    public init?(bytes: [UInt8], scopeID: UInt32 = 0) {
        switch bytes.count {
        case 4 where scopeID == 0: family = .v4
        case 16: family = .v6
        default: return nil
        }
        storage = InlineBytes(bytes)
        self.scopeID = scopeID
    }

    /// Parses the text form: "192.0.2.1", "2001:db8::1", "[2001:db8::1]" (brackets as in a URL
    /// authority or curl's --resolve), or "fe80::1%3" (a numeric IPv6 zone).
    /// - Parameter text: the address text.
    /// - Returns: nil when `text` is not an IP literal (for example a host name).
    public init?(_ text: some StringProtocol) {
        var s = Substring(text)
        if s.hasPrefix("[") {
            guard s.hasSuffix("]"), s.count > 2 else { return nil }
            s = s.dropFirst().dropLast()
            guard s.contains(":") else { return nil }
        }
        if s.contains(":") {
            var scope: UInt32 = 0
            if let percent = s.firstIndex(of: "%") {
                guard let n = UInt32(s[s.index(after: percent)...]) else { return nil }
                scope = n
                s = s[..<percent]
            }
            guard let bytes = Sys.parseAddress(String(s), v6: true) else { return nil }
            self.init(bytes: bytes, scopeID: scope)
        } else {
            guard let bytes = Sys.parseAddress(String(s), v6: false) else { return nil }
            self.init(bytes: bytes)
        }
    }

    /// 127.0.0.1.
    public static let loopbackV4 = IPAddress(bytes: [127, 0, 0, 1])!
    /// ::1.
    public static let loopbackV6 = IPAddress(bytes: [UInt8](repeating: 0, count: 15) + [1])!
    /// 0.0.0.0 (any IPv4 interface, for listeners).
    public static let anyV4 = IPAddress(bytes: [0, 0, 0, 0])!
    /// :: (any IPv6 interface, for listeners).
    public static let anyV6 = IPAddress(bytes: [UInt8](repeating: 0, count: 16))!

    /// The address bytes in network order.
    public var bytes: [UInt8] { storage.array }

    /// Whether this is a loopback address (127.0.0.0/8 or ::1).
    public var isLoopback: Bool {
        storage.withUnsafeBytes { b in
            family == .v4 ? b[0] == 127 : (b.prefix(15).allSatisfy { $0 == 0 } && b[15] == 1)
        }
    }

    /// The canonical text form (inet_ntop; RFC 5952 for IPv6), with "%zone" when scoped.
    public var description: String {
        let text = storage.withUnsafeBytes { Sys.formatAddress($0) }
        return scopeID == 0 ? text : "\(text)%\(scopeID)"
    }
}

/// An IP address and a TCP port.
public struct SocketAddress: Hashable, Sendable, CustomStringConvertible {
    /// The address.
    public var ip: IPAddress
    /// The port, in host order.
    public var port: UInt16

    /// Creates an endpoint.
    /// - Parameters:
    ///   - ip: the address.
    ///   - port: the port.
    public init(ip: IPAddress, port: UInt16) {
        self.ip = ip
        self.port = port
    }

    /// Parses an IP literal (see `IPAddress.init(_:)`) and pairs it with `port`.
    /// - Parameters:
    ///   - text: "127.0.0.1", "::1" or "[::1]".
    ///   - port: the port.
    /// - Returns: nil when `text` is not an IP literal.
    public init?(_ text: some StringProtocol, port: UInt16) {
        guard let ip = IPAddress(text) else { return nil }
        self.init(ip: ip, port: port)
    }

    /// The address family.
    public var family: IPAddress.Family { ip.family }

    /// "192.0.2.1:80" or "[2001:db8::1]:443" (RFC 3986 §3.2.2 brackets for IPv6).
    public var description: String {
        ip.family == .v4 ? "\(ip):\(port)" : "[\(ip)]:\(port)"
    }
}
