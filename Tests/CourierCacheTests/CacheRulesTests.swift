// The pure rules of the private cache: Cache-Control parsing, HTTP dates, freshness and age
// (RFC 9111 §4.2), Vary matching, 304 updates, the LRU index and the entry format. The
// cache-tests suites (CacheTestsSuites.swift) exercise the same rules through a Session.

import CourierCache
import CourierHTTP1
import Testing

@Suite("cache rules")
struct CacheRulesTests {
    @Test("Cache-Control directives", arguments: [
        ("max-age=60", "max-age", "60"),
        ("MAX-AGE=60", "max-age", "60"),
        ("no-cache, max-age=\"60\"", "max-age", "60"),
        ("ext=\"max-age=5, no-store\", max-age=7", "max-age", "7"),
        ("max-age=1, max-age=2", "max-age", "1"),
        ("  private ,max-age=3  ", "max-age", "3"),
    ])
    func directives(field: String, name: String, argument: String) {
        #expect(CacheControl(fieldValues: [field]).argument(name) == .some(argument))
    }

    @Test("malformed elements are ignored")
    func malformed() {
        for field in ["max-age =3", "max-age= 3", "max-age=\"3", "=3", "max-age=3 4"] {
            #expect(CacheControl(fieldValues: [field]).maxAge == nil, "\(field)")
        }
        #expect(CacheControl(fieldValues: ["max-age=3.5"]).maxAge == .invalid)
        #expect(CacheControl(fieldValues: ["max-age=99999999999999999999"]).maxAge == .value(DeltaSeconds.maximum))
        #expect(!CacheControl(fieldValues: ["x=\"no-store\""]).noStore)
    }

    @Test("HTTP-date forms")
    func dates() {
        let now: Int64 = 1_795_000_000  // 2026
        let expected = HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT", now: now)
        #expect(expected == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: now) == expected)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994", now: now) == expected)
        #expect(HTTPDate.parse("SUN, 06 NOV 1994 08:49:37 gmt", now: now) == expected)
        #expect(HTTPDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        for bad in ["Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 94 08:49:37 GMT", "Sun 06 Nov 1994 08:49:37 GMT",
                    "Sun, 06  Nov 1994 08:49:37 GMT", "Sun, 06-Nov-1994 08:49:37 GMT", "Sun, 06 Nov 1994 8:49:37 GMT",
                    "Sun, 31 Apr 2020 00:00:00 GMT", "0", ""] {
            #expect(HTTPDate.parse(bad, now: now) == nil, "\(bad)")
        }
        // rfc850's two-digit years: at most 50 years ahead.
        #expect(HTTPDate.parse("Thursday, 18-Aug-50 02:01:18 GMT", now: now).map(HTTPDate.format) == "Thu, 18 Aug 2050 02:01:18 GMT")
        #expect(HTTPDate.parse("Monday, 18-Aug-80 02:01:18 GMT", now: now).map(HTTPDate.format) == "Mon, 18 Aug 1980 02:01:18 GMT")
        for seconds: Int64 in [0, 86399, 951_782_400, 4_102_444_800] {
            #expect(HTTPDate.parse(HTTPDate.format(seconds), now: now) == seconds)
        }
    }

    private func head(_ fields: [(String, String)], status: Int = 200, requestTime: Int64 = 1000, responseTime: Int64 = 1000) -> CachedResponseHead {
        CachedResponseHead(status: status, reason: "OK", headers: HTTPHeaders(fields), requestTime: requestTime, responseTime: responseTime)
    }

    @Test("freshness lifetime: max-age, Expires − Date, the heuristic")
    func lifetime() {
        let date = HTTPDate.format(1000)
        #expect(CacheFreshness.lifetime(of: head([("Cache-Control", "max-age=60"), ("Expires", HTTPDate.format(9000))]), urlHasQuery: false) == 60)
        #expect(CacheFreshness.lifetime(of: head([("Date", date), ("Expires", HTTPDate.format(1300))]), urlHasQuery: false) == 300)
        #expect(CacheFreshness.lifetime(of: head([("Date", date), ("Expires", "0")]), urlHasQuery: false) == 0)
        #expect(CacheFreshness.lifetime(of: head([("Date", date), ("Cache-Control", "s-maxage=60")]), urlHasQuery: false) == 0)
        let modified = [("Date", date), ("Last-Modified", HTTPDate.format(0))]
        #expect(CacheFreshness.lifetime(of: head(modified), urlHasQuery: false) == 100)
        #expect(CacheFreshness.lifetime(of: head(modified), urlHasQuery: true) == 0)
        #expect(CacheFreshness.lifetime(of: head(modified, status: 500), urlHasQuery: false) == 0)
        let old = [("Date", HTTPDate.format(10_000_000)), ("Last-Modified", HTTPDate.format(0))]
        #expect(CacheFreshness.lifetime(of: head(old), urlHasQuery: false) == CacheFreshness.heuristicCap)
    }

    @Test("age: RFC 9111 §4.2.3")
    func age() {
        // Sent at 1000, received at 1004, Date 998, Age 10: corrected initial age is 14.
        let h = head([("Date", HTTPDate.format(998)), ("Age", "10")], requestTime: 1000, responseTime: 1004)
        #expect(CacheFreshness.currentAge(of: h, now: 1004) == 14)
        #expect(CacheFreshness.currentAge(of: h, now: 1100) == 110)
        // A Date far in the past dominates (apparent age).
        let late = head([("Date", HTTPDate.format(900))], requestTime: 1000, responseTime: 1000)
        #expect(CacheFreshness.currentAge(of: late, now: 1000) == 100)
        for (value, parsed) in [("7200, 0", Int64(7200)), ("abc", nil), ("-1", nil), ("1.0", nil), ("2147483649", DeltaSeconds.maximum)] {
            #expect(CacheFreshness.ageValue(HTTPHeaders([("Age", value)])) == parsed, "\(value)")
        }
    }

    @Test("decisions: fresh, stale with validator, request directives, policies")
    func decisions() {
        let fresh = head([("Cache-Control", "max-age=100"), ("ETag", "\"a\"")])
        let d = { (request: [(String, String)], now: Int64, policy: CachePolicy) in
            CacheRules.decide(method: "GET", requestHeaders: HTTPHeaders(request), variants: [fresh], urlHasQuery: false, policy: policy, now: now)
        }
        #expect(d([], 1050, .useProtocolCachePolicy) == .serve(index: 0, age: 50))
        #expect(d([], 1200, .useProtocolCachePolicy) == .validate(index: 0, conditions: [VaryField(name: "If-None-Match", value: "\"a\"")]))
        #expect(d([("Cache-Control", "max-age=10")], 1050, .useProtocolCachePolicy) != .serve(index: 0, age: 50))
        #expect(d([("Cache-Control", "min-fresh=60")], 1050, .useProtocolCachePolicy) != .serve(index: 0, age: 50))
        #expect(d([("Cache-Control", "max-stale=200")], 1200, .useProtocolCachePolicy) == .serve(index: 0, age: 200))
        #expect(d([("Cache-Control", "max-stale")], 9000, .useProtocolCachePolicy) == .serve(index: 0, age: 8000))
        #expect(d([("Cache-Control", "no-cache")], 1050, .useProtocolCachePolicy) != .serve(index: 0, age: 50))
        #expect(d([("Cache-Control", "only-if-cached")], 1200, .useProtocolCachePolicy) == .unsatisfiable)
        #expect(d([], 9000, .returnCacheDataElseLoad) == .serve(index: 0, age: 8000))
        #expect(d([], 9000, .returnCacheDataDontLoad) == .serve(index: 0, age: 8000))
        #expect(d([], 1050, .reloadIgnoringCacheData) == .fetch)
        #expect(CacheRules.decide(method: "GET", requestHeaders: HTTPHeaders(), variants: [], urlHasQuery: false,
                                  policy: .returnCacheDataDontLoad, now: 0) == .unsatisfiable)
        let revalidate = head([("Cache-Control", "max-age=100, must-revalidate"), ("ETag", "\"a\"")])
        #expect(CacheRules.decide(method: "GET", requestHeaders: HTTPHeaders([("Cache-Control", "max-stale")]), variants: [revalidate],
                                  urlHasQuery: false, policy: .useProtocolCachePolicy, now: 1200) != .serve(index: 0, age: 200))
    }

    @Test("storability")
    func storability() {
        func storable(_ status: Int, _ fields: [(String, String)], request: [(String, String)] = [], method: String = "GET") -> Bool {
            CacheRules.isStorable(method: method, requestHeaders: HTTPHeaders(request), status: status, responseHeaders: HTTPHeaders(fields))
        }
        #expect(storable(200, []))
        #expect(!storable(500, []))
        #expect(storable(500, [("Cache-Control", "max-age=5")]))
        #expect(storable(500, [("ETag", "\"x\"")]))
        #expect(!storable(206, [("Cache-Control", "max-age=5")]))
        #expect(!storable(200, [("Cache-Control", "no-store")]))
        #expect(!storable(200, [], request: [("Cache-Control", "no-store")]))
        #expect(!storable(200, [("Vary", "*")]))
        #expect(storable(200, [("Cache-Control", "private, max-age=5")]))
        #expect(!storable(200, [("Cache-Control", "max-age=5")], method: "POST"))
        #expect(!storable(200, [("Cache-Control", "max-age=5")], method: "HEAD"))
    }

    @Test("Vary: request fields as sent, normalized; * never matches")
    func vary() {
        let response = HTTPHeaders([("Vary", "Accept-Encoding, x-foo"), ("Vary", "Cookie")])
        let sent = HTTPHeaders([("Accept-Encoding", "gzip,  deflate"), ("Cookie", "a=1")])
        var stored = head([("Vary", "Accept-Encoding, x-foo"), ("Vary", "Cookie")])
        stored.vary = CacheRules.varyRecord(response: response, request: sent)
        #expect(stored.vary == [VaryField(name: "accept-encoding", value: "gzip, deflate"), VaryField(name: "x-foo", value: nil),
                                VaryField(name: "cookie", value: "a=1")])
        #expect(CacheRules.matches(stored, request: HTTPHeaders([("accept-encoding", "gzip,deflate"), ("COOKIE", "a=1")])))
        #expect(!CacheRules.matches(stored, request: HTTPHeaders([("Accept-Encoding", "gzip, deflate"), ("Cookie", "a=2")])))
        #expect(!CacheRules.matches(stored, request: HTTPHeaders([("Accept-Encoding", "gzip, deflate"), ("Cookie", "a=1"), ("X-Foo", "1")])))
        let star = head([("Vary", "*")])
        #expect(!CacheRules.matches(star, request: HTTPHeaders()))
    }

    @Test("a 304 updates the head, never Content-Length or hop-by-hop fields")
    func update304() {
        let stored = head([("ETag", "\"a\""), ("Content-Length", "10"), ("X-A", "1"), ("Cache-Control", "max-age=1")])
        let notModified = HTTPHeaders([("ETag", "\"a\""), ("Content-Length", "0"), ("X-A", "2"), ("Connection", "close, X-Hop"),
                                       ("X-Hop", "h"), ("Keep-Alive", "timeout=5"), ("Cache-Control", "max-age=50")])
        #expect(CacheRules.notModifiedSelects(stored, notModified))
        #expect(!CacheRules.notModifiedSelects(stored, HTTPHeaders([("ETag", "\"b\"")])))
        #expect(CacheRules.notModifiedSelects(stored, HTTPHeaders([("ETag", "W/\"a\"")])))
        let updated = CacheRules.updated(stored, with: notModified, requestTime: 2000, responseTime: 2001)
        #expect(updated.headers["Content-Length"] == ["10"])
        #expect(updated.headers["X-A"] == ["2"])
        #expect(updated.headers["Cache-Control"] == ["max-age=50"])
        #expect(!updated.headers.contains(name: "X-Hop") && !updated.headers.contains(name: "Keep-Alive") && !updated.headers.contains(name: "Connection"))
        #expect(updated.responseTime == 2001)
        #expect(!updated.headers.contains(name: "Warning"))
    }

    @Test("invalidation by unsafe methods with 2xx/3xx")
    func invalidation() {
        #expect(CacheRules.invalidates(method: "POST", status: 200))
        #expect(CacheRules.invalidates(method: "M-SEARCH", status: 301))
        #expect(!CacheRules.invalidates(method: "POST", status: 500))
        #expect(!CacheRules.invalidates(method: "GET", status: 200))
        #expect(!CacheRules.invalidates(method: "OPTIONS", status: 200))
    }

    @Test("LRU index bounded in bytes, and its file form")
    func index() {
        var index = CacheIndex(limit: 100)
        #expect(index.insert(CacheIndexEntry(id: "a1", key: "k1", uri: "u1", size: 40)).isEmpty)
        #expect(index.insert(CacheIndexEntry(id: "b2", key: "k2", uri: "u2", size: 40)).isEmpty)
        index.touch("a1")
        let evicted = index.insert(CacheIndexEntry(id: "c3", key: "k3", uri: "u3", size: 40))
        #expect(evicted.map(\.id) == ["b2"])
        #expect(index.totalBytes == 80)
        #expect(index.insert(CacheIndexEntry(id: "dd", key: "k", uri: "u", size: 101)).map(\.id) == ["dd"])
        let (restored, dropped) = CacheIndex.decode(index.encoded(), limit: 100)
        #expect(restored.entries == index.entries && dropped.isEmpty)
        let (smaller, over) = CacheIndex.decode(index.encoded(), limit: 50)
        #expect(smaller.entries.map(\.id) == ["c3"] && over.map(\.id) == ["a1"])
        #expect(CacheIndex.decode(Array("garbage\n".utf8), limit: 100).0.entries.isEmpty)
        var withJunk = index.encoded()
        withJunk += Array("../etc x y 5\nzz\n".utf8)
        #expect(CacheIndex.decode(withJunk, limit: 100).0.entries.count == 2)
    }

    @Test("entry heads round-trip; every truncation is refused")
    func codec() throws {
        var h = head([("Content-Type", "text/plain"), ("X-Empty", ""), ("Set-Thing", "a b  c")], status: 203)
        h.vary = [VaryField(name: "accept", value: "text/html, */*"), VaryField(name: "x-none", value: nil)]
        h.bodyLength = 12
        let bytes = try #require(CachedHeadCodec.encode(h))
        #expect(CachedHeadCodec.decode(bytes) == h)
        for cut in 0..<bytes.count { #expect(CachedHeadCodec.decode(Array(bytes[..<cut])) == nil, "cut at \(cut)") }
        var bad = h
        bad.headers.add(name: "X", value: "a\nb")
        #expect(CachedHeadCodec.encode(bad) == nil)
    }
}
