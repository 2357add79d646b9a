// ResponseSerializationError: AFURLResponseSerializationErrorDomain, as a typed value.
//
// Codes carry AFNetworking's (Foundation's) numbers where AFNetworking had one (design §6):
//
//   unacceptableStatusCode   -1011  NSURLErrorBadServerResponse
//   unacceptableContentType  -1016  NSURLErrorCannotDecodeContentData
//   invalidJSON               3840  NSPropertyListReadCorruptError (what NSJSONSerialization reports)
//   jsonFragmentNotAllowed    3840  ditto (JSONSerialization without .fragmentsAllowed)
//   invalidPropertyList       3840  ditto
//   decodingFailed            4864  NSCoderReadCorruptError (JSONDecoder's dataCorrupted)
//   unknownCharset             264  NSFileReadUnknownStringEncodingError
//   invalidText                261  NSFileReadInapplicableStringEncodingError
//   invalidXML                   1  NSXMLParserInternalError (details in `detail`: XMLError)
//   invalidImage             -1016  NSURLErrorCannotDecodeContentData (details in `detail`: ImageSniffError)
//
// Codes are compared by name; the number is what a caller ported from AFNetworking checks.
// When the status and the content type both fail, the status error wraps the content-type error
// as `underlying` (AFErrorWithUnderlyingError). A status-only failure still parses the body: the
// parsed value is kept in `value` and the body in `body` (AFNetworking's
// AFNetworkingOperationFailingURLResponseDataErrorKey).

import CourierBytes

/// Why a response serializer produced no value.
public struct ResponseSerializationError: Error, Sendable, CustomStringConvertible {
    /// A stable reason with AFNetworking's number.
    public struct Code: ClosedErrorCode {
        /// The code's stable name (the identity).
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .unacceptableStatusCode, .unacceptableContentType, .invalidJSON, .jsonFragmentNotAllowed,
            .invalidPropertyList, .decodingFailed, .unknownCharset, .invalidText, .invalidXML,
            .invalidImage
        ]
        /// The AFNetworking / Foundation error number.
        public let afNetworkingCode: Int
        init(_ rawValue: String, _ number: Int) { self.rawValue = rawValue; self.afNetworkingCode = number }

        /// Codes are equal when their names are.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// The status code is not acceptable (-1011, NSURLErrorBadServerResponse).
        public static let unacceptableStatusCode = Code("unacceptableStatusCode", -1011)
        /// The content type is not acceptable and the body is not empty (-1016).
        public static let unacceptableContentType = Code("unacceptableContentType", -1016)
        /// The body is not JSON (3840); `detail` is the `JSONError` with the offset.
        public static let invalidJSON = Code("invalidJSON", 3840)
        /// The JSON text is a top-level scalar and `allowsFragments` is off (3840).
        public static let jsonFragmentNotAllowed = Code("jsonFragmentNotAllowed", 3840)
        /// The body is not a property list (3840); `detail` is the `PropertyListError`.
        public static let invalidPropertyList = Code("invalidPropertyList", 3840)
        /// A Decodable could not be decoded (4864); `detail` is the `DecodingError`.
        public static let decodingFailed = Code("decodingFailed", 4864)
        /// The charset named by Content-Type is not one Courier decodes (264).
        public static let unknownCharset = Code("unknownCharset", 264)
        /// The bytes are not valid in the charset (261); `offset` is the first bad byte.
        public static let invalidText = Code("invalidText", 261)
        /// The body is not well-formed XML or breaks a limit (1); `detail` is the `XMLError`.
        public static let invalidXML = Code("invalidXML", 1)
        /// The body is not an image Courier recognises, or is cut short (-1016); `underlying`
        /// is the `ImageSniffError` (in `detail`).
        public static let invalidImage = Code("invalidImage", -1016)

        /// The name.
        public var description: String { "\(rawValue) (\(afNetworkingCode))" }
    }

    /// The reason.
    public var code: Code
    /// The response's status code.
    public var status: Int
    /// The response's media type, if any.
    public var mimeType: String?
    /// A byte offset in the body, where the code has one.
    public var offset: Int?
    /// The error this one wraps, AFNetworking-style: the content-type error under a status
    /// error, or the status error under a parse error of a status-only failure.
    public var underlying: (any Error)?
    /// The parser's own error with its details (`JSONError`, `XMLError`, `PropertyListError`,
    /// `ImageSniffError`, `DecodingError`), when the code comes from a parser.
    public var detail: (any Error)?
    /// The response body.
    public var body: ByteBuffer
    /// The value parsed from the body despite a status-only failure, if any.
    public var value: (any Sendable)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - head: the response head (status and media type are copied).
    ///   - body: the body.
    ///   - offset: a byte offset, if the code has one.
    ///   - underlying: the wrapped error, if any.
    ///   - detail: the parser's error, if any.
    public init(_ code: Code, head: HTTPResponseHead, body: ByteBuffer, offset: Int? = nil, underlying: (any Error)? = nil, detail: (any Error)? = nil) {
        self.detail = detail
        self.code = code
        self.status = head.status
        self.mimeType = head.mimeType
        self.body = body
        self.offset = offset
        self.underlying = underlying
        self.value = nil
    }

    /// Whether this error or any error it wraps has `code`
    /// (AFErrorOrUnderlyingErrorHasCodeInDomain).
    /// - Parameter code: the code to look for.
    /// - Returns: true when found.
    public func hasCode(_ code: Code) -> Bool {
        var current: ResponseSerializationError? = self
        while let error = current {
            if error.code == code { return true }
            current = error.underlying as? ResponseSerializationError
        }
        return false
    }

    /// The text AFNetworking puts in the error's `NSLocalizedDescriptionKey`:
    /// "Request failed: not found (404)" for a status, "Request failed: unacceptable
    /// content-type: text/html" for a media type; for a parser's error, what could not be read.
    public var localizedDescription: String {
        if code == .unacceptableStatusCode {
            return "Request failed: \(HTTPResponseHead.localizedString(forStatusCode: status)) (\(status))"
        }
        if code == .unacceptableContentType { return "Request failed: unacceptable content-type: \(mimeType ?? "none")" }
        var text = "The response could not be read: \(code.rawValue)"
        if let offset { text += " at byte \(offset)" }
        return text
    }

    /// The code, status, media type and underlying error.
    public var description: String {
        var text = "response serialization \(code), status \(status)"
        if let mimeType { text += ", \(mimeType)" }
        if let offset { text += ", at byte \(offset)" }
        if let detail { text += ": \(detail)" }
        if let underlying { text += " <- \(underlying)" }
        return text
    }
}
