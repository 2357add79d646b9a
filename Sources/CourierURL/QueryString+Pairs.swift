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
        var out: [(name: String, value: String?)] = []
        var state = BuildState()
        collect(parameters, key: nil, into: &out, state: &state)
        return out
    }

    private static func collect(_ value: QueryValue, key: String?, into out: inout [(name: String, value: String?)], state: inout BuildState) {
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
        case .null: out.append((key ?? "", nil))
        case .string(let text): out.append((key ?? "", text))
        case .int(let number): out.append((key ?? "", String(number)))
        case .double(let number): out.append((key ?? "", describe(number)))
        case .bool(let flag): out.append((key ?? "", flag ? "1" : "0"))
        }
    }
}
