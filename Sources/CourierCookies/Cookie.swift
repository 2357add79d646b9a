// Cookie: one stored cookie, the struct of draft-ietf-httpbis-layered-cookies §5.1.2 ("Cookie
// Struct") as a value; CookieTarget: what the store needs to know about a request's URL; and the
// outcomes of receiving a Set-Cookie field.

import CourierBytes
import CourierURL

/// A cookie as the store keeps it.
///
/// Times are whole seconds since 1970-01-01T00:00:00Z (Unix time), the unit of the Netscape cookie
/// file and of Max-Age.
public struct Cookie: Sendable, Hashable, CustomStringConvertible {
    /// The SameSite attribute as received. Stored and written, never used to withhold a cookie:
    /// a non-browser agent has no "site" to compare with (layered-cookies §5.5).
    public enum SameSite: String, Sendable, Hashable {
        /// No SameSite attribute, or a value other than the three below.
        case unspecified
        /// `SameSite=Strict`.
        case strict
        /// `SameSite=Lax`.
        case lax
        /// `SameSite=None` (accepted only together with Secure).
        case none
    }

    /// The name (never empty), case-sensitive.
    public var name: String
    /// The value, possibly empty; double quotes are part of it.
    public var value: String
    /// The host (when `isHostOnly`) or the domain the cookie belongs to: lower case, ASCII,
    /// without a leading dot. An IPv6 address is written without brackets.
    public var domain: String
    /// True: sent to exactly `domain`; false: to `domain` and every name below it.
    public var isHostOnly: Bool
    /// The path (starts with "/"): sent to request paths that path-match it (RFC 6265 §5.1.4).
    public var path: String
    /// Sent only over a secure channel: https, or a loopback host (see `CookieTarget.isSecure`).
    public var isSecure: Bool
    /// The HttpOnly attribute: kept, written to files, and sent over HTTP as any cookie is.
    public var isHTTPOnly: Bool
    /// The SameSite attribute.
    public var sameSite: SameSite
    /// When the cookie expires (seconds since the Unix epoch); nil for a session cookie, which
    /// lasts as long as the store (the Netscape file writes it with expiry 0).
    public var expires: Int64?
    /// When the cookie was first stored; a replacement keeps the time of the cookie it replaces.
    public internal(set) var creationTime: Int64
    /// When the cookie was last sent or stored.
    public internal(set) var lastAccessTime: Int64

    /// Creates a cookie to put into a store (`CookieStore.insert`).
    /// - Parameters:
    ///   - name: the name (not empty).
    ///   - value: the value.
    ///   - domain: the host or domain, without a leading dot.
    ///   - isHostOnly: whether it is sent to `domain` only.
    ///   - path: the path, starting with "/".
    ///   - isSecure: whether it is sent over secure channels only.
    ///   - isHTTPOnly: the HttpOnly attribute.
    ///   - sameSite: the SameSite attribute.
    ///   - expires: seconds since the Unix epoch, or nil for a session cookie.
    public init(name: String, value: String, domain: String, isHostOnly: Bool = true, path: String = "/", isSecure: Bool = false,
                isHTTPOnly: Bool = false, sameSite: SameSite = .unspecified, expires: Int64? = nil) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
        self.expires = expires
        creationTime = 0
        lastAccessTime = 0
    }

    /// Whether the cookie has no expiry time (it ends with the store's session).
    public var isSessionCookie: Bool { expires == nil }

    /// Whether the cookie is expired at `now` (its expiry time is not after `now`).
    /// - Parameter now: seconds since the Unix epoch.
    /// - Returns: true when it must no longer be sent.
    public func isExpired(at now: Int64) -> Bool {
        guard let expires else { return false }
        return expires <= now
    }

    /// `name=value; Domain=…; Path=…` and the flags, for logs and test failures.
    public var description: String {
        var text = "\(name)=\(value); \(isHostOnly ? "Host" : "Domain")=\(domain); Path=\(path)"
        if isSecure { text += "; Secure" }
        if isHTTPOnly { text += "; HttpOnly" }
        if sameSite != .unspecified { text += "; SameSite=\(sameSite.rawValue)" }
        if let expires { text += "; Expires=\(CookieDate.format(expires))" }
        return text
    }

    /// The identity of a stored cookie (layered-cookies "Store a Cookie": name, host, host-only,
    /// path): at most one cookie per key is stored.
    var key: Key { Key(name: name, domain: domain, isHostOnly: isHostOnly, path: path) }

    struct Key: Hashable {
        var name: String
        var domain: String
        var isHostOnly: Bool
        var path: String
    }
}

/// What the cookie rules need to know about a request: its host, path and whether the channel
/// counts as secure. Built from the request's URL only — never from the connection — so a proxy
/// (or `--resolve`) does not change which cookies are stored or sent.
public struct CookieTarget: Sendable, Hashable {
    /// The host, lower case and ASCII (an IPv6 address without brackets), without a trailing dot
    /// (`example.com.` and `example.com` share cookies, as in Go's jar and curl).
    public var host: String
    /// Whether the host is an IP address (then only exact matches apply, never domain matches).
    public var isIPAddress: Bool
    /// The request path (percent-encoded as sent, without the query); "/" when empty.
    public var path: String
    /// https, or a loopback host over http (`localhost`, `*.localhost`, 127.0.0.0/8, `::1`): the
    /// channels where Secure cookies may be set and sent (layered-cookies leaves "secure" to the
    /// agent; curl counts localhost, 127.0.0.1 and ::1).
    public var isSecure: Bool

    /// A target from its parts.
    /// - Parameters:
    ///   - host: the host, lower case (a trailing dot is removed).
    ///   - isIPAddress: whether it is an IPv4 or IPv6 address.
    ///   - path: the request path.
    ///   - isSecure: whether the channel counts as secure.
    public init(host: String, isIPAddress: Bool, path: String, isSecure: Bool) {
        var host = ASCIICase.lowercased(host)
        if !isIPAddress && host.utf8.count > 1 && host.utf8.last == UInt8(ascii: ".") { host.removeLast() }
        self.host = host
        self.isIPAddress = isIPAddress
        self.path = path.utf8.first == UInt8(ascii: "/") ? path : "/"
        self.isSecure = isSecure
    }

    /// The target of an http or https URL.
    /// - Parameter uri: the request's URL.
    /// - Returns: nil for another scheme or a URL without a host (no cookies apply).
    public init?(uri: URI) {
        guard let scheme = uri.scheme, scheme == "http" || scheme == "https", let host = uri.host, !host.text.isEmpty else {
            return nil
        }
        let isIP = host.kind != .registeredName
        self.init(host: host.text, isIPAddress: isIP, path: uri.path,
                  isSecure: scheme == "https" || CookieTarget.isLoopback(host.text, isIPAddress: isIP))
    }

    /// Whether `host` names this machine: `localhost` or a name under it (RFC 6761 §6.3), an
    /// address in 127.0.0.0/8, or `::1` in any spelling.
    /// - Parameters:
    ///   - host: a lower-case host without brackets.
    ///   - isIPAddress: whether it is an address.
    /// - Returns: true for a loopback host.
    public static func isLoopback(_ host: String, isIPAddress: Bool) -> Bool {
        var name = ASCIICase.lowercased(host)
        if name.utf8.last == UInt8(ascii: ".") { name.removeLast() }
        if !isIPAddress { return name == "localhost" || name.hasSuffix(".localhost") }
        if name.contains(":") {
            // IPv6: every group zero but the last, which is 1 ("::1", "0:0:0:0:0:0:0:1", "0::1").
            let groups = name.split(separator: ":", omittingEmptySubsequences: true)
            guard let last = groups.last, UInt16(last, radix: 16) == 1 else { return false }
            guard groups.dropLast().allSatisfy({ UInt16($0, radix: 16) == 0 }) else { return false }
            return groups.count == 8 || name.contains("::")
        }
        return name.hasPrefix("127.")
    }
}

/// Why a Set-Cookie field (or a cookie given to `insert`) was not stored. The raw values are
/// stable and short, for logs.
public enum CookieRejection: String, Sendable, Hashable, Error {
    /// A control character (0x00–0x08, 0x0A–0x1F, 0x7F) in the field, or a tab inside the name
    /// or value.
    case controlCharacter
    /// No "=" before the first ";": not a cookie-pair (RFC 6265 §5.2, curl).
    case missingEquals
    /// The name is empty (RFC 6265 §5.2, curl).
    case emptyName
    /// Name and value together are longer than `CookieLimits.maximumNameValueLength`.
    case tooLarge
    /// The Domain attribute is not an ASCII host name or address.
    case invalidDomain
    /// A cookie given to `insert` has a path that does not start with "/".
    case invalidPath
    /// The request host does not domain-match the Domain attribute.
    case domainMismatch
    /// The Domain attribute is a public suffix other than the request host itself.
    case publicSuffix
    /// A Secure cookie from a channel that is not secure.
    case secureFromInsecureChannel
    /// A cookie from a channel that is not secure would overlay a Secure cookie of the same name.
    case overlaysSecureCookie
    /// `SameSite=None` without Secure.
    case sameSiteNoneWithoutSecure
    /// A `__Secure-` name (any case) without Secure.
    case securePrefix
    /// A `__Host-` name (any case) that is not Secure, host-only, with `Path=/`.
    case hostPrefix
    /// A `__Http-` name (any case) that is not Secure and HttpOnly.
    case httpPrefix
    /// Already expired, and no cookie of the same identity to delete.
    case expired
    /// Beyond `CookieLimits.maximumSetCookieFieldsPerResponse` in one response.
    case tooManyInResponse
}

/// What receiving one Set-Cookie field (or inserting one cookie) did to the store.
public enum CookieStoreResult: Sendable, Hashable {
    /// A new cookie was stored.
    case stored(Cookie)
    /// A cookie of the same identity was replaced (the new one keeps the old creation time).
    case replaced(Cookie)
    /// The field expired (Max-Age ≤ 0, or an Expires in the past) a stored cookie: it is gone.
    case deleted(Cookie)
    /// Nothing changed, for this reason.
    case rejected(CookieRejection)

    /// The cookie stored or replaced, if any.
    public var storedCookie: Cookie? {
        switch self {
        case .stored(let c), .replaced(let c): return c
        default: return nil
        }
    }
}
