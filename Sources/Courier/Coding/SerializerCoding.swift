// Codable serializer settings (issue 16): AFHTTPRequestSerializer and AFHTTPResponseSerializer and
// their subclasses support NSSecureCoding; Courier's serializers are Codable, through CourierJSON's
// coders or any other. What is encoded is each serializer's plain settings:
//
// - request serializers: the default header fields (in order, duplicates kept), the timeout and the
//   methods that put parameters in the URI (RequestDefaults), plus the JSON writing options;
// - response serializers: the acceptable status codes and content types (null meaning "any", as a
//   nil set does) and each one's reading settings — allowsFragments, removesKeysWithNullValues and
//   the depth limit for JSON, the XML and property-list limits, the default charset for text.
//
// Not encoded, because they are code or live objects rather than values: RequestDefaults'
// `queryStringSerialization` closure (AFNetworking does not archive its query-string block either),
// a DecodableResponseSerializer's `CourierJSONDecoder` (its strategies may be closures; a decoded
// serializer has a default decoder), and CompoundResponseSerializer, whose members are any
// serializers of any type (encode the members yourself). Missing keys decode to the defaults, so a
// settings file can name only what it changes.

import CourierHTTP1
import CourierJSON

/// A duration written exactly, as whole seconds and attoseconds (`Duration.components`).
struct CodedDuration: Codable, Sendable {
    var seconds: Int64
    var attoseconds: Int64

    init(_ duration: Duration) { (seconds, attoseconds) = duration.components }

    var duration: Duration { Duration(secondsComponent: seconds, attosecondsComponent: attoseconds) }
}

extension KeyedEncodingContainer {
    /// Encodes a set sorted (stable output), or null for nil.
    mutating func encodeSorted<T: Encodable & Comparable>(_ set: Set<T>?, forKey key: Key) throws {
        if let set { try encode(set.sorted(), forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// Encodes a value, or null for nil.
    mutating func encodeOptional<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// Encodes a duration exactly, or null for nil.
    mutating func encodeDuration(_ duration: Duration?, forKey key: Key) throws {
        if let duration { try encode(CodedDuration(duration), forKey: key) } else { try encodeNil(forKey: key) }
    }
}

extension KeyedDecodingContainer {
    /// The value for `key`: `current` when the key is absent, nil when it is null.
    func decodeOptional<T: Decodable>(_ type: T.Type, forKey key: Key, keeping current: T?) throws -> T? {
        guard contains(key) else { return current }
        if try decodeNil(forKey: key) { return nil }
        return try decode(T.self, forKey: key)
    }

    /// The value for `key`, or `current` when the key is absent.
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key, keeping current: T) throws -> T {
        try decodeIfPresent(T.self, forKey: key) ?? current
    }

    func decodeSet<T: Decodable & Hashable>(_ type: T.Type, forKey key: Key, keeping current: Set<T>?) throws -> Set<T>? {
        guard contains(key) else { return current }
        if try decodeNil(forKey: key) { return nil }
        return Set(try decode([T].self, forKey: key))
    }

    func decodeDuration(forKey key: Key, keeping current: Duration?) throws -> Duration? {
        try decodeOptional(CodedDuration.self, forKey: key, keeping: current.map(CodedDuration.init))?.duration
    }
}

// MARK: - Request serializers

extension RequestDefaults: Codable {
    private enum CodingKeys: String, CodingKey {
        case headers, timeout, httpMethodsEncodingParametersInURI
    }

    /// Decodes the defaults; absent fields keep `RequestDefaults()`'s values, and
    /// `queryStringSerialization` is nil (a closure is not encoded).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        headers = try container.decode(HTTPHeaders.self, forKey: .headers, keeping: headers)
        timeout = try container.decodeDuration(forKey: .timeout, keeping: timeout)
        httpMethodsEncodingParametersInURI = try container.decode(
            Set<String>.self, forKey: .httpMethodsEncodingParametersInURI, keeping: httpMethodsEncodingParametersInURI)
    }

    /// Encodes the header fields, the timeout (null for none) and the URI methods (sorted).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(headers, forKey: .headers)
        try container.encodeDuration(timeout, forKey: .timeout)
        try container.encode(httpMethodsEncodingParametersInURI.sorted(), forKey: .httpMethodsEncodingParametersInURI)
    }
}

private enum RequestSerializerCodingKeys: String, CodingKey {
    case defaults, writingOptions
}

extension FormRequestSerializer: Codable {
    /// Decodes the serializer's ``RequestDefaults`` from `defaults`.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RequestSerializerCodingKeys.self)
        self.init(defaults: try container.decode(RequestDefaults.self, forKey: .defaults, keeping: RequestDefaults()))
    }

    /// Encodes `{"defaults": …}`.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RequestSerializerCodingKeys.self)
        try container.encode(defaults, forKey: .defaults)
    }
}

extension PropertyListRequestSerializer: Codable {
    /// Decodes the serializer's ``RequestDefaults`` from `defaults`.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RequestSerializerCodingKeys.self)
        self.init(defaults: try container.decode(RequestDefaults.self, forKey: .defaults, keeping: RequestDefaults()))
    }

    /// Encodes `{"defaults": …}`.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RequestSerializerCodingKeys.self)
        try container.encode(defaults, forKey: .defaults)
    }
}

extension JSONRequestSerializer: Codable {
    /// Decodes the defaults and the writing options (`["prettyPrinted", "sortedKeys"]`).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type or an unknown option name.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: RequestSerializerCodingKeys.self)
        var options: JSONWriter.Options = []
        for name in try container.decode([String].self, forKey: .writingOptions, keeping: []) {
            switch name {
            case "prettyPrinted": options.insert(.prettyPrinted)
            case "sortedKeys": options.insert(.sortedKeys)
            default:
                throw DecodingError.dataCorruptedError(
                    forKey: .writingOptions, in: container,
                    debugDescription: "unknown JSON writing option \"\(name)\" (prettyPrinted, sortedKeys)")
            }
        }
        self.init(defaults: try container.decode(RequestDefaults.self, forKey: .defaults, keeping: RequestDefaults()),
                  writingOptions: options)
    }

    /// Encodes `{"defaults": …, "writingOptions": [names]}`.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: RequestSerializerCodingKeys.self)
        try container.encode(defaults, forKey: .defaults)
        var names: [String] = []
        if writingOptions.contains(.prettyPrinted) { names.append("prettyPrinted") }
        if writingOptions.contains(.sortedKeys) { names.append("sortedKeys") }
        try container.encode(names, forKey: .writingOptions)
    }
}

// MARK: - Response serializers

private enum ResponseSerializerCodingKeys: String, CodingKey {
    case acceptableStatusCodes, acceptableContentTypes
    case allowsFragments, removesKeysWithNullValues, maximumDepth, maximumAttributes, maximumValues, defaultCharset
}

/// The validation settings every response serializer has.
private protocol ValidationSettings {
    var acceptableStatusCodes: Set<Int>? { get set }
    var acceptableContentTypes: Set<String>? { get set }
}

extension ValidationSettings {
    mutating func decodeValidation(_ container: KeyedDecodingContainer<ResponseSerializerCodingKeys>) throws {
        acceptableStatusCodes = try container.decodeSet(Int.self, forKey: .acceptableStatusCodes, keeping: acceptableStatusCodes)
        acceptableContentTypes = try container.decodeSet(String.self, forKey: .acceptableContentTypes, keeping: acceptableContentTypes)
    }

    func encodeValidation(_ container: inout KeyedEncodingContainer<ResponseSerializerCodingKeys>) throws {
        try container.encodeSorted(acceptableStatusCodes, forKey: .acceptableStatusCodes)
        try container.encodeSorted(acceptableContentTypes, forKey: .acceptableContentTypes)
    }
}

extension DataResponseSerializer: ValidationSettings {}
extension StringResponseSerializer: ValidationSettings {}
extension JSONResponseSerializer: ValidationSettings {}
extension JSONDocumentResponseSerializer: ValidationSettings {}
extension DecodableResponseSerializer: ValidationSettings {}
extension XMLResponseSerializer: ValidationSettings {}
extension PropertyListResponseSerializer: ValidationSettings {}
extension ImageResponseSerializer: ValidationSettings {}

extension DataResponseSerializer: Codable {
    /// Decodes the acceptable status codes and content types (null: any).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        try decodeValidation(try decoder.container(keyedBy: ResponseSerializerCodingKeys.self))
    }

    /// Encodes the acceptable status codes and content types, sorted (null: any).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
    }
}

extension ImageResponseSerializer: Codable {
    /// Decodes the acceptable status codes and content types (null: any).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        try decodeValidation(try decoder.container(keyedBy: ResponseSerializerCodingKeys.self))
    }

    /// Encodes the acceptable status codes and content types, sorted (null: any).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
    }
}

extension DecodableResponseSerializer: Codable {
    /// Decodes the acceptable status codes and content types; the decoder is a default
    /// `CourierJSONDecoder` (its strategies are not encoded).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init(T.self)
        try decodeValidation(try decoder.container(keyedBy: ResponseSerializerCodingKeys.self))
    }

    /// Encodes the acceptable status codes and content types, sorted (null: any).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
    }
}

extension StringResponseSerializer: Codable {
    /// Decodes the validation settings and `defaultCharset`.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try decodeValidation(container)
        defaultCharset = try container.decode(String.self, forKey: .defaultCharset, keeping: defaultCharset)
    }

    /// Encodes the validation settings and `defaultCharset`.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
        try container.encode(defaultCharset, forKey: .defaultCharset)
    }
}

/// The reading settings the two JSON serializers share (`JSONDocumentResponseSerializer` is
/// `JSONResponseSerializer` without the tree), coded once for both.
private protocol JSONReadingSettings: ValidationSettings {
    var allowsFragments: Bool { get set }
    var removesKeysWithNullValues: Bool { get set }
    var limits: JSONParser.Limits { get set }
}

extension JSONReadingSettings {
    /// Decodes the validation settings, `allowsFragments`, `removesKeysWithNullValues` and the
    /// depth limit (`maximumDepth`) over the current values.
    mutating func decodeJSONReading(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try decodeValidation(container)
        allowsFragments = try container.decode(Bool.self, forKey: .allowsFragments, keeping: allowsFragments)
        removesKeysWithNullValues = try container.decode(Bool.self, forKey: .removesKeysWithNullValues, keeping: removesKeysWithNullValues)
        limits.maxDepth = try container.decode(Int.self, forKey: .maximumDepth, keeping: limits.maxDepth)
    }

    /// Encodes the validation settings and the reading options.
    func encodeJSONReading(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
        try container.encode(allowsFragments, forKey: .allowsFragments)
        try container.encode(removesKeysWithNullValues, forKey: .removesKeysWithNullValues)
        try container.encode(limits.maxDepth, forKey: .maximumDepth)
    }
}

extension JSONResponseSerializer: JSONReadingSettings {}
extension JSONDocumentResponseSerializer: JSONReadingSettings {}

extension JSONResponseSerializer: Codable {
    /// Decodes the validation settings, `allowsFragments`, `removesKeysWithNullValues` and the
    /// depth limit (`maximumDepth`).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        try decodeJSONReading(from: decoder)
    }

    /// Encodes the validation settings and the reading options.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws { try encodeJSONReading(to: encoder) }
}

extension JSONDocumentResponseSerializer: Codable {
    /// Decodes the validation settings, `allowsFragments`, `removesKeysWithNullValues` and the
    /// depth limit (`maximumDepth`), as `JSONResponseSerializer` does.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        try decodeJSONReading(from: decoder)
    }

    /// Encodes the validation settings and the reading options, as `JSONResponseSerializer` does.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws { try encodeJSONReading(to: encoder) }
}

extension XMLResponseSerializer: Codable {
    /// Decodes the validation settings and the parser limits (`maximumDepth`, `maximumAttributes`).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try decodeValidation(container)
        limits.maxDepth = try container.decode(Int.self, forKey: .maximumDepth, keeping: limits.maxDepth)
        limits.maxAttributes = try container.decode(Int.self, forKey: .maximumAttributes, keeping: limits.maxAttributes)
    }

    /// Encodes the validation settings and the parser limits.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
        try container.encode(limits.maxDepth, forKey: .maximumDepth)
        try container.encode(limits.maxAttributes, forKey: .maximumAttributes)
    }
}

extension PropertyListResponseSerializer: Codable {
    /// Decodes the validation settings and the parser limits (`maximumDepth`, `maximumValues`).
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a value of the wrong type.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try decodeValidation(container)
        limits.maxDepth = try container.decode(Int.self, forKey: .maximumDepth, keeping: limits.maxDepth)
        limits.maxValues = try container.decode(Int.self, forKey: .maximumValues, keeping: limits.maxValues)
    }

    /// Encodes the validation settings and the parser limits.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ResponseSerializerCodingKeys.self)
        try encodeValidation(&container)
        try container.encode(limits.maxDepth, forKey: .maximumDepth)
        try container.encode(limits.maxValues, forKey: .maximumValues)
    }
}
