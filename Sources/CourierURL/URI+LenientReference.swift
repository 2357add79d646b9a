// URI+LenientReference: a reference as a browser or curl takes it from a Location field, made into
// something the strict RFC 3986 parser accepts.
//
// Servers send Location values with spaces, raw UTF-8 and other bytes RFC 3986 does not allow;
// browsers (the WHATWG URL Standard's percent-encode sets) and curl percent-encode them and follow.
// This is that one step, kept apart from the parser so that parsing itself stays strict: the
// parser never guesses at bytes, and a caller chooses leniency by calling this first.
//
// Rules (WHATWG URL Standard §4.4 basic URL parser, reduced to what changes bytes):
//   - ASCII TAB is removed (as the standard removes tab and newline; CR and LF cannot occur in a
//     field value);
//   - C0 controls, SP, DEL, bytes above 0x7F, and `"` `<` `>` `\` `^` `` ` `` `{` `|` `}` are
//     percent-encoded (`%XX`, upper case) wherever they stand. A backslash is encoded as curl does,
//     not read as "/" as browsers do under http(s);
//   - a `%` not followed by two hex digits becomes `%25`;
//   - `[` and `]` stay in the authority (IPv6 literals) and are encoded elsewhere;
//   - a `#` after the first one is encoded (`%23`).
// The host then goes through the parser's own rules: percent-encoded and non-ASCII hosts are
// decoded and validated (URIParser+Host.swift), so an encoded space or control byte in a host is
// still a malformed URL.

extension URI {
    /// `reference` with every byte RFC 3986 does not allow where it stands percent-encoded, as
    /// browsers and curl treat a Location field; the result is for `URI(parsing:)` or
    /// `resolving(_:)`, which stay strict.
    /// - Parameter reference: a URI reference as received (for example a Location value).
    /// - Returns: the reference, unchanged when it was already valid RFC 3986 text.
    public static func escapingInvalidBytes(_ reference: String) -> String {
        let bytes = Array(reference.utf8)
        guard bytes.contains(where: { needsScan($0) }) else { return reference }
        let authority = authorityRange(bytes)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var seenHash = false
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            defer { i += 1 }
            if byte == 0x09 { continue }
            let inAuthority = authority?.contains(i) ?? false
            switch byte {
            case UInt8(ascii: "%"):
                if i + 2 < bytes.count, isHex(bytes[i + 1]), isHex(bytes[i + 2]) {
                    out.append(byte)
                } else {
                    append(byte, to: &out)
                }
            case UInt8(ascii: "#"):
                if seenHash { append(byte, to: &out) } else { out.append(byte) }
                seenHash = true
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                if inAuthority { out.append(byte) } else { append(byte, to: &out) }
            default:
                if isDisallowed(byte) { append(byte, to: &out) } else { out.append(byte) }
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes that may need work (a quick test before copying).
    private static func needsScan(_ byte: UInt8) -> Bool {
        isDisallowed(byte) || byte == 0x09 || byte == UInt8(ascii: "%") || byte == UInt8(ascii: "#")
            || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
    }

    /// Bytes that are never allowed in a URI as they are (RFC 3986 §2).
    private static func isDisallowed(_ byte: UInt8) -> Bool {
        if byte <= 0x20 || byte >= 0x7F { return true }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "\\"), UInt8(ascii: "^"),
             UInt8(ascii: "`"), UInt8(ascii: "{"), UInt8(ascii: "|"), UInt8(ascii: "}"):
            return true
        default:
            return false
        }
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10 || (byte | 0x20) &- UInt8(ascii: "a") < 6
    }

    private static func append(_ byte: UInt8, to out: inout [UInt8]) {
        let digits: [UInt8] = Array("0123456789ABCDEF".utf8)
        out.append(UInt8(ascii: "%"))
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0F)])
    }

    /// Where the authority is (after `scheme:` if any and `//`, up to `/`, `?` or `#`).
    private static func authorityRange(_ bytes: [UInt8]) -> Range<Int>? {
        var i = 0
        // An optional scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":".
        if let first = bytes.first, (first | 0x20) &- UInt8(ascii: "a") < 26 {
            var j = 1
            while j < bytes.count {
                let b = bytes[j]
                let isSchemeByte = (b | 0x20) &- UInt8(ascii: "a") < 26 || b &- UInt8(ascii: "0") < 10
                    || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
                if !isSchemeByte { break }
                j += 1
            }
            if j < bytes.count && bytes[j] == UInt8(ascii: ":") { i = j + 1 }
        }
        guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "/"), bytes[i + 1] == UInt8(ascii: "/") else { return nil }
        let start = i + 2
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "/"), bytes[end] != UInt8(ascii: "?"), bytes[end] != UInt8(ascii: "#") {
            end += 1
        }
        return start..<end
    }
}
