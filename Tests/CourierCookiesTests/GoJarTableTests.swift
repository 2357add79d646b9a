// Go's net/http/cookiejar tables (src/net/http/cookiejar/jar_test.go): basics, update and delete,
// expiration, the Chromium-derived basics, domain and deletion tables, and the domain-handling
// table, rewritten as Swift rows run on CookieStore with an injected clock. Rows whose expectation
// differs from Go's carry a `deviation` saying which rule of Courier's (layered-cookies, curl) makes
// the difference; docs/cookies.md lists the same differences.

import CourierCookies
import Testing

// MARK: Basics (each row on a fresh store)

let goBasicsTests: [JarTest] = [
    JarTest(description: "Retrieval of a plain host cookie.", fromURL: "http://www.host.test/", setCookies: ["A=a"], content: "A=a",
            queries: [
                JarQuery("http://www.host.test", "A=a"), JarQuery("http://www.host.test/", "A=a"),
                JarQuery("http://www.host.test/some/path", "A=a"), JarQuery("https://www.host.test", "A=a"),
                JarQuery("https://www.host.test/", "A=a"), JarQuery("https://www.host.test/some/path", "A=a"),
                JarQuery("ftp://www.host.test", ""), JarQuery("ftp://www.host.test/", ""), JarQuery("ftp://www.host.test/some/path", ""),
                JarQuery("http://www.other.org", ""), JarQuery("http://sibling.host.test", ""), JarQuery("http://deep.www.host.test", ""),
            ]),
    JarTest(description: "Secure cookies are not returned to http.", fromURL: "https://www.host.test/", setCookies: ["A=a; secure"],
            content: "A=a",
            queries: [
                JarQuery("http://www.host.test", ""), JarQuery("http://www.host.test/", ""), JarQuery("http://www.host.test/some/path", ""),
                JarQuery("https://www.host.test", "A=a"), JarQuery("https://www.host.test/", "A=a"),
                JarQuery("https://www.host.test/some/path", "A=a"),
            ],
            deviation: "set from https: a Secure cookie from http is refused (layered-cookies, curl)"),
    JarTest(description: "Secure cookies are not set from http.", fromURL: "http://www.host.test/", setCookies: ["A=a; secure"],
            content: "", queries: [JarQuery("https://www.host.test", "")],
            deviation: "Courier's own row: the Go row above, set from http"),
    JarTest(description: "Explicit path.", fromURL: "http://www.host.test/", setCookies: ["A=a; path=/some/path"], content: "A=a",
            queries: [
                JarQuery("http://www.host.test", ""), JarQuery("http://www.host.test/", ""), JarQuery("http://www.host.test/some", ""),
                JarQuery("http://www.host.test/some/", ""), JarQuery("http://www.host.test/some/path", "A=a"),
                JarQuery("http://www.host.test/some/paths", ""), JarQuery("http://www.host.test/some/path/foo", "A=a"),
                JarQuery("http://www.host.test/some/path/foo/", "A=a"),
            ]),
    JarTest(description: "Implicit path #1: path is a directory.", fromURL: "http://www.host.test/some/path/", setCookies: ["A=a"],
            content: "A=a",
            queries: [
                JarQuery("http://www.host.test", ""), JarQuery("http://www.host.test/", ""), JarQuery("http://www.host.test/some", ""),
                JarQuery("http://www.host.test/some/", ""), JarQuery("http://www.host.test/some/path", "A=a"),
                JarQuery("http://www.host.test/some/paths", ""), JarQuery("http://www.host.test/some/path/foo", "A=a"),
                JarQuery("http://www.host.test/some/path/foo/", "A=a"),
            ]),
    JarTest(description: "Implicit path #2: path is not a directory.", fromURL: "http://www.host.test/some/path/index.html",
            setCookies: ["A=a"], content: "A=a",
            queries: [
                JarQuery("http://www.host.test", ""), JarQuery("http://www.host.test/", ""), JarQuery("http://www.host.test/some", ""),
                JarQuery("http://www.host.test/some/", ""), JarQuery("http://www.host.test/some/path", "A=a"),
                JarQuery("http://www.host.test/some/paths", ""), JarQuery("http://www.host.test/some/path/foo", "A=a"),
                JarQuery("http://www.host.test/some/path/foo/", "A=a"),
            ]),
    JarTest(description: "Implicit path #3: no path in URL at all.", fromURL: "http://www.host.test", setCookies: ["A=a"], content: "A=a",
            queries: [
                JarQuery("http://www.host.test", "A=a"), JarQuery("http://www.host.test/", "A=a"),
                JarQuery("http://www.host.test/some/path", "A=a"),
            ]),
    JarTest(description: "Cookies are sorted by path length.", fromURL: "http://www.host.test/",
            setCookies: ["A=a; path=/foo/bar", "B=b; path=/foo/bar/baz/qux", "C=c; path=/foo/bar/baz", "D=d; path=/foo"],
            content: "A=a B=b C=c D=d",
            queries: [
                JarQuery("http://www.host.test/foo/bar/baz/qux", "B=b C=c A=a D=d"),
                JarQuery("http://www.host.test/foo/bar/baz/", "C=c A=a D=d"), JarQuery("http://www.host.test/foo/bar", "A=a D=d"),
            ]),
    JarTest(description: "Creation time determines sorting on same length paths.", fromURL: "http://www.host.test/",
            setCookies: ["A=a; path=/foo/bar", "X=x; path=/foo/bar", "Y=y; path=/foo/bar/baz/qux", "B=b; path=/foo/bar/baz/qux",
                         "C=c; path=/foo/bar/baz", "W=w; path=/foo/bar/baz", "Z=z; path=/foo", "D=d; path=/foo"],
            content: "A=a B=b C=c D=d W=w X=x Y=y Z=z",
            queries: [
                JarQuery("http://www.host.test/foo/bar/baz/qux", "Y=y B=b C=c W=w A=a X=x Z=z D=d"),
                JarQuery("http://www.host.test/foo/bar/baz/", "C=c W=w A=a X=x Z=z D=d"),
                JarQuery("http://www.host.test/foo/bar", "A=a X=x Z=z D=d"),
            ]),
    JarTest(description: "Sorting of same-name cookies.", fromURL: "http://www.host.test/",
            setCookies: ["A=1; path=/", "A=2; path=/path", "A=3; path=/quux", "A=4; path=/path/foo", "A=5; domain=.host.test; path=/path",
                         "A=6; domain=.host.test; path=/quux", "A=7; domain=.host.test; path=/path/foo"],
            content: "A=1 A=2 A=3 A=4 A=5 A=6 A=7",
            queries: [
                JarQuery("http://www.host.test/path", "A=2 A=5 A=1"), JarQuery("http://www.host.test/path/foo", "A=4 A=7 A=2 A=5 A=1"),
            ]),
    JarTest(description: "Disallow domain cookie on public suffix.", fromURL: "http://www.bbc.co.uk",
            setCookies: ["a=1", "b=2; domain=co.uk"], content: "a=1", queries: [JarQuery("http://www.bbc.co.uk", "a=1")]),
    JarTest(description: "Host cookie on IP.", fromURL: "http://192.168.0.10", setCookies: ["a=1"], content: "a=1",
            queries: [JarQuery("http://192.168.0.10", "a=1")]),
    JarTest(description: "Port is ignored #1.", fromURL: "http://www.host.test/", setCookies: ["a=1"], content: "a=1",
            queries: [JarQuery("http://www.host.test", "a=1"), JarQuery("http://www.host.test:8080/", "a=1")]),
    JarTest(description: "Port is ignored #2.", fromURL: "http://www.host.test:8080/", setCookies: ["a=1"], content: "a=1",
            queries: [
                JarQuery("http://www.host.test", "a=1"), JarQuery("http://www.host.test:8080/", "a=1"),
                JarQuery("http://www.host.test:1234/", "a=1"),
            ]),
]

// MARK: Update and delete (all rows on one store, in order)

let goUpdateAndDeleteTests: [JarTest] = [
    JarTest(description: "Set initial cookies.", fromURL: "https://www.host.test",
            setCookies: ["a=1", "b=2; secure", "c=3; httponly", "d=4; secure; httponly"], content: "a=1 b=2 c=3 d=4",
            queries: [JarQuery("http://www.host.test", "a=1 c=3"), JarQuery("https://www.host.test", "a=1 b=2 c=3 d=4")],
            deviation: "set from https: Secure cookies from http are refused"),
    JarTest(description: "Update value via http.", fromURL: "http://www.host.test",
            setCookies: ["a=w", "b=x; secure", "c=y; httponly", "d=z; secure; httponly"], content: "a=w b=2 c=y d=4",
            queries: [JarQuery("http://www.host.test", "a=w c=y"), JarQuery("https://www.host.test", "a=w b=2 c=y d=4")],
            deviation: "Go: a=w b=x c=y d=z — http cannot set the Secure b and d (layered-cookies, curl)"),
    JarTest(description: "Clear Secure flag from a http.", fromURL: "http://www.host.test/", setCookies: ["b=xx", "d=zz; httponly"],
            content: "a=w b=2 c=y d=4", queries: [JarQuery("http://www.host.test", "a=w c=y")],
            deviation: "Go: a=w b=xx c=y d=zz — http cannot overlay a Secure cookie (layered-cookies, curl)"),
    JarTest(description: "Delete all.", fromURL: "http://www.host.test/",
            setCookies: ["a=1; max-Age=-1", "b=2; " + expiresIn(-10), "c=2; max-age=-1; " + expiresIn(-10), "d=4; max-age=-1; " + expiresIn(10)],
            content: "b=2 d=4", queries: [JarQuery("http://www.host.test", "")],
            deviation: "Go: \"\" — the Secure b and d cannot be deleted from http either"),
    JarTest(description: "Delete the Secure cookies from https.", fromURL: "https://www.host.test/",
            setCookies: ["b=2; max-age=-1", "d=4; " + expiresIn(-10)], content: "", queries: [JarQuery("https://www.host.test", "")],
            deviation: "Courier's own row: what the previous row cannot do, from https"),
    JarTest(description: "Refill #1.", fromURL: "http://www.host.test",
            setCookies: ["A=1", "A=2; path=/foo", "A=3; domain=.host.test", "A=4; path=/foo; domain=.host.test"], content: "A=1 A=2 A=3 A=4",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=4 A=1 A=3")]),
    JarTest(description: "Refill #2.", fromURL: "http://www.google.com",
            setCookies: ["A=6", "A=7; path=/foo", "A=8; domain=.google.com", "A=9; path=/foo; domain=.google.com"],
            content: "A=1 A=2 A=3 A=4 A=6 A=7 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=4 A=1 A=3"), JarQuery("http://www.google.com/foo", "A=7 A=9 A=6 A=8")]),
    JarTest(description: "Delete A7.", fromURL: "http://www.google.com", setCookies: ["A=; path=/foo; max-age=-1"],
            content: "A=1 A=2 A=3 A=4 A=6 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=4 A=1 A=3"), JarQuery("http://www.google.com/foo", "A=9 A=6 A=8")]),
    JarTest(description: "Delete A4.", fromURL: "http://www.host.test", setCookies: ["A=; path=/foo; domain=host.test; max-age=-1"],
            content: "A=1 A=2 A=3 A=6 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=1 A=3"), JarQuery("http://www.google.com/foo", "A=9 A=6 A=8")]),
    JarTest(description: "Delete A6.", fromURL: "http://www.google.com", setCookies: ["A=; max-age=-1"], content: "A=1 A=2 A=3 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=1 A=3"), JarQuery("http://www.google.com/foo", "A=9 A=8")]),
    JarTest(description: "Delete A3.", fromURL: "http://www.host.test", setCookies: ["A=; domain=host.test; max-age=-1"],
            content: "A=1 A=2 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=1"), JarQuery("http://www.google.com/foo", "A=9 A=8")]),
    JarTest(description: "No cross-domain delete.", fromURL: "http://www.host.test",
            setCookies: ["A=; domain=google.com; max-age=-1", "A=; path=/foo; domain=google.com; max-age=-1"], content: "A=1 A=2 A=8 A=9",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=1"), JarQuery("http://www.google.com/foo", "A=9 A=8")]),
    JarTest(description: "Delete A8 and A9.", fromURL: "http://www.google.com",
            setCookies: ["A=; domain=google.com; max-age=-1", "A=; path=/foo; domain=google.com; max-age=-1"], content: "A=1 A=2",
            queries: [JarQuery("http://www.host.test/foo", "A=2 A=1"), JarQuery("http://www.google.com/foo", "")]),
]

// MARK: Expiration

let goExpirationTest = JarTest(
    description: "Expiration.", fromURL: "http://www.host.test",
    setCookies: ["a=1", "b=2; max-age=3", "c=3; " + expiresIn(3), "d=4; max-age=5", "e=5; " + expiresIn(5), "f=6; max-age=100"],
    content: "a=1 b=2 c=3 d=4 e=5 f=6",
    queries: [
        JarQuery("http://www.host.test", "a=1 b=2 c=3 d=4 e=5 f=6"), JarQuery("http://www.host.test", "a=1 d=4 e=5 f=6"),
        JarQuery("http://www.host.test", "a=1 d=4 e=5 f=6"), JarQuery("http://www.host.test", "a=1 f=6"),
        JarQuery("http://www.host.test", "a=1 f=6"),
    ])

// MARK: Chromium basics (each row on a fresh store)

let goChromiumBasicsTests: [JarTest] = [
    JarTest(description: "DomainWithTrailingDotTest.", fromURL: "http://www.google.com/",
            setCookies: ["a=1; domain=.www.google.com.", "b=2; domain=.www.google.com.."], content: "",
            queries: [JarQuery("http://www.google.com", "")]),
    JarTest(description: "ValidSubdomainTest #1.", fromURL: "http://a.b.c.d.com",
            setCookies: ["a=1; domain=.a.b.c.d.com", "b=2; domain=.b.c.d.com", "c=3; domain=.c.d.com", "d=4; domain=.d.com"],
            content: "a=1 b=2 c=3 d=4",
            queries: [
                JarQuery("http://a.b.c.d.com", "a=1 b=2 c=3 d=4"), JarQuery("http://b.c.d.com", "b=2 c=3 d=4"),
                JarQuery("http://c.d.com", "c=3 d=4"), JarQuery("http://d.com", "d=4"),
            ]),
    JarTest(description: "ValidSubdomainTest #2.", fromURL: "http://a.b.c.d.com",
            setCookies: ["a=1; domain=.a.b.c.d.com", "b=2; domain=.b.c.d.com", "c=3; domain=.c.d.com", "d=4; domain=.d.com",
                         "X=bcd; domain=.b.c.d.com", "X=cd; domain=.c.d.com"],
            content: "X=bcd X=cd a=1 b=2 c=3 d=4",
            queries: [JarQuery("http://b.c.d.com", "b=2 c=3 d=4 X=bcd X=cd"), JarQuery("http://c.d.com", "c=3 d=4 X=cd")]),
    JarTest(description: "InvalidDomainTest #1.", fromURL: "http://foo.bar.com",
            setCookies: ["a=1; domain=.yo.foo.bar.com", "b=2; domain=.foo.com", "c=3; domain=.bar.foo.com", "d=4; domain=.foo.bar.com.net",
                         "e=5; domain=ar.com", "f=6; domain=.", "g=7; domain=/", "h=8; domain=http://foo.bar.com", "i=9; domain=..foo.bar.com",
                         "j=10; domain=..bar.com", "k=11; domain=.foo.bar.com?blah", "l=12; domain=.foo.bar.com/blah",
                         "m=12; domain=.foo.bar.com:80", "n=14; domain=.foo.bar.com:", "o=15; domain=.foo.bar.com#sup"],
            content: "", queries: [JarQuery("http://foo.bar.com", "")]),
    JarTest(description: "InvalidDomainTest #2.", fromURL: "http://foo.com.com", setCookies: ["a=1; domain=.foo.com.com.com"], content: "",
            queries: [JarQuery("http://foo.bar.com", "")]),
    JarTest(description: "DomainWithoutLeadingDotTest #1.", fromURL: "http://manage.hosted.filefront.com",
            setCookies: ["a=1; domain=filefront.com"], content: "a=1", queries: [JarQuery("http://www.filefront.com", "a=1")]),
    JarTest(description: "DomainWithoutLeadingDotTest #2.", fromURL: "http://www.google.com", setCookies: ["a=1; domain=www.google.com"],
            content: "a=1",
            queries: [
                JarQuery("http://www.google.com", "a=1"), JarQuery("http://sub.www.google.com", "a=1"),
                JarQuery("http://something-else.com", ""),
            ]),
    JarTest(description: "CaseInsensitiveDomainTest.", fromURL: "http://www.google.com",
            setCookies: ["a=1; domain=.GOOGLE.COM", "b=2; domain=.www.gOOgLE.coM"], content: "a=1 b=2",
            queries: [JarQuery("http://www.google.com", "a=1 b=2")]),
    JarTest(description: "TestIpAddress #1.", fromURL: "http://1.2.3.4/foo", setCookies: ["a=1; path=/"], content: "a=1",
            queries: [JarQuery("http://1.2.3.4/foo", "a=1")]),
    JarTest(description: "TestIpAddress #2.", fromURL: "http://1.2.3.4/foo", setCookies: ["a=1; domain=.1.2.3.4", "b=2; domain=.3.4"],
            content: "a=1", queries: [JarQuery("http://1.2.3.4/foo", "a=1")],
            deviation: "Go: \"\" — a Domain equal to the IP address gives a host-only cookie (layered-cookies, curl)"),
    JarTest(description: "TestIpAddress #3.", fromURL: "http://1.2.3.4/foo", setCookies: ["a=1; domain=1.2.3.4"], content: "a=1",
            queries: [JarQuery("http://1.2.3.4/foo", "a=1")],
            deviation: "Go: \"\" — a Domain equal to the IP address gives a host-only cookie (layered-cookies, curl)"),
    JarTest(description: "TestNonDottedAndTLD #2.", fromURL: "http://com./index.html", setCookies: ["a=1"], content: "a=1",
            queries: [JarQuery("http://com./index.html", "a=1"), JarQuery("http://no-cookies.com./index.html", "")]),
    JarTest(description: "TestNonDottedAndTLD #3.", fromURL: "http://a.b", setCookies: ["a=1; domain=.b", "b=2; domain=b"], content: "",
            queries: [JarQuery("http://bar.foo", "")]),
    JarTest(description: "TestNonDottedAndTLD #4.", fromURL: "http://google.com", setCookies: ["a=1; domain=.com", "b=2; domain=com"],
            content: "", queries: [JarQuery("http://google.com", "")]),
    JarTest(description: "TestNonDottedAndTLD #5.", fromURL: "http://google.co.uk", setCookies: ["a=1; domain=.co.uk", "b=2; domain=.uk"],
            content: "",
            queries: [JarQuery("http://google.co.uk", ""), JarQuery("http://else.co.com", ""), JarQuery("http://else.uk", "")]),
    JarTest(description: "TestHostEndsWithDot.", fromURL: "http://www.google.com", setCookies: ["a=1", "b=2; domain=.www.google.com."],
            content: "a=1", queries: [JarQuery("http://www.google.com", "a=1")]),
    JarTest(description: "PathTest", fromURL: "http://www.google.izzle", setCookies: ["a=1; path=/wee"], content: "a=1",
            queries: [
                JarQuery("http://www.google.izzle/wee", "a=1"), JarQuery("http://www.google.izzle/wee/", "a=1"),
                JarQuery("http://www.google.izzle/wee/war", "a=1"), JarQuery("http://www.google.izzle/wee/war/more/more", "a=1"),
                JarQuery("http://www.google.izzle/weehee", ""), JarQuery("http://www.google.izzle/", ""),
            ]),
]

// MARK: Chromium domain (all rows on one store)

let goChromiumDomainTests: [JarTest] = [
    JarTest(description: "Fill #1.", fromURL: "http://www.google.izzle", setCookies: ["A=B"], content: "A=B",
            queries: [JarQuery("http://www.google.izzle", "A=B")]),
    JarTest(description: "Fill #2.", fromURL: "http://www.google.izzle", setCookies: ["C=D; domain=.google.izzle"], content: "A=B C=D",
            queries: [JarQuery("http://www.google.izzle", "A=B C=D")]),
    JarTest(description: "Verify A is a host cookie and not accessible from subdomain.", fromURL: "http://unused.nil", setCookies: [],
            content: "A=B C=D", queries: [JarQuery("http://foo.www.google.izzle", "C=D")]),
    JarTest(description: "Verify domain cookies are found on proper domain.", fromURL: "http://www.google.izzle",
            setCookies: ["E=F; domain=.www.google.izzle"], content: "A=B C=D E=F", queries: [JarQuery("http://www.google.izzle", "A=B C=D E=F")]),
    JarTest(description: "Leading dots in domain attributes are optional.", fromURL: "http://www.google.izzle",
            setCookies: ["G=H; domain=www.google.izzle"], content: "A=B C=D E=F G=H",
            queries: [JarQuery("http://www.google.izzle", "A=B C=D E=F G=H")]),
    JarTest(description: "Verify domain enforcement works #1.", fromURL: "http://www.google.izzle",
            setCookies: ["K=L; domain=.bar.www.google.izzle"], content: "A=B C=D E=F G=H",
            queries: [JarQuery("http://bar.www.google.izzle", "C=D E=F G=H")]),
    JarTest(description: "Verify domain enforcement works #2.", fromURL: "http://unused.nil", setCookies: [], content: "A=B C=D E=F G=H",
            queries: [JarQuery("http://www.google.izzle", "A=B C=D E=F G=H")]),
]

// MARK: Chromium deletion (all rows on one store)

let goChromiumDeletionTests: [JarTest] = [
    JarTest(description: "Create session cookie a1.", fromURL: "http://www.google.com", setCookies: ["a=1"], content: "a=1",
            queries: [JarQuery("http://www.google.com", "a=1")]),
    JarTest(description: "Delete sc a1 via MaxAge.", fromURL: "http://www.google.com", setCookies: ["a=1; max-age=-1"], content: "",
            queries: [JarQuery("http://www.google.com", "")]),
    JarTest(description: "Create session cookie b2.", fromURL: "http://www.google.com", setCookies: ["b=2"], content: "b=2",
            queries: [JarQuery("http://www.google.com", "b=2")]),
    JarTest(description: "Delete sc b2 via Expires.", fromURL: "http://www.google.com", setCookies: ["b=2; " + expiresIn(-10)], content: "",
            queries: [JarQuery("http://www.google.com", "")]),
    JarTest(description: "Create persistent cookie c3.", fromURL: "http://www.google.com", setCookies: ["c=3; max-age=3600"], content: "c=3",
            queries: [JarQuery("http://www.google.com", "c=3")]),
    JarTest(description: "Delete pc c3 via MaxAge.", fromURL: "http://www.google.com", setCookies: ["c=3; max-age=-1"], content: "",
            queries: [JarQuery("http://www.google.com", "")]),
    JarTest(description: "Create persistent cookie d4.", fromURL: "http://www.google.com", setCookies: ["d=4; max-age=3600"], content: "d=4",
            queries: [JarQuery("http://www.google.com", "d=4")]),
    JarTest(description: "Delete pc d4 via Expires.", fromURL: "http://www.google.com", setCookies: ["d=4; " + expiresIn(-10)], content: "",
            queries: [JarQuery("http://www.google.com", "")]),
]

// MARK: Domain handling (each row on a fresh store)

private let idnaQueries = ["http://www.bücher.test", "http://www.xn--bcher-kva.test", "http://bücher.test", "http://xn--bcher-kva.test",
                           "http://bar.bücher.test", "http://bar.xn--bcher-kva.test", "http://foo.www.bücher.test",
                           "http://foo.www.xn--bcher-kva.test", "http://other.test", "http://test"]

let goDomainHandlingTests: [JarTest] = [
    JarTest(description: "Host cookie", fromURL: "http://www.host.test", setCookies: ["a=1"], content: "a=1",
            queries: zip(["http://www.host.test", "http://host.test", "http://bar.host.test", "http://foo.www.host.test", "http://other.test",
                          "http://test"], ["a=1", "", "", "", "", ""]).map(JarQuery.init)),
    JarTest(description: "Domain cookie #1", fromURL: "http://www.host.test", setCookies: ["a=1; domain=host.test"], content: "a=1",
            queries: zip(["http://www.host.test", "http://host.test", "http://bar.host.test", "http://foo.www.host.test", "http://other.test",
                          "http://test"], ["a=1", "a=1", "a=1", "a=1", "", ""]).map(JarQuery.init)),
    JarTest(description: "Domain cookie #2", fromURL: "http://www.host.test", setCookies: ["a=1; domain=.host.test"], content: "a=1",
            queries: zip(["http://www.host.test", "http://host.test", "http://bar.host.test", "http://foo.www.host.test", "http://other.test",
                          "http://test"], ["a=1", "a=1", "a=1", "a=1", "", ""]).map(JarQuery.init)),
    JarTest(description: "Host cookie on IDNA domain #1", fromURL: "http://www.bücher.test", setCookies: ["a=1"], content: "a=1",
            queries: zip(idnaQueries, ["a=1", "a=1", "", "", "", "", "", "", "", ""]).map(JarQuery.init)),
    JarTest(description: "Host cookie on IDNA domain #2", fromURL: "http://www.xn--bcher-kva.test", setCookies: ["a=1"], content: "a=1",
            queries: zip(idnaQueries, ["a=1", "a=1", "", "", "", "", "", "", "", ""]).map(JarQuery.init)),
    JarTest(description: "Domain cookie on IDNA domain #1", fromURL: "http://www.bücher.test", setCookies: ["a=1; domain=xn--bcher-kva.test"],
            content: "a=1", queries: zip(idnaQueries, ["a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "", ""]).map(JarQuery.init)),
    JarTest(description: "Domain cookie on IDNA domain #2", fromURL: "http://www.xn--bcher-kva.test",
            setCookies: ["a=1; domain=xn--bcher-kva.test"], content: "a=1",
            queries: zip(idnaQueries, ["a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "a=1", "", ""]).map(JarQuery.init)),
    JarTest(description: "Host cookie on TLD.", fromURL: "http://com", setCookies: ["a=1"], content: "a=1",
            queries: [JarQuery("http://com", "a=1"), JarQuery("http://any.com", ""), JarQuery("http://any.test", "")]),
    JarTest(description: "Domain cookie on TLD becomes a host cookie.", fromURL: "http://com", setCookies: ["a=1; domain=com"], content: "a=1",
            queries: [JarQuery("http://com", "a=1"), JarQuery("http://any.com", ""), JarQuery("http://any.test", "")]),
    JarTest(description: "Host cookie on public suffix.", fromURL: "http://co.uk", setCookies: ["a=1"], content: "a=1",
            queries: zip(["http://co.uk", "http://uk", "http://some.co.uk", "http://foo.some.co.uk", "http://any.uk"],
                         ["a=1", "", "", "", ""]).map(JarQuery.init)),
    JarTest(description: "Domain cookie on public suffix is ignored.", fromURL: "http://some.co.uk", setCookies: ["a=1; domain=co.uk"],
            content: "",
            queries: zip(["http://co.uk", "http://uk", "http://some.co.uk", "http://foo.some.co.uk", "http://any.uk"],
                         ["", "", "", "", ""]).map(JarQuery.init)),
]

// MARK: Domain and type (host, Domain attribute → stored domain and host-only, or refusal)

/// Go's domainAndTypeTests: nil `domain` means the field is refused.
let goDomainAndTypeTests: [(host: String, attribute: String, domain: String?, hostOnly: Bool, deviation: String?)] = [
    ("www.example.com", "", "www.example.com", true, nil),
    ("127.0.0.1", "", "127.0.0.1", true, nil),
    ("2001:4860:0:2001::68", "", "2001:4860:0:2001::68", true, nil),
    ("www.example.com", "example.com", "example.com", false, nil),
    ("www.example.com", ".example.com", "example.com", false, nil),
    ("www.example.com", "www.example.com", "www.example.com", false, nil),
    ("www.example.com", ".www.example.com", "www.example.com", false, nil),
    ("foo.sso.example.com", "sso.example.com", "sso.example.com", false, nil),
    ("bar.co.uk", "bar.co.uk", "bar.co.uk", false, nil),
    ("foo.bar.co.uk", ".bar.co.uk", "bar.co.uk", false, nil),
    ("127.0.0.1", "127.0.0.1", "127.0.0.1", true, "Go refuses a Domain on an IP host; layered-cookies and curl make it host-only"),
    ("2001:4860:0:2001::68", "2001:4860:0:2001::68", "2001:4860:0:2001::68", true,
     "Go refuses a Domain on an IP host; layered-cookies and curl make it host-only"),
    ("www.example.com", ".", nil, false, nil),
    ("www.example.com", "..", nil, false, nil),
    ("www.example.com", "other.com", nil, false, nil),
    ("www.example.com", "com", nil, false, nil),
    ("www.example.com", ".com", nil, false, nil),
    ("foo.bar.co.uk", ".co.uk", nil, false, nil),
    ("127.www.0.0.1", "127.0.0.1", nil, false, nil),
    ("com", "", "com", true, nil),
    ("com", "com", "com", true, nil),
    ("com", ".com", "com", true, nil),
    ("co.uk", "", "co.uk", true, nil),
    ("co.uk", "co.uk", "co.uk", true, nil),
    ("co.uk", ".co.uk", "co.uk", true, nil),
]

/// Go's defaultPathTests (RFC 6265 §5.1.4).
let goDefaultPathTests: [(path: String, want: String)] = [
    ("/", "/"), ("/abc", "/"), ("/abc/", "/abc"), ("/abc/xyz", "/abc"), ("/abc/xyz/", "/abc/xyz"), ("/a/b/c.html", "/a/b"),
    ("", "/"), ("strange", "/"), ("//", "/"), ("/a//b", "/a/"), ("/a/./b", "/a/."), ("/a/../b", "/a/.."),
]

@Suite("Go's net/http/cookiejar tables")
struct GoJarTableTests {
    @Test("basics", arguments: goBasicsTests)
    func basics(_ test: JarTest) {
        var store = goStore()
        let failures = test.run(on: &store)
        #expect(failures.isEmpty, "\(test.description) \(failures)")
    }

    @Test("update and delete (one store, in order)")
    func updateAndDelete() {
        var store = goStore()
        for test in goUpdateAndDeleteTests {
            let failures = test.run(on: &store)
            #expect(failures.isEmpty, "\(test.description) \(failures)")
        }
    }

    @Test("expiration")
    func expiration() {
        var store = goStore()
        let failures = goExpirationTest.run(on: &store)
        #expect(failures.isEmpty, "\(failures)")
    }

    @Test("chromium basics", arguments: goChromiumBasicsTests)
    func chromiumBasics(_ test: JarTest) {
        var store = goStore()
        let failures = test.run(on: &store)
        #expect(failures.isEmpty, "\(test.description) \(failures)")
    }

    @Test("chromium domain (one store, in order)")
    func chromiumDomain() {
        var store = goStore()
        for test in goChromiumDomainTests {
            let failures = test.run(on: &store)
            #expect(failures.isEmpty, "\(test.description) \(failures)")
        }
    }

    @Test("chromium deletion (one store, in order)")
    func chromiumDeletion() {
        var store = goStore()
        for test in goChromiumDeletionTests {
            let failures = test.run(on: &store)
            #expect(failures.isEmpty, "\(test.description) \(failures)")
        }
    }

    @Test("domain handling", arguments: goDomainHandlingTests)
    func domainHandling(_ test: JarTest) {
        var store = goStore()
        let failures = test.run(on: &store)
        #expect(failures.isEmpty, "\(test.description) \(failures)")
    }

    @Test("domain and type")
    func domainAndType() {
        for row in goDomainAndTypeTests {
            var store = goStore()
            // The target is built directly: Courier's URL parser refuses "127.www.0.0.1" (a name
            // ending in a number), but the rule is about the Domain attribute.
            let isIP = row.host.contains(":") || row.host.split(separator: ".").allSatisfy { UInt8($0) != nil }
            let from = CookieTarget(host: row.host, isIPAddress: isIP, path: "/", isSecure: false)
            let field = row.attribute.isEmpty ? "a=1" : "a=1; domain=\(row.attribute)"
            let result = store.receive(setCookie: field, from: from, now: goNow)
            if let domain = row.domain {
                #expect(result.storedCookie?.domain == domain && result.storedCookie?.isHostOnly == row.hostOnly,
                        "\(row.host) / \(row.attribute): \(result)")
            } else {
                #expect(result.storedCookie == nil, "\(row.host) / \(row.attribute): \(result)")
            }
        }
    }

    @Test("default path")
    func defaultPath() {
        for row in goDefaultPathTests {
            #expect(CookieStore.defaultPath(of: row.path) == row.want, "\(row.path)")
        }
    }
}
