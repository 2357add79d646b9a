// NO_PROXY matching and the proxy environment variables, as curl 7.88 decides them. The tables are
// curl's own unit vectors (tests/unit/unit1614.c: Curl_cidr4_match, Curl_cidr6_match and
// Curl_check_noproxy), rewritten here, plus the cases the issue names (label boundaries, the
// lone `*`, httpoxy).

import CourierURL
import Testing

@Suite struct NoProxyTests {
    /// unit1614's `list4`: address, network, prefix bits, match.
    static let cidr4: [(String, String, Int, Bool)] = [
        ("192.160.0.1", "192.160.0.1", 33, false),
        ("192.160.0.1", "192.160.0.1", 32, true),
        ("192.160.0.1", "192.160.0.1", 0, true),
        ("192.160.0.1", "192.160.0.1", 24, true),
        ("192.160.0.1", "192.160.0.1", 26, true),
        ("192.160.0.1", "192.160.0.1", 20, true),
        ("192.160.0.1", "192.160.0.1", 18, true),
        ("192.160.0.1", "192.160.0.1", 12, true),
        ("192.160.0.1", "192.160.0.1", 8, true),
        ("192.160.0.1", "10.0.0.1", 8, false),
        ("192.160.0.1", "10.0.0.1", 32, false),
        ("192.160.0.1", "10.0.0.1", 0, false),
    ]

    /// unit1614's `list6`.
    static let cidr6: [(String, String, Int, Bool)] = [
        ("::1", "::1", 0, true),
        ("::1", "::1", 128, true),
        ("::1", "0:0::1", 128, true),
        ("::1", "0:0::1", 129, false),
        ("fe80::ab47:4396:55c9:8474", "fe80::ab47:4396:55c9:8474", 64, true),
    ]

    /// unit1614's `list` (curl 7.88's version, where blanks still separate entries), then ours.
    static let lists: [(host: String, list: String, match: Bool)] = [
        ("www.example.com", "localhost .example.com .example.de", true),
        ("www.example.com", "localhost,.example.com,.example.de", true),
        ("www.example.com.", "localhost,.example.com,.example.de", true),
        ("example.com", "localhost,.example.com,.example.de", true),
        ("example.com.", "localhost,.example.com,.example.de", true),
        ("www.example.com", "localhost,.example.com.,.example.de", true),
        ("www.example.com", "localhost,www.example.com.,.example.de", true),
        ("example.com", "localhost,example.com,.example.de", true),
        ("example.com.", "localhost,example.com,.example.de", true),
        ("nexample.com", "localhost,example.com,.example.de", false),
        ("www.example.com", "localhost,example.com,.example.de", true),
        ("127.0.0.1", "127.0.0.1,localhost", true),
        ("127.0.0.1", "127.0.0.1,localhost,", true),
        ("127.0.0.1", "127.0.0.1/8,localhost,", true),
        ("127.0.0.1", "127.0.0.1/28,localhost,", true),
        ("127.0.0.1", "127.0.0.1/31,localhost,", true),
        ("127.0.0.1", "localhost,127.0.0.1", true),
        ("127.0.0.1", "localhost,127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.", false),
        ("127.0.0.1", "localhost,127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0.1.127.0.0", false),
        ("localhost", "localhost,127.0.0.1", true),
        ("localhost", "127.0.0.1,localhost", true),
        ("foobar", "barfoo", false),
        ("foobar", "foobar", true),
        ("192.168.0.1", "foobar", false),
        ("192.168.0.1", "192.168.0.0/16", true),
        ("192.168.0.1", "192.168.0.0/24", true),
        ("192.168.0.1", "192.168.0.0/32", false),
        ("192.168.0.1", "192.168.0.0", false),
        ("192.168.1.1", "192.168.0.0/24", false),
        ("192.168.1.1", "192.168.0.0/33", false),
        ("192.168.1.1", "foo, bar, 192.168.0.0/24", false),
        ("192.168.1.1", "foo, bar, 192.168.0.0/16", true),
        ("[::1]", "foo, bar, 192.168.0.0/16", false),
        ("[::1]", "foo, bar, ::1/64", true),
        ("[::1]", "::1/64", true),
        ("[::1]", "::1/96", true),
        ("[::1]", "::1/129", false),
        ("bar", "foo, bar, ::1/64", true),
        ("BAr", "foo, bar, ::1/64", true),
        ("BAr", "foo,,,,,              bar, ::1/64", true),
        ("www.example.com", "foo, .example.com", true),
        ("www.example.com", "www2.example.com, .example.net", false),
        ("example.com", ".example.com, .example.net", true),
        ("nonexample.com", ".example.com, .example.net", false),
        // The rules, and what curl 7.88 does with them (checked with `curl --noproxy`).
        ("example.com", "ample.com", false),
        ("www.EXAMPLE.com", "Example.COM", true),
        ("anything.example", "*", true),
        ("127.0.0.1", "*", true),
        ("anything.example", "foo, *", false),
        ("anything.example", "", false),
        ("::1", "::1", true),
        ("[::1]", "[::1]", false),
        ("fe80::1", "fe80::/10", true),
        ("fec0::1", "fe80::/10", false),
        ("10.1.2.3", "10.0.0.0/8", true),
        ("10.1.2.3", "10.0.0.0/8x", false),
        ("localhost", "127.0.0.1", false),
        ("127.0.0.1", "localhost", false),
        ("a.b.c", "\tb.c", true),
        ("::ffff:10.1.2.3", "::ffff:10.0.0.0/104", true),
    ]

    @Test func curlCIDRVectors() {
        for (address, network, bits, expected) in Self.cidr4 {
            let a = IPAddressBytes.parseIPv4(Array(address.utf8))!, n = IPAddressBytes.parseIPv4(Array(network.utf8))!
            let got = bits == 0 ? a == n : NoProxyList.prefixMatchesForTesting(a, n, bits: bits)
            #expect(got == expected, "\(address) in \(network)/\(bits)")
            // And through a list, as a NO_PROXY entry.
            #expect(NoProxyList("\(network)/\(bits)").matches(host: address) == expected, "\(address) in \(network)/\(bits) as a list")
        }
        for (address, network, bits, expected) in Self.cidr6 {
            #expect(NoProxyList("\(network)/\(bits)").matches(host: address) == expected, "\(address) in \(network)/\(bits)")
        }
    }

    @Test func curlNoProxyVectors() {
        for (host, list, expected) in Self.lists {
            #expect(NoProxyList(list).matches(host: host) == expected, "\(host) in \"\(list)\"")
        }
    }

    @Test func addressLiteralsAsInetPton() {
        #expect(IPAddressBytes.parseIPv4(Array("1.2.3.4".utf8)) == [1, 2, 3, 4])
        for bad in ["1.2.3", "1.2.3.4.5", "01.2.3.4", "256.1.1.1", "1..2.3", "1.2.3.4.", "", "a.b.c.d"] {
            #expect(IPAddressBytes.parseIPv4(Array(bad.utf8)) == nil, "\(bad)")
        }
        #expect(IPAddressBytes.parseIPv6(Array("::".utf8)) == [UInt8](repeating: 0, count: 16))
        #expect(IPAddressBytes.parseIPv6(Array("::1".utf8)) == [UInt8](repeating: 0, count: 15) + [1])
        #expect(IPAddressBytes.parseIPv6(Array("1::".utf8)) == [0, 1] + [UInt8](repeating: 0, count: 14))
        #expect(IPAddressBytes.parseIPv6(Array("1:2:3:4:5:6:7:8".utf8)) == [0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
        #expect(IPAddressBytes.parseIPv6(Array("::ffff:1.2.3.4".utf8)) == [UInt8](repeating: 0, count: 10) + [0xFF, 0xFF, 1, 2, 3, 4])
        for bad in [":1", "1:", "1:::2", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "g::1", "1:2:3:4:5:6:7::8:9", ":"] {
            #expect(IPAddressBytes.parseIPv6(Array(bad.utf8)) == nil, "\(bad)")
        }
    }

    @Test func environmentAsCurlReadsIt() {
        func lookup(_ table: [String: String]) -> (String) -> String? { { table[$0] } }
        // http_proxy is lower case only (httpoxy): HTTP_PROXY is never read.
        #expect(ProxyEnvironment.proxy(forScheme: "http", lookup: lookup(["HTTP_PROXY": "evil:1"])) == nil)
        #expect(ProxyEnvironment.proxy(forScheme: "http", lookup: lookup(["http_proxy": "p:1"]))?.name == "http_proxy")
        // https: lower case first, then upper case, then all_proxy, ALL_PROXY.
        #expect(ProxyEnvironment.proxy(forScheme: "https", lookup: lookup(["HTTPS_PROXY": "u:1", "https_proxy": "l:1"]))?.value == "l:1")
        #expect(ProxyEnvironment.proxy(forScheme: "https", lookup: lookup(["HTTPS_PROXY": "u:1", "all_proxy": "a:1"]))?.value == "u:1")
        #expect(ProxyEnvironment.proxy(forScheme: "https", lookup: lookup(["ALL_PROXY": "A:1", "all_proxy": "a:1"]))?.value == "a:1")
        #expect(ProxyEnvironment.proxy(forScheme: "http", lookup: lookup(["ALL_PROXY": "A:1"]))?.name == "ALL_PROXY")
        // An empty variable counts as unset (curl_getenv), so the next one is read.
        #expect(ProxyEnvironment.proxy(forScheme: "http", lookup: lookup(["http_proxy": "", "ALL_PROXY": "A:1"]))?.value == "A:1")
        #expect(ProxyEnvironment.noProxy(lookup: lookup(["NO_PROXY": "b", "no_proxy": "a"])) == "a")
        #expect(ProxyEnvironment.noProxy(lookup: lookup(["NO_PROXY": "b"])) == "b")
        #expect(ProxyEnvironment.noProxy(lookup: lookup(["no_proxy": ""])) == nil)
    }
}
