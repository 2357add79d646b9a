// HTTPClient: AFHTTPSessionManager's role (design §8): a base URL, a request serializer and a
// response serializer in front of a Session, with GET/HEAD/POST/PUT/PATCH/DELETE and multipart POST.
//
// Base URL rule (AFHTTPSessionManager -initWithBaseURL:): a base URL whose path is not empty and
// does not end in "/" gets one appended, so `"v1"` resolved against `https://h/api` gives
// `https://h/api/v1`, as AFNetworking users expect; relative paths are then resolved by RFC 3986
// §5.2 (`"/v1"` replaces the whole path, `"../x"` goes up).
//
// Nothing is sent when serialization fails: the serializer throws before a task exists.

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
    public enum Code: String, Sendable, Hashable {
        /// The base URL is not an absolute http or https URL.
        case invalidBaseURL
        /// A pinning security policy with a base URL that is not https (AFNetworking raises too:
        /// a pin can only hold on TLS).
        case pinningWithoutTLS
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
/// let client = try HTTPClient(baseURL: "https://api.example.com/v1",
///                             requestSerializer: JSONRequestSerializer(),
///                             responseSerializer: DecodableResponseSerializer<User>())
/// let (user, response) = try await client.get("users/42")
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
    /// Validates and parses every response.
    public let responseSerializer: ResponseSerializerType

    /// Creates a client.
    /// - Parameters:
    ///   - baseURL: the base URL text, or nil.
    ///   - configuration: the session's configuration.
    ///   - requestSerializer: builds requests (form, JSON, property list).
    ///   - responseSerializer: validates and parses responses.
    /// - Throws: `HTTPClientError` (`.invalidBaseURL`, `.pinningWithoutTLS`).
    public init(baseURL: String?, configuration: SessionConfiguration = SessionConfiguration(),
                requestSerializer: RequestSerializerType, responseSerializer: ResponseSerializerType) throws(HTTPClientError) {
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
        if let policy = configuration.securityPolicy, policy.pinningMode != .none || !policy.pinnedPublicKeys.isEmpty,
           base?.scheme != "https" {
            throw HTTPClientError(code: .pinningWithoutTLS, message: "a pinning security policy needs an https base URL")
        }
        self.baseURL = base
        current = Mutex(Session(configuration: configuration))
        self.requestSerializer = requestSerializer
        self.responseSerializer = responseSerializer
    }

    /// Invalidates the client's session (AFURLSessionManager's
    /// `invalidateSessionCancelingTasks:resetSession:`), and with `resetSession` puts a fresh
    /// session with the same configuration in its place at once: calls made from then on run on
    /// the new session (and its own connection pool) while the old one finishes or cancels its
    /// tasks. Without it, later calls fail with `.invalidated`.
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
    /// - Returns: the task, not resumed.
    /// - Throws: `SessionError` (`.invalidURL`, `.invalidRequest` with the serializer's reason).
    public func dataTask(_ method: HTTPMethod, _ path: String, parameters: RequestSerializerType.Parameters? = nil,
                         headers: HTTPHeaders = HTTPHeaders()) throws(SessionError) -> DataTask<ResponseSerializerType.Value> {
        let uri = try url(for: path)
        let request: HTTPRequest
        do {
            request = try requestSerializer.request(method: method, uri: uri, parameters: parameters, headers: headers)
        } catch {
            throw SessionError.requestSerialization(error, "the request cannot be serialized", url: uri.redactedDescription)
        }
        return session.dataTask(with: request, serializer: responseSerializer)
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
        let task = try dataTask(method, path, parameters: parameters, headers: headers)
        task.resume()
        return try await HTTPClient.unwrap(await task.response())
    }

    /// Runs `method` on `path` and calls `completion` on `executor` (AFNetworking's success and
    /// failure blocks in one `Result`). A serializer failure is reported the same way.
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
        let task: DataTask<ResponseSerializerType.Value>
        do {
            task = try dataTask(method, path, parameters: parameters, headers: headers)
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

    static func unwrap(_ response: TaskResponse<ResponseSerializerType.Value>) throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        let value = try response.result.get()
        guard let head = response.head else { throw SessionError(.connection, "no response") }
        return (value, head)
    }

    // MARK: Verbs

    /// GET (parameters in the query).
    public func get(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.get, path, parameters: parameters, headers: headers)
    }

    /// HEAD (parameters in the query); the value is what the serializer makes of an empty body.
    public func head(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> HTTPResponseHead {
        let task = try dataTask(.head, path, parameters: parameters, headers: headers)
        task.resume()
        let response = await task.response()
        if case .failure(let error) = response.result, error.code != .serialization { throw error }
        if case .failure(let error) = response.result, error.serializationError?.hasCode(.unacceptableStatusCode) == true { throw error }
        guard let head = response.head else { throw SessionError(.connection, "no response") }
        return head
    }

    /// POST (parameters in the body).
    public func post(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.post, path, parameters: parameters, headers: headers)
    }

    /// PUT (parameters in the body).
    public func put(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.put, path, parameters: parameters, headers: headers)
    }

    /// PATCH (parameters in the body).
    public func patch(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.patch, path, parameters: parameters, headers: headers)
    }

    /// DELETE (parameters in the query).
    public func delete(_ path: String, parameters: RequestSerializerType.Parameters? = nil, headers: HTTPHeaders = HTTPHeaders())
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await send(.delete, path, parameters: parameters, headers: headers)
    }

    /// A multipart POST: `parameters` become fields first, then `constructingBody` appends parts.
    /// The body streams with its exact Content-Length; file parts are read as they are sent.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: fields, or nil.
    ///   - headers: per-request fields.
    ///   - uploadProgress: called with upload progress, in order.
    ///   - constructingBody: appends parts.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post(_ path: String, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(),
                     uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
                     constructingBody: (inout MultipartForm) throws -> Void)
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        let uri = try url(for: path)
        let request: HTTPRequest
        do {
            // A fresh boundary for every request, from the kernel's CSPRNG (AFNetworking draws one
            // from arc4random() for every form).
            var generator = KernelRandom()
            request = try requestSerializer.multipartRequest(method: .post, uri: uri, parameters: parameters, headers: headers,
                                                             using: &generator, constructingBody: constructingBody)
        } catch {
            throw SessionError.requestSerialization(error, "the multipart request cannot be built", url: uri.redactedDescription)
        }
        let task = session.dataTask(with: request, serializer: responseSerializer)
        if let uploadProgress { task.setProgressHandler(upload: uploadProgress, download: nil) }
        task.resume()
        return try HTTPClient.unwrap(await task.response())
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
}
