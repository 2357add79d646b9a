// Checks for CourierCookies (CookieStore, SetCookieParser, CookieDate, NetscapeCookieFile): the
// input's lines drive a store and whatever they do, it never traps and its invariants hold —
// at most one cookie per identity, `count` right, nothing expired kept after a call, every stored cookie valid
// (a name, no control character, a lower-case domain without a leading dot, a path from "/", the
// size limit, its prefix's promise kept), every Cookie field within the count and length limits —
// and the store written as a Netscape file reads back into the same cookies in the same order. A
// cookie-date that parses formats to an IMF-fixdate that parses to the same time.
//
// Lines: "u" + byte picks the request URL from a fixed list; "t" + byte moves the clock forward
// that many seconds (times 1000 when the byte is odd); "g" asks for the Cookie field; "f" + text
// loads the text as a cookie file line ("|" stands for a tab); "d" + text parses a cookie-date;
// any other line is a Set-Cookie field from the current URL.
import CourierCookies
import CourierURL

extension FuzzChecks {
    static let cookieTargets: [CookieTarget] = [
        "http://www.example.com/a/b", "https://www.example.com/", "http://example.com/a/", "https://sub.www.example.com/x",
        "http://127.0.0.1/p", "http://localhost/", "http://[::1]/q/r", "https://co.uk/", "http://www.bbc.co.uk/a", "http://com/",
    ].map { CookieTarget(uri: try! URI(parsing: $0))! }

    public static func cookies(_ input: UnsafeRawBufferPointer) {
        let text = String(decoding: input, as: UTF8.self)
        var store = CookieStore(publicSuffixList: PublicSuffixList(parsing: "com\nuk\nco.uk\n*.ck\n!www.ck\n"),
                                limits: CookieLimits(maximumCookiesPerDomain: 8, maximumCookies: 20))
        var now: Int64 = 1_700_000_000
        var target = cookieTargets[0]
        for line in text.split(separator: "\n", omittingEmptySubsequences: true).prefix(200) {
            let rest = String(line.dropFirst())
            switch line.first {
            case "u":
                target = cookieTargets[Int(line.utf8.dropFirst().first ?? 0) % cookieTargets.count]
            case "t":
                let byte = Int64(line.utf8.dropFirst().first ?? 1)
                now += byte % 2 == 1 ? byte * 1000 : byte
            case "g":
                if let field = store.cookieFieldValue(for: target, now: now) {
                    require(8 + field.utf8.count < store.limits.maximumCookieFieldLength, "Cookie field of \(field.utf8.count) bytes")
                    require(field.split(separator: ";").count <= store.limits.maximumCookiesPerRequest, "too many cookies sent")
                }
            case "f":
                store.loadNetscapeFile(rest.replacing("|", with: "\t"), now: now)
            case "d":
                if let time = CookieDate.parse(rest) {
                    require(CookieDate.parse(CookieDate.format(time)) == time, "\(rest) → \(time) does not survive formatting")
                }
            default:
                _ = store.receive(setCookie: String(line), from: target, now: now)
            }
            // Moving the clock changes nothing stored: expired cookies go at the next call to the
            // store ("u" and "d" make none).
            checkStore(store, now: now, expiryChecked: !["t", "u", "d"].contains(line.first))
        }
        // The file round trip.
        var again = CookieStore(publicSuffixList: store.publicSuffixList, limits: store.limits)
        again.loadNetscapeFile(store.netscapeFile(at: now), now: now)
        func summary(_ s: CookieStore) -> [String] {
            s.allCookies(at: now).map { "\($0.name)=\($0.value)|\($0.domain)|\($0.isHostOnly)|\($0.path)|\($0.isSecure)|\($0.isHTTPOnly)|\($0.expires ?? 0)" }
        }
        require(summary(again) == summary(store), "the cookie file does not read back: \(summary(store)) vs \(summary(again))")
    }

    static func checkStore(_ store: CookieStore, now: Int64, expiryChecked: Bool) {
        let all = store.allCookies()
        require(all.count == store.count, "count \(store.count) but \(all.count) cookies")
        var identities = Set<String>()
        for cookie in all {
            require(identities.insert("\(cookie.name)|\(cookie.domain)|\(cookie.isHostOnly)|\(cookie.path)").inserted, "two cookies of one identity")
            require(!expiryChecked || !cookie.isExpired(at: now), "expired cookie kept: \(cookie)")
            require(!cookie.name.isEmpty, "nameless cookie")
            for part in [cookie.name, cookie.value, cookie.path, cookie.domain] {
                require(!part.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "control character in \(cookie)")
            }
            require(cookie.name.utf8.count + cookie.value.utf8.count <= 4096, "oversized cookie")
            require(cookie.path.hasPrefix("/"), "path \(cookie.path)")
            require(!cookie.domain.isEmpty && !cookie.domain.hasPrefix(".") && cookie.domain == cookie.domain.lowercased(), "domain \(cookie.domain)")
            let name = cookie.name.lowercased()
            if name.hasPrefix("__secure-") { require(cookie.isSecure, "__Secure- without Secure") }
            if name.hasPrefix("__host-") { require(cookie.isSecure && cookie.isHostOnly && cookie.path == "/", "__Host- broken") }
            if cookie.sameSite == .none { require(cookie.isSecure, "SameSite=None without Secure") }
            if !cookie.isHostOnly { require(!store.isPublicSuffix(cookie.domain), "domain cookie on a public suffix") }
        }
        var perDomain: [String: Int] = [:]
        for cookie in all { perDomain[cookie.domain, default: 0] += 1 }
        require(perDomain.values.allSatisfy { $0 <= store.limits.maximumCookiesPerDomain } && all.count <= store.limits.maximumCookies,
                "over the limits")
    }
}
