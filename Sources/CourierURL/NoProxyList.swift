// NoProxyList: which hosts bypass a proxy, decided exactly as curl 7.88 decides it
// (lib/noproxy.c `Curl_check_noproxy`, its unit vectors in tests/unit/unit1614.c), so a NO_PROXY
// value means the same to `courier` as to the curl beside it. docs/proxy.md has the table.
//
// The rules:
// - the whole list `*` (nothing else) matches every host; `*` inside a longer list is an ordinary
//   entry that matches nothing;
// - entries are separated by commas and blanks (space, tab): curl 7.88 still takes
//   `a b` as two entries, with a deprecation warning; curl 8 stops at the first blank);
// - a host name matches an entry equal to it or ending in `.` + the entry, ASCII
//   case-insensitively (`example.com` matches `www.example.com`, never `nonexample.com`); one
//   leading dot of the entry and one trailing dot of the entry and of the host are ignored;
// - an IP address (IPv4 dotted quad, IPv6 with or without brackets) is compared as an address,
//   against entries that are addresses, with an optional `/bits` prefix length (CIDR); an address
//   never matches a name and no name is ever resolved to decide.
//
// Pure: no I/O, no resolver. The list is parsed once; `matches(host:)` allocates nothing for
// names.

import CourierBytes

/// A NO_PROXY list (curl's `--noproxy` / `no_proxy` syntax).
public struct NoProxyList: Sendable, Hashable, CustomStringConvertible {
    /// The list as given.
    public let text: String
    private let matchesAll: Bool
    private let entries: [[UInt8]]

    /// Parses a list; an empty string matches nothing.
    /// - Parameter text: comma- (or blank-) separated host names, domains and addresses, or `*`.
    public init(_ text: String) {
        self.text = text
        matchesAll = text == "*"
        var entries: [[UInt8]] = []
        var current: [UInt8] = []
        for byte in text.utf8 {
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") {
                if !current.isEmpty { entries.append(current) }
                current = []
            } else {
                current.append(byte)
            }
        }
        if !current.isEmpty { entries.append(current) }
        self.entries = entries
    }

    /// The list as given.
    public var description: String { text }

    /// Whether `host` bypasses the proxy.
    /// - Parameter host: a host name or an address literal as in a URL (an IPv6 address with or
    ///   without its brackets), without a port.
    /// - Returns: true when the list names it (or is `*`).
    public func matches(host: String) -> Bool {
        if host.isEmpty { return false }
        if matchesAll { return true }
        if entries.isEmpty { return false }
        var name = Array(host.utf8)
        if name.first == UInt8(ascii: "["), name.last == UInt8(ascii: "]") {
            name = Array(name[1..<(name.count - 1)])
        }
        if let address = IPAddressBytes.parseIPv4(name) {
            return entries.contains { NoProxyList.matchAddress(address, entry: $0, ipv6: false) }
        }
        if let address = IPAddressBytes.parseIPv6(name) {
            return entries.contains { NoProxyList.matchAddress(address, entry: $0, ipv6: true) }
        }
        if name.last == UInt8(ascii: ".") { name.removeLast() }
        return entries.contains { NoProxyList.matchName(name, entry: $0) }
    }

    /// curl's `match_host`: exact, or a tail match on a label boundary.
    static func matchName(_ name: [UInt8], entry: [UInt8]) -> Bool {
        var token = entry[...]
        if token.last == UInt8(ascii: ".") { token = token.dropLast() }
        if token.first == UInt8(ascii: "."), !token.isEmpty { token = token.dropFirst() }
        if token.count == name.count { return ASCIICase.equal(token, name[...]) }
        if token.count < name.count {
            let start = name.count - token.count
            return name[start - 1] == UInt8(ascii: ".") && ASCIICase.equal(token, name[start...])
        }
        return false
    }

    /// curl's `match_ip` with `Curl_cidr4_match` / `Curl_cidr6_match`.
    static func matchAddress(_ address: [UInt8], entry: [UInt8], ipv6: Bool) -> Bool {
        // curl copies the entry into a 128-byte buffer first: longer entries never match.
        guard entry.count < 128 else { return false }
        var network = entry[...]
        var bits: Int? = nil
        if let slash = entry.firstIndex(of: UInt8(ascii: "/")) {
            let digits = entry[(slash + 1)...]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return false }
            bits = digits.reduce(0) { $0 * 10 + Int($1 - 0x30) }
            network = entry[..<slash]
        }
        if ipv6 {
            guard let check = IPAddressBytes.parseIPv6(Array(network)) else { return false }
            return prefixMatches(address, check, bits: bits.map { $0 == 0 ? 128 : $0 } ?? 128)
        }
        guard let check = IPAddressBytes.parseIPv4(Array(network)) else { return false }
        guard let bits, bits != 0 else { return address == check }
        return prefixMatches(address, check, bits: bits)
    }

    /// Whether the first `bits` bits of two addresses of the same family agree (false when
    /// `bits` exceeds the address's length, as curl's CIDR functions answer).
    static func prefixMatches(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        guard a.count == b.count, bits <= a.count * 8 else { return false }
        let whole = bits / 8, rest = bits % 8
        if a[..<whole] != b[..<whole] { return false }
        if rest > 0 {
            let mask = UInt8(truncatingIfNeeded: 0xFF << (8 - rest))
            if (a[whole] ^ b[whole]) & mask != 0 { return false }
        }
        return true
    }

    /// `prefixMatches` for the unit tables (curl's `Curl_cidr4_match` vectors).
    public static func prefixMatchesForTesting(_ a: [UInt8], _ b: [UInt8], bits: Int) -> Bool {
        prefixMatches(a, b, bits: bits)
    }

}

/// Address literals as inet_pton(3) reads them (the function curl's NO_PROXY code relies on).
public enum IPAddressBytes {
    /// A dotted-quad IPv4 address (four decimal octets, no leading zeros, as glibc's inet_pton).
    /// - Parameter text: the bytes.
    /// - Returns: the four octets, or nil.
    public static func parseIPv4(_ text: [UInt8]) -> [UInt8]? {
        var octets: [UInt8] = []
        var value = 0, digits = 0
        for byte in text {
            if byte == UInt8(ascii: ".") {
                guard digits > 0, octets.count < 3 else { return nil }
                octets.append(UInt8(value))
                value = 0
                digits = 0
            } else if byte >= 0x30 && byte <= 0x39 {
                if digits > 0 && value == 0 { return nil }  // a leading zero
                value = value * 10 + Int(byte - 0x30)
                digits += 1
                guard value <= 255 else { return nil }
            } else {
                return nil
            }
        }
        guard digits > 0, octets.count == 3 else { return nil }
        octets.append(UInt8(value))
        return octets
    }

    /// An IPv6 address (RFC 4291 §2.2 text forms, `::` and a trailing dotted quad included).
    /// - Parameter text: the bytes, without brackets or zone.
    /// - Returns: the sixteen octets, or nil.
    public static func parseIPv6(_ text: [UInt8]) -> [UInt8]? {
        guard text.count >= 2, text.count <= 45 else { return nil }
        var words: [UInt16] = []
        var gap: Int? = nil
        var i = 0
        let n = text.count
        if text[0] == UInt8(ascii: ":") {
            guard text[1] == UInt8(ascii: ":") else { return nil }
            gap = 0
            i = 2
            if i == n { return [UInt8](repeating: 0, count: 16) }
        }
        while i < n {
            // One group: up to four hex digits, or a dotted quad at the end.
            var j = i
            var value = 0
            while j < n, j - i < 5, let digit = hexValue(text[j]) {
                value = value * 16 + digit
                j += 1
            }
            if j < n, text[j] == UInt8(ascii: ".") {
                guard words.count <= 6, let quad = parseIPv4(Array(text[i...])) else { return nil }
                words.append(UInt16(quad[0]) << 8 | UInt16(quad[1]))
                words.append(UInt16(quad[2]) << 8 | UInt16(quad[3]))
                i = n
                break
            }
            guard j > i, j - i <= 4 else { return nil }
            words.append(UInt16(value))
            i = j
            if i == n { break }
            guard text[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            if i < n, text[i] == UInt8(ascii: ":") {
                guard gap == nil else { return nil }
                gap = words.count
                i += 1
                if i == n { break }
            } else if i == n {
                return nil  // a trailing single colon
            }
        }
        if let gap {
            guard words.count < 8 else { return nil }
            words.insert(contentsOf: [UInt16](repeating: 0, count: 8 - words.count), at: gap)
        }
        guard words.count == 8 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(16)
        for word in words {
            bytes.append(UInt8(word >> 8))
            bytes.append(UInt8(word & 0xFF))
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> Int? {
        switch byte {
        case 0x30...0x39: return Int(byte - 0x30)
        case 0x41...0x46: return Int(byte - 0x41 + 10)
        case 0x61...0x66: return Int(byte - 0x61 + 10)
        default: return nil
        }
    }
}

/// The proxy environment variables, read as curl reads them (lib/url.c `detect_proxy`).
public enum ProxyEnvironment {
    /// The names looked up for a URL of `scheme`, in order; the first one set (and non-empty)
    /// wins. `http_proxy` has no upper-case form: CGI programs get a request's `Proxy:` header
    /// as `HTTP_PROXY` (httpoxy, CVE-2016-5385), so it is never read.
    /// - Parameter scheme: `http` or `https` (lower case).
    /// - Returns: the variable names.
    public static func variableNames(forScheme scheme: String) -> [String] {
        let lower = scheme + "_proxy"
        var names = [lower]
        if scheme != "http" { names.append(String(decoding: lower.utf8.map { ($0 >= 0x61 && $0 <= 0x7A) ? $0 - 0x20 : $0 }, as: UTF8.self)) }
        names += ["all_proxy", "ALL_PROXY"]
        return names
    }

    /// The NO_PROXY variable names, lower case first.
    public static let noProxyNames = ["no_proxy", "NO_PROXY"]

    /// The proxy for `scheme`: the first variable of `variableNames(forScheme:)` that is set to a
    /// non-empty value (curl treats an empty variable as unset).
    /// - Parameters:
    ///   - scheme: `http` or `https`.
    ///   - lookup: reads one variable (the process environment, or a table in tests).
    /// - Returns: the variable's name and value, or nil.
    public static func proxy(forScheme scheme: String, lookup: (String) -> String?) -> (name: String, value: String)? {
        for name in variableNames(forScheme: scheme) {
            if let value = lookup(name), !value.isEmpty { return (name, value) }
        }
        return nil
    }

    /// The NO_PROXY list: `no_proxy`, else `NO_PROXY`; nil when neither is set and non-empty.
    /// - Parameter lookup: reads one variable.
    /// - Returns: the list's text.
    public static func noProxy(lookup: (String) -> String?) -> String? {
        for name in noProxyNames {
            if let value = lookup(name), !value.isEmpty { return value }
        }
        return nil
    }
}
