// CourierJSONEncoder: Encodable → JSONValue → JSON text, without Foundation.
//
// Encoding writes into a tree of reference nodes (containers may be requested, and written to,
// in any order, and super-encoders write into a slot reserved in their parent), which becomes a
// JSONValue at the end and then bytes through JSONWriter. Behaviour follows Foundation's
// JSONEncoder where it is specified:
//   * Double/Float: the shortest text that reads back the same, with Foundation's trailing ".0"
//     dropped (5.0 → 5); NaN and infinities throw EncodingError.invalidValue;
//   * a top-level value that encodes nothing throws; a nested one becomes `{}`;
//   * encoding a key twice keeps the last value (at the position of the first);
//   * superEncoder() writes under "super";
//   * keys: useDefaultKeys or convertToSnakeCase (Foundation's algorithm, JSONKeyConversion);
//   * output: compact by default; prettyPrinted, sortedKeys (JSONWriter.Options).
// Courier additions: `Timestamp` follows `timestampEncodingStrategy`; `JSONValue` is written as is.

import CourierBytes

/// Encodes `Encodable` values as JSON.
public struct CourierJSONEncoder: Sendable {
    /// How coding keys become member names.
    public enum KeyEncodingStrategy: Sendable, Hashable {
        /// Keys are the member names.
        case useDefaultKeys
        /// `camelCase` keys become `snake_case` names (Foundation's algorithm).
        case convertToSnakeCase
    }

    /// How a `Timestamp` is written.
    public enum TimestampEncodingStrategy: Sendable, Hashable {
        /// A number of seconds since 1970-01-01T00:00:00Z (an integer when there are no
        /// nanoseconds).
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// An RFC 3339 string in UTC, e.g. `2024-01-02T03:04:05.5Z`.
        case iso8601
    }

    /// Output formatting: `prettyPrinted` and `sortedKeys`.
    public typealias OutputFormatting = JSONWriter.Options

    /// Output formatting. Default compact, insertion order.
    public var outputFormatting: OutputFormatting = []
    /// How keys become names. Default `.useDefaultKeys`.
    public var keyEncodingStrategy: KeyEncodingStrategy = .useDefaultKeys
    /// How timestamps are written. Default `.secondsSince1970`.
    public var timestampEncodingStrategy: TimestampEncodingStrategy = .secondsSince1970
    /// Values handed to every `Encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates an encoder with default settings.
    public init() {}

    /// Encodes a value as JSON text.
    /// - Parameter value: the value.
    /// - Returns: the UTF-8 bytes.
    /// - Throws: `EncodingError.invalidValue` for non-finite numbers, unrepresentable timestamps,
    ///   or a top-level value that encodes nothing.
    public func encode<T: Encodable>(_ value: T) throws -> [UInt8] {
        JSONWriter.write(try encodeToJSONValue(value), options: outputFormatting)
    }

    /// Encodes a value as JSON text appended to a buffer.
    /// - Parameters:
    ///   - value: the value.
    ///   - buffer: where the bytes go; unchanged when an error is thrown.
    /// - Throws: as `encode(_:)`.
    public func encode<T: Encodable>(_ value: T, into buffer: inout ByteBuffer) throws {
        JSONWriter.write(try encodeToJSONValue(value), options: outputFormatting, into: &buffer)
    }

    /// Encodes a value as a `JSONValue`.
    /// - Parameter value: the value.
    /// - Returns: the JSON value.
    /// - Throws: as `encode(_:)`.
    public func encodeToJSONValue<T: Encodable>(_ value: T) throws -> JSONValue {
        let root = _JSONEncodingNode()
        let options = _JSONEncoderImpl.Options(keys: keyEncodingStrategy, timestamps: timestampEncodingStrategy, userInfo: userInfo)
        let encoder = _JSONEncoderImpl(node: root, codingPath: [], options: options)
        try encoder.box(value, into: root, path: [])
        guard let result = root.jsonValue(topLevel: true) else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: [], debugDescription: "Top-level \(T.self) did not encode any values."))
        }
        return result
    }
}

/// A slot in the tree being encoded.
final class _JSONEncodingNode {
    enum Content {
        case empty
        case value(JSONValue)
        case array([_JSONEncodingNode])
        case object(names: [String], nodes: [String: _JSONEncodingNode])
    }

    var content: Content = .empty

    init() {}

    init(_ value: JSONValue) { content = .value(value) }

    func becomeObject() {
        switch content {
        case .empty: content = .object(names: [], nodes: [:])
        case .object: break
        default: preconditionFailure("Attempt to push a keyed encoding container where a value was already encoded.")
        }
    }

    func becomeArray() {
        switch content {
        case .empty: content = .array([])
        case .array: break
        default: preconditionFailure("Attempt to push an unkeyed encoding container where a value was already encoded.")
        }
    }

    func setValue(_ value: JSONValue) {
        switch content {
        case .empty, .value: content = .value(value)
        default: preconditionFailure("Attempt to encode a single value where a container was already created.")
        }
    }

    /// The node for `name` in this object, created empty (or emptied) for a new value.
    func member(_ name: String) -> _JSONEncodingNode {
        guard case .object(var names, var nodes) = content else { preconditionFailure("not an object") }
        let node = _JSONEncodingNode()
        content = .empty  // drop the reference so the dictionary is uniquely owned
        if nodes.updateValue(node, forKey: name) == nil { names.append(name) }
        content = .object(names: names, nodes: nodes)
        return node
    }

    /// Appends an element slot to this array.
    func appendElement(_ node: _JSONEncodingNode) {
        guard case .array(var elements) = content else { preconditionFailure("not an array") }
        content = .empty
        elements.append(node)
        content = .array(elements)
    }

    var elementCount: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }

    /// The finished value; nil for an empty top-level node. Nested empty nodes become `{}`.
    func jsonValue(topLevel: Bool = false) -> JSONValue? {
        switch content {
        case .empty: return topLevel ? nil : .object(JSONObject())
        case .value(let value): return value
        case .array(let elements): return .array(JSONArray(elements.map { $0.jsonValue()! }))
        case .object(let names, let nodes):
            return .object(JSONObject(names.map { JSONObject.Member(key: $0, value: nodes[$0]!.jsonValue()!) }))
        }
    }
}

/// The `Encoder` behind `CourierJSONEncoder`: one per slot being encoded.
final class _JSONEncoderImpl: Encoder {
    struct Options {
        var keys: CourierJSONEncoder.KeyEncodingStrategy
        var timestamps: CourierJSONEncoder.TimestampEncodingStrategy
        var userInfo: [CodingUserInfoKey: any Sendable]
    }

    let node: _JSONEncodingNode
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(node: _JSONEncodingNode, codingPath: [any CodingKey], options: Options) {
        self.node = node
        self.codingPath = codingPath
        self.options = options
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        node.becomeObject()
        return KeyedEncodingContainer(_JSONKeyedEncodingContainer<Key>(encoder: self))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        node.becomeArray()
        return _JSONUnkeyedEncodingContainer(encoder: self)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        _JSONSingleValueEncodingContainer(encoder: self)
    }

    /// Stores a raw JSON value in this encoder's slot (JSONValue's own `encode(to:)`).
    func storeValue(_ value: JSONValue) { node.setValue(value) }

    func convertedKey(_ key: some CodingKey) -> String {
        switch options.keys {
        case .useDefaultKeys: return key.stringValue
        case .convertToSnakeCase: return JSONKeyConversion.toSnakeCase(key.stringValue)
        }
    }

    // MARK: Boxing

    func number(_ value: Double, path: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: path, debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        return .number(JSONNumber(uncheckedText: _JSONEncoderImpl.trimmingPointZero(value.description)))
    }

    func number(_ value: Float, path: [any CodingKey]) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, EncodingError.Context(
                codingPath: path, debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        return .number(JSONNumber(uncheckedText: _JSONEncoderImpl.trimmingPointZero(value.description)))
    }

    /// Foundation writes integral floating-point values without ".0".
    static func trimmingPointZero(_ text: String) -> String {
        text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    func timestamp(_ value: Timestamp, path: [any CodingKey]) throws -> JSONValue {
        switch options.timestamps {
        case .secondsSince1970:
            if value.nanoseconds == 0 { return .number(JSONNumber(value.seconds)) }
            return try number(value.secondsSince1970, path: path)
        case .millisecondsSince1970:
            let (millis, overflow) = value.seconds.multipliedReportingOverflow(by: 1000)
            if value.nanoseconds % 1_000_000 == 0 && !overflow {
                return .number(JSONNumber(millis + Int64(value.nanoseconds / 1_000_000)))
            }
            return try number(Double(value.seconds) * 1000 + Double(value.nanoseconds) / 1e6, path: path)
        case .iso8601:
            guard let text = value.iso8601String() else {
                throw EncodingError.invalidValue(value, EncodingError.Context(
                    codingPath: path, debugDescription: "Timestamp \(value) has a year outside 0000–9999."))
            }
            return .string(text)
        }
    }

    /// Encodes any `Encodable` into `node`, intercepting the types the JSON form knows better.
    func box<T: Encodable>(_ value: T, into node: _JSONEncodingNode, path: [any CodingKey]) throws {
        // Compare metatypes first: cheaper than a dynamic cast for every value encoded.
        if T.self == Timestamp.self, let timestamp = value as? Timestamp {
            node.setValue(try self.timestamp(timestamp, path: path))
            return
        }
        if T.self == JSONValue.self, let json = value as? JSONValue {
            node.setValue(json)
            return
        }
        let encoder = node === self.node && path.count == codingPath.count
            ? self : _JSONEncoderImpl(node: node, codingPath: path, options: options)
        try value.encode(to: encoder)
    }
}
