// RequestSerializationError: everything a request serializer refuses, before anything is built
// (design §6: bad input gets a clear error before anything is sent).

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL

/// Why a request serializer could not build a request.
public struct RequestSerializationError: Error, Sendable, CustomStringConvertible {
    /// The stable reason. Message text is not API.
    public struct Code: ClosedErrorCode {
        /// The code's name.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidHeaderField, .invalidQuery, .parametersNotKeyValue,
            .queryStringSerializationFailed, .invalidJSONValue, .invalidPropertyListValue,
            .multipartFailed, .methodCannotHaveBody, .notMultipart
        ]
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A header name or value holds a byte a field may not (CR, LF, NUL, ...):
        /// `underlying` is the `HTTPEncodingError` with the field and offset.
        public static let invalidHeaderField = Code("invalidHeaderField")
        /// The query string could not be added to the URI (`underlying` is the `URIError`).
        public static let invalidQuery = Code("invalidQuery")
        /// Parameters for a query string or a form body are not a key/value collection (a
        /// top-level array, string, number, ...): AFNetworking quietly built `?%5B%5D=...` from
        /// them; Courier refuses. A custom query-string closure may take any value.
        public static let parametersNotKeyValue = Code("parametersNotKeyValue")
        /// The caller's query-string closure threw (`underlying` is its error).
        public static let queryStringSerializationFailed = Code("queryStringSerializationFailed")
        /// The parameters cannot be written as JSON (non-finite numbers, an `Encodable` that
        /// throws): `underlying` is the encoder's error.
        public static let invalidJSONValue = Code("invalidJSONValue")
        /// The parameters cannot be written as an XML property list (a null, a string with a
        /// control character XML 1.0 cannot carry, a date outside years 0000–9999).
        public static let invalidPropertyListValue = Code("invalidPropertyListValue")
        /// Building the multipart form failed (`underlying` is the `MultipartError` or the
        /// closure's error).
        public static let multipartFailed = Code("multipartFailed")
        /// A multipart request was asked for with GET or HEAD (AFNetworking asserts this).
        public static let methodCannotHaveBody = Code("methodCannotHaveBody")
        /// A call that writes a multipart body to a file was given a request without one
        /// (AFNetworking asserts that the request has a body stream).
        public static let notMultipart = Code("notMultipart")
    }

    /// The reason.
    public var code: Code
    /// A short human-readable detail (not API).
    public var detail: String
    /// The error that caused this one, when there is one.
    public var underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - detail: a short description.
    ///   - underlying: the cause, if any.
    public init(_ code: Code, detail: String = "", underlying: (any Error)? = nil) {
        self.code = code
        self.detail = detail
        self.underlying = underlying
    }

    /// The code, the detail and the underlying error.
    public var description: String {
        var text = "request serialization \(code)"
        if !detail.isEmpty { text += ": " + detail }
        if let underlying { text += " (\(underlying))" }
        return text
    }
}
