// SessionError: the one error type of the session layer (design §6). A stable code from a closed
// set, the redacted URL, and the underlying error where there is one: a transport failure keeps its
// ConnectionError, a serializer failure its ResponseSerializationError, a decoding failure its
// ContentDecodingError. `afNetworkingCode` gives the NSURLError numbers AFNetworking users know;
// curl's exit codes are the tool's vocabulary, mapped in CourierCurlExitCodes (issue 15 §4).

import CourierBytes
import CourierCompression
import CourierHTTP1
import CourierMultipart
import CourierPosix

/// An error from a session task.
public struct SessionError: Error, Sendable, CustomStringConvertible {
    /// The stable error codes. Message text is not API; codes are.
    public struct Code: ClosedErrorCode {
        /// The code's name.
        public let rawValue: String
        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .cancelled, .invalidRequest, .invalidURL, .unsupportedScheme, .insecureRedirect,
            .tooManyRedirects, .redirectLoop, .redirectRefused, .badContentEncoding, .decodedSizeExceeded,
            .fileTooLarge, .bodyTooLarge, .resumeMismatch, .rangeNotSatisfiable, .fileWriteFailed,
            .invalidDestination, .fileReadFailed, .connection, .serialization, .invalidated,
            .responseHeadsTooLarge, .conflictingLocations, .invalidProxy, .unsupportedProxyScheme, .cacheMiss
        ]

        /// The task was cancelled (AFNetworking -999).
        public static let cancelled = Code("cancelled")
        /// The request is invalid (header bytes, method, body source) — nothing was sent.
        public static let invalidRequest = Code("invalidRequest")
        /// The URL cannot be requested (no host, not absolute).
        public static let invalidURL = Code("invalidURL")
        /// The URL's scheme is neither http nor https (a redirect included).
        public static let unsupportedScheme = Code("unsupportedScheme")
        /// A redirect from https to http was refused.
        public static let insecureRedirect = Code("insecureRedirect")
        /// More redirects than the limit.
        public static let tooManyRedirects = Code("tooManyRedirects")
        /// A redirect led back to a request already made in this task.
        public static let redirectLoop = Code("redirectLoop")
        /// The redirect handler refused a redirect that the task therefore could not follow
        /// (only for resumed downloads; other tasks deliver the 3xx response).
        public static let redirectRefused = Code("redirectRefused")
        /// The Content-Encoding is unknown or its data is corrupt.
        public static let badContentEncoding = Code("badContentEncoding")
        /// The decoded body exceeded the decompression limits (size or ratio).
        public static let decodedSizeExceeded = Code("decodedSizeExceeded")
        /// The body exceeded `maximumDownloadSize` (curl `--max-filesize`).
        public static let fileTooLarge = Code("fileTooLarge")
        /// A buffered body exceeded `maximumBodySize`.
        public static let bodyTooLarge = Code("bodyTooLarge")
        /// A resumed download's 206 does not continue the partial file.
        public static let resumeMismatch = Code("resumeMismatch")
        /// The server answered a resume with 416 Range Not Satisfiable.
        public static let rangeNotSatisfiable = Code("rangeNotSatisfiable")
        /// Writing a downloaded file failed.
        public static let fileWriteFailed = Code("fileWriteFailed")
        /// The download's destination cannot be used as asked: a directory, or a partial download
        /// to resume in something that is not a regular file (a device, a FIFO).
        public static let invalidDestination = Code("invalidDestination")
        /// Reading an upload's file or stream failed.
        public static let fileReadFailed = Code("fileReadFailed")
        /// The transport failed: see `connectionError`.
        public static let connection = Code("connection")
        /// The response serializer refused the response: see `serializationError`.
        public static let serialization = Code("serialization")
        /// The session was invalidated before the task could run.
        public static let invalidated = Code("invalidated")
        /// The response heads of one task, over its whole redirect chain, exceeded
        /// `SessionConfiguration.maximumTotalHeadSize` (curl exit 100).
        public static let responseHeadsTooLarge = Code("responseHeadsTooLarge")
        /// A redirect response carried two different Location values; neither was followed (curl
        /// exit 8, a weird server reply).
        public static let conflictingLocations = Code("conflictingLocations")
        /// The configured proxy URL cannot be parsed (curl exit 5, "Unsupported proxy syntax").
        public static let invalidProxy = Code("invalidProxy")
        /// The proxy URL names a scheme other than http (curl exit 7, "Unsupported proxy scheme").
        public static let unsupportedProxyScheme = Code("unsupportedProxyScheme")
        /// The request could not go to the origin (`only-if-cached`, `.returnCacheDataDontLoad`)
        /// and the cache held nothing usable: RFC 9111 §5.2.1.7's 504 (Gateway Timeout) as an
        /// error (NSURLErrorResourceUnavailable, -1008).
        public static let cacheMiss = Code("cacheMiss")
    }

    /// What went wrong.
    public var code: Code
    /// An explanation for people (not API).
    public var message: String
    /// The URL of the request that failed, with userinfo removed.
    public var url: String?
    /// The transport error, for `.connection` (and `.cancelled` when the transport saw it).
    public var connectionError: ConnectionError? {
        get { details.parts?.connectionError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.connectionError = newValue } } }
    }
    /// The serializer's error, for `.serialization`.
    public var serializationError: ResponseSerializationError? {
        get { details.parts?.serializationError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.serializationError = newValue } } }
    }
    /// The content decoder's error, for `.badContentEncoding` and `.decodedSizeExceeded`.
    public var decodingError: ContentDecodingError? {
        get { details.parts?.decodingError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.decodingError = newValue } } }
    }
    /// The errno of a file operation, for `.fileWriteFailed`, `.fileReadFailed` and
    /// `.invalidDestination`.
    public var errno: Errno? {
        get { details.parts?.errno }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.errno = newValue } } }
    }
    /// Set when the retry policy takes over a failed attempt: the transfer waits and sends the
    /// request again instead of reporting this error.
    var retryPlan: RetryPlan? {
        get { details.parts?.retryPlan }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.retryPlan = newValue } } }
    }
    /// The request serializer's error, for `.invalidRequest` raised while building the request.
    public var requestSerializationError: RequestSerializationError? {
        get { details.parts?.requestSerializationError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.requestSerializationError = newValue } } }
    }
    /// The error the caller's own code threw — a custom query-string closure, a multipart
    /// body closure, an `Encodable`'s `encode(to:)` — as it was thrown, so the caller can match
    /// it; nil when one of Courier's own checks failed.
    public var underlying: (any Error)? {
        get { details.parts?.underlying }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.underlying = newValue } } }
    }

    /// The parts most errors leave unset, out of line. Every `throws(SessionError)` call of an
    /// async function reserves room for the error in the caller's frame, and with these parts
    /// inline the error was several hundred bytes: the frames of one request's transfer added up
    /// to about 90 KB of task stack, allocated slab by slab (docs/benchmarks.md, "Memory"). A
    /// value type still: the storage is copied before a write when it is shared.
    private var details = OutOfLine<Details>()

    private struct Details: OutOfLineParts {
        var connectionError: ConnectionError?
        var serializationError: ResponseSerializationError?
        var decodingError: ContentDecodingError?
        var errno: Errno?
        var retryPlan: RetryPlan?
        var requestSerializationError: RequestSerializationError?
        var underlying: (any Error)?
    }

    /// Creates an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: the explanation.
    ///   - url: the redacted URL, when known.
    public init(_ code: Code, _ message: String, url: String? = nil) {
        self.code = code
        self.message = message
        self.url = url
    }

    /// Wraps a transport error (cancellation keeps the cancelled code).
    /// - Parameters:
    ///   - error: the transport error.
    ///   - url: the redacted URL.
    /// - Returns: the session error.
    public static func connection(_ error: ConnectionError, url: String?) -> SessionError {
        var result = SessionError(error.code == .cancelled ? .cancelled : .connection, error.message, url: url)
        result.connectionError = error
        result.underlying = error.underlying
        return result
    }

    /// Wraps a request serializer's error (`.invalidRequest`), keeping it and, when the caller's
    /// own code threw, that error as `underlying`.
    /// - Parameters:
    ///   - error: the serializer's error.
    ///   - what: what could not be built ("the request cannot be serialized").
    ///   - url: the redacted URL.
    /// - Returns: the session error.
    public static func requestSerialization(_ error: RequestSerializationError, _ what: String, url: String?) -> SessionError {
        var result = SessionError(.invalidRequest, "\(what): \(error)", url: url)
        result.requestSerializationError = error
        // The first error in the chain that is not Courier's own is the caller's.
        var cause = error.underlying
        while let current = cause {
            if let serialization = current as? RequestSerializationError { cause = serialization.underlying; continue }
            if let multipart = current as? MultipartError { cause = multipart.underlying; continue }
            break
        }
        result.underlying = cause
        return result
    }

    /// The AFNetworking / NSURLError number where one exists: -999 cancelled, -1001 timed out,
    /// -1007 too many redirects, -1011 bad server response, -1016 unacceptable content type,
    /// -1015 cannot decode content, -1103 resource exceeds maximum size, -1002 unsupported URL,
    /// -1000 bad URL; transport errors give their own number.
    public var afNetworkingCode: Int? {
        switch code {
        case .cancelled: return -999
        case .invalidURL: return -1000
        case .unsupportedScheme: return -1002
        case .insecureRedirect: return -1022
        case .tooManyRedirects, .redirectLoop: return -1007
        case .responseHeadsTooLarge, .conflictingLocations: return -1011
        case .badContentEncoding, .decodedSizeExceeded: return -1015
        case .fileTooLarge, .bodyTooLarge: return -1103
        case .connection: return connectionError?.afNetworkingCode
        case .serialization: return serializationError?.code.afNetworkingCode
        case .fileWriteFailed: return -3003
        case .invalidDestination: return -3000
        case .fileReadFailed: return -1022
        case .cacheMiss: return -1008
        default: return nil
        }
    }

    /// AFNetworking's description where it has one — "Request failed: not found (404)",
    /// "Request failed: unacceptable content-type: text/html", "cancelled", "The request timed
    /// out." — followed by the failing URL (redacted), which AFNetworking carries in the
    /// error's userInfo; otherwise the message.
    public var localizedDescription: String {
        var text: String
        switch code {
        case .serialization:
            text = serializationError?.localizedDescription ?? message
        case .cancelled:
            text = "cancelled"
        default:
            text = afNetworkingCode == -1001 ? "The request timed out." : message
        }
        if let url { text += " (\(url))" }
        return text
    }

    /// `code: message (url)`.
    public var description: String {
        var text = "\(code): \(message)"
        if let url { text += " (\(url))" }
        return text
    }
}
