// The resolver's value types: its typed error (EAI_* codes), curl-style --resolve overrides and
// the TTL cache. The cache is a plain struct with time passed in, so it is tested without a clock.

import CourierBytes

/// A name could not be resolved.
public struct ResolutionError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Why a name was not resolved: a getaddrinfo EAI_* code, or one of Courier's own.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code, such as `noName`.
        public let rawValue: String
        /// The C value getaddrinfo returned (negative on glibc), 0 for Courier's own codes but
        /// `unknown`'s, which keeps the value it stands for.
        let value: CInt
        /// The C name, "EAI_NONAME", or Courier's words for its own codes.
        public let name: String

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .badFlags, .noName, .tryAgain, .fail, .noData, .family, .socketType, .service, .addressFamily, .memory, .system, .overflow, .shutDown, .cancelled, .unknown
        ]

        init(_ rawValue: String, _ value: CInt, _ name: String) {
            self.rawValue = rawValue
            self.value = value
            self.name = name
        }

        /// The code for getaddrinfo's return value `value` (an EAI_* value); `unknown` (keeping
        /// the value for its message) when it is none of them.
        init(addressInfoValue value: CInt) {
            if let code = Code.all.first(where: { $0.value == value && value < 0 }) {
                self = code
            } else {
                self = Code("unknown", value, "EAI \(value)")
            }
        }

        /// Codes are equal when their names are.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// EAI_BADFLAGS.
        public static let badFlags = Code("badFlags", -1, "EAI_BADFLAGS")
        /// EAI_NONAME: the name is unknown (NXDOMAIN), or a `.invalid` name (RFC 6761 §6.4).
        public static let noName = Code("noName", -2, "EAI_NONAME")
        /// EAI_AGAIN: temporary failure (no answer from the DNS server).
        public static let tryAgain = Code("tryAgain", -3, "EAI_AGAIN")
        /// EAI_FAIL: permanent failure.
        public static let fail = Code("fail", -4, "EAI_FAIL")
        /// EAI_NODATA: the name exists but has no addresses.
        public static let noData = Code("noData", -5, "EAI_NODATA")
        /// EAI_FAMILY.
        public static let family = Code("family", -6, "EAI_FAMILY")
        /// EAI_SOCKTYPE.
        public static let socketType = Code("socketType", -7, "EAI_SOCKTYPE")
        /// EAI_SERVICE.
        public static let service = Code("service", -8, "EAI_SERVICE")
        /// EAI_ADDRFAMILY: the host has no address in the requested family.
        public static let addressFamily = Code("addressFamily", -9, "EAI_ADDRFAMILY")
        /// EAI_MEMORY.
        public static let memory = Code("memory", -10, "EAI_MEMORY")
        /// EAI_SYSTEM: see `ResolutionError.errno`.
        public static let system = Code("system", -11, "EAI_SYSTEM")
        /// EAI_OVERFLOW.
        public static let overflow = Code("overflow", -12, "EAI_OVERFLOW")
        /// The resolver was shut down before answering (Courier's own code).
        public static let shutDown = Code("shutDown", 1, "resolver shut down")
        /// The awaiting task was cancelled (Courier's own code).
        public static let cancelled = Code("cancelled", 2, "cancelled")
        /// getaddrinfo returned a value this list does not name (the C library's message says what).
        public static let unknown = Code("unknown", 0, "EAI (unknown)")

        /// The C name, as `name`.
        public var description: String { name }
    }

    /// What failed.
    public let code: Code
    /// The name that was looked up.
    public let host: String
    /// For EAI_SYSTEM, the errno getaddrinfo left.
    public let errno: Errno?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - host: the name looked up.
    ///   - errno: errno, for EAI_SYSTEM.
    public init(code: Code, host: String, errno: Errno? = nil) {
        self.code = code
        self.host = host
        self.errno = errno
    }

    /// The C library's message (gai_strerror) for EAI codes.
    public var message: String {
        if code.value >= 0 { return code.name }
        if let errno { return errno.description }
        return Sys.addressInfoMessage(code.value)
    }

    /// "could not resolve host.invalid: EAI_NONAME (Name or service not known)".
    public var description: String { "could not resolve \(host): \(code.name) (\(message))" }
}

/// A fixed answer for a host and port, as curl's `--resolve HOST:PORT:ADDRESS[,ADDRESS]...`.
public struct ResolveOverride: Hashable, Sendable {
    /// The host name it applies to (compared case-insensitively), or "*" for every host.
    public let host: String
    /// The port it applies to.
    public let port: UInt16
    /// The answer, in order.
    public let addresses: [IPAddress]

    /// Creates an override.
    /// - Parameters:
    ///   - host: the name, or "*" for any name.
    ///   - port: the port.
    ///   - addresses: at least one address.
    public init(host: String, port: UInt16, addresses: [IPAddress]) {
        precondition(!addresses.isEmpty, "an override needs at least one address")
        self.host = ResolverCache.Key.normalize(host)
        self.port = port
        self.addresses = addresses
    }

    /// Parses curl's form: "example.com:443:127.0.0.1", "example.com:443:[::1],127.0.0.1". A
    /// leading "+" (curl's "time out the entry") is accepted and ignored.
    /// - Parameter text: the option value.
    /// - Returns: nil when the form or an address is invalid.
    public init?(parsing text: String) {
        var rest = Substring(text)
        if rest.hasPrefix("+") { rest = rest.dropFirst() }
        let host: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            guard rest.hasPrefix(":") else { return nil }
            rest = rest.dropFirst()
        } else {
            guard let colon = rest.firstIndex(of: ":") else { return nil }
            host = rest[..<colon]
            rest = rest[rest.index(after: colon)...]
        }
        guard !host.isEmpty, let colon = rest.firstIndex(of: ":"),
              let port = UInt16(rest[..<colon]) else { return nil }
        var addresses: [IPAddress] = []
        for part in rest[rest.index(after: colon)...].split(separator: ",", omittingEmptySubsequences: false) {
            guard let address = IPAddress(part) else { return nil }
            addresses.append(address)
        }
        guard !addresses.isEmpty else { return nil }
        self.init(host: String(host), port: port, addresses: addresses)
    }
}

/// curl's `--connect-to HOST1:PORT1:HOST2:PORT2`: a connection for HOST1:PORT1 goes to
/// HOST2:PORT2 instead (the request, its Host field and SNI still name HOST1). An empty HOST1 or
/// PORT1 matches any; an empty HOST2 or PORT2 keeps the original.
public struct ConnectToOverride: Hashable, Sendable {
    /// The host it applies to (normalised), or nil for any.
    public let host: String?
    /// The port it applies to, or nil for any.
    public let port: UInt16?
    /// Where to connect instead (a name or an address), or nil to keep the host.
    public let targetHost: String?
    /// The port to connect to instead, or nil to keep the port.
    public let targetPort: UInt16?

    /// Creates an override.
    /// - Parameters:
    ///   - host: the host it applies to, or nil for any.
    ///   - port: the port it applies to, or nil for any.
    ///   - targetHost: the host to connect to, or nil for the same.
    ///   - targetPort: the port to connect to, or nil for the same.
    public init(host: String?, port: UInt16?, targetHost: String?, targetPort: UInt16?) {
        self.host = host.map(ResolverCache.Key.normalize)
        self.port = port
        self.targetHost = targetHost
        self.targetPort = targetPort
    }

    /// Parses curl's form "HOST1:PORT1:HOST2:PORT2" (IPv6 addresses in brackets; any part may be
    /// empty).
    /// - Parameter text: the option value.
    /// - Returns: nil when there are not four parts or a port is not a number.
    public init?(parsing text: String) {
        var parts: [Substring] = []
        var rest = Substring(text)
        for index in 0..<4 {
            if index % 2 == 0 && rest.hasPrefix("[") {
                guard let close = rest.firstIndex(of: "]") else { return nil }
                parts.append(rest[rest.index(after: rest.startIndex)..<close])
                rest = rest[rest.index(after: close)...]
                if index < 3 {
                    guard rest.hasPrefix(":") else { return nil }
                    rest = rest.dropFirst()
                }
                continue
            }
            if index == 3 {
                parts.append(rest)
                rest = ""
            } else {
                guard let colon = rest.firstIndex(of: ":") else { return nil }
                parts.append(rest[..<colon])
                rest = rest[rest.index(after: colon)...]
            }
        }
        guard rest.isEmpty else { return nil }
        func port(_ part: Substring) -> UInt16?? {
            if part.isEmpty { return .some(nil) }
            guard let value = UInt16(part) else { return nil }
            return .some(value)
        }
        guard let sourcePort = port(parts[1]), let targetPort = port(parts[3]) else { return nil }
        self.init(host: parts[0].isEmpty ? nil : String(parts[0]), port: sourcePort,
                  targetHost: parts[2].isEmpty ? nil : String(parts[2]), targetPort: targetPort)
    }

    /// Whether it applies to `host` (normalised) and `port`.
    func matches(host: String, port: UInt16) -> Bool {
        (self.host == nil || self.host == host) && (self.port == nil || self.port == port)
    }
}

/// Recent answers with a time to live, at most `maxEntries` of them.
struct ResolverCache {
    struct Key: Hashable {
        let host: String
        let port: UInt16
        init(host: String, port: UInt16) {
            self.host = Key.normalize(host)
            self.port = port
        }
        /// DNS names compare case-insensitively (RFC 4343); a trailing root dot is dropped.
        static func normalize(_ host: String) -> String {
            var h = host.lowercased()
            if h.count > 1 && h.hasSuffix(".") { h.removeLast() }
            return h
        }
    }

    private struct Entry {
        let addresses: [SocketAddress]
        let expires: Instant
    }

    let ttl: Duration
    let maxEntries: Int
    private var entries: [Key: Entry] = [:]

    init(ttl: Duration, maxEntries: Int) {
        self.ttl = ttl
        self.maxEntries = maxEntries
    }

    var count: Int { entries.count }

    /// The cached answer, if present and not expired at `now`.
    mutating func lookup(_ key: Key, now: Instant) -> [SocketAddress]? {
        guard let entry = entries[key] else { return nil }
        guard now < entry.expires else {
            entries[key] = nil
            return nil
        }
        return entry.addresses
    }

    /// Remembers an answer until `now + ttl`; when full, drops expired entries, then the one
    /// closest to expiring.
    mutating func insert(_ addresses: [SocketAddress], for key: Key, now: Instant) {
        guard ttl > .zero, maxEntries > 0, !addresses.isEmpty else { return }
        if entries[key] == nil && entries.count >= maxEntries {
            entries = entries.filter { now < $0.value.expires }
            if entries.count >= maxEntries, let oldest = entries.min(by: { $0.value.expires < $1.value.expires }) {
                entries[oldest.key] = nil
            }
        }
        entries[key] = Entry(addresses: addresses, expires: now + ttl)
    }
}
