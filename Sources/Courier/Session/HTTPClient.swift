// HTTPClient: AFHTTPSessionManager's role (design §8): a base URL, a request serializer and a
// response serializer in front of a Session, with GET/HEAD/POST/PUT/PATCH/DELETE and multipart POST.
//
// Base URL rule (AFHTTPSessionManager -initWithBaseURL:): a base URL whose path is not empty and
// does not end in "/" gets one appended, so `"v1"` resolved against `https://h/api` gives
// `https://h/api/v1`, as AFNetworking users expect; relative paths are then resolved by RFC 3986
// §5.2 (`"/v1"` replaces the whole path, `"../x"` goes up).
//
// Nothing is sent when serialization fails: the serializer throws before a task exists.
//
// Response types are chosen per call (AFNetworking hands back whatever the serializer made;
// Alamofire picks per request): the client's `responseSerializer` is only the default, and every
// verb also takes `serializer:` or `as: T.self` (HTTPClient+Verbs.swift). Clients may share one
// `Session`, hence one connection pool: `HTTPClient(baseURL:session:)`.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// Why an HTTPClient could not be made or could not build a request.
public struct HTTPClientError: Error, Sendable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidBaseURL, .pinningWithoutTLS
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The base URL is not an absolute http or https URL.
        public static let invalidBaseURL = Code("invalidBaseURL")
        /// A pinning security policy with a base URL that is not https (AFNetworking raises too:
        /// a pin can only hold on TLS).
        public static let pinningWithoutTLS = Code("pinningWithoutTLS")
    }

    /// What went wrong.
    public var code: Code
    /// An explanation for people (not API).
    public var message: String

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

/// AFNetworking's `AFHTTPSessionManager`: requests relative to a base URL, serialized on the way
/// out and on the way back.
///
/// ```swift
/// let session = Session()
/// let api = try HTTPClient(baseURL: "https://api.example.com/v1", session: session)
/// let (user, _) = try await api.get("users/42", as: User.self)
/// let (orders, _) = try await api.get("orders", as: [Order].self)
/// let (json, _) = try await api.get("status")             // the client's default: JSON
/// ```
public final class HTTPClient<RequestSerializerType: RequestSerializer, ResponseSerializerType: ResponseSerializer>: Sendable {
    /// The base URL (with AFNetworking's trailing "/"), or nil: paths must then be absolute URLs.
    public let baseURL: URI?
    /// The session that runs the tasks: the one made at creation, or the fresh one
    /// `invalidateSession(cancelingTasks:resetSession:)` put in its place.
    public var session: Session { current.withLock { $0 } }
    private let current: Mutex<Session>
    /// Builds every request.
    public let requestSerializer: RequestSerializerType
    /// Validates and parses every response whose call names no serializer of its own.
    public let responseSerializer: ResponseSerializerType

    /// Creates a client with a session of its own.
    /// - Parameters:
    ///   - baseURL: the base URL text, or nil.
    ///   - configuration: the session's configuration.
    ///   - requestSerializer: builds requests (form, JSON, property list).
    ///   - responseSerializer: validates and parses responses, unless a call names its own.
    /// - Throws: `HTTPClientError` (`.invalidBaseURL`, `.pinningWithoutTLS`).
    public convenience init(baseURL: String?, configuration: SessionConfiguration = SessionConfiguration(),
                            requestSerializer: RequestSerializerType, responseSerializer: ResponseSerializerType) throws(HTTPClientError) {
        // Checked before the session exists: a refused client leaves nothing running.
        let base = try HTTPClient.base(baseURL, securityPolicy: configuration.securityPolicy)
        self.init(base: base, session: Session(configuration: configuration),
                  requestSerializer: requestSerializer, responseSerializer: responseSerializer)
    }

    /// Creates a client on a session it shares (AFNetworking's managers each own one; here any
    /// number of clients — other base URLs, other serializers — can run on one session and its
    /// connection pool, so two clients of one host reuse each other's connections).
    /// - Parameters:
    ///   - baseURL: the base URL text, or nil.
    ///   - session: the session that runs the tasks (its configuration applies, security policy
    ///     included).
    ///   - requestSerializer: builds requests (form, JSON, property list).
    ///   - responseSerializer: validates and parses responses, unless a call names its own.
    /// - Throws: `HTTPClientError` (`.invalidBaseURL`, `.pinningWithoutTLS`).
    public convenience init(baseURL: String?, session: Session,
                            requestSerializer: RequestSerializerType, responseSerializer: ResponseSerializerType) throws(HTTPClientError) {
        let base = try HTTPClient.base(baseURL, securityPolicy: session.configuration.securityPolicy)
        self.init(base: base, session: session, requestSerializer: requestSerializer, responseSerializer: responseSerializer)
    }

    private init(base: URI?, session: Session, requestSerializer: RequestSerializerType, responseSerializer: ResponseSerializerType) {
        self.baseURL = base
        current = Mutex(session)
        self.requestSerializer = requestSerializer
        self.responseSerializer = responseSerializer
    }

    /// The base URL with AFNetworking's trailing "/", after the checks of both initializers.
    private static func base(_ baseURL: String?, securityPolicy: SecurityPolicy?) throws(HTTPClientError) -> URI? {
        var base: URI?
        if let baseURL {
            guard var parsed = try? URI(parsing: baseURL), parsed.isHTTP, parsed.host != nil else {
                throw HTTPClientError(code: .invalidBaseURL, message: "\(baseURL) is not an absolute http or https URL")
            }
            if !parsed.path.isEmpty && !parsed.path.hasSuffix("/") {
                parsed = (try? parsed.resolving(HTTPClient.lastSegment(of: parsed.path) + "/")) ?? parsed
            }
            base = parsed
        }
        if let policy = securityPolicy, policy.pinningMode != .none || !policy.pinnedPublicKeys.isEmpty,
           base?.scheme != "https" {
            throw HTTPClientError(code: .pinningWithoutTLS, message: "a pinning security policy needs an https base URL")
        }
        return base
    }

    /// Invalidates the client's session (AFURLSessionManager's
    /// `invalidateSessionCancelingTasks:resetSession:`), and with `resetSession` puts a fresh
    /// session with the same configuration in its place at once: calls made from then on run on
    /// the new session (and its own connection pool) while the old one finishes or cancels its
    /// tasks. Without it, later calls fail with `.invalidated`. A session shared with other
    /// clients is invalidated for them too; the fresh one is this client's alone.
    /// - Parameters:
    ///   - cancelingTasks: cancel the running tasks (they complete with `.cancelled`) rather than
    ///     let them finish.
    ///   - resetSession: replace the session with a fresh one.
    public func invalidateSession(cancelingTasks: Bool, resetSession: Bool = false) async {
        let old = current.withLock { current -> Session in
            let old = current
            if resetSession { current = Session(configuration: old.configuration) }
            return old
        }
        if cancelingTasks { await old.invalidateAndCancel() } else { await old.finishTasksAndInvalidate() }
    }

    /// "a/b/c" → "c" (to add the trailing slash through RFC 3986 resolution).
    private static func lastSegment(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        let segment = String(path[path.index(after: slash)...])
        // A segment with ":" would read as a scheme; "./" keeps it a path.
        return segment.contains(":") ? "./" + segment : segment
    }

    /// The absolute URI for `path`: resolved against the base URL, or parsed when there is none.
    /// - Parameter path: a relative reference or an absolute URL.
    /// - Returns: the URI.
    /// - Throws: `SessionError.invalidURL`.
    public func url(for path: String) throws(SessionError) -> URI {
        do {
            if let baseURL { return try baseURL.resolving(path) }
            return try URI(parsing: path)
        } catch {
            throw SessionError(.invalidURL, "\(path) is not a valid URL")
        }
    }

    // MARK: Building and running

    /// Builds the request for `method` and `path` (serializer failures throw before anything is
    /// sent) and returns the suspended task, AFNetworking's `dataTaskWithHTTPMethod:...`.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields (they replace the serializer's defaults of the same name).
    ///   - serializer: validates and parses this response (the client's own is only the default).
    /// - Returns: the task, not resumed.
    /// - Throws: `SessionError` (`.invalidURL`, `.invalidRequest` with the serializer's reason).
    public func dataTask<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
        headers: HTTPHeaders = HTTPHeaders(), serializer: Serializer
    ) throws(SessionError) -> DataTask<Serializer.Value> {
        let uri = try url(for: path)
        let request: HTTPRequest
        do {
            request = try requestSerializer.request(method: method, uri: uri, parameters: parameters, headers: headers)
        } catch {
            throw SessionError.requestSerialization(error, "the request cannot be serialized", url: uri.redactedDescription)
        }
        return session.dataTask(with: request, serializer: serializer)
    }

    /// `dataTask(_:_:parameters:headers:serializer:)` with the client's response serializer.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the task, not resumed.
    /// - Throws: `SessionError`.
    public func dataTask(_ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
                         headers: HTTPHeaders = HTTPHeaders()) throws(SessionError) -> DataTask<ResponseSerializerType.Value> {
        try dataTask(method, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// Runs `method` on `path` and returns the value `serializer` made with the response head.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func send<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
        headers: HTTPHeaders = HTTPHeaders(), serializer: Serializer
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        let task = try dataTask(method, path, parameters: parameters, headers: headers, serializer: serializer)
        task.resume()
        return try HTTPClient.unwrap(await task.response)
    }

    /// Runs `method` on `path` and returns the serialized value with the response head.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func send(_ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
                     headers: HTTPHeaders = HTTPHeaders()) async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(method, path, parameters: parameters, headers: headers, serializer: responseSerializer)
    }

    /// Runs `method` on `path` and calls `completion` on `executor` (AFNetworking's success and
    /// failure blocks in one `Result`). A serializer failure is reported the same way.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    ///   - executor: where `completion` runs.
    ///   - completion: called once with the value and head, or the error.
    /// - Returns: the running task, or nil when the request could not be built.
    @discardableResult
    public func send<Serializer: ResponseSerializer>(
        _ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
        headers: HTTPHeaders = HTTPHeaders(), serializer: Serializer, on executor: CallbackExecutor,
        completion: @escaping @Sendable (Result<(value: Serializer.Value, response: HTTPResponseHead), SessionError>) -> Void
    ) -> DataTask<Serializer.Value>? {
        let task: DataTask<Serializer.Value>
        do {
            task = try dataTask(method, path, parameters: parameters, headers: headers, serializer: serializer)
        } catch {
            executor.run { completion(.failure(error)) }
            return nil
        }
        task.onCompletion(on: executor) { response in
            do throws(SessionError) { completion(.success(try HTTPClient.unwrap(response))) } catch { completion(.failure(error)) }
        }
        task.resume()
        return task
    }

    /// `send(_:_:parameters:headers:serializer:on:completion:)` with the client's response
    /// serializer.
    /// - Parameters:
    ///   - method: the method.
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    ///   - executor: where `completion` runs.
    ///   - completion: called once with the value and head, or the error.
    /// - Returns: the running task, or nil when the request could not be built.
    @discardableResult
    public func send(_ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
                     headers: HTTPHeaders = HTTPHeaders(), on executor: CallbackExecutor,
                     completion: @escaping @Sendable (Result<(value: ResponseSerializerType.Value, response: HTTPResponseHead), SessionError>) -> Void)
        -> DataTask<ResponseSerializerType.Value>? {
        send(method, path, parameters: parameters, headers: headers, serializer: responseSerializer, on: executor, completion: completion)
    }

    static func unwrap<Value>(_ response: TaskResponse<Value>) throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        let value = try response.result.get()
        guard let head = response.head else { throw SessionError(.connection, "no response") }
        return (value, head)
    }

    /// HEAD (parameters in the query): the response head only; the body a HEAD cannot have is not
    /// judged, but the status is (a 404 throws, as for the other verbs).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the response head.
    /// - Throws: `SessionError`.
    public func head(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> HTTPResponseHead {
        let task = try dataTask(.head, path, parameters: parameters, headers: headers)
        task.resume()
        let response = await task.response
        if case .failure(let error) = response.result, error.code != .serialization { throw error }
        if case .failure(let error) = response.result, error.serializationError?.hasCode(.unacceptableStatusCode) == true { throw error }
        guard let head = response.head else { throw SessionError(.connection, "no response") }
        return head
    }
}

extension HTTPClient where RequestSerializerType == FormRequestSerializer, ResponseSerializerType == JSONResponseSerializer {
    /// A client with AFHTTPSessionManager's defaults: form-encoded requests, JSON responses.
    /// - Parameters:
    ///   - baseURL: the base URL text, or nil.
    ///   - configuration: the session's configuration.
    /// - Throws: `HTTPClientError`.
    public convenience init(baseURL: String?, configuration: SessionConfiguration = SessionConfiguration()) throws(HTTPClientError) {
        try self.init(baseURL: baseURL, configuration: configuration, requestSerializer: FormRequestSerializer(),
                      responseSerializer: JSONResponseSerializer())
    }

    /// A client with AFHTTPSessionManager's defaults on a session it shares with other clients.
    /// - Parameters:
    ///   - baseURL: the base URL text, or nil.
    ///   - session: the session (and connection pool) to run on.
    /// - Throws: `HTTPClientError`.
    public convenience init(baseURL: String?, session: Session) throws(HTTPClientError) {
        try self.init(baseURL: baseURL, session: session, requestSerializer: FormRequestSerializer(),
                      responseSerializer: JSONResponseSerializer())
    }
}
