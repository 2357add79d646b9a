// IPAddressSyntax: the IPv4address and IPv6address rules of RFC 3986 §3.2.2, checked in place.
//
// Syntax only: nothing here converts an address to binary (the resolver in CourierPosix does).
//
//   IPv4address = dec-octet "." dec-octet "." dec-octet "." dec-octet
//   dec-octet   = DIGIT / %x31-39 DIGIT / "1" 2DIGIT / "2" %x30-34 DIGIT / "25" %x30-35
//   IPv6address = the nine alternatives of §3.2.2: at most eight h16 pieces separated by ":",
//                 at most one "::" standing for one or more zero pieces, and optionally an
//                 IPv4address in place of the last two pieces (ls32).

enum IPAddressSyntax {
    enum NumericHost {
        /// The host has a byte other than a digit or "."; it is a registered name.
        case notNumeric
        /// A dotted-quad IPv4 address.
        case ipv4
        /// A host a resolver would read as an IPv4 address that is not a dotted quad (`127.1`,
        /// `010.0.0.1`, `1.2.3.256`, `123`, `0x7f.1`, `1.2.3.0x4`).
        case invalid
    }

    /// Classifies a host: a dotted quad, a name, or something a resolver would read as an IPv4
    /// address although it is not a dotted quad.
    ///
    /// RFC 3986 §7.4: inet_aton (and so glibc's getaddrinfo) also reads `127.1`, `0177.0.0.1`,
    /// `0x7f.1`, `0x7f000001` and `1.2.3.0x4` as addresses. Every such form ends in a label that
    /// is a number, decimal or `0x` hex (the WHATWG URL Standard's "ends in a number" test), so a
    /// host whose last label is a number must be a dotted quad; otherwise it is a registered name.
    static func classifyNumericHost(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> NumericHost {
        guard !range.isEmpty else { return .notNumeric }
        var digitsAndDots = true
        for i in range {
            let byte = p[i]
            guard byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: ".") else { digitsAndDots = false; break }
        }
        if digitsAndDots { return isIPv4(p, range) ? .ipv4 : .invalid }
        return endsInANumber(p, range) ? .invalid : .notNumeric
    }

    /// Whether the last label of `range` (one trailing "." ignored) is `1*DIGIT` or
    /// `"0" ("x" / "X") *HEXDIG`.
    private static func endsInANumber(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var end = range.upperBound
        if p[end - 1] == UInt8(ascii: ".") { end -= 1 }
        var start = end
        while start > range.lowerBound, p[start - 1] != UInt8(ascii: ".") { start -= 1 }
        guard start < end else { return false }
        if (start..<end).allSatisfy({ p[$0] &- UInt8(ascii: "0") < 10 }) { return true }
        guard end - start >= 2, p[start] == UInt8(ascii: "0"), p[start + 1] | 0x20 == UInt8(ascii: "x") else { return false }
        return (start + 2..<end).allSatisfy { hexValue(p[$0]) != nil }
    }

    /// Whether `range` is exactly an RFC 3986 `IPv4address` (no leading zeros, each octet ≤ 255).
    static func isIPv4(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Bool {
        var octets = 0
        var i = range.lowerBound
        while true {
            let start = i
            var value = 0
            while i < range.upperBound, p[i] &- UInt8(ascii: "0") < 10, i - start < 3 {
                value = value * 10 + Int(p[i] &- UInt8(ascii: "0"))
                i += 1
            }
            let digits = i - start
            guard digits > 0, value <= 255, digits == 1 || p[start] != UInt8(ascii: "0") else { return false }
            octets += 1
            if octets == 4 { return i == range.upperBound }
            guard i < range.upperBound, p[i] == UInt8(ascii: ".") else { return false }
            i += 1
        }
    }

    /// Checks `range` against `IPv6address`.
    /// - Returns: nil when it matches, else the offset of the first byte found at fault.
    static func firstErrorInIPv6(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> Int? {
        let end = range.upperBound
        var i = range.lowerBound
        var pieces = 0
        var sawDoubleColon = false
        let colon = UInt8(ascii: ":")
        guard i < end else { return i }
        if p[i] == colon {
            guard i + 1 < end, p[i + 1] == colon else { return i }
            sawDoubleColon = true
            i += 2
            if i == end { return nil }
        }
        while true {
            let start = i
            while i < end, hexValue(p[i]) != nil { i += 1 }
            if i < end, p[i] == UInt8(ascii: ".") {
                // ls32 as an IPv4address: it must run to the end and stand for two pieces.
                guard isIPv4(p, start..<end) else { return start }
                pieces += 2
                i = end
                break
            }
            let digits = i - start
            guard digits > 0 else { return start }
            guard digits <= 4 else { return start + 4 }
            pieces += 1
            if i == end { break }
            guard p[i] == colon else { return i }
            i += 1
            if i < end, p[i] == colon {
                guard !sawDoubleColon else { return i }
                sawDoubleColon = true
                i += 1
                if i == end { break }
            } else if i == end {
                return i - 1
            }
            if pieces >= 8 { return i }
        }
        if sawDoubleColon ? pieces <= 7 : pieces == 8 { return nil }
        return range.lowerBound
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        if byte &- UInt8(ascii: "0") < 10 { return byte &- UInt8(ascii: "0") }
        let folded = byte | 0x20
        if folded &- UInt8(ascii: "a") < 6 { return folded &- UInt8(ascii: "a") &+ 10 }
        return nil
    }
}
