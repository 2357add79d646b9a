// JSONTapeDecoder: Decodable straight from a document's tape — no JSONValue tree in between.
//
// What this file owns: the Decoder and its three containers over tape indices, with the rules of
// CourierJSONDecoder (docs/json.md, "Codable bridge"): exact integers, range errors, null →
// valueNotFound, the key strategies, Timestamp and JSONValue interception, the same messages.
//
// How it is fast. One decoder object serves a whole decode: decoding a nested value moves its
// position and coding path and restores them afterwards, instead of allocating a decoder per
// value. The coding path is one stack; a container remembers only how deep it was made, and
// builds its path from the stack when asked (errors, user code). A keyed container finds a key
// by scanning its object's member names from just after the last one found — members are
// usually asked for in the order they were written, so the scan is one comparison — comparing
// UTF-8 bytes without building a String. (With convertFromSnakeCase the converted names are
// built once per container, as before.) Integers written as small non-negative literals are on
// the tape already.
//
// Invariants: the reader's pointers are valid for the whole decode (the caller holds the input);
// `index` is the position of the value being decoded; path[0..<depth] is a container's path
// whenever the container is used (descents push and pop symmetrically).

import CourierBytes

final class _JSONTapeDecoder: Decoder {
    let reader: JSONTapeReader
    let options: _JSONDecoderImpl.Options
    let document: JSONDocument?
    // Exclusivity is checked statically: these are touched only by the decode on this decoder,
    // never while another access is in progress (the dynamic checks cost ~8% of a decode).
    /// The position of the value being decoded.
    @exclusivity(unchecked) var index: Int
    /// The coding path, as a stack.
    @exclusivity(unchecked) var path: [any CodingKey] = []
    /// Per depth, where the last keyed container at that depth found a key: the next search
    /// starts there. Objects at one depth never overlap, so a cursor inside a container's
    /// object was left by that container; any other value is ignored (it only saves time).
    @exclusivity(unchecked) var cursors: [Int] = []

    var codingPath: [any CodingKey] { path }
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(reader: JSONTapeReader, index: Int, options: _JSONDecoderImpl.Options, document: JSONDocument?) {
        self.reader = reader
        self.index = index
        self.options = options
        self.document = document
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        let word = reader.word(index)
        guard JSONTape.tag(word) == JSONTape.object else { throw mismatch([String: Any].self, word, path: path) }
        return KeyedDecodingContainer(_JSONTapeKeyedContainer<Key>(decoder: self, object: index, depth: path.count))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let word = reader.word(index)
        guard JSONTape.tag(word) == JSONTape.array else { throw mismatch([Any].self, word, path: path) }
        return _JSONTapeUnkeyedContainer(decoder: self, array: index, depth: path.count)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _JSONTapeSingleValueContainer(decoder: self, value: index, depth: path.count)
    }

    // MARK: Unboxing

    static func kindDescription(_ word: UInt32) -> String {
        switch JSONTape.tag(word) {
        case JSONTape.literal: return word == JSONTape.null ? "null" : "a boolean"
        case JSONTape.number, JSONTape.integer: return "a number"
        case JSONTape.string, JSONTape.escaped: return "a string"
        case JSONTape.array: return "an array"
        default: return "an object"
        }
    }

    func mismatch(_ type: Any.Type, _ word: UInt32, path: [any CodingKey]) -> DecodingError {
        if word == JSONTape.null {
            return .valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(_JSONTapeDecoder.kindDescription(word)) instead."))
    }

    @inline(__always)
    func unboxBool(_ at: Int, path: @autoclosure () -> [any CodingKey]) throws -> Bool {
        let word = reader.word(at)
        guard JSONTape.tag(word) == JSONTape.literal, word != JSONTape.null else { throw mismatch(Bool.self, word, path: path()) }
        return word == JSONTape.trueWord
    }

    @inline(__always)
    func unboxString(_ at: Int, path: @autoclosure () -> [any CodingKey]) throws -> String {
        let word = reader.word(at)
        let tag = JSONTape.tag(word)
        guard tag == JSONTape.string || tag == JSONTape.escaped else { throw mismatch(String.self, word, path: path()) }
        return reader.string(word)
    }

    @inline(__always)
    func unboxInteger<T: FixedWidthInteger>(_ at: Int, as type: T.Type, path: @autoclosure () -> [any CodingKey]) throws -> T {
        let word = reader.word(at)
        let tag = JSONTape.tag(word)
        if tag == JSONTape.integer, let value = T(exactly: JSONTape.payload(word)) { return value }
        guard tag == JSONTape.number || tag == JSONTape.integer else { throw mismatch(T.self, word, path: path()) }
        if let value = reader.withNumberText(word, { JSONNumber.exactInteger($0, as: T.self) }) { return value }
        let text = reader.withNumberText(word) { String(decoding: $0, as: UTF8.self) }
        throw DecodingError.dataCorrupted(DecodingError.Context(
            codingPath: path(), debugDescription: "Number \(text) does not fit in \(T.self)."))
    }

    @inline(__always)
    func unboxDouble(_ at: Int, path: @autoclosure () -> [any CodingKey]) throws -> Double {
        let word = reader.word(at)
        let tag = JSONTape.tag(word)
        if tag == JSONTape.integer { return Double(JSONTape.payload(word)) }
        guard tag == JSONTape.number else { throw mismatch(Double.self, word, path: path()) }
        if let fast = reader.withNumberText(word, { JSONNumber.fastDouble($0) }) { return fast }
        guard let value = reader.number(word).double else {
            let text = reader.withNumberText(word) { String(decoding: $0, as: UTF8.self) }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(), debugDescription: "Number \(text) does not fit in Double."))
        }
        return value
    }

    func unboxFloat(_ at: Int, path: @autoclosure () -> [any CodingKey]) throws -> Float {
        let word = reader.word(at)
        let tag = JSONTape.tag(word)
        guard tag == JSONTape.number || tag == JSONTape.integer else { throw mismatch(Float.self, word, path: path()) }
        guard let value = reader.number(word).float else {
            let text = reader.withNumberText(word) { String(decoding: $0, as: UTF8.self) }
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path(), debugDescription: "Number \(text) does not fit in Float."))
        }
        return value
    }

    func unboxTimestamp(_ at: Int, path: @autoclosure () -> [any CodingKey]) throws -> Timestamp {
        switch options.timestamps {
        case .secondsSince1970, .millisecondsSince1970:
            var seconds = try unboxDouble(at, path: path())
            if options.timestamps == .millisecondsSince1970 { seconds /= 1000 }
            guard let timestamp = Timestamp(secondsSince1970: seconds) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(), debugDescription: "\(seconds) seconds is not a representable timestamp."))
            }
            return timestamp
        case .iso8601:
            let text = try unboxString(at, path: path())
            guard let timestamp = Timestamp(iso8601: text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path(), debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return timestamp
        }
    }

    /// Decodes any `Decodable` at `at`, with `key` (if any) on the coding path while it runs.
    @inline(__always)
    func unbox<T: Decodable>(_ at: Int, as type: T.Type, key: (any CodingKey)?) throws -> T {
        if T.self == Timestamp.self {
            return try unboxTimestamp(at, path: key.map { path + [$0] } ?? path) as! T
        }
        if T.self == JSONValue.self {
            return reader.jsonValue(at: at) as! T
        }
        // The commonest leaves and arrays of them, without a container or a nested Decoder call.
        if T.self == String.self { return try unboxString(at, path: key.map { path + [$0] } ?? path) as! T }
        if T.self == Int.self { return try unboxInteger(at, as: Int.self, path: key.map { path + [$0] } ?? path) as! T }
        if T.self == Double.self { return try unboxDouble(at, path: key.map { path + [$0] } ?? path) as! T }
        if T.self == Bool.self { return try unboxBool(at, path: key.map { path + [$0] } ?? path) as! T }
        if T.self == [String].self { return try unboxArray(at, key: key) { d, i, p in try d.unboxString(i, path: p()) } as! T }
        if T.self == [Int].self { return try unboxArray(at, key: key) { d, i, p in try d.unboxInteger(i, as: Int.self, path: p()) } as! T }
        if T.self == [Double].self { return try unboxArray(at, key: key) { d, i, p in try d.unboxDouble(i, path: p()) } as! T }
        if T.self == [String?].self { return try unboxArray(at, key: key) { d, i, p in d.isNull(i) ? nil : try d.unboxString(i, path: p()) } as! T }
        if T.self == [Int?].self { return try unboxArray(at, key: key) { d, i, p in d.isNull(i) ? nil : try d.unboxInteger(i, as: Int.self, path: p()) } as! T }
        if T.self == [Double?].self { return try unboxArray(at, key: key) { d, i, p in d.isNull(i) ? nil : try d.unboxDouble(i, path: p()) } as! T }
        let saved = index
        index = at
        if let key { path.append(key) }
        defer {
            index = saved
            if key != nil { path.removeLast() }
        }
        return try T(from: self)
    }

    @inline(__always)
    func isNull(_ at: Int) -> Bool { reader.word(at) == JSONTape.null }

    /// An array of leaves decoded in one loop; errors carry the element's index on the path.
    @inline(__always)
    func unboxArray<E>(_ at: Int, key: (any CodingKey)?,
                       _ element: (_JSONTapeDecoder, Int, () -> [any CodingKey]) throws -> E) throws -> [E] {
        let word = reader.word(at)
        let base = key.map { path + [$0] } ?? path
        guard JSONTape.tag(word) == JSONTape.array else { throw mismatch([E].self, word, path: base) }
        let end = JSONTape.payload(word)
        var result: [E] = []
        var i = at &+ 1
        var n = 0
        while i < end {
            let position = n
            result.append(try element(self, i, { base + [JSONCodingKey(intValue: position)] }))
            i = reader.after(i)
            n &+= 1
        }
        return result
    }
}

struct _JSONTapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _JSONTapeDecoder
    let object: Int
    let end: Int
    let depth: Int
    /// With convertFromSnakeCase: the converted names and their value positions.
    let converted: [(name: String, value: Int)]?

    init(decoder: _JSONTapeDecoder, object: Int, depth: Int) {
        self.decoder = decoder
        self.object = object
        self.end = JSONTape.payload(decoder.reader.word(object))
        self.depth = depth
        while decoder.cursors.count <= depth { decoder.cursors.append(0) }
        if decoder.options.keys == .convertFromSnakeCase {
            var names: [(String, Int)] = []
            var i = decoder.reader.liveMember(from: object &+ 1, end: end)
            while i < end {
                names.append((JSONKeyConversion.fromSnakeCase(decoder.reader.string(decoder.reader.word(i))), i &+ 1))
                i = decoder.reader.liveMember(from: decoder.reader.after(i &+ 1), end: end)
            }
            converted = names
        } else {
            converted = nil
        }
    }

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(depth)) }

    var allKeys: [Key] {
        var keys: [Key] = []
        if let converted {
            var seen = Set<String>()
            for (name, _) in converted where seen.insert(name).inserted {
                if let key = Key(stringValue: name) { keys.append(key) }
            }
            return keys
        }
        let reader = decoder.reader
        var i = reader.liveMember(from: object &+ 1, end: end)
        while i < end {
            if let key = Key(stringValue: reader.string(reader.word(i))) { keys.append(key) }
            i = reader.liveMember(from: reader.after(i &+ 1), end: end)
        }
        return keys
    }

    /// The position of the value of `key`, or nil.
    @inline(__always)
    private func find(_ key: Key) -> Int? {
        if let converted {
            let name = key.stringValue
            return converted.last { $0.name == name }?.value
        }
        var name = key.stringValue
        return name.withUTF8 { bytes in find(bytes) }
    }

    @inline(__always)
    private func find(_ name: UnsafeBufferPointer<UInt8>) -> Int? {
        let reader = decoder.reader
        var cursor = decoder.cursors[depth]
        if cursor <= object || cursor > end { cursor = object &+ 1 }
        // From the cursor to the end, then from the start to the cursor.
        if let found = scan(name, from: cursor, to: end, reader) { return found }
        return scan(name, from: object &+ 1, to: cursor, reader)
    }

    @inline(__always)
    private func scan(_ name: UnsafeBufferPointer<UInt8>, from start: Int, to stop: Int, _ reader: JSONTapeReader) -> Int? {
        var i = reader.liveMember(from: start, end: end)
        var nameHasQuote = false
        for byte in name where byte == UInt8(ascii: "\"") { nameHasQuote = true }
        while i < stop {
            if reader.nameEquals(reader.word(i), name, nameHasQuote: nameHasQuote) { return i &+ 1 }
            i = reader.liveMember(from: reader.after(i &+ 1), end: end)
        }
        return nil
    }

    /// Moves the search cursor past the value at `at`.
    @inline(__always)
    private func moveCursor(after at: Int) {
        if converted == nil { decoder.cursors[depth] = decoder.reader.after(at) }
    }

    /// The value of `key`, moving the cursor past it.
    @inline(__always)
    private func value(for key: Key) throws -> Int {
        guard let found = find(key) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        moveCursor(after: found)
        return found
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func contains(_ key: Key) -> Bool { find(key) != nil }

    func decodeNil(forKey key: Key) throws -> Bool { decoder.reader.word(try value(for: key)) == JSONTape.null }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        let at = try value(for: key)
        return try decoder.unboxBool(at, path: path(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        let at = try value(for: key)
        return try decoder.unboxString(at, path: path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        let at = try value(for: key)
        return try decoder.unboxDouble(at, path: path(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        let at = try value(for: key)
        return try decoder.unboxFloat(at, path: path(key))
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try integer(key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try integer(key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try integer(key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try integer(key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try integer(key) }
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { try integer(key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try integer(key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try integer(key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try integer(key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try integer(key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try integer(key) }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { try integer(key) }

    @inline(__always)
    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        let at = try value(for: key)
        return try decoder.unboxInteger(at, as: T.self, path: path(key))
    }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        guard let at = find(key) else { return nil }
        moveCursor(after: at)
        if decoder.reader.word(at) == JSONTape.null { return nil }
        return try decoder.unboxString(at, path: path(key))
    }

    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        guard let at = find(key) else { return nil }
        moveCursor(after: at)
        if decoder.reader.word(at) == JSONTape.null { return nil }
        return try decoder.unboxInteger(at, as: Int.self, path: path(key))
    }

    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        guard let at = find(key) else { return nil }
        moveCursor(after: at)
        if decoder.reader.word(at) == JSONTape.null { return nil }
        return try decoder.unboxDouble(at, path: path(key))
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        guard let at = find(key) else { return nil }
        moveCursor(after: at)
        if decoder.reader.word(at) == JSONTape.null { return nil }
        return try decoder.unboxBool(at, path: path(key))
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let at = find(key) else { return nil }
        moveCursor(after: at)
        if decoder.reader.word(at) == JSONTape.null { return nil }
        return try decoder.unbox(at, as: T.self, key: key)
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let at = try value(for: key)
        return try decoder.unbox(at, as: T.self, key: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let at = try value(for: key)
        let word = decoder.reader.word(at)
        guard JSONTape.tag(word) == JSONTape.object else { throw decoder.mismatch([String: Any].self, word, path: path(key)) }
        // The nested container's path is this one's plus the key; it is pushed for good, as the
        // nested container may be used after this call returns (Foundation's behaviour).
        return KeyedDecodingContainer(_JSONTapeKeyedContainer<NestedKey>(decoder: nestedDecoder(at: at, key: key), object: at, depth: depth &+ 1))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let at = try value(for: key)
        let word = decoder.reader.word(at)
        guard JSONTape.tag(word) == JSONTape.array else { throw decoder.mismatch([Any].self, word, path: path(key)) }
        return _JSONTapeUnkeyedContainer(decoder: nestedDecoder(at: at, key: key), array: at, depth: depth &+ 1)
    }

    /// A decoder of its own for a nested container, whose coding path must stay fixed.
    private func nestedDecoder(at: Int, key: any CodingKey) -> _JSONTapeDecoder {
        let nested = _JSONTapeDecoder(reader: decoder.reader, index: at, options: decoder.options, document: decoder.document)
        nested.path = codingPath + [key]
        return nested
    }

    func superDecoder() throws -> any Decoder {
        let found = find(JSONCodingKey.super)
        return try superDecoder(at: found, key: JSONCodingKey.super)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        try superDecoder(at: find(key), key: key)
    }

    private func find(_ key: JSONCodingKey) -> Int? {
        var name = key.stringValue
        if let converted { return converted.last { $0.name == name }?.value }
        return name.withUTF8 { find($0) }
    }

    private func superDecoder(at found: Int?, key: any CodingKey) throws -> any Decoder {
        let path = codingPath + [key]
        guard let found else {
            return _JSONDecoderImpl(value: .null, codingPath: path, options: decoder.options)
        }
        let nested = _JSONTapeDecoder(reader: decoder.reader, index: found, options: decoder.options, document: decoder.document)
        nested.path = path
        return nested
    }
}

struct _JSONTapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: _JSONTapeDecoder
    let array: Int
    let end: Int
    let depth: Int
    /// The tape position of the next element.
    var position: Int
    var currentIndex = 0

    init(decoder: _JSONTapeDecoder, array: Int, depth: Int) {
        self.decoder = decoder
        self.array = array
        self.end = JSONTape.payload(decoder.reader.word(array))
        self.depth = depth
        self.position = array &+ 1
    }

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(depth)) }
    var count: Int? { decoder.reader.childCount(array) }
    var isAtEnd: Bool { position >= end }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: currentIndex)] }

    /// The next element's position, or valueNotFound at the end (nothing is advanced).
    @inline(__always)
    private func peek(_ type: Any.Type) throws -> Int {
        guard position < end else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return position
    }

    @inline(__always)
    private mutating func advance() {
        position = decoder.reader.after(position)
        currentIndex &+= 1
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.reader.word(try peek(Never.self)) == JSONTape.null else { return false }
        advance()
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.unboxBool(peek(type), path: currentPath)
        advance()
        return result
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.unboxString(peek(type), path: currentPath)
        advance()
        return result
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try decoder.unboxDouble(peek(type), path: currentPath)
        advance()
        return result
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let result = try decoder.unboxFloat(peek(type), path: currentPath)
        advance()
        return result
    }
    mutating func decode(_ type: Int.Type) throws -> Int { try integer() }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    mutating func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

    @inline(__always)
    private mutating func integer<T: FixedWidthInteger>() throws -> T {
        let result = try decoder.unboxInteger(peek(T.self), as: T.self, path: currentPath)
        advance()
        return result
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let at = try peek(type)
        let result = try decoder.unbox(at, as: T.self, key: JSONCodingKey(intValue: currentIndex))
        advance()
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let at = try peek(KeyedDecodingContainer<NestedKey>.self)
        let word = decoder.reader.word(at)
        guard JSONTape.tag(word) == JSONTape.object else { throw decoder.mismatch([String: Any].self, word, path: currentPath) }
        let nested = _JSONTapeDecoder(reader: decoder.reader, index: at, options: decoder.options, document: decoder.document)
        nested.path = currentPath
        advance()
        return KeyedDecodingContainer(_JSONTapeKeyedContainer<NestedKey>(decoder: nested, object: at, depth: nested.path.count))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let at = try peek((any UnkeyedDecodingContainer).self)
        let word = decoder.reader.word(at)
        guard JSONTape.tag(word) == JSONTape.array else { throw decoder.mismatch([Any].self, word, path: currentPath) }
        let nested = _JSONTapeDecoder(reader: decoder.reader, index: at, options: decoder.options, document: decoder.document)
        nested.path = currentPath
        advance()
        return _JSONTapeUnkeyedContainer(decoder: nested, array: at, depth: nested.path.count)
    }

    mutating func superDecoder() throws -> any Decoder {
        let at = try peek((any Decoder).self)
        let nested = _JSONTapeDecoder(reader: decoder.reader, index: at, options: decoder.options, document: decoder.document)
        nested.path = currentPath
        advance()
        return nested
    }
}

struct _JSONTapeSingleValueContainer: SingleValueDecodingContainer {
    let decoder: _JSONTapeDecoder
    let value: Int
    let depth: Int

    var codingPath: [any CodingKey] { Array(decoder.path.prefix(depth)) }

    func decodeNil() -> Bool { decoder.reader.word(value) == JSONTape.null }
    func decode(_ type: Bool.Type) throws -> Bool { try decoder.unboxBool(value, path: codingPath) }
    func decode(_ type: String.Type) throws -> String { try decoder.unboxString(value, path: codingPath) }
    func decode(_ type: Double.Type) throws -> Double { try decoder.unboxDouble(value, path: codingPath) }
    func decode(_ type: Float.Type) throws -> Float { try decoder.unboxFloat(value, path: codingPath) }
    func decode(_ type: Int.Type) throws -> Int { try integer() }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer() }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer() }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer() }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer() }
    func decode(_ type: Int128.Type) throws -> Int128 { try integer() }
    func decode(_ type: UInt.Type) throws -> UInt { try integer() }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer() }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer() }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer() }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer() }
    func decode(_ type: UInt128.Type) throws -> UInt128 { try integer() }

    private func integer<T: FixedWidthInteger>() throws -> T {
        try decoder.unboxInteger(value, as: T.self, path: codingPath)
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try decoder.unbox(value, as: T.self, key: nil)
    }
}

extension JSONTapeReader {
    /// Whether the member name `word` is `name` (UTF-8). A raw name (no escapes) is compared in
    /// place without measuring it: it equals `name` when its first `name.count` bytes do and its
    /// closing quote follows — it has no quote inside, so the first quote is the closing one
    /// (`nameHasQuote`: a name with a quote can only match an escaped name).
    @inline(__always)
    func nameEquals(_ word: UInt32, _ name: UnsafeBufferPointer<UInt8>, nameHasQuote: Bool) -> Bool {
        let payload = JSONTape.payload(word)
        let length = name.count
        if JSONTape.tag(word) == JSONTape.string {
            guard !nameHasQuote, payload &+ length < count else { return false }
            // SAFETY: payload + length < count.
            let start = base + payload
            return start[length] == UInt8(ascii: "\"") && (length == 0 || JSONStrings.equal(start, name.baseAddress!, length))
        }
        let bytes = stringBytes(word)
        return bytes.count == length && (length == 0 || JSONStrings.equal(bytes.baseAddress!, name.baseAddress!, length))
    }
}
