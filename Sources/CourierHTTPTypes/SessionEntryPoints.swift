// Session and HTTPClient entry points that take and return swift-http-types' values (trait
// `HTTPTypes`): a request goes through the same session machinery (pool, TLS, redirects,
// retries, cookies, decoding) as any Courier request; only its description changes.

#if HTTPTypes
import Courier
import CourierBytes
import CourierHTTP1
import CourierURL
public import HTTPTypes

extension SessionError {
    /// A conversion failure as the session's `.invalidRequest` (nothing was sent).
    static func conversion(_ error: HTTPTypesConversionError, url: String?) -> SessionError {
        var wrapped = SessionError(.invalidRequest, "the request cannot be converted: \(error)", url: url)
        wrapped.underlying = error
        return wrapped
    }
}

/// A streamed response as swift-http-types sees it.
public struct HTTPTypesStreamedResponse: Sendable {
    /// The final response, with its reason phrase and every field in order.
    public var response: HTTPTypes.HTTPResponse
    /// The body, decoded as the session's configuration says, with back-pressure.
    public var body: ResponseBodyStream
    /// The body's length when the head declared it and no content coding changes it, else nil.
    public var expectedLength: Int?
    /// The URL of the request that got this response (after redirects), userinfo redacted.
    public var url: String
}

extension Session {
    /// Sends an `HTTPTypes.HTTPRequest` and returns the response with its body in memory (up to
    /// `maximumBodySize`). Every status is returned as a response, none is an error.
    /// - Parameters:
    ///   - request: the request; it must have a scheme and an authority.
    ///   - body: the body (default none).
    ///   - timeout: the request's timeout (default nil: the configuration's).
    /// - Returns: the response and its body.
    /// - Throws: `SessionError` (`.invalidRequest` when the request cannot be converted; the
    ///   session's errors otherwise).
    public func data(for request: HTTPTypes.HTTPRequest, body: Courier.HTTPRequest.Body = .none,
                     timeout: Duration? = nil) async throws(SessionError) -> (HTTPTypes.HTTPResponse, ByteBuffer) {
        let converted: Courier.HTTPRequest
        do { converted = try Courier.HTTPRequest(request, body: body, timeout: timeout) } catch {
            throw .conversion(error, url: nil)
        }
        return try await data(for: converted)
    }

    /// Sends a Courier request and returns an `HTTPTypes.HTTPResponse` with the body in memory;
    /// every status is returned as a response.
    /// - Parameter request: the request.
    /// - Returns: the response and its body.
    /// - Throws: `SessionError`.
    public func data(for request: Courier.HTTPRequest) async throws(SessionError) -> (HTTPTypes.HTTPResponse, ByteBuffer) {
        var serializer = DataResponseSerializer()
        serializer.acceptableStatusCodes = nil
        let task = dataTask(with: request, serializer: serializer)
        task.resume()
        let response = await withTaskCancellationHandler { await task.response } onCancel: { task.cancel() }
        let body = try response.result.get()
        guard let head = response.head else { throw SessionError(.connection, "no response", url: request.uri.redactedDescription) }
        do { return (try HTTPTypes.HTTPResponse(head), body) } catch {
            throw .conversion(error, url: request.uri.redactedDescription)
        }
    }

    /// Sends an `HTTPTypes.HTTPRequest` and returns the response as soon as its head arrives,
    /// the body streaming with back-pressure.
    /// - Parameters:
    ///   - request: the request; it must have a scheme and an authority.
    ///   - body: the body (default none).
    ///   - timeout: the request's timeout (default nil: the configuration's).
    /// - Returns: the response, its body stream and its length when known.
    /// - Throws: `SessionError`.
    public func stream(for request: HTTPTypes.HTTPRequest, body: Courier.HTTPRequest.Body = .none,
                       timeout: Duration? = nil) async throws(SessionError) -> HTTPTypesStreamedResponse {
        let converted: Courier.HTTPRequest
        do { converted = try Courier.HTTPRequest(request, body: body, timeout: timeout) } catch {
            throw .conversion(error, url: nil)
        }
        return try await stream(for: converted)
    }

    /// Sends a Courier request and returns an `HTTPTypes.HTTPResponse` as soon as its head
    /// arrives, the body streaming with back-pressure.
    /// - Parameter request: the request.
    /// - Returns: the response, its body stream and its length when known.
    /// - Throws: `SessionError`.
    public func stream(for request: Courier.HTTPRequest) async throws(SessionError) -> HTTPTypesStreamedResponse {
        let task = streamTask(with: request)
        let streamed: StreamedResponse
        do {
            // The caller's cancellation reaches the transfer while it waits for the head.
            streamed = try await withTaskCancellationHandler { try await task.value } onCancel: { task.cancel() }
        } catch let error as SessionError {
            throw error
        } catch {
            throw SessionError(.connection, "the response failed: \(error)", url: request.uri.redactedDescription)
        }
        let response: HTTPTypes.HTTPResponse
        do { response = try HTTPTypes.HTTPResponse(streamed.head) } catch {
            throw .conversion(error, url: streamed.url)
        }
        return HTTPTypesStreamedResponse(response: response, body: streamed.body,
                                         expectedLength: expectedLength(request: request, streamed: streamed),
                                         url: streamed.url)
    }

    /// The declared length of the body handed to the caller: 0 for HEAD, 204 and 304; nil when
    /// the session decodes a content coding (`acceptsCompressedResponses`: Content-Length counts
    /// the encoded bytes); else Content-Length when there is exactly one value.
    func expectedLength(request: Courier.HTTPRequest, streamed: StreamedResponse) -> Int? {
        let status = streamed.head.status
        if request.method == .head || status == 204 || status == 304 { return 0 }
        let received = streamed.head.headers
        if configuration.acceptsCompressedResponses,
           received["Content-Encoding"].contains(where: { !$0.isEmpty && $0.lowercased() != "identity" }) {
            return nil
        }
        let values = received["Content-Length"]
        guard let first = values.first, values.allSatisfy({ $0 == first }) else { return nil }
        return Int(first)
    }
}

extension HTTPClient {
    /// Sends an `HTTPTypes.HTTPRequest`; without an authority, its path (with its query) is
    /// appended to the base URL's path (`Courier.HTTPRequest.appending(_:to:)`), and returns the serialized value with the response (the
    /// response serializer validates and parses as for every other request; the request
    /// serializer is not used: the request and body are sent as given).
    /// - Parameters:
    ///   - request: the request.
    ///   - body: the body (default none).
    /// - Returns: the value and the response.
    /// - Throws: `SessionError`.
    public func send(_ request: HTTPTypes.HTTPRequest, body: Courier.HTTPRequest.Body = .none)
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPTypes.HTTPResponse) {
        let converted: Courier.HTTPRequest
        do { converted = try Courier.HTTPRequest(request, body: body, baseURL: baseURL) } catch {
            throw .conversion(error, url: baseURL?.redactedDescription)
        }
        let task = session.dataTask(with: converted, serializer: responseSerializer)
        task.resume()
        let response = await task.response
        let value = try response.result.get()
        guard let head = response.head else { throw SessionError(.connection, "no response", url: converted.uri.redactedDescription) }
        do { return (value, try HTTPTypes.HTTPResponse(head)) } catch {
            throw .conversion(error, url: converted.uri.redactedDescription)
        }
    }
}
#endif
