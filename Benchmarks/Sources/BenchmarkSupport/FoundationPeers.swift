// The Foundation peers Courier is measured beside. Foundation is allowed here (a benchmark
// package), never in the library's Sources/.
import Foundation

/// AFNetworking's `AFPercentEscapedStringFromString` character set: URLQueryAllowed without
/// ":#[]@" and "!$&'()*+,;=", which leaves `A–Z a–z 0–9 - . _ ~ / ?`.
public let afQueryAllowed: CharacterSet = {
    var set = CharacterSet.urlQueryAllowed
    set.remove(charactersIn: ":#[]@!$&'()*+,;=")
    return set
}()

/// Foundation's percent-encoding with AFNetworking's set.
public func foundationPercentEncode(_ text: String) -> String {
    text.addingPercentEncoding(withAllowedCharacters: afQueryAllowed) ?? text
}

/// A parameter tree in Foundation's untyped form, as AFNetworking takes it.
public typealias FoundationParameters = [String: Any]

/// AFNetworking's `AFQueryStringFromParameters`, written with Foundation the way AFNetworking does
/// it: collect (field, value) pairs recursively with keys sorted, then escape and join.
public func foundationQueryString(_ parameters: FoundationParameters) -> String {
    var pairs: [(String, String?)] = []
    func collect(_ key: String?, _ value: Any) {
        if let dictionary = value as? [String: Any] {
            for nested in dictionary.keys.sorted(by: { ($0 as NSString).compare($1) == .orderedAscending }) {
                collect(key.map { "\($0)[\(nested)]" } ?? nested, dictionary[nested]!)
            }
        } else if let array = value as? [Any] {
            for element in array { collect("\(key ?? "")[]", element) }
        } else if value is NSNull {
            pairs.append((key ?? "", nil))
        } else if let flag = value as? Bool {
            pairs.append((key ?? "", flag ? "1" : "0"))
        } else {
            pairs.append((key ?? "", "\(value)"))
        }
    }
    collect(nil, parameters)
    return pairs.map { field, value in
        guard let value else { return foundationPercentEncode(field) }
        return foundationPercentEncode(field) + "=" + foundationPercentEncode(value)
    }.joined(separator: "&")
}

/// A nested parameter tree with `keys` top-level keys: scalars, arrays, nested dictionaries.
/// `make` turns it into whichever representation the measured implementation takes.
public enum ParameterShape {
    case string(String), int(Int), double(Double), bool(Bool)
    case array([ParameterShape])
    case dictionary([(String, ParameterShape)])

    /// The deterministic 10,000-key tree (or another size) used by the query-string benchmark.
    public static func tree(keys: Int) -> [(String, ParameterShape)] {
        var rng = XorShift()
        func scalar() -> ParameterShape {
            switch rng.int(6) {
            case 0: return .int(rng.int(1_000_000))
            case 1: return .double(Double(rng.int(100_000)) / 8 + 0.0625)  // never integral: one spelling everywhere
            case 2: return .bool(rng.int(2) == 0)
            default: return .string(sampleWords[rng.int(sampleWords.count)])
            }
        }
        var out: [(String, ParameterShape)] = []
        for k in 0..<keys {
            let key = k % 10 == 0 ? "key \(k) é" : "key\(k)"
            switch rng.int(20) {
            case 0..<12: out.append((key, scalar()))
            case 12..<15: out.append((key, .array((0..<(1 + rng.int(5))).map { _ in scalar() })))
            case 15..<19:
                out.append((key, .dictionary((0..<(1 + rng.int(4))).map { j in
                    ("sub\(j)", rng.int(3) == 0 ? .array((0..<(1 + rng.int(3))).map { _ in scalar() }) : scalar())
                })))
            default:
                out.append((key, .dictionary([
                    ("inner", .dictionary([("deep", scalar()), ("list", .array([scalar(), scalar()]))])),
                    ("flag", scalar()),
                ])))
            }
        }
        return out
    }

    /// The Foundation form (`[String: Any]` / `[Any]` / NSNumber-bridged scalars).
    public var foundation: Any {
        switch self {
        case .string(let s): return s
        case .int(let i): return i
        case .double(let d): return d
        case .bool(let b): return b
        case .array(let a): return a.map(\.foundation)
        case .dictionary(let d): return Dictionary(d.map { ($0.0, $0.1.foundation) }, uniquingKeysWith: { a, _ in a })
        }
    }
}
