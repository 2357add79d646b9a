// Reference resolution: every example of RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) with
// the base "http://a/b/c/d;p?q", plus remove_dot_segments (§5.2.4) on its own.

import CourierURL
import Testing

@Suite struct URIResolutionTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 Normal Examples.
    static let normal: [(String, String)] = [
        ("g:h", "g:h"),
        ("g", "http://a/b/c/g"),
        ("./g", "http://a/b/c/g"),
        ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"),
        ("//g", "http://g"),
        ("?y", "http://a/b/c/d;p?y"),
        ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"),
        ("g#s", "http://a/b/c/g#s"),
        ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"),
        ("g;x", "http://a/b/c/g;x"),
        ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"),
        (".", "http://a/b/c/"),
        ("./", "http://a/b/c/"),
        ("..", "http://a/b/"),
        ("../", "http://a/b/"),
        ("../g", "http://a/b/g"),
        ("../..", "http://a/"),
        ("../../", "http://a/"),
        ("../../g", "http://a/g"),
    ]

    /// RFC 3986 §5.4.2 Abnormal Examples (strict parser: "http:g" stays as it is).
    static let abnormal: [(String, String)] = [
        ("../../../g", "http://a/g"),
        ("../../../../g", "http://a/g"),
        ("/./g", "http://a/g"),
        ("/../g", "http://a/g"),
        ("g.", "http://a/b/c/g."),
        (".g", "http://a/b/c/.g"),
        ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"),
        ("./../g", "http://a/b/g"),
        ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"),
        ("g/../h", "http://a/b/c/h"),
        ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"),
        ("g?y/./x", "http://a/b/c/g?y/./x"),
        ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"),
        ("g#s/../x", "http://a/b/c/g#s/../x"),
        ("http:g", "http:g"),
    ]

    @Test(arguments: normal)
    func normalExamples(_ reference: String, _ expected: String) throws {
        let target = try URI(parsing: Self.base).resolving(reference)
        #expect(target.description == expected)
        #expect(target == (try URI(parsing: expected)))
    }

    @Test(arguments: abnormal)
    func abnormalExamples(_ reference: String, _ expected: String) throws {
        let target = try URI(parsing: Self.base).resolving(reference)
        #expect(target.description == expected)
        #expect(target == (try URI(parsing: expected)))
    }

    @Test func tableIsComplete() {
        #expect(Self.normal.count == 23)
        #expect(Self.abnormal.count == 19)
    }

    @Test func baseFragmentIsIgnoredAndAuthorityWithEmptyPathMerges() throws {
        let base = try URI(parsing: "http://a/b#frag")
        #expect(try base.resolving("c").description == "http://a/c")
        #expect(try base.resolving("").description == "http://a/b")
        // RFC 3986 §5.2.3: a base with an authority and an empty path merges as "/" + path.
        let bare = try URI(parsing: "http://a")
        #expect(try bare.resolving("g").description == "http://a/g")
        #expect(try bare.resolving("?x").description == "http://a?x")
        let withUser = try URI(parsing: "https://u@h:8443/x/y")
        #expect(try withUser.resolving("z").description == "https://u@h:8443/x/z")
        #expect(try withUser.resolving("//other/p").description == "https://other/p")
    }

    /// Resolution can produce a path starting with "//" with no authority; it must serialise
    /// to text that parses back to the same components.
    @Test func ambiguousResultsStillRoundTrip() throws {
        let base = try URI(parsing: "foo:/a/b")
        let target = try base.resolving("..//g")
        #expect(target.host == nil)
        #expect(target.path == "//g")
        #expect(target.description == "foo:/.//g")
        let again = try URI(parsing: target.description)
        #expect(again.host == nil)
        #expect(again.description == target.description)

        let relativeBase = try URI(parsing: "a/b")
        let colon = try relativeBase.resolving("./c:d")
        #expect(colon.path == "a/c:d")
        let odd = try URI(parsing: "x").resolving("./c:d")
        #expect(odd.path == "c:d")
        #expect(odd.description == "./c:d")
        #expect(try URI(parsing: odd.description).path == "./c:d")
    }

    @Test(arguments: [
        ("/a/b/c/./../../g", "/a/g"),
        ("mid/content=5/../6", "mid/6"),
        ("/../..", "/"),
        ("..", ""),
        (".", ""),
        ("/.", "/"),
        ("/..", "/"),
        ("a/..", "/"),
        ("a/../..", "/"),
        ("/a/b/..", "/a/"),
        ("/a/%2E%2E/b", "/a/%2E%2E/b"),
        ("/a//../b", "/a/b"),
        ("../a", "a"),
        ("./a/./b/.", "a/b/"),
        ("no-dots", "no-dots"),
        ("", ""),
    ] as [(String, String)])
    func removeDotSegments(_ path: String, _ expected: String) {
        #expect(URI.removeDotSegments(path) == expected)
    }

    @Test func resolvingRejectsABadReference() throws {
        let base = try URI(parsing: Self.base)
        #expect(throws: URIError(.invalidCharacter, offset: 1)) { try base.resolving("g h") }
    }

    /// Fuzz finding (Fuzz/Regressions/fuzz-uri/empty-authority-reference): RFC 3986 resolves
    /// "///p:///" against an http base to an http URI with an empty authority. Resolution follows the
    /// RFC; the result is refused before any request (RFC 9110 §4.2.1) and its text does not parse.
    @Test func fuzzFindingEmptyAuthorityReferenceResolvesToAnUnrequestableURI() throws {
        let base = try URI(parsing: "http://a/b/c/d;p?q")
        let resolved = base.resolving(try URI(parsing: "///p:///"))
        #expect(resolved.host?.text == "")
        #expect(resolved.path == "/p:///")
        #expect(throws: URIError(.missingHost, offset: 0)) { try resolved.validateForHTTP() }
        #expect(throws: URIError.self) { try URI(parsing: resolved.description) }
    }

    /// Fuzz finding (Fuzz/Regressions/fuzz-uri/double-slash-path-without-authority): a path that
    /// starts with "//" after dot-segment removal, with no authority, is written behind "/." so the
    /// text is not read as an authority; parsing keeps the "/." (no normalisation on parse).
    @Test func fuzzFindingDoubleSlashPathWithoutAuthority() throws {
        let base = try URI(parsing: "http://a/b/c/d;p?q")
        let resolved = base.resolving(try URI(parsing: "Unsaf:/.///.cc"))
        #expect(resolved.scheme == "unsaf")
        #expect(resolved.host == nil)
        #expect(resolved.path == "///.cc")
        #expect(resolved.description == "unsaf:/.///.cc")
        let reparsed = try URI(parsing: resolved.description)
        #expect(reparsed.host == nil)
        #expect(reparsed.path == "/.///.cc")
        #expect(URI.removeDotSegments(reparsed.path) == resolved.path)
    }
}
