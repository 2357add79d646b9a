// The null sanitizer: AFNetworking's removesKeysWithNullValues plus Courier's array fix, in its two
// forms (streaming rewriter and tree option), which must agree byte for byte on every input.

import Testing
import CourierBytes
@testable import CourierJSON

/// (input, expected sanitized compact output)
private let semantics: [(String, String)] = [
    // AFNetworking: members with null values are removed at every depth; emptied containers stay.
    (#"{"a":null}"#, #"{}"#),
    (#"{"a":{"b":null}}"#, #"{"a":{}}"#),
    (#"{"a":null,"b":1}"#, #"{"b":1}"#),
    (#"{"a":1,"b":null}"#, #"{"a":1}"#),
    (#"{"a":1,"b":null,"c":2}"#, #"{"a":1,"c":2}"#),
    (#"{"a":null,"b":null}"#, #"{}"#),
    (#"{"a":{"b":{"c":null,"d":[]}}}"#, #"{"a":{"b":{"d":[]}}}"#),
    // Courier's fix: null array elements are dropped too (AFNetworking left them).
    (#"[null]"#, #"[]"#),
    (#"[null,null]"#, #"[]"#),
    (#"[1,null,2]"#, #"[1,2]"#),
    (#"[null,1]"#, #"[1]"#),
    (#"[1,null]"#, #"[1]"#),
    (#"{"a":[null,1,{"b":null}]}"#, #"{"a":[1,{}]}"#),
    (#"[[null],[[]],[null,[null]]]"#, #"[[],[[]],[[]]]"#),
    // A top-level null has no container to leave.
    (#"null"#, #"null"#),
    (#" null "#, #"null"#),
    // A repeated name keeps its last member, before null removal (so a last null removes it).
    (#"{"a":null,"a":1}"#, #"{"a":1}"#),
    (#"{"a":1,"a":null}"#, #"{}"#),
    (#"{"b":0,"a":1,"a":null}"#, #"{"b":0}"#),
    (#"{"a":1,"b":0,"a":null}"#, #"{"b":0}"#),
    (#"{"a":[null,{"x":1,"x":null}],"a":[null]}"#, #"{"a":[]}"#),
    // Nothing else changes: strings named or containing "null" stay.
    (#"{"null":"null"}"#, #"{"null":"null"}"#),
    (#"[false,0,"",[],{}]"#, #"[false,0,"",[],{}]"#),
    // Output is compact, numbers verbatim, strings canonically escaped.
    (" { \"a\" : [ null , { } , 1.0E+2 ] , \"b\" : null } ", #"{"a":[{},1.0E+2]}"#),
    (#"["\u0041\/\u00e9\ud83d\ude00\u001F\u0008"]"#, "[\"A/é😀\\u001f\\b\"]"),
    (#"{"\u0000k":null,"k\n":"\"v\""}"#, #"{"k\n":"\"v\""}"#),
    ("[-0,1e5,\"é\"]", "[-0,1e5,\"é\"]"),
]

@Test("AFNetworking semantics plus the array fix", arguments: semantics)
private func sanitizes(_ input: String, _ expected: String) throws {
    let bytes = Array(input.utf8)
    #expect(String(decoding: try JSONNullSanitizer.sanitize(bytes), as: UTF8.self) == expected)
    let tree = try JSONParser(removesNullValues: true).parse(bytes)
    #expect(JSONWriter.string(tree) == expected)
    checkAllWays(bytes)
}

@Test func byteBufferForm() throws {
    var output = ByteBuffer(string: "prefix:")
    try JSONNullSanitizer().sanitize(ByteBufferFixture.make(#"{"a":null,"b":[null,2]}"#), into: &output)
    #expect(output.readableString == #"prefix:{"b":[2]}"#)
    // On error nothing is appended.
    #expect(throws: JSONError(.unexpectedEndOfInput, offset: 9)) {
        try JSONNullSanitizer().sanitize(ByteBufferFixture.make(#"{"a":null"#), into: &output)
    }
    #expect(output.readableString == #"prefix:{"b":[2]}"#)
    #expect(throws: JSONError(.emptyInput, offset: 0)) { try JSONNullSanitizer.sanitize([]) }
}

@Test func sanitizerRejectsWhatTheParserRejects() {
    for text in ["", " ", "[1,]", "{\"a\":nul}", "{\"a\":null,}", "[null", "{\"a\":null", "{\"a\" null}",
                 "[01]", "\"\\uD800\"", "[null]x", "nul", "{null:1}", "[n]", "{\"a\":null \"b\":1}"] {
        let problem = sanitizerDisagreement(Array(text.utf8))
        #expect(problem == nil, "\(text.debugDescription): \(problem ?? "")")
        #expect(parseOutcome(Array(text.utf8)).error != nil)
    }
}

// MARK: Generated documents

/// A small deterministic generator (PCG-style LCG), so failures reproduce.
struct Generator {
    var state: UInt64
    mutating func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }

    mutating func whitespace() -> String {
        ["", "", "", " ", "\n", "\t", "\r\n  "][next(7)]
    }

    mutating func string() -> String {
        let pieces = ["a", "key", "null", "é", "😀", "\\n", "\\u0000", "\\ud83d\\ude00", "\\\"", "\\/", "日本", " "]
        return "\"" + (0..<next(4)).map { _ in pieces[next(pieces.count)] }.joined() + "\""
    }

    mutating func value(depth: Int) -> String {
        let kind = depth > 5 ? next(6) : next(9)
        switch kind {
        case 0, 1: return "null"
        case 2: return ["true", "false"][next(2)]
        case 3: return ["0", "-0", "12", "1.5e-3", "123456789012345678901234567890", "-1E+2"][next(6)]
        case 4, 5: return string()
        case 6, 7:
            let count = next(5)
            return "[" + (0..<count).map { _ in whitespace() + value(depth: depth + 1) + whitespace() }.joined(separator: ",") + "]"
        default:
            let count = next(5)
            return "{" + (0..<count).map { _ in
                whitespace() + string() + whitespace() + ":" + whitespace() + value(depth: depth + 1) + whitespace()
            }.joined(separator: ",") + "}"
        }
    }
}

/// An independent, recursive reference implementation of the semantics, over the plain tree.
private func referenceSanitize(_ value: JSONValue) -> JSONValue {
    switch value {
    case .array(let elements):
        return .array(JSONArray(elements.filter { !$0.isNull }.map(referenceSanitize)))
    case .object(let object):
        return .object(JSONObject(object.members.filter { !$0.value.isNull }.map {
            JSONObject.Member(key: $0.key, value: referenceSanitize($0.value))
        }))
    default:
        return value
    }
}

@Test func bothFormsAgreeOnGeneratedDocuments() throws {
    var generator = Generator(state: 0x5EED)
    for _ in 0..<3_000 {
        let text = generator.whitespace() + generator.value(depth: 0) + generator.whitespace()
        let bytes = Array(text.utf8)
        let plain = try JSONParser.parse(bytes)
        let expected = JSONWriter.write(referenceSanitize(plain))
        #expect(try JSONNullSanitizer.sanitize(bytes) == expected, "\(text)")
        #expect(JSONWriter.write(try JSONParser(removesNullValues: true).parse(bytes)) == expected, "\(text)")
        // The sanitized output is a fixed point and never longer than the input.
        #expect(try JSONNullSanitizer.sanitize(expected) == expected)
        #expect(expected.count <= bytes.count)
    }
}

@Test func bothFormsAgreeOnCorruptedDocuments() {
    // Damage generated documents (cut, overwrite or insert a byte) and check that the two forms
    // still agree: the same output, or the same error code at the same offset.
    var generator = Generator(state: 0xBAD5EED)
    let damage: [UInt8] = Array("n\"\\,:[]{}0-.eE \u{1}".utf8) + [0x80, 0xC3, 0xED, 0xF4, 0xFF]
    for _ in 0..<5_000 {
        var bytes = Array(generator.value(depth: 0).utf8)
        guard !bytes.isEmpty else { continue }
        let position = generator.next(bytes.count)
        switch generator.next(3) {
        case 0: bytes.removeSubrange(position...)
        case 1: bytes[position] = damage[generator.next(damage.count)]
        default: bytes.insert(damage[generator.next(damage.count)], at: position)
        }
        if let problem = sanitizerDisagreement(bytes) {
            Issue.record("\(String(decoding: bytes, as: UTF8.self).debugDescription): \(problem)")
        }
    }
}

@Test func everyPrefixOfAGeneratedDocumentIsHandledAlike() {
    var generator = Generator(state: 42)
    for _ in 0..<40 {
        let bytes = Array(generator.value(depth: 0).utf8)
        checkAllWays(bytes)
    }
}

@Test func repeatedNamesInLargeObjectsAndWithEscapes() throws {
    // More than 32 names (the name set's table), repeats raw and escaped, with and without null.
    var members = (0..<40).map { #""k\#($0)":\#($0)"# }
    members += [#""k5":null"#, #""\u006b7":"x""#, #""k39":[null]"#, #""k7":{"k7":null}"#, #""k\u0031":1,"k1":null"#]
    let text = "{" + members.joined(separator: ",") + "}"
    let expected = "{" + (0..<40).filter { ![1, 5, 7, 39].contains($0) }.map { #""k\#($0)":\#($0)"# }.joined(separator: ",")
        + #","k39":[],"k7":{}}"#
    let sanitized = try JSONNullSanitizer().sanitize(Array(text.utf8))
    #expect(String(decoding: sanitized, as: UTF8.self) == expected)
    #expect(sanitized == JSONWriter.write(try JSONParser(removesNullValues: true).parse(text)))
    #expect(sanitized == JSONWriter.write(JSONValue(try JSONDocument(parsing: text, options: .init(removesNullValues: true)).root)))
}
