// HTTPRequest: what a request serializer produces and the Session later sends — AFNetworking's
// NSMutableURLRequest, reduced to what HTTP/1.1 needs: method, URI, header fields, a body and a
// timeout. Nothing here is validated again: the serializers validate before they build one, and
// the HTTP/1.1 encoder validates once more before it writes a byte (design §6).

import CourierBytes
import CourierCache
import CourierHTTP1
import CourierMultipart
import CourierURL

/// A request ready to be sent: the value every `RequestSerializer` produces.
public struct HTTPRequest: Sendable {
    /// The body of a request.
    public enum Body: Sendable {
        /// No body at all (no Content-Type, no Content-Length from the serializer).
        case none
        /// An in-memory body, sent as it is.
        case bytes(ByteBuffer)
        /// A multipart form, streamed by `MultipartBodyStream` with the exact `contentLength`.
        case multipart(MultipartForm)
        /// A file, read while it is sent; its size is taken when the request is sent.
        case file(path: String)
        /// A replayable stream (a fresh reader per attempt); nil length sends it chunked.
        case stream(length: UInt64?, any MultipartStream)
        /// A stream whose bytes are produced asynchronously (an `AsyncSequence`, an OpenAPI
        /// `HTTPBody`): a fresh reader per attempt when `isReplayable`, else one pass only; nil
        /// length sends it chunked.
        case asyncStream(length: UInt64?, any AsyncBodyStream)

        /// The body's length in bytes when it is known without I/O (0 for `.none`; nil for a file
        /// and for a stream of unknown length).
        public var length: UInt64? {
            switch self {
            case .none: return 0
            case .bytes(let buffer): return UInt64(buffer.readableBytes)
            case .multipart(let form): return form.contentLength
            case .file: return nil
            case .stream(let length, _): return length
            case .asyncStream(let length, _): return length
            }
        }

        /// The in-memory bytes, or nil for `.none` and `.multipart`.
        public var bytes: ByteBuffer? {
            if case .bytes(let buffer) = self { return buffer }
            return nil
        }
    }

    /// The request method, sent as given.
    public var method: HTTPMethod
    /// The target URI (parameters of GET, HEAD and DELETE are already in its query).
    public var uri: URI
    /// The header fields, in the order they are sent.
    public var headers: HTTPHeaders
    /// The body.
    public var body: Body
    /// The request's timeout (AFNetworking's `timeoutInterval`), or nil for the session's default.
    public var timeout: Duration?
    /// The request-target sent instead of the URI's path and query (curl's `--request-target`:
    /// `*` for OPTIONS, a path with bytes a URI would not hold); nil: from `uri`. Kept across
    /// redirects, as curl keeps it. It is still checked: no space, CR, LF or other control byte.
    public var requestTarget: String? = nil

    /// The version in the request line: HTTP/1.1 (default) or HTTP/1.0 (curl's `-0`). An HTTP/1.0
    /// request cannot carry a body of unknown length (there is no chunked coding): `.invalidRequest`.
    public var version: HTTPVersion = .http1_1

    /// Whether this request's body waits for 100 Continue, overriding the session's
    /// `SessionConfiguration.expectContinue` (nil: the session's; `.never` removes the
    /// expectation from this request).
    public var expectContinue: ExpectContinuePolicy? = nil
    /// How the session's `HTTPCache` answers this request (NSURLRequest's `cachePolicy`):
    /// `.useProtocolCachePolicy` (the default), `.reloadIgnoringCacheData`,
    /// `.returnCacheDataElseLoad`, `.returnCacheDataDontLoad` (a miss fails with `.cacheMiss`).
    /// Without a cache, every policy loads (and `.returnCacheDataDontLoad` fails).
    public var cachePolicy: CachePolicy = .useProtocolCachePolicy

    /// What goes after the method in the request line.
    public var effectiveRequestTarget: String { requestTarget ?? uri.requestTarget }

    /// Creates a request.
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - headers: the header fields.
    ///   - body: the body (default none).
    ///   - timeout: the timeout (default nil: the session's).
    public init(method: HTTPMethod, uri: URI, headers: HTTPHeaders = HTTPHeaders(), body: Body = .none, timeout: Duration? = nil) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// A source of request-body bytes produced asynchronously. Each attempt at sending the request
/// (a retry, a 307/308 redirect, the resend after a 417 or a 401) asks for a fresh reader; a
/// source that cannot start again says so with `isReplayable` and throws from a second
/// `makeAsyncReader`.
public protocol AsyncBodyStream: Sendable {
    /// Starts reading from the first byte.
    /// - Returns: a reader positioned at byte 0.
    /// - Throws: any error when the stream cannot be (re)started (a one-pass source already read).
    func makeAsyncReader() throws -> any AsyncBodyReader

    /// Whether `makeAsyncReader` can start a second pass (retries resend the body only then).
    var isReplayable: Bool { get }
}

/// One pass over an `AsyncBodyStream`.
public protocol AsyncBodyReader {
    /// The next bytes (an empty buffer is skipped), or nil at the end.
    /// - Returns: the bytes, or nil.
    /// - Throws: any error when producing them fails; the request fails and its connection closes.
    mutating func next() async throws -> ByteBuffer?
}
