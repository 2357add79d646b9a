// Conversions between Courier's request, response and field types and swift-http-types'
// (trait `HTTPTypes`, docs/integrations.md). Without the trait this module is empty.
//
// Order and repetition are kept both ways: fields are appended one at a time, never set through
// `HTTPFields`' subscript setter, which replaces every field of the name with one (and would
// fold Set-Cookie, Vary or WWW-Authenticate fields into a single value or drop them).

#if HTTPTypes
import Courier
import CourierBytes
import CourierHTTP1
import CourierURL
public import HTTPTypes

/// Why a value cannot be converted between Courier and swift-http-types.
public struct HTTPTypesConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable codes.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidFieldName, .invalidFieldValue, .invalidTarget, .unsupported, .invalidStatus
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A field name is not an RFC 9110 token.
        public static let invalidFieldName = Code("invalidFieldName")
        /// A field value holds a byte a field value may not (CR, LF, NUL, other controls) or
        /// starts or ends with whitespace.
        public static let invalidFieldValue = Code("invalidFieldValue")
        /// The request's scheme, authority and path do not make a URI, or a relative path has no
        /// base URL to be resolved against.
        public static let invalidTarget = Code("invalidTarget")
        /// Something HTTP/1.1 cannot send: extended CONNECT's `:protocol` pseudo-field.
        public static let unsupported = Code("unsupported")
        /// A status code outside 0–999.
        public static let invalidStatus = Code("invalidStatus")
    }

    /// What went wrong.
    public var code: Code
    /// An explanation for people (not API).
    public var message: String

    /// Creates an error.
    /// - Parameters:
    ///   - code: the code.
    ///   - message: the explanation.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}

// MARK: Fields

extension HTTPFields {
    /// Courier's fields as `HTTPFields`, in order, each field appended (repeated fields stay
    /// separate). Names keep their case (`HTTPField.Name.rawName`).
    /// - Parameter headers: the fields.
    /// - Throws: `.invalidFieldName` or `.invalidFieldValue` naming the field; nothing is
    ///   replaced by spaces or dropped silently.
    public init(courier headers: HTTPHeaders) throws(HTTPTypesConversionError) {
        self.init()
        reserveCapacity(headers.count)
        for (index, field) in headers.fields.enumerated() {
            guard let name = HTTPField.Name(field.name) else {
                throw HTTPTypesConversionError(.invalidFieldName, "field \(index) has the name \"\(field.name)\", which is not a token")
            }
            guard HTTPField.isValidValue(field.value) else {
                throw HTTPTypesConversionError(.invalidFieldValue, "the value of field \(index) (\(field.name)) holds a control byte or surrounding whitespace")
            }
            append(HTTPField(name: name, value: field.value))
        }
    }
}

extension HTTPHeaders {
    /// `HTTPFields` as Courier's fields, in order, with repeated fields kept as they are.
    /// - Parameter fields: the fields; names keep the case they were made with.
    public init(_ fields: HTTPFields) {
        self.init()
        for field in fields { add(name: field.name.rawName, value: field.value) }
    }
}

// MARK: Requests

extension HTTPTypes.HTTPRequest {
    /// A Courier request as an `HTTPTypes.HTTPRequest`: the method; scheme, authority (host and
    /// port as given, never the userinfo) and path from the URI — the request-target Courier
    /// would send (`effectiveRequestTarget`), so `requestTarget` overrides are kept; the fields
    /// appended in order. The body is not part of it.
    /// - Parameter request: the request.
    /// - Throws: `HTTPTypesConversionError` for a field swift-http-types would not hold.
    public init(_ request: Courier.HTTPRequest) throws(HTTPTypesConversionError) {
        guard let method = HTTPTypes.HTTPRequest.Method(request.method.rawValue) else {
            throw HTTPTypesConversionError(.unsupported, "the method \(request.method) is not a token")
        }
        var authority: String?
        if let host = request.uri.host {
            authority = host.description + (request.uri.port.map { ":\($0)" } ?? "")
        }
        let fields = try HTTPFields(courier: request.headers)
        if method == .connect {
            // A CONNECT request names only an authority (RFC 9110 §9.3.6).
            self.init(method: method, scheme: nil, authority: authority, path: nil, headerFields: fields)
        } else {
            self.init(method: method, scheme: request.uri.scheme, authority: authority,
                      path: request.effectiveRequestTarget, headerFields: fields)
        }
    }
}

extension Courier.HTTPRequest {
    /// An `HTTPTypes.HTTPRequest` as a Courier request. The URI is `scheme://authority` + path
    /// when the request has an authority (https when it has no scheme), else `baseURL` with the path (and its query) appended
    /// to the base's path (`https://h/api` + `/users?id=1` = `https://h/api/users?id=1`, as an
    /// OpenAPI server URL works; not RFC 3986 resolution, where `/users` would replace `/api`).
    /// `OPTIONS *` keeps `*` as its request-target. The fields are appended in order.
    /// - Parameters:
    ///   - request: the request.
    ///   - body: the body to send (default none).
    ///   - baseURL: where a request without an authority is resolved (default nil: it must have one).
    ///   - timeout: the request's timeout (default nil: the session's).
    /// - Throws: `.invalidTarget` when no absolute http(s) URI results, `.unsupported` for
    ///   extended CONNECT.
    public init(_ request: HTTPTypes.HTTPRequest, body: Body = .none, baseURL: URI? = nil,
                timeout: Duration? = nil) throws(HTTPTypesConversionError) {
        if let proto = request.extendedConnectProtocol {
            throw HTTPTypesConversionError(.unsupported, "extended CONNECT (:protocol \(proto)) needs HTTP/2 or later")
        }
        let method: HTTPMethod
        do { method = try HTTPMethod(request.method.rawValue) } catch {
            throw HTTPTypesConversionError(.unsupported, "the method \(request.method.rawValue) is not a token")
        }
        let path = request.path ?? ""
        let asterisk = path == "*"
        let uri: URI
        do {
            if let authority = request.authority {
                let scheme = request.scheme ?? "https"
                uri = try URI(parsing: scheme + "://" + authority + (asterisk || path.isEmpty ? "/" : path))
            } else if let baseURL {
                uri = try Courier.HTTPRequest.appending(asterisk ? "" : path, to: baseURL)
            } else {
                throw HTTPTypesConversionError(.invalidTarget, "the request has no authority and there is no base URL")
            }
        } catch let error as HTTPTypesConversionError {
            throw error
        } catch {
            throw HTTPTypesConversionError(.invalidTarget, "\(request.scheme ?? "")://\(request.authority ?? "")\(path) is not a valid URI: \(error)")
        }
        guard uri.isHTTP, uri.host != nil else {
            throw HTTPTypesConversionError(.invalidTarget, "\(uri.redactedDescription) is not an absolute http or https URI")
        }
        self.init(method: method, uri: uri, headers: HTTPHeaders(request.headerFields), body: body, timeout: timeout)
        if asterisk { requestTarget = "*" }
    }
}

extension Courier.HTTPRequest {
    /// `base` (without its query and fragment, without a trailing "/") followed by `path`, which
    /// starts with "/" or is empty, and may carry a query.
    /// - Parameters:
    ///   - path: the path and query, percent-encoded.
    ///   - base: an absolute URI.
    /// - Returns: the URI.
    /// - Throws: `URIError` when the text does not parse.
    public static func appending(_ path: String, to base: URI) throws(URIError) -> URI {
        var prefix = (try? base.replacingQuery(nil))?.removingFragment.description ?? base.description
        while prefix.hasSuffix("/") { prefix.removeLast() }
        var suffix = path
        if !suffix.isEmpty && !suffix.hasPrefix("/") && !suffix.hasPrefix("?") { suffix = "/" + suffix }
        return try URI(parsing: prefix + (suffix.isEmpty ? "/" : suffix))
    }
}

// MARK: Responses

extension HTTPTypes.HTTPResponse {
    /// A Courier response head as an `HTTPTypes.HTTPResponse`, with its reason phrase, every
    /// field appended in order (values kept byte for byte: `HTTPField(name:lenientValue:)`, since
    /// a server may send obs-text a strict conversion would refuse).
    /// - Parameter head: the head.
    /// - Throws: `.invalidStatus`, or `.invalidFieldName` for a name that is not a token.
    public init(_ head: HTTPResponseHead) throws(HTTPTypesConversionError) {
        guard (0...999).contains(head.status) else {
            throw HTTPTypesConversionError(.invalidStatus, "status \(head.status) is not three digits")
        }
        var fields = HTTPFields()
        fields.reserveCapacity(head.headers.count)
        for (index, field) in head.headers.fields.enumerated() {
            guard let name = HTTPField.Name(field.name) else {
                throw HTTPTypesConversionError(.invalidFieldName, "field \(index) has the name \"\(field.name)\", which is not a token")
            }
            fields.append(HTTPField(name: name, lenientValue: Array(field.value.utf8)))
        }
        self.init(status: .init(code: head.status, reasonPhrase: head.reason), headerFields: fields)
    }
}

extension HTTPResponseHead {
    /// An `HTTPTypes.HTTPResponse` as a Courier response head (HTTP/1.1, status, reason phrase and
    /// fields in order; the media type and charset come from the first Content-Type).
    /// - Parameter response: the response.
    public init(_ response: HTTPTypes.HTTPResponse) {
        self.init(status: response.status.code, reason: response.status.reasonPhrase, headers: HTTPHeaders(response.headerFields))
    }
}
#endif
