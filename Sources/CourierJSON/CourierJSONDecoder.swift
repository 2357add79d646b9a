// CourierJSONDecoder: Decodable values from JSON, without Foundation.
//
// The shape of Foundation's JSONDecoder: keyed, unkeyed and single-value containers over the
// parsed JSON — straight from a JSONDocument's tape for bytes and documents (JSONTapeDecoder.swift,
// no tree in between), or over a JSONValue given by the caller. Behaviour follows Foundation
// where it is specified, identically on both paths:
//   * a missing key → DecodingError.keyNotFound; null for a non-optional → .valueNotFound; the
//     wrong kind of value → .typeMismatch; a number that does not fit the requested type →
//     .dataCorrupted ("Number 300 does not fit in UInt8.") — all with the full coding path;
//   * decodeIfPresent: a missing key and null both give nil;
//   * integers are decoded exactly (1e2 is a valid Int 100; 1.5 is not an Int); Float is rounded
//     from the decimal text directly; a number beyond the type's range is an error, never inf;
//   * duplicate keys: the last one wins (as JSONSerialization);
//   * superDecoder() decodes the value under "super" (null when absent);
//   * keys: useDefaultKeys or convertFromSnakeCase (Foundation's algorithm, JSONKeyConversion).
// Courier additions: `Timestamp` values follow `timestampDecodingStrategy` (seconds since 1970 or
// RFC 3339 text) in place of Foundation's date strategies; `JSONValue` decodes to the raw value.

import CourierBytes

/// Decodes `Decodable` values from JSON text or from a `JSONValue`.
public struct CourierJSONDecoder: Sendable {
    /// How JSON member names map to coding keys.
    public enum KeyDecodingStrategy: Sendable, Hashable {
        /// Member names are the keys.
        case useDefaultKeys
        /// `snake_case` member names become `camelCase` keys (Foundation's algorithm).
        case convertFromSnakeCase
    }

    /// How a `Timestamp` is read from JSON.
    public enum TimestampDecodingStrategy: Sendable, Hashable {
        /// A number of seconds since 1970-01-01T00:00:00Z (fractional seconds allowed).
        case secondsSince1970
        /// A number of milliseconds since 1970-01-01T00:00:00Z.
        case millisecondsSince1970
        /// An RFC 3339 / ISO 8601 string such as `2024-01-02T03:04:05.5+01:00`.
        case iso8601
    }

    /// How member names map to keys. Default `.useDefaultKeys`.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How timestamps are read. Default `.secondsSince1970`.
    public var timestampDecodingStrategy: TimestampDecodingStrategy = .secondsSince1970
    /// Limits for parsing the JSON text.
    public var limits: JSONParser.Limits = JSONParser.Limits()
    /// Values handed to every `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// Creates a decoder with default strategies.
    public init() {}

    /// Decodes a value from JSON text.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - bytes: the whole JSON text.
    /// - Returns: the value.
    /// - Throws: `DecodingError.dataCorrupted` (with the `JSONError` as underlying error) for
    ///   invalid JSON, or the `DecodingError` of the failing decode.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        try decode(type, input: .array(bytes))
    }

    /// Decodes a value from the readable bytes of a buffer.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - buffer: the whole JSON text.
    /// - Returns: the value.
    /// - Throws: as `decode(_:from:)` for bytes.
    public func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        try decode(type, input: .buffer(buffer))
    }

    /// Decodes a value from a parsed document, straight from its tape.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - document: the document (its root is decoded).
    /// - Returns: the value.
    /// - Throws: the `DecodingError` of the failing decode.
    public func decode<T: Decodable>(_ type: T.Type, from document: JSONDocument) throws -> T {
        try decode(type, from: document.root)
    }

    /// Decodes a value from a value of a parsed document, straight from its tape.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - value: the document value.
    /// - Returns: the value.
    /// - Throws: the `DecodingError` of the failing decode.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONDocument.Value) throws -> T {
        let document = value.document
        return try document.input.withBytes { (base, count) throws -> T in
            let decoder = _JSONTapeDecoder(reader: JSONTapeReader(base: base, count: count, storage: document.storage),
                                           index: value.index, options: options, document: document)
            return try decoder.unbox(value.index, as: T.self, key: nil)
        }
    }

    /// Parses into a tape and decodes from it (no tree), or through the reference parser's tree
    /// for inputs beyond a document's size.
    private func decode<T: Decodable>(_ type: T.Type, input: JSONInput) throws -> T {
        guard input.count <= JSONDocument.maximumInputSize else {
            let tree = try parse { (parser) throws(JSONError) in
                try input.withBytes { (base, count) throws(JSONError) in
                    try JSONReferenceParser(limits: parser.limits).parse(UnsafeRawBufferPointer(start: base, count: count))
                }
            }
            return try decode(type, from: tree)
        }
        let storage = JSONTapeStorage()
        return try input.withBytes { (base, count) throws -> T in
            do {
                try JSONTapeBuilder.build(base, count: count, options: JSONDocument.Options(limits: limits), into: storage)
            } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: [], debugDescription: "The given data was not valid JSON (\(error)).", underlyingError: error))
            }
            let decoder = _JSONTapeDecoder(reader: JSONTapeReader(base: base, count: count, storage: storage),
                                           index: 0, options: options, document: nil)
            return try decoder.unbox(0, as: T.self, key: nil)
        }
    }

    /// Decodes a value from JSON text in a string.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - text: the whole JSON text.
    /// - Returns: the value.
    /// - Throws: as `decode(_:from:)` for bytes.
    public func decode<T: Decodable>(_ type: T.Type, from text: String) throws -> T {
        try decode(type, from: Array(text.utf8))
    }

    /// Decodes a value from an already parsed JSON value.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - value: the JSON value.
    /// - Returns: the value.
    /// - Throws: the `DecodingError` of the failing decode.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue) throws -> T {
        let impl = _JSONDecoderImpl(value: value, codingPath: [], options: options)
        return try impl.unbox(value, as: T.self, path: [])
    }

    private func parse(_ body: (JSONParser) throws(JSONError) -> JSONValue) throws -> JSONValue {
        do {
            return try body(JSONParser(limits: limits))
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON (\(error)).", underlyingError: error))
        }
    }

    var options: _JSONDecoderImpl.Options {
        _JSONDecoderImpl.Options(keys: keyDecodingStrategy, timestamps: timestampDecodingStrategy, userInfo: userInfo)
    }
}

/// The `Decoder` behind `CourierJSONDecoder`: one per value being decoded.
final class _JSONDecoderImpl: Decoder {
    struct Options {
        var keys: CourierJSONDecoder.KeyDecodingStrategy
        var timestamps: CourierJSONDecoder.TimestampDecodingStrategy
        var userInfo: [CodingUserInfoKey: any Sendable]
    }

    let value: JSONValue
    let codingPath: [any CodingKey]
    let options: Options
    var userInfo: [CodingUserInfoKey: Any] { options.userInfo }

    init(value: JSONValue, codingPath: [any CodingKey], options: Options) {
        self.value = value
        self.codingPath = codingPath
        self.options = options
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard case .object(let object) = value else {
            throw mismatch([String: Any].self, value, path: codingPath)
        }
        return KeyedDecodingContainer(_JSONKeyedDecodingContainer<Key>(decoder: self, object: object))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard case .array(let elements) = value else {
            throw mismatch([Any].self, value, path: codingPath)
        }
        return _JSONUnkeyedDecodingContainer(decoder: self, elements: elements.elements)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        _JSONSingleValueDecodingContainer(decoder: self)
    }

    // MARK: Unboxing (shared by every container)

    func mismatch(_ type: Any.Type, _ value: JSONValue, path: [any CodingKey]) -> DecodingError {
        if case .null = value {
            return .valueNotFound(type, DecodingError.Context(
                codingPath: path, debugDescription: "Expected \(type) value but found null instead."))
        }
        return .typeMismatch(type, DecodingError.Context(
            codingPath: path, debugDescription: "Expected to decode \(type) but found \(value.kindDescription) instead."))
    }

    func unboxBool(_ value: JSONValue, path: [any CodingKey]) throws -> Bool {
        guard case .bool(let flag) = value else { throw mismatch(Bool.self, value, path: path) }
        return flag
    }

    func unboxString(_ value: JSONValue, path: [any CodingKey]) throws -> String {
        guard case .string(let string) = value else { throw mismatch(String.self, value, path: path) }
        return string
    }

    func unboxInteger<T: FixedWidthInteger>(_ value: JSONValue, as type: T.Type, path: [any CodingKey]) throws -> T {
        guard case .number(let number) = value else { throw mismatch(T.self, value, path: path) }
        guard let result = number.integer(as: T.self) else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path, debugDescription: "Number \(number.text) does not fit in \(T.self)."))
        }
        return result
    }

    func unboxDouble(_ value: JSONValue, path: [any CodingKey]) throws -> Double {
        guard case .number(let number) = value else { throw mismatch(Double.self, value, path: path) }
        guard let result = number.double else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path, debugDescription: "Number \(number.text) does not fit in Double."))
        }
        return result
    }

    func unboxFloat(_ value: JSONValue, path: [any CodingKey]) throws -> Float {
        guard case .number(let number) = value else { throw mismatch(Float.self, value, path: path) }
        guard let result = number.float else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: path, debugDescription: "Number \(number.text) does not fit in Float."))
        }
        return result
    }

    func unboxTimestamp(_ value: JSONValue, path: [any CodingKey]) throws -> Timestamp {
        switch options.timestamps {
        case .secondsSince1970, .millisecondsSince1970:
            var seconds = try unboxDouble(value, path: path)
            if options.timestamps == .millisecondsSince1970 { seconds /= 1000 }
            guard let timestamp = Timestamp(secondsSince1970: seconds) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path, debugDescription: "\(seconds) seconds is not a representable timestamp."))
            }
            return timestamp
        case .iso8601:
            let text = try unboxString(value, path: path)
            guard let timestamp = Timestamp(iso8601: text) else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: path, debugDescription: "Expected date string to be ISO8601-formatted."))
            }
            return timestamp
        }
    }

    /// Decodes any `Decodable` from `value`, intercepting the types the JSON form knows better.
    func unbox<T: Decodable>(_ value: JSONValue, as type: T.Type, path: [any CodingKey]) throws -> T {
        if T.self == Timestamp.self {
            return try unboxTimestamp(value, path: path) as! T
        }
        if T.self == JSONValue.self {
            return value as! T
        }
        let decoder = _JSONDecoderImpl(value: value, codingPath: path, options: options)
        return try T(from: decoder)
    }
}
