// SetCookieParser: one Set-Cookie field value into a name, a value and its attributes —
// draft-ietf-httpbis-layered-cookies "Parse a Cookie" (RFC 6265 §5.2 as refined), lenient as a user
// agent must be. Storage decisions (domain, Secure, prefixes, identity) are CookieStore's.
//
// Rules, in order:
//  1. A control character (0x00–0x08, 0x0A–0x1F, 0x7F) anywhere fails the field. HTAB is allowed
//     only as whitespace: a tab inside the trimmed name or value fails it too (curl's rule; a tab
//     would also break the Netscape file's columns).
//  2. The name-value pair is everything before the first ";". Without "=" in it the field fails
//     (RFC 6265 §5.2 and curl; layered-cookies would make a nameless cookie of it). Name and value
//     are split at the first "=", leading and trailing SP/HTAB removed; an empty name fails;
//     name + value longer than the limit (4096 bytes) fails.
//  3. Each ";"-separated attribute splits at its first "=" (none: the value is empty), both sides
//     trimmed. Names compare without ASCII case; unknown names are ignored; an attribute whose
//     value is longer than the limit (1024 bytes) is ignored. A later attribute of the same name
//     replaces an earlier one.
//  4. Expires: the RFC 6265 §5.1.1 cookie-date; one that does not parse is ignored.
//     Max-Age: DIGITs, or "-" then DIGITs; anything else is ignored. Max-Age wins over Expires
//     whatever their order.
//  5. Domain: an empty value is ignored (RFC 6265 §5.2.3, curl). One leading "." is dropped; the
//     rest must be an ASCII host — a name of letters, digits, "-" and "_" in non-empty labels, a
//     dotted-quad IPv4 address, or an IPv6 address (brackets optional) — or the field fails.
//  6. Path: a value starting with "/" (without a tab) is the path; any other value, the empty one
//     included, means the default path (RFC 6265 §5.2.4 and curl: a later invalid Path undoes an
//     earlier valid one; layered-cookies would keep the earlier one).
//  7. Secure and HttpOnly are flags (any value ignored). SameSite takes Strict, Lax or None in any
//     case; another value leaves it as it was.

import CourierBytes

/// A Set-Cookie field value, parsed.
struct ParsedSetCookie: Sendable, Equatable {
    /// How the Domain attribute reads.
    enum DomainAttribute: Sendable, Equatable {
        /// A registered name, lower case, without a leading dot.
        case name(String)
        /// An IPv4 or IPv6 address (IPv6 without brackets), lower case.
        case address(String)
    }

    var name: String
    var value: String
    /// The last valid Expires, seconds since the Unix epoch.
    var expires: Int64?
    /// The last valid Max-Age, in seconds (may be ≤ 0).
    var maxAge: Int64?
    var domain: DomainAttribute?
    /// The last Path attribute when it starts with "/"; nil: the default path applies.
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: Cookie.SameSite = .unspecified
}

enum SetCookieParser {
    /// Parses one Set-Cookie field value (rules at the top of this file).
    /// - Parameters:
    ///   - field: the field value, as received (never several fields joined).
    ///   - limits: the name+value and attribute-value limits.
    /// - Returns: the parsed cookie, or the reason it fails.
    static func parse(_ field: String, limits: CookieLimits) -> Result<ParsedSetCookie, CookieRejection> {
        var field = field
        return field.withUTF8 { parse(bytes: $0, limits: limits) }
    }

    static func parse(bytes: UnsafeBufferPointer<UInt8>, limits: CookieLimits) -> Result<ParsedSetCookie, CookieRejection> {
        // Rule 1.
        for b in bytes where (b < 0x20 && b != 0x09) || b == 0x7F { return .failure(.controlCharacter) }
        let end = bytes.count
        let firstSemicolon = bytes.firstIndex(of: UInt8(ascii: ";")) ?? end
        // Rule 2.
        guard let equals = bytes[0..<firstSemicolon].firstIndex(of: UInt8(ascii: "=")) else { return .failure(.missingEquals) }
        let name = trimmed(bytes, 0, equals)
        let value = trimmed(bytes, equals + 1, firstSemicolon)
        guard !name.isEmpty else { return .failure(.emptyName) }
        guard name.count + value.count <= limits.maximumNameValueLength else { return .failure(.tooLarge) }
        guard !bytes[name].contains(0x09), !bytes[value].contains(0x09) else { return .failure(.controlCharacter) }
        var cookie = ParsedSetCookie(name: string(bytes, name), value: string(bytes, value))

        // Rule 3.
        var index = firstSemicolon
        while index < end {
            let start = index + 1
            var stop = start
            while stop < end && bytes[stop] != UInt8(ascii: ";") { stop += 1 }
            index = stop
            let attributeEquals = bytes[start..<stop].firstIndex(of: UInt8(ascii: "="))
            let attributeName = trimmed(bytes, start, attributeEquals ?? stop)
            let attributeValue = attributeEquals.map { trimmed(bytes, $0 + 1, stop) } ?? stop..<stop
            guard attributeValue.count <= limits.maximumAttributeValueLength else { continue }
            let nameBytes = bytes[attributeName]
            let valueBytes = UnsafeBufferPointer(rebasing: bytes[attributeValue])
            if ASCIICase.equal(nameBytes, "expires".utf8) {
                if let time = CookieDate.parse(bytes: valueBytes) { cookie.expires = time }
            } else if ASCIICase.equal(nameBytes, "max-age".utf8) {
                if let seconds = maxAge(valueBytes) { cookie.maxAge = seconds }
            } else if ASCIICase.equal(nameBytes, "domain".utf8) {
                guard !valueBytes.isEmpty else { continue }
                guard let domain = domainAttribute(valueBytes) else { return .failure(.invalidDomain) }
                cookie.domain = domain
            } else if ASCIICase.equal(nameBytes, "path".utf8) {
                let isPath = valueBytes.first == UInt8(ascii: "/") && !valueBytes.contains(0x09)
                cookie.path = isPath ? String(decoding: valueBytes, as: UTF8.self) : nil
            } else if ASCIICase.equal(nameBytes, "secure".utf8) {
                cookie.isSecure = true
            } else if ASCIICase.equal(nameBytes, "httponly".utf8) {
                cookie.isHTTPOnly = true
            } else if ASCIICase.equal(nameBytes, "samesite".utf8) {
                if ASCIICase.equal(valueBytes, "none".utf8) {
                    cookie.sameSite = .none
                } else if ASCIICase.equal(valueBytes, "strict".utf8) {
                    cookie.sameSite = .strict
                } else if ASCIICase.equal(valueBytes, "lax".utf8) {
                    cookie.sameSite = .lax
                }
            }
        }
        return .success(cookie)
    }

    /// Max-Age (rule 4): DIGITs or "-" DIGITs; saturates instead of overflowing.
    static func maxAge(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var digits = bytes[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return nil }
        var value: Int64 = 0
        for digit in digits {
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(Int64(digit &- UInt8(ascii: "0")))
            if o1 || o2 { value = .max; break }
            value = sum
        }
        return negative ? -value : value
    }

    /// The Domain attribute (rule 5); nil when it is not an ASCII host.
    static func domainAttribute(_ bytes: UnsafeBufferPointer<UInt8>) -> ParsedSetCookie.DomainAttribute? {
        var host = bytes[...]
        if host.first == UInt8(ascii: ".") { host = host.dropFirst() }
        guard !host.isEmpty, host.allSatisfy({ $0 < 0x80 }) else { return nil }
        let text = ASCIICase.lowercased(String(decoding: host, as: UTF8.self))
        if text.hasPrefix("[") {
            guard text.hasSuffix("]") else { return nil }
            let inner = String(text.dropFirst().dropLast())
            return HostSyntax.isIPv6(inner) ? .address(inner) : nil
        }
        if text.contains(":") { return HostSyntax.isIPv6(text) ? .address(text) : nil }
        if HostSyntax.isIPv4(text) { return .address(text) }
        return HostSyntax.isDomainName(text) ? .name(text) : nil
    }

    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var lower = start, upper = end
        while lower < upper && (bytes[lower] == 0x20 || bytes[lower] == 0x09) { lower += 1 }
        while upper > lower && (bytes[upper - 1] == 0x20 || bytes[upper - 1] == 0x09) { upper -= 1 }
        return lower..<upper
    }

    private static func string(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }
}

/// Host syntax for cookie domains: what counts as an address and what as a name.
enum HostSyntax {
    /// A dotted quad of decimal octets 0–255 (no leading zeros beyond "0" itself).
    static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return false }
        return parts.allSatisfy { part in
            guard !part.isEmpty, part.utf8.count <= 3, part.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 }) else { return false }
            guard part.utf8.count == 1 || part.utf8.first != UInt8(ascii: "0") else { return false }
            return Int(part)! <= 255
        }
    }

    /// An IPv6 address (RFC 4291 §2.2): hex groups of 1–4 digits separated by ":", at most one
    /// "::" standing for one or more zero groups, optionally a dotted quad as the last two groups.
    static func isIPv6(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: ":")), bytes.count <= 45 else { return false }
        var doubleColon: Int?
        var i = 0
        while i + 1 < bytes.count {
            if bytes[i] == UInt8(ascii: ":") && bytes[i + 1] == UInt8(ascii: ":") {
                guard doubleColon == nil else { return false }
                doubleColon = i
                i += 2
            } else {
                i += 1
            }
        }
        var pieces: [ArraySlice<UInt8>] = []
        if let at = doubleColon {
            pieces = [bytes[..<at], bytes[(at + 2)...]]
        } else {
            pieces = [bytes[...]]
        }
        var groups: [ArraySlice<UInt8>] = []
        for piece in pieces where !piece.isEmpty {
            groups += piece.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
        }
        var count = 0
        for (index, group) in groups.enumerated() {
            if group.contains(UInt8(ascii: ".")) {
                guard index == groups.count - 1, isIPv4(String(decoding: group, as: UTF8.self)) else { return false }
                count += 2
            } else {
                guard !group.isEmpty, group.count <= 4, group.allSatisfy({ ASCIIInteger.hexValue($0) != nil }) else { return false }
                count += 1
            }
        }
        return doubleColon == nil ? count == 8 : count <= 7
    }

    /// Labels of letters, digits, "-" and "_", none empty (so no leading, trailing or double dot).
    static func isDomainName(_ text: String) -> Bool {
        guard text.utf8.count <= 253 else { return false }
        return text.split(separator: ".", omittingEmptySubsequences: false).allSatisfy { label in
            !label.isEmpty && label.utf8.count <= 63 && label.utf8.allSatisfy { b in
                (b &- UInt8(ascii: "a") < 26) || (b &- UInt8(ascii: "0") < 10) || b == UInt8(ascii: "-") || b == UInt8(ascii: "_")
            }
        }
    }
}
