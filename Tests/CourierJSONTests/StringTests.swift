// Strings (RFC 8259 §7, §8): escapes, surrogate pairs, control characters and UTF-8
// well-formedness (RFC 3629 §4), in values and in member names.

import Testing
@testable import CourierJSON

private func quoted(_ content: [UInt8]) -> [UInt8] { [0x22] + content + [0x22] }

private let badUTF8: [([UInt8], JSONError.Code, Int)] = [
    (quoted([0x80]), .invalidUTF8, 1),                      // stray continuation byte
    (quoted([0x61, 0xBF]), .invalidUTF8, 2),
    (quoted([0xC0, 0xAF]), .invalidUTF8, 1),                // overlong "/"
    (quoted([0xC1, 0xBF]), .invalidUTF8, 1),                // overlong U+007F
    (quoted([0xE0, 0x80, 0xAF]), .invalidUTF8, 1),          // overlong 3-byte
    (quoted([0xE0, 0x9F, 0xBF]), .invalidUTF8, 1),          // overlong U+07FF
    (quoted([0xF0, 0x80, 0x80, 0xAF]), .invalidUTF8, 1),    // overlong 4-byte
    (quoted([0xF0, 0x8F, 0xBF, 0xBF]), .invalidUTF8, 1),    // overlong U+FFFF
    (quoted([0xFC, 0x80, 0x80, 0x80, 0x80, 0xAF]), .invalidUTF8, 1),  // 6-byte form
    (quoted([0xED, 0xA0, 0x80]), .invalidUTF8, 1),          // U+D800 encoded
    (quoted([0xED, 0xBF, 0xBF]), .invalidUTF8, 1),          // U+DFFF encoded
    (quoted([0xED, 0xA0, 0xBD, 0xED, 0xB2, 0xA9]), .invalidUTF8, 1),  // CESU-8 pair
    (quoted([0xF4, 0x90, 0x80, 0x80]), .invalidUTF8, 1),    // U+110000
    (quoted([0xF5, 0x80, 0x80, 0x80]), .invalidUTF8, 1),
    (quoted([0xF8, 0x88, 0x80, 0x80, 0x80]), .invalidUTF8, 1),
    (quoted([0xFE]), .invalidUTF8, 1),
    (quoted([0xFF]), .invalidUTF8, 1),
    (quoted([0xE2, 0x82]), .invalidUTF8, 1),                // cut short by the quote
    (quoted([0x61, 0xC3]), .invalidUTF8, 2),
    (quoted([0xF0, 0x9F, 0x98]), .invalidUTF8, 1),
    (quoted([0xE2, 0x28, 0xA1]), .invalidUTF8, 1),          // second byte not a continuation
    (quoted([0xE2, 0x82, 0x28]), .invalidUTF8, 1),          // third byte not a continuation
    (quoted([0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0xE9]), .invalidUTF8, 10),  // Latin-1 é after a SWAR block
    ([0x22, 0xE2, 0x82], .unexpectedEndOfInput, 3),         // input ends inside a sequence
    ([0xC3, 0xA9], .unexpectedByte, 0),                     // non-ASCII outside a string
    ([0x5B, 0xFF, 0x5D], .unexpectedByte, 1),
    (Array("{\"k\u{E9}\":1}".utf8).map { $0 == 0xA9 ? 0x41 : $0 }, .invalidUTF8, 3),  // in a member name
]

@Test("ill-formed UTF-8 is rejected", arguments: badUTF8)
private func illFormedUTF8(_ input: [UInt8], _ code: JSONError.Code, _ offset: Int) {
    expectRejected(input, code, at: offset)
}

private let badEscapes: [(String, JSONError.Code, Int)] = [
    ("\"abc", .unexpectedEndOfInput, 4),
    ("\"\\", .unexpectedEndOfInput, 2),
    ("\"\\x\"", .invalidEscape, 2),
    ("\"\\'\"", .invalidEscape, 2),
    ("\"\\a\"", .invalidEscape, 2),
    ("\"\\U0041\"", .invalidEscape, 2),
    ("\"\\0\"", .invalidEscape, 2),
    ("\"ab\\ \"", .invalidEscape, 4),
    ("\"\\u12\"", .invalidUnicodeEscape, 5),
    ("\"\\u12G4\"", .invalidUnicodeEscape, 5),
    ("\"\\u\"", .invalidUnicodeEscape, 3),
    ("\"\\u-123\"", .invalidUnicodeEscape, 3),
    ("\"\\u00", .unexpectedEndOfInput, 5),
    ("\"\\uD800\"", .loneSurrogateEscape, 1),
    ("\"\\uDBFF\"", .loneSurrogateEscape, 1),
    ("\"\\uDC00\"", .loneSurrogateEscape, 1),
    ("\"a\\uDFFF\"", .loneSurrogateEscape, 2),
    ("\"\\uD800\\u0041\"", .loneSurrogateEscape, 1),
    ("\"\\uD800\\uD800\"", .loneSurrogateEscape, 1),
    ("\"\\uDC00\\uD800\"", .loneSurrogateEscape, 1),      // inverted pair
    ("\"\\uD800\\n\"", .loneSurrogateEscape, 1),
    ("\"\\uD800x\"", .loneSurrogateEscape, 1),
    ("\"\\uD800\\", .unexpectedEndOfInput, 8),
    ("\"\\uD800", .unexpectedEndOfInput, 7),
    ("\"\\uD800\\u", .unexpectedEndOfInput, 9),
    ("\"\\uD800\\uDC", .unexpectedEndOfInput, 11),
    ("\"\\uD800\\uDCxx\"", .invalidUnicodeEscape, 11),
    ("\"\\uD800\\x\"", .loneSurrogateEscape, 1),
    ("{\"\\uDFAA\":0}", .loneSurrogateEscape, 2),
    ("\"a\tb\"", .controlCharacterInString, 2),
    ("\"\u{0}\"", .controlCharacterInString, 1),
    ("\"\n\"", .controlCharacterInString, 1),
    ("\"\r\"", .controlCharacterInString, 1),
    ("\"\u{1F}\"", .controlCharacterInString, 1),
    ("\"abcdefghijklmnop\u{1}\"", .controlCharacterInString, 17),
    ("\"\\n\u{1}\"", .controlCharacterInString, 3),
    ("{\"a\nb\":1}", .controlCharacterInString, 3),
]

@Test("bad escapes and control characters", arguments: badEscapes)
private func badEscape(_ input: String, _ code: JSONError.Code, _ offset: Int) {
    expectRejected(input, code, at: offset)
}

@Test func escapesDecode() {
    expectParses(#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{8}\u{C}\n\r\t")
    expectParses(#""\u0041\u00e9\u00E9\u20AC""#, "Aéé€")
    expectParses(#""\u0000""#, "\u{0}")
    expectParses(#""\u001f""#, "\u{1F}")
    expectParses(#""\uD83D\uDE00""#, "😀")
    expectParses(#""\ud83d\ude00""#, "😀")
    expectParses(#""\uDBFF\uDFFF""#, "\u{10FFFF}")
    expectParses(#""\uFFFF""#, "\u{FFFF}")
    expectParses(#""\uFEFF""#, "\u{FEFF}")
    expectParses(#""a\u0062c\"d""#, "abc\"d")
    expectParses(#"{"\u006b":"v"}"#, ["k": "v"])
}

@Test func rawUTF8IsAccepted() {
    expectParses("\"é\"", "é")
    expectParses("\"€\"", "€")
    expectParses("\"😀\"", "😀")
    expectParses("\"\u{FFFF}\"", "\u{FFFF}")  // noncharacters are valid scalars
    expectParses("\"\u{10FFFF}\"", "\u{10FFFF}")
    expectParses("\"\u{7F}\"", "\u{7F}")  // DEL needs no escape
    expectParses("\"\u{2028}\u{2029}\"", "\u{2028}\u{2029}")
    expectParses("\"日本語のテキスト、ちょっと長め\"", "日本語のテキスト、ちょっと長め")
}

@Test func specialBytesAtEveryPositionOfTheFastScan() throws {
    // The fast scan reads eight bytes at a time; put each kind of special byte at each offset of
    // a block, and across block boundaries.
    for length in 0..<24 {
        for position in 0...length {
            var content = Array(repeating: UInt8(ascii: "a"), count: length)
            // A quote ends the string early: the rest is trailing data (or a value error).
            content.insert(UInt8(ascii: "\\"), at: position)
            content.insert(UInt8(ascii: "n"), at: position + 1)
            let value = try JSONParser.parse(quoted(content))
            var expected = String(repeating: "a", count: length)
            expected.insert("\n", at: expected.index(expected.startIndex, offsetBy: position))
            #expect(value == .string(expected))

            var withControl = Array(repeating: UInt8(ascii: "a"), count: length)
            withControl.insert(0x1F, at: position)
            #expect(throws: JSONError(.controlCharacterInString, offset: 1 + position)) { try JSONParser.parse(quoted(withControl)) }

            var withUTF8 = Array(repeating: UInt8(ascii: "a"), count: length)
            withUTF8.insert(contentsOf: [0xE2, 0x82, 0xAC], at: position)
            #expect(try JSONParser.parse(quoted(withUTF8)).stringValue?.unicodeScalars.count == length + 1)

            var withBad = Array(repeating: UInt8(ascii: "a"), count: length)
            withBad.insert(0xC0, at: position)
            withBad.insert(0x80, at: position + 1)
            #expect(throws: JSONError(.invalidUTF8, offset: 1 + position)) { try JSONParser.parse(quoted(withBad)) }
        }
    }
}

@Test func longStringsWithAndWithoutEscapes() throws {
    let plain = String(repeating: "0123456789abcdefé€😀", count: 500)
    #expect(try JSONParser().parse("\"\(plain)\"") == .string(plain))
    let escaped = String(repeating: "line\\n\\u00e9\\\"", count: 500)
    let decoded = String(repeating: "line\né\"", count: 500)
    #expect(try JSONParser().parse("\"\(escaped)\"") == .string(decoded))
}
