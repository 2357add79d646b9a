// HTTPEncodingError: the one error type of the HTTP/1.1 encoders (request head, response head,
// chunked trailers). Every case is local misuse (design §6): the caller asked for bytes that would
// not be a valid HTTP/1.1 message, so nothing was produced. Remote protocol errors (a peer that
// broke HTTP) belong to the parsers and never use this type.
//
// The `code` is API (a closed set of static constants); the context (which field, which byte) is
// API; `description` text is not.

import CourierBytes

/// Why an encoder refused to produce a message head or trailer section.
///
/// Thrown before any byte is written: an encoder that throws leaves its output untouched.
public struct HTTPEncodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable identifier of the kind of mistake. Compare against the static constants.
    public struct Code: ClosedErrorCode {
        /// A short stable name, e.g. `"invalidFieldName"`.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidMethod, .invalidRequestTarget, .invalidFieldName, .invalidFieldValue, .invalidHost,
            .conflictingFraming, .invalidStatus, .invalidReasonPhrase, .unsupportedVersion,
            .forbiddenTrailerField, .bodyLengthMismatch, .noRequestBody
        ]

        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The method is not an RFC 9110 §9 / §5.6.2 `token`.
        public static let invalidMethod = Code("invalidMethod")
        /// The request-target is empty, holds a byte outside visible ASCII, or is not in a form
        /// RFC 9112 §3.2 allows for the method.
        public static let invalidRequestTarget = Code("invalidRequestTarget")
        /// A field name is empty or holds a byte that is not a `tchar` (RFC 9110 §5.1).
        public static let invalidFieldName = Code("invalidFieldName")
        /// A field value holds CR, LF, NUL or another forbidden byte, or starts or ends with
        /// whitespace (RFC 9110 §5.5).
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// The Host value is empty or is not a `uri-host [ ":" port ]` (RFC 9112 §3.2), or more
        /// than one Host field was given.
        public static let invalidHost = Code("invalidHost")
        /// A caller-supplied Content-Length or Transfer-Encoding contradicts the body length, or
        /// the body length cannot be framed for this version or status (RFC 9112 §6).
        public static let conflictingFraming = Code("conflictingFraming")
        /// A status code outside 100–599 (RFC 9110 §15).
        public static let invalidStatus = Code("invalidStatus")
        /// A reason phrase with a byte outside HTAB / SP / VCHAR / obs-text (RFC 9112 §4).
        public static let invalidReasonPhrase = Code("invalidReasonPhrase")
        /// An HTTP version other than 1.0 or 1.1.
        public static let unsupportedVersion = Code("unsupportedVersion")
        /// A trailer field that must not be sent in a trailer section: framing or routing fields
        /// (RFC 9110 §6.5.1: Content-Length, Transfer-Encoding, Host, Trailer).
        public static let forbiddenTrailerField = Code("forbiddenTrailerField")
        /// A request body piece would go past the declared Content-Length, or the body was ended
        /// before every declared byte was sent (RFC 9112 §6.2: the length is a promise).
        public static let bodyLengthMismatch = Code("bodyLengthMismatch")
        /// Body bytes for a request that declared no body, or after its body ended.
        public static let noRequestBody = Code("noRequestBody")
    }

    /// What kind of mistake this is.
    public var code: Code
    /// The index of the offending field in the caller's `HTTPHeaders` (headers or trailers), or
    /// nil when the mistake is not in a field (method, target, host argument, status, reason).
    public var fieldIndex: Int?
    /// The name of the offending field as the caller gave it, or nil when not about a field.
    public var fieldName: String?
    /// The byte offset of the first bad byte inside the offending element (the method, target,
    /// host, field name, field value or reason phrase), or nil when no single byte is at fault
    /// (a conflicting length, an out-of-range status).
    public var offset: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of mistake.
    ///   - fieldIndex: the index of the field at fault, if any.
    ///   - fieldName: the name of the field at fault, if any.
    ///   - offset: the byte offset of the bad byte inside the element at fault, if any.
    public init(_ code: Code, fieldIndex: Int? = nil, fieldName: String? = nil, offset: Int? = nil) {
        self.code = code
        self.fieldIndex = fieldIndex
        self.fieldName = fieldName
        self.offset = offset
    }

    /// A one-line explanation for logs (not API).
    public var description: String {
        var text = "HTTPEncodingError(\(code.rawValue)"
        if let fieldIndex { text += ", field #\(fieldIndex)" }
        if let fieldName { text += " \(HTTPEncodingError.printable(fieldName))" }
        if let offset { text += ", byte \(offset)" }
        return text + ")"
    }

    /// The name with control and non-ASCII bytes escaped, so a log line stays one line.
    private static func printable(_ text: String) -> String {
        var out = "\""
        for byte in text.utf8 {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = ASCIIInteger.hex(UInt64(byte), uppercase: true).array
                out += "\\x" + (hex.count == 1 ? "0" : "") + String(decoding: hex, as: UTF8.self)
            }
        }
        return out + "\""
    }
}

extension HTTPMethod {
    /// Creates a method from text typed by a user (`-X`), reporting a bad byte as an encoding error.
    /// - Parameter rawValue: the method name, sent as typed (case-sensitive, RFC 9110 §9.1).
    /// - Returns: the method.
    /// - Throws: `HTTPEncodingError` with code `.invalidMethod` and the offset of the first byte
    ///   that is not a `tchar` (0 for an empty name).
    public static func validated(_ rawValue: String) throws(HTTPEncodingError) -> HTTPMethod {
        do {
            return try HTTPMethod(rawValue)
        } catch {
            throw HTTPEncodingError(.invalidMethod, offset: error.offset)
        }
    }
}
