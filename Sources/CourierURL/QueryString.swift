// QueryString: AFNetworking's `AFQueryStringFromParameters`, byte for byte, without Foundation.
//
// The rules (AFURLRequestSerialization.m, AFQueryStringPairsFromKeyAndValue):
//   - dictionary: keys sorted ascending by their text, case-sensitive (NSString `compare:`, which
//     orders canonical decompositions by code point, see QueryString+Ordering.swift); each value
//     under `key[name]`, or `name` at the top level;
//   - array: each element under `key[]`, in array order (so arrays of dictionaries give
//     `key[][name]=…`);
//   - set: each member under `key` itself, members sorted by their description;
//   - anything else: one pair. `key=value`, or the bare key for NSNull;
//   - empty containers add nothing; pairs are joined with "&";
//   - key and value are escaped with `PercentEncodingSet.afnetworkingQueryComponent`, so the
//     brackets are written `%5B` and `%5D`.
//
// How it is fast: one output buffer grows as pairs are written; the current key is kept already
// escaped in a second buffer that grows by one `%5B…%5D` level on the way down and is cut back on
// the way up (escaping is per byte, so escaping a concatenation is the concatenation of the
// escapes); each dictionary's keys are copied once into a scratch arena and sorted as indices with
// a byte comparator; no intermediate strings are made except for doubles.
//
// Invariant: the recursion depth is the nesting depth of the tree, which the caller built (JSON
// input is already bounded by its parser's depth limit).

import CourierBytes

/// Builds query strings from parameter trees with AFNetworking's rules.
public enum QueryString {
    /// Builds the query string for `parameters`, as `AFQueryStringFromParameters` does.
    ///
    /// Example: `["foo": "bar", "baz": [1, 2, 3]]` →
    /// `baz%5B%5D=1&baz%5B%5D=2&baz%5B%5D=3&foo=bar`.
    /// - Parameter parameters: normally a `.dictionary`; any other value is treated as the value
    ///   of an empty key (AFNetworking only takes a dictionary).
    /// - Returns: the query string, without a leading "?".
    public static func build(_ parameters: QueryValue) -> String {
        var buffer = ByteBuffer(capacity: 256)
        write(parameters, into: &buffer)
        return buffer.withUnsafeReadableBytes { bytes in
            String(decoding: bytes.assumingMemoryBound(to: UInt8.self), as: UTF8.self)
        }
    }

    /// Builds the query string for a list of top-level pairs (the same as a `.dictionary`).
    /// - Parameter parameters: the top-level names and values.
    /// - Returns: the query string, without a leading "?".
    public static func build(_ parameters: [(String, QueryValue)]) -> String {
        build(.dictionary(parameters))
    }

    /// Appends the query string for `parameters` to `buffer`, making no String.
    /// - Parameters:
    ///   - parameters: as for `build(_:)`.
    ///   - buffer: where the bytes are appended (nothing else is written, not even a "?").
    public static func write(_ parameters: QueryValue, into buffer: inout ByteBuffer) {
        if buffer.capacity == 0 { buffer.reserveCapacity(minimumWritableBytes: 256) }
        var state = BuildState()
        emit(parameters, hasKey: false, output: &buffer, state: &state)
    }

    /// Scratch space for one build: the escaped key being written and the sort arena.
    struct BuildState {
        var key = ByteBuffer(capacity: 256)
        var wroteAny = false
        var arena: [UInt8] = []
        var bounds: [Int] = []
        var order: [Int] = []
    }

    private static let bracketPair: StaticString = "%5B%5D"
    private static let openBracket: StaticString = "%5B"
    private static let closeBracket: StaticString = "%5D"

    private static func emit(_ value: QueryValue, hasKey: Bool, output: inout ByteBuffer, state: inout BuildState) {
        let set = PercentEncodingSet.afnetworkingQueryComponent
        switch value {
        case .dictionary(let pairs):
            guard !pairs.isEmpty else { return }
            let order = sortedOrder(of: pairs, state: &state)
            let mark = state.key.writerIndex
            func visit(_ index: Int) {
                let (name, nested) = pairs[index]
                if hasKey { writeStatic(openBracket, into: &state.key) }
                PercentEncoding.encode(name, allowing: set, into: &state.key)
                if hasKey { writeStatic(closeBracket, into: &state.key) }
                emit(nested, hasKey: true, output: &output, state: &state)
                state.key.moveWriterIndex(to: mark)
            }
            if let order {
                for index in order { visit(index) }
            } else {
                for index in pairs.indices { visit(index) }
            }
        case .array(let values):
            guard !values.isEmpty else { return }
            let mark = state.key.writerIndex
            writeStatic(bracketPair, into: &state.key)
            for nested in values { emit(nested, hasKey: true, output: &output, state: &state) }
            state.key.moveWriterIndex(to: mark)
        case .set(let members):
            for member in sortedUniqueMembers(members) {
                emit(member, hasKey: hasKey, output: &output, state: &state)
            }
        case .null:
            startPair(output: &output, state: &state)
        case .string(let text):
            startPair(output: &output, state: &state)
            output.writeInteger(UInt8(ascii: "="))
            PercentEncoding.encode(text, allowing: set, into: &output)
        case .int(let number):
            startPair(output: &output, state: &state)
            output.writeInteger(UInt8(ascii: "="))
            // Digits and "-" are all unreserved: nothing to escape.
            if number < 0 { output.writeInteger(UInt8(ascii: "-")) }
            ASCIIInteger.decimal(number.magnitude).withUnsafeBytes { output.writeBytes($0) }
        case .double(let number):
            startPair(output: &output, state: &state)
            output.writeInteger(UInt8(ascii: "="))
            // "1e+16": the "+" is escaped like any other byte.
            PercentEncoding.encode(describe(number), allowing: set, into: &output)
        case .bool(let flag):
            startPair(output: &output, state: &state)
            output.writeInteger(UInt8(ascii: "="))
            output.writeInteger(flag ? UInt8(ascii: "1") : UInt8(ascii: "0"))
        case .bytes(let bytes):
            startPair(output: &output, state: &state)
            output.writeInteger(UInt8(ascii: "="))
            bytes.withUnsafeReadableBytes { PercentEncoding.encode($0, allowing: set, into: &output) }
        }
    }

    /// Writes "&" (unless this is the first pair) and the escaped key.
    @inline(__always)
    private static func startPair(output: inout ByteBuffer, state: inout BuildState) {
        if state.wroteAny { output.writeInteger(UInt8(ascii: "&")) }
        state.wroteAny = true
        state.key.withUnsafeReadableBytes { output.writeBytes($0) }
    }

    @inline(__always)
    private static func writeStatic(_ text: StaticString, into buffer: inout ByteBuffer) {
        buffer.writeBytes(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The order in which to write a dictionary's pairs: by key as `compare:` orders, ties (equal
    /// keys) in the order given. Nil when the pairs are already in order.
    static func sortedOrder(of pairs: [(String, QueryValue)], state: inout BuildState) -> [Int]? {
        // Copy every key's UTF-8 into one arena once, so comparisons are plain byte loops.
        state.arena.removeAll(keepingCapacity: true)
        state.bounds.removeAll(keepingCapacity: true)
        state.bounds.append(0)
        for (name, _) in pairs {
            appendUTF8(of: name, to: &state.arena)
            state.bounds.append(state.arena.count)
        }
        return state.arena.withUnsafeBytes { arena -> [Int]? in
            let base = arena.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
            let bounds = state.bounds
            func compare(_ x: Int, _ y: Int) -> Int {
                QueryOrdering.compare(
                    base + bounds[x], bounds[x + 1] - bounds[x],
                    base + bounds[y], bounds[y + 1] - bounds[y])
            }
            var sorted = true
            for index in 1..<max(pairs.count, 1) where compare(index - 1, index) > 0 {
                sorted = false
                break
            }
            if sorted { return nil }
            var order = Array(pairs.indices)
            order.sort { x, y in
                let result = compare(x, y)
                return result < 0 || (result == 0 && x < y)
            }
            return order
        }
    }

    /// A set's members sorted by description (NSSortDescriptor on `description`, `compare:`),
    /// each distinct member once.
    static func sortedUniqueMembers(_ members: [QueryValue]) -> [QueryValue] {
        guard members.count > 1 else { return members }
        let described = members.map { ($0.description, $0) }
        let order = described.indices.sorted { x, y in
            let result = QueryOrdering.compare(described[x].0, described[y].0)
            return result < 0 || (result == 0 && x < y)
        }
        var result: [QueryValue] = []
        result.reserveCapacity(members.count)
        var groupStart = 0
        for index in order {
            let (text, member) = described[index]
            if let last = result.last, last.description != text { groupStart = result.count }
            if !result[groupStart...].contains(member) { result.append(member) }
        }
        return result
    }

    private static func appendUTF8(of text: String, to arena: inout [UInt8]) {
        let done: Void? = text.utf8.withContiguousStorageIfAvailable { arena.append(contentsOf: $0) }
        if done == nil { arena.append(contentsOf: text.utf8) }
    }
}
