// ConnectionError: the one error type of the low-level connection API (design §6): a stable code
// from a closed set plus the underlying error it wraps (ConnectError, ResolutionError, TLSError,
// HTTPParserError, HTTPEncodingError, Errno). After any ConnectionError except `invalidRequest` and
// `notReusable` (local misuse that sent nothing) the connection is closed and never reused.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS

/// Why an `HTTP1Connection` operation failed.
public struct ConnectionError: Error, Sendable, CustomStringConvertible {
    /// A stable error code. Compare codes, never messages.
    public struct Code: ClosedErrorCode {
        /// The code's name.
        public let rawValue: String
        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .connectTimeout, .localBindFailed, .transferTooSlow, .tlsHandshakeTimeout, .idleTimeout,
            .totalTimeout, .connectFailed, .tlsFailed, .protocolError, .remoteClosed, .bodyTruncated,
            .cancelled, .invalidRequest, .notReusable, .earlyResponse, .proxyTunnelFailed, .bodyTooLarge
        ]

        /// The TCP connection was not established within `connectTimeout` (curl exit 28).
        public static let connectTimeout = Code("connectTimeout")
        /// The local end of the connection could not be set up as asked (`LocalBinding`): no such
        /// interface or host, no free port in the range, an address that is not local (curl 45).
        public static let localBindFailed = Code("localBindFailed")
        /// The transfer was slower than `HTTP1ConnectionOptions.lowSpeedLimit` for its duration
        /// (curl `-Y`/`-y`: "Operation too slow", exit 28).
        public static let transferTooSlow = Code("transferTooSlow")
        /// The TLS handshake did not complete within `tlsHandshakeTimeout` (curl exit 28).
        public static let tlsHandshakeTimeout = Code("tlsHandshakeTimeout")
        /// No byte was read or written for `idleTimeout` while waiting on the peer (curl exit 28).
        public static let idleTimeout = Code("idleTimeout")
        /// The exchange did not finish within `totalTimeout` (curl `--max-time`, exit 28).
        public static let totalTimeout = Code("totalTimeout")
        /// Resolution or connection failed (`resolutionError` or `connectError` says why; curl 6/7).
        public static let connectFailed = Code("connectFailed")
        /// TLS failed: handshake, certificate, or a close without close_notify where it matters
        /// (`tlsError` says which; curl 35/60/56).
        public static let tlsFailed = Code("tlsFailed")
        /// The peer broke HTTP/1.1 (`parserError` says how; curl 8).
        public static let protocolError = Code("protocolError")
        /// The peer closed or reset the connection: before any byte of the response ("empty
        /// reply", curl 52, `parserError.code == .emptyResponse`), inside a head, or with a read or
        /// write error (`errno`; curl 55/56).
        public static let remoteClosed = Code("remoteClosed")
        /// The connection closed inside a Content-Length or chunked body (curl 18).
        public static let bodyTruncated = Code("bodyTruncated")
        /// The task was cancelled or the connection was closed while the operation waited
        /// (AFNetworking -999).
        public static let cancelled = Code("cancelled")
        /// The request could not be encoded, or the body did not match its declared length
        /// (`encodingError`); nothing was sent and the connection is unchanged.
        public static let invalidRequest = Code("invalidRequest")
        /// The connection cannot carry this operation now: closed, a previous response not read
        /// to its end, the peer asked to close, or another operation is in progress.
        public static let notReusable = Code("notReusable")
        /// The server sent its final response while the request body was still being sent, and
        /// is not taking the rest (an early 413 or 401, or one that says `Connection: close`, with
        /// the upload blocked or failed): the rest of the body is not sent. The response is still
        /// there: read it with `receiveResponse()`; the connection closes after it (the request can
        /// no longer be framed). A failed write after such a response reports this code too.
        public static let earlyResponse = Code("earlyResponse")
        /// The proxy answered a CONNECT request with a status other than 2xx (`proxyStatus`
        /// says which); no tunnel was opened (curl exit 56, "CONNECT tunnel failed, response N").
        public static let proxyTunnelFailed = Code("proxyTunnelFailed")
        /// The response body is larger than the limit the caller gave `collect(upTo:)` (`limit`
        /// says which, in bytes); the connection was closed (curl `--max-filesize`, exit 63).
        public static let bodyTooLarge = Code("bodyTooLarge")
    }

    /// The code.
    public var code: Code
    /// A human-readable explanation (not API).
    public var message: String
    /// The connect failure, for `connectFailed` / `connectTimeout`.
    public var connectError: ConnectError? {
        get { details.parts?.connectError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.connectError = newValue } } }
    }
    /// The resolution failure, for `connectFailed`.
    public var resolutionError: ResolutionError? {
        get { details.parts?.resolutionError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.resolutionError = newValue } } }
    }
    /// The TLS failure, for `tlsFailed`.
    public var tlsError: TLSError? {
        get { details.parts?.tlsError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.tlsError = newValue } } }
    }
    /// The HTTP/1.1 parse failure, for `protocolError`, `remoteClosed`, `bodyTruncated`.
    public var parserError: HTTPParserError?
    /// The encoding failure, for `invalidRequest`.
    public var encodingError: HTTPEncodingError? {
        get { details.parts?.encodingError }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.encodingError = newValue } } }
    }
    /// The system error, for read and write failures.
    public var errno: Errno?
    /// The proxy the failure happened at (`http://host:port`), when the connection went through
    /// one and the failure was the proxy's (resolving or reaching it, or its CONNECT reply).
    public var proxy: String? {
        get { details.parts?.proxy }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.proxy = newValue } } }
    }
    /// The status of the proxy's reply to CONNECT, for `proxyTunnelFailed`.
    public var proxyStatus: Int? {
        get { details.parts?.proxyStatus }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.proxyStatus = newValue } } }
    }
    /// The limit that was exceeded, in bytes, for `bodyTooLarge`.
    public var limit: Int? {
        get { details.parts?.limit }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.limit = newValue } } }
    }
    /// The error a challenge handler failed the connection with (`ChallengeDisposition.fail`),
    /// as it was given; nil otherwise.
    public var underlying: (any Error)? {
        get { details.parts?.underlying }
        set { if newValue != nil || !details.isEmpty { details.modify { $0.underlying = newValue } } }
    }
    /// The CONNECT exchanges before a `proxyTunnelFailed` (for the `-v` trace).
    var tunnelExchanges: [TunnelExchange] {
        get { details.parts?.tunnelExchanges ?? [] }
        set { if !newValue.isEmpty || !details.isEmpty { details.modify { $0.tunnelExchanges = newValue } } }
    }
    /// Whether any byte of the response had arrived when the exchange failed (nil when the
    /// failure was not during an exchange): the pool retries an idempotent request only when
    /// none had.
    var sawResponseBytes: Bool?
    /// Whether the failure was a write (curl's 55, send failure) rather than a read (56):
    /// `package` for CourierCurlExitCodes, which tells the two apart.
    package var whileSending = false

    /// The parts most errors leave unset, out of line (as `SessionError` keeps its own): every
    /// `throws(ConnectionError)` call of an async function reserves room for the error in the
    /// caller's frame, and these parts made the error about 300 bytes (docs/benchmarks.md,
    /// "Memory"). A value type still: the storage is copied before a write when it is shared.
    private var details = OutOfLine<Details>()

    private struct Details: OutOfLineParts {
        var connectError: ConnectError?
        var resolutionError: ResolutionError?
        var tlsError: TLSError?
        var encodingError: HTTPEncodingError?
        var proxy: String?
        var proxyStatus: Int?
        var limit: Int?
        var underlying: (any Error)?
        var tunnelExchanges: [TunnelExchange] = []
    }

    /// Creates an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: an explanation.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The AFNetworking / NSURLError number for this error where one exists (design §6):
    /// -999 cancelled, -1001 timed out, -1003 host not found, -1004 cannot connect, -1005
    /// connection lost, -1011 bad server response, -1202 untrusted server certificate,
    /// -1200 other TLS failures, -1103 a body over `collect(upTo:)`'s limit; nil for local misuse.
    public var afNetworkingCode: Int? {
        switch code {
        case .cancelled: return -999
        case .connectTimeout, .tlsHandshakeTimeout, .idleTimeout, .totalTimeout, .transferTooSlow: return -1001
        case .connectFailed: return resolutionError != nil ? -1003 : -1004
        case .localBindFailed: return -1004
        case .tlsFailed: return tlsError?.isCertificateVerificationFailure == true || tlsError?.code == .pinningFailed ? -1202 : -1200
        case .remoteClosed, .bodyTruncated, .earlyResponse, .proxyTunnelFailed: return -1005
        case .protocolError: return -1011
        case .bodyTooLarge: return -1103
        default: return nil
        }
    }

    /// "code: message (underlying)".
    public var description: String {
        var text = "\(code): \(message)"
        if let connectError { text += " (\(connectError))" }
        if let resolutionError { text += " (\(resolutionError))" }
        if let tlsError { text += " (\(tlsError))" }
        if let parserError { text += " (\(parserError))" }
        if let encodingError { text += " (\(encodingError))" }
        if let errno { text += " (\(errno))" }
        return text
    }

    // MARK: Mapping the layers' errors

    static func from(parser error: HTTPParserError) -> ConnectionError {
        var result: ConnectionError
        switch error.code {
        case .emptyResponse: result = ConnectionError(.remoteClosed, "the server closed the connection without replying (empty reply)")
        case .incompleteHead: result = ConnectionError(.remoteClosed, "the server closed the connection inside the response head")
        case .bodyShorterThanAnnounced, .incompleteChunkedBody:
            result = ConnectionError(.bodyTruncated, "the connection closed before the end of the response body")
        default: result = ConnectionError(.protocolError, "the server's response is not valid HTTP/1.1")
        }
        result.parserError = error
        return result
    }

    /// The caller's request body did not match what its head declared.
    static func invalidBody(_ error: HTTPEncodingError) -> ConnectionError {
        let message: String
        switch error.code {
        case .bodyLengthMismatch: message = "the body does not match its declared Content-Length"
        case .noRequestBody: message = "no request body is open"
        default: message = "invalid trailer fields"
        }
        var result = ConnectionError(.invalidRequest, message)
        result.encodingError = error
        return result
    }

    static func from(tls error: TLSError) -> ConnectionError {
        // Say what failed (curl's words for a certificate problem), not just that TLS did.
        var message: String
        if error.isCertificateVerificationFailure, let verify = error.verifyResult {
            message = "SSL certificate problem: \(verify.reason)"
        } else {
            message = "TLS failed: \(error.message)"
            if let alert = error.alert { message += " (alert \(alert))" }
        }
        var result = ConnectionError(.tlsFailed, message)
        result.tlsError = error
        return result
    }

    static func from(io error: Errno, writing: Bool) -> ConnectionError {
        var result = ConnectionError(.remoteClosed, writing ? "sending failed" : "receiving failed")
        result.errno = error
        result.whileSending = writing
        return result
    }

    /// Maps whatever an awaited loop operation threw.
    static func from(_ error: any Error) -> ConnectionError {
        switch error {
        case let error as ConnectionError: return error
        case is CancellationError: return ConnectionError(.cancelled, "the task was cancelled")
        case is EventLoopError: return ConnectionError(.cancelled, "the event loop shut down")
        case let error as TLSError: return .from(tls: error)
        case let error as HTTPParserError: return .from(parser: error)
        case let error as Errno: return .from(io: error, writing: false)
        default: return ConnectionError(.remoteClosed, "\(error)")
        }
    }
}
