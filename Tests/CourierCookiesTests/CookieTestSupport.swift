// Helpers shared by the cookie tests: targets from URL strings, and the runner of Go's jar tables
// (net/http/cookiejar jar_test.go's jarTest.run, rewritten): set every field at t0, list the
// unexpired content at t0 + 1 s, then run query n at t0 + (n + 2) s.

import CourierCookies
import CourierURL
import Testing

/// The synthetic "now" of Go's tables: 2013-01-01T12:00:00Z.
let goNow: Int64 = 1_357_041_600

/// The target of a URL string; nil for a scheme that carries no cookies.
func target(_ url: String) -> CookieTarget? {
    guard let uri = try? URI(parsing: url) else { return nil }
    return CookieTarget(uri: uri)
}

/// An Expires attribute `delta` seconds from `goNow`, written as Go's time.RFC1123 writes it
/// ("Tue, 01 Jan 2013 12:00:03 UTC"): the zone token is not GMT, which the algorithm ignores.
func expiresIn(_ delta: Int64) -> String {
    let text = CookieDate.format(goNow + delta)
    return "expires=" + text.dropLast(3) + "UTC"
}

/// One query of a jar test: the cookies a request to `url` must carry, "name=value" separated by
/// spaces, in send order.
struct JarQuery: Sendable {
    let url: String
    let want: String
    init(_ url: String, _ want: String) {
        self.url = url
        self.want = want
    }
}

/// One of Go's jarTest rows.
struct JarTest: Sendable, CustomTestStringConvertible {
    let description: String
    let fromURL: String
    let setCookies: [String]
    /// Every unexpired cookie as "name=value", sorted, joined by spaces.
    let content: String
    let queries: [JarQuery]
    /// Why this row's expectation (or origin) differs from Go's, when it does.
    var deviation: String? = nil

    var testDescription: String { description }

    /// Runs the row on `store`, starting at `t0`; returns the mismatches.
    func run(on store: inout CookieStore, at t0: Int64 = goNow) -> [String] {
        var failures: [String] = []
        if !setCookies.isEmpty {
            let from = target(fromURL)!
            _ = store.receive(setCookieFields: setCookies, from: from, now: t0)
        }
        let content = store.allCookies(at: t0 + 1).map { "\($0.name)=\($0.value)" }.sorted().joined(separator: " ")
        if content != self.content { failures.append("content: got \"\(content)\", want \"\(self.content)\"") }
        for (i, query) in queries.enumerated() {
            let now = t0 + Int64(i + 2)
            let got = target(query.url).map { store.cookies(for: $0, now: now) }?.map { "\($0.name)=\($0.value)" }.joined(separator: " ") ?? ""
            if got != query.want { failures.append("query #\(i) \(query.url): got \"\(got)\", want \"\(query.want)\"") }
        }
        return failures
    }
}

/// Go's test public suffix list: "co.uk" and the implicit "*" rule.
let goPublicSuffixList = PublicSuffixList(parsing: "co.uk\n")

/// A fresh store with Go's test list.
func goStore() -> CookieStore { CookieStore(publicSuffixList: goPublicSuffixList) }
