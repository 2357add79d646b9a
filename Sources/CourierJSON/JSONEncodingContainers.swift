// The three encoding containers of CourierJSONEncoder. Each writes into a node of the tree built
// by _JSONEncoderImpl; integers are written in decimal, floating point through the encoder's
// number rules (non-finite values throw).

struct _JSONKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: _JSONEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: _JSONEncoderImpl) { self.encoder = encoder }

    private func slot(_ key: Key) -> _JSONEncodingNode { encoder.node.member(encoder.convertedKey(key)) }
    private func path(_ key: Key) -> [any CodingKey] { codingPath + [key] }

    mutating func encodeNil(forKey key: Key) throws { slot(key).setValue(.null) }
    mutating func encode(_ value: Bool, forKey key: Key) throws { slot(key).setValue(.bool(value)) }
    mutating func encode(_ value: String, forKey key: Key) throws { slot(key).setValue(.string(value)) }
    mutating func encode(_ value: Double, forKey key: Key) throws {
        slot(key).setValue(try encoder.number(value, path: path(key)))
    }
    mutating func encode(_ value: Float, forKey key: Key) throws {
        slot(key).setValue(try encoder.number(value, path: path(key)))
    }
    mutating func encode(_ value: Int, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: Int128, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { integer(value, key) }
    mutating func encode(_ value: UInt128, forKey key: Key) throws { integer(value, key) }

    private func integer(_ value: some FixedWidthInteger, _ key: Key) {
        slot(key).setValue(.number(JSONNumber(value)))
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try encoder.box(value, into: slot(key), path: path(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        _JSONEncoderImpl(node: slot(key), codingPath: path(key), options: encoder.options).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        _JSONEncoderImpl(node: slot(key), codingPath: path(key), options: encoder.options).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        _JSONEncoderImpl(node: encoder.node.member(JSONCodingKey.super.stringValue),
                         codingPath: codingPath + [JSONCodingKey.super], options: encoder.options)
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        _JSONEncoderImpl(node: slot(key), codingPath: path(key), options: encoder.options)
    }
}

struct _JSONUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let encoder: _JSONEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }
    var count: Int { encoder.node.elementCount }

    init(encoder: _JSONEncoderImpl) { self.encoder = encoder }

    private func append(_ value: JSONValue) { encoder.node.appendElement(_JSONEncodingNode(value)) }
    private var nextPath: [any CodingKey] { codingPath + [JSONCodingKey(intValue: count)] }

    mutating func encodeNil() throws { append(.null) }
    mutating func encode(_ value: Bool) throws { append(.bool(value)) }
    mutating func encode(_ value: String) throws { append(.string(value)) }
    mutating func encode(_ value: Double) throws { append(try encoder.number(value, path: nextPath)) }
    mutating func encode(_ value: Float) throws { append(try encoder.number(value, path: nextPath)) }
    mutating func encode(_ value: Int) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int8) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int16) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int32) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int64) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int128) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt8) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt16) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt32) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt64) throws { append(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt128) throws { append(.number(JSONNumber(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let path = nextPath
        let node = _JSONEncodingNode()
        encoder.node.appendElement(node)
        try encoder.box(value, into: node, path: path)
    }

    /// A fresh element slot with its encoder.
    private mutating func elementEncoder() -> _JSONEncoderImpl {
        let path = nextPath
        let node = _JSONEncodingNode()
        encoder.node.appendElement(node)
        return _JSONEncoderImpl(node: node, codingPath: path, options: encoder.options)
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        elementEncoder().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        elementEncoder().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        elementEncoder()
    }
}

struct _JSONSingleValueEncodingContainer: SingleValueEncodingContainer {
    let encoder: _JSONEncoderImpl
    var codingPath: [any CodingKey] { encoder.codingPath }

    init(encoder: _JSONEncoderImpl) { self.encoder = encoder }

    private func store(_ value: JSONValue) { encoder.node.setValue(value) }

    mutating func encodeNil() throws { store(.null) }
    mutating func encode(_ value: Bool) throws { store(.bool(value)) }
    mutating func encode(_ value: String) throws { store(.string(value)) }
    mutating func encode(_ value: Double) throws { store(try encoder.number(value, path: codingPath)) }
    mutating func encode(_ value: Float) throws { store(try encoder.number(value, path: codingPath)) }
    mutating func encode(_ value: Int) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int8) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int16) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int32) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int64) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: Int128) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt8) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt16) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt32) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt64) throws { store(.number(JSONNumber(value))) }
    mutating func encode(_ value: UInt128) throws { store(.number(JSONNumber(value))) }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try encoder.box(value, into: encoder.node, path: codingPath)
    }
}
