// The (name, value) pairs of AFNetworking's `AFQueryStringPairsFromDictionary`, unescaped, in the
// order the query string writes them — for multipart forms, whose parameters become form fields
// with exactly the names and order a query string would give them.

import CourierBytes

extension QueryString {
    /// The flattened pairs of a parameter tree, unescaped, in the order `build` writes them:
    /// dictionary keys sorted as `compare:` orders them, `a[b]` for nested dictionaries, `a[]` for
    /// array elements, set members under the set's key sorted by description, each once; a null
    /// value gives a nil value; booleans `1`/`0`; empty containers give nothing.
    /// - Parameter parameters: the tree.
    /// - Returns: the pairs.
    public static func pairs(_ parameters: QueryValue) -> [(name: String, value: String?)] {
        leaves(parameters).map { pair in
            switch pair.value {
            case .null: return (pair.name, nil)
            case .string(let text): return (pair.name, text)
            case .int(let number): return (pair.name, String(number))
            case .double(let number): return (pair.name, describe(number))
            case .bool(let flag): return (pair.name, flag ? "1" : "0")
            // Text of bytes that are not UTF-8 is lossy here; `leaves` keeps the bytes.
            case .bytes(let bytes): return (pair.name, String(decoding: bytes.readableBytesArray, as: UTF8.self))
            case .array, .set, .dictionary: preconditionFailure("leaves yields scalars only")
            }
        }
    }

    /// The same flattening as `pairs`, each value the scalar leaf itself (`.string`, `.int`,
    /// `.double`, `.bool`, `.null` or `.bytes`) — for multipart forms, whose byte values become
    /// fields with exactly those bytes (AFNetworking's NSData parameters).
    /// - Parameter parameters: the tree.
    /// - Returns: the pairs.
    public static func leaves(_ parameters: QueryValue) -> [(name: String, value: QueryValue)] {
        var out: [(name: String, value: QueryValue)] = []
        var state = BuildState()
        collect(parameters, key: nil, into: &out, state: &state)
        return out
    }

    private static func collect(_ value: QueryValue, key: String?, into out: inout [(name: String, value: QueryValue)], state: inout BuildState) {
        switch value {
        case .dictionary(let pairs):
            guard !pairs.isEmpty else { return }
            let order = sortedOrder(of: pairs, state: &state) ?? Array(pairs.indices)
            for index in order {
                let (name, nested) = pairs[index]
                collect(nested, key: key.map { "\($0)[\(name)]" } ?? name, into: &out, state: &state)
            }
        case .array(let values):
            for nested in values { collect(nested, key: (key ?? "") + "[]", into: &out, state: &state) }
        case .set(let members):
            for member in sortedUniqueMembers(members) { collect(member, key: key, into: &out, state: &state) }
        case .null, .string, .int, .double, .bool, .bytes: out.append((key ?? "", value))
        }
    }
}
