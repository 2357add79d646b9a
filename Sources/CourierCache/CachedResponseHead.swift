// CachedResponseHead: what a private cache keeps of a response besides its body — the status and
// fields as received (minus the fields RFC 9111 §3.1 says are not stored), the request and
// response times the age calculation needs (§4.2.3), and the request's values of the fields its
// Vary names (§4.1), as they went out on the wire.

import CourierHTTP1

/// One request field a stored response varies on: its name and the request's value (nil when the
/// request had no such field). Several field lines are joined with ", " (RFC 9110 §5.3).
public struct VaryField: Sendable, Hashable {
    /// The field name, lower case.
    public var name: String
    /// The combined value, or nil when absent.
    public var value: String?

    /// Creates a field record.
    /// - Parameters:
    ///   - name: the field name (stored lower case).
    ///   - value: the combined value, nil when absent.
    public init(name: String, value: String?) {
        self.name = String(decoding: name.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
        self.value = value
    }
}

/// The stored head of a cached response.
public struct CachedResponseHead: Sendable, Hashable {
    /// The status code (final, never 206 or 304).
    public var status: Int
    /// The reason phrase as received.
    public var reason: String
    /// The response fields, in order, without hop-by-hop fields.
    public var headers: HTTPHeaders
    /// When the request that fetched (or last validated) it was sent, in seconds since the epoch.
    public var requestTime: Int64
    /// When its response arrived, in seconds since the epoch.
    public var responseTime: Int64
    /// The request's values of the fields named by Vary (empty without Vary).
    public var vary: [VaryField]
    /// The body's length in bytes, as stored (after content decoding, when the session decodes).
    public var bodyLength: UInt64

    /// Creates a stored head.
    /// - Parameters:
    ///   - status: the status code.
    ///   - reason: the reason phrase.
    ///   - headers: the response fields.
    ///   - requestTime: when the request was sent (seconds since the epoch).
    ///   - responseTime: when the response arrived (seconds since the epoch).
    ///   - vary: the request's values of the Vary fields.
    ///   - bodyLength: the body's length.
    public init(status: Int, reason: String, headers: HTTPHeaders, requestTime: Int64, responseTime: Int64,
                vary: [VaryField] = [], bodyLength: UInt64 = 0) {
        self.status = status
        self.reason = reason
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.vary = vary
        self.bodyLength = bodyLength
    }

    /// The response's Cache-Control directives.
    public var cacheControl: CacheControl { CacheControl(fieldValues: headers["Cache-Control"]) }

    /// The strong or weak entity tag, as sent.
    public var entityTag: String? { headers.first(name: "ETag") }

    /// Last-Modified, as sent.
    public var lastModified: String? { headers.first(name: "Last-Modified") }
}
