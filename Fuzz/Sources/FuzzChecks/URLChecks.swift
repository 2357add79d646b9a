// Checks for CourierURL: URI parse/serialise/resolve round trips, percent-encoding round trips,
// and query strings whose form-parse gives back the pairs AFNetworking's flattening produces.
import CourierBytes
import CourierURL

extension FuzzChecks {
    static let resolutionBase = try! URI(parsing: "http://a/b/c/d;p?q")

    /// Parsing never traps; a parsed URI serialises to text that parses to the same URI; resolving
    /// it against a fixed base gives a URI that survives the same round trip.
    public static func uri(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let parsed: URI
        do {
            parsed = try URI(parsing: bytes)
        } catch {
            require(error.offset >= 0 && error.offset <= bytes.count, "URI error offset \(error.offset) outside input of \(bytes.count)")
            return
        }
        let text = parsed.description
        let again = try? URI(parsing: text)
        require(again == parsed, "serialise → parse changed the URI: \(text)")
        require(again?.description == text, "serialisation is not stable: \(text)")
        let resolved = resolutionBase.resolving(parsed)
        if resolved.isHTTP, resolved.host?.text.isEmpty == true {
            // RFC 3986 resolution can give an http URI with an empty host ("///p" against an http
            // base); its text is not accepted by the parser (RFC 9110 §4.2.1), and it must never be
            // requested (Fuzz/Regressions/fuzz-uri/empty-authority-reference).
            require((try? resolved.validateForHTTP()) == nil, "an http URI with an empty host passed validateForHTTP")
            return
        }
        let reparsed = try? URI(parsing: resolved.description)
        if resolved.host == nil, resolved.path.hasPrefix("//") {
            // A path starting with "//" and no authority is written with a "/." prefix so that it is
            // not read as an authority (RFC 3986 §5.3 leaves this open; the WHATWG URL Standard's
            // fix). Parsing does not remove dot segments, so the "/." comes back as part of the
            // path (Fuzz/Regressions/fuzz-uri/double-slash-path-without-authority).
            require(reparsed?.path == "/." + resolved.path, "a '//' path did not come back behind '/.': \(resolved)")
            require(reparsed.map { URI.removeDotSegments($0.path) } == resolved.path, "'/.' prefix is not a dot segment")
            return
        }
        require(reparsed == resolved, "resolved URI does not round trip: \(resolved)")
        require(resolved.isAbsolute, "resolution against an absolute base gave a relative URI")
    }

    static let encodingSets: [PercentEncodingSet] = [
        .afnetworkingQueryComponent, .unreserved, .pathSegment, .path, .query, .fragment, .userinfo,
    ]

    /// decode(encode(x)) == x for any bytes; the encoded form holds only allowed bytes and
    /// upper-case `%XX`; decoding arbitrary input fails with an offset inside it or succeeds.
    public static func percentEncoding(_ input: UnsafeRawBufferPointer) {
        guard let selector = input.first else { return }
        let set = encodingSets[Int(selector) % encodingSets.count]
        let payload = UnsafeRawBufferPointer(rebasing: input.dropFirst())
        let encoded = PercentEncoding.encode(payload, allowing: set)
        let encodedBytes = Array(encoded.utf8)
        require(PercentEncoding.encodedCount(of: payload, allowing: set) == encodedBytes.count, "encodedCount disagrees with encode")
        var i = 0
        while i < encodedBytes.count {
            let byte = encodedBytes[i]
            if byte == UInt8(ascii: "%") {
                require(i + 2 < encodedBytes.count + 0 || i + 2 == encodedBytes.count - 0 || i + 2 <= encodedBytes.count - 1, "truncated escape")
                let hi = encodedBytes[i + 1], lo = encodedBytes[i + 2]
                let upperHex: (UInt8) -> Bool = { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x46) }
                require(upperHex(hi) && upperHex(lo), "escape is not upper-case hex")
                i += 3
            } else {
                require(set.allows(byte), "byte \(byte) left unescaped but not in the set")
                i += 1
            }
        }
        let decoded = try? PercentEncoding.decode(encoded)
        require(decoded == Array(payload), "decode(encode(x)) != x")
        // The vector encoder (16 bytes per step) against a byte-by-byte reference; repeated so
        // that short inputs reach the vector loop too.
        let long = Array(repeating: Array(payload), count: payload.count < 48 ? 4 : 1).joined()
        var reference: [UInt8] = []
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in long {
            if set.allows(byte) { reference.append(byte) } else { reference += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
        }
        let vector = Array(long).withUnsafeBytes { Array(PercentEncoding.encode($0, allowing: set).utf8) }
        require(vector == reference, "vector percent-encoding differs from the byte-by-byte reference")

        do {
            _ = try PercentEncoding.decode(input)
        } catch {
            require(error.offset >= 0 && error.offset < input.count, "decode error offset \(error.offset) outside input")
        }
        _ = try? FormURLEncoded.parse(input)
    }

    /// A parameter tree chosen by the input builds a query string made only of allowed bytes,
    /// `&` and `=`, whose form-parse gives back exactly the pairs of AFNetworking's flattening.
    public static func queryString(_ input: UnsafeRawBufferPointer) {
        var cursor = ByteCursor(input)
        let tree = QueryValue.dictionary(cursor.members(depth: 0))
        let query = QueryString.build(tree)
        for byte in query.utf8 where byte != UInt8(ascii: "&") && byte != UInt8(ascii: "=") && byte != UInt8(ascii: "%") {
            require(PercentEncodingSet.afnetworkingQueryComponent.allows(byte), "query holds unescaped byte \(byte): \(query)")
        }
        var expected: [Pair] = []
        flatten(nil, tree, into: &expected)
        let parsed: [Pair]
        do {
            parsed = try FormURLEncoded.parse(query).map { Pair(name: $0.name, value: $0.value) }
        } catch {
            fatalError("a built query string does not parse: \(error) in \(query)")
        }
        require(parsed.sorted() == expected.sorted(), "query pairs differ:\n\(parsed.sorted())\nexpected\n\(expected.sorted())")
    }

    struct Pair: Comparable, CustomStringConvertible {
        var name: String
        var value: String?
        static func < (a: Pair, b: Pair) -> Bool {
            (a.name, a.value == nil ? 0 : 1, a.value ?? "") < (b.name, b.value == nil ? 0 : 1, b.value ?? "")
        }
        var description: String { value.map { "\(name.debugDescription)=\($0.debugDescription)" } ?? name.debugDescription }
    }

    /// AFNetworking's flattening, written plainly (order aside: the check compares multisets).
    static func flatten(_ key: String?, _ value: QueryValue, into pairs: inout [Pair]) {
        switch value {
        case .dictionary(let members):
            for (k, v) in members { flatten(key.map { "\($0)[\(k)]" } ?? k, v, into: &pairs) }
        case .array(let elements):
            for v in elements { flatten((key ?? "") + "[]", v, into: &pairs) }
        case .set(let members):
            // A set holds each member once (NSSet), however often the caller listed it.
            var seen = Set<QueryValue>()
            for v in members where seen.insert(v).inserted { flatten(key, v, into: &pairs) }
        case .null: pairs.append(Pair(name: key ?? "", value: nil))
        case .bool(let b): pairs.append(Pair(name: key ?? "", value: b ? "1" : "0"))
        case .int(let i): pairs.append(Pair(name: key ?? "", value: String(i)))
        case .double(let d): pairs.append(Pair(name: key ?? "", value: QueryString.describe(d)))
        case .string(let s): pairs.append(Pair(name: key ?? "", value: s))
        case .bytes(let b): pairs.append(Pair(name: key ?? "", value: String(decoding: b.readableBytesArray, as: UTF8.self)))
        }
    }
}

/// Reads fuzz bytes as a tree of query parameters.
struct ByteCursor {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    mutating func next() -> UInt8 {
        guard index < bytes.count else { return 0 }
        defer { index += 1 }
        return bytes[index]
    }

    mutating func string() -> String {
        let count = Int(next() % 8)
        var raw: [UInt8] = []
        for _ in 0..<count { raw.append(next()) }
        return String(decoding: raw, as: UTF8.self)
    }

    mutating func members(depth: Int) -> [(String, QueryValue)] {
        var out: [(String, QueryValue)] = []
        let count = depth == 0 ? 1 + Int(next() % 16) : Int(next() % 4)
        for _ in 0..<count where index < bytes.count {
            out.append(("k" + string(), value(depth: depth + 1)))
        }
        return out
    }

    mutating func scalar() -> QueryValue {
        switch next() % 5 {
        case 0: return .int(Int64(truncatingIfNeeded: UInt64(next()) << 40 | UInt64(next())) - 1000)
        case 1: return .bool(next() & 1 == 1)
        case 2: return .null
        default: return .string(string())
        }
    }

    mutating func value(depth: Int) -> QueryValue {
        guard depth < 5 else { return scalar() }
        switch next() % 8 {
        case 0: return .array((0..<Int(next() % 4)).map { _ in value(depth: depth + 1) })
        case 1: return .dictionary(members(depth: depth))
        case 2: return .set((0..<Int(next() % 3)).map { _ in scalar() })
        default: return scalar()
        }
    }
}
