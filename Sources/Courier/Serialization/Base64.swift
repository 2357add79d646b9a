// Base64: RFC 4648 §4 (standard alphabet, "=" padding), for Basic credentials and property-list
// <data>. Small on purpose: CourierTLS has its own, and this target must not depend on it.

/// RFC 4648 §4 Base64 with the standard alphabet and padding. Internal: CourierTLS has a public
/// `Base64` of its own, and the two modules are imported together.
enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Encodes bytes as padded Base64 text.
    /// - Parameter bytes: the input.
    /// - Returns: the Base64 text (no line breaks).
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity((input.count + 2) / 3 * 4)
        var index = 0
        while index < input.count {
            let remaining = input.count - index
            let b0 = UInt32(input[index])
            let b1 = remaining > 1 ? UInt32(input[index + 1]) : 0
            let b2 = remaining > 2 ? UInt32(input[index + 2]) : 0
            let triple = b0 << 16 | b1 << 8 | b2
            output.append(alphabet[Int(triple >> 18 & 0x3F)])
            output.append(alphabet[Int(triple >> 12 & 0x3F)])
            output.append(remaining > 1 ? alphabet[Int(triple >> 6 & 0x3F)] : UInt8(ascii: "="))
            output.append(remaining > 2 ? alphabet[Int(triple & 0x3F)] : UInt8(ascii: "="))
            index += 3
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes Base64 text, skipping ASCII whitespace (property lists wrap their <data> lines).
    ///
    /// Strict otherwise: only the standard alphabet, padding only at the end and only as much as
    /// the final group needs, and the unused bits of the last symbol must be zero.
    /// - Parameter text: the Base64 text.
    /// - Returns: the bytes, or nil when the text is not valid Base64.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var symbols: [UInt8] = []
        var padding = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): continue
            case UInt8(ascii: "="): padding += 1; continue
            default: break
            }
            guard padding == 0, let value = sextet(byte) else { return nil }
            symbols.append(value)
        }
        guard (symbols.count + padding) % 4 == 0, padding <= 2 else { return nil }
        let tail = symbols.count % 4
        guard tail != 1, padding == (tail == 0 ? 0 : 4 - tail) else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(symbols.count * 3 / 4)
        var index = 0
        while index + 4 <= symbols.count {
            let value = UInt32(symbols[index]) << 18 | UInt32(symbols[index + 1]) << 12 | UInt32(symbols[index + 2]) << 6 | UInt32(symbols[index + 3])
            output.append(UInt8(value >> 16 & 0xFF)); output.append(UInt8(value >> 8 & 0xFF)); output.append(UInt8(value & 0xFF))
            index += 4
        }
        if tail == 2 {
            let value = UInt32(symbols[index]) << 18 | UInt32(symbols[index + 1]) << 12
            guard value & 0xFFFF == 0 else { return nil }
            output.append(UInt8(value >> 16 & 0xFF))
        } else if tail == 3 {
            let value = UInt32(symbols[index]) << 18 | UInt32(symbols[index + 1]) << 12 | UInt32(symbols[index + 2]) << 6
            guard value & 0xFF == 0 else { return nil }
            output.append(UInt8(value >> 16 & 0xFF)); output.append(UInt8(value >> 8 & 0xFF))
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
