// FormRequestSerializer: AFHTTPRequestSerializer itself. Parameters become an AFNetworking query
// string (`QueryString.build`, or the caller's closure): in the URI for the methods in
// `httpMethodsEncodingParametersInURI`, otherwise as an application/x-www-form-urlencoded body.
// The shared rules (headers, timeout, "?" / "&") live in RequestDefaults.swift.

import CourierBytes
import CourierHTTP1
import CourierURL

/// AFHTTPRequestSerializer: parameters as an AFNetworking query string, in the URI or as an
/// `application/x-www-form-urlencoded` body.
public struct FormRequestSerializer: RequestSerializer {
    /// The parameter tree (`QueryString` rules).
    public typealias Parameters = QueryValue

    /// The defaults applied to every request.
    public var defaults: RequestDefaults

    /// Creates a serializer.
    /// - Parameter defaults: the defaults (default: AFNetworking's, with no Accept-Language).
    public init(defaults: RequestDefaults = RequestDefaults()) { self.defaults = defaults }

    /// Builds a request; for body methods the query string is the body (an empty one for an
    /// empty parameter set, as AFNetworking sends) and Content-Type defaults to
    /// `application/x-www-form-urlencoded`.
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - parameters: the parameters, or nil.
    ///   - headers: per-request fields.
    /// - Returns: the request.
    /// - Throws: `RequestSerializationError`.
    public func request(method: HTTPMethod, uri: URI, parameters: QueryValue?, headers: HTTPHeaders) throws(RequestSerializationError) -> HTTPRequest {
        var (request, needsBody) = try defaults.baseRequest(method: method, uri: uri, query: parameters, headers: headers)
        guard needsBody, let parameters else { return request }
        let query = try defaults.queryString(method: method, uri: uri, parameters: parameters)
        if !request.headers.contains(name: "Content-Type") {
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        }
        request.body = .bytes(ByteBuffer(string: query))
        return request
    }
}
