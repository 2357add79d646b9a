// MultipartRequest: AFHTTPRequestSerializer's
// -multipartFormRequestWithMethod:URLString:parameters:constructingBodyWithBlock:error:.
//
// Order (AFNetworking's): the request is built with no parameters (defaults, timeout, header
// validation); the parameters become form fields FIRST, one per query pair in AFNetworking's
// flattening order (`AFQueryStringPairsFromDictionary`: keys sorted, `a[b]`, `a[]`, sets under the
// bare key), names and values NOT percent-encoded, null as an empty value, `.bytes` values as
// exactly those bytes (AFNetworking's NSData parameters); then the caller's
// closure appends its parts. Content-Type is `multipart/form-data; boundary=…` and Content-Length
// the form's exact `contentLength` — both only when the form has parts (AFNetworking sends an empty
// form as no body at all). GET and HEAD are refused (AFNetworking asserts).
//
// Key order: the pairs come from `QueryString.pairs`, so form fields and query strings share one
// flattening and NSString `compare:` key order.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL

extension RequestSerializer {
    /// Builds a multipart/form-data request: parameters as fields first, then the closure's parts.
    /// - Parameters:
    ///   - method: the method (not GET or HEAD).
    ///   - uri: the target.
    ///   - parameters: fields to add first, flattened with AFNetworking's pair rules, or nil.
    ///   - headers: per-request fields.
    ///   - boundary: the form's boundary (make it with `MultipartBoundary(using:)` from an
    ///     injected random source).
    ///   - constructingBody: appends parts to the form; what it throws becomes `.multipartFailed`.
    /// - Returns: the request, body `.multipart(form)`.
    /// - Throws: `RequestSerializationError`.
    public func multipartRequest(
        method: HTTPMethod, uri: URI, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(),
        boundary: MultipartBoundary,
        constructingBody: (inout MultipartForm) throws -> Void = { _ in }
    ) throws(RequestSerializationError) -> HTTPRequest {
        let upper = ASCIICase.uppercased(method.rawValue)
        guard upper != "GET", upper != "HEAD" else {
            throw RequestSerializationError(.methodCannotHaveBody, detail: "\(method) cannot carry a multipart body")
        }
        var request = HTTPRequest(method: method, uri: uri, headers: try defaults.mergedHeaders(headers), body: .none, timeout: defaults.timeout)
        var form = MultipartForm(boundary: boundary)
        do {
            if let parameters {
                for (name, value) in QueryString.leaves(parameters) {
                    // Bytes go in as they are (AFNetworking's NSData values); the rest as text.
                    if case .bytes(let bytes) = value {
                        try form.appendField(name: name, value: bytes)
                    } else {
                        try form.appendField(name: name, value: QueryString.pairs(value).first?.value ?? "")
                    }
                }
            }
            try constructingBody(&form)
        } catch {
            throw RequestSerializationError(.multipartFailed, underlying: error)
        }
        guard !form.isEmpty else { return request }
        request.headers.replaceOrAdd(name: "Content-Type", value: form.contentType)
        request.headers.replaceOrAdd(name: "Content-Length", value: String(form.contentLength))
        request.body = .multipart(form)
        return request
    }

    /// Builds a multipart request with a boundary drawn from `generator`.
    /// - Parameters:
    ///   - method: the method (not GET or HEAD).
    ///   - uri: the target.
    ///   - parameters: fields to add first, or nil.
    ///   - headers: per-request fields.
    ///   - generator: the random source for the boundary.
    ///   - constructingBody: appends parts.
    /// - Returns: the request.
    /// - Throws: `RequestSerializationError`.
    public func multipartRequest(
        method: HTTPMethod, uri: URI, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(),
        using generator: inout some RandomNumberGenerator,
        constructingBody: (inout MultipartForm) throws -> Void = { _ in }
    ) throws(RequestSerializationError) -> HTTPRequest {
        try multipartRequest(method: method, uri: uri, parameters: parameters, headers: headers,
                             boundary: MultipartBoundary(using: &generator), constructingBody: constructingBody)
    }
}

/// AFNetworking's query-pair flattening (`AFQueryStringPairsFromKeyAndValue`), unescaped.
public enum MultipartFieldPairs {
    /// The (name, value) pairs of a parameter tree, in AFNetworking's order; a null value is nil.
    ///
    /// `["a": ["b": 1], "c": [1, 2]]` → `a[b]=1`, `c[]=1`, `c[]=2`.
    /// - Parameter parameters: the tree (a non-dictionary is the value of an empty name).
    /// - Returns: the pairs.
    public static func pairs(of parameters: QueryValue) -> [(name: String, value: String?)] {
        // The same flattening and order as the query string (NSString `compare:` key order).
        QueryString.pairs(parameters)
    }
}
