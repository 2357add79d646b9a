// URIParser: strict RFC 3986 parsing of a complete URI reference.
//
// This file owns the grammar of RFC 3986 §3 and §4 (URI-reference = URI / relative-ref). It takes
// the whole reference at once: a URI is not a stream, so there is no partial state and no
// `.needMoreData`; every byte is either accepted by the grammar or reported with its offset.
//
// Order of work: find the scheme (§3.1), split at the first "?" and "#" (§3.4, §3.5), take the
// authority after "//" up to the next "/" (§3.2), then check every byte of every component
// against its byte class from `ByteClass.table` (§2.1 pct-encoded checked at each "%").
//
// Policies beyond RFC 3986, each with its own error code:
//   - a host of only digits and dots, or whose last label is a number (`0x7f.1`), must be a
//     dotted quad (§7.4 "rare IP address formats");
//   - IPvFuture `[v…]` and IPv6 zone identifiers (RFC 6874) are rejected;
//   - an `http`/`https` authority with an empty host is rejected (RFC 9110 §4.2.1).
// Bytes are never guessed at: no implicit percent-encoding, no backslash folding. A host under an
// http-like scheme is the one exception, as the WHATWG URL Standard and curl treat it: "%" triplets
// are decoded and a non-ASCII name is converted to its ASCII form by UTS #46 (URIParser+Host.swift).

import CourierBytes

extension URI {
    /// Parses a URI reference (RFC 3986 §4.1).
    /// - Parameters:
    ///   - string: the reference, for example `https://example.com/a?b` or `../c`.
    ///   - limits: bounds on the input.
    /// - Throws: `URIError` with the offset of the first byte at fault.
    public init(parsing string: String, limits: Limits = Limits()) throws(URIError) {
        var string = string
        let result = string.withUTF8 { bytes in
            Result { () throws(URIError) -> URI in try URIParser.parse(bytes, limits: limits) }
        }
        self = try result.get()
    }

    /// Parses a URI reference from bytes (for example the fuzzer's input, or a slice of a
    /// receive buffer). Bytes that are not ASCII are rejected as `.invalidCharacter`.
    /// - Parameters:
    ///   - bytes: the reference, nothing else.
    ///   - limits: bounds on the input.
    /// - Throws: `URIError` with the offset of the first byte at fault.
    public init(parsing bytes: UnsafeRawBufferPointer, limits: Limits = Limits()) throws(URIError) {
        self = try URIParser.parse(bytes.assumingMemoryBound(to: UInt8.self), limits: limits)
    }

    /// Parses a URI reference from an array of bytes.
    /// - Parameters:
    ///   - bytes: the reference, nothing else.
    ///   - limits: bounds on the input.
    /// - Throws: `URIError` with the offset of the first byte at fault.
    public init(parsing bytes: [UInt8], limits: Limits = Limits()) throws(URIError) {
        let result = bytes.withUnsafeBufferPointer { p in
            Result { () throws(URIError) -> URI in try URIParser.parse(p, limits: limits) }
        }
        self = try result.get()
    }
}

enum URIParser {
    private static let colon = UInt8(ascii: ":"), slash = UInt8(ascii: "/"), question = UInt8(ascii: "?")
    private static let hash = UInt8(ascii: "#"), at = UInt8(ascii: "@"), percent = UInt8(ascii: "%")
    private static let openBracket = UInt8(ascii: "["), closeBracket = UInt8(ascii: "]")

    static func parse(_ p: UnsafeBufferPointer<UInt8>, limits: URI.Limits) throws(URIError) -> URI {
        let n = p.count
        guard n <= limits.maximumLength else { throw URIError(.tooLong, offset: limits.maximumLength) }
        let t = ByteClass.table

        // RFC 3986 §3.1: scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), ended by ":".
        var scheme: String?
        var position = 0
        if n > 0, t[p[0]].contains(.alpha) {
            var i = 1
            while i < n, t[p[i]].contains(.schemeChar) { i += 1 }
            if i < n, p[i] == colon {
                scheme = lowercased(p, 0..<i)
                position = i + 1
            }
        }

        // RFC 3986 §3: the query starts at the first "?", the fragment at the first "#" after it;
        // neither delimiter can occur inside the hier-part, so these splits come first.
        var hierEnd = position
        while hierEnd < n, p[hierEnd] != question, p[hierEnd] != hash { hierEnd += 1 }
        var queryRange: Range<Int>?
        var fragmentStart = hierEnd
        if hierEnd < n, p[hierEnd] == question {
            var end = hierEnd + 1
            while end < n, p[end] != hash { end += 1 }
            queryRange = (hierEnd + 1)..<end
            fragmentStart = end
        }
        let fragmentRange: Range<Int>? = fragmentStart < n ? (fragmentStart + 1)..<n : nil

        // RFC 3986 §3.2: "//" starts an authority, which ends at the next "/" (or the hier-part end).
        var userinfo: String?
        var host: URI.Host?
        var port: UInt16?
        var pathStart = position
        if hierEnd - position >= 2, p[position] == slash, p[position + 1] == slash {
            let authorityStart = position + 2
            var authorityEnd = authorityStart
            while authorityEnd < hierEnd, p[authorityEnd] != slash { authorityEnd += 1 }
            (userinfo, host, port) = try parseAuthority(p, authorityStart..<authorityEnd, scheme: scheme)
            pathStart = authorityEnd
        }

        // RFC 3986 §3.3 path: pchar and "/". Without a scheme or authority, the first segment may
        // not hold ":" (§4.2 path-noscheme) — it would read as a scheme.
        try validate(p, pathStart..<hierEnd, allowed: [.pathChar], alsoAllowing: slash)
        if scheme == nil && host == nil {
            var i = pathStart
            while i < hierEnd, p[i] != slash {
                if p[i] == colon { throw URIError(.invalidScheme, offset: schemeErrorOffset(p, colonAt: i)) }
                i += 1
            }
        }
        if let queryRange { try validate(p, queryRange, allowed: .queryChar, alsoAllowing: nil) }
        if let fragmentRange { try validate(p, fragmentRange, allowed: .queryChar, alsoAllowing: nil) }

        return URI(
            uncheckedScheme: scheme, userinfo: userinfo, host: host, port: port,
            path: string(p, pathStart..<hierEnd),
            query: queryRange.map { string(p, $0) },
            fragment: fragmentRange.map { string(p, $0) })
    }

    /// RFC 3986 §3.2: authority = [ userinfo "@" ] host [ ":" port ].
    private static func parseAuthority(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, scheme: String?
    ) throws(URIError) -> (String?, URI.Host, UInt16?) {
        // userinfo may not hold "@", so the first "@" ends it; a second "@" is then a byte the
        // host may not hold (RFC 3986 §3.2.1; curl takes the last "@", which hides the real host).
        var userinfo: String?
        var hostStart = range.lowerBound
        var i = range.lowerBound
        while i < range.upperBound, p[i] != at { i += 1 }
        if i < range.upperBound {
            try validate(p, range.lowerBound..<i, allowed: [.unreserved, .subDelimiter], alsoAllowing: colon)
            userinfo = string(p, range.lowerBound..<i)
            hostStart = i + 1
        }

        let host: URI.Host
        var portStart: Int?
        if hostStart < range.upperBound, p[hostStart] == openBracket {
            // RFC 3986 §3.2.2: IP-literal = "[" ( IPv6address / IPvFuture ) "]".
            var close = hostStart + 1
            while close < range.upperBound, p[close] != closeBracket { close += 1 }
            guard close < range.upperBound else { throw URIError(.invalidIPv6Address, offset: hostStart) }
            let inner = (hostStart + 1)..<close
            if inner.lowerBound < inner.upperBound, p[inner.lowerBound] | 0x20 == UInt8(ascii: "v") {
                throw URIError(.unsupportedIPvFuture, offset: inner.lowerBound)
            }
            var j = inner.lowerBound
            while j < inner.upperBound {
                if p[j] == percent { throw URIError(.unsupportedIPv6Zone, offset: j) }
                j += 1
            }
            if let bad = IPAddressSyntax.firstErrorInIPv6(p, inner) {
                throw URIError(.invalidIPv6Address, offset: bad)
            }
            host = URI.Host(kind: .ipv6Address, text: lowercased(p, inner))
            let after = close + 1
            if after < range.upperBound {
                guard p[after] == colon else { throw URIError(.invalidCharacter, offset: after) }
                portStart = after + 1
            }
        } else {
            // reg-name may not hold ":", so the first ":" starts the port. URIParser+Host.swift
            // has the rest, international host names included.
            var end = hostStart
            while end < range.upperBound, p[end] != colon { end += 1 }
            host = try registeredName(p, hostStart..<end, scheme: scheme)
            if end < range.upperBound { portStart = end + 1 }
        }

        // RFC 9110 §4.2.1: "A sender MUST NOT generate an "http" URI with an empty host".
        if host.text.isEmpty, scheme == "http" || scheme == "https" {
            throw URIError(.missingHost, offset: hostStart)
        }

        // RFC 3986 §3.2.3: port = *DIGIT; empty means none (§6.2.3). Courier also caps it at 65535.
        var port: UInt16?
        if let portStart, portStart < range.upperBound {
            var value = 0
            for k in portStart..<range.upperBound {
                let digit = p[k] &- UInt8(ascii: "0")
                guard digit < 10 else { throw URIError(.invalidPort, offset: k) }
                value = value * 10 + Int(digit)
                guard value <= 65535 else { throw URIError(.invalidPort, offset: portStart) }
            }
            port = UInt16(value)
        }
        return (userinfo, host, port)
    }

    /// Checks that every byte of `range` has one of `allowed` (or is `alsoAllowing`), and that each
    /// "%" starts a pct-encoded triplet (RFC 3986 §2.1).
    @inline(__always)
    static func validate(
        _ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, allowed: ByteClass, alsoAllowing extra: UInt8?
    ) throws(URIError) {
        let t = ByteClass.table
        var i = range.lowerBound
        while i < range.upperBound {
            let byte = p[i]
            if t.isAny(byte, of: allowed) || byte == extra {
                i += 1
            } else if byte == percent {
                guard i + 2 < range.upperBound,
                      t[p[i + 1]].contains(.hexDigit), t[p[i + 2]].contains(.hexDigit)
                else { throw URIError(.malformedPercentEncoding, offset: i) }
                i += 3
            } else {
                throw URIError(.invalidCharacter, offset: i)
            }
        }
    }

    /// Checks a query given on its own (RFC 3986 §3.4); offsets are within `query`.
    static func validateQuery(_ query: String) throws(URIError) {
        var query = query
        let result = query.withUTF8 { p in
            Result { () throws(URIError) in try validate(p, 0..<p.count, allowed: .queryChar, alsoAllowing: nil) }
        }
        try result.get()
    }

    /// Where a would-be scheme went wrong: its first byte if that is not a letter, else the first
    /// byte that is not a scheme character (RFC 3986 §3.1).
    private static func schemeErrorOffset(_ p: UnsafeBufferPointer<UInt8>, colonAt colon: Int) -> Int {
        let t = ByteClass.table
        guard colon > 0, t[p[0]].contains(.alpha) else { return 0 }
        var i = 1
        while i < colon, t[p[i]].contains(.schemeChar) { i += 1 }
        return i
    }

    private static func string(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: p[range]), as: UTF8.self)
    }

    /// ASCII letters in `range` folded to lower case (scheme, IPv6 hex digits).
    static func lowercased(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { out in
            var o = 0
            for i in range {
                let byte = p[i]
                out[o] = ASCIICase.lowercased(byte)
                o += 1
            }
            return o
        }
    }

    /// A reg-name folded to lower case, except the hex digits of percent-encoded triplets, which
    /// are upper-cased (RFC 3986 §6.2.2.1). The range has already been validated.
    static func normalisedHost(_ p: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(unsafeUninitializedCapacity: range.count) { out in
            var o = 0
            var hexLeft = 0
            for i in range {
                let byte = p[i]
                if hexLeft > 0 {
                    out[o] = byte &- UInt8(ascii: "a") < 26 ? byte & ~0x20 : byte
                    hexLeft -= 1
                } else {
                    out[o] = ASCIICase.lowercased(byte)
                    if byte == percent { hexLeft = 2 }
                }
                o += 1
            }
            return o
        }
    }

}
