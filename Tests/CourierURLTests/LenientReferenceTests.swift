// URI.escapingInvalidBytes: a Location as browsers and curl take it, made into RFC 3986 text the
// strict parser accepts (WHATWG percent-encoding); the host is still decoded and checked strictly.

import CourierURL
import Testing

@Suite struct LenientReferenceTests {
    @Test(arguments: [
        ("/a b/c", "/a%20b/c"),
        ("/caf\u{E9}?q=\u{E9} t#fr ag", "/caf%C3%A9?q=%C3%A9%20t#fr%20ag"),
        ("/x?\"<>`{|}^\\", "/x?%22%3C%3E%60%7B%7C%7D%5E%5C"),
        ("/50%", "/50%25"),
        ("/50%2", "/50%252"),
        ("/ok%2Fstill%20ok", "/ok%2Fstill%20ok"),
        ("/a#b#c", "/a#b%23c"),
        ("/[x]", "/%5Bx%5D"),
        ("http://[::1]:8080/[x]", "http://[::1]:8080/%5Bx%5D"),
        ("/tab\tremoved", "/tabremoved"),
        ("/ctl\u{1}\u{7F}", "/ctl%01%7F"),
        ("already/valid?a=b&c=%41#f", "already/valid?a=b&c=%41#f"),
        ("http://b\u{FC}cher.example/p q", "http://b%C3%BCcher.example/p%20q"),
    ])
    func escaping(input: String, expected: String) throws {
        let escaped = URI.escapingInvalidBytes(input)
        #expect(escaped == expected)
        // The result always parses (strictly).
        _ = try URI(parsing: escaped)
    }

    @Test func resolvedAgainstABase() throws {
        let base = try URI(parsing: "http://example.com/dir/page")
        #expect(try base.resolving(URI.escapingInvalidBytes("next page?x=a b")).description == "http://example.com/dir/next%20page?x=a%20b")
        // A raw UTF-8 host is decoded and converted by the host parser (UTS #46).
        #expect(try base.resolving(URI.escapingInvalidBytes("//b\u{FC}cher.example/")).host?.text == "xn--bcher-kva.example")
    }

    @Test(arguments: ["http://exa mple.com/", "http://exa%00mple.com/", "http://a\u{1}b/", "//h\u{7F}/"])
    func aHostStaysStrict(input: String) {
        #expect(throws: URIError.self) { try URI(parsing: URI.escapingInvalidBytes(input)) }
    }
}
