// HTTPResponseHead: a response head as Courier's public API hands it out — version, status, reason
// phrase, header fields — and the media type parsed from Content-Type on demand (NSURLResponse's
// MIMEType and textEncodingName).
//
// Content-Type (RFC 9110 §8.3.1): `type "/" subtype *( OWS ";" OWS parameter )`, parameter
// `token "=" ( token / quoted-string )`. Type, subtype and parameter names are case-insensitive
// and folded to lower case here; the charset value is folded too (charset names are
// case-insensitive, RFC 9110 §8.3.2). A value that does not parse leaves `mimeType` nil, which no
// acceptable-content-type set contains.

import CourierBytes
import CourierHTTP1

/// A response head: version, status, reason phrase and fields, with the media type and charset of
/// its Content-Type (NSHTTPURLResponse's statusCode, allHeaderFields, MIMEType and
/// textEncodingName).
///
/// The one head type above the wire: task outcomes (`TaskResponse.head`), task events
/// (`TaskEvent.responseHead`), response serializers, the session's hooks, `HTTPClient`'s verbs and
/// the low-level `HTTP1Connection` all hand out this type. Its fields are owned copies; the
/// zero-copy view the parser produces stays inside `CourierHTTP1`.
public struct HTTPResponseHead: Sendable {
    /// The HTTP version of the status line.
    public var version: HTTPVersion
    /// The status code.
    public var status: Int
    /// The reason phrase as sent (may be empty; clients should not act on it, RFC 9112 §4).
    public var reason: String
    /// The header fields, in the order received.
    public var headers: HTTPHeaders

    /// `type/subtype` from the first Content-Type field, lower case, or nil when absent or
    /// malformed. Computed from `headers` when asked for, so it always matches them.
    public var mimeType: String? { contentType?.mimeType }

    /// The `charset` parameter of the first Content-Type field, lower case and unquoted, or nil.
    /// Computed from `headers` when asked for.
    public var charset: String? { contentType?.charset }

    private var contentType: (mimeType: String, charset: String?)? {
        headers.first(name: "Content-Type").flatMap(HTTPResponseHead.parseContentType)
    }

    /// Creates a head.
    /// - Parameters:
    ///   - version: the HTTP version of the status line; default HTTP/1.1.
    ///   - status: the status code.
    ///   - reason: the reason phrase; default empty.
    ///   - headers: the header fields.
    public init(version: HTTPVersion = .http1_1, status: Int, reason: String = "", headers: HTTPHeaders = HTTPHeaders()) {
        self.version = version
        self.status = status
        self.reason = reason
        self.headers = headers
    }

    /// Copies a head from the zero-copy parser (fields and reason as text).
    /// - Parameter head: the head from `ResponseHeadParser`.
    package init(_ head: CourierHTTP1.ResponseHead) {
        self.init(version: head.version, status: head.status, reason: head.reasonPhrase.readableString,
                  headers: head.headers.headers)
    }

    /// Parses a Content-Type value.
    /// - Parameter value: the field value, e.g. `text/html; charset="UTF-8"`.
    /// - Returns: the lower-case `type/subtype` and charset, or nil when the media type is malformed.
    public static func parseContentType(_ value: String) -> (mimeType: String, charset: String?)? {
        let bytes = Array(value.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        func token() -> [UInt8] {
            let start = index
            while index < bytes.count, isTokenByte(bytes[index]) { index += 1 }
            return Array(bytes[start..<index])
        }
        skipSpace()
        let type = token()
        guard !type.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        index += 1
        let subtype = token()
        guard !subtype.isEmpty else { return nil }
        let mime = lower(type) + "/" + lower(subtype)
        var charset: String?
        skipSpace()
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: ";") else { return (mime, charset) }
            index += 1
            skipSpace()
            let name = token()
            guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                skipSpace(); continue
            }
            index += 1
            var parameter: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                    parameter.append(bytes[index])
                    index += 1
                }
                if index < bytes.count { index += 1 }
            } else {
                parameter = token()
            }
            if lower(name) == "charset", charset == nil { charset = lower(parameter) }
            skipSpace()
        }
        return (mime, charset)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        // RFC 9110 §5.6.2 tchar.
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func lower(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { $0 &- UInt8(ascii: "A") < 26 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}

extension HTTPResponseHead {
    /// The short lower-case text Foundation gives a status code
    /// (`NSHTTPURLResponse.localizedStringForStatusCode:`, English), which AFNetworking's error
    /// descriptions quote: 404 "not found", 503 "service unavailable", an unlisted 4xx "client
    /// error". One deliberate difference: 415 is "unsupported media type" (Foundation's table
    /// has no entry and answers "server error").
    /// - Parameter status: the status code.
    /// - Returns: the text.
    public static func localizedString(forStatusCode status: Int) -> String {
        switch status {
        case 100: return "continue"
        case 101: return "switching protocols"
        case 102...199: return "informational"
        case 200: return "no error"
        case 201: return "created"
        case 202: return "accepted"
        case 203: return "non-authoritative information"
        case 204: return "no content"
        case 205: return "reset content"
        case 206: return "partial content"
        case 207...299: return "success"
        case 300: return "multiple choices"
        case 301: return "moved permanently"
        case 302: return "found"
        case 303: return "see other"
        case 304: return "not modified"
        case 305: return "needs proxy"
        case 307: return "temporarily redirected"
        case 306, 308...399: return "redirected"
        case 400: return "bad request"
        case 401: return "unauthorized"
        case 402: return "payment required"
        case 403: return "forbidden"
        case 404: return "not found"
        case 405: return "method not allowed"
        case 406: return "unacceptable"
        case 407: return "proxy authentication required"
        case 408: return "request timed out"
        case 409: return "conflict"
        case 410: return "no longer exists"
        case 411: return "length required"
        case 412: return "precondition failed"
        case 413: return "request too large"
        case 414: return "requested URL too long"
        case 415: return "unsupported media type"
        case 416: return "requested range not satisfiable"
        case 417: return "expectation failed"
        case 418...499: return "client error"
        case 500: return "internal server error"
        case 501: return "unimplemented"
        case 502: return "bad gateway"
        case 503: return "service unavailable"
        case 504: return "gateway unavailable"
        case 505: return "unsupported version"
        default: return "server error"
        }
    }
}
