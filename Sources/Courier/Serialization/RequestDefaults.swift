// RequestDefaults: the state AFHTTPRequestSerializer keeps for every request it builds — default
// header fields (Accept-Language, User-Agent, Authorization), the timeout, the methods that put
// parameters in the URI, and an optional custom query-string closure — plus the rules that apply
// them (AFURLRequestSerialization.m, -requestBySerializingRequest:withParameters:error:):
//
// - a serializer default is used only when the request does not carry a field of the same name
//   (any case): per-request headers replace defaults;
// - the method is compared UPPER-CASED with `httpMethodsEncodingParametersInURI`;
// - in the URI the query is appended after "&" when the URI already has a query, after "?"
//   otherwise; an empty query string appends nothing;
// - otherwise the query string is the body and Content-Type defaults to
//   application/x-www-form-urlencoded (only when the caller set none).

import CourierBytes
import CourierHTTP1
import CourierURL
import CourierPosix

/// Courier's name and version, and the default User-Agent.
public enum CourierVersion {
    /// The product token of the command-line tool's User-Agent (`courier/0.1`, as curl's).
    public static let product = "courier"
    /// The version.
    public static let version = "0.1"
    /// The default User-Agent of a library user's requests, in AFNetworking's shape
    /// (`<app>/<version> (<model>; iOS <version>)`) on Linux: `<executable>/<version> (Linux
    /// <kernel release>)`, for example `myservice/0.1 (Linux 6.1.0-18-amd64)`. The executable is
    /// the running program's file name; Linux programs carry no version that a library can read,
    /// so the version is Courier's (set `RequestDefaults(userAgent:)` to name your own).
    public static let userAgent = userAgent(executable: SystemIdentity.executableName ?? product, version: version,
                                            kernelRelease: SystemIdentity.kernelRelease)

    /// Builds a User-Agent `<executable>/<version> (Linux <kernel release>)`, pure ASCII as
    /// AFNetworking makes it: bytes outside printable ASCII are dropped; a name left empty
    /// becomes "courier"; characters that cannot appear in a product token (spaces, "/", "(",
    /// ...) become "-".
    /// - Parameters:
    ///   - executable: the program's name.
    ///   - version: its version.
    ///   - kernelRelease: the kernel's release, or nil to write only "Linux".
    /// - Returns: the field value.
    public static func userAgent(executable: String, version: String, kernelRelease: String?) -> String {
        func token(_ text: String) -> String {
            var bytes: [UInt8] = []
            for byte in text.utf8 where byte >= 0x20 && byte < 0x7F { bytes.append(ByteClass.token.contains(byte: byte) ? byte : UInt8(ascii: "-")) }
            return String(decoding: bytes, as: UTF8.self)
        }
        func comment(_ text: String) -> String {
            // Inside a comment: printable ASCII except the parentheses and the backslash.
            String(decoding: text.utf8.filter { $0 >= 0x20 && $0 < 0x7F && $0 != 0x28 && $0 != 0x29 && $0 != 0x5C }, as: UTF8.self)
        }
        let name = token(executable), release = kernelRelease.map(comment) ?? ""
        return "\(name.isEmpty ? product : name)/\(token(version)) (Linux\(release.isEmpty ? "" : " " + release))"
    }
}

/// A closure that replaces the built-in query-string builder (AFNetworking's
/// `setQueryStringSerializationWithBlock:`). It receives the method, the URI and the parameters
/// and returns the query string without "?"; what it throws becomes
/// `RequestSerializationError.queryStringSerializationFailed`.
public typealias QueryStringSerialization = @Sendable (_ method: HTTPMethod, _ uri: URI, _ parameters: QueryValue) throws -> String

/// The defaults a request serializer applies to every request.
public struct RequestDefaults: Sendable {
    /// Default header fields; a request's own field of the same name wins.
    public var headers: HTTPHeaders
    /// The timeout given to every request (nil: the session's).
    public var timeout: Duration?
    /// Methods whose parameters go in the URI query, compared upper-cased. Default GET, HEAD, DELETE.
    public var httpMethodsEncodingParametersInURI: Set<String>
    /// A custom query-string builder, or nil for `QueryString.build` (AFNetworking's rules).
    public var queryStringSerialization: QueryStringSerialization?

    /// Creates AFNetworking's defaults: Accept-Language from `preferredLanguages`, User-Agent
    /// `CourierVersion.userAgent`, parameters in the URI for GET, HEAD and DELETE.
    /// - Parameters:
    ///   - preferredLanguages: language tags in order of preference (for example from
    ///     `preferredLanguages(environment:)`); an empty list sends no Accept-Language.
    ///   - userAgent: the User-Agent, or nil to send none.
    public init(preferredLanguages: [String] = [], userAgent: String? = CourierVersion.userAgent) {
        var headers = HTTPHeaders()
        if let value = RequestDefaults.acceptLanguage(preferredLanguages) { headers.add(name: "Accept-Language", value: value) }
        if let userAgent { headers.add(name: "User-Agent", value: userAgent) }
        self.headers = headers
        self.timeout = nil
        self.httpMethodsEncodingParametersInURI = ["GET", "HEAD", "DELETE"]
        self.queryStringSerialization = nil
    }

    /// The Accept-Language value for a list of languages, exactly as AFNetworking builds it: the
    /// first six, each with its weight falling by 0.1 from 1 and written `%0.1g`
    /// (`en;q=1, fr;q=0.9, de;q=0.8`). The explicit `q=1` is AFNetworking's spelling (RFC 9110
    /// §12.4.2 makes it the default); scripts that compare headers with AFNetworking's see the same.
    /// - Parameter languages: language tags in order of preference.
    /// - Returns: the value, or nil for an empty list.
    public static func acceptLanguage(_ languages: [String]) -> String? {
        guard !languages.isEmpty else { return nil }
        // AFNetworking stops once q <= 0.5: six languages, q = 1.0 … 0.5.
        let weights = [";q=1", ";q=0.9", ";q=0.8", ";q=0.7", ";q=0.6", ";q=0.5"]
        return zip(languages.prefix(6), weights).map { $0 + $1 }.joined(separator: ", ")
    }

    /// Sets or replaces a default header field (AFNetworking's `setValue:forHTTPHeaderField:`);
    /// nil removes it.
    /// - Parameters:
    ///   - value: the value, or nil.
    ///   - name: the field name.
    public mutating func setValue(_ value: String?, forHeader name: String) {
        if let value { headers.replaceOrAdd(name: name, value: value) } else { headers.remove(name: name) }
    }

    /// Sets `Authorization: Basic base64(user:password)` from UTF-8 text
    /// (`setAuthorizationHeaderFieldWithUsername:password:`).
    /// - Parameters:
    ///   - username: the user name.
    ///   - password: the password.
    public mutating func setAuthorization(username: String, password: String) {
        setValue("Basic " + Base64.encode(Array((username + ":" + password).utf8)), forHeader: "Authorization")
    }

    /// Removes the Authorization default (`clearAuthorizationHeader`).
    public mutating func clearAuthorization() { headers.remove(name: "Authorization") }

    // MARK: Applying the defaults

    /// The header fields of a request: every default the request does not override, in order,
    /// then the request's own fields, in order. Both lists are validated first.
    func mergedHeaders(_ requestHeaders: HTTPHeaders) throws(RequestSerializationError) -> HTTPHeaders {
        do {
            try HTTPFieldValidation.validateFields(headers)
            try HTTPFieldValidation.validateFields(requestHeaders)
        } catch {
            throw RequestSerializationError(.invalidHeaderField, detail: "field \(error.fieldName ?? "?")", underlying: error)
        }
        var merged = HTTPHeaders()
        for field in headers where !requestHeaders.contains(name: field.name) { merged.add(name: field.name, value: field.value) }
        for field in requestHeaders { merged.add(name: field.name, value: field.value) }
        return merged
    }

    /// Whether `method` puts its parameters in the URI (compared upper-cased).
    public func encodesParametersInURI(_ method: HTTPMethod) -> Bool {
        httpMethodsEncodingParametersInURI.contains(ASCIICase.uppercased(method.rawValue))
    }

    /// The query string for `parameters`, from the custom closure or `QueryString.build`.
    func queryString(method: HTTPMethod, uri: URI, parameters: QueryValue) throws(RequestSerializationError) -> String {
        guard let custom = queryStringSerialization else {
            // Names come from a dictionary's keys; anything else at the top has no names.
            guard case .dictionary = parameters else {
                throw RequestSerializationError(.parametersNotKeyValue, detail: "query-string and form parameters must be a dictionary at the top level, not \(parameters.kindName)")
            }
            return QueryString.build(parameters)
        }
        do { return try custom(method, uri, parameters) } catch {
            throw RequestSerializationError(.queryStringSerializationFailed, underlying: error)
        }
    }

    /// `uri` with `query` appended: after "&" when it has a query (even an empty one), after "?"
    /// otherwise; unchanged for an empty query.
    static func appendingQuery(_ query: String, to uri: URI) throws(RequestSerializationError) -> URI {
        guard !query.isEmpty else { return uri }
        let combined = uri.query.map { $0 + "&" + query } ?? query
        do { return try uri.replacingQuery(combined) } catch {
            throw RequestSerializationError(.invalidQuery, underlying: error)
        }
    }

    /// The shared start of every serializer: headers merged and validated, timeout applied, and —
    /// for methods that encode parameters in the URI — the query appended.
    /// - Returns: the request (body none) and whether the parameters still need a body.
    func baseRequest(method: HTTPMethod, uri: URI, query: QueryValue?, headers requestHeaders: HTTPHeaders) throws(RequestSerializationError) -> (request: HTTPRequest, needsBody: Bool) {
        let merged = try mergedHeaders(requestHeaders)
        var request = HTTPRequest(method: method, uri: uri, headers: merged, body: .none, timeout: timeout)
        guard encodesParametersInURI(method) else { return (request, true) }
        if let query {
            request.uri = try RequestDefaults.appendingQuery(queryString(method: method, uri: uri, parameters: query), to: uri)
        }
        return (request, false)
    }

}

extension QueryValue {
    /// "an array", "a string", ... for messages.
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .int, .double: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .set: return "a set"
        case .dictionary: return "a dictionary"
        case .bytes: return "bytes"
        }
    }
}
