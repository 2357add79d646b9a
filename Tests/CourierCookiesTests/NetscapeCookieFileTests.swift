// The Netscape cookie file (curl's -b FILE and -c FILE): the lines curl reads, the lines it
// writes, and round trips through CookieStore. Files curl itself writes and reads are checked in
// the CLI tests (CookieCLITests).

import CourierCookies
import Testing

private let now = goNow
private let future = goNow + 86_400

@Suite("Netscape cookie file")
struct NetscapeCookieFileTests {
    @Test("seven fields, #HttpOnly_, 0 for a session cookie, comments, blank lines and CRLF")
    func reading() {
        let text = "# Netscape HTTP Cookie File\r\n"
            + "# a comment\n"
            + "\n"
            + ".example.com\tTRUE\t/\tFALSE\t\(future)\tdom\tain\r\n"
            + "www.example.com\tFALSE\t/path\tTRUE\t0\thost\tonly\n"
            + "#HttpOnly_example.org\tFALSE\t/\tFALSE\t\(future)\th\tttp\n"
            + "#HttpOnly_.example.net\tTRUE\t/\tFALSE\t\(future)\th2\tttp\n"
        let lines = NetscapeCookieFile.parse(text)
        let cookies = lines.compactMap { if case .cookie(let c) = $0 { return c } else { return nil } }
        #expect(cookies.count == 4)
        #expect(cookies[0].description == "dom=ain; Domain=example.com; Path=/; Expires=\(CookieDate.format(future))")
        #expect(cookies[1].description == "host=only; Host=www.example.com; Path=/path; Secure")
        #expect(cookies[1].isSessionCookie)
        #expect(cookies[2].isHTTPOnly && cookies[2].isHostOnly && cookies[2].domain == "example.org")
        #expect(cookies[3].isHTTPOnly && !cookies[3].isHostOnly && cookies[3].domain == "example.net")
    }

    @Test("curl's leniencies: six fields (no value), old lines without a path, Set-Cookie lines")
    func leniencies() {
        let text = "example.com\tFALSE\t/\tFALSE\t0\tempty\n"  // no value column
            + "old.example.com\tFALSE\tTRUE\t\(future)\told\tline\n"  // no path column: secure TRUE
            + "old2.example.com\tTRUE\tFALSE\t0\told2\n"  // neither path nor value
            + "Set-Cookie: hdr=1; Domain=example.com; Path=/p; Max-Age=60\n"
            + "set-cookie:nodomain=1; Path=/\n"
        var store = CookieStore()
        #expect(store.loadNetscapeFile(text, now: now) == 4)
        let byName = Dictionary(uniqueKeysWithValues: store.allCookies().map { ($0.name, $0) })
        #expect(byName["empty"]?.value == "")
        #expect(byName["old"].map { "\($0.domain) \($0.path) \($0.isSecure) \($0.value)" } == "old.example.com / true line")
        #expect(byName["old2"].map { "\($0.domain) \($0.isHostOnly) \($0.value)" } == "old2.example.com false ")
        #expect(byName["hdr"].map { "\($0.domain) \($0.isHostOnly) \($0.path) \($0.expires == now + 60)" } == "example.com false /p true")
        #expect(byName["nodomain"] == nil)  // a header line must name its domain
    }

    @Test("lines that do not fit are skipped", arguments: [
        "example.com\tFALSE\t/\tFALSE\t0",  // five fields
        "example.com\tFALSE\t/\tFALSE\t0\ta\tb\textra",  // eight fields
        "example.com\tFALSE\t/\tFALSE\tsoon\ta\tb",  // expires not a number
        "example.com\tFALSE\t/\tFALSE\t-5\ta\tb",  // negative expires
        "example.com\tFALSE\t/\tFALSE\t0\t\tb",  // empty name
        "example.com\tFALSE\t/\tFALSE\t0\ta\tb\u{1}c",  // control character
        "\tFALSE\t/\tFALSE\t0\ta\tb",  // no domain
        "com\tTRUE\t/\tFALSE\t0\ta\tb",  // a domain cookie on a public suffix (dot rule)
        "example.com\tFALSE\t/\tFALSE\t0\t__Secure-a\tb",  // prefix without Secure
        "example.com\tFALSE\tpath\tFALSE\t0\ta\tb",  // path without "/"
        "example.com\tFALSE\t/\tFALSE\t\(goNow - 1)\ta\tb",  // expired
    ])
    func skipped(line: String) {
        var store = CookieStore()
        #expect(store.loadNetscapeFile(line + "\n", now: now) == 0)
        #expect(store.count == 0)
    }

    @Test("-j: session cookies are discarded on load")
    func junkSessionCookies() {
        let text = "example.com\tFALSE\t/\tFALSE\t0\tsession\t1\nexample.com\tFALSE\t/\tFALSE\t\(future)\tkept\t2\n"
        var store = CookieStore()
        #expect(store.loadNetscapeFile(text, discardingSessionCookies: true, now: now) == 1)
        #expect(store.allCookies().map(\.name) == ["kept"])
    }

    @Test("writing: curl's header, one line per cookie in creation order, dots on domain cookies")
    func writing() {
        var store = CookieStore()
        _ = store.receive(setCookie: "a=1; Domain=example.com; Max-Age=60", from: target("https://www.example.com/x/y")!, now: now)
        _ = store.receive(setCookie: "b=2; Secure; HttpOnly; Path=/", from: target("https://www.example.com/")!, now: now + 1)
        _ = store.receive(setCookie: "gone=1; Max-Age=1", from: target("https://www.example.com/")!, now: now + 1)
        _ = store.receive(setCookie: "v6=1", from: target("http://[::1]:8080/")!, now: now + 2)
        let text = store.netscapeFile(at: now + 5)
        #expect(text == NetscapeCookieFile.header
            + ".example.com\tTRUE\t/x\tFALSE\t\(now + 60)\ta\t1\n"
            + "#HttpOnly_www.example.com\tFALSE\t/\tTRUE\t0\tb\t2\n"
            + "::1\tFALSE\t/\tFALSE\t0\tv6\t1\n")
        #expect(text.hasPrefix("# Netscape HTTP Cookie File\n# https://curl.se/docs/http-cookies.html\n"))
    }

    @Test("a written file reads back into the same cookies, in the same send order")
    func roundTrip() {
        var store = CookieStore()
        let fields = ["a=1; Domain=example.com", "b=2; Path=/p; Max-Age=600", "c=3; Secure; HttpOnly", "d=\"q v\"; Path=/p/q",
                      "e=é; Domain=www.example.com", "f=line\u{2028}separator\u{85}next"]  // Unicode line breaks are not lines
        for (i, field) in fields.enumerated() {
            _ = store.receive(setCookie: field, from: target("https://www.example.com/p/q")!, now: now + Int64(i))
        }
        var again = CookieStore()
        #expect(again.loadNetscapeFile(store.netscapeFile(at: now + 10), now: now + 10) == fields.count)
        func summary(_ s: CookieStore) -> [String] {
            s.allCookies().map { "\($0.name)=\($0.value) \($0.domain) \($0.isHostOnly) \($0.path) \($0.isSecure) \($0.isHTTPOnly) \($0.expires ?? 0)" }
        }
        #expect(summary(again) == summary(store))
        #expect(again.cookieFieldValue(for: target("https://www.example.com/p/q")!, now: now + 11)
            == store.cookieFieldValue(for: target("https://www.example.com/p/q")!, now: now + 11))
        #expect(again.netscapeFile(at: now + 12) == store.netscapeFile(at: now + 12))
    }
}
