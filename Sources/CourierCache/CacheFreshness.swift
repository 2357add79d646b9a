// CacheFreshness: how long a stored response is fresh and how old it is (RFC 9111 §4.2), for a
// private cache. Time is passed in (seconds since the epoch), never read here.
//
// Freshness lifetime (§4.2.1), first that applies:
//   1. max-age (the first occurrence; an invalid one makes the response stale: lifetime 0);
//      s-maxage is ignored (a private cache);
//   2. Expires − Date (Date absent or unreadable: the response time); an unreadable Expires, or
//      several Expires lines, is a time in the past (§5.3);
//   3. heuristic (§4.2.2): 10 % of (Date − Last-Modified), capped at 24 h, only for a status that
//      is heuristically cacheable (or `public`) and never for a URL with a query (RFC 7234 §4.2.2's
//      old rule, kept because query URLs are where stale answers hurt);
//   4. otherwise 0.
// Age (§4.2.3):
//   apparent_age          = max(0, response_time − date_value)
//   response_delay        = response_time − request_time
//   corrected_age_value   = age_value + response_delay
//   corrected_initial_age = max(apparent_age, corrected_age_value)
//   current_age           = corrected_initial_age + (now − response_time)
// where age_value is the first Age value when it is delta-seconds (else 0).

import CourierHTTP1

/// Freshness and age of stored responses.
public enum CacheFreshness {
    /// The heuristic fraction's cap: 24 hours.
    public static let heuristicCap: Int64 = 86_400

    /// Statuses that may be cached without explicit freshness (RFC 9110 §15.1).
    public static let heuristicallyCacheable: Set<Int> = [200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501]

    /// The Date field's value, when it is a readable HTTP-date.
    /// - Parameter headers: the response fields.
    /// - Parameter now: for two-digit years.
    /// - Returns: seconds since the epoch.
    public static func date(_ headers: HTTPHeaders, now: Int64) -> Int64? {
        headers.first(name: "Date").flatMap { HTTPDate.parse($0, now: now) }
    }

    /// Whether the response carries explicit freshness (max-age or Expires; s-maxage does not
    /// count in a private cache).
    /// - Parameter headers: the response fields.
    /// - Returns: true with max-age or Expires.
    public static func hasExplicitFreshness(_ headers: HTTPHeaders) -> Bool {
        let cc = CacheControl(fieldValues: headers["Cache-Control"])
        return cc.maxAge != nil || headers.contains(name: "Expires")
    }

    /// The freshness lifetime in seconds.
    /// - Parameters:
    ///   - head: the stored head.
    ///   - urlHasQuery: whether the request URL had a query (no heuristic then).
    /// - Returns: seconds (0 when stale from the start).
    public static func lifetime(of head: CachedResponseHead, urlHasQuery: Bool) -> Int64 {
        let cc = head.cacheControl
        switch cc.maxAge {
        case .value(let seconds)?: return seconds
        case .invalid?: return 0
        case nil: break
        }
        let dateValue = date(head.headers, now: head.responseTime) ?? head.responseTime
        let expires = head.headers["Expires"]
        if !expires.isEmpty {
            guard expires.count == 1, let when = HTTPDate.parse(expires[0], now: head.responseTime) else { return 0 }
            return max(0, when - dateValue)
        }
        guard !urlHasQuery, heuristicallyCacheable.contains(head.status) || cc.contains("public"),
              let modifiedText = head.lastModified, let modified = HTTPDate.parse(modifiedText, now: head.responseTime),
              dateValue > modified else { return 0 }
        return min(heuristicCap, (dateValue - modified) / 10)
    }

    /// The first Age value when it is delta-seconds (RFC 9111 §5.1: a list is not allowed; the
    /// first member of the first line is taken), else nil.
    /// - Parameter headers: the response fields.
    /// - Returns: seconds.
    public static func ageValue(_ headers: HTTPHeaders) -> Int64? {
        guard let first = headers.first(name: "Age") else { return nil }
        let member = first.split(separator: ",", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        let trimmed = String(member.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            .map { Character(UnicodeScalar($0)) })
        return DeltaSeconds.parse(trimmed)
    }

    /// The current age in seconds (RFC 9111 §4.2.3).
    /// - Parameters:
    ///   - head: the stored head.
    ///   - now: seconds since the epoch.
    /// - Returns: seconds, at most `DeltaSeconds.maximum`.
    public static func currentAge(of head: CachedResponseHead, now: Int64) -> Int64 {
        let dateValue = date(head.headers, now: head.responseTime) ?? head.responseTime
        let apparentAge = max(0, head.responseTime - dateValue)
        let responseDelay = max(0, head.responseTime - head.requestTime)
        let correctedAgeValue = (ageValue(head.headers) ?? 0) + responseDelay
        let correctedInitialAge = max(apparentAge, correctedAgeValue)
        let residentTime = max(0, now - head.responseTime)
        return min(DeltaSeconds.maximum, correctedInitialAge + residentTime)
    }
}
