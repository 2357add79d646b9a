// The JSON document the JSON benchmarks parse, and the Foundation peers they are measured beside.
// Foundation is allowed here (a benchmark package), never in the library's Sources/.
import Foundation

/// A deterministic API-like JSON document of about `bytes` bytes: a top-level object with paging
/// fields and an array of records, each a nested object as a social or commerce API returns them —
/// ids, names, texts with escapes (`\"`, `\\`, `\n`, `\u00e9`, a surrogate pair) and raw UTF-8,
/// integers, negative and fractional numbers, exponents, Booleans, arrays of tags and of numbers,
/// nested objects, and many nulls (about one value in six), some inside arrays.
public func apiDocument(bytes: Int) -> [UInt8] {
    var rng = XorShift(seed: 0xC0FF_EE12_3456_789B)
    var out = ""
    out.reserveCapacity(bytes + 4096)
    out += "{\"status\":\"ok\",\"page\":{\"number\":1,\"size\":100,\"total\":null,\"cursor\":\"eyJpZCI6MTIzfQ==\"},\"data\":["
    let texts: [String] = [
        "Just setting up my account",
        "Quote: \\\"to be or not to be\\\" \\u2014 Hamlet",
        "path C:\\\\Users\\\\me\\\\file.txt",
        "line one\\nline two\\ttabbed",
        "caf\\u00e9 au lait \\u00e0 Paris",
        "emoji \\ud83d\\ude00 and more",
        "日本語のテキストです",
        "Ελληνικά και ελληνικά",
        "naïve façade déjà vu",
        "https://example.com/a/b?c=d&e=f",
        "a longer description of a product that goes on for a while, as product descriptions do, with numbers 12345 and punctuation!",
    ]
    let names = ["alice", "bob", "carol", "dave", "eve", "mallory", "trent", "peggy", "victor", "walter"]
    let tags = ["swift", "linux", "http", "json", "perf", "server", "client", "tls", "epoll", "utf8"]
    func maybeNull(_ value: String) -> String { rng.int(6) == 0 ? "null" : value }
    func number() -> String {
        switch rng.int(6) {
        case 0: return String(rng.int(1_000_000_000))
        case 1: return "-" + String(rng.int(100_000))
        case 2: return String(rng.int(10_000)) + "." + String(rng.int(1000))
        case 3: return "-" + String(rng.int(100)) + "." + String(rng.int(100_000)) + "e-" + String(rng.int(5))
        case 4: return String(1 + rng.int(9)) + "." + String(rng.int(1000)) + "E+" + String(rng.int(8))
        default: return "0"
        }
    }
    var id = 100_000
    var first = true
    while out.utf8.count < bytes {
        if !first { out += "," }
        first = false
        id += 1 + rng.int(7)
        let name = names[rng.int(names.count)]
        out += "{\"id\":\(id),\"id_str\":\"\(id)\",\"created_at\":\"2026-11-\(10 + rng.int(20))T12:\(10 + rng.int(50)):00Z\""
        out += ",\"text\":\"\(texts[rng.int(texts.count)])\",\"truncated\":\(rng.int(2) == 0 ? "true" : "false")"
        out += ",\"in_reply_to\":\(maybeNull(String(rng.int(1_000_000))))"
        out += ",\"user\":{\"id\":\(rng.int(10_000_000)),\"name\":\"\(name.capitalized)\",\"screen_name\":\"\(name)\(rng.int(1000))\""
        out += ",\"location\":\(maybeNull("\"Berlin, Germany\"")),\"description\":\(maybeNull("\"\(texts[rng.int(texts.count)])\""))"
        out += ",\"url\":null,\"followers_count\":\(rng.int(100_000)),\"verified\":\(rng.int(5) == 0 ? "true" : "false")"
        out += ",\"score\":\(number()),\"balance\":\(maybeNull(number())),\"profile\":{\"color\":\"1DA1F2\",\"image\":null,\"theme\":\(maybeNull("\"dark\""))}}"
        out += ",\"coordinates\":\(rng.int(3) == 0 ? "[\(number()),\(number())]" : "null")"
        out += ",\"tags\":["
        for t in 0..<rng.int(5) {
            if t > 0 { out += "," }
            out += rng.int(8) == 0 ? "null" : "\"\(tags[rng.int(tags.count)])\""
        }
        out += "],\"metrics\":{\"retweets\":\(rng.int(1000)),\"likes\":\(rng.int(100_000)),\"ratio\":\(number()),\"history\":["
        for h in 0..<(1 + rng.int(6)) {
            if h > 0 { out += "," }
            out += maybeNull(number())
        }
        out += "]},\"entities\":{\"hashtags\":[],\"mentions\":[{\"screen_name\":\"\(names[rng.int(names.count)])\",\"indices\":[\(rng.int(50)),\(50 + rng.int(50))]}],\"media\":\(maybeNull("{\"type\":\"photo\",\"width\":\(rng.int(4000)),\"height\":\(rng.int(3000))}"))}"
        out += ",\"lang\":\"\(["en", "de", "ja", "el", "fr"][rng.int(5)])\",\"possibly_sensitive\":\(maybeNull("false")),\"place\":null}"
    }
    out += "],\"next\":null,\"error\":null}"
    return Array(out.utf8)
}

/// A JSON array of `bytes` bytes or a little more of small integers (0–999, deterministic):
/// `[17,503,8,...]` — the document that costs a tree the most memory per byte.
public func smallIntegerArray(bytes: Int) -> [UInt8] {
    var rng = XorShift(seed: 0x5EED_0F_1A7E_6E25)
    var out: [UInt8] = [UInt8(ascii: "[")]
    out.reserveCapacity(bytes + 8)
    while out.count < bytes {
        if out.count > 1 { out.append(UInt8(ascii: ",")) }
        out.append(contentsOf: String(rng.int(1000)).utf8)
    }
    out.append(UInt8(ascii: "]"))
    return out
}

/// AFNetworking's `AFJSONObjectByRemovingKeysWithNullValues`, written with Foundation: removes
/// dictionary members whose value is `NSNull` at every depth, and (Courier's fix, so both sides do
/// the same work) `NSNull` array elements too.
public func foundationRemovingNulls(_ object: Any) -> Any {
    if let array = object as? [Any] {
        var result: [Any] = []
        result.reserveCapacity(array.count)
        for element in array where !(element is NSNull) { result.append(foundationRemovingNulls(element)) }
        return result
    }
    if let dictionary = object as? [String: Any] {
        var result: [String: Any] = [:]
        result.reserveCapacity(dictionary.count)
        for (key, value) in dictionary where !(value is NSNull) { result[key] = foundationRemovingNulls(value) }
        return result
    }
    return object
}

/// An order-independent summary of a JSON tree, to check that two parsers agree without
/// serialising either: counts of each kind, and wrapping sums of a hash of every string and key
/// and of every number (Booleans count as the numbers 0 and 1; numbers as their double × 1000,
/// rounded — both sides round correctly, so they read the same double).
public struct JSONDigest: Equatable, CustomStringConvertible {
    public var objects = 0, arrays = 0, members = 0, elements = 0, strings = 0, numbers = 0, nulls = 0
    public var stringHash: UInt64 = 0, keyHash: UInt64 = 0, numberSum: Int64 = 0

    public init() {}

    /// FNV-1a over UTF-8.
    public static func hash(_ text: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 { h = (h ^ UInt64(byte)) &* 0x100_0000_01B3 }
        return h
    }

    public mutating func addNumber(_ value: Double) {
        numberSum &+= Int64((value * 1000).rounded())
        numbers += 1
    }

    public var description: String {
        "objects \(objects) arrays \(arrays) members \(members) elements \(elements) strings \(strings) numbers \(numbers) nulls \(nulls) hashes \(stringHash) \(keyHash) \(numberSum)"
    }

    /// The digest of a JSONSerialization result.
    public static func foundation(_ object: Any) -> JSONDigest {
        var digest = JSONDigest()
        func walk(_ value: Any) {
            switch value {
            case is NSNull:
                digest.nulls += 1
            case let string as String:
                digest.strings += 1
                digest.stringHash &+= hash(string)
            case let array as [Any]:
                digest.arrays += 1
                digest.elements += array.count
                for element in array { walk(element) }
            case let dictionary as [String: Any]:
                digest.objects += 1
                digest.members += dictionary.count
                for (key, member) in dictionary {
                    digest.keyHash &+= hash(key)
                    walk(member)
                }
            case let number as NSNumber:
                digest.addNumber(number.doubleValue)
            default:
                fatalError("unexpected Foundation JSON value \(type(of: value))")
            }
        }
        walk(object)
        return digest
    }
}
