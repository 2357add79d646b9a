import Testing
@testable import CourierJSON

@Test func smoke() throws {
    let v = try JSONParser.parse(Array("{\"a\":[1,null,\"x\\u00e9\"]}".utf8))
    #expect(JSONWriter.string(v) == "{\"a\":[1,null,\"xé\"]}")
}
