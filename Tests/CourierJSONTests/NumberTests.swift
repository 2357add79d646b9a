// Numbers (RFC 8259 §6): grammar, exact text, exact integer conversion, correctly rounded doubles.

import Testing
@testable import CourierJSON

private let badNumbers: [(String, JSONError.Code, Int)] = [
    ("01", .invalidNumber, 1),
    ("00", .invalidNumber, 1),
    ("-01", .invalidNumber, 2),
    ("[012]", .invalidNumber, 2),
    ("+1", .unexpectedByte, 0),
    (".5", .unexpectedByte, 0),
    ("[.5]", .unexpectedByte, 1),
    ("1.", .unexpectedEndOfInput, 2),
    ("[1.]", .invalidNumber, 3),
    ("1.e3", .invalidNumber, 2),
    ("1e", .unexpectedEndOfInput, 2),
    ("1e+", .unexpectedEndOfInput, 3),
    ("[1e]", .invalidNumber, 3),
    ("[1e+]", .invalidNumber, 4),
    ("1E-x", .invalidNumber, 3),
    ("1e++1", .invalidNumber, 3),
    ("-", .unexpectedEndOfInput, 1),
    ("[-]", .invalidNumber, 2),
    ("- 1", .invalidNumber, 1),
    ("--1", .invalidNumber, 1),
    ("-.5", .invalidNumber, 1),
    ("0x10", .trailingData, 1),
    ("1_000", .trailingData, 1),
    ("1.5.3", .trailingData, 3),
    ("2e3e4", .trailingData, 3),
    ("1,5", .trailingData, 1),
    ("0.1.", .trailingData, 3),
    ("[1 000]", .unexpectedByte, 3),
    ("\u{FF11}", .unexpectedByte, 0),  // FULLWIDTH DIGIT ONE
]

@Test("malformed numbers: code and offset", arguments: badNumbers)
private func malformedNumber(_ input: String, _ code: JSONError.Code, _ offset: Int) {
    expectRejected(input, code, at: offset)
}

@Test func numbersKeepTheirExactText() throws {
    for text in ["0", "-0", "1", "-1", "0.0", "-0.0", "1.0", "1E+2", "1e-2", "0e0", "0.0e-0", "1.5E10",
                 "123456789012345678901234567890", "-99999999999999999999999", "1e5000", "2.5e-5000",
                 "0.30000000000000000000000000001"] {
        let value = checkAllWays(Array(text.utf8))
        #expect(value == .value(.number(JSONNumber(text: text)!)), "\(text)")
        #expect(JSONWriter.string(try mustParse(text)) == text)
        #expect(JSONWriter.string(try mustParse("[\(text)]")) == "[\(text)]")
    }
    // Equality is textual.
    #expect(try mustParse("1") != mustParse("1.0"))
}

@Test func numberTextInitialiserValidates() {
    #expect(JSONNumber(text: "12") != nil)
    #expect(JSONNumber(text: "-0.5e+3") != nil)
    for bad in ["", " 1", "1 ", "01", "+1", "1.", ".1", "1e", "NaN", "Infinity", "0x1", "1,5", "--1"] {
        #expect(JSONNumber(text: bad) == nil, "\(bad)")
    }
}

@Test func integerAccessorsAreExact() throws {
    func number(_ text: String) -> JSONNumber { JSONNumber(text: text)! }
    #expect(number("0").int64 == 0)
    #expect(number("-0").int64 == 0)
    #expect(number("-0").uint64 == 0)
    #expect(number("9223372036854775807").int64 == Int64.max)
    #expect(number("-9223372036854775808").int64 == Int64.min)
    #expect(number("9223372036854775808").int64 == nil)
    #expect(number("-9223372036854775809").int64 == nil)
    #expect(number("9223372036854775808").uint64 == 9_223_372_036_854_775_808)
    #expect(number("18446744073709551615").uint64 == UInt64.max)
    #expect(number("18446744073709551616").uint64 == nil)
    #expect(number("-1").uint64 == nil)
    #expect(number("123456789012345678901234567890").int64 == nil)  // not rounded, not clamped
    #expect(number("1e2").int64 == 100)
    #expect(number("1.5e1").int64 == 15)
    #expect(number("1.50e1").int64 == 15)
    #expect(number("1500e-2").int64 == 15)
    #expect(number("1.0").int64 == 1)
    #expect(number("1.5").int64 == nil)
    #expect(number("1e-1").int64 == nil)
    #expect(number("0e999999999999").int64 == 0)
    #expect(number("0.000e-5").int64 == 0)
    #expect(number("1e19").int64 == nil)
    #expect(number("1e19").uint64 == 10_000_000_000_000_000_000)
    #expect(number("1e999999999999999999999").int64 == nil)
    #expect(number("9.223372036854775807e18").int64 == Int64.max)
    #expect(number("127").integer(as: Int8.self) == 127)
    #expect(number("128").integer(as: Int8.self) == nil)
    #expect(number("-128").integer(as: Int8.self) == -128)
    #expect(number("255").integer(as: UInt8.self) == 255)
    #expect(number("256").integer(as: UInt8.self) == nil)
    #expect(number("170141183460469231731687303715884105727").integer(as: Int128.self) == Int128.max)
    #expect(number("340282366920938463463374607431768211455").integer(as: UInt128.self) == UInt128.max)
    #expect(number("340282366920938463463374607431768211456").integer(as: UInt128.self) == nil)
    #expect(number("12").isIntegerLiteral)
    #expect(!number("1e2").isIntegerLiteral)
    #expect(!number("1.0").isIntegerLiteral)
}

@Test func doubleAccessorIsCorrectlyRounded() {
    func double(_ text: String) -> Double? { JSONNumber(text: text)!.double }
    #expect(double("0") == 0)
    #expect(double("-0")?.sign == .minus)
    #expect(double("0.1") == 0.1)
    #expect(double("-2.5e-3") == -0.0025)
    #expect(double("1e22") == 1e22)
    #expect(double("1e23") == 1e23)  // beyond the fast path
    #expect(double("123456789012345678") == 123456789012345678.0)
    #expect(double("9007199254740993") == 9007199254740992.0)  // 2^53 + 1 rounds to even
    #expect(double("2.2250738585072014e-308") == Double.leastNormalMagnitude)
    #expect(double("4.9406564584124654e-324") == Double.leastNonzeroMagnitude)
    #expect(double("1e-400") == 0)  // underflow rounds to zero
    #expect(double("1.7976931348623157e308") == Double.greatestFiniteMagnitude)
    #expect(double("1e400") == nil)  // overflow: no infinity
    #expect(double("-1e400") == nil)
    #expect(double("0.30000000000000004") == 0.30000000000000004)
    #expect(double("123456789012345678901234567890") == 1.2345678901234568e29)
    // Hard cases for naive conversion (exact halfway and near-halfway decimal expansions).
    #expect(double("2.4703282292062327e-324") == 0)
    #expect(double("2.4703282292062328e-324") == Double.leastNonzeroMagnitude)
    #expect(double("9007199254740993.0000000001") == 9007199254740994.0)
    #expect(JSONNumber(text: "3.4028235e38")!.float == Float.greatestFiniteMagnitude)
    #expect(JSONNumber(text: "1e39")!.float == nil)
    #expect(JSONNumber(text: "0.1")!.float == Float(0.1))
}

@Test func fastPathMatchesTheStandardLibrary() {
    // Every number the fast path handles must equal the standard library's conversion.
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 11
    }
    for _ in 0..<20_000 {
        let digits = String(next() % 1_000_000_000_000_000)
        let point = Int(next() % UInt64(digits.count + 1))
        var text = digits
        if point < digits.count && point > 0 { text.insert(".", at: text.index(text.startIndex, offsetBy: point)) }
        if next() % 2 == 0 { text += "e\(Int(next() % 50) - 25)" }
        if next() % 3 == 0 { text = "-" + text }
        guard let number = JSONNumber(text: text) else { continue }
        #expect(number.double == Double(text), "\(text)")
    }
}

@Test func numbersFromSwiftValues() {
    #expect(JSONNumber(42).text == "42")
    #expect(JSONNumber(Int64.min).text == "-9223372036854775808")
    #expect(JSONNumber(0.1)?.text == "0.1")
    #expect(JSONNumber(1e-5)?.text == "1e-05")
    #expect(JSONNumber(Double.nan) == nil)
    #expect(JSONNumber(Double.infinity) == nil)
    #expect(JSONNumber(Float(0.1))?.text == "0.1")
    // Swift's shortest round-trip forms are all valid JSON numbers.
    for value in [1e-5, 1e20, 1e21, 5.0, -0.0, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 123.456] {
        let text = JSONNumber(value)!.text
        #expect(JSONNumber(text: text) != nil, "\(text)")
        #expect(JSONNumber(text: text)!.double == value)
    }
}
