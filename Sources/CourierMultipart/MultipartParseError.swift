// MultipartParseError: why a multipart body was refused by `MultipartParser`.
//
// Design §6: a stable code (a closed set of static constants), the byte offset in the input where
// the problem was found, and the part concerned. All of these are remote errors (the sender broke
// RFC 2046 / RFC 7578) or limits the receiver set.

import CourierBytes

/// An error from parsing a multipart/form-data body.
public struct MultipartParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error: a stable code, safe to match on and to log.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .missingInitialBoundary, .preambleTooLong, .malformedDelimiter, .delimiterPaddingTooLong,
            .noParts, .tooManyParts, .headerBlockTooLarge, .tooManyHeaderFields, .malformedHeaderField,
            .obsoleteLineFolding, .invalidUTF8, .missingContentDisposition, .duplicateContentDisposition,
            .duplicateContentType, .malformedContentDisposition, .notFormData, .missingName,
            .duplicateParameter, .truncated
        ]

        /// The body does not start with `--boundary` and preambles are not allowed
        /// (`Limits.maxPreambleBytes` is 0).
        public static let missingInitialBoundary = Code("missingInitialBoundary")
        /// The preamble before the first delimiter is longer than `Limits.maxPreambleBytes`.
        public static let preambleTooLong = Code("preambleTooLong")
        /// A delimiter is followed by something other than `--`, transport padding and CRLF
        /// (RFC 2046 §5.1.1: the delimiter must not occur inside a part).
        public static let malformedDelimiter = Code("malformedDelimiter")
        /// More whitespace after a delimiter than `Limits.maxDelimiterPadding`.
        public static let delimiterPaddingTooLong = Code("delimiterPaddingTooLong")
        /// The close delimiter comes before any part (RFC 2046 §5.1.1 requires at least one).
        public static let noParts = Code("noParts")
        /// More parts than `Limits.maxPartCount`.
        public static let tooManyParts = Code("tooManyParts")
        /// A part's header block is longer than `Limits.maxHeaderBytesPerPart`.
        public static let headerBlockTooLarge = Code("headerBlockTooLarge")
        /// A part has more header fields than `Limits.maxHeaderFieldsPerPart`.
        public static let tooManyHeaderFields = Code("tooManyHeaderFields")
        /// A header line is not `token ":" OWS field-value OWS CRLF` (RFC 9110 §5, RFC 9112 §5):
        /// an empty or non-token name, whitespace before the colon, a control byte, a bare CR or LF.
        public static let malformedHeaderField = Code("malformedHeaderField")
        /// A header line starts with whitespace (obsolete line folding, RFC 9112 §5.2; RFC 7578
        /// senders never fold).
        public static let obsoleteLineFolding = Code("obsoleteLineFolding")
        /// A header value is not valid UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// A part has no `Content-Disposition` header (RFC 7578 §4.2: each part MUST have one).
        public static let missingContentDisposition = Code("missingContentDisposition")
        /// A part has two `Content-Disposition` headers.
        public static let duplicateContentDisposition = Code("duplicateContentDisposition")
        /// A part has two `Content-Type` headers.
        public static let duplicateContentType = Code("duplicateContentType")
        /// The `Content-Disposition` value is not `type *( ";" param )` with token or quoted values.
        public static let malformedContentDisposition = Code("malformedContentDisposition")
        /// The disposition type is not `form-data` (RFC 7578 §4.2).
        public static let notFormData = Code("notFormData")
        /// The `Content-Disposition` has no `name` parameter (RFC 7578 §4.2).
        public static let missingName = Code("missingName")
        /// A `name` or `filename` parameter appears twice.
        public static let duplicateParameter = Code("duplicateParameter")
        /// The input ended before the close delimiter.
        public static let truncated = Code("truncated")
    }

    /// The kind of error.
    public var code: Code
    /// The byte offset in the input (from its first byte) where the problem was found.
    public var offset: Int
    /// The index of the part concerned, when the error concerns one.
    public var partIndex: Int?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of error.
    ///   - offset: the input offset.
    ///   - partIndex: the part concerned, if any.
    public init(_ code: Code, offset: Int, partIndex: Int? = nil) {
        self.code = code
        self.offset = offset
        self.partIndex = partIndex
    }

    /// A one-line summary (not API: match on `code`).
    public var description: String {
        "multipart parse: \(code) at offset \(offset)" + (partIndex.map { " (part \($0))" } ?? "")
    }
}
