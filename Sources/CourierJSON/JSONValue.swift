// JSONValue: a parsed JSON document as a Swift value (RFC 8259 §3).
//
// Objects keep their members in the order they were read, duplicates included (RFC 8259 §4 only
// says names SHOULD be unique); numbers keep their exact text (see JSONNumber). A document parsed
// and written back compactly therefore reproduces the input minus insignificant whitespace and
// with strings re-escaped canonically.

/// A JSON value.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number, kept as its exact text.
    case number(JSONNumber)
    /// A string (always valid Unicode: the parser rejects ill-formed UTF-8 and lone surrogates).
    case string(String)
    /// An array (its elements in a box that frees deep trees without recursion).
    case array(JSONArray)
    /// An object, members in insertion order.
    case object(JSONObject)

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The Boolean, when this is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The number, when this is a number.
    public var numberValue: JSONNumber? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value.elements }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The value of the last member named `key`, when this is an object that has one.
    /// - Parameter key: the member name.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }

    /// The element at `index`, when this is an array and `index` is in range.
    /// - Parameter index: a zero-based position.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// A short name of the kind of value (`"null"`, `"a number"`, …) for error messages.
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

extension JSONValue: ExpressibleByNilLiteral {
    /// `nil` is `null`.
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: ExpressibleByBooleanLiteral {
    /// A Boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension JSONValue: ExpressibleByIntegerLiteral {
    /// An integer literal, written in decimal.
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
}

extension JSONValue: ExpressibleByFloatLiteral {
    /// A floating-point literal, written in the shortest form that reads back as the same double.
    /// A literal cannot be infinite or NaN, so this never fails.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)!) }
}

extension JSONValue: ExpressibleByStringLiteral {
    /// A string literal.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension JSONValue: ExpressibleByArrayLiteral {
    /// An array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(JSONArray(elements)) }
}

extension JSONValue: ExpressibleByDictionaryLiteral {
    /// An object literal; members keep the literal's order (and its duplicates).
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(elements.map { JSONObject.Member(key: $0.0, value: $0.1) }))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The compact JSON text of the value.
    public var description: String { JSONWriter.string(self) }
}

extension JSONValue: Codable {
    /// Decodes any JSON value. With `CourierJSONDecoder` the value is taken over unchanged
    /// (numbers keep their text); with other decoders it is rebuilt from their primitives.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` when the decoder holds something that is not JSON.
    public init(from decoder: any Decoder) throws {
        if let ours = decoder as? _JSONDecoderImpl {
            self = ours.value
            return
        }
        if let tape = decoder as? _JSONTapeDecoder {
            self = tape.reader.jsonValue(at: tape.index)
            return
        }
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .number(JSONNumber(value))
        } else if let value = try? container.decode(Double.self), let number = JSONNumber(value) {
            self = .number(number)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(JSONArray(value))
        } else if let value = try? container.decode([String: JSONValue].self) {
            self = .object(JSONObject(value.map { JSONObject.Member(key: $0.key, value: $0.value) }))
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not a JSON value.")
        }
    }

    /// Encodes the value. With `CourierJSONEncoder` it is taken over unchanged (numbers keep their
    /// text); with other encoders numbers become `Int64`, `UInt64` or `Double`.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        if let ours = encoder as? _JSONEncoderImpl {
            ours.storeValue(self)
            return
        }
        switch self {
        case .null:
            var container = encoder.singleValueContainer()
            try container.encodeNil()
        case .bool(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .number(let number):
            var container = encoder.singleValueContainer()
            if let value = number.int64 {
                try container.encode(value)
            } else if let value = number.uint64 {
                try container.encode(value)
            } else {
                try container.encode(number.double ?? .nan)
            }
        case .string(let value):
            var container = encoder.singleValueContainer()
            try container.encode(value)
        case .array(let elements):
            var container = encoder.unkeyedContainer()
            for element in elements { try container.encode(element) }
        case .object(let object):
            var container = encoder.container(keyedBy: JSONCodingKey.self)
            for member in object.members { try container.encode(member.value, forKey: JSONCodingKey(member.key)) }
        }
    }
}
