// ASCIICase: case folding of the ASCII letters only, the way protocol text compares names
// (RFC 9110 §5.1 field names, RFC 6265 attribute names, DNS labels): "A"–"Z" map to "a"–"z" and
// every other byte, UTF-8 included, stays as it is. One home for it, so no module writes its own.

/// ASCII-only case folding and comparison.
public enum ASCIICase {
    /// The byte with an ASCII capital letter turned into its small letter.
    /// - Parameter byte: any byte.
    /// - Returns: `byte | 0x20` for "A"–"Z", else `byte`.
    @inlinable @inline(__always)
    public static func lowercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    /// The byte with an ASCII small letter turned into its capital letter.
    /// - Parameter byte: any byte.
    /// - Returns: `byte & ~0x20` for "a"–"z", else `byte`.
    @inlinable @inline(__always)
    public static func uppercased(_ byte: UInt8) -> UInt8 {
        byte &- UInt8(ascii: "a") < 26 ? byte & 0xDF : byte
    }

    /// The bytes with their ASCII capital letters lower-cased.
    /// - Parameter bytes: any bytes.
    /// - Returns: the folded bytes.
    @inlinable
    public static func lowercased(bytes: some Sequence<UInt8>) -> [UInt8] {
        bytes.map { lowercased($0) }
    }

    /// The text with its ASCII small letters upper-cased (other characters untouched), as
    /// method names are compared.
    /// - Parameter text: any text.
    /// - Returns: the folded text; `text` itself when it has no small letter.
    public static func uppercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 &- UInt8(ascii: "a") < 26 }) else { return text }
        return String(decoding: text.utf8.map(uppercased), as: UTF8.self)
    }

    /// The text with its ASCII capital letters lower-cased (other characters untouched).
    /// - Parameter text: any text.
    /// - Returns: the folded text; `text` itself when it has no capital letter.
    public static func lowercased(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 }) else { return text }
        return String(decoding: text.utf8.map(lowercased), as: UTF8.self)
    }

    /// Whether two byte sequences are equal when ASCII letters are compared without case.
    /// - Parameters:
    ///   - a: the first bytes.
    ///   - b: the second bytes.
    /// - Returns: true when they have the same length and fold to the same bytes.
    @inlinable
    public static func equal<A: Collection<UInt8>, B: Collection<UInt8>>(_ a: A, _ b: B) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { $0 == $1 || lowercased($0) == lowercased($1) }
    }

    /// Whether `bytes` start with `prefix` when ASCII letters are compared without case.
    /// - Parameters:
    ///   - bytes: the bytes to look at.
    ///   - prefix: the expected start.
    /// - Returns: true when the first `prefix.count` bytes fold to the same bytes as `prefix`.
    @inlinable
    public static func hasPrefix<A: Collection<UInt8>, B: Collection<UInt8>>(_ bytes: A, _ prefix: B) -> Bool {
        guard bytes.count >= prefix.count else { return false }
        return zip(bytes, prefix).allSatisfy { $0 == $1 || lowercased($0) == lowercased($1) }
    }
}
