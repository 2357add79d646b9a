// CacheRules: the decisions of a private HTTP cache (RFC 9111), as pure functions of the request,
// the stored heads and the time. The I/O shell (Courier's HTTPCache) asks, then does what the
// answer says; nothing here stores, sends or reads a clock.
//
// Rules, numbered as docs/cache.md cites them:
//  1. Only GET responses are stored; HEAD is served from a stored GET when fresh (§4) and never
//     stored itself. A method other than GET, HEAD, OPTIONS, TRACE with a 2xx or 3xx invalidates the
//     URI and a same-origin Location / Content-Location (§4.4).
//  2. Storable (§3): final status, not 206 (no partial storage), not 304; no `no-store` in the
//     request or the response; `Vary: *` is not stored (it never matches); and explicit freshness,
//     a heuristically cacheable status, `public`, or a validator (ETag, Last-Modified).
//     `private` is fine (this is a private cache); `s-maxage` is ignored.
//  3. Matching (§4.1): same key (URI and the credential digest — the shell's business), then every
//     field Vary named has the same value in the new request, compared after trimming and joining
//     lines with ", " (`*` never matches). The most recently received match wins.
//  4. Serving (§4.2, §5.2): fresh and no `no-cache` (request or response) → serve; a request's
//     `max-age` / `min-fresh` tighten freshness; `max-stale` loosens it unless the response has
//     `must-revalidate` or `no-cache`; otherwise validate when the stored response has a validator,
//     else fetch anew. `only-if-cached` (and `returnCacheDataDontLoad`) never contacts the origin.
//  5. Validation (§4.3.1): If-None-Match with the stored ETag, If-Modified-Since with the stored
//     Last-Modified; a caller's own conditional request is passed through and not answered from
//     the cache.
//  6. A 304 (§4.3.3, §4.3.4) selects the stored response when its ETag (or, without one, its
//     Last-Modified) matches; the stored head takes the 304's fields except Content-Length,
//     hop-by-hop fields and Content-Encoding; no Warning is ever added.

import CourierHTTP1

/// AFNetworking's (NSURLRequest's) cache policies, per request.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: serve fresh responses, validate stale ones, store what may be stored.
    case useProtocolCachePolicy
    /// Never serve from the cache (the response is still stored when storable).
    case reloadIgnoringCacheData
    /// Serve a stored response whatever its age; fetch only when there is none.
    case returnCacheDataElseLoad
    /// Serve a stored response whatever its age; never fetch (a miss is a 504-class error).
    case returnCacheDataDontLoad
}

/// What the cache should do for a request.
public enum CacheDecision: Sendable, Hashable {
    /// Serve stored variant `index`; `age` is its current age (the `Age` field to send).
    case serve(index: Int, age: Int64)
    /// Send the request with these conditional fields; a 304 answers from variant `index`.
    case validate(index: Int, conditions: [VaryField])
    /// Send the request; nothing stored is usable.
    case fetch
    /// Nothing usable and the request may not go to the origin (only-if-cached): 504.
    case unsatisfiable
}

/// The pure rules of the private cache.
public enum CacheRules {
    /// Fields never stored nor taken from a 304 (RFC 9111 §3.1: hop-by-hop and proxy fields).
    public static let unstoredFields: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "transfer-encoding", "upgrade",
        "proxy-authenticate", "proxy-authentication-info", "proxy-authorization",
    ]

    /// Methods that never invalidate (RFC 9110 §9.2.1's safe methods).
    public static let safeMethods: Set<String> = ["GET", "HEAD", "OPTIONS", "TRACE"]

    private static func lower(_ s: String) -> String {
        String(decoding: s.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    private static func trim(_ s: Substring) -> String {
        var u = Array(s.utf8)
        while let f = u.first, f == 0x20 || f == 0x09 { u.removeFirst() }
        while let l = u.last, l == 0x20 || l == 0x09 { u.removeLast() }
        return String(decoding: u, as: UTF8.self)
    }

    /// The field names listed by Vary (lower case, in order; `*` kept as "*").
    /// - Parameter headers: the response fields.
    /// - Returns: the names.
    public static func varyNames(_ headers: HTTPHeaders) -> [String] {
        var names: [String] = []
        for line in headers["Vary"] {
            for member in line.split(separator: ",", omittingEmptySubsequences: true) {
                let name = lower(trim(member))
                if !name.isEmpty, !names.contains(name) { names.append(name) }
            }
        }
        return names
    }

    /// A request's value of one field for Vary matching: every line, each trimmed, joined with
    /// ", "; nil when absent.
    /// - Parameters:
    ///   - name: the field name.
    ///   - headers: the request fields as sent.
    /// - Returns: the normalized value.
    public static func normalizedValue(_ name: String, in headers: HTTPHeaders) -> String? {
        let lines = headers[name]
        guard !lines.isEmpty else { return nil }
        return lines.map { line in
            line.split(separator: ",", omittingEmptySubsequences: false).map { trim($0) }.joined(separator: ", ")
        }.joined(separator: ", ")
    }

    /// The Vary record to store with a response for `request`.
    /// - Parameters:
    ///   - response: the response fields.
    ///   - request: the request fields as sent.
    /// - Returns: one record per Vary name.
    public static func varyRecord(response: HTTPHeaders, request: HTTPHeaders) -> [VaryField] {
        varyNames(response).map { VaryField(name: $0, value: normalizedValue($0, in: request)) }
    }

    /// Whether a stored head's Vary record matches a new request (rule 3).
    /// - Parameters:
    ///   - head: the stored head.
    ///   - request: the new request's fields as they will be sent.
    /// - Returns: true when every varying field has the same value.
    public static func matches(_ head: CachedResponseHead, request: HTTPHeaders) -> Bool {
        for field in head.vary {
            if field.name == "*" { return false }
            if normalizedValue(field.name, in: request) != field.value { return false }
        }
        return !varyNames(head.headers).contains("*")
    }

    /// The variant to use: the most recently received one that matches (rule 3).
    /// - Parameters:
    ///   - variants: the stored heads under the request's key.
    ///   - request: the request's fields as sent.
    /// - Returns: an index into `variants`.
    public static func select(_ variants: [CachedResponseHead], request: HTTPHeaders) -> Int? {
        var best: Int?
        for (i, head) in variants.enumerated() where matches(head, request: request) {
            if let b = best, variants[b].responseTime > head.responseTime { continue }
            best = i
        }
        return best
    }

    /// Whether a response may be stored (rule 2).
    /// - Parameters:
    ///   - method: the request method.
    ///   - requestHeaders: the request fields.
    ///   - status: the final status.
    ///   - responseHeaders: the response fields.
    /// - Returns: true when storable.
    public static func isStorable(method: String, requestHeaders: HTTPHeaders, status: Int, responseHeaders: HTTPHeaders) -> Bool {
        guard method == "GET", status >= 200, status != 206, status != 304, status < 600 else { return false }
        let requestCC = CacheControl(fieldValues: requestHeaders["Cache-Control"])
        let responseCC = CacheControl(fieldValues: responseHeaders["Cache-Control"])
        guard !requestCC.noStore, !responseCC.noStore, !varyNames(responseHeaders).contains("*") else { return false }
        return CacheFreshness.hasExplicitFreshness(responseHeaders) || CacheFreshness.heuristicallyCacheable.contains(status)
            || responseCC.contains("public") || responseHeaders.contains(name: "ETag") || responseHeaders.contains(name: "Last-Modified")
    }

    /// The fields to store: the response's, without hop-by-hop fields and those Connection names.
    /// - Parameter headers: the response fields.
    /// - Returns: the fields to keep.
    public static func storedFields(_ headers: HTTPHeaders) -> HTTPHeaders {
        let excluded = connectionNamed(headers)
        return HTTPHeaders(headers.fields.filter { !excluded.contains(lower($0.name)) }.map { ($0.name, $0.value) })
    }

    private static func connectionNamed(_ headers: HTTPHeaders) -> Set<String> {
        var names = unstoredFields
        for line in headers["Connection"] {
            for member in line.split(separator: ",") { names.insert(lower(trim(member))) }
        }
        return names
    }

    /// Whether the request carries its own validators (then the cache passes it through, rule 5).
    /// - Parameter headers: the request fields.
    /// - Returns: true with If-None-Match, If-Modified-Since, If-Match, If-Unmodified-Since or If-Range.
    public static func isCallerConditional(_ headers: HTTPHeaders) -> Bool {
        ["If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range"].contains { headers.contains(name: $0) }
    }

    /// What to do for a request (rules 4 and 5).
    /// - Parameters:
    ///   - method: the request method.
    ///   - requestHeaders: the request fields as they will be sent.
    ///   - variants: the stored heads under the request's key.
    ///   - urlHasQuery: whether the URL has a query.
    ///   - policy: the request's cache policy.
    ///   - now: seconds since the epoch.
    /// - Returns: the decision.
    public static func decide(method: String, requestHeaders: HTTPHeaders, variants: [CachedResponseHead], urlHasQuery: Bool,
                              policy: CachePolicy, now: Int64) -> CacheDecision {
        let requestCC = CacheControl(fieldValues: requestHeaders["Cache-Control"])
        let pragmaNoCache = !requestHeaders.contains(name: "Cache-Control")
            && requestHeaders["Pragma"].contains { lower($0).contains("no-cache") }
        let offline = policy == .returnCacheDataDontLoad || requestCC.onlyIfCached
        guard method == "GET" || method == "HEAD", policy != .reloadIgnoringCacheData, !isCallerConditional(requestHeaders) else {
            return offline ? .unsatisfiable : .fetch
        }
        guard let index = select(variants, request: requestHeaders) else { return offline ? .unsatisfiable : .fetch }
        let head = variants[index]
        let age = CacheFreshness.currentAge(of: head, now: now)
        if policy == .returnCacheDataElseLoad || policy == .returnCacheDataDontLoad {
            return .serve(index: index, age: age)
        }
        let responseCC = head.cacheControl
        var usable = !requestCC.noCache && !pragmaNoCache && !responseCC.noCache
        if usable {
            let lifetime = CacheFreshness.lifetime(of: head, urlHasQuery: urlHasQuery)
            var fresh = age < lifetime
            if case .value(let limit)? = requestCC.maxAge, age > limit { fresh = false }
            if case .value(let margin)? = requestCC.minFresh, lifetime - age < margin { fresh = false }
            if !fresh, let maxStale = requestCC.maxStale, !responseCC.mustRevalidate {
                switch maxStale {
                case nil: fresh = true
                case .value(let extra)?: fresh = age - lifetime <= extra
                case .invalid?: break
                }
                if case .value(let limit)? = requestCC.maxAge, age > limit { fresh = false }
            }
            usable = fresh
        }
        if usable { return .serve(index: index, age: age) }
        if offline { return .unsatisfiable }
        let conditions = conditionalFields(for: head)
        return conditions.isEmpty ? .fetch : .validate(index: index, conditions: conditions)
    }

    /// The conditional fields that validate a stored response (rule 5).
    /// - Parameter head: the stored head.
    /// - Returns: If-None-Match and/or If-Modified-Since.
    public static func conditionalFields(for head: CachedResponseHead) -> [VaryField] {
        var fields: [VaryField] = []
        if let tag = head.entityTag { fields.append(VaryField(name: "If-None-Match", value: tag)) }
        if let modified = head.lastModified, HTTPDate.parse(modified, now: head.responseTime) != nil {
            fields.append(VaryField(name: "If-Modified-Since", value: modified))
        }
        return fields
    }

    /// Whether a 304 is about this stored response (rule 6, RFC 9111 §4.3.4).
    /// - Parameters:
    ///   - head: the stored head that was validated.
    ///   - notModified: the 304's fields.
    /// - Returns: true when the 304 may update it.
    public static func notModifiedSelects(_ head: CachedResponseHead, _ notModified: HTTPHeaders) -> Bool {
        if let tag = notModified.first(name: "ETag") {
            guard let stored = head.entityTag else { return false }
            // Weak comparison (RFC 9110 §8.8.3.2): the opaque tags are equal.
            func opaque(_ t: String) -> String { t.hasPrefix("W/") ? String(t.dropFirst(2)) : t }
            return opaque(trim(Substring(tag))) == opaque(trim(Substring(stored)))
        }
        if let modified = notModified.first(name: "Last-Modified"), let stored = head.lastModified {
            return modified == stored
        }
        return true
    }

    /// The stored head updated by a 304 (rule 6): every field of the 304 replaces the stored
    /// fields of that name, except Content-Length, Content-Encoding, hop-by-hop fields; the times
    /// become those of the validation exchange.
    /// - Parameters:
    ///   - head: the stored head.
    ///   - notModified: the 304's fields.
    ///   - requestTime: when the validation request went out.
    ///   - responseTime: when the 304 arrived.
    /// - Returns: the new head.
    public static func updated(_ head: CachedResponseHead, with notModified: HTTPHeaders, requestTime: Int64,
                               responseTime: Int64) -> CachedResponseHead {
        var excluded = connectionNamed(notModified)
        excluded.insert("content-length")
        excluded.insert("content-encoding")
        var fields = head.headers.fields.map { ($0.name, $0.value) }
        var replaced: Set<String> = []
        for field in notModified.fields {
            let name = lower(field.name)
            guard !excluded.contains(name) else { continue }
            if replaced.insert(name).inserted { fields.removeAll { lower($0.0) == name } }
            fields.append((field.name, field.value))
        }
        var result = head
        result.headers = HTTPHeaders(fields)
        result.requestTime = requestTime
        result.responseTime = responseTime
        return result
    }

    /// The fields a served response carries: the stored ones with `Age` set to the current age
    /// (RFC 9111 §5.1: a cached response has an Age field).
    /// - Parameters:
    ///   - head: the stored head.
    ///   - age: its current age.
    /// - Returns: the fields.
    public static func servedFields(_ head: CachedResponseHead, age: Int64) -> HTTPHeaders {
        var headers = head.headers
        headers.replaceOrAdd(name: "Age", value: String(age))
        return headers
    }

    /// Whether a response to `method` invalidates stored responses (rule 1).
    /// - Parameters:
    ///   - method: the request method.
    ///   - status: the final status.
    /// - Returns: true for an unsafe method with a 2xx or 3xx.
    public static func invalidates(method: String, status: Int) -> Bool {
        !safeMethods.contains(method) && (200..<400).contains(status)
    }
}
