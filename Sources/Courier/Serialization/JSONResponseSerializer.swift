// JSONResponseSerializer: AFJSONResponseSerializer.
//
// - Content types application/json, text/json, text/javascript (AFNetworking's set).
// - An empty body or a body of exactly one space byte gives no value and no error: AFNetworking's
//   quirk for Rails' `head :ok`, which sends a single space.
// - Top-level scalars only with `allowsFragments` (NSJSONReadingAllowFragments); otherwise
//   `.jsonFragmentNotAllowed`.
// - `removesKeysWithNullValues`: CourierJSON's sanitizer rule, applied while parsing — members
//   whose value is null are dropped at every depth, and (a Courier fix, design §8) so are null
//   array elements.
// - Parse errors: `.invalidJSON` (3840) with the `JSONError` underlying and its byte offset.

import CourierBytes
import CourierJSON

/// AFJSONResponseSerializer: the body as a `JSONValue`.
public struct JSONResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/json, text/json, text/javascript).
    public var acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    /// Whether a top-level scalar is accepted (NSJSONReadingAllowFragments). Default false.
    public var allowsFragments: Bool = false
    /// Whether null members (and null array elements) are removed. Default false.
    public var removesKeysWithNullValues: Bool = false
    /// Parser limits (nesting depth 512 by default).
    public var limits: JSONParser.Limits = JSONParser.Limits()

    /// Creates a serializer.
    /// - Parameters:
    ///   - allowsFragments: accept top-level scalars.
    ///   - removesKeysWithNullValues: remove null members.
    public init(allowsFragments: Bool = false, removesKeysWithNullValues: Bool = false) {
        self.allowsFragments = allowsFragments
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// Parses the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value, or nil for an empty or single-space body.
    /// - Throws: `.invalidJSON` or `.jsonFragmentNotAllowed`.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> JSONValue? {
        if JSONResponseSerializer.isEmptyQuirk(body) { return nil }
        let value: JSONValue
        do { value = try JSONParser(limits: limits, removesNullValues: removesKeysWithNullValues).parse(body) } catch {
            throw ResponseSerializationError(.invalidJSON, head: head, body: body, offset: error.offset, detail: error)
        }
        if !allowsFragments {
            switch value {
            case .array, .object: break
            default: throw ResponseSerializationError(.jsonFragmentNotAllowed, head: head, body: body, offset: 0)
            }
        }
        return value
    }

    /// AFNetworking: `data.length == 0 || [data isEqualToData:[NSData dataWithBytes:" " length:1]]`.
    static func isEmptyQuirk(_ body: ByteBuffer) -> Bool {
        body.readableBytes == 0 || (body.readableBytes == 1 && body.getInteger(at: body.readerIndex) == UInt8(ascii: " "))
    }
}

/// A `Decodable` from a JSON body, through `CourierJSONDecoder` (validation and the empty-body
/// quirk as for `JSONResponseSerializer`).
public struct DecodableResponseSerializer<T: Decodable & Sendable>: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/json, text/json, text/javascript).
    public var acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    /// The decoder.
    public var decoder: CourierJSONDecoder

    /// Creates a serializer.
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - decoder: the decoder (default settings).
    public init(_ type: T.Type = T.self, decoder: CourierJSONDecoder = CourierJSONDecoder()) {
        self.decoder = decoder
    }

    /// Decodes the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value, or nil for an empty or single-space body.
    /// - Throws: `.invalidJSON` for bytes that are not JSON, `.decodingFailed` for JSON that does
    ///   not fit `T`.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> T? {
        if JSONResponseSerializer.isEmptyQuirk(body) { return nil }
        let json: JSONValue
        do { json = try JSONParser(limits: decoder.limits).parse(body) } catch {
            throw ResponseSerializationError(.invalidJSON, head: head, body: body, offset: error.offset, detail: error)
        }
        do { return try decoder.decode(T.self, from: json) } catch {
            throw ResponseSerializationError(.decodingFailed, head: head, body: body, detail: error)
        }
    }
}

