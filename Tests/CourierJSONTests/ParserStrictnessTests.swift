// Hostile structure, literal and whitespace cases, each with its expected error code and offset,
// each checked whole, at every prefix, with trailing bytes and through the sanitizer.

import Testing
@testable import CourierJSON

private typealias Code = JSONError.Code

private let structuralCases: [(String, Code, Int)] = [
    ("", .emptyInput, 0),
    ("   ", .emptyInput, 3),
    (" \t\r\n", .emptyInput, 4),
    ("[", .unexpectedEndOfInput, 1),
    ("[1", .unexpectedEndOfInput, 2),
    ("[1,", .unexpectedEndOfInput, 3),
    ("[1, ", .unexpectedEndOfInput, 4),
    ("[1,]", .unexpectedByte, 3),
    ("[,1]", .unexpectedByte, 1),
    ("[1 2]", .unexpectedByte, 3),
    ("[1,,2]", .unexpectedByte, 3),
    ("]", .unexpectedByte, 0),
    ("[}", .unexpectedByte, 1),
    ("{]", .unexpectedByte, 1),
    ("[1}", .unexpectedByte, 2),
    ("{\"a\":1]", .unexpectedByte, 6),
    ("{", .unexpectedEndOfInput, 1),
    ("{\"a\"", .unexpectedEndOfInput, 4),
    ("{\"a\":", .unexpectedEndOfInput, 5),
    ("{\"a\":1", .unexpectedEndOfInput, 6),
    ("{\"a\"}", .unexpectedByte, 4),
    ("{\"a\" 1}", .unexpectedByte, 5),
    ("{\"a\":}", .unexpectedByte, 5),
    ("{\"a\":1,}", .unexpectedByte, 7),
    ("{,}", .unexpectedByte, 1),
    ("{a:1}", .unexpectedByte, 1),
    ("{'a':1}", .unexpectedByte, 1),
    ("{1:1}", .unexpectedByte, 1),
    ("{null:1}", .unexpectedByte, 1),
    ("{\"a\":1 \"b\":2}", .unexpectedByte, 7),
    ("{\"a\"::1}", .unexpectedByte, 5),
    ("{\"a\"=1}", .unexpectedByte, 4),
    ("{\"a\":1;\"b\":2}", .unexpectedByte, 6),
    ("[1]]", .trailingData, 3),
    ("{}}", .trailingData, 2),
    ("1 2", .trailingData, 2),
    ("[] []", .trailingData, 3),
    ("\"a\" x", .trailingData, 4),
    ("[1]\u{0}", .trailingData, 3),
    ("[1] // comment", .trailingData, 4),
    ("{} ,", .trailingData, 3),
    ("\u{0}", .unexpectedByte, 0),
    ("/* c */ 1", .unexpectedByte, 0),
    ("undefined", .unexpectedByte, 0),
    ("'single'", .unexpectedByte, 0),
    ("(1)", .unexpectedByte, 0),
    ("[\u{0C}]", .unexpectedByte, 1),        // form feed is not JSON whitespace
    ("[\u{0B}1]", .unexpectedByte, 1),       // nor vertical tab
    ("[\u{A0}1]", .unexpectedByte, 1),       // nor NO-BREAK SPACE (C2 A0)
    ("\u{FEFF}\u{FEFF}{}", .unexpectedByte, 3), // one byte order mark is skipped, not two
    ("\u{FEFF}", .emptyInput, 3),                 // a byte order mark alone is no value
    ("\u{FEFF}[1,]", .unexpectedByte, 6),         // offsets count the byte order mark
    ("\u{2028}1", .unexpectedByte, 0),
    ("é", .unexpectedByte, 0),
]

private let literalCases: [(String, Code, Int)] = [
    ("tru", .unexpectedEndOfInput, 3),
    ("t", .unexpectedEndOfInput, 1),
    ("trUe", .invalidLiteral, 2),
    ("True", .unexpectedByte, 0),
    ("TRUE", .unexpectedByte, 0),
    ("nul", .unexpectedEndOfInput, 3),
    ("nulll", .trailingData, 4),
    ("truex", .trailingData, 4),
    ("falsy", .invalidLiteral, 4),
    ("fals", .unexpectedEndOfInput, 4),
    ("[nan]", .invalidLiteral, 2),
    ("NaN", .unexpectedByte, 0),
    ("Infinity", .unexpectedByte, 0),
    ("-Infinity", .invalidNumber, 1),
    ("[true false]", .unexpectedByte, 6),
    ("{\"a\":nil}", .invalidLiteral, 6),
    ("[t\u{0}]", .invalidLiteral, 2),
]

@Test("structural errors: code and offset", arguments: structuralCases)
private func structuralError(_ input: String, _ code: JSONError.Code, _ offset: Int) {
    expectRejected(input, code, at: offset)
}

@Test("literal errors: code and offset", arguments: literalCases)
private func literalError(_ input: String, _ code: JSONError.Code, _ offset: Int) {
    expectRejected(input, code, at: offset)
}

@Test func topLevelScalarsAreAccepted() {
    // RFC 8259 §2: JSON-text = ws value ws (RFC 4627's object-or-array rule is gone).
    expectParses("true", true)
    expectParses("false", false)
    expectParses("null", nil)
    expectParses("0", 0)
    expectParses("\"\"", "")
    expectParses(" \t\r\n\"x\" \t\r\n", "x")
}

@Test func structuresParseInOrder() {
    expectParses("[]", [])
    expectParses("{}", [:])
    expectParses("[[],{}]", [[], [:]])
    expectParses(" [ 1 , \"a\" , true , false , null ] ", [1, "a", true, false, nil])
    expectParses("{\"b\":1,\"a\":2}", ["b": 1, "a": 2])
    expectParses("{ \"a\" : { \"b\" : [ { } ] } }", ["a": ["b": [[:]]]])
}

@Test func repeatedNamesKeepTheLastMember() throws {
    // As JSONSerialization: the last member of a name wins; the earlier ones are dropped and the
    // last keeps its own position.
    let value = try mustParse("{\"a\":1,\"b\":2,\"a\":3}")
    let object = try #require(value.objectValue)
    #expect(object.keys == ["b", "a"])
    #expect(object["a"] == 3)
    #expect(JSONWriter.string(value) == "{\"b\":2,\"a\":3}")
    expectParses("{\"a\":1,\"a\":1}", ["a": 1])
    expectParses("{\"a\":1,\"a\":2,\"a\":3}", ["a": 3])
    // Names are compared decoded: an escaped spelling is the same name.
    expectParses("{\"a\":1,\"\\u0061\":2}", ["a": 2])
    expectParses("{\"\\u00e9\":1,\"é\":2,\"x\":[{\"é\":3,\"\\u00E9\":4}]}", ["é": 2, "x": [["é": 4]]])
    // Only within one object.
    expectParses("[{\"a\":1},{\"a\":2}]", [["a": 1], ["a": 2]])
    expectParses("{\"a\":{\"a\":1},\"b\":{\"a\":2}}", ["a": ["a": 1], "b": ["a": 2]])
    // A removed member may hold containers; a large object goes through the name table.
    expectParses("{\"a\":[1,{\"b\":2}],\"c\":3,\"a\":4}", ["c": 3, "a": 4])
    var members: [String] = (0..<100).map { "\"k\($0)\":\($0)" }
    members.append("\"k7\":\"last\"")
    members.append("\"k99\":[]")
    var expected = JSONObject((0..<100).filter { $0 != 7 && $0 != 99 }.map { .init(key: "k\($0)", value: .number(JSONNumber($0))) })
    expected.append(key: "k7", value: "last")
    expected.append(key: "k99", value: [])
    expectParses("{" + members.joined(separator: ",") + "}", .object(expected))
}

@Test func aByteOrderMarkIsSkipped() {
    // RFC 8259 §8.1 lets a parser ignore one; JSONSerialization does.
    expectParses("\u{FEFF}{}", [:])
    expectParses("\u{FEFF} [1] ", [1])
    expectParses("\u{FEFF}\"x\"", "x")
}

@Test func entryPointsAgree() throws {
    let text = "{\"k\":[1,2.5,\"s\"]}"
    let fromArray = try JSONParser.parse(Array(text.utf8))
    let fromString = try JSONParser().parse(text)
    let fromBuffer = try JSONParser().parse(ByteBufferFixture.make(text))
    let fromPointer = try Array(text.utf8).withUnsafeBytes { try JSONParser.parse($0) }
    #expect(fromArray == fromString)
    #expect(fromArray == fromBuffer)
    #expect(fromArray == fromPointer)
    // An empty buffer (nil base address) is empty input, not a crash.
    #expect(throws: JSONError(.emptyInput, offset: 0)) { try JSONParser.parse(UnsafeRawBufferPointer(start: nil, count: 0)) }
}

@Test func errorsHaveStableDescriptions() {
    let error = JSONError(.trailingData, offset: 7)
    #expect(error.code.rawValue == "trailingData")
    #expect("\(error)" == "JSON trailingData at byte 7")
}
