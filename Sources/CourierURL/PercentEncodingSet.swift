// PercentEncodingSet: which bytes percent-encoding leaves alone, as lookup tables.
//
// Each set holds two 256-entry tables built once when the set is made:
//   - `escapes[b]` is 1 when byte b must be escaped, else 0 (the 8-byte scan ORs eight of them);
//   - `entries[b]` is the output for b packed in a UInt32, little-endian byte order: the byte
//     itself and length 1, or "%", the two upper-case hex digits and length 3; the length is in
//     the top byte. The encoder stores the whole UInt32 and advances by the length, so the hot
//     loop has no branch per byte (the spare bytes are overwritten by the next store).
//
// Invariant: bytes 0x80–0xFF and "%" are always escaped, whatever the caller asked for, so that
// encoding is always reversible and its output is ASCII (a String built from it needs no repair).

import CourierBytes

/// The bytes percent-encoding leaves as they are (RFC 3986 §2.1); every other byte of the UTF-8
/// form becomes `%XX` with upper-case hex digits.
public struct PercentEncodingSet: Sendable, Hashable {
    @usableFromInline
    final class Tables: @unchecked Sendable {
        // SAFETY: written only in init, before the object is shared; read-only afterwards.
        @usableFromInline let entries: UnsafeMutablePointer<UInt32>
        @usableFromInline let escapes: UnsafeMutablePointer<UInt8>

        init(allowed: ByteSet) {
            entries = .allocate(capacity: 256)
            escapes = .allocate(capacity: 256)
            let hex = ASCIIInteger.upperHexDigits.utf8Start
            for value in 0...255 {
                let byte = UInt8(value)
                if allowed.contains(byte) {
                    entries[value] = UInt32(byte) | 1 << 24
                    escapes[value] = 0
                } else {
                    let high = UInt32(hex[value >> 4]), low = UInt32(hex[value & 0xF])
                    entries[value] = UInt32(UInt8(ascii: "%")) | high << 8 | low << 16 | 3 << 24
                    escapes[value] = 1
                }
            }
        }

        deinit {
            entries.deallocate()
            escapes.deallocate()
        }
    }

    /// The bytes left as they are.
    public let allowed: ByteSet
    @usableFromInline let tables: Tables

    /// Creates a set that leaves `allowed` bytes alone and escapes all others.
    /// - Parameter allowed: the bytes to keep; "%" and bytes 0x80–0xFF are removed from it, so
    ///   that output is always ASCII and decodes back to the input.
    public init(allowing allowed: ByteSet) {
        var allowed = allowed
        allowed.remove(UInt8(ascii: "%"))
        for byte in 0x80...0xFF as ClosedRange<UInt8> { allowed.remove(byte) }
        self.allowed = allowed
        self.tables = Tables(allowed: allowed)
    }

    /// Whether `byte` is left as it is.
    /// - Parameter byte: a byte of UTF-8 text.
    /// - Returns: true when it is not escaped.
    @inlinable
    public func allows(_ byte: UInt8) -> Bool { tables.escapes[Int(byte)] == 0 }

    /// Two sets are equal when they leave the same bytes alone.
    public static func == (lhs: PercentEncodingSet, rhs: PercentEncodingSet) -> Bool {
        lhs.allowed == rhs.allowed
    }

    /// Hashes the allowed bytes.
    public func hash(into hasher: inout Hasher) { hasher.combine(allowed) }

    // MARK: Standard sets

    /// AFNetworking's query-component set (`AFPercentEscapedStringFromString`): RFC 3986
    /// unreserved (`A–Z a–z 0–9 - . _ ~`) plus "/" and "?". Everything else is escaped: space is
    /// `%20` (never "+"), and `: # [ ] @ ! $ & ' ( ) * + , ; =` too (RFC 3986 §3.4 leaves "/" and
    /// "?" unescaped in a query, which is why AFNetworking keeps them).
    public static let afnetworkingQueryComponent = PercentEncodingSet(
        allowing: ByteSet(classes: .unreserved).union(ByteSet(ascii: "/?")))

    /// RFC 3986 §2.3 unreserved characters only: the most conservative set.
    public static let unreserved = PercentEncodingSet(allowing: ByteSet(classes: .unreserved))

    /// One path segment (RFC 3986 §3.3 `segment`: pchar, so "/" is escaped).
    public static let pathSegment = PercentEncodingSet(allowing: ByteSet(classes: .pathChar))

    /// A whole path (RFC 3986 §3.3: pchar and "/").
    public static let path = PercentEncodingSet(
        allowing: ByteSet(classes: .pathChar).union(ByteSet(ascii: "/")))

    /// A whole query (RFC 3986 §3.4: pchar, "/" and "?"). Keeps "&", "=" and "+", so use it only
    /// for a query that is already split into its pieces, or `afnetworkingQueryComponent` for
    /// names and values.
    public static let query = PercentEncodingSet(allowing: ByteSet(classes: .queryChar))

    /// A fragment (RFC 3986 §3.5: the same bytes as a query).
    public static let fragment = PercentEncodingSet(allowing: ByteSet(classes: .queryChar))

    /// A whole userinfo (RFC 3986 §3.2.1: unreserved, sub-delims and ":").
    public static let userinfo = PercentEncodingSet(
        allowing: ByteSet(classes: [.unreserved, .subDelimiter]).union(ByteSet(ascii: ":")))

    /// A user name or password inside userinfo: as `userinfo` but with ":" escaped, since the
    /// first ":" separates the two.
    public static let userinfoComponent = PercentEncodingSet(
        allowing: ByteSet(classes: [.unreserved, .subDelimiter]))
}
