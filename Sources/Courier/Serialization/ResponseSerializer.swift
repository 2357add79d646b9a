// ResponseSerializer: AFURLResponseSerialization and AFHTTPResponseSerializer's validation.
//
// Validation (-validateResponse:data:error:), in AFNetworking's order:
//   1. content type: when `acceptableContentTypes` is set and does not hold the response's media
//      type, the response is invalid; an error (-1016) is made only when the body is not empty.
//      A response with no media type and no body is valid (nothing to judge).
//   2. status: when `acceptableStatusCodes` is set and does not hold the status, the response is
//      invalid and the error is -1011, wrapping the content-type error (if any) as underlying.
// Then each serializer (AFJSONResponseSerializer and the others):
//   - a content-type failure (at any depth of the error) stops: the error is thrown, nothing parsed;
//   - a status-only failure parses the body anyway; a parse error is thrown with the status error
//     underneath; otherwise the status error is thrown carrying the parsed value and the body;
//   - a content-type mismatch with an empty body is no error at all: the body is parsed (and an
//     empty body gives the serializer's empty result).

import CourierBytes

/// Turns a response into a value (AFNetworking's `AFURLResponseSerialization`).
public protocol ResponseSerializer: Sendable {
    /// What the serializer produces.
    associatedtype Value: Sendable

    /// Acceptable status codes; nil accepts any. Default 200–299.
    var acceptableStatusCodes: Set<Int>? { get set }
    /// Acceptable media types (lower case `type/subtype`); nil accepts any.
    var acceptableContentTypes: Set<String>? { get set }

    /// Parses a body that validation let through (no validation here).
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError` for a body this serializer cannot read.
    func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value

    /// Validates, then parses: what a session calls. The default implementation applies
    /// AFNetworking's rules (the top of this file); a serializer with other rules (the compound's
    /// fallback) provides its own.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError`.
    func serialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value
}

/// AFNetworking's default acceptable status codes: 200–299.
public let defaultAcceptableStatusCodes: Set<Int> = Set(200...299)

extension ResponseSerializer {
    /// AFNetworking's `-validateResponse:data:error:`.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: whether the response is valid, and the error to report (nil for a content-type
    ///   mismatch on an empty body, which is invalid but not an error).
    public func validate(head: HTTPResponseHead, body: ByteBuffer) -> (isValid: Bool, error: ResponseSerializationError?) {
        var isValid = true
        var error: ResponseSerializationError?
        // A response with neither a media type nor a body (a 204, a 200 with Content-Length: 0)
        // has no content whose type could be wrong: valid, as in AFNetworking.
        if let types = acceptableContentTypes, !(head.mimeType.map(types.contains) ?? false), !(head.mimeType == nil && body.isEmpty) {
            if !body.isEmpty {
                error = ResponseSerializationError(.unacceptableContentType, head: head, body: body)
            }
            isValid = false
        }
        if let codes = acceptableStatusCodes, !codes.contains(head.status) {
            error = ResponseSerializationError(.unacceptableStatusCode, head: head, body: body, underlying: error)
            isValid = false
        }
        return (isValid, error)
    }

    /// Validates, then parses, with AFNetworking's rules (see the top of this file).
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError`: -1016 / -1011 from validation (a status-only
    ///   failure carries the parsed `value`), or the parser's error.
    public func serialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value {
        try validatingSerialize(head: head, body: body)
    }

    /// The default `serialize(head:body:)`, callable from a serializer that provides its own and
    /// falls back to AFNetworking's rules.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError`, as `serialize(head:body:)`.
    public func validatingSerialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value {
        let validation = validate(head: head, body: body)
        guard let failure = validation.error else { return try parse(head: head, body: body) }
        if failure.hasCode(.unacceptableContentType) { throw failure }
        let value: Value
        do { value = try parse(head: head, body: body) } catch {
            var parseError = error
            parseError.underlying = failure
            throw parseError
        }
        var statusError = failure
        // A serializer's "no value" (JSON's empty body) is kept as no value, not a boxed nil.
        if let optional = value as? any OptionalProtocol, optional.isNone { statusError.value = nil } else { statusError.value = value }
        throw statusError
    }
}

/// AFHTTPResponseSerializer: the body bytes as they are (any content type).
public struct DataResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default nil: any).
    public var acceptableContentTypes: Set<String>? = nil

    /// Creates a serializer.
    public init() {}

    /// Returns the body.
    /// - Parameters:
    ///   - head: ignored.
    ///   - body: the body.
    /// - Returns: the body.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> ByteBuffer { body }
}

