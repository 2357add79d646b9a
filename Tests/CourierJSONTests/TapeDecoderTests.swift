// The tape decoder (bytes → Decodable, no tree) against the tree decoder (JSONValue → Decodable):
// the same values and the same errors (kind, coding path) on the same texts.

import Testing
@testable import CourierJSON

private struct Record: Codable, Equatable {
    struct User: Codable, Equatable { var id: Int; var name: String; var verified: Bool?; var tags: [String] }
    var id: Int64
    var text: String
    var score: Double
    var small: UInt8?
    var user: User
    var history: [Double?]
    var created: Timestamp
    var extra: JSONValue?
}

private struct Failure: Error, Equatable { var text: String }

private func bothWays<T: Decodable & Equatable>(_ type: T.Type, _ text: String, _ decoder: CourierJSONDecoder = CourierJSONDecoder()) -> (Result<T, Failure>, Result<T, Failure>) {
    func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "\(error)" }
        switch error {
        case .keyNotFound(let key, let context): return "keyNotFound \(key.stringValue) \(context.codingPath.map(\.stringValue))"
        case .valueNotFound(_, let context): return "valueNotFound \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case .typeMismatch(_, let context): return "typeMismatch \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        case .dataCorrupted(let context): return "dataCorrupted \(context.codingPath.map(\.stringValue)) \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }
    let tape: Result<T, Failure>
    do { tape = .success(try decoder.decode(T.self, from: text)) } catch { tape = .failure(Failure(text: describe(error))) }
    let tree: Result<T, Failure>
    do { tree = .success(try decoder.decode(T.self, from: try JSONParser().parse(text))) } catch { tree = .failure(Failure(text: describe(error))) }
    return (tape, tree)
}

@Test func tapeAndTreeDecodersAgree() {
    let good = #"{"user":{"tags":["a","b"],"name":"n","id":3},"id":9007199254740993,"text":"t\u00e9","score":1.5e2,"small":200,"history":[1,null,2.5],"created":1700000000.5,"extra":{"x":[1,{"y":null}]}}"#
    let (tape, tree) = bothWays(Record.self, good)
    #expect(tape == tree)
    #expect((try? tape.get())?.id == 9_007_199_254_740_993)
    #expect((try? tape.get())?.extra == ["x": [1, ["y": nil]]])
    let cases = [
        #"{"id":1}"#,                                                    // key not found
        #"{"user":{"tags":[],"name":"n","id":1},"id":1,"text":"t","score":1,"small":300,"history":[],"created":0}"#,  // range
        #"{"user":{"tags":[1],"name":"n","id":1},"id":1,"text":"t","score":1,"history":[],"created":0}"#,             // mismatch in array
        #"{"user":{"tags":[],"name":null,"id":1},"id":1,"text":"t","score":1,"history":[],"created":0}"#,             // null
        #"{"user":{"tags":[],"name":"n","id":1.5},"id":1,"text":"t","score":1,"history":[],"created":0}"#,            // not an integer
        #"{"user":[],"id":1,"text":"t","score":1,"history":[],"created":0}"#,                                          // wrong container
        #"{"user":{"tags":[],"name":"n","id":1},"id":1,"text":"t","score":1e400,"history":[],"created":0}"#,          // overflow
        #"{"user":{"tags":[],"name":"n","id":1},"id":1,"id":2,"text":"t","score":1,"history":[],"created":0}"#,       // repeated name
    ]
    for text in cases {
        let (tape, tree) = bothWays(Record.self, text)
        #expect(tape == tree, "\(text)")
    }
}

@Test func snakeCaseAndInOrderLookups() throws {
    struct Snake: Codable, Equatable { var userName: String; var screenName: String; var followersCount: Int }
    var decoder = CourierJSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    let (tape, tree) = bothWays(Snake.self, #"{"followers_count":3,"screen_name":"s","user_name":"u"}"#, decoder)
    #expect(tape == tree)
    #expect(try tape.get() == Snake(userName: "u", screenName: "s", followersCount: 3))
    // Keys asked for out of order, and a key whose spelling needs unescaping.
    struct Plain: Codable, Equatable { var a: Int; var b: Int; var c: String }
    let plain = try CourierJSONDecoder().decode(Plain.self, from: #"{"c":"x","b":2,"\u0061":1}"#)
    #expect(plain == Plain(a: 1, b: 2, c: "x"))
    // Arrays of records reuse one decoder; every element is read.
    let many = "[" + (0..<500).map { #"{"c":"\#($0)","a":\#($0),"b":\#($0 * 2)}"# }.joined(separator: ",") + "]"
    let decoded = try CourierJSONDecoder().decode([Plain].self, from: many)
    #expect(decoded.count == 500 && decoded[499] == Plain(a: 499, b: 998, c: "499"))
}

@Test func documentsDecodeDirectly() throws {
    let document = try JSONDocument(parsing: #"{"list":[1,2,3],"name":"x"}"#)
    struct Shape: Decodable, Equatable { var list: [Int]; var name: String }
    #expect(try CourierJSONDecoder().decode(Shape.self, from: document) == Shape(list: [1, 2, 3], name: "x"))
    #expect(try CourierJSONDecoder().decode([Int].self, from: document.root["list"]!) == [1, 2, 3])
}
