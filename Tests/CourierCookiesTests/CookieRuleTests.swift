// The rules of CookieStore one by one (docs/cookies.md): Secure and loopback, HttpOnly, SameSite,
// Max-Age and Expires, the 400-day cap, prefixes, sizes, control characters, overlays, curl's
// limits, eviction and send order.

import CourierCookies
import Testing

private let now = goNow

/// A store and a helper to set cookies from a URL and read the Cookie field for another.
private struct Fixture {
    var store = CookieStore(publicSuffixList: goPublicSuffixList)

    @discardableResult
    mutating func set(_ field: String, from url: String, at time: Int64 = now) -> CookieStoreResult {
        store.receive(setCookie: field, from: target(url)!, now: time)
    }

    mutating func field(_ url: String, at time: Int64 = now) -> String {
        store.cookieFieldValue(for: target(url)!, now: time) ?? ""
    }
}

@Suite("cookie rules")
struct CookieRuleTests {
    // MARK: Secure

    @Test("Secure is set and sent over https and loopback hosts only", arguments: [
        ("https://example.com/", true), ("http://example.com/", false), ("http://localhost/", true), ("http://LOCALHOST./", true),
        ("http://app.localhost/", true), ("http://127.0.0.1/", true), ("http://127.8.9.10/", true), ("http://[::1]/", true),
        ("http://[0:0:0:0:0:0:0:1]/", true), ("http://[::2]/", false), ("http://128.0.0.1/", false), ("http://localhost.example/", false),
    ])
    func secureChannels(url: String, isSecure: Bool) {
        var f = Fixture()
        let result = f.set("s=1; Secure", from: url)
        #expect((result.storedCookie != nil) == isSecure, "\(result)")
        if !isSecure { #expect(result == .rejected(.secureFromInsecureChannel)) }
        #expect(target(url)!.isSecure == isSecure)
    }

    @Test("a Secure cookie set over https is sent to https and to no http URL")
    func secureSending() {
        var f = Fixture()
        f.set("s=1; Secure", from: "https://example.com/")
        f.set("p=2", from: "https://example.com/")
        #expect(f.field("https://example.com/x") == "s=1; p=2")
        #expect(f.field("http://example.com/x") == "p=2")
    }

    @Test("a non-secure origin cannot overlay a Secure cookie (layered-cookies' example, paths /login)")
    func secureOverlay() {
        var f = Fixture()
        f.set("a=secret; Secure; Path=/login", from: "https://example.com/")
        #expect(f.set("a=x; Path=/", from: "http://example.com/").storedCookie != nil)
        #expect(f.set("a=x; Path=/foo", from: "http://example.com/").storedCookie != nil)
        #expect(f.set("a=x; Path=/login", from: "http://example.com/") == .rejected(.overlaysSecureCookie))
        #expect(f.set("a=x; Path=/login/en", from: "http://example.com/") == .rejected(.overlaysSecureCookie))
        // The domains match either way: a domain cookie from a subdomain is refused too.
        #expect(f.set("a=x; Path=/login; Domain=example.com", from: "http://www.example.com/") == .rejected(.overlaysSecureCookie))
        // Another name, or https, may.
        #expect(f.set("b=x; Path=/login", from: "http://example.com/").storedCookie != nil)
        #expect(f.set("a=new; Path=/login; Secure", from: "https://example.com/").storedCookie?.value == "new")
    }

    // MARK: HttpOnly and SameSite

    @Test("HttpOnly is stored and the cookie is sent over HTTP")
    func httpOnly() {
        var f = Fixture()
        #expect(f.set("h=1; HttpOnly", from: "http://example.com/").storedCookie?.isHTTPOnly == true)
        #expect(f.field("http://example.com/") == "h=1")
    }

    @Test("SameSite is stored, never consulted for sending; None needs Secure", arguments: [
        ("s=1; SameSite=Strict", Cookie.SameSite.strict), ("s=1; samesite=LAX", .lax), ("s=1; SameSite=None; Secure", .none),
        ("s=1; SameSite=bogus", .unspecified), ("s=1; SameSite", .unspecified), ("s=1; SameSite=Lax; SameSite=junk", .lax),
    ])
    func sameSite(field: String, expected: Cookie.SameSite) {
        var f = Fixture()
        #expect(f.set(field, from: "https://example.com/").storedCookie?.sameSite == expected)
        #expect(f.field("https://example.com/") == "s=1")
    }

    @Test("SameSite=None without Secure is refused, whatever the channel")
    func sameSiteNone() {
        var f = Fixture()
        #expect(f.set("s=1; SameSite=None", from: "https://example.com/") == .rejected(.sameSiteNoneWithoutSecure))
        #expect(f.set("s=1; SameSite=none", from: "http://example.com/") == .rejected(.sameSiteNoneWithoutSecure))
    }

    // MARK: Expiry

    @Test("Max-Age wins over Expires in either order; ≤ 0 deletes; a bad Max-Age is ignored")
    func maxAgeOverExpires() {
        var f = Fixture()
        let later = CookieDate.format(now + 86_400)
        #expect(f.set("a=1; Expires=\(later); Max-Age=60", from: "http://x.test/").storedCookie?.expires == now + 60)
        #expect(f.set("a=1; Max-Age=60; Expires=\(later)", from: "http://x.test/").storedCookie?.expires == now + 60)
        #expect(f.set("a=1; Max-Age=6O", from: "http://x.test/").storedCookie?.expires == nil)
        #expect(f.set("a=1; Max-Age=+60", from: "http://x.test/").storedCookie?.expires == nil)
        #expect(f.set("a=1; Max-Age=", from: "http://x.test/").storedCookie?.expires == nil)
        #expect(f.set("a=1; Expires=\(later); Max-Age=junk", from: "http://x.test/").storedCookie?.expires == now + 86_400)
        guard case .deleted = f.set("a=1; Max-Age=0", from: "http://x.test/") else { Issue.record("Max-Age=0 must delete"); return }
        #expect(f.set("a=1; Max-Age=-5", from: "http://x.test/") == .rejected(.expired))
        f.set("b=1", from: "http://x.test/")
        guard case .deleted = f.set("b=; Expires=\(CookieDate.format(now - 1))", from: "http://x.test/") else {
            Issue.record("a past Expires must delete")
            return
        }
        #expect(f.field("http://x.test/") == "")
    }

    @Test("expiry is cut to 400 days, for Expires and Max-Age alike")
    func ageCap() {
        var f = Fixture()
        let cap = now + 400 * 86_400
        #expect(f.set("a=1; Max-Age=999999999999", from: "http://x.test/").storedCookie?.expires == cap)
        #expect(f.set("b=1; Max-Age=99999999999999999999999", from: "http://x.test/").storedCookie?.expires == cap)
        #expect(f.set("c=1; Expires=Fri, 31 Dec 9999 23:59:59 GMT", from: "http://x.test/").storedCookie?.expires == cap)
        #expect(f.set("d=1; Max-Age=3600", from: "http://x.test/").storedCookie?.expires == now + 3600)
        #expect(f.field("http://x.test/", at: cap - 1) == "a=1; b=1; c=1")
        #expect(f.field("http://x.test/", at: cap) == "")
    }

    // Fuzz/Regressions/fuzz-cookies/rejected-field-kept-an-expired-cookie and
    // comment-line-kept-an-expired-cookie: only stored fields used to collect garbage.
    @Test("every call removes expired cookies: a refused field, a file of comments, an insert")
    func expiredGoOnEveryCall() {
        var store = CookieStore()
        let site = target("http://x.test/")!
        _ = store.receive(setCookie: "b=2; Max-Age=60", from: site, now: now)
        #expect(store.receive(setCookie: "not a cookie", from: site, now: now + 9000) == .rejected(.missingEquals))
        #expect(store.count == 0)
        _ = store.receive(setCookie: "b=2; Max-Age=60", from: site, now: now)
        #expect(store.loadNetscapeFile("# comment only\n", now: now + 9000) == 0)
        #expect(store.count == 0)
        _ = store.receive(setCookie: "b=2; Max-Age=60", from: site, now: now)
        #expect(store.insert(Cookie(name: "", value: "x", domain: "x.test"), now: now + 9000) == .rejected(.emptyName))
        #expect(store.count == 0)
    }

    @Test("a cookie expires at its expiry second, not before")
    func expiryBoundary() {
        var f = Fixture()
        f.set("a=1; Max-Age=10", from: "http://x.test/")
        #expect(f.field("http://x.test/", at: now + 9) == "a=1")
        #expect(f.field("http://x.test/", at: now + 10) == "")
        #expect(f.store.count == 0)
    }

    // MARK: Prefixes

    @Test("__Secure- and __Host- are matched without case", arguments: [
        ("__Secure-a=1", "https://x.test/", CookieRejection.securePrefix),
        ("__SECURE-a=1; Path=/", "https://x.test/", .securePrefix),
        ("__secure-a=1; Domain=x.test", "https://x.test/", .securePrefix),
        ("__Host-a=1; Secure", "https://x.test/", .hostPrefix),
        ("__host-a=1; Secure; Path=/; Domain=x.test", "https://x.test/", .hostPrefix),
        ("__HOST-a=1; Secure; Path=/foo", "https://x.test/foo/bar", .hostPrefix),
        ("__Host-a=1; Path=/", "https://x.test/", .hostPrefix),
        ("__Http-a=1; Secure", "https://x.test/", .httpPrefix),
        ("__host-http-a=1; Secure; Path=/", "https://x.test/", .httpPrefix),
    ])
    func prefixRefused(field: String, url: String, reason: CookieRejection) {
        var f = Fixture()
        #expect(f.set(field, from: url) == .rejected(reason))
    }

    @Test("prefixed cookies that keep their promise are stored", arguments: [
        "__Secure-a=1; Secure", "__secure-A=1; Secure; Domain=x.test", "__Host-a=1; Secure; Path=/", "__HOST-a=1; secure; path=/",
        "__Http-a=1; Secure; HttpOnly", "__Host-Http-a=1; Secure; HttpOnly; Path=/", "__Hostile=1", "_Secure-a=1",
    ])
    func prefixAccepted(field: String) {
        var f = Fixture()
        #expect(f.set(field, from: "https://www.x.test/").storedCookie != nil)
    }

    @Test("a Secure prefix from http is refused as Secure from http")
    func prefixFromHTTP() {
        var f = Fixture()
        #expect(f.set("__Secure-a=1; Secure", from: "http://x.test/") == .rejected(.secureFromInsecureChannel))
        #expect(f.set("__Host-a=1; Secure; Path=/", from: "http://x.test/") == .rejected(.secureFromInsecureChannel))
    }

    // MARK: Sizes and bytes

    @Test("name + value up to 4096 bytes; an attribute value up to 1024")
    func sizes() {
        var f = Fixture()
        let name = String(repeating: "n", count: 96)
        #expect(f.set(name + "=" + String(repeating: "v", count: 4000), from: "http://x.test/").storedCookie != nil)
        #expect(f.set(name + "=" + String(repeating: "v", count: 4001), from: "http://x.test/") == .rejected(.tooLarge))
        let path1024 = "/" + String(repeating: "p", count: 1023)
        #expect(f.set("a=1; Path=\(path1024)", from: "http://x.test/").storedCookie?.path == path1024)
        // A 1025-byte Path is ignored: the default path applies.
        #expect(f.set("b=1; Path=\(path1024)p", from: "http://x.test/dir/page").storedCookie?.path == "/dir")
        #expect(f.set("c=1; Domain=\(String(repeating: "x", count: 1025))", from: "http://x.test/").storedCookie?.domain == "x.test")
    }

    @Test("control characters refuse the field; tabs only as whitespace", arguments: Array(0...0x1F) + [0x7F])
    func controlCharacters(byte: Int) {
        var f = Fixture()
        let c = String(UnicodeScalar(UInt8(byte)))
        let inValue = f.set("a=1\(c)2", from: "http://x.test/")
        let inAttribute = f.set("a=1; Path=/\(c)", from: "http://x.test/")
        if byte == 0x09 {
            #expect(inValue == .rejected(.controlCharacter))
            #expect(inAttribute.storedCookie?.path == "/")  // a path with a tab is not a path
            #expect(f.set("\ta\t=\t1\t;\tPath\t=\t/p\t", from: "http://x.test/").storedCookie.map { "\($0.name)=\($0.value) \($0.path)" } == "a=1 /p")
        } else {
            #expect(inValue == .rejected(.controlCharacter))
            #expect(inAttribute == .rejected(.controlCharacter))
        }
    }

    @Test("no \"=\" or an empty name refuses the field; a comma is part of the value (fields are never joined)")
    func pairs() {
        var f = Fixture()
        #expect(f.set("novalue", from: "http://x.test/") == .rejected(.missingEquals))
        #expect(f.set("; a=1", from: "http://x.test/") == .rejected(.missingEquals))
        #expect(f.set("=1", from: "http://x.test/") == .rejected(.emptyName))
        #expect(f.set("  =1", from: "http://x.test/") == .rejected(.emptyName))
        #expect(f.set("a=1, b=2; Path=/", from: "http://x.test/").storedCookie?.value == "1, b=2")
        #expect(f.set("q=\"quoted value\"", from: "http://x.test/").storedCookie?.value == "\"quoted value\"")
        #expect(f.set("u=ünï©ødé", from: "http://x.test/").storedCookie?.value == "ünï©ødé")
    }

    // MARK: curl's limits

    @Test("at most 50 Set-Cookie fields of one response are read")
    func fiftyPerResponse() {
        var store = CookieStore()
        let fields = (0..<60).map { "c\($0)=\($0)" }
        let results = store.receive(setCookieFields: fields, from: target("http://x.test/")!, now: now)
        #expect(results.prefix(50).allSatisfy { $0.storedCookie != nil })
        #expect(results.suffix(10).allSatisfy { $0 == .rejected(.tooManyInResponse) })
        #expect(store.count == 50)
    }

    @Test("at most 150 cookies are sent, the first 150 in send order")
    func hundredFiftySent() {
        var store = CookieStore(limits: CookieLimits(maximumCookiesPerDomain: 300))
        for i in 0..<200 { _ = store.receive(setCookie: "c\(i)=\(i)", from: target("http://x.test/")!, now: now) }
        let field = store.cookieFieldValue(for: target("http://x.test/")!, now: now)!
        let names = field.split(separator: ";").map { $0.trimmingPrefixSpaces.split(separator: "=")[0] }
        #expect(names.count == 150)
        #expect(names.first == "c0" && names.last == "c149")
        #expect(store.cookies(for: target("http://x.test/")!, now: now).count == 200)
    }

    @Test("the Cookie field line stays under 8190 bytes; it stops at the first cookie that does not fit")
    func fieldLength() {
        var store = CookieStore()
        // "Cookie: " (8) + "a=" + 4000 + "; b=" + 4000 = 8014 < 8190; then "; c=" + 200 would pass it.
        for (name, size) in [("a", 4000), ("b", 4000), ("c", 200), ("d", 1)] {
            _ = store.receive(setCookie: "\(name)=\(String(repeating: "x", count: size))", from: target("http://x.test/")!, now: now)
        }
        let field = store.cookieFieldValue(for: target("http://x.test/")!, now: now)!
        #expect(field.utf8.count == 2 + 4000 + 4 + 4000)
        #expect(!field.contains("d="))  // curl stops at the first cookie that would not fit
    }

    @Test("a domain keeps 180 cookies: the least recently used go, those without Secure first")
    func perDomainCap() {
        var store = CookieStore()
        let https = target("https://x.test/")!
        _ = store.receive(setCookie: "secure=1; Secure", from: https, now: now)
        for i in 0..<180 { _ = store.receive(setCookie: "c\(i)=\(i)", from: https, now: now + Int64(i)) }
        #expect(store.count == 180)
        let names = Set(store.allCookies().map(\.name))
        #expect(names.contains("secure"))  // the oldest, but Secure: c0 went instead
        #expect(!names.contains("c0") && names.contains("c1") && names.contains("c179"))
        // Sending uses every cookie, in send order: c1 is then the least recently used without Secure.
        _ = store.cookies(for: target("https://x.test/")!, now: now + 500)
        _ = store.receive(setCookie: "late=1", from: https, now: now + 600)
        let after = Set(store.allCookies().map(\.name))
        #expect(store.count == 180 && !after.contains("c1") && after.contains("c2") && after.contains("late") && after.contains("secure"))
    }

    @Test("a domain evicts by use: a cookie just sent outlives an older unused one")
    func evictionByUse() {
        var store = CookieStore(limits: CookieLimits(maximumCookiesPerDomain: 3))
        let site = target("http://x.test/")!
        for (i, name) in ["a", "b", "c"].enumerated() { _ = store.receive(setCookie: "\(name)=1; Path=/\(name)", from: site, now: now + Int64(i)) }
        _ = store.cookies(for: target("http://x.test/a")!, now: now + 10)  // uses a
        _ = store.receive(setCookie: "d=1", from: site, now: now + 11)
        #expect(Set(store.allCookies().map(\.name)) == ["a", "c", "d"])
    }

    @Test("the whole store keeps 3000 cookies (here 5): the least recently used go first")
    func totalCap() {
        var store = CookieStore(limits: CookieLimits(maximumCookies: 5))
        for i in 0..<8 { _ = store.receive(setCookie: "c=\(i)", from: target("http://h\(i).test/")!, now: now + Int64(i)) }
        #expect(store.count == 5)
        #expect(store.allCookies().map(\.value) == ["3", "4", "5", "6", "7"])
        #expect(CookieLimits().maximumCookies == 3000 && CookieLimits().maximumCookiesPerDomain == 180)
    }

    // MARK: Order and identity

    @Test("send order: longer paths first, then earlier creation; a replacement keeps its place")
    func sendOrder() {
        var f = Fixture()
        f.set("a=1; Path=/", from: "http://x.test/", at: now)
        f.set("b=1; Path=/p", from: "http://x.test/", at: now + 1)
        f.set("c=1; Path=/", from: "http://x.test/", at: now + 2)
        f.set("a=2; Path=/", from: "http://x.test/", at: now + 3)
        #expect(f.field("http://x.test/p/q", at: now + 4) == "b=1; a=2; c=1")
        #expect(f.store.allCookies().first { $0.name == "a" }?.creationTime == now)
    }

    @Test("a host-only and a domain cookie of the same name, domain and path are two cookies (identity includes host-only)")
    func identity() {
        var f = Fixture()
        f.set("a=host", from: "http://x.test/")
        f.set("a=domain; Domain=x.test", from: "http://x.test/")
        #expect(f.store.count == 2)
        #expect(f.field("http://x.test/") == "a=host; a=domain")
        #expect(f.field("http://www.x.test/") == "a=domain")
    }

    @Test("hosts with a trailing dot share cookies with the name without it")
    func trailingDot() {
        var f = Fixture()
        f.set("a=1", from: "http://x.test./")
        #expect(f.field("http://x.test/") == "a=1")
    }
}

private extension Substring {
    var trimmingPrefixSpaces: Substring { drop { $0 == " " } }
}
