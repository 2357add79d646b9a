// URIParser+Host: a registered-name host (RFC 3986 §3.2.2 reg-name) and, for the schemes whose
// hosts are domain names, international host names.
//
// Rules, in order:
//   1. A host of only unreserved and sub-delims bytes is taken as it is, lower-cased: no IDNA
//      work, no allocation beyond the host string (the fast path every ASCII host takes; curl
//      too converts only names that are not ASCII).
//   2. Under a scheme whose host is a domain name (http, https, ws, wss, ftp, file — WHATWG's
//      "special" schemes — and a reference without a scheme, which is resolved against one), a
//      host holding "%" or bytes above 0x7F is parsed as the WHATWG URL Standard's host parser
//      does: percent-decoded, the bytes then UTF-8, and
//        - decoded to ASCII only: the reg-name rule applies to the decoded bytes (so `ex%61mple`
//          is `example`, and `a%2Fb` is refused at the "%2F");
//        - holding non-ASCII: converted by UTS #46 ToASCII (IDNA.swift); a failure is
//          `URIError.invalidHostName` carrying the `IDNAError` (label and rule).
//      The ASCII result is then classified as any host is (`１２７.０.０.１` is an IPv4 address).
//   3. Under any other scheme the reg-name is checked byte for byte and kept percent-encoded
//      (RFC 3986 §3.2.2 does not say what its bytes mean), non-ASCII refused.
//
// Offsets in errors are those of the URI input: a decoded byte reports its "%" triplet.

import CourierBytes

extension URIParser {
    private static let percent = UInt8(ascii: "%")

    /// Whether hosts under `scheme` are domain names that get the WHATWG host treatment.
    static func hasDomainHosts(_ scheme: String?) -> Bool {
        switch scheme {
        case nil, "http", "https", "ws", "wss", "ftp", "file": return true
        default: return false
        }
    }

    /// Parses the reg-name in `range` (the parser has already ruled out an IP literal).
    static func registeredName(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scheme: String?
    ) throws(URIError) -> URI.Host {
        let t = ByteClass.table
        var i = range.lowerBound
        while i < range.upperBound, t.isAny(p[i], of: [.unreserved, .subDelimiter]) { i += 1 }
        // Rule 1: the one scan above is all the checking an ASCII host needs.
        if i == range.upperBound {
            return try classified(p, range, text: normalisedHost(p, range), errorOffset: range.lowerBound)
        }
        guard hasDomainHosts(scheme) else {
            try validate(p, range, allowed: [.unreserved, .subDelimiter], alsoAllowing: nil)
            return try classified(p, range, text: normalisedHost(p, range), errorOffset: range.lowerBound)
        }
        return try domainHost(p, range)
    }

    /// Rule 2: percent-decoding, then ASCII or UTS #46 ToASCII.
    private static func domainHost(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) throws(URIError) -> URI.Host {
        let t = ByteClass.table
        var decoded: [UInt8] = []
        var sources: [Int] = []     // the input offset of each decoded byte
        decoded.reserveCapacity(range.count)
        sources.reserveCapacity(range.count)
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = p[i]
            if byte == percent {
                guard i + 2 < range.upperBound, let high = hexValue(p[i + 1]), let low = hexValue(p[i + 2]) else {
                    throw URIError(.malformedPercentEncoding, offset: i)
                }
                decoded.append(high << 4 | low)
                sources.append(i)
                i += 3
            } else if byte >= 0x80 || t.isAny(byte, of: [.unreserved, .subDelimiter]) {
                decoded.append(byte)
                sources.append(i)
                i += 1
            } else {
                throw URIError(.invalidCharacter, offset: i)
            }
        }
        if let bad = UTF8Validation.firstInvalidIndex(decoded) {
            throw URIError(.invalidCharacter, offset: sources[bad])
        }

        if decoded.allSatisfy({ $0 < 0x80 }) {
            for (k, byte) in decoded.enumerated() where !t.isAny(byte, of: [.unreserved, .subDelimiter]) {
                throw URIError(.invalidCharacter, offset: sources[k])
            }
            let text = String(decoding: decoded.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
            return try classifiedText(text, errorOffset: range.lowerBound)
        }

        // UTF-8 → scalars, each with the input offset of its first byte.
        var scalars: [UInt32] = [], offsets: [Int] = []
        scalars.reserveCapacity(decoded.count)
        var k = 0
        while k < decoded.count {
            let lead = decoded[k]
            let length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4
            var value = length == 1 ? UInt32(lead) : UInt32(lead) & (0xFF >> (length + 1))
            for j in 1..<max(length, 1) { value = value << 6 | UInt32(decoded[k + j] & 0x3F) }
            scalars.append(value)
            offsets.append(sources[k])
            k += length
        }
        offsets.append(range.upperBound)
        let ascii: String
        do throws(IDNAError) {
            ascii = try IDNA.toASCII(scalars, offsets: offsets)
        } catch {
            throw URIError(.invalidHostName, offset: error.offset, idna: error)
        }
        return try classifiedText(ascii, errorOffset: range.lowerBound)
    }

    private static func classifiedText(_ text: String, errorOffset: Int) throws(URIError) -> URI.Host {
        var bytes = text
        let result = bytes.withUTF8 { p in
            Result { () throws(URIError) -> URI.Host in
                try classified(p, 0..<p.count, text: text, errorOffset: errorOffset)
            }
        }
        return try result.get()
    }

    /// The host's kind (RFC 3986 §3.2.2, with the §7.4 rule on numeric hosts).
    private static func classified(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, text: String, errorOffset: Int
    ) throws(URIError) -> URI.Host {
        switch IPAddressSyntax.classifyNumericHost(p, range) {
        case .notNumeric: return URI.Host(kind: .registeredName, text: text)
        case .ipv4: return URI.Host(kind: .ipv4Address, text: text)
        case .invalid: throw URIError(.invalidIPv4Address, offset: errorOffset)
        }
    }

    @inline(__always)
    private static func hexValue(_ byte: UInt8) -> UInt8? {
        if byte &- UInt8(ascii: "0") < 10 { return byte &- UInt8(ascii: "0") }
        let folded = byte | 0x20
        if folded &- UInt8(ascii: "a") < 6 { return folded &- UInt8(ascii: "a") &+ 10 }
        return nil
    }

    /// The host text `URI.init(scheme:…)` expects the parser to produce for `host` (a host with
    /// ":" is an IPv6 address, which that initialiser brackets).
    static func expectedHostText(_ host: String, scheme: String?) throws(URIError) -> String {
        let isIPv6 = host.utf8.contains(UInt8(ascii: ":"))
        var host = host
        let result = host.withUTF8 { p in
            Result { () throws(URIError) -> String in
                if isIPv6 { return lowercased(p, 0..<p.count) }
                return try registeredName(p, 0..<p.count, scheme: scheme).text
            }
        }
        return try result.get()
    }
}
