// URI parsing: components, normalisation, HTTP helpers, strict rejection with offsets,
// truncation and round-trip stability.

import CourierURL
import Testing

@Suite struct URIParsingTests {
    @Test func parsesAllComponents() throws {
        let uri = try URI(parsing: "HTTPS://User:Pa%20ss@Example.COM:8443/a/b%2Fc;p?q=1&r=%41#frag/?")
        #expect(uri.scheme == "https")
        #expect(uri.userinfo == "User:Pa%20ss")
        #expect(uri.host?.text == "example.com")
        #expect(uri.host?.kind == .registeredName)
        #expect(uri.port == 8443)
        #expect(uri.path == "/a/b%2Fc;p")
        #expect(uri.query == "q=1&r=%41")
        #expect(uri.fragment == "frag/?")
        #expect(uri.description == "https://User:Pa%20ss@example.com:8443/a/b%2Fc;p?q=1&r=%41#frag/?")
        #expect(uri.redactedDescription == "https://example.com:8443/a/b%2Fc;p?q=1&r=%41#frag/?")
    }

    @Test(arguments: [
        ("http://a", "http", "a", "", nil, nil),
        ("http://a/", "http", "a", "/", nil, nil),
        ("http://a?", "http", "a", "", "", nil),
        ("http://a#", "http", "a", "", nil, ""),
        ("mailto:someone@example.com", "mailto", nil, "someone@example.com", nil, nil),
        ("urn:isbn:0451450523", "urn", nil, "isbn:0451450523", nil, nil),
        ("file:///etc/hosts", "file", "", "/etc/hosts", nil, nil),
        ("//h/p", nil, "h", "/p", nil, nil),
        ("../x?y#z", nil, nil, "../x", "y", "z"),
        ("", nil, nil, "", nil, nil),
        ("?", nil, nil, "", "", nil),
        ("#", nil, nil, "", nil, ""),
        ("a+b-c.d:rest", "a+b-c.d", nil, "rest", nil, nil),
        ("x:/a//b", "x", nil, "/a//b", nil, nil),
        ("http://a/?q=a?b/c", "http", "a", "/", "q=a?b/c", nil),
        ("http://a/#f#", "http", "a", "/", nil, nil),
    ] as [(String, String?, String?, String, String?, String?)])
    func componentTable(_ input: String, _ scheme: String?, _ host: String?, _ path: String, _ query: String?, _ fragment: String?) throws {
        if input == "http://a/#f#" {
            // "#" is not allowed inside a fragment (RFC 3986 §3.5).
            #expect(throws: URIError(.invalidCharacter, offset: 11)) { try URI(parsing: input) }
            return
        }
        let uri = try URI(parsing: input)
        #expect(uri.scheme == scheme)
        #expect(uri.host?.text == host)
        #expect(uri.path == path)
        #expect(uri.query == query)
        #expect(uri.fragment == fragment)
        #expect(uri.description == input)
    }

    @Test func normalisesCaseOfSchemeAndHostOnly() throws {
        let uri = try URI(parsing: "HtTp://ExA%4dple%2a.Org/PaTh?QuE%4d#FrAg")
        #expect(uri.scheme == "http")
        #expect(uri.host?.text == "example*.org")       // an http host is percent-decoded (WHATWG)
        #expect(uri.path == "/PaTh")
        #expect(uri.query == "QuE%4d")
        #expect(uri.fragment == "FrAg")
    }

    @Test func hostsOfEachKind() throws {
        let v4 = try URI(parsing: "http://192.168.0.1:8080/")
        #expect(v4.host?.kind == .ipv4Address)
        #expect(v4.host?.text == "192.168.0.1")
        let v6 = try URI(parsing: "http://[2001:DB8::1]:80/x")
        #expect(v6.host?.kind == .ipv6Address)
        #expect(v6.host?.text == "2001:db8::1")
        #expect(v6.host?.description == "[2001:db8::1]")
        #expect(v6.description == "http://[2001:db8::1]:80/x")
        let name = try URI(parsing: "http://1.2.3.4.example/")
        #expect(name.host?.kind == .registeredName)
        // Names whose last label is not a number stay names, hex-looking or not.
        for text in ["http://0x7f.example/", "http://face.bad/", "http://123.com/", "http://a1/", "http://0xg/", "http://example.1x/"] {
            #expect(try URI(parsing: text).host?.kind == .registeredName, "\(text)")
        }
        let mapped = try URI(parsing: "http://[::ffff:192.0.2.1]/")
        #expect(mapped.host?.text == "::ffff:192.0.2.1")
    }

    @Test(arguments: [
        "::", "::1", "1::", "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7::", "::2:3:4:5:6:7:8", "1::8",
        "1:2:3:4:5:6:1.2.3.4", "::1.2.3.4", "fe80::abcd:ef01", "0:0:0:0:0:0:0:0", "1:2:3:4:5::1.2.3.4",
    ])
    func validIPv6(_ address: String) throws {
        let uri = try URI(parsing: "http://[\(address)]/")
        #expect(uri.host?.kind == .ipv6Address)
    }

    @Test(arguments: [
        "", ":", ":1", "1:", "1:::2", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::",
        "g::", "1:2:3:4:5:6:7:1.2.3.4", "::1.2.3", "::1.2.3.256", "::01.2.3.4", "1.2.3.4", "::1.2.3.4:1",
        "1:2:3:4:5:6:7:8::",
    ])
    func invalidIPv6(_ address: String) {
        #expect(throws: URIError.self) { try URI(parsing: "http://[\(address)]/") }
        do {
            _ = try URI(parsing: "http://[\(address)]/")
        } catch {
            #expect(error.code == .invalidIPv6Address)
        }
    }

    @Test func httpHelpers() throws {
        let plain = try URI(parsing: "http://user:pw@example.com:80?x#y")
        #expect(plain.requestTarget == "/?x")
        #expect(plain.hostFieldValue == "example.com")
        #expect(plain.effectivePort == 80)
        let tls = try URI(parsing: "https://example.com:8443/a/b")
        #expect(tls.requestTarget == "/a/b")
        #expect(tls.hostFieldValue == "example.com:8443")
        #expect(tls.effectivePort == 8443)
        let defaulted = try URI(parsing: "https://[::1]/")
        #expect(defaulted.effectivePort == 443)
        #expect(defaulted.hostFieldValue == "[::1]")
        let v6port = try URI(parsing: "http://[::1]:8080")
        #expect(v6port.hostFieldValue == "[::1]:8080")
        #expect(v6port.requestTarget == "/")
        let other = try URI(parsing: "ftp://h/")
        #expect(other.effectivePort == nil)
        #expect(throws: URIError(.unsupportedScheme, offset: 0)) { try other.validateForHTTP() }
        #expect(throws: URIError(.missingHost, offset: 0)) { try URI(parsing: "http:g").validateForHTTP() }
        try tls.validateForHTTP()
        #expect(URI.defaultPort(forScheme: "http") == 80)
        #expect(URI.defaultPort(forScheme: "https") == 443)
        let emptyPort = try URI(parsing: "http://a:/")
        #expect(emptyPort.port == nil)
        #expect(emptyPort.description == "http://a/")
        #expect(try URI(parsing: "http://a:0080/").port == 80)
    }

    @Test func editing() throws {
        let uri = try URI(parsing: "http://a/p?old#f")
        #expect(try uri.replacingQuery("a=1&b=%20").description == "http://a/p?a=1&b=%20#f")
        #expect(try uri.replacingQuery(nil).description == "http://a/p#f")
        #expect(throws: URIError(.invalidCharacter, offset: 1)) { try uri.replacingQuery("a b") }
        #expect(throws: URIError(.malformedPercentEncoding, offset: 0)) { try uri.replacingQuery("%zz") }
        #expect(uri.removingFragment.description == "http://a/p?old")
    }

    @Test func componentInitialiser() throws {
        let uri = try URI(scheme: "HTTP", host: "Example.com", port: 8080, path: "/a", query: "b=c")
        #expect(uri.description == "http://example.com:8080/a?b=c")
        let v6 = try URI(scheme: "http", host: "::1", path: "/")
        #expect(v6.description == "http://[::1]/")
        #expect(throws: URIError(.inconsistentComponents, offset: 0)) { try URI(scheme: "http", host: "a", path: "relative") }
        #expect(throws: URIError(.inconsistentComponents, offset: 0)) { try URI(userinfo: "u", path: "/x") }
        #expect(throws: URIError(.inconsistentComponents, offset: 0)) { try URI(path: "/p?q") }
        #expect(throws: URIError.self) { try URI(scheme: "http", host: "a b") }
    }

    /// Hostile and malformed inputs: each rejected with a stable code and the offset of the fault.
    @Test(arguments: [
        ("http://a b/", URIError.Code.invalidCharacter, 8),
        ("http://a/b c", .invalidCharacter, 10),
        ("http://a/\u{7F}", .invalidCharacter, 9),
        ("http://a/\0", .invalidCharacter, 9),
        ("http://a/\r\nHost: evil", .invalidCharacter, 9),
        ("http://a/é", .invalidCharacter, 9),
        ("http://a/%", .malformedPercentEncoding, 9),
        ("http://a/%4", .malformedPercentEncoding, 9),
        ("http://a/%4g", .malformedPercentEncoding, 9),
        ("http://a/?%%41", .malformedPercentEncoding, 10),
        ("http://a/#%G0", .malformedPercentEncoding, 10),
        ("http://a:65536/", .invalidPort, 9),
        ("http://a:99999999999999999999/", .invalidPort, 9),
        ("http://a:8x/", .invalidPort, 10),
        ("http://a:-1/", .invalidPort, 9),
        ("http://[::1]x/", .invalidCharacter, 12),
        ("http:///path", .missingHost, 7),
        ("https://:443/", .missingHost, 8),
        ("http://user@/", .missingHost, 12),
        ("http://127.1/", .invalidIPv4Address, 7),
        ("http://010.0.0.1/", .invalidIPv4Address, 7),
        ("http://1.2.3.256/", .invalidIPv4Address, 7),
        ("http://2130706433/", .invalidIPv4Address, 7),
        // RFC 3986 §7.4: glibc's getaddrinfo reads these the inet_aton way (0x7f.1 is 127.0.0.1),
        // so a host whose last label is a number (decimal or 0x-hex) must be a dotted quad.
        ("http://0x7f.1/", .invalidIPv4Address, 7),
        ("http://0x7f000001/", .invalidIPv4Address, 7),
        ("http://0X7F.0.0.1/", .invalidIPv4Address, 7),
        ("http://1.2.3.0x4/", .invalidIPv4Address, 7),
        ("http://0x/", .invalidIPv4Address, 7),
        ("http://u@example.0x1:80/", .invalidIPv4Address, 9),
        ("http://example.123./", .invalidIPv4Address, 7),
        ("http://[v1.x]/", .unsupportedIPvFuture, 8),
        ("http://[fe80::1%25eth0]/", .unsupportedIPv6Zone, 15),
        ("http://[::1/", .invalidIPv6Address, 7),
        ("http://a@b@c/", .invalidCharacter, 10),
        ("http://a\\b/", .invalidCharacter, 8),
        ("http://a/<script>", .invalidCharacter, 9),
        ("http://a/\"", .invalidCharacter, 9),
        ("http://a/{x}", .invalidCharacter, 9),
        ("http://a/|", .invalidCharacter, 9),
        ("http://a/^", .invalidCharacter, 9),
        ("http://a/`", .invalidCharacter, 9),
        ("http://a/[", .invalidCharacter, 9),
        ("http://ex[ample/", .invalidCharacter, 9),
        ("1http://a/", .invalidScheme, 0),
        ("ht_tp://a/", .invalidScheme, 2),
        ("a:b:c/d", .invalidCharacter, 100),
        (":foo", .invalidScheme, 0),
        (" http://a/", .invalidCharacter, 0),
        ("http://a/ ", .invalidCharacter, 9),
    ] as [(String, URIError.Code, Int)])
    func rejects(_ input: String, _ code: URIError.Code, _ offset: Int) {
        if input == "a:b:c/d" {
            // Not an error: "a" is the scheme and "b:c/d" a rootless path (RFC 3986 §3.3).
            #expect((try? URI(parsing: input))?.path == "b:c/d")
            return
        }
        #expect(throws: URIError(code, offset: offset)) { try URI(parsing: input) }
    }

    @Test func lengthLimit() throws {
        let limits = URI.Limits(maximumLength: 16)
        _ = try URI(parsing: "http://a/1234567", limits: limits)
        #expect(throws: URIError(.tooLong, offset: 16)) { try URI(parsing: "http://a/12345678", limits: limits) }
        #expect(URI.Limits().maximumLength == 8_000_000)
    }

    @Test func parsesFromBytes() throws {
        let bytes = Array("http://a/b?c".utf8)
        #expect(try URI(parsing: bytes).description == "http://a/b?c")
        let path = try bytes.withUnsafeBytes { raw throws(URIError) in try URI(parsing: raw).path }
        #expect(path == "/b")
        #expect(throws: URIError(.invalidCharacter, offset: 9)) { try URI(parsing: Array("http://a/".utf8) + [0xFF]) }
    }

    /// Every prefix of a valid input either parses or throws a typed error — never crashes —
    /// and whatever parses is stable under serialise → parse.
    @Test(arguments: [
        "https://user:pw@[2001:db8::7]:8443/a/./b/../c;p=1?q=%20&r#f%2F",
        "http://192.0.2.1:80/%E2%82%AC?x=y#z",
        "mailto:a@b.c?subject=hi",
        "//host:1/p?q#f",
        "../../a:b/c",
        "foo+bar://h.example/p",
    ])
    func everyTruncation(_ input: String) throws {
        let bytes = Array(input.utf8)
        for end in 0...bytes.count {
            let prefix = Array(bytes[0..<end])
            do {
                let uri = try URI(parsing: prefix)
                let again = try URI(parsing: uri.description)
                #expect(again == uri, "prefix \(end) of \(input)")
                #expect(again.description == uri.description)
            } catch {
                #expect(error.offset <= end, "offset out of range for prefix \(end) of \(input)")
            }
        }
        // The whole input parses; with trailing garbage it is rejected at the garbage.
        _ = try URI(parsing: input)
        #expect(throws: URIError(.invalidCharacter, offset: bytes.count)) { try URI(parsing: input + " trailing") }
    }

    /// A small deterministic fuzz: random byte strings over a URI-ish alphabet never crash, and
    /// whatever parses round-trips.
    @Test func randomInputsRoundTrip() {
        let alphabet = Array("ab:/?#[]@!$&'()*+,;=%0F1.-_~ \u{7F}v".utf8) + [0xC3, 0xA9]
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var parsed = 0
        for _ in 0..<4000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var bytes: [UInt8] = []
            var s = state
            for _ in 0..<Int(state >> 60) + 2 {
                s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                bytes.append(alphabet[Int(s >> 33) % alphabet.count])
            }
            if let uri = try? URI(parsing: bytes) {
                parsed += 1
                #expect((try? URI(parsing: uri.description)) == uri, "\(bytes)")
            }
        }
        #expect(parsed > 100)
    }
}
