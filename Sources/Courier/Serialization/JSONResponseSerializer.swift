// JSONResponseSerializer: AFJSONResponseSerializer.
//
// - Content types application/json, text/json, text/javascript (AFNetworking's set).
// - An empty body or a body of exactly one space byte gives no value and no error: AFNetworking's
//   quirk for Rails' `head :ok`, which sends a single space.
// - Any JSON value is a valid top-level text (RFC 8259 §2), so top-level scalars are accepted
//   by default; `allowsFragments = false` refuses them with `.jsonFragmentNotAllowed`, as
//   AFNetworking does without NSJSONReadingAllowFragments.
// - `removesKeysWithNullValues`: CourierJSON's sanitizer rule, applied while parsing — members
//   whose value is null are dropped at every depth, and (a Courier fix, design §8) so are null
//   array elements. A repeated member name keeps its last member, before null removal.
// - A UTF-8 byte order mark before the text is skipped (RFC 8259 §8.1, as JSONSerialization).
// - Parse errors: `.invalidJSON` (3840) with the `JSONError` underlying and its byte offset.
//
// All three serializers parse into a JSONDocument (one tape over the body): the JSON serializer
// converts it to a `JSONValue` tree, `JSONDocumentResponseSerializer` hands the document itself
// over (no tree: what the CLI prints from), and the Decodable serializer decodes from its tape.

import CourierBytes
import CourierJSON

/// AFJSONResponseSerializer: the body as a `JSONValue`.
public struct JSONResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/json, text/json, text/javascript).
    public var acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    /// Whether a top-level scalar is accepted (NSJSONReadingAllowFragments). Default true: any
    /// JSON value is a JSON text (RFC 8259 §2).
    public var allowsFragments: Bool = true
    /// Whether null members (and null array elements) are removed. Default false.
    public var removesKeysWithNullValues: Bool = false
    /// Parser limits (nesting depth 512 by default).
    public var limits: JSONParser.Limits = JSONParser.Limits()

    /// Creates a serializer.
    /// - Parameters:
    ///   - allowsFragments: accept top-level scalars.
    ///   - removesKeysWithNullValues: remove null members.
    public init(allowsFragments: Bool = true, removesKeysWithNullValues: Bool = false) {
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
        let document = try JSONDocumentResponseSerializer.document(
            head: head, body: body, options: JSONDocument.Options(limits: limits, removesNullValues: removesKeysWithNullValues),
            allowsFragments: allowsFragments)
        return JSONValue(document.root)
    }

    /// AFNetworking: `data.length == 0 || [data isEqualToData:[NSData dataWithBytes:" " length:1]]`.
    static func isEmptyQuirk(_ body: ByteBuffer) -> Bool {
        body.readableBytes == 0 || (body.readableBytes == 1 && body.getInteger(at: body.readerIndex) == UInt8(ascii: " "))
    }
}

/// The body as a `JSONDocument`: AFJSONResponseSerializer's validation and options, without
/// building a tree — values are views of one tape over the body (CourierJSON's `JSONDocument`),
/// converted on demand (`JSONValue(document.root)`) or written out (`JSONWriter`).
public struct JSONDocumentResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/json, text/json, text/javascript).
    public var acceptableContentTypes: Set<String>? = ["application/json", "text/json", "text/javascript"]
    /// Whether a top-level scalar is accepted. Default true (RFC 8259 §2).
    public var allowsFragments: Bool = true
    /// Whether null members (and null array elements) are left out. Default false.
    public var removesKeysWithNullValues: Bool = false
    /// Parser limits (nesting depth 512 by default).
    public var limits: JSONParser.Limits = JSONParser.Limits()

    /// Creates a serializer.
    /// - Parameters:
    ///   - allowsFragments: accept top-level scalars.
    ///   - removesKeysWithNullValues: leave null members out.
    public init(allowsFragments: Bool = true, removesKeysWithNullValues: Bool = false) {
        self.allowsFragments = allowsFragments
        self.removesKeysWithNullValues = removesKeysWithNullValues
    }

    /// Parses the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body (retained by the document, not copied).
    /// - Returns: the document, or nil for an empty or single-space body.
    /// - Throws: `.invalidJSON` or `.jsonFragmentNotAllowed`.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> JSONDocument? {
        if JSONResponseSerializer.isEmptyQuirk(body) { return nil }
        return try JSONDocumentResponseSerializer.document(
            head: head, body: body, options: JSONDocument.Options(limits: limits, removesNullValues: removesKeysWithNullValues),
            allowsFragments: allowsFragments)
    }

    static func document(head: HTTPResponseHead, body: ByteBuffer, options: JSONDocument.Options,
                         allowsFragments: Bool) throws(ResponseSerializationError) -> JSONDocument {
        let document: JSONDocument
        do { document = try JSONDocument(parsing: body, options: options) } catch {
            throw ResponseSerializationError(.invalidJSON, head: head, body: body, offset: error.offset, detail: error)
        }
        if !allowsFragments && document.root.kind != .array && document.root.kind != .object {
            throw ResponseSerializationError(.jsonFragmentNotAllowed, head: head, body: body, offset: 0)
        }
        return document
    }
}

/// A `Decodable` from a JSON body, through `CourierJSONDecoder`, with `JSONResponseSerializer`'s
/// validation: what `client.get(path, as: T.self)` uses.
///
/// The value is a `T`, not a `T?`: an empty (or single-space) body is a `T` only when `T` is an
/// Optional (then nil, AFNetworking's nil for an empty JSON body); for any other `T` it is
/// `.decodingFailed` — or, when the status failed too, the status error, which says more.
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
    /// - Returns: the value; nil for an empty or single-space body when `T` is an Optional.
    /// - Throws: `.invalidJSON` for bytes that are not JSON, `.decodingFailed` for JSON that does
    ///   not fit `T` and for an empty body when `T` is not an Optional.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> T {
        if JSONResponseSerializer.isEmptyQuirk(body) {
            if let none = T.self as? any EmptyBodyValue.Type, let value = none.emptyBodyValue as? T { return value }
            throw ResponseSerializationError(.decodingFailed, head: head, body: body, detail: EmptyBody())
        }
        // Parsed once into a tape and decoded from it: no tree in between.
        let document: JSONDocument
        do { document = try JSONDocument(parsing: body, options: JSONDocument.Options(limits: decoder.limits)) } catch {
            throw ResponseSerializationError(.invalidJSON, head: head, body: body, offset: error.offset, detail: error)
        }
        do { return try decoder.decode(T.self, from: document) } catch {
            throw ResponseSerializationError(.decodingFailed, head: head, body: body, detail: error)
        }
    }

    /// Validates, then parses (AFNetworking's rules), except that an empty body which cannot be a
    /// `T` reports the validation error when there is one: a 404 with no body is "not found", not
    /// "nothing to decode".
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError`.
    public func serialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> T {
        if JSONResponseSerializer.isEmptyQuirk(body), !(T.self is any EmptyBodyValue.Type),
           let failure = validate(head: head, body: body).error {
            throw failure
        }
        return try validatingSerialize(head: head, body: body)
    }

    /// The detail of `.decodingFailed` for an empty body.
    public struct EmptyBody: Error, Sendable, CustomStringConvertible {
        /// "the body is empty".
        public var description: String { "the body is empty" }
    }
}

/// A type whose value for an empty body is known (an Optional: nil).
protocol EmptyBodyValue { static var emptyBodyValue: Self { get } }
extension Optional: EmptyBodyValue {
    static var emptyBodyValue: Self { nil }
}
