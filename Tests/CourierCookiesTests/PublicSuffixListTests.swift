// The public suffix list: the list's own test file (test_psl.txt, shipped by Debian's
// `publicsuffix` package under /usr/share/doc/publicsuffix/examples/) run against the system list,
// the algorithm on a small list, and the dot rule used without a list. When the system files are
// missing (a machine without the package, or one that drops /usr/share/doc) those tests say so and
// are skipped; scripts/setup installs the package.

import CourierCookies
import CourierURL
import Glibc
import Testing

private let systemListPath = PublicSuffixList.systemPath
private let testFilePath = "/usr/share/doc/publicsuffix/examples/test_psl.txt"

private func readText(_ path: String) -> String? {
    guard let file = fopen(path, "r") else { return nil }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n == 0 { break }
        bytes += chunk[..<n]
    }
    return String(decoding: bytes, as: UTF8.self)
}

/// The `checkPublicSuffix('input', 'expected')` lines of test_psl.txt (null → nil); commented-out
/// lines are left out, as the file intends.
func testPSLCases(_ text: String) -> [(input: String?, expected: String?)] {
    var cases: [(String?, String?)] = []
    for line in text.split(separator: "\n") where line.hasPrefix("checkPublicSuffix(") {
        let inner = line.dropFirst("checkPublicSuffix(".count).prefix { $0 != ")" }
        let parts = inner.split(separator: ",").map { $0.drop { $0 == " " } }
        guard parts.count == 2 else { continue }
        func value(_ s: Substring) -> String? { s == "null" ? nil : String(s.dropFirst().dropLast()) }
        cases.append((value(parts[0]), value(parts[1])))
    }
    return cases
}

@Suite("public suffix list")
struct PublicSuffixListTests {
    @Test("test_psl.txt against the system list", .enabled(if: readText(testFilePath) != nil && readText(systemListPath) != nil,
                                                            "needs Debian's publicsuffix package (scripts/setup)"))
    func officialTests() throws {
        let list = PublicSuffixList(parsing: try #require(readText(systemListPath)))
        #expect(list.ruleCount > 9000)
        let cases = testPSLCases(try #require(readText(testFilePath)))
        #expect(cases.count >= 75)
        for (input, expected) in cases {
            guard let input else { continue }  // checkPublicSuffix(null, null): no input to give
            // The file's rule: a leading dot is not a domain.
            let got = input.hasPrefix(".") ? nil : list.registrableDomain(of: input)
            let want = expected.flatMap { try? IDNA.toASCII($0) }
            #expect(got == want, "\(input)")
        }
    }

    @Test("the system list refuses the suffixes of both sections", .enabled(if: readText(systemListPath) != nil, "needs /usr/share/publicsuffix"))
    func systemList() throws {
        let list = PublicSuffixList(parsing: try #require(readText(systemListPath)))
        var store = CookieStore(publicSuffixList: list)
        for (host, domain) in [("www.bbc.co.uk", "co.uk"), ("me.github.io", "github.io"), ("a.b.kawasaki.jp", "b.kawasaki.jp"), ("x.com", "com")] {
            #expect(store.receive(setCookie: "a=1; Domain=\(domain)", from: target("http://\(host)/")!, now: goNow) == .rejected(.publicSuffix))
        }
        #expect(store.receive(setCookie: "a=1; Domain=bbc.co.uk", from: target("http://www.bbc.co.uk/")!, now: goNow).storedCookie != nil)
        // city.kawasaki.jp is an exception: a registrable domain.
        #expect(store.receive(setCookie: "a=1; Domain=city.kawasaki.jp", from: target("http://www.city.kawasaki.jp/")!, now: goNow)
            .storedCookie != nil)
    }

    @Test("the algorithm: rules, wildcards, exceptions, Unicode rules stored in ASCII")
    func algorithm() {
        let list = PublicSuffixList(parsing: """
            // comment
            com
            co.uk
            *.ck
            !www.ck
            公司.cn
            cn
            github.io other words after the rule are ignored
            """)
        #expect(list.ruleCount == 7)
        #expect(list.publicSuffix(of: "www.example.com") == "com")
        #expect(list.publicSuffix(of: "a.b.co.uk") == "co.uk")
        #expect(list.publicSuffix(of: "a.b.test.ck") == "test.ck")
        #expect(list.publicSuffix(of: "b.test.ck") == "test.ck")
        #expect(list.publicSuffix(of: "www.ck") == "ck")
        #expect(list.publicSuffix(of: "x.xn--55qx5d.cn") == "xn--55qx5d.cn")
        #expect(list.publicSuffix(of: "x.公司.cn") == "xn--55qx5d.cn")
        #expect(list.publicSuffix(of: "unlisted") == "unlisted")
        #expect(list.isPublicSuffix("github.io") && !list.isPublicSuffix("me.github.io"))
        #expect(list.registrableDomain(of: "a.b.me.github.io") == "me.github.io")
        #expect(list.registrableDomain(of: "co.uk") == nil)
        #expect(list.publicSuffix(of: "a..com") == nil)
    }

    @Test("without a list, a Domain without an inner dot is refused (curl's rule without libpsl)")
    func dotRule() {
        var store = CookieStore(publicSuffixList: nil)
        let from = target("http://www.example.co.uk/")!
        #expect(store.receive(setCookie: "a=1; Domain=uk", from: from, now: goNow) == .rejected(.publicSuffix))
        #expect(store.receive(setCookie: "a=1; Domain=co.uk", from: from, now: goNow).storedCookie?.domain == "co.uk")  // the rule's weakness
        var local = CookieStore(publicSuffixList: nil)
        #expect(local.receive(setCookie: "a=1; Domain=localhost", from: target("http://localhost/")!, now: goNow).storedCookie?.isHostOnly == true)
    }
}
