// Byte classes: 256-entry tables built once, each flag under the ABNF it encodes (httparse's way).
//
// A parser takes `ByteClass.table` once before its loop and then looks bytes up with no bounds
// check and no lazy-initialisation check per byte.

/// Classes a byte can belong to, as bit flags in a 256-entry table.
public struct ByteClass: OptionSet, Sendable, Hashable {
    /// The flag bits.
    public let rawValue: UInt16
    /// Creates a set of classes from flag bits.
    @inlinable public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// `tchar` — RFC 9110 §5.6.2: "!" / "#" / "$" / "%" / "&" / "'" / "*" / "+" / "-" / "." /
    /// "^" / "_" / "`" / "|" / "~" / DIGIT / ALPHA. Method names and field names are tokens.
    public static let token = ByteClass(rawValue: 1 << 0)
    /// `field-vchar` — RFC 9110 §5.5: VCHAR / obs-text (0x21–0x7E, 0x80–0xFF).
    public static let fieldVisible = ByteClass(rawValue: 1 << 1)
    /// SP / HTAB — RFC 9110 §5.6.3 `OWS`.
    public static let whitespace = ByteClass(rawValue: 1 << 2)
    /// DIGIT — RFC 5234 B.1: 0–9.
    public static let digit = ByteClass(rawValue: 1 << 3)
    /// HEXDIG, either case: 0–9 A–F a–f.
    public static let hexDigit = ByteClass(rawValue: 1 << 4)
    /// ALPHA — RFC 5234 B.1: A–Z a–z.
    public static let alpha = ByteClass(rawValue: 1 << 5)
    /// `unreserved` — RFC 3986 §2.3: ALPHA / DIGIT / "-" / "." / "_" / "~".
    public static let unreserved = ByteClass(rawValue: 1 << 6)
    /// `sub-delims` — RFC 3986 §2.2: "!" / "$" / "&" / "'" / "(" / ")" / "*" / "+" / "," / ";" / "=".
    public static let subDelimiter = ByteClass(rawValue: 1 << 7)
    /// `gen-delims` — RFC 3986 §2.2: ":" / "/" / "?" / "#" / "[" / "]" / "@".
    public static let genDelimiter = ByteClass(rawValue: 1 << 8)
    /// `pchar` without pct-encoded — RFC 3986 §3.3: unreserved / sub-delims / ":" / "@".
    public static let pathChar = ByteClass(rawValue: 1 << 9)
    /// `query` / `fragment` without pct-encoded — RFC 3986 §3.4–3.5: pchar / "/" / "?".
    public static let queryChar = ByteClass(rawValue: 1 << 10)
    /// `field-value` octets allowed anywhere in a field value: field-vchar, SP and HTAB.
    public static let fieldValue = ByteClass(rawValue: 1 << 11)
    /// A byte allowed in an HTTP/1.1 request-target (RFC 9112 §3.2): the visible ASCII characters of
    /// a URI, percent signs included; never SP, CTL or non-ASCII.
    public static let requestTarget = ByteClass(rawValue: 1 << 12)
    /// `scheme` characters after the first — RFC 3986 §3.1: ALPHA / DIGIT / "+" / "-" / ".".
    public static let schemeChar = ByteClass(rawValue: 1 << 13)

    /// The shared table: the class flags of every byte value.
    public static let table: ByteClassTable = ByteClassTable()

    /// Whether `byte` belongs to every class in `self`.
    /// - Parameter byte: the byte to classify.
    /// - Returns: true when all flags of `self` are set for `byte`.
    @inlinable
    public func contains(byte: UInt8) -> Bool {
        ByteClass.table[byte].isSuperset(of: self)
    }
}

/// A 256-entry table of `ByteClass` flags, allocated once for the life of the process.
public struct ByteClassTable: @unchecked Sendable {
    // SAFETY: written only in init, before the table is published; read-only afterwards.
    @usableFromInline let entries: UnsafePointer<UInt16>

    init() {
        let table = UnsafeMutablePointer<UInt16>.allocate(capacity: 256)
        table.initialize(repeating: 0, count: 256)
        func mark(_ bytes: some Sequence<UInt8>, _ flag: ByteClass) {
            for byte in bytes { table[Int(byte)] |= flag.rawValue }
        }
        func ascii(_ s: StaticString) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount)
        }
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        let upper = UInt8(ascii: "A")...UInt8(ascii: "Z")
        let lower = UInt8(ascii: "a")...UInt8(ascii: "z")
        for range in [digits, upper, lower] {
            mark(range, [.token, .unreserved, .pathChar, .queryChar, .schemeChar])
        }
        mark(digits, .digit)
        mark(upper, .alpha)
        mark(lower, .alpha)
        mark(digits, .hexDigit)
        mark(UInt8(ascii: "A")...UInt8(ascii: "F"), .hexDigit)
        mark(UInt8(ascii: "a")...UInt8(ascii: "f"), .hexDigit)
        mark(ascii("!#$%&'*+-.^_`|~"), .token)
        mark(0x21...0x7E, [.fieldVisible, .fieldValue, .requestTarget])
        mark(0x80...0xFF, [.fieldVisible, .fieldValue])
        mark([0x20, 0x09], [.whitespace, .fieldValue])
        mark(ascii("-._~"), [.unreserved, .pathChar, .queryChar])
        mark(ascii("!$&'()*+,;="), [.subDelimiter, .pathChar, .queryChar])
        mark(ascii(":/?#[]@"), .genDelimiter)
        mark(ascii(":@"), [.pathChar, .queryChar])
        mark(ascii("/?"), .queryChar)
        mark(ascii("+-."), .schemeChar)
        entries = UnsafePointer(table)
    }

    /// The class flags of `byte`.
    @inlinable
    public subscript(byte: UInt8) -> ByteClass {
        // SAFETY: the table has 256 entries and a UInt8 index is below 256.
        ByteClass(rawValue: entries[Int(byte)])
    }

    /// Whether `byte` has any of the flags in `classes`.
    /// - Parameters:
    ///   - byte: the byte.
    ///   - classes: the flags to test.
    /// - Returns: true when at least one flag is set.
    @inlinable
    public func isAny(_ byte: UInt8, of classes: ByteClass) -> Bool {
        entries[Int(byte)] & classes.rawValue != 0
    }
}

/// A set of byte values as a 256-bit map, for character sets chosen by callers (percent-encoding).
public struct ByteSet: Sendable, Hashable {
    @usableFromInline var w0: UInt64, w1: UInt64, w2: UInt64, w3: UInt64

    /// Creates an empty set.
    @inlinable public init() { w0 = 0; w1 = 0; w2 = 0; w3 = 0 }

    /// Creates a set of the given bytes.
    /// - Parameter bytes: the members.
    @inlinable
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        self.init()
        for byte in bytes { insert(byte) }
    }

    /// Creates the set of bytes that have any of `classes`.
    /// - Parameter classes: the byte classes whose members are included.
    public init(classes: ByteClass) {
        self.init()
        for byte in 0...255 as ClosedRange<UInt8> where ByteClass.table.isAny(byte, of: classes) { insert(byte) }
    }

    /// Creates the set of the UTF-8 bytes of an ASCII string.
    /// - Parameter ascii: the members, as text.
    public init(ascii: StaticString) {
        self.init(UnsafeBufferPointer(start: ascii.utf8Start, count: ascii.utf8CodeUnitCount))
    }

    /// Whether `byte` is a member.
    @inlinable
    public func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) &<< UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return w0 & bit != 0
        case 1: return w1 & bit != 0
        case 2: return w2 & bit != 0
        default: return w3 & bit != 0
        }
    }

    /// Adds `byte`.
    @inlinable
    public mutating func insert(_ byte: UInt8) {
        let bit = UInt64(1) &<< UInt64(byte & 63)
        switch byte >> 6 {
        case 0: w0 |= bit
        case 1: w1 |= bit
        case 2: w2 |= bit
        default: w3 |= bit
        }
    }

    /// Removes `byte`.
    @inlinable
    public mutating func remove(_ byte: UInt8) {
        let mask = ~(UInt64(1) &<< UInt64(byte & 63))
        switch byte >> 6 {
        case 0: w0 &= mask
        case 1: w1 &= mask
        case 2: w2 &= mask
        default: w3 &= mask
        }
    }

    /// The members of both sets.
    @inlinable
    public func union(_ other: ByteSet) -> ByteSet {
        var result = self
        result.w0 |= other.w0; result.w1 |= other.w1; result.w2 |= other.w2; result.w3 |= other.w3
        return result
    }

    /// The bytes not in this set.
    @inlinable
    public var inverted: ByteSet {
        var result = self
        result.w0 = ~w0; result.w1 = ~w1; result.w2 = ~w2; result.w3 = ~w3
        return result
    }
}
