// ContentDecodingError: the one error type a ContentDecoder throws (design §6).
//
// A struct with a stable `code` from a closed set of static constants, plus context: the offset in
// the encoded input and the count of decoded bytes handed out when the problem was found. Message
// text (zlib's own where it has one) is not API; codes are. The client maps them to curl's exit
// codes: unsupportedCoding, tooManyCodings, invalidData, truncated and ratioExceeded to 61
// (CURLE_BAD_CONTENT_ENCODING), decodedSizeExceeded to 63 (CURLE_FILESIZE_EXCEEDED).

import CourierBytes

/// An error from decoding a response's content codings.
///
/// Compare ``code`` against the static constants of ``ContentDecodingError/Code``; everything
/// else is context for people and logs. A decoder that threw stays failed: every later call
/// throws the same error.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error: a stable code, safe to match on and to log.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .unsupportedCoding, .tooManyCodings, .invalidData, .truncated, .decodedSizeExceeded,
            .ratioExceeded
        ]

        /// The `Content-Encoding` names a coding this decoder does not implement (anything but
        /// `gzip`, `x-gzip`, `deflate`, `identity`, `none`), or an element that is not a token.
        public static let unsupportedCoding = Code("unsupportedCoding")
        /// The `Content-Encoding` lists more codings than `DecompressionLimits.maximumCodings`.
        public static let tooManyCodings = Code("tooManyCodings")
        /// The encoded bytes are not a valid stream of their coding: a bad gzip or zlib header, a
        /// corrupt deflate block, a CRC-32/ISIZE or Adler-32 mismatch, a preset dictionary, or
        /// bytes after the end of the stream (docs/compression.md).
        public static let invalidData = Code("invalidData")
        /// The input ended inside a stream (a header, a block or a trailer cut short).
        public static let truncated = Code("truncated")
        /// The decoded body grew past `DecompressionLimits.maximumDecodedSize`.
        public static let decodedSizeExceeded = Code("decodedSizeExceeded")
        /// Past `DecompressionLimits.ratioGraceSize`, the decoded bytes exceeded
        /// `DecompressionLimits.maximumRatio` times the encoded bytes consumed.
        public static let ratioExceeded = Code("ratioExceeded")
    }

    /// The kind of error.
    public var code: Code
    /// What went wrong, for people (zlib's message where zlib found the problem). Not API.
    public var message: String
    /// How many bytes of the encoded input (the response body as received) had been consumed when
    /// the problem was found.
    public var inputOffset: UInt64
    /// How many decoded bytes had been handed out before the problem was found.
    public var decodedOffset: UInt64

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of error.
    ///   - message: a description for people.
    ///   - inputOffset: encoded bytes consumed.
    ///   - decodedOffset: decoded bytes handed out.
    public init(_ code: Code, message: String, inputOffset: UInt64 = 0, decodedOffset: UInt64 = 0) {
        self.code = code
        self.message = message
        self.inputOffset = inputOffset
        self.decodedOffset = decodedOffset
    }

    /// A one-line summary (not API: match on `code`).
    public var description: String {
        "content decoding: \(code): \(message) (input offset \(inputOffset), decoded offset \(decodedOffset))"
    }
}
