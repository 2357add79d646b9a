// CookieJar: the thread-safe shell around CourierCookies' pure `CookieStore` — a lock, a clock and
// the request's URL turned into a `CookieTarget`. Every rule lives in the store (see the top of
// CookieStore.swift); this file only reads the time once per call and holds the lock while the
// store runs, never across an await.
//
// A jar is a reference: sessions share cookies exactly when their configurations hold the same
// jar (`SessionConfiguration.cookieJar`). The session asks it for the Cookie field of every request
// it sends, redirects and retries included, and gives it the Set-Cookie fields of every response
// head it receives, redirects included (RequestPreparation, Transfer). Cookies are decided by the
// request's URL alone, so a proxy between Courier and the origin changes nothing.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierPosix
import CourierURL
import Synchronization

/// A cookie jar: stores the cookies of responses and gives each request its Cookie field,
/// following RFC 6265 as refined by draft-ietf-httpbis-layered-cookies for non-browser agents
/// (docs/cookies.md). Safe to use from any thread.
///
/// ```swift
/// var configuration = SessionConfiguration()
/// configuration.cookieJar = await CookieJar.withSystemPublicSuffixList()
/// let session = Session(configuration: configuration)
/// ```
public final class CookieJar: Sendable {
    /// Where the jar's time comes from: seconds since the Unix epoch. Tests inject a fixed or
    /// stepping clock so expiry is deterministic.
    public struct Clock: Sendable {
        private let read: @Sendable () -> Int64

        /// A clock that calls `now` for the time.
        /// - Parameter now: returns seconds since the Unix epoch.
        public init(_ now: @escaping @Sendable () -> Int64) { read = now }

        /// The system's wall clock (CLOCK_REALTIME).
        public static let system = Clock { WallClock.secondsSinceEpoch() }

        /// The current time.
        /// - Returns: seconds since the Unix epoch.
        public func now() -> Int64 { read() }
    }

    private let store: Mutex<CookieStore>
    /// The jar's clock.
    public let clock: Clock
    /// The limits the jar applies.
    public let limits: CookieLimits
    /// The public suffixes refused as Domain attributes; nil: the dot rule.
    public let publicSuffixList: PublicSuffixList?

    /// An empty jar.
    /// - Parameters:
    ///   - publicSuffixList: the public suffix list (see `PublicSuffixList.load(contentsOf:)`); nil
    ///     applies the dot rule: a Domain attribute without an inner dot is refused.
    ///   - limits: the limits (curl's by default).
    ///   - clock: the time source.
    public init(publicSuffixList: PublicSuffixList? = nil, limits: CookieLimits = CookieLimits(), clock: Clock = .system) {
        self.publicSuffixList = publicSuffixList
        self.limits = limits
        self.clock = clock
        store = Mutex(CookieStore(publicSuffixList: publicSuffixList, limits: limits))
    }

    /// A jar that holds the cookies of `store` (its list and limits included).
    /// - Parameters:
    ///   - store: the initial state.
    ///   - clock: the time source.
    public init(store: CookieStore, clock: Clock = .system) {
        publicSuffixList = store.publicSuffixList
        limits = store.limits
        self.clock = clock
        self.store = Mutex(store)
    }

    /// An empty jar that refuses the public suffixes of the system's list
    /// (`PublicSuffixList.systemPath`, Debian's `publicsuffix` package), read on the file thread;
    /// without that file, the dot rule.
    /// - Parameters:
    ///   - limits: the limits.
    ///   - clock: the time source.
    /// - Returns: the jar.
    public static func withSystemPublicSuffixList(limits: CookieLimits = CookieLimits(), clock: Clock = .system) async -> CookieJar {
        let list = try? await PublicSuffixList.load(contentsOf: PublicSuffixList.systemPath)
        return CookieJar(publicSuffixList: list, limits: limits, clock: clock)
    }

    // MARK: HTTP

    /// Stores the Set-Cookie fields of a response head (each field on its own, never joined; at
    /// most `limits.maximumSetCookieFieldsPerResponse`).
    /// - Parameters:
    ///   - headers: the response's header fields.
    ///   - uri: the URL of the request that got the response.
    /// - Returns: one result per Set-Cookie field; none for a URL that is not http or https.
    @discardableResult
    public func receive(_ headers: HTTPHeaders, for uri: URI) -> [CookieStoreResult] {
        let fields = headers["Set-Cookie"]
        guard !fields.isEmpty, let target = CookieTarget(uri: uri) else { return [] }
        let now = clock.now()
        return store.withLock { $0.receive(setCookieFields: fields, from: target, now: now) }
    }

    /// Stores one Set-Cookie field value.
    /// - Parameters:
    ///   - setCookie: the field value.
    ///   - uri: the URL of the request that got it.
    /// - Returns: what happened; `.rejected(.domainMismatch)` for a URL that is not http or https.
    @discardableResult
    public func receive(setCookie: String, for uri: URI) -> CookieStoreResult {
        guard let target = CookieTarget(uri: uri) else { return .rejected(.domainMismatch) }
        let now = clock.now()
        return store.withLock { $0.receive(setCookie: setCookie, from: target, now: now) }
    }

    /// The value of the Cookie field for a request to `uri` (cookies joined with "; ", in send
    /// order, within the count and length limits); the cookies sent become the most recently used.
    /// - Parameter uri: the request's URL.
    /// - Returns: the value, or nil when no cookie applies.
    public func cookieFieldValue(for uri: URI) -> String? {
        guard let target = CookieTarget(uri: uri) else { return nil }
        let now = clock.now()
        return store.withLock { $0.cookieFieldValue(for: target, now: now) }
    }

    /// The cookies a request to `uri` would carry, in send order (no count or length limit).
    /// - Parameter uri: the request's URL.
    /// - Returns: the cookies.
    public func cookies(for uri: URI) -> [Cookie] {
        guard let target = CookieTarget(uri: uri) else { return [] }
        let now = clock.now()
        return store.withLock { $0.cookies(for: target, now: now) }
    }

    // MARK: Management

    /// Puts a cookie into the jar as a trusted source would (see `CookieStore.insert`).
    /// - Parameter cookie: the cookie.
    /// - Returns: what happened.
    @discardableResult
    public func insert(_ cookie: Cookie) -> CookieStoreResult {
        let now = clock.now()
        return store.withLock { $0.insert(cookie, now: now) }
    }

    /// Every unexpired cookie, oldest first.
    public var allCookies: [Cookie] {
        let now = clock.now()
        return store.withLock { $0.allCookies(at: now) }
    }

    /// A copy of the jar's state.
    public var snapshot: CookieStore { store.withLock { $0 } }

    /// Removes the cookies without an expiry (the end of a session).
    public func removeSessionCookies() { store.withLock { $0.removeSessionCookies() } }

    /// Removes expired cookies now (they are never sent in any case).
    public func removeExpiredCookies() {
        let now = clock.now()
        store.withLock { $0.removeExpired(now: now) }
    }

    /// Removes the cookies of one name, domain and path.
    /// - Parameters:
    ///   - name: the name.
    ///   - domain: the domain or host (no leading dot).
    ///   - path: the path.
    /// - Returns: the removed cookies.
    @discardableResult
    public func remove(name: String, domain: String, path: String) -> [Cookie] {
        store.withLock { $0.remove(name: name, domain: domain, path: path) }
    }

    /// Removes every cookie.
    public func removeAll() { store.withLock { $0.removeAll() } }

    // MARK: Netscape cookie files (text)

    /// Loads the text of a Netscape cookie file (curl's `-b FILE`; `NetscapeCookieFile`).
    /// - Parameters:
    ///   - text: the file's text.
    ///   - discardingSessionCookies: skip cookies without an expiry (curl's `-j`).
    /// - Returns: the number of cookies stored.
    @discardableResult
    public func loadNetscapeFile(_ text: String, discardingSessionCookies: Bool = false) -> Int {
        let now = clock.now()
        return store.withLock { $0.loadNetscapeFile(text, discardingSessionCookies: discardingSessionCookies, now: now) }
    }

    /// The jar as the text of a Netscape cookie file (curl's `-c FILE`).
    /// - Returns: the header comment and one line per unexpired cookie, oldest first.
    public func netscapeFile() -> String {
        let now = clock.now()
        return store.withLock { $0.netscapeFile(at: now) }
    }
}
