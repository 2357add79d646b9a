// CookieLimits: every bound the cookie store keeps, each with its precedent (design §5's rule:
// a limit is a named field with a documented default). docs/cookies.md lists them.

/// The limits of a cookie store.
public struct CookieLimits: Sendable, Hashable {
    /// Set-Cookie fields processed per response; later ones are ignored. Default 50: curl's
    /// `MAX_SET_COOKIE_AMOUNT` (lib/cookie.h).
    public var maximumSetCookieFieldsPerResponse: Int
    /// Cookies sent in one request. Default 150: curl's `MAX_COOKIE_SEND_AMOUNT`.
    public var maximumCookiesPerRequest: Int
    /// The Cookie field line (`Cookie: ` and the value) stays shorter than this many bytes; the
    /// cookies that would make it longer are not sent. Default 8190: curl's `MAX_COOKIE_HEADER_LEN`.
    public var maximumCookieFieldLength: Int
    /// Name and value together, in bytes. Default 4096: layered-cookies "Parse a Cookie", curl's
    /// `MAX_NAME`.
    public var maximumNameValueLength: Int
    /// One attribute value, in bytes; a longer attribute is ignored. Default 1024: layered-cookies.
    public var maximumAttributeValueLength: Int
    /// Cookies kept per domain (the cookie's host or Domain); the least recently used go first,
    /// those without Secure before those with it. Default 180: Chromium's and Firefox's per-domain
    /// limit (layered-cookies asks for at least 50).
    public var maximumCookiesPerDomain: Int
    /// Cookies kept in all; the least recently used go first. Default 3000: layered-cookies'
    /// "total cookies limit" (Chromium keeps 3300).
    public var maximumCookies: Int
    /// The longest lifetime, in seconds: a later Expires or a larger Max-Age is cut to it.
    /// Default 400 days: layered-cookies' cookie age limit, curl's `COOKIES_MAXAGE`.
    public var maximumAge: Int64

    /// The defaults above.
    public init(maximumSetCookieFieldsPerResponse: Int = 50, maximumCookiesPerRequest: Int = 150,
                maximumCookieFieldLength: Int = 8190, maximumNameValueLength: Int = 4096,
                maximumAttributeValueLength: Int = 1024, maximumCookiesPerDomain: Int = 180, maximumCookies: Int = 3000,
                maximumAge: Int64 = 400 * 86_400) {
        self.maximumSetCookieFieldsPerResponse = maximumSetCookieFieldsPerResponse
        self.maximumCookiesPerRequest = maximumCookiesPerRequest
        self.maximumCookieFieldLength = maximumCookieFieldLength
        self.maximumNameValueLength = maximumNameValueLength
        self.maximumAttributeValueLength = maximumAttributeValueLength
        self.maximumCookiesPerDomain = maximumCookiesPerDomain
        self.maximumCookies = maximumCookies
        self.maximumAge = maximumAge
    }
}
