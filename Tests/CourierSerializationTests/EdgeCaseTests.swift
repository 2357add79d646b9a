import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierURL
import Testing
@testable import Courier

@Suite struct SerializerEdgeCaseTests {
    @Test func charsetNames() {
        #expect(TextCharset(name: "UTF8") == .utf8)
        #expect(TextCharset(name: "Latin1") == .isoLatin1)
        #expect(TextCharset(name: "ISO_8859-1") == .isoLatin1)
        #expect(TextCharset(name: "US-ASCII") == .usASCII)
        #expect(TextCharset(name: "utf-16") == nil)
        #expect(TextCharset(name: "windows-1252") == nil)
    }

    @Test func utf8Validation() {
        let cases: [([UInt8], Int?)] = [
            ([0x61, 0xE2, 0x82, 0xAC], nil),          // "a€"
            ([0xF0, 0x9F, 0x98, 0x80], nil),          // 😀
            ([0xC0, 0x80], 0),                        // overlong NUL
            ([0xE0, 0x80, 0x80], 0),                  // overlong
            ([0xF4, 0x90, 0x80, 0x80], 0),            // above U+10FFFF
            ([0x61, 0x80], 1),                        // stray continuation
            ([0x61, 0x62, 0xF0, 0x9F, 0x98], 2),      // cut short
        ]
        for (bytes, expected) in cases {
            #expect(bytes.withUnsafeBytes { UTF8Check.firstInvalidOffset($0) } == expected, "\(bytes)")
        }
    }

    @Test func fragmentIsKeptAfterTheQuery() throws {
        let request = try FormRequestSerializer().request(method: .get, uri: URI(parsing: "http://a/p#top"), parameters: ["k": "v"])
        #expect(request.uri.description == "http://a/p?k=v#top")
    }

    @Test func prettyJSONBody() throws {
        let serializer = JSONRequestSerializer(writingOptions: [.prettyPrinted, .sortedKeys])
        let request = try serializer.request(method: .patch, uri: URI(parsing: "http://a/"), parameters: ["b": 1, "a": [true]])
        #expect(request.body.bytes?.readableString == "{\n  \"a\": [\n    true\n  ],\n  \"b\": 1\n}")
    }

    @Test func hugeJSONNumbersGoToTheQueryAsText() throws {
        let request = try JSONRequestSerializer().request(method: .get, uri: URI(parsing: "http://a/"), parameters: ["n": .number(JSONNumber(text: "1e400")!), "m": .number(JSONNumber(text: "12345678901234567890")!)])
        #expect(request.uri.query == "m=12345678901234567890&n=1e400")
    }

    @Test func xmlWhitespaceAndLineEnds() throws {
        let events = try XMLParser().events(Array("<a>\r\n <b x='1&#10;2'/>\n</a>".utf8))
        #expect(events == [
            .startElement(name: "a", attributes: []),
            .text("\r\n "),
            .startElement(name: "b", attributes: [XMLAttribute(name: "x", value: "1\n2")]),
            .endElement(name: "b"),
            .text("\n"),
            .endElement(name: "a"),
        ])
    }

    @Test func nestedCodeLookup() {
        let head = HTTPResponseHead(status: 500, headers: ["Content-Type": "text/html"])
        let inner = ResponseSerializationError(.unacceptableContentType, head: head, body: ByteBuffer())
        let outer = ResponseSerializationError(.unacceptableStatusCode, head: head, body: ByteBuffer(), underlying: inner)
        #expect(outer.hasCode(.unacceptableContentType))
        #expect(outer.hasCode(.unacceptableStatusCode))
        #expect(!outer.hasCode(.invalidJSON))
        #expect(ResponseSerializationError.Code.invalidJSON.afNetworkingCode == ResponseSerializationError.Code.invalidPropertyList.afNetworkingCode)
        #expect(ResponseSerializationError.Code.invalidJSON != ResponseSerializationError.Code.invalidPropertyList)
    }

    @Test func defaultsEditing() throws {
        var serializer = FormRequestSerializer()
        serializer.setValue("a", forHeader: "X-One")
        serializer.setValue("b", forHeader: "x-one")
        #expect(serializer.defaults.headers["X-ONE"] == ["b"])
        serializer.setValue(nil, forHeader: "X-ONE")
        #expect(!serializer.defaults.headers.contains(name: "x-one"))
        #expect(serializer.defaults.encodesParametersInURI(try HTTPMethod("Delete")))
        #expect(!serializer.defaults.encodesParametersInURI(.options))
    }
}
