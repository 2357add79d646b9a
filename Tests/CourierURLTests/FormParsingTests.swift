// application/x-www-form-urlencoded parsing: splitting, "+" as space, strict decoding with offsets
// in the whole input, truncations, and round trips with the query builder.

import CourierBytes
import CourierURL
import Testing

@Suite struct FormParsingTests {
    static func flatten(_ fields: [FormURLEncoded.Field]) -> [String] {
        fields.map { field in field.value.map { "\(field.name)=\($0)" } ?? "\(field.name)<nil>" }
    }

    @Test(arguments: [
        ("", [String]()),
        ("a=1", ["a=1"]),
        ("a=1&b=2", ["a=1", "b=2"]),
        ("a", ["a<nil>"]),
        ("a=", ["a="]),
        ("=", ["="]),
        ("=v", ["=v"]),
        ("a=b=c", ["a=b=c"]),
        ("a&&b", ["a<nil>", "b<nil>"]),
        ("&a&", ["a<nil>"]),
        ("&&&", []),
        ("x+y=a+b", ["x y=a b"]),
        ("x%2By=a%2Bb", ["x+y=a+b"]),
        ("%26=%3D", ["&=="]),
        ("name=%C3%A9t%C3%A9+%F0%9F%98%80", ["name=été 😀"]),
        ("a=1&a=2", ["a=1", "a=2"]),
        ("k%5B%5D=1&k%5B%5D=2", ["k[]=1", "k[]=2"]),
        ("%00=%0A", ["\0=\n"]),
    ] as [(String, [String])])
    func parses(_ input: String, _ expected: [String]) throws {
        #expect(Self.flatten(try FormURLEncoded.parse(input)) == expected)
        #expect(Self.flatten(try FormURLEncoded.parse(ByteBuffer(string: input))) == expected)
    }

    @Test(arguments: [
        ("a=%", PercentDecodingError.Code.malformedPercentEncoding, 2),
        ("a=1&b=%4", .malformedPercentEncoding, 6),
        ("a=1&%zz=2", .malformedPercentEncoding, 4),
        ("ok=1&bad=%G1&x", .malformedPercentEncoding, 9),
        ("a=%FF", .invalidUTF8, 2),
        ("abc=1&d%C3=1", .invalidUTF8, 7),
        ("a=1&b=x%E2%82", .invalidUTF8, 7),
    ] as [(String, PercentDecodingError.Code, Int)])
    func rejects(_ input: String, _ code: PercentDecodingError.Code, _ offset: Int) {
        #expect(throws: PercentDecodingError(code, offset: offset)) { try FormURLEncoded.parse(input) }
    }

    @Test func offsetsAreRelativeToTheBufferReaderIndex() {
        var buffer = ByteBuffer(string: "junk:a=%zz")
        buffer.moveReaderIndex(forwardBy: 5)
        #expect(throws: PercentDecodingError(.malformedPercentEncoding, offset: 2)) { try FormURLEncoded.parse(buffer) }
    }

    /// Parsing what the query builder wrote gives the flattened pairs back.
    @Test func roundTripWithQueryBuilder() throws {
        let parameters: QueryValue = ["name": "Zoë & co = 100% + more", "tags": ["a b", "c/d?"], "n": nil, "x": ["y": 1]]
        let fields = try FormURLEncoded.parse(QueryString.build(parameters))
        #expect(Self.flatten(fields) == ["n<nil>", "name=Zoë & co = 100% + more", "tags[]=a b", "tags[]=c/d?", "x[y]=1"])
    }

    /// Every truncation of a valid body either parses or fails with a typed error inside the
    /// prefix; a cut never changes the fields before the cut.
    @Test func everyTruncation() throws {
        let body = "first=%C3%A9t%C3%A9&second=a+b&third&fourth=%F0%9F%98%80"
        let bytes = Array(body.utf8)
        let full = try FormURLEncoded.parse(body)
        #expect(full.count == 4)
        for end in 0...bytes.count {
            let prefix = Array(bytes[0..<end])
            do {
                let fields = try prefix.withUnsafeBytes { try FormURLEncoded.parse($0) }
                // All fields but the last are complete and equal to the full parse.
                for (index, field) in fields.dropLast().enumerated() {
                    #expect(field.name == full[index].name && field.value == full[index].value)
                }
            } catch let error as PercentDecodingError {
                #expect(error.offset < end)
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }

    @Test func hostileInputs() throws {
        // Many separators, a huge name, stray "%" at the very end.
        #expect(try FormURLEncoded.parse(String(repeating: "&", count: 10_000)).isEmpty)
        let long = String(repeating: "a", count: 100_000)
        #expect(try FormURLEncoded.parse(long + "=1").first?.name == long)
        #expect(throws: PercentDecodingError(.malformedPercentEncoding, offset: 100_002)) {
            try FormURLEncoded.parse(long + "=1%")
        }
        // Raw non-ASCII and control bytes are passed through when they are UTF-8.
        #expect(Self.flatten(try FormURLEncoded.parse("é=\t")) == ["é=\t"])
        #expect(throws: PercentDecodingError(.invalidUTF8, offset: 0)) {
            try [UInt8]([0xFF, UInt8(ascii: "=")]).withUnsafeBytes { try FormURLEncoded.parse($0) }
        }
    }
}
