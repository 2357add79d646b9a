// Strict integer parsing and formatting for protocol text.
//
// Decimal: 1*DIGIT, no sign, no whitespace, no leading "+"; overflow is an error, never a wrap
// (RFC 9110 §8.6 Content-Length). Hex: 1*HEXDIG with a digit cap (RFC 9112 §7.1 chunk-size; the
// cap of 16 digits is httparse's) and checked arithmetic.

/// Why a run of bytes is not an acceptable integer: a code, and the offset of the bad digit or the
/// digit cap where the code has one (issue 15 §4: the cases that carried them as payloads are codes
/// now, their payloads optional properties, so every public error has one shape).
public struct IntegerParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .empty, .invalidDigit, .overflow, .tooManyDigits
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// There were no digits.
        public static let empty = Code("empty")
        /// A byte is not a digit of the expected base (`offset` says which).
        public static let invalidDigit = Code("invalidDigit")
        /// The value does not fit in 64 bits.
        public static let overflow = Code("overflow")
        /// More digits than the permitted maximum (`limit` says how many are permitted).
        public static let tooManyDigits = Code("tooManyDigits")
    }

    /// What went wrong.
    public let code: Code
    /// The offset of the first byte that is not a digit, for `invalidDigit`.
    public let offset: Int?
    /// The cap on the number of digits, for `tooManyDigits`.
    public let limit: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - offset: the bad byte's offset, for `invalidDigit`.
    ///   - limit: the digit cap, for `tooManyDigits`.
    public init(_ code: Code, offset: Int? = nil, limit: Int? = nil) {
        self.code = code
        self.offset = offset
        self.limit = limit
    }

    /// No digits.
    public static var empty: IntegerParseError { IntegerParseError(.empty) }
    /// The value does not fit in 64 bits.
    public static var overflow: IntegerParseError { IntegerParseError(.overflow) }
    /// The byte at `offset` is not a digit of the expected base.
    /// - Parameter offset: the byte's offset.
    /// - Returns: the error.
    public static func invalidDigit(offset: Int) -> IntegerParseError { IntegerParseError(.invalidDigit, offset: offset) }
    /// More digits than `limit`.
    /// - Parameter limit: the cap.
    /// - Returns: the error.
    public static func tooManyDigits(limit: Int) -> IntegerParseError { IntegerParseError(.tooManyDigits, limit: limit) }

    /// "invalidDigit at byte 2", "tooManyDigits (more than 16)", "overflow".
    public var description: String {
        if let offset { return "\(code) at byte \(offset)" }
        if let limit { return "\(code) (more than \(limit))" }
        return code.rawValue
    }
}

/// Parsing and formatting of unsigned integers written in ASCII.
public enum ASCIIInteger {
    /// Parses `1*DIGIT` strictly.
    /// - Parameter bytes: the digits, nothing else.
    /// - Returns: the value.
    /// - Throws: `IntegerParseError` for no digits, a non-digit, or a value beyond `UInt64.max`.
    @inlinable
    public static func parseDecimal(_ bytes: UnsafeRawBufferPointer) throws(IntegerParseError) -> UInt64 {
        try parseDecimal(digits: bytes)
    }

    /// Parses `1*DIGIT` strictly from an array or any other collection of bytes.
    /// - Parameter bytes: the digits, nothing else.
    /// - Returns: the value.
    /// - Throws: `IntegerParseError`.
    @inlinable
    public static func parseDecimal(_ bytes: some Collection<UInt8>) throws(IntegerParseError) -> UInt64 {
        try parseDecimal(digits: bytes)
    }

    /// The one implementation, specialised for each collection type.
    @inlinable
    static func parseDecimal<Digits: Collection<UInt8>>(digits bytes: Digits) throws(IntegerParseError) -> UInt64 {
        guard !bytes.isEmpty else { throw .empty }
        var value: UInt64 = 0
        var offset = 0
        for byte in bytes {
            let digit = byte &- UInt8(ascii: "0")
            guard digit < 10 else { throw .invalidDigit(offset: offset) }
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            guard !o1 && !o2 else { throw .overflow }
            value = sum
            offset &+= 1
        }
        return value
    }

    /// Parses `1*HEXDIG` (either case) with at most `maxDigits` digits.
    /// - Parameters:
    ///   - bytes: the digits, nothing else.
    ///   - maxDigits: the cap on the number of digits, leading zeros included (at most 16 keeps
    ///     the value within 64 bits).
    /// - Returns: the value.
    /// - Throws: `IntegerParseError`.
    @inlinable
    public static func parseHex(_ bytes: UnsafeRawBufferPointer, maxDigits: Int = 16) throws(IntegerParseError) -> UInt64 {
        guard bytes.count > 0 else { throw .empty }
        guard bytes.count <= maxDigits else { throw .tooManyDigits(limit: maxDigits) }
        var value: UInt64 = 0
        for offset in 0..<bytes.count {
            guard let digit = hexValue(bytes[offset]) else { throw .invalidDigit(offset: offset) }
            guard value & 0xF000_0000_0000_0000 == 0 else { throw .overflow }
            value = value &<< 4 | UInt64(digit)
        }
        return value
    }

    /// The value of one hex digit, or nil.
    /// - Parameter byte: an ASCII byte.
    /// - Returns: 0–15, or nil if `byte` is not a hex digit.
    @inlinable
    public static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte &- UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte &- UInt8(ascii: "A") &+ 10
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte &- UInt8(ascii: "a") &+ 10
        default: return nil
        }
    }

    /// Upper-case hex digits, indexed by value.
    public static let upperHexDigits: StaticString = "0123456789ABCDEF"
    /// Lower-case hex digits, indexed by value.
    public static let lowerHexDigits: StaticString = "0123456789abcdef"

    /// Writes `value` in decimal.
    /// - Parameter value: the number.
    /// - Returns: its digits, built on the stack.
    @inlinable
    public static func decimal(_ value: UInt64) -> InlineBytes {
        var digits = InlineBytes()
        var v = value
        repeat {
            digits.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: v % 10))
            v /= 10
        } while v > 0
        digits.reverse()
        return digits
    }

    /// Writes `value` in hex without leading zeros.
    /// - Parameters:
    ///   - value: the number.
    ///   - uppercase: whether A–F are upper case.
    /// - Returns: its digits, built on the stack.
    @inlinable
    public static func hex(_ value: UInt64, uppercase: Bool = false) -> InlineBytes {
        var digits = InlineBytes()
        var v = value
        let table = uppercase ? upperHexDigits : lowerHexDigits
        repeat {
            digits.append(table.utf8Start[Int(v & 0xF)])
            v >>= 4
        } while v > 0
        digits.reverse()
        return digits
    }
}
