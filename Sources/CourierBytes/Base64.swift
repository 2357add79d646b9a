// Base64 (RFC 4648 §4, the standard alphabet with `=` padding), written here because Courier has
// no Foundation. One copy for every module: Basic credentials, property-list <data>, and the
// `sha256//` public-key pins (curl's --pinnedpubkey form).
//
// Decoding is strict, as a pin parser should be: the length is a multiple of four, padding only at
// the end, and the unused low bits of the last symbol are zero (RFC 4648 §3.5), so every byte
// string has exactly one accepted encoding. Property lists wrap their <data> lines, so ASCII
// whitespace may be skipped on request; nothing else is relaxed.

/// Base64 encoding and strict decoding (RFC 4648 §4).
public enum Base64 {
    private static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// 0...63 for alphabet bytes, 0xFF for everything else.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(index) }
        return table
    }()

    /// Encodes bytes with padding.
    /// - Parameter bytes: the bytes to encode.
    /// - Returns: the Base64 text (`4 * ceil(count / 3)` characters).
    public static func encode<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let input = Array(bytes)
        let outputCount = (input.count + 2) / 3 * 4
        let table = alphabet
        return String(unsafeUninitializedCapacity: outputCount) { output in
            var out = 0
            var index = 0
            while index + 3 <= input.count {
                let chunk = UInt32(input[index]) << 16 | UInt32(input[index + 1]) << 8 | UInt32(input[index + 2])
                output[out] = table[Int(chunk >> 18 & 63)]
                output[out + 1] = table[Int(chunk >> 12 & 63)]
                output[out + 2] = table[Int(chunk >> 6 & 63)]
                output[out + 3] = table[Int(chunk & 63)]
                out += 4
                index += 3
            }
            let rest = input.count - index
            if rest > 0 {
                let second = rest == 2 ? UInt32(input[index + 1]) : 0
                let chunk = UInt32(input[index]) << 16 | second << 8
                output[out] = table[Int(chunk >> 18 & 63)]
                output[out + 1] = table[Int(chunk >> 12 & 63)]
                output[out + 2] = rest == 2 ? table[Int(chunk >> 6 & 63)] : UInt8(ascii: "=")
                output[out + 3] = UInt8(ascii: "=")
                out += 4
            }
            return out
        }
    }

    /// Decodes padded Base64, strictly.
    /// - Parameters:
    ///   - text: the encoded text.
    ///   - ignoringWhitespace: skip spaces, tabs, CR and LF first (property lists wrap their
    ///     <data> lines); every other rule still holds.
    /// - Returns: the bytes, or nil when the text is not canonical padded Base64.
    public static func decode<Text: StringProtocol>(_ text: Text, ignoringWhitespace: Bool = false) -> [UInt8]? {
        guard ignoringWhitespace else { return decode(bytes: Array(text.utf8)) }
        return decode(bytes: text.utf8.filter { byte in
            byte != UInt8(ascii: " ") && byte != UInt8(ascii: "\t") && byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r")
        })
    }

    /// Decodes padded Base64 given as ASCII bytes, strictly.
    /// - Parameter input: the encoded bytes.
    /// - Returns: the bytes, or nil when the input is not canonical padded Base64.
    public static func decode(bytes input: [UInt8]) -> [UInt8]? {
        guard input.count % 4 == 0 else { return nil }
        if input.isEmpty { return [] }
        let table = values
        let padding = input[input.count - 1] == UInt8(ascii: "=") ? (input[input.count - 2] == UInt8(ascii: "=") ? 2 : 1) : 0
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3 - padding)
        var index = 0
        while index < input.count {
            let isLast = index + 4 == input.count
            let symbols = isLast ? 4 - padding : 4
            var chunk: UInt32 = 0
            for offset in 0..<4 {
                let value: UInt8
                if offset < symbols {
                    value = table[Int(input[index + offset])]
                    if value == 0xFF { return nil }
                } else {
                    value = 0
                }
                chunk = chunk << 6 | UInt32(value)
            }
            output.append(UInt8(chunk >> 16 & 0xFF))
            if symbols >= 3 { output.append(UInt8(chunk >> 8 & 0xFF)) }
            if symbols == 4 { output.append(UInt8(chunk & 0xFF)) }
            // RFC 4648 §3.5: the bits a padded final group does not use must be zero.
            if symbols == 2 && chunk & 0xFFFF != 0 { return nil }
            if symbols == 3 && chunk & 0xFF != 0 { return nil }
            index += 4
        }
        return output
    }
}
