// The three decoding containers of CourierJSONDecoder. Each primitive `decode` forwards to one
// unboxing function of _JSONDecoderImpl, so the rules (exact integers, range checks, null →
// valueNotFound) are written once. Coding paths grow by the member key or by the array index.

/// Member lookup for a keyed container: member names converted by the key strategy; duplicates
/// resolved to the last member. Small objects are searched linearly; larger ones get a dictionary.
struct _JSONMemberTable {
    let names: [String]
    let values: [JSONValue]
    let index: [String: Int]?

    init(_ object: JSONObject, strategy: CourierJSONDecoder.KeyDecodingStrategy) {
        var names: [String] = []
        var values: [JSONValue] = []
        names.reserveCapacity(object.count)
        values.reserveCapacity(object.count)
        for member in object.members {
            names.append(strategy == .convertFromSnakeCase ? JSONKeyConversion.fromSnakeCase(member.key) : member.key)
            values.append(member.value)
        }
        if names.count > 8 {
            var index: [String: Int] = [:]
            index.reserveCapacity(names.count)
            for (position, name) in names.enumerated() { index[name] = position }  // last wins
            self.index = index
        } else {
            self.index = nil
        }
        self.names = names
        self.values = values
    }

    func value(for name: String) -> JSONValue? {
        if let index {
            return index[name].map { values[$0] }
        }
        var position = names.count - 1
        while position >= 0 {
            if names[position] == name { return values[position] }
            position -= 1
        }
        return nil
    }
}

struct _JSONKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: _JSONDecoderImpl
    let table: _JSONMemberTable
    var codingPath: [any CodingKey] { decoder.codingPath }

    init(decoder: _JSONDecoderImpl, object: JSONObject) {
        self.decoder = decoder
        self.table = _JSONMemberTable(object, strategy: decoder.options.keys)
    }

    var allKeys: [Key] {
        var seen = Set<String>()
        var keys: [Key] = []
        for name in table.names where seen.insert(name).inserted {
            if let key = Key(stringValue: name) { keys.append(key) }
        }
        return keys
    }

    func contains(_ key: Key) -> Bool { table.value(for: key.stringValue) != nil }

    private func value(for key: Key) throws -> JSONValue {
        guard let value = table.value(for: key.stringValue) else {
            throw DecodingError.keyNotFound(key, DecodingError.Context(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    func decodeNil(forKey key: Key) throws -> Bool { try value(for: key).isNull }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool {
        try decoder.unboxBool(value(for: key), path: path(key))
    }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        try decoder.unboxString(value(for: key), path: path(key))
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        try decoder.unboxDouble(value(for: key), path: path(key))
    }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float {
        try decoder.unboxFloat(value(for: key), path: path(key))
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

    private func integer<T: FixedWidthInteger>(_ key: Key) throws -> T {
        try decoder.unboxInteger(value(for: key), as: T.self, path: path(key))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.unbox(value(for: key), as: T.self, path: path(key))
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = _JSONDecoderImpl(value: try value(for: key), codingPath: path(key), options: decoder.options)
        return try nested.container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = _JSONDecoderImpl(value: try value(for: key), codingPath: path(key), options: decoder.options)
        return try nested.unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        _JSONDecoderImpl(value: table.value(for: JSONCodingKey.super.stringValue) ?? .null,
                         codingPath: codingPath + [JSONCodingKey.super], options: decoder.options)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        _JSONDecoderImpl(value: table.value(for: key.stringValue) ?? .null, codingPath: path(key), options: decoder.options)
    }
}

struct _JSONUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let decoder: _JSONDecoderImpl
    let elements: [JSONValue]
    var currentIndex = 0

    init(decoder: _JSONDecoderImpl, elements: [JSONValue]) {
        self.decoder = decoder
        self.elements = elements
    }

    var codingPath: [any CodingKey] { decoder.codingPath }
    var count: Int? { elements.count }
    var isAtEnd: Bool { currentIndex >= elements.count }

    private var currentPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: currentIndex)] }

    /// The next element, or valueNotFound at the end (the index is not advanced).
    private func peek(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, DecodingError.Context(
                codingPath: currentPath, debugDescription: "Unkeyed container is at end."))
        }
        return elements[currentIndex]
    }

    mutating func decodeNil() throws -> Bool {
        guard try peek(Never.self).isNull else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool {
        let result = try decoder.unboxBool(peek(type), path: currentPath)
        currentIndex += 1
        return result
    }
    mutating func decode(_ type: String.Type) throws -> String {
        let result = try decoder.unboxString(peek(type), path: currentPath)
        currentIndex += 1
        return result
    }
    mutating func decode(_ type: Double.Type) throws -> Double {
        let result = try decoder.unboxDouble(peek(type), path: currentPath)
        currentIndex += 1
        return result
    }
    mutating func decode(_ type: Float.Type) throws -> Float {
        let result = try decoder.unboxFloat(peek(type), path: currentPath)
        currentIndex += 1
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

    private mutating func integer<T: FixedWidthInteger>() throws -> T {
        let result = try decoder.unboxInteger(peek(T.self), as: T.self, path: currentPath)
        currentIndex += 1
        return result
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let result = try decoder.unbox(peek(type), as: T.self, path: currentPath)
        currentIndex += 1
        return result
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = _JSONDecoderImpl(value: try peek(KeyedDecodingContainer<NestedKey>.self), codingPath: currentPath, options: decoder.options)
        let container = try nested.container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let nested = _JSONDecoderImpl(value: try peek((any UnkeyedDecodingContainer).self), codingPath: currentPath, options: decoder.options)
        let container = try nested.unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let nested = _JSONDecoderImpl(value: try peek((any Decoder).self), codingPath: currentPath, options: decoder.options)
        currentIndex += 1
        return nested
    }
}

struct _JSONSingleValueDecodingContainer: SingleValueDecodingContainer {
    let decoder: _JSONDecoderImpl
    var codingPath: [any CodingKey] { decoder.codingPath }
    private var value: JSONValue { decoder.value }

    init(decoder: _JSONDecoderImpl) { self.decoder = decoder }

    func decodeNil() -> Bool { value.isNull }
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
        try decoder.unbox(value, as: T.self, path: codingPath)
    }
}
