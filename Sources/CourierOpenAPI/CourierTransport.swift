// CourierTransport: a swift-openapi-runtime `ClientTransport` over a Courier `Session` (trait
// `OpenAPI`, docs/integrations.md). Without the trait this module is empty.
//
// swift-openapi-runtime's API takes a Foundation `URL`, so this module (and only this one, only
// with the trait on: scripts/check-sources allows it here alone) imports `URL` from
// FoundationEssentials, never Foundation; the base URL is read through `absoluteString` and
// parsed by CourierURL.
//
// The request body streams: an `HTTPBody` becomes `HTTPRequest.Body.asyncStream`, replayable when
// its iteration behaviour is `.multiple` (a 307/308 redirect, the resend after a 417 or a 401 and
// a retry read it again), one pass when `.single` (a second pass fails the request with
// `.fileReadFailed` rather than sending a short body). The response body streams back with
// back-pressure and its length when the head declared it; HEAD, 1xx, 204 and 304 have none.

#if OpenAPI
import Courier
import CourierBytes
import CourierHTTP1
import CourierHTTPTypes
import CourierURL
public import struct FoundationEssentials.URL
public import HTTPTypes
public import OpenAPIRuntime
import Synchronization

/// A `ClientTransport` for OpenAPI-generated clients that sends every request through a Courier
/// `Session`: its connection pool, TLS settings and certificate pinning, redirects, retries,
/// cookies and content decoding, all from the session's configuration.
///
/// ```swift
/// let client = Client(serverURL: try Servers.Server1.url(),
///                     transport: CourierTransport(configuration: .init(timeout: .seconds(30))))
/// ```
///
/// Errors from the transport are Courier's `SessionError` (with its code, curl exit code and
/// AFNetworking code); the generated client wraps them in `ClientError.underlyingError`.
public struct CourierTransport: ClientTransport {
    /// The transport's options.
    public struct Configuration: Sendable {
        /// Each request's timeout (`HTTPRequest.timeout`: the whole exchange), or nil for the
        /// session configuration's timeouts.
        public var timeout: Duration?

        /// Creates options.
        /// - Parameter timeout: each request's timeout (default nil: the session's).
        public init(timeout: Duration? = nil) {
            self.timeout = timeout
        }
    }

    /// The session that sends the requests (TLS, pinning, proxies and limits come from its
    /// configuration).
    public let session: Session
    /// The transport's options.
    public var configuration: Configuration

    /// Creates a transport over an existing session.
    /// - Parameters:
    ///   - session: the session.
    ///   - configuration: the options.
    public init(session: Session, configuration: Configuration = Configuration()) {
        self.session = session
        self.configuration = configuration
    }

    /// Creates a transport with a session of its own.
    /// - Parameters:
    ///   - sessionConfiguration: the session's configuration (TLS, pinning, timeouts, ...).
    ///   - configuration: the options.
    public init(sessionConfiguration: SessionConfiguration = SessionConfiguration(), configuration: Configuration = Configuration()) {
        self.init(session: Session(configuration: sessionConfiguration), configuration: configuration)
    }

    /// Sends `request` to `baseURL` + the request's path and query.
    /// - Parameters:
    ///   - request: the request (its path holds the path and query).
    ///   - body: the body, or nil.
    ///   - baseURL: the server URL; the request's path is appended to its path.
    ///   - operationID: the operation's identifier (not sent).
    /// - Returns: the response and its body (nil for HEAD, 1xx, 204 and 304).
    /// - Throws: `SessionError`.
    public func send(_ request: HTTPTypes.HTTPRequest, body: HTTPBody?, baseURL: URL,
                     operationID: String) async throws -> (HTTPTypes.HTTPResponse, HTTPBody?) {
        let base: URI
        do { base = try URI(parsing: baseURL.absoluteString) } catch {
            throw SessionError(.invalidURL, "the server URL \(baseURL.absoluteString) is not a valid URL (\(operationID))")
        }
        var courierBody: Courier.HTTPRequest.Body = .none
        if let body {
            var length: UInt64?
            if case .known(let n) = body.length, n >= 0 { length = UInt64(n) }
            courierBody = .asyncStream(length: length, RequestBodySource(body))
        }
        let converted: Courier.HTTPRequest
        do {
            converted = try Courier.HTTPRequest(request, body: courierBody, baseURL: base, timeout: configuration.timeout)
        } catch {
            var failure = SessionError(.invalidRequest, "the request of \(operationID) cannot be sent: \(error)",
                                       url: base.redactedDescription)
            failure.underlying = error
            throw failure
        }
        let streamed = try await session.stream(for: converted)
        let status = streamed.response.status.code
        if converted.method == .head || (100..<200).contains(status) || status == 204 || status == 304 {
            return (streamed.response, nil)
        }
        let length: HTTPBody.Length = streamed.expectedLength.map { .known(Int64($0)) } ?? .unknown
        return (streamed.response, HTTPBody(ResponseChunks(body: streamed.body), length: length, iterationBehavior: .single))
    }
}

/// An `HTTPBody` as an asynchronous request-body source.
final class RequestBodySource: AsyncBodyStream {
    let body: HTTPBody
    /// Whether a reader was made: a `.single` body has one pass.
    private let started = Atomic<Bool>(false)

    init(_ body: HTTPBody) { self.body = body }

    var isReplayable: Bool { body.iterationBehavior == .multiple }

    /// A one-pass body asked for a second pass.
    struct AlreadyRead: Error, CustomStringConvertible {
        var description: String {
            "the request body can be read once (HTTPBody.iterationBehavior .single) and was already sent; it cannot be sent again"
        }
    }

    func makeAsyncReader() throws -> any AsyncBodyReader {
        if started.exchange(true, ordering: .acquiringAndReleasing), body.iterationBehavior == .single { throw AlreadyRead() }
        return Reader(iterator: body.makeAsyncIterator())
    }

    struct Reader: AsyncBodyReader {
        var iterator: HTTPBody.Iterator
        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await iterator.next() else { return nil }
            return ByteBuffer(bytes: chunk)
        }
    }
}

/// A response body as `HTTPBody` chunks (one copy out of the receive buffer per chunk: an
/// `ArraySlice` cannot share Courier's storage).
struct ResponseChunks: AsyncSequence, Sendable {
    typealias Element = HTTPBody.ByteChunk
    let body: ResponseBodyStream

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: ResponseBodyStream.AsyncIterator
        mutating func next() async throws -> HTTPBody.ByteChunk? {
            guard let buffer = try await base.next() else { return nil }
            return buffer.withUnsafeReadableBytes { ArraySlice($0) }
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: body.makeAsyncIterator()) }
}
#endif
