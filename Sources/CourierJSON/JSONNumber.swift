// JSONNumber: a JSON number kept exactly as written.
//
// RFC 8259 §6 leaves the range and precision of numbers to implementations and warns that
// integers beyond ±(2^53 − 1) lose precision in IEEE 754 doubles. Courier does not choose a
// binary form at parse time: it keeps the number's text (already checked against the grammar)
// and converts on request. A conversion that cannot be exact for an integer type returns nil;
// nothing is silently rounded, clamped or wrapped. The text is what the writer emits, so
// parse → write reproduces every number byte for byte.
//
// Equality is textual: `1`, `1.0` and `1e0` are different JSONNumbers (they are different JSON
// texts); compare `double` or `int64` to compare values.

/// A JSON number, stored as its exact text.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The text, up to 16 bytes inline (so parsing builds no `String` per number; almost every
    /// number is that short), longer as a `String`. The form is canonical — text of at most 16
    /// bytes is always inline, unused inline bytes are zero — so the synthesised equality and
    /// hash are textual.
    @usableFromInline
    enum Storage: Sendable, Hashable {
        /// Bytes in memory order in the two words, then the byte count (1...16).
        case inline(UInt64, UInt64, count: UInt8)
        case long(String)
    }

    @usableFromInline
    let storage: Storage

    /// The number as written in the JSON text (RFC 8259 §6 grammar, no whitespace).
    public var text: String {
        withUTF8 { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with the UTF-8 bytes of the text.
    @inlinable
    func withUTF8<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        switch storage {
        case .inline(let first, let second, let count):
            var words = (first, second)
            return withUnsafeBytes(of: &words) { raw in
                body(UnsafeBufferPointer(start: raw.baseAddress!.assumingMemoryBound(to: UInt8.self), count: Int(count)))
            }
        case .long(let string):
            var copy = string
            return copy.withUTF8(body)
        }
    }

    /// Stores text (already checked against the grammar) in canonical form.
    @inlinable
    init(uncheckedText text: String) {
        var copy = text
        self.storage = copy.withUTF8 { utf8 in
            utf8.count <= 16 ? JSONNumber.inlineStorage(utf8) : .long(text)
        }
    }

    /// Stores `count` bytes of input text at `start` (already checked against the grammar);
    /// `available` is how many bytes from `start` may be read (at least `count`).
    @inline(__always)
    init(uncheckedBytes start: UnsafePointer<UInt8>, count: Int, available: Int) {
        #if _endian(little)
        if count <= 16 && available >= 16 {
            // SAFETY: 16 bytes from start are readable (available >= 16); bytes past the
            // number are masked off.
            let raw = UnsafeRawPointer(start)
            var first = raw.loadUnaligned(as: UInt64.self)
            var second = raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
            if count < 8 {
                first &= (1 &<< UInt64(count &* 8)) &- 1
                second = 0
            } else if count < 16 {
                second &= (1 &<< UInt64((count &- 8) &* 8)) &- 1
            }
            storage = .inline(first, second, count: UInt8(count))
            return
        }
        #endif
        let bytes = UnsafeBufferPointer(start: start, count: count)
        storage = count <= 16 ? JSONNumber.inlineStorage(bytes) : .long(String(decoding: bytes, as: UTF8.self))
    }

    /// The decimal text of a non-negative integer below 10^16, inline, without a `String`.
    @inline(__always)
    init(smallInteger value: Int) {
        // Digits from the least significant up, each shifted in below the ones before, so the
        // most significant digit ends in the first byte (little-endian memory order).
        var rest = UInt64(truncatingIfNeeded: value)
        var first: UInt64 = 0
        var second: UInt64 = 0
        var count: UInt8 = 0
        repeat {
            let quotient = rest / 10
            second = second &<< 8 | first &>> 56
            first = first &<< 8 | (rest &- quotient &* 10 &+ 0x30)
            rest = quotient
            count &+= 1
        } while rest != 0
        #if _endian(little)
        storage = .inline(first, second, count: count)
        #else
        self.init(uncheckedText: String(value))
        #endif
    }

    /// The inline form of at most 16 bytes.
    @usableFromInline
    static func inlineStorage(_ utf8: UnsafeBufferPointer<UInt8>) -> Storage {
        var words: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            // SAFETY: utf8.count <= 16 == raw.count.
            raw.copyMemory(from: UnsafeRawBufferPointer(utf8))
        }
        return .inline(words.0, words.1, count: UInt8(utf8.count))
    }

    /// Creates a number from its JSON text.
    /// - Parameter text: a number by RFC 8259 §6 (`-12.5e3`), with no surrounding whitespace.
    /// - Returns: nil when `text` is not exactly one JSON number.
    public init?(text: String) {
        var copy = text
        let valid = copy.withUTF8 { utf8 -> Bool in
            guard let base = utf8.baseAddress, utf8.count > 0 else { return false }
            let first = base[0]
            guard first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10 else { return false }
            var scanner = JSONScanner(base: base, count: utf8.count)
            guard let range = try? scanner.scanNumber() else { return false }
            return range.upperBound == utf8.count
        }
        guard valid else { return nil }
        self.init(uncheckedText: text)
    }

    /// Creates a number from a signed integer.
    /// - Parameter value: the value; written in decimal.
    public init(_ value: some BinaryInteger) { self.init(uncheckedText: String(value)) }

    /// Creates a number from a double, written in the shortest form that reads back as the same
    /// double (Swift's `description`, e.g. `0.1`, `1e-05`, `1e+20`, `5.0`).
    /// - Parameter value: the value.
    /// - Returns: nil for infinities and NaN, which JSON cannot represent (RFC 8259 §6).
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        self.init(uncheckedText: value.description)
    }

    /// Creates a number from a float, written in the shortest form that reads back as the same
    /// float.
    /// - Parameter value: the value.
    /// - Returns: nil for infinities and NaN.
    public init?(_ value: Float) {
        guard value.isFinite else { return nil }
        self.init(uncheckedText: value.description)
    }

    /// The text.
    public var description: String { text }

    /// Whether the text is written as an integer: no fraction and no exponent (`12`, `-0`).
    /// `1.0` and `1e2` are not, although `int64` converts them.
    public var isIntegerLiteral: Bool {
        withUTF8 { !$0.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") } }
    }

    // MARK: Exact integer conversion

    /// The value as `Int64`, when the number is mathematically an integer in range (`1.5e1` is
    /// 15; `1.5` and `9223372036854775808` give nil).
    public var int64: Int64? { integer(as: Int64.self) }

    /// The value as `UInt64`, when the number is mathematically a non-negative integer in range
    /// (`-0` is 0).
    public var uint64: UInt64? { integer(as: UInt64.self) }

    /// The value as any fixed-width integer type, exactly.
    /// - Parameter type: the integer type wanted.
    /// - Returns: the value, or nil when the number has a non-zero fractional part or does not fit
    ///   in `type`.
    public func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        withUTF8 { JSONNumber.exactInteger($0, as: T.self) }
    }

    /// Decimal exactness: the number is `digits × 10^exponent`; it is an integer when, after
    /// dropping trailing zero digits into the exponent, the exponent is not negative.
    @usableFromInline
    static func exactInteger<T: FixedWidthInteger>(_ utf8: UnsafeBufferPointer<UInt8>, as: T.Type) -> T? {
        var i = 0
        let count = utf8.count
        let negative = count > 0 && utf8[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        // Significant digits: integer part then fraction part, as index ranges.
        let intStart = i
        while i < count && utf8[i] &- UInt8(ascii: "0") < 10 { i += 1 }
        let intEnd = i
        var fracStart = i
        var fracEnd = i
        if i < count && utf8[i] == UInt8(ascii: ".") {
            i += 1
            fracStart = i
            while i < count && utf8[i] &- UInt8(ascii: "0") < 10 { i += 1 }
            fracEnd = i
        }
        var exponent = 0
        if i < count && (utf8[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if utf8[i] == UInt8(ascii: "-") { expNegative = true; i += 1 } else if utf8[i] == UInt8(ascii: "+") { i += 1 }
            while i < count {
                // Saturate: anything beyond a million digits of shift is out of every range.
                if exponent < 1_000_000 { exponent = exponent * 10 + Int(utf8[i] &- UInt8(ascii: "0")) }
                i += 1
            }
            if expNegative { exponent = -exponent }
        }
        // Digit k of the significand (0-based over integer part then fraction part).
        let intCount = intEnd - intStart
        let fracCount = fracEnd - fracStart
        func digit(_ k: Int) -> UInt8 {
            k < intCount ? utf8[intStart + k] &- UInt8(ascii: "0") : utf8[fracStart + k - intCount] &- UInt8(ascii: "0")
        }
        var first = 0
        var last = intCount + fracCount  // exclusive
        while first < last && digit(first) == 0 { first += 1 }
        if first == last { return 0 }  // all zeros: 0, -0, 0.000e5
        exponent -= fracCount
        while digit(last - 1) == 0 { last -= 1; exponent += 1 }
        guard exponent >= 0 else { return nil }  // a non-zero fractional part remains
        if negative && !T.isSigned { return nil }
        // Too many digits for any integer type up to 128 bits: 2^128 has 39 digits.
        guard (last - first) + exponent <= 40 else { return nil }
        var value: T = 0
        var k = first
        while k < last + exponent {
            let d = k < last ? T(digit(k)) : 0
            let (times10, o1) = value.multipliedReportingOverflow(by: 10)
            // Accumulate toward the sign so that T.min is reachable.
            let (next, o2) = negative ? times10.subtractingReportingOverflow(d) : times10.addingReportingOverflow(d)
            if o1 || o2 { return nil }
            value = next
            k += 1
        }
        return value
    }

    // MARK: Floating-point conversion

    /// The value as the nearest `Double` (correctly rounded), or nil when its magnitude is beyond
    /// `Double.greatestFiniteMagnitude` (`1e400`). Values below the smallest subnormal round to
    /// zero, as IEEE 754 rounding requires.
    public var double: Double? {
        if let fast = withUTF8({ JSONNumber.fastDouble($0) }) { return fast }
        // Swift's Double(Substring) is the standard library's correctly rounded conversion
        // (not Foundation's).
        guard let value = Double(Substring(text)), value.isFinite else { return nil }
        return value
    }

    /// The value as the nearest `Float` (correctly rounded from the decimal text, not through a
    /// double, so no double rounding), or nil when its magnitude is beyond
    /// `Float.greatestFiniteMagnitude`.
    public var float: Float? {
        guard let value = Float(Substring(text)), value.isFinite else { return nil }
        return value
    }

    /// Clinger's fast path: when the significand has at most 15 digits (below 2^53, exact in a
    /// double) and the decimal exponent is at most 22 in magnitude (10^22 is exact in a double),
    /// one IEEE multiplication or division is correctly rounded. Returns nil otherwise.
    @usableFromInline
    static func fastDouble(_ utf8: UnsafeBufferPointer<UInt8>) -> Double? {
        var i = 0
        let count = utf8.count
        let negative = utf8[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var significand: UInt64 = 0
        var digits = 0
        var exponent = 0
        var leading = true
        while i < count, utf8[i] &- UInt8(ascii: "0") < 10 {
            let d = utf8[i] &- UInt8(ascii: "0")
            if !(leading && d == 0) { leading = false; digits += 1; significand = significand &* 10 &+ UInt64(d) }
            i += 1
        }
        if i < count && utf8[i] == UInt8(ascii: ".") {
            i += 1
            while i < count, utf8[i] &- UInt8(ascii: "0") < 10 {
                let d = utf8[i] &- UInt8(ascii: "0")
                if !(leading && d == 0) { leading = false; digits += 1; significand = significand &* 10 &+ UInt64(d) }
                exponent -= 1
                i += 1
            }
        }
        guard digits <= 15 else { return nil }
        if i < count {  // exponent part
            i += 1
            var expNegative = false
            if utf8[i] == UInt8(ascii: "-") { expNegative = true; i += 1 } else if utf8[i] == UInt8(ascii: "+") { i += 1 }
            var e = 0
            while i < count {
                e = e * 10 + Int(utf8[i] &- UInt8(ascii: "0"))
                if e > 400 { return nil }
                i += 1
            }
            exponent += expNegative ? -e : e
        }
        var value = Double(significand)
        if significand == 0 {
            value = 0
        } else if exponent < 0 {
            guard exponent >= -22 else { return nil }
            value /= powersOfTen[-exponent]
        } else if exponent > 0 {
            guard exponent <= 22 else { return nil }
            value *= powersOfTen[exponent]
        }
        return negative ? -value : value
    }

    /// 10^0 … 10^22, each exactly representable in a double.
    @usableFromInline
    static let powersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]
}
