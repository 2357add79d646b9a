// The Codable bridge: round trips, Foundation-compatible errors with coding paths, range checks,
// optionals, nested and super containers, key strategies, output formatting.

import Testing
@testable import CourierJSON

private struct Primitives: Codable, Equatable {
    var bool: Bool
    var string: String
    var double: Double
    var float: Float
    var int: Int
    var int8: Int8
    var int16: Int16
    var int32: Int32
    var int64: Int64
    var uint: UInt
    var uint8: UInt8
    var uint16: UInt16
    var uint32: UInt32
    var uint64: UInt64
    var int128: Int128
    var uint128: UInt128
}

private let extremes = Primitives(
    bool: true, string: "é\n\"😀", double: -1.5e-300, float: 3.4028235e38, int: Int.min, int8: Int8.min,
    int16: Int16.max, int32: Int32.min, int64: Int64.max, uint: UInt.max, uint8: UInt8.max, uint16: UInt16.max,
    uint32: UInt32.max, uint64: UInt64.max, int128: Int128.min, uint128: UInt128.max)

private struct Nested: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var name: String
        var tags: [String]
        var score: Double?
    }
    var inners: [Inner]
    var lookup: [String: Int]
    var optional: Int?
    var matrix: [[Int8]]
    var when: Timestamp
}

@Test func primitivesRoundTrip() throws {
    let encoder = CourierJSONEncoder()
    let decoder = CourierJSONDecoder()
    let bytes = try encoder.encode(extremes)
    #expect(try decoder.decode(Primitives.self, from: bytes) == extremes)
    // Also through the unkeyed and single-value paths.
    let array = [extremes, extremes]
    #expect(try decoder.decode([Primitives].self, from: try encoder.encode(array)) == array)
    #expect(try decoder.decode(UInt64.self, from: try encoder.encode(UInt64.max)) == UInt64.max)
    #expect(try decoder.decode(Int128.self, from: "-170141183460469231731687303715884105728") == Int128.min)
    #expect(try decoder.decode([Int8?].self, from: "[1,null,-128]") == [1, nil, -128])
}

@Test func nestedRoundTrip() throws {
    let value = Nested(
        inners: [.init(name: "a", tags: [], score: nil), .init(name: "b", tags: ["x", "y"], score: 0.25)],
        lookup: ["k": 1], optional: nil, matrix: [[1, 2], [], [-3]], when: Timestamp(seconds: 1_700_000_000, nanoseconds: 500_000_000))
    let bytes = try CourierJSONEncoder().encode(value)
    #expect(try CourierJSONDecoder().decode(Nested.self, from: bytes) == value)
    // encodeIfPresent leaves nil out; decodeIfPresent accepts a missing key or null.
    let text = String(decoding: bytes, as: UTF8.self)
    #expect(!text.contains("optional"))
    #expect(!text.contains("score\":null"))
    let withNull = #"{"inners":[{"name":"n","tags":[],"score":null}],"lookup":{},"optional":null,"matrix":[],"when":0}"#
    let decoded = try CourierJSONDecoder().decode(Nested.self, from: withNull)
    #expect(decoded.optional == nil && decoded.inners[0].score == nil)
}

@Test func compactPrettyAndSortedOutput() throws {
    struct Point: Codable { var y: Int; var x: Int; var label: String }
    let point = Point(y: 2, x: 1, label: "p")
    var encoder = CourierJSONEncoder()
    #expect(String(decoding: try encoder.encode(point), as: UTF8.self) == #"{"y":2,"x":1,"label":"p"}"#)
    encoder.outputFormatting = .sortedKeys
    #expect(String(decoding: try encoder.encode(point), as: UTF8.self) == #"{"label":"p","x":1,"y":2}"#)
    encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
    #expect(String(decoding: try encoder.encode(point), as: UTF8.self) == "{\n  \"label\": \"p\",\n  \"x\": 1,\n  \"y\": 2\n}")
}

@Test func floatingPointEncodingFollowsFoundation() throws {
    let encoder = CourierJSONEncoder()
    #expect(String(decoding: try encoder.encode([5.0, 0.1, -0.0, 1e20, 1e-7]), as: UTF8.self) == "[5,0.1,-0,1e+20,1e-07]")
    #expect(String(decoding: try encoder.encode(Float(0.1)), as: UTF8.self) == "0.1")
    for bad in [Double.nan, .infinity, -.infinity] {
        #expect(throws: EncodingError.self) { try encoder.encode(bad) }
        #expect(throws: EncodingError.self) { try encoder.encode(["k": bad]) }
    }
}

@Test func topLevelValueThatEncodesNothingThrows() throws {
    struct Empty: Encodable { func encode(to encoder: any Encoder) throws {} }
    #expect(throws: EncodingError.self) { try CourierJSONEncoder().encode(Empty()) }
    // Nested, it becomes an empty object.
    #expect(try CourierJSONEncoder().encode([Empty()]) == Array("[{}]".utf8))
}

// MARK: Errors and coding paths

private struct Wrapper: Decodable { var a: [Small] }
private struct Small: Decodable { var b: UInt8 }

private func pathOf(_ error: any Error) -> [String] {
    let context: DecodingError.Context?
    switch error as? DecodingError {
    case .typeMismatch(_, let c), .valueNotFound(_, let c), .dataCorrupted(let c): context = c
    case .keyNotFound(let key, let c): return c.codingPath.map(\.stringValue) + [key.stringValue]
    default: context = nil
    }
    return context?.codingPath.map(\.stringValue) ?? []
}

@Test func errorsCarryCodingPaths() {
    let decoder = CourierJSONDecoder()
    do {
        _ = try decoder.decode(Wrapper.self, from: #"{"a":[{"b":1},{"b":300}]}"#)
        Issue.record("300 fitted in UInt8")
    } catch let DecodingError.dataCorrupted(context) {
        #expect(context.codingPath.map(\.stringValue) == ["a", "Index 1", "b"])
        #expect(context.debugDescription == "Number 300 does not fit in UInt8.")
    } catch {
        Issue.record("unexpected \(error)")
    }
    do {
        _ = try decoder.decode(Wrapper.self, from: #"{"a":[{"c":1}]}"#)
        Issue.record("missing key accepted")
    } catch let DecodingError.keyNotFound(key, context) {
        #expect(key.stringValue == "b")
        #expect(context.codingPath.map(\.stringValue) == ["a", "Index 0"])
    } catch {
        Issue.record("unexpected \(error)")
    }
    do {
        _ = try decoder.decode(Wrapper.self, from: #"{"a":[{"b":null}]}"#)
        Issue.record("null accepted")
    } catch let DecodingError.valueNotFound(type, context) {
        #expect(ObjectIdentifier(type) == ObjectIdentifier(UInt8.self))
        #expect(context.codingPath.map(\.stringValue) == ["a", "Index 0", "b"])
    } catch {
        Issue.record("unexpected \(error)")
    }
    do {
        _ = try decoder.decode(Wrapper.self, from: #"{"a":{"b":1}}"#)
        Issue.record("object accepted as array")
    } catch let DecodingError.typeMismatch(_, context) {
        #expect(context.codingPath.map(\.stringValue) == ["a"])
        #expect(context.debugDescription.contains("found an object"))
    } catch {
        Issue.record("unexpected \(error)")
    }
    do {
        _ = try decoder.decode(Wrapper.self, from: #"{"a":[1,]}"#)
        Issue.record("invalid JSON accepted")
    } catch let DecodingError.dataCorrupted(context) {
        #expect(context.underlyingError as? JSONError == JSONError(.unexpectedByte, offset: 8))
    } catch {
        Issue.record("unexpected \(error)")
    }
}

@Test func numericRangeChecks() throws {
    let decoder = CourierJSONDecoder()
    func fails<T: Decodable>(_ type: T.Type, _ text: String) -> Bool {
        (try? decoder.decode(type, from: text)) == nil
    }
    #expect(try decoder.decode(Int.self, from: "1e2") == 100)
    #expect(try decoder.decode(Int.self, from: "-0") == 0)
    #expect(fails(Int.self, "1.5"))
    #expect(fails(Int64.self, "9223372036854775808"))
    #expect(fails(Int8.self, "-129"))
    #expect(fails(Int8.self, "128"))
    #expect(fails(UInt.self, "-1"))
    #expect(fails(UInt16.self, "65536"))
    #expect(fails(Float.self, "1e39"))
    #expect(fails(Double.self, "1e400"))
    #expect(fails(Int.self, "\"1\""))
    #expect(fails(String.self, "1"))
    #expect(fails(Bool.self, "1"))
    #expect(fails(Int.self, "true"))
    #expect(try decoder.decode(Float.self, from: "1e-50") == 0)
    #expect(try decoder.decode(Double.self, from: "12") == 12)
}

@Test func unkeyedContainerDoesNotAdvanceOnFailure() throws {
    struct Probe: Decodable {
        var results: [String] = []
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            #expect(container.count == 3)
            if (try? container.decode(Int.self)) == nil { results.append("not int") }
            results.append(try container.decode(String.self))
            #expect(try container.decodeNil())
            #expect(try container.decodeNil() == false)  // "x" is not null, index stays
            results.append(try container.decode(String.self))
            #expect(container.isAtEnd)
            #expect(throws: DecodingError.self) { try container.decode(String.self) }
        }
    }
    // ["s", null, "x"] : index 0 is "s", 1 null, 2 "x".
    let probe = try CourierJSONDecoder().decode(Probe.self, from: #"["s",null,"x"]"#)
    #expect(probe.results == ["not int", "s", "x"])
}

// MARK: Nested and super containers

private class Animal: Codable {
    var name: String
    init(name: String) { self.name = name }
}

private final class Dog: Animal {
    var breed: String
    init(name: String, breed: String) {
        self.breed = breed
        super.init(name: name)
    }
    enum CodingKeys: String, CodingKey { case breed }
    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        breed = try container.decode(String.self, forKey: .breed)
        try super.init(from: container.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(breed, forKey: .breed)
        try super.encode(to: container.superEncoder())
    }
}

@Test func superEncoderAndDecoder() throws {
    let bytes = try CourierJSONEncoder().encode(Dog(name: "Rex", breed: "lab"))
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"breed":"lab","super":{"name":"Rex"}}"#)
    let dog = try CourierJSONDecoder().decode(Dog.self, from: bytes)
    #expect(dog.name == "Rex" && dog.breed == "lab")
}

private struct Manual: Codable, Equatable {
    var x: Int
    var list: [String]
    var inner: Int
    enum Keys: String, CodingKey { case x, list, nest }
    enum NestKeys: String, CodingKey { case inner }
    init(x: Int, list: [String], inner: Int) { self.x = x; self.list = list; self.inner = inner }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        x = try c.decode(Int.self, forKey: .x)
        var l = try c.nestedUnkeyedContainer(forKey: .list)
        var items: [String] = []
        while !l.isAtEnd {
            var pair = try l.nestedUnkeyedContainer()
            items.append(try pair.decode(String.self))
        }
        list = items
        let n = try c.nestedContainer(keyedBy: NestKeys.self, forKey: .nest)
        inner = try n.decode(Int.self, forKey: .inner)
        #expect(c.allKeys.map(\.stringValue) == ["x", "list", "nest"])
        #expect(c.contains(.x))
        #expect(n.contains(.inner))
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Keys.self)
        try c.encode(x, forKey: .x)
        var l = c.nestedUnkeyedContainer(forKey: .list)
        for item in list {
            var pair = l.nestedUnkeyedContainer()
            try pair.encode(item)
        }
        var n = c.nestedContainer(keyedBy: NestKeys.self, forKey: .nest)
        try n.encode(inner, forKey: .inner)
    }
}

@Test func nestedContainersRoundTrip() throws {
    let value = Manual(x: 1, list: ["a", "b"], inner: 9)
    let bytes = try CourierJSONEncoder().encode(value)
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"x":1,"list":[["a"],["b"]],"nest":{"inner":9}}"#)
    #expect(try CourierJSONDecoder().decode(Manual.self, from: bytes) == value)
}

@Test func duplicateKeysDecodeTheLastValue() throws {
    struct One: Decodable { var a: Int }
    #expect(try CourierJSONDecoder().decode(One.self, from: #"{"a":1,"a":2}"#).a == 2)
    // Also with more members than the linear-search threshold.
    let many = (0..<20).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
    #expect(try CourierJSONDecoder().decode(One.self, from: "{\(many),\"a\":1,\(many),\"a\":3}").a == 3)
}

@Test func jsonValueAndEnumsPassThrough() throws {
    struct Holder: Codable, Equatable { var raw: JSONValue; var kind: Kind }
    enum Kind: String, Codable { case small, large }
    let text = #"{"raw":{"n":1.50E+2,"list":[null,true]},"kind":"large"}"#
    let holder = try CourierJSONDecoder().decode(Holder.self, from: text)
    #expect(holder.kind == .large)
    #expect(holder.raw["n"]?.numberValue?.text == "1.50E+2")
    #expect(String(decoding: try CourierJSONEncoder().encode(holder), as: UTF8.self) == text)
    #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(Holder.self, from: #"{"raw":1,"kind":"medium"}"#) }
}

// MARK: Key strategies

private let toSnake: [(String, String)] = [
    ("simpleOneTwo", "simple_one_two"), ("myURL", "my_url"), ("singleCharacterAtEndX", "single_character_at_end_x"),
    ("thisIsAnXMLProperty", "this_is_an_xml_property"), ("single", "single"), ("", ""), ("a", "a"), ("aA", "a_a"),
    ("version4Thing", "version4_thing"), ("partCAPS", "part_caps"), ("partCAPSLowerAGAIN", "part_caps_lower_again"),
    ("manyWordsInThisThing", "many_words_in_this_thing"), ("asdfĆqer", "asdf_ćqer"),
    ("already_snake_case", "already_snake_case"), ("dataPoint22", "data_point22"), ("dataPoint22Word", "data_point22_word"),
    ("_oneTwoThree", "_one_two_three"), ("oneTwoThree_", "one_two_three_"), ("__oneTwoThree", "__one_two_three"),
    ("oneTwoThree__", "one_two_three__"), ("_oneTwoThree_", "_one_two_three_"), ("__oneTwoThree__", "__one_two_three__"),
    ("_test", "_test"), ("_test_", "_test_"), ("__test", "__test"), ("test__", "test__"),
    ("m\u{349}\u{35F}\u{339}y\u{326}\u{333}G\u{34D}\u{35A}\u{34E}\u{333}r\u{324}\u{349}\u{324}\u{355}\u{345}ea\u{332}\u{355}t\u{347}\u{325}\u{33C}\u{356}U\u{347}\u{31D}\u{320}R\u{359}\u{33B}\u{325}\u{353}\u{323}L\u{325}\u{316}\u{34E}\u{353}\u{32A}\u{32B}\u{345}R\u{329}\u{356}\u{329}eq\u{348}\u{353}u\u{31E}e\u{331}s\u{319}t\u{324}\u{33A}\u{345}",
     "m\u{349}\u{35F}\u{339}y\u{326}\u{333}_g\u{34D}\u{35A}\u{34E}\u{333}r\u{324}\u{349}\u{324}\u{355}\u{345}ea\u{332}\u{355}t\u{347}\u{325}\u{33C}\u{356}_u\u{347}\u{31D}\u{320}r\u{359}\u{33B}\u{325}\u{353}\u{323}l\u{325}\u{316}\u{34E}\u{353}\u{32A}\u{32B}\u{345}_r\u{329}\u{356}\u{329}eq\u{348}\u{353}u\u{31E}e\u{331}s\u{319}t\u{324}\u{33A}\u{345}"),
    ("🐧🐟", "🐧🐟"),
]

private let fromSnake: [(String, String)] = [
    ("", ""), ("a", "a"), ("ALLCAPS", "ALLCAPS"), ("ALL_CAPS", "allCaps"), ("single", "single"),
    ("snake_case", "snakeCase"), ("one_two_three", "oneTwoThree"), ("_one_two_three", "_oneTwoThree"),
    ("one_two_three_", "oneTwoThree_"), ("__one_two_three", "__oneTwoThree"), ("one_two_three__", "oneTwoThree__"),
    ("_one_two_three_", "_oneTwoThree_"), ("__one_two_three__", "__oneTwoThree__"), ("one__two__three", "oneTwoThree"),
    ("_", "_"), ("__", "__"), ("___", "___"), ("snakeCase", "snakeCase"), ("this_is_a_URL", "thisIsAUrl"),
    ("1_2_3", "123"), ("à_la_carte", "àLaCarte"), ("with space_here", "with spaceHere"),
]

@Test("convertToSnakeCase", arguments: toSnake)
private func snakeCaseEncoding(_ key: String, _ expected: String) {
    #expect(JSONKeyConversion.toSnakeCase(key) == expected)
}

@Test("convertFromSnakeCase", arguments: fromSnake)
private func snakeCaseDecoding(_ key: String, _ expected: String) {
    #expect(JSONKeyConversion.fromSnakeCase(key) == expected)
}

@Test func snakeCaseStrategiesRoundTrip() throws {
    struct Profile: Codable, Equatable { var firstName: String; var homePageURL: String; var age: Int }
    var encoder = CourierJSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    let bytes = try encoder.encode(Profile(firstName: "A", homePageURL: "u", age: 3))
    #expect(String(decoding: bytes, as: UTF8.self) == #"{"first_name":"A","home_page_url":"u","age":3}"#)
    var decoder = CourierJSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    // home_page_url → homePageUrl, which does not match homePageURL (as with Foundation).
    #expect(throws: DecodingError.self) { try decoder.decode(Profile.self, from: bytes) }
    struct Simple: Codable, Equatable { var firstName: String; var lastSeenAt: Int }
    let simple = try decoder.decode(Simple.self, from: #"{"first_name":"A","last_seen_at":1}"#)
    #expect(simple == Simple(firstName: "A", lastSeenAt: 1))
}
