// LocalBinding: where a client socket's local end is bound before it connects (curl --interface
// and --local-port), as a caller states it — an interface name, a host name or address, and a
// port range — and its resolution into the concrete `SocketSetup` the connector applies.
//
// curl's rules (lib/cf-socket.c, bindlocal), kept here:
// - `if!NAME`: NAME is an interface, never a host: SO_BINDTODEVICE plus a bind to its address;
//   no such interface → exit 45 "Couldn't bind to interface 'NAME'".
// - `host!NAME`: NAME is a host name or address, resolved; nothing found → 45 "Couldn't bind to
//   'NAME'".
// - a bare NAME: an interface when one has that name (as `if!`), else a host (as `host!`).
// - SO_BINDTODEVICE refused (EPERM for an unprivileged process) is not an error: the socket is
//   still bound to the interface's address, as curl does.

import CourierPosix

/// The local end of every connection a session opens (curl --interface, --local-port).
public struct LocalBinding: Hashable, Sendable {
    /// What the local address is named by.
    public enum Source: Hashable, Sendable {
        /// An interface ("if!eth0"): SO_BINDTODEVICE and its address.
        case interface(String)
        /// A host name or address literal ("host!192.0.2.7").
        case host(String)
        /// An interface if one has this name, else a host (curl's bare --interface NAME).
        case interfaceOrHost(String)
    }

    /// The local address; nil: the wildcard (only the port is bound).
    public var source: Source?
    /// The local ports to try in order until one is free; nil: any.
    public var ports: ClosedRange<UInt16>?

    /// A binding.
    public init(source: Source? = nil, ports: ClosedRange<UInt16>? = nil) {
        self.source = source
        self.ports = ports
    }

    /// Parses curl's --interface argument: "if!NAME", "host!NAME" or "NAME".
    /// - Parameter text: the argument.
    /// - Returns: the source.
    public static func source(parsing text: String) -> Source {
        if text.hasPrefix("if!") { return .interface(String(text.dropFirst(3))) }
        if text.hasPrefix("host!") { return .host(String(text.dropFirst(5))) }
        return .interfaceOrHost(text)
    }

    /// The concrete set-up: the interface's addresses or the host's, looked up now.
    func resolve(with resolver: Resolver) async throws(ConnectionError) -> SocketSetup {
        var setup = SocketSetup(localPorts: ports)
        switch source {
        case nil:
            return setup
        case .interface(let name):
            guard let addresses = SocketSetup.interfaceAddresses(name), !addresses.isEmpty else {
                throw ConnectionError(.localBindFailed, "Couldn't bind to interface '\(name)'")
            }
            setup.device = name
            setup.localAddresses = addresses
        case .interfaceOrHost(let name):
            if let addresses = SocketSetup.interfaceAddresses(name), !addresses.isEmpty {
                setup.device = name
                setup.localAddresses = addresses
            } else {
                setup.localAddresses = try await hostAddresses(name, resolver: resolver)
            }
        case .host(let name):
            setup.localAddresses = try await hostAddresses(name, resolver: resolver)
        }
        return setup
    }

    private func hostAddresses(_ name: String, resolver: Resolver) async throws(ConnectionError) -> [IPAddress] {
        if let literal = IPAddress(name) { return [literal] }
        let found = (try? await resolver.resolve(host: name, port: 0)) ?? []
        guard !found.isEmpty else { throw ConnectionError(.localBindFailed, "Couldn't bind to '\(name)'") }
        return found.map(\.ip)
    }
}
