// HTTPParserError: the one error type of the HTTP/1.1 parsing side (heads, body framing, chunked
// decoding, the client connection state machine).
//
// Every error here is a REMOTE protocol error: the peer sent bytes that are not acceptable HTTP/1.1
// (or that exceed a configured limit). Local misuse of the APIs (feeding a parser after it
// completed, reporting a request while one is in flight, ...) is a programmer error and is caught
// by preconditions, never by this type (design §2, §6). After an error of this type the connection
// must be closed: the machines that raise it stay failed (errors are sticky).
//
// The code is API (a closed set of static constants, stable raw values); the message text is not.

import CourierBytes

/// A violation of HTTP/1.1 by the peer, or a configured limit exceeded, with the byte offset at
/// which it was detected.
public struct HTTPParserError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong. A closed set of static constants; the raw value is stable.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code, such as `invalidStatusLine`.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidStatusLine, .invalidRequestLine, .invalidRequestTarget, .unsupportedVersion,
            .invalidFieldName, .whitespaceBeforeColon, .invalidFieldValue, .obsoleteLineFolding,
            .bareLineFeed, .bareCarriageReturn, .headTooLarge, .tooManyFields,
            .tooManyInterimResponses, .invalidContentLength, .conflictingContentLength,
            .contentLengthWithTransferEncoding, .unsupportedTransferCoding, .transferEncodingInHTTP10,
            .invalidChunkSize, .chunkSizeTooLarge, .chunkExtensionsTooLarge, .invalidChunkExtension,
            .trailersTooLarge, .invalidChunkFraming, .unsolicitedSwitchingProtocols,
            .bodyShorterThanAnnounced, .incompleteChunkedBody, .incompleteHead, .emptyResponse,
            .unexpectedData
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        // MARK: Start lines (RFC 9112 §3, §4)

        /// The status line is not `HTTP-version SP 3DIGIT SP reason-phrase` (RFC 9112 §4).
        public static let invalidStatusLine = Code("invalidStatusLine")
        /// The request line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
        public static let invalidRequestLine = Code("invalidRequestLine")
        /// The request-target holds a byte outside the allowed set, or is empty (RFC 9112 §3.2).
        public static let invalidRequestTarget = Code("invalidRequestTarget")
        /// The HTTP version is well-formed but not HTTP/1.x (RFC 9112 §2.3).
        public static let unsupportedVersion = Code("unsupportedVersion")

        // MARK: Field lines (RFC 9112 §2.2, §5; RFC 9110 §5)

        /// A field name is empty, not a token, or the line has no colon (RFC 9110 §5.1).
        public static let invalidFieldName = Code("invalidFieldName")
        /// Whitespace between a field name and the colon (RFC 9112 §5.1: MUST reject).
        public static let whitespaceBeforeColon = Code("whitespaceBeforeColon")
        /// A field value holds a byte outside `field-value` (NUL, another CTL, DEL) (RFC 9110 §5.5).
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// A line starts with SP or HTAB where it cannot be unfolded: whitespace after the start
        /// line (RFC 9112 §2.2), obs-fold in a request (§5.2), or obs-fold in a Content-Length or
        /// Transfer-Encoding field of a response (folded framing never frames a message).
        public static let obsoleteLineFolding = Code("obsoleteLineFolding")
        /// A line ended in LF without CR in a request (RFC 9112 §2.2 allows recipients to accept
        /// it; Courier accepts it in responses only).
        public static let bareLineFeed = Code("bareLineFeed")
        /// A CR not followed by LF (RFC 9112 §2.2: consider the element invalid).
        public static let bareCarriageReturn = Code("bareCarriageReturn")

        // MARK: Limits

        /// The head (start line and fields, interim heads included) exceeds `maxHeadSize`.
        public static let headTooLarge = Code("headTooLarge")
        /// More field lines than `maxFieldCount` in a head or a trailer section.
        public static let tooManyFields = Code("tooManyFields")
        /// More interim (1xx) responses than `maxInterimResponses` before the final one.
        public static let tooManyInterimResponses = Code("tooManyInterimResponses")

        // MARK: Body framing (RFC 9112 §6; RFC 9110 §8.6)

        /// A Content-Length value is not `1*DIGIT` or does not fit in 64 bits (RFC 9110 §8.6).
        public static let invalidContentLength = Code("invalidContentLength")
        /// Several Content-Length values that differ (RFC 9112 §6.3 rule 5).
        public static let conflictingContentLength = Code("conflictingContentLength")
        /// Content-Length and Transfer-Encoding together (RFC 9112 §6.3 rule 3: handled as an error).
        public static let contentLengthWithTransferEncoding = Code("contentLengthWithTransferEncoding")
        /// A transfer coding other than exactly `chunked` (RFC 9112 §6.1; a server answers 501).
        public static let unsupportedTransferCoding = Code("unsupportedTransferCoding")
        /// Transfer-Encoding in an HTTP/1.0 message (RFC 9112 §6.1: the framing is faulty).
        public static let transferEncodingInHTTP10 = Code("transferEncodingInHTTP10")

        // MARK: Chunked coding (RFC 9112 §7.1)

        /// A chunk-size that is empty or holds a non-hex byte.
        public static let invalidChunkSize = Code("invalidChunkSize")
        /// A chunk-size of more hex digits than the limit (16: 64 bits).
        public static let chunkSizeTooLarge = Code("chunkSizeTooLarge")
        /// Chunk extensions of the message exceed `maxChunkExtensionsSize`.
        public static let chunkExtensionsTooLarge = Code("chunkExtensionsTooLarge")
        /// A chunk extension that is not `;name[=token|quoted-string]` (RFC 9112 §7.1.1).
        public static let invalidChunkExtension = Code("invalidChunkExtension")
        /// The trailer section exceeds `maxTrailerSize` (RFC 9112 §7.1.2).
        public static let trailersTooLarge = Code("trailersTooLarge")
        /// A byte other than CRLF where the chunked framing needs CRLF.
        public static let invalidChunkFraming = Code("invalidChunkFraming")

        // MARK: Message sequence and connection

        /// A 101 (Switching Protocols) response to a request that did not ask for an upgrade
        /// (RFC 9110 §15.2.2).
        public static let unsolicitedSwitchingProtocols = Code("unsolicitedSwitchingProtocols")
        /// The connection closed before a Content-Length body was complete (RFC 9112 §8).
        public static let bodyShorterThanAnnounced = Code("bodyShorterThanAnnounced")
        /// The connection closed inside a chunked body (RFC 9112 §8).
        public static let incompleteChunkedBody = Code("incompleteChunkedBody")
        /// The connection closed inside a response head (RFC 9112 §8).
        public static let incompleteHead = Code("incompleteHead")
        /// The connection closed before any byte of the response (curl: "empty reply").
        public static let emptyResponse = Code("emptyResponse")
        /// Bytes arrived while no response was expected (after a complete response, or before any
        /// request) (RFC 9112 §9.3: a client does not pipeline here).
        public static let unexpectedData = Code("unexpectedData")

        /// Whether this code means a configured limit was exceeded (the head size, the field count,
        /// the interim responses, the trailer section, the chunk extensions) rather than a
        /// malformed message: curl's exit 100 rather than 8.
        public var isLimit: Bool {
            switch rawValue {
            case Code.headTooLarge.rawValue, Code.tooManyFields.rawValue, Code.tooManyInterimResponses.rawValue,
                 Code.trailersTooLarge.rawValue, Code.chunkExtensionsTooLarge.rawValue:
                return true
            default:
                return false
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// Where it was detected: the offset in bytes from the first byte of the message (for a
    /// response, the first byte of its first interim head; for a body decoder used on its own, the
    /// first byte of the body).
    public var offset: Int

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - offset: where, in bytes from the start of the message.
    public init(_ code: Code, offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// `code at byte offset`.
    public var description: String { "HTTPParserError(\(code.rawValue) at byte \(offset))" }

    /// A sentence for people (not API): for a limit, which one and its value, named as in
    /// `HTTP1ParserLimits`; otherwise what was wrong and where.
    /// - Parameter limits: the limits the parser ran with.
    /// - Returns: the explanation.
    public func explanation(limits: HTTP1ParserLimits) -> String {
        switch code {
        case .headTooLarge:
            return "Too large response head: more than \(limits.maxHeadSize) bytes (limit maxHeadSize, 1xx heads included)"
        case .tooManyFields:
            return "Too many header fields in the response: more than \(limits.maxFieldCount) (limit maxFieldCount)"
        case .tooManyInterimResponses:
            return "Too many interim (1xx) responses: more than \(limits.maxInterimResponses) (limit maxInterimResponses)"
        case .trailersTooLarge:
            return "Too large response trailers: more than \(limits.maxTrailerSize) bytes (limit maxTrailerSize)"
        case .chunkExtensionsTooLarge:
            return "Too large chunk extensions: more than \(limits.maxChunkExtensionsSize) bytes (limit maxChunkExtensionsSize)"
        case .invalidStatusLine:
            return offset == 0 ? "Weird server reply: not an HTTP/1.x status line (byte 0)"
                : "Weird server reply: invalid status line at byte \(offset)"
        case .unsupportedVersion:
            return "Unsupported HTTP version in response (byte \(offset))"
        case .incompleteHead:
            return "Weird server reply: the connection closed inside the response head (after \(offset) bytes)"
        case .emptyResponse:
            return "Empty reply from server"
        default:
            return "Weird server reply: \(code.rawValue) at byte \(offset)"
        }
    }

    /// The same error with its offset moved by `delta` (to report an inner offset from the start of
    /// the whole message).
    func shifted(by delta: Int) -> HTTPParserError {
        HTTPParserError(code, offset: offset + delta)
    }
}
