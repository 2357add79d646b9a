// The writer: compact and pretty forms, insertion order, minimal escaping, exact numbers, round
// trips, and no recursion.

import Testing
import CourierBytes
@testable import CourierJSON

@Test func compactOutput() {
    let value: JSONValue = ["b": [1, 2.5, "x", true, false, nil], "a": [:], "c": []]
    #expect(JSONWriter.string(value) == #"{"b":[1,2.5,"x",true,false,null],"a":{},"c":[]}"#)
    #expect(JSONWriter.string(.null) == "null")
    #expect(JSONWriter.string("s") == "\"s\"")
}

@Test func prettyOutput() {
    let value: JSONValue = ["b": [1, ["x": nil]], "a": [:], "c": [], "d": "e"]
    let expected = """
    {
      "b": [
        1,
        {
          "x": null
        }
      ],
      "a": {},
      "c": [],
      "d": "e"
    }
    """
    #expect(JSONWriter.string(value, options: .prettyPrinted) == expected)
    #expect(JSONWriter.string(1, options: .prettyPrinted) == "1")
    #expect(JSONWriter.string([], options: .prettyPrinted) == "[]")
}

@Test func sortedKeys() {
    let value: JSONValue = ["b": 1, "a": ["z": 1, "y": 2], "é": 3, "B": 4, "a": 5]
    #expect(JSONWriter.string(value, options: .sortedKeys) == #"{"B":4,"a":{"y":2,"z":1},"a":5,"b":1,"é":3}"#)
    #expect(JSONWriter.string(value, options: [.sortedKeys, .prettyPrinted]).hasPrefix("{\n  \"B\": 4,\n  \"a\": {\n    \"y\": 2,"))
}

@Test func stringsAreEscapedMinimally() {
    var all = ""
    for scalar in 0..<0x20 { all.unicodeScalars.append(Unicode.Scalar(UInt8(scalar))) }
    let written = JSONWriter.string(.string(all))
    #expect(written == #""\u0000\u0001\u0002\u0003\u0004\u0005\u0006\u0007\b\t\n\u000b\f\r\u000e\u000f\u0010\u0011\u0012\u0013\u0014\u0015\u0016\u0017\u0018\u0019\u001a\u001b\u001c\u001d\u001e\u001f""#)
    #expect(JSONWriter.string("\"\\/") == #""\"\\/""#)
    #expect(JSONWriter.string("\u{7F}é€😀\u{2028}") == "\"\u{7F}é€😀\u{2028}\"")
    #expect(JSONWriter.string(["k\"\n": "v"]) == #"{"k\"\n":"v"}"#)
}

@Test func numbersAreWrittenFromTheirText() throws {
    let text = "[1.0e+10,-0,0.5E-3,123456789012345678901234567890,1e5000]"
    #expect(JSONWriter.string(try mustParse(text)) == text)
}

@Test func writesIntoAByteBuffer() {
    var buffer = ByteBuffer(string: "x=")
    JSONWriter.write(["a": [1]], into: &buffer)
    #expect(buffer.readableString == #"x={"a":[1]}"#)
}

private let roundTripCorpus: [String] = [
    #"{"a":[1,2,{"b":null,"c":"\u00e9\n\ud83d\ude00"}],"d":-0.5e-3,"e":true}"#,
    #"[[[[[]]]],{},{"":""},[""]]"#,
    #" { "spaced" : [ 1 , 2 ] , "x" : { } } "#,
    #""\/\b\f\n\r\t\"\\\u0001\u007f""#,
    #"[1e1,1E1,1e+1,1e-1,0.1,-0,0]"#,
    #"{"dup":1,"dup":2,"dup":{"dup":3}}"#,
    "[\"日本\",\"😀\",\"\u{10FFFF}\"]",
]

@Test("parse → write → parse is identical", arguments: roundTripCorpus)
private func roundTrip(_ text: String) throws {
    let value = try mustParse(text)
    for options in [JSONWriter.Options(), .prettyPrinted] {
        let written = JSONWriter.write(value, options: options)
        #expect(try JSONParser.parse(written) == value)
        // Writing is a fixed point: the compact form of the compact form is itself.
        #expect(JSONWriter.write(try JSONParser.parse(written)) == JSONWriter.write(value))
    }
}

@Test func deepValuesAreWrittenWithoutRecursion() throws {
    var value: JSONValue = 1
    for _ in 0..<5_000 { value = .array([value]) }
    let written = JSONWriter.write(value)
    #expect(written.count == 10_001)
    let pretty = JSONWriter.write(value, options: .prettyPrinted)
    #expect(try JSONParser(limits: .init(maxDepth: 10_000)).parse(pretty) == value)
}

@Test func literalsAndAccessors() throws {
    let value: JSONValue = ["s": "x", "n": 1.5, "b": true, "z": nil, "a": [1, 2], "o": ["k": "v"]]
    #expect(value["s"]?.stringValue == "x")
    #expect(value["n"]?.numberValue?.double == 1.5)
    #expect(value["b"]?.boolValue == true)
    #expect(value["z"]?.isNull == true)
    #expect(value["a"]?[1] == 2)
    #expect(value["a"]?[2] == nil)
    #expect(value["o"]?["k"] == "v")
    #expect(value["missing"] == nil)
    var object = try #require(value.objectValue)
    object["s"] = "y"
    object["new"] = 1
    object["z"] = nil
    #expect(object.keys == ["s", "n", "b", "a", "o", "new"])
    #expect(JSONValue.object(object).description == #"{"s":"y","n":1.5,"b":true,"a":[1,2],"o":{"k":"v"},"new":1}"#)
}
