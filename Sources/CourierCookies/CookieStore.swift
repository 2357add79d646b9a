// CookieStore: the cookie store of a non-browser user agent — RFC 6265 §5.3–5.4 as refined by
// draft-ietf-httpbis-layered-cookies ("Store a Cookie", "Retrieve Cookies", "Garbage Collect
// Cookies", "Requirements Specific to Non-Browser User Agents"), with curl's limits. Pure state:
// the caller passes the time (`now`, seconds since the Unix epoch) and the request's
// `CookieTarget`; nothing here reads a clock, a file or a socket. `CookieJar` (in Courier) is the
// thread-safe shell around it.
//
// Storing a Set-Cookie field (`receive`), after SetCookieParser:
//  S1. Expiry: Max-Age ≤ 0 means expired; a positive Max-Age counts from now; Max-Age wins over
//      Expires; both are cut to now + `maximumAge` (400 days). Neither: a session cookie.
//  S2. Domain: without the attribute the cookie is host-only for the request host. With it: a
//      public suffix (the list, or without one the dot rule) is accepted only when it is the
//      request host itself, and then host-only; an address only when it is the request host, and
//      then host-only; a name only when the request host is that name or ends with "." + name (an
//      IP address never domain-matches a name); else the field is rejected.
//  S3. Path: the Path attribute, else the default path of the request path (RFC 6265 §5.1.4).
//  S4. Secure is refused from a channel that is not secure (https, or a loopback host); from such
//      a channel no cookie may overlay a stored Secure cookie of the same name whose domain
//      domain-matches the new one's (either way) and whose path the new path path-matches.
//  S5. `SameSite=None` needs Secure. Prefixes, matched without case: `__Secure-` needs Secure;
//      `__Host-` needs Secure, host-only and a Path attribute of "/"; `__Http-` and
//      `__Host-Http-` need Secure and HttpOnly.
//  S6. Identity is (name, domain, host-only, path). An expired field deletes the stored cookie of
//      its identity (or is ignored); otherwise it replaces that cookie, keeping its creation time
//      and place in the send order, or is added.
//  S7. Then garbage collection: expired cookies go; a domain over `maximumCookiesPerDomain` loses
//      its least recently used cookies, those without Secure first; a store over `maximumCookies`
//      loses its least recently used.
//
// Retrieving for a request (`cookies(for:)`, `cookieFieldValue(for:)`):
//  R1. Expired cookies are removed first.
//  R2. A host-only cookie matches its host exactly; a domain cookie matches its domain and the
//      names below it. The path must path-match; a Secure cookie needs a secure channel. HttpOnly
//      cookies are sent (this is HTTP); SameSite is not consulted.
//  R3. Order: longer paths first, then earlier creation. `cookieFieldValue` joins them with "; "
//      into one field, at most `maximumCookiesPerRequest` cookies and a field line shorter than
//      `maximumCookieFieldLength` bytes (it stops at the first cookie that would not fit, as curl).
//  R4. The cookies returned become the most recently used.
//
// Invariants: at most one cookie per identity; no stored cookie is expired after any mutating
// call; `count` equals the number of stored cookies; every domain is lower case without a
// leading dot; send order is a total order (creation sequence numbers are unique).

import CourierBytes

/// The state of a cookie store (rules at the top of this file). A value: copy it freely; share it
/// between threads through `CookieJar`.
public struct CookieStore: Sendable {
    /// The limits applied.
    public let limits: CookieLimits
    /// The public suffixes refused as Domain attributes; nil applies the dot rule (a domain
    /// without an inner dot is a public suffix).
    public let publicSuffixList: PublicSuffixList?

    private struct Entry: Sendable {
        var cookie: Cookie
        /// Creation order: the send-order tie-break, unique per stored cookie.
        var sequence: UInt64
        /// Use order: eviction takes the smallest first.
        var useOrder: UInt64
    }

    /// Cookies by their domain.
    private var buckets: [String: [Entry]] = [:]
    private var nextOrder: UInt64 = 0
    /// The earliest expiry of any stored cookie: no scan for expired cookies before it.
    private var earliestExpiry: Int64 = .max

    /// The number of stored cookies.
    public private(set) var count = 0

    /// An empty store.
    /// - Parameters:
    ///   - publicSuffixList: the public suffixes; nil for the dot rule.
    ///   - limits: the limits.
    public init(publicSuffixList: PublicSuffixList? = nil, limits: CookieLimits = CookieLimits()) {
        self.publicSuffixList = publicSuffixList
        self.limits = limits
    }

    // MARK: Storing

    /// Stores the Set-Cookie fields of one response, in order; beyond
    /// `maximumSetCookieFieldsPerResponse` they are rejected as `.tooManyInResponse`.
    /// - Parameters:
    ///   - fields: the Set-Cookie field values, one per field, as received.
    ///   - target: the request that got the response.
    ///   - now: the current time, seconds since the Unix epoch.
    /// - Returns: one result per field.
    public mutating func receive(setCookieFields fields: [String], from target: CookieTarget, now: Int64) -> [CookieStoreResult] {
        fields.enumerated().map { index, field in
            index < limits.maximumSetCookieFieldsPerResponse ? receive(setCookie: field, from: target, now: now) : .rejected(.tooManyInResponse)
        }
    }

    /// Stores one Set-Cookie field (rules S1–S7).
    /// - Parameters:
    ///   - field: the field value.
    ///   - target: the request that got the response.
    ///   - now: the current time, seconds since the Unix epoch.
    /// - Returns: what happened.
    public mutating func receive(setCookie field: String, from target: CookieTarget, now: Int64) -> CookieStoreResult {
        removeExpired(now: now)
        let parsed: ParsedSetCookie
        switch SetCookieParser.parse(field, limits: limits) {
        case .success(let value): parsed = value
        case .failure(let reason): return .rejected(reason)
        }
        var cookie = Cookie(name: parsed.name, value: parsed.value, domain: target.host, isHostOnly: true,
                            path: parsed.path ?? CookieStore.defaultPath(of: target.path), isSecure: parsed.isSecure,
                            isHTTPOnly: parsed.isHTTPOnly, sameSite: parsed.sameSite, expires: expiry(of: parsed, now: now))
        // S2.
        switch parsed.domain {
        case nil:
            break
        case .address(let address)?:
            guard target.isIPAddress && address == target.host else { return .rejected(.domainMismatch) }
        case .name(let name)?:
            if isPublicSuffix(name) {
                guard name == target.host else { return .rejected(.publicSuffix) }
            } else {
                guard !target.isIPAddress, CookieStore.domainMatches(target.host, name) else { return .rejected(.domainMismatch) }
                cookie.domain = name
                cookie.isHostOnly = false
            }
        }
        // S4.
        if !target.isSecure {
            if cookie.isSecure { return .rejected(.secureFromInsecureChannel) }
            if overlaysSecureCookie(cookie) { return .rejected(.overlaysSecureCookie) }
        }
        // S5.
        if let reason = prefixRejection(cookie, hasPathAttribute: parsed.path != nil) { return .rejected(reason) }
        return store(cookie, now: now)
    }

    /// Puts a cookie into the store from a trusted source (a cookie file, the caller's code): the
    /// checks that do not depend on a request still apply — a non-empty name without control
    /// characters, the size limit, a valid domain and a path starting with "/", the prefixes and
    /// SameSite rules, no domain cookie on a public suffix, and the 400-day cap.
    /// - Parameters:
    ///   - cookie: the cookie; its creation and use times are set to `now`.
    ///   - now: the current time, seconds since the Unix epoch.
    /// - Returns: what happened.
    public mutating func insert(_ cookie: Cookie, now: Int64) -> CookieStoreResult {
        removeExpired(now: now)
        var cookie = cookie
        cookie.domain = ASCIICase.lowercased(cookie.domain)
        if cookie.domain.hasPrefix(".") { cookie.domain.removeFirst() }
        guard !cookie.name.isEmpty else { return .rejected(.emptyName) }
        let controls = { (text: String) in text.utf8.contains { $0 < 0x20 || $0 == 0x7F } }
        guard !controls(cookie.name), !controls(cookie.value), !controls(cookie.path) else { return .rejected(.controlCharacter) }
        guard cookie.name.utf8.count + cookie.value.utf8.count <= limits.maximumNameValueLength else { return .rejected(.tooLarge) }
        let domainBytes = Array(cookie.domain.utf8)
        switch domainBytes.withUnsafeBufferPointer({ SetCookieParser.domainAttribute($0) }) {
        case nil:
            return .rejected(.invalidDomain)
        case .address(let address)?:
            cookie.domain = address
            cookie.isHostOnly = true
        case .name(let name)?:
            cookie.domain = name
        }
        guard cookie.path.hasPrefix("/") else { return .rejected(.invalidPath) }
        if !cookie.isHostOnly && isPublicSuffix(cookie.domain) { return .rejected(.publicSuffix) }
        if let expires = cookie.expires { cookie.expires = min(expires, CookieStore.adding(limits.maximumAge, to: now)) }
        if let reason = prefixRejection(cookie, hasPathAttribute: true) { return .rejected(reason) }
        return store(cookie, now: now)
    }

    /// S1: the expiry of a parsed field.
    private func expiry(of parsed: ParsedSetCookie, now: Int64) -> Int64? {
        if let maxAge = parsed.maxAge {
            return maxAge <= 0 ? Int64.min : CookieStore.adding(min(maxAge, limits.maximumAge), to: now)
        }
        if let expires = parsed.expires { return min(expires, CookieStore.adding(limits.maximumAge, to: now)) }
        return nil
    }

    /// S4's overlay test.
    private func overlaysSecureCookie(_ cookie: Cookie) -> Bool {
        // Only the buckets of domains that domain-match either way: the new domain's parents
        // (and itself) and the names below it. Bucket keys are scanned, not cookies.
        for (domain, entries) in buckets
        where CookieStore.domainMatches(domain, cookie.domain) || CookieStore.domainMatches(cookie.domain, domain) {
            for entry in entries where entry.cookie.isSecure && entry.cookie.name == cookie.name {
                if CookieStore.pathMatches(cookie.path, entry.cookie.path) { return true }
            }
        }
        return false
    }

    /// S5.
    private func prefixRejection(_ cookie: Cookie, hasPathAttribute: Bool) -> CookieRejection? {
        if cookie.sameSite == .none && !cookie.isSecure { return .sameSiteNoneWithoutSecure }
        let name = cookie.name.utf8
        if ASCIICase.hasPrefix(name, "__secure-".utf8) && !cookie.isSecure { return .securePrefix }
        if ASCIICase.hasPrefix(name, "__host-".utf8)
            && !(cookie.isSecure && cookie.isHostOnly && hasPathAttribute && cookie.path == "/") { return .hostPrefix }
        if (ASCIICase.hasPrefix(name, "__http-".utf8) || ASCIICase.hasPrefix(name, "__host-http-".utf8))
            && !(cookie.isSecure && cookie.isHTTPOnly) { return .httpPrefix }
        return nil
    }

    /// S6 and S7.
    private mutating func store(_ cookie: Cookie, now: Int64) -> CookieStoreResult {
        var cookie = cookie
        let key = cookie.key
        let existing = buckets[cookie.domain]?.firstIndex { $0.cookie.key == key }
        if cookie.isExpired(at: now) {
            guard let existing else { return .rejected(.expired) }
            let old = buckets[cookie.domain]!.remove(at: existing).cookie
            if buckets[cookie.domain]!.isEmpty { buckets[cookie.domain] = nil }
            count -= 1
            removeExpired(now: now)
            return .deleted(old)
        }
        nextOrder += 1
        cookie.lastAccessTime = now
        let result: CookieStoreResult
        if let existing {
            var entry = buckets[cookie.domain]![existing]
            cookie.creationTime = entry.cookie.creationTime
            entry.cookie = cookie
            entry.useOrder = nextOrder
            buckets[cookie.domain]![existing] = entry
            result = .replaced(cookie)
        } else {
            cookie.creationTime = now
            buckets[cookie.domain, default: []].append(Entry(cookie: cookie, sequence: nextOrder, useOrder: nextOrder))
            count += 1
            result = .stored(cookie)
        }
        if let expires = cookie.expires { earliestExpiry = min(earliestExpiry, expires) }
        collectGarbage(domain: cookie.domain, now: now)
        return result
    }

    /// S7.
    private mutating func collectGarbage(domain: String, now: Int64) {
        removeExpired(now: now)
        if var entries = buckets[domain], entries.count > limits.maximumCookiesPerDomain {
            // Least recently used first, cookies without Secure before those with it.
            entries.sort { ($0.cookie.isSecure ? 1 : 0, $0.useOrder) < ($1.cookie.isSecure ? 1 : 0, $1.useOrder) }
            let excess = entries.count - limits.maximumCookiesPerDomain
            entries.removeFirst(excess)
            count -= excess
            buckets[domain] = entries
        }
        if count > limits.maximumCookies {
            var all: [(domain: String, useOrder: UInt64)] = []
            for (domain, entries) in buckets { for entry in entries { all.append((domain, entry.useOrder)) } }
            all.sort { $0.useOrder < $1.useOrder }
            for victim in all.prefix(count - limits.maximumCookies) {
                buckets[victim.domain]!.removeAll { $0.useOrder == victim.useOrder }
                if buckets[victim.domain]!.isEmpty { buckets[victim.domain] = nil }
                count -= 1
            }
        }
    }

    // MARK: Retrieving

    /// The cookies for a request, in send order (rules R1–R4); no count or size limit.
    /// - Parameters:
    ///   - target: the request.
    ///   - now: the current time, seconds since the Unix epoch.
    /// - Returns: the matching cookies; they become the most recently used.
    public mutating func cookies(for target: CookieTarget, now: Int64) -> [Cookie] {
        retrieve(for: target, now: now, applyingLimits: false).cookies
    }

    /// The value of the one Cookie field for a request: its cookies joined with "; ", within the
    /// count and field-length limits (R3).
    /// - Parameters:
    ///   - target: the request.
    ///   - now: the current time, seconds since the Unix epoch.
    /// - Returns: the field value, or nil when no cookie applies.
    public mutating func cookieFieldValue(for target: CookieTarget, now: Int64) -> String? {
        let result = retrieve(for: target, now: now, applyingLimits: true)
        return result.cookies.isEmpty ? nil : result.field
    }

    private mutating func retrieve(for target: CookieTarget, now: Int64, applyingLimits: Bool) -> (cookies: [Cookie], field: String) {
        removeExpired(now: now)
        var matches: [(domain: String, index: Int, pathLength: Int, sequence: UInt64)] = []
        for domain in CookieStore.candidateDomains(of: target) {
            guard let entries = buckets[domain] else { continue }
            for (index, entry) in entries.enumerated() {
                let cookie = entry.cookie
                if cookie.isHostOnly && domain != target.host { continue }
                if cookie.isSecure && !target.isSecure { continue }
                guard CookieStore.pathMatches(target.path, cookie.path) else { continue }
                matches.append((domain, index, cookie.path.utf8.count, entry.sequence))
            }
        }
        matches.sort { a, b in a.pathLength != b.pathLength ? a.pathLength > b.pathLength : a.sequence < b.sequence }
        var cookies: [Cookie] = []
        var field = ""
        var lineLength = "Cookie: ".utf8.count
        for match in matches {
            var entry = buckets[match.domain]![match.index]
            if applyingLimits {
                if cookies.count >= limits.maximumCookiesPerRequest { break }
                let pair = entry.cookie.name.utf8.count + 1 + entry.cookie.value.utf8.count + (cookies.isEmpty ? 0 : 2)
                if lineLength + pair >= limits.maximumCookieFieldLength { break }
                lineLength += pair
                if !cookies.isEmpty { field += "; " }
                field += entry.cookie.name + "=" + entry.cookie.value
            }
            nextOrder += 1
            entry.useOrder = nextOrder
            entry.cookie.lastAccessTime = now
            buckets[match.domain]![match.index] = entry
            cookies.append(entry.cookie)
        }
        return (cookies, field)
    }

    // MARK: Management

    /// Every stored cookie that has not expired at `now`, in creation order (oldest first).
    /// - Parameter now: the current time; nil lists expired cookies too.
    /// - Returns: the cookies.
    public func allCookies(at now: Int64? = nil) -> [Cookie] {
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for (_, bucket) in buckets { entries += bucket }
        entries.sort { $0.sequence < $1.sequence }
        return entries.map(\.cookie).filter { now == nil || !$0.isExpired(at: now!) }
    }

    /// Removes every cookie whose expiry is not after `now`.
    /// - Parameter now: the current time, seconds since the Unix epoch.
    public mutating func removeExpired(now: Int64) {
        guard earliestExpiry <= now else { return }
        var earliest = Int64.max
        for (domain, entries) in buckets {
            let kept = entries.filter { !$0.cookie.isExpired(at: now) }
            if kept.count != entries.count {
                count -= entries.count - kept.count
                buckets[domain] = kept.isEmpty ? nil : kept
            }
            for entry in kept { if let e = entry.cookie.expires { earliest = min(earliest, e) } }
        }
        earliestExpiry = earliest
    }

    /// Removes the session cookies (no expiry): the end of a session (layered-cookies §5.5.3).
    public mutating func removeSessionCookies() {
        for (domain, entries) in buckets {
            let kept = entries.filter { !$0.cookie.isSessionCookie }
            count -= entries.count - kept.count
            buckets[domain] = kept.isEmpty ? nil : kept
        }
    }

    /// Removes the cookie of one identity.
    /// - Parameters:
    ///   - name: its name.
    ///   - domain: its domain (no leading dot).
    ///   - path: its path.
    /// - Returns: the removed cookies (a host-only and a domain cookie may share the other parts).
    @discardableResult
    public mutating func remove(name: String, domain: String, path: String) -> [Cookie] {
        let domain = ASCIICase.lowercased(domain)
        guard let entries = buckets[domain] else { return [] }
        let removed = entries.filter { $0.cookie.name == name && $0.cookie.path == path }.map(\.cookie)
        let kept = entries.filter { !($0.cookie.name == name && $0.cookie.path == path) }
        count -= removed.count
        buckets[domain] = kept.isEmpty ? nil : kept
        return removed
    }

    /// Removes every cookie.
    public mutating func removeAll() {
        buckets.removeAll()
        count = 0
        earliestExpiry = .max
    }

    // MARK: Rules

    /// Whether a domain counts as a public suffix: by the list, else by the dot rule.
    public func isPublicSuffix(_ domain: String) -> Bool {
        if let publicSuffixList { return publicSuffixList.isPublicSuffix(domain) }
        return DotRule.isPublicSuffix(domain)
    }

    /// Domain-match (RFC 6265 §5.1.3): `host` equals `domain`, or ends with "." + `domain`.
    /// Callers make sure `host` is a name when the suffix case matters (an address only equals).
    /// - Parameters:
    ///   - host: a lower-case host.
    ///   - domain: a lower-case domain.
    /// - Returns: true when the host is the domain or a name below it.
    public static func domainMatches(_ host: String, _ domain: String) -> Bool {
        let h = host.utf8, d = domain.utf8
        if h.count == d.count { return host == domain }
        guard h.count > d.count, host.hasSuffix(domain) else { return false }
        return h[h.index(h.endIndex, offsetBy: -d.count - 1)] == UInt8(ascii: ".")
    }

    /// Path-match (RFC 6265 §5.1.4).
    /// - Parameters:
    ///   - requestPath: the request's path.
    ///   - cookiePath: the cookie's path.
    /// - Returns: true when the paths are equal, or the cookie path is a prefix of the request path
    ///   that ends with "/" or is followed by "/" in it.
    public static func pathMatches(_ requestPath: String, _ cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        let r = requestPath.utf8, c = cookiePath.utf8
        guard r.count > c.count, r.starts(with: c) else { return false }
        return c.last == UInt8(ascii: "/") || r[r.index(r.startIndex, offsetBy: c.count)] == UInt8(ascii: "/")
    }

    /// The default path (RFC 6265 §5.1.4): the request path up to, not including, its last "/";
    /// "/" when that leaves nothing or the path does not start with "/".
    /// - Parameter requestPath: the request's path.
    /// - Returns: the default cookie path.
    public static func defaultPath(of requestPath: String) -> String {
        guard requestPath.utf8.first == UInt8(ascii: "/"), let last = requestPath.utf8.lastIndex(of: UInt8(ascii: "/")),
              last != requestPath.utf8.startIndex else { return "/" }
        return String(requestPath[..<last])
    }

    /// The domains whose cookies may apply to a target: the host, and for a name each parent
    /// domain ("a.b.c" → "a.b.c", "b.c", "c").
    static func candidateDomains(of target: CookieTarget) -> [String] {
        guard !target.isIPAddress else { return [target.host] }
        var result = [target.host]
        var rest = Substring(target.host)
        while let dot = rest.firstIndex(of: ".") {
            rest = rest[rest.index(after: dot)...]
            if !rest.isEmpty { result.append(String(rest)) }
        }
        return result
    }

    /// `now + seconds`, saturating.
    static func adding(_ seconds: Int64, to now: Int64) -> Int64 {
        let (sum, overflow) = now.addingReportingOverflow(seconds)
        return overflow ? .max : sum
    }
}
