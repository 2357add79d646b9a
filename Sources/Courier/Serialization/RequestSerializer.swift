// RequestSerializer: AFURLRequestSerialization. A serializer turns (method, URI, parameters,
// per-request headers) into an `HTTPRequest`. The three conformers share `RequestDefaults`
// (AFHTTPRequestSerializer's state); they differ only in how parameters become a body:
//
//   FormRequestSerializer          application/x-www-form-urlencoded (AFHTTPRequestSerializer)
//   JSONRequestSerializer          application/json                  (AFJSONRequestSerializer)
//   PropertyListRequestSerializer  application/x-plist               (AFPropertyListRequestSerializer)
//
// All of them put parameters of GET, HEAD and DELETE (by default) in the URI with AFNetworking's
// query-string rules, and all validate every header field before building anything.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL

/// Builds requests from parameters (AFNetworking's `AFURLRequestSerialization`).
public protocol RequestSerializer: Sendable {
    /// The parameter type this serializer writes.
    associatedtype Parameters

    /// The defaults applied to every request (headers, timeout, URI methods, query closure).
    var defaults: RequestDefaults { get set }

    /// Builds a request.
    /// - Parameters:
    ///   - method: the method; parameters go in the URI when its upper-cased name is in
    ///     `defaults.httpMethodsEncodingParametersInURI`, in the body otherwise.
    ///   - uri: the target.
    ///   - parameters: the parameters, or nil for none (no query, no body).
    ///   - headers: fields for this request only; they replace defaults of the same name.
    /// - Returns: the request.
    /// - Throws: `RequestSerializationError` before anything is built.
    func request(method: HTTPMethod, uri: URI, parameters: Parameters?, headers: HTTPHeaders) throws(RequestSerializationError) -> HTTPRequest
}

extension RequestSerializer {
    /// Builds a request with no per-request headers.
    /// - Parameters:
    ///   - method: the method.
    ///   - uri: the target.
    ///   - parameters: the parameters, or nil.
    /// - Returns: the request.
    /// - Throws: `RequestSerializationError`.
    public func request(method: HTTPMethod, uri: URI, parameters: Parameters? = nil) throws(RequestSerializationError) -> HTTPRequest {
        try request(method: method, uri: uri, parameters: parameters, headers: HTTPHeaders())
    }

    /// Sets `Authorization: Basic …` on the defaults.
    /// - Parameters:
    ///   - username: the user name.
    ///   - password: the password.
    public mutating func setAuthorization(username: String, password: String) {
        defaults.setAuthorization(username: username, password: password)
    }

    /// Sets or removes a default header field.
    /// - Parameters:
    ///   - value: the value, or nil to remove the field.
    ///   - name: the field name.
    public mutating func setValue(_ value: String?, forHeader name: String) {
        defaults.setValue(value, forHeader: name)
    }

    /// The default timeout (AFNetworking's `timeoutInterval`).
    public var timeout: Duration? {
        get { defaults.timeout }
        set { defaults.timeout = newValue }
    }

    /// The methods whose parameters go in the URI (upper-case names).
    public var httpMethodsEncodingParametersInURI: Set<String> {
        get { defaults.httpMethodsEncodingParametersInURI }
        set { defaults.httpMethodsEncodingParametersInURI = newValue }
    }
}

