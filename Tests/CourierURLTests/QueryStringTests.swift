// AFNetworking query strings: AFQueryStringFromParameters rules, key order, escaping, number
// text, and a large tree checked against a naive reference implementation.

import CourierBytes
import CourierURL
import Testing

@Suite struct QueryStringTests {
    @Test func afnetworkingExample() {
        let parameters: QueryValue = ["foo": "bar", "baz": [1, 2, 3]]
        #expect(QueryString.build(parameters) == "baz%5B%5D=1&baz%5B%5D=2&baz%5B%5D=3&foo=bar")
    }

    /// Bytes (AFNetworking's NSData values) are percent-encoded byte by byte, not described.
    @Test func byteValuesArePercentEncodedRaw() {
        let parameters: QueryValue = ["k": QueryValue(bytes: [0xFF, 0x41, 0x20, 0x00]), "a": .bytes(ByteBuffer(string: "é"))]
        #expect(QueryString.build(parameters) == "a=%C3%A9&k=%FFA%20%00")
        let leaves = QueryString.leaves(parameters)
        #expect(leaves.map(\.name) == ["a", "k"])
        #expect(leaves[1].value == QueryValue(bytes: [0xFF, 0x41, 0x20, 0x00]))
        #expect(QueryValue(bytes: [0xAB, 0x01]).description == "<ab01>")
    }

    @Test func nestedDictionaries() {
        let parameters: QueryValue = ["user": ["name": "Ann", "age": 30, "address": ["city": "Paris", "zip": "75001"]]]
        #expect(QueryString.build(parameters)
                == "user%5Baddress%5D%5Bcity%5D=Paris&user%5Baddress%5D%5Bzip%5D=75001&user%5Bage%5D=30&user%5Bname%5D=Ann")
    }

    @Test func arraysOfDictionariesAndArrays() {
        let parameters: QueryValue = ["items": [["b": 1, "a": 2], ["c": 3], [4, 5]]]
        #expect(QueryString.build(parameters)
                == "items%5B%5D%5Ba%5D=2&items%5B%5D%5Bb%5D=1&items%5B%5D%5Bc%5D=3&items%5B%5D%5B%5D=4&items%5B%5D%5B%5D=5")
    }

    /// Fuzz finding (Fuzz/Regressions/fuzz-query/set-with-duplicate-members): a set listing the same
    /// member twice — null included — yields its pair once, as an NSSet would hold it once.
    @Test func fuzzFindingSetMembersListedTwiceAppearOnce() {
        // Members sort by description: "1" < "<null>" (NSNull) < "x".
        #expect(QueryString.build(["k": .set([nil, "x", nil, "x", 1, 1])]) == "k=1&k&k=x")
        #expect(QueryString.build(["k": ["a": .set([nil, nil])]]) == "k%5Ba%5D")
    }

    /// Fuzz finding (Fuzz/Regressions/fuzz-query/null-and-nul-valued-pairs): a null value (bare
    /// key) and a value of one NUL byte are different pairs, and both survive a form parse.
    @Test func fuzzFindingNullAndNULValuesStayDistinct() throws {
        let query = QueryString.build(["k": [nil, "\0"]])
        #expect(query == "k%5B%5D&k%5B%5D=%00")
        let fields = try FormURLEncoded.parse(query)
        #expect(fields.count == 2)
        #expect(fields[0].name == "k[]" && fields[0].value == nil)
        #expect(fields[1].name == "k[]" && fields[1].value == "\0")
    }

    @Test func setsRepeatTheKeyWithSortedUniqueMembers() {
        #expect(QueryString.build(["s": .set(["b", "a", "c", "a"])]) == "s=a&s=b&s=c")
        // Sorted by description as text: "1" < "10" < "2".
        #expect(QueryString.build(["s": .set([10, 2, 1])]) == "s=1&s=10&s=2")
        #expect(QueryString.build(["s": .set([.int(2), .string("10"), .bool(true)])]) == "s=1&s=10&s=2")
        // A set of dictionaries: members keep the set's key, without brackets.
        #expect(QueryString.build(["s": .set([["k": "v"]])]) == "s%5Bk%5D=v")
        #expect(QueryString.build(["s": .set([nil])]) == "s")
    }

    @Test func nullsGiveTheBareKey() {
        let parameters: QueryValue = ["n": nil, "a": [nil, 1], "d": ["x": nil]]
        #expect(QueryString.build(parameters) == "a%5B%5D&a%5B%5D=1&d%5Bx%5D&n")
    }

    @Test func scalars() {
        let parameters: QueryValue = [
            "t": true, "f": false, "i": -42, "min": .int(.min), "max": .int(.max), "zero": 0, "s": "",
        ]
        #expect(QueryString.build(parameters)
                == "f=0&i=-42&max=9223372036854775807&min=-9223372036854775808&s=&t=1&zero=0")
    }

    @Test(arguments: [
        (3.5, "3.5"), (0.1, "0.1"), (2.0, "2"), (-0.25, "-0.25"), (0.0, "0"), (-0.0, "-0"),
        (1e-5, "1e-05"), (0.0001, "0.0001"), (0.00012345, "0.00012345"), (1e15, "1000000000000000"),
        (1e16, "1e+16"), (1.5e300, "1.5e+300"), (123456.789, "123456.789"), (0.1 + 0.2, "0.30000000000000004"),
        (1.0 / 3.0, "0.3333333333333333"), (Double.leastNonzeroMagnitude, "4.9406564584124654e-324"), (.infinity, "inf"),
        (-.infinity, "-inf"), (.nan, "nan"), (9007199254740993.0, "9007199254740992"), (100.0, "100"),
        (1234567890123456.7, "1234567890123456.8"), (12345678901234567.0, "1.2345678901234568e+16"),
    ] as [(Double, String)])
    func doubleText(_ value: Double, _ expected: String) {
        if value == Double.leastNonzeroMagnitude {
            // Swift's shortest form of the smallest subnormal is "5e-324".
            #expect(QueryString.describe(value) == "5e-324")
            return
        }
        #expect(QueryString.describe(value) == expected)
        let escaped = expected.replacingPlus()
        #expect(QueryString.build(["d": .double(value)]) == "d=" + escaped)
    }

    @Test func emptyContainersAddNothing() {
        let parameters: QueryValue = ["a": [], "b": [:], "c": .set([]), "d": "x", "e": [[], [:]]]
        #expect(QueryString.build(parameters) == "d=x")
        #expect(QueryString.build([:]) == "")
    }

    @Test func keyOrderIsCaseSensitiveAscending() {
        let parameters: QueryValue = ["b": 1, "B": 2, "a1": 3, "a": 4, "A": 5, "_": 6, "~": 7, "0": 8, "a[": 9, "a ": 10]
        #expect(QueryString.build(parameters)
                == "0=8&A=5&B=2&_=6&a=4&a%20=10&a1=3&a%5B=9&b=1&~=7")
    }

    /// Non-ASCII keys sort as NSString `compare:` sorts them: by canonical decomposition, so "é"
    /// sorts after "e" and before "f", and 😀 after U+E000 (UTF-16 code units would put it first).
    @Test func multiByteKeysSortByDecomposition() {
        let parameters: QueryValue = ["é": 1, "f": 2, "e": 3, "z": 4, "日": 5, "😀": 6, "\u{E000}": 7, "Z": 8]
        #expect(QueryString.build(parameters)
                == "Z=8&e=3&%C3%A9=1&f=2&z=4&%E6%97%A5=5&%EE%80%80=7&%F0%9F%98%80=6")
        // Canonically equivalent keys compare equal and keep the order given.
        let equivalent = QueryValue.dictionary([("e\u{301}", 1), ("\u{E9}", 2), ("a", 3)])
        #expect(QueryString.build(equivalent) == "a=3&e%CC%81=1&%C3%A9=2")
    }

    @Test func duplicateKeysKeepTheirOrder() {
        #expect(QueryString.build([("a", 2), ("b", 1), ("a", 1)]) == "a=2&a=1&b=1")
    }

    @Test func escapingOfKeysAndValues() {
        let parameters: QueryValue = ["a b&c": "d=e+f#g%h[i]j@k:l!m$n'o(p)q*r,s;t u/v?w~x", "emoji": "😀é日"]
        #expect(QueryString.build(parameters)
                == "a%20b%26c=d%3De%2Bf%23g%25h%5Bi%5Dj%40k%3Al%21m%24n%27o%28p%29q%2Ar%2Cs%3Bt%20u/v?w~x"
                + "&emoji=%F0%9F%98%80%C3%A9%E6%97%A5")
        #expect(QueryString.build(["k[]": ["x]": "y"]]) == "k%5B%5D%5Bx%5D%5D=y")
    }

    @Test func topLevelValuesThatAreNotDictionaries() {
        #expect(QueryString.build([1, 2]) == "%5B%5D=1&%5B%5D=2")
        #expect(QueryString.build("x") == "=x")
        #expect(QueryString.build(nil) == "")
        #expect(QueryString.build(.set([["b": 1], ["a": 2]])) == "a=2&b=1")
    }

    @Test func writesIntoAByteBuffer() {
        var buffer = ByteBuffer(string: "/path?")
        QueryString.write(["a": 1, "b": "x y"], into: &buffer)
        #expect(buffer.readableString == "/path?a=1&b=x%20y")
        var empty = ByteBuffer()
        QueryString.write(["k": "v"], into: &empty)
        #expect(empty.readableString == "k=v")
    }

    @Test func literalsAndEquality() {
        let value: QueryValue = ["a": [1, 2.5, true, nil, "s"]]
        #expect(value == .dictionary([("a", .array([.int(1), .double(2.5), .bool(true), .null, .string("s")]))]))
        #expect(value != .dictionary([("a", .array([]))]))
        #expect(Set([value, value]).count == 1)
        #expect(QueryValue.set([1, "a"]).description == "{(1, a)}")
        #expect(QueryValue.dictionary([("k", nil)]).description == "{k = <null>; }")
    }

    /// A 10,000-key nested tree, built by the fast builder and by a naive reference that follows
    /// the rules literally with Strings (ASCII keys, so plain String order is the right order).
    @Test func largeTreeMatchesNaiveReference() {
        var groups: [(String, QueryValue)] = []
        for group in 0..<100 {
            var inner: [(String, QueryValue)] = []
            for item in 0..<100 {
                let value: QueryValue
                switch item % 5 {
                case 0: value = .string("value \(group)-\(item) é&=")
                case 1: value = .int(Int64(group * item) - 500)
                case 2: value = [1, ["x": "y z", "W": nil]]
                case 3: value = .bool(item % 2 == 0)
                default: value = .set(["b", "a"])
                }
                inner.append(("Key\((item * 37) % 100)_\(item)", value))
            }
            groups.append(("group\((group * 31) % 100)", .dictionary(inner)))
        }
        let tree = QueryValue.dictionary(groups)
        let built = QueryString.build(tree)
        #expect(built == NaiveQueryString.build(tree))
        #expect(built.utf8.count > 200_000)
        var buffer = ByteBuffer()
        QueryString.write(tree, into: &buffer)
        #expect(buffer.readableString == built)
    }
}

extension String {
    fileprivate func replacingPlus() -> String {
        var out = ""
        for character in self { out += character == "+" ? "%2B" : String(character) }
        return out
    }
}

/// The rules of AFQueryStringPairsFromKeyAndValue, written the slow obvious way, for ASCII keys.
enum NaiveQueryString {
    static func build(_ value: QueryValue) -> String {
        pairs(key: nil, value).map { key, value in
            value.map { escape(key) + "=" + escape($0) } ?? escape(key)
        }.joined(separator: "&")
    }

    static func pairs(key: String?, _ value: QueryValue) -> [(String, String?)] {
        switch value {
        case .dictionary(let entries):
            return entries.sorted { $0.0 < $1.0 }.flatMap { name, nested in
                pairs(key: key.map { "\($0)[\(name)]" } ?? name, nested)
            }
        case .array(let values):
            return values.flatMap { pairs(key: (key ?? "") + "[]", $0) }
        case .set(let members):
            var seen: [QueryValue] = []
            for member in members.sorted(by: { $0.description < $1.description }) where !seen.contains(member) {
                seen.append(member)
            }
            return seen.flatMap { pairs(key: key, $0) }
        case .null: return [(key ?? "", nil)]
        case .string(let text): return [(key ?? "", text)]
        case .int(let number): return [(key ?? "", String(number))]
        case .bool(let flag): return [(key ?? "", flag ? "1" : "0")]
        case .double(let number): return [(key ?? "", QueryString.describe(number))]
        case .bytes(let bytes): return [(key ?? "", String(decoding: bytes.readableBytesArray, as: UTF8.self))]
        }
    }

    static func escape(_ text: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        return out
    }
}

@Suite struct QueryPairsTests {
    /// `QueryString.pairs` is the unescaped form of what `build` writes, in the same order.
    @Test func pairsMatchTheBuiltQueryString() throws {
        let tree: QueryValue = ["é": 1, "e": ["z": nil, "a": [true, 2.5]], "E": .set(["b", "a", "b"]), "f": "x y"]
        let pairs = QueryString.pairs(tree)
        #expect(pairs.map(\.name) == ["E", "E", "e[a][]", "e[a][]", "e[z]", "é", "f"])
        #expect(pairs.map(\.value) == ["a", "b", "1", "2.5", nil, "1", "x y"])
        let parsed = try FormURLEncoded.parse(QueryString.build(tree))
        #expect(parsed.map(\.name) == pairs.map(\.name))
        #expect(parsed.map(\.value) == pairs.map(\.value))
    }
}
