// WWW-Authenticate challenges (RFC 9110 §11.6.1): each case is a 401 head that goes through the
// ResponseHeadParser at every cut (SplitHarness: whole, byte by byte, every two-way split, and
// followed by the start of another response), its WWW-Authenticate field values into
// AuthenticationChallenge.parse; the challenges must not depend on where the network cut the head.

import CourierBytes
import CourierHTTP1
import CourierTestSupport
import Testing

@Suite("WWW-Authenticate challenges")
struct AuthenticationChallengeTests {
    typealias Outcome = Result<[AuthenticationChallenge], AuthenticationChallengeError>?
    typealias P = AuthenticationChallenge.Parameter

    static func feed(_ chunks: [[UInt8]]) -> Outcome {
        var parser = ResponseHeadParser()
        var buffer = ByteBuffer()
        for chunk in chunks {
            buffer.writeBytes(chunk)
            guard case .complete(let head, _)? = try? parser.parse(buffer) else { continue }
            do throws(AuthenticationChallengeError) {
                return .success(try AuthenticationChallenge.parse(head.headers.headers["WWW-Authenticate"]))
            } catch {
                return .failure(error)
            }
        }
        return nil
    }

    /// The challenges of a 401 whose WWW-Authenticate lines are `values`, at every cut.
    func challenges(_ values: [String], sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        var head = "HTTP/1.1 401 Unauthorized\r\n"
        for value in values { head += "WWW-Authenticate: \(value)\r\n" }
        head += "Content-Length: 0\r\n\r\n"
        let (outcome, mismatches) = SplitHarness.run(Array(head.utf8), trailing: Array("HTTP/1.1 200 OK\r\n".utf8)) { Self.feed($0) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
        return outcome
    }

    @Test("RFC 7616 §3.9.1: two Digest challenges, SHA-256 first, on two field lines")
    func rfc7616Example() {
        let sha = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=SHA-256, "
            + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
        let md5 = "Digest realm=\"http-auth@example.org\", qop=\"auth, auth-int\", algorithm=MD5, "
            + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
        func expected(_ algorithm: String) -> AuthenticationChallenge {
            AuthenticationChallenge(scheme: "Digest", parameters: [
                P(name: "realm", value: "http-auth@example.org", wasQuoted: true),
                P(name: "qop", value: "auth, auth-int", wasQuoted: true),
                P(name: "algorithm", value: algorithm),
                P(name: "nonce", value: "7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v", wasQuoted: true),
                P(name: "opaque", value: "FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS", wasQuoted: true),
            ])
        }
        #expect(challenges([sha, md5]) == .success([expected("SHA-256"), expected("MD5")]))
    }

    @Test("RFC 9110 §11.6.1's example: two challenges in one field, an escaped quote")
    func severalChallengesInOneField() {
        let value = #"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple""#
        #expect(challenges([value]) == .success([
            AuthenticationChallenge(scheme: "Newauth", parameters: [
                P(name: "realm", value: "apps", wasQuoted: true), P(name: "type", value: "1"),
                P(name: "title", value: #"Login to "apps""#, wasQuoted: true),
            ]),
            AuthenticationChallenge(scheme: "Basic", parameters: [P(name: "realm", value: "simple", wasQuoted: true)]),
        ]))
    }

    @Test("token68 credentials, with and without padding, beside parameters")
    func token68() {
        #expect(challenges(["Negotiate YIIB+/x.~_-==, Basic realm=\"x\"", "Bearer abc=", "NTLM"]) == .success([
            AuthenticationChallenge(scheme: "Negotiate", token68: "YIIB+/x.~_-=="),
            AuthenticationChallenge(scheme: "Basic", parameters: [P(name: "realm", value: "x", wasQuoted: true)]),
            AuthenticationChallenge(scheme: "Bearer", token68: "abc="),
            AuthenticationChallenge(scheme: "NTLM"),
        ]))
    }

    @Test("empty list elements, schemes without parameters, whitespace around = and commas")
    func listSyntax() {
        #expect(challenges([", ,Basic , Digest realm = \"r\" ,nonce=n ,, Bearer,"]) == .success([
            AuthenticationChallenge(scheme: "Basic"),
            AuthenticationChallenge(scheme: "Digest", parameters: [P(name: "realm", value: "r", wasQuoted: true), P(name: "nonce", value: "n")]),
            AuthenticationChallenge(scheme: "Bearer"),
        ]))
    }

    @Test("names ignore case when looked up; values keep theirs; a backslash before any byte is that byte")
    func lookups() throws {
        guard case .success(let parsed)? = challenges([#"dIgEsT REALM="A\b\\c", Stale=TRUE"#]) else {
            Issue.record("did not parse")
            return
        }
        #expect(parsed.count == 1)
        #expect(parsed[0].isScheme("Digest"))
        #expect(parsed[0].parameter("realm") == #"Ab\c"#)
        #expect(parsed[0].parameter("stale") == "TRUE")
        #expect(parsed[0].parameter("nonce") == nil)
    }

    @Test("malformed values: the error names what and where", arguments: [
        (#"Digest realm="r"#, AuthenticationChallengeError(.unterminatedQuotedString, at: 13)),
        (#"Digest realm="r" nonce="n""#, AuthenticationChallengeError(.expectedComma, at: 17)),
        (#""quoted", Basic"#, AuthenticationChallengeError(.expectedScheme, at: 0)),
        ("Digest realm=@x", AuthenticationChallengeError(.invalidParameterValue, at: 13)),
        ("Basic abc def", AuthenticationChallengeError(.expectedComma, at: 10)),
        ("Basic@ realm=x", AuthenticationChallengeError(.expectedComma, at: 5)),
        ("Basic realm=\"a\\", AuthenticationChallengeError(.unterminatedQuotedString, at: 14)),
    ])
    func malformed(value: String, error: AuthenticationChallengeError) {
        #expect(challenges([value]) == .failure(error))
    }

    @Test("a control byte inside a quoted string (the head parser lets none through; the value parser refuses it too)")
    func controlByte() throws {
        #expect(throws: AuthenticationChallengeError(.unterminatedQuotedString, at: 15)) {
            try AuthenticationChallenge.parse(Array("Digest realm=\"a\u{1}\"".utf8))
        }
        #expect(try AuthenticationChallenge.parse(Array("".utf8)) == [])
        #expect(try AuthenticationChallenge.parse(Array("  \t ".utf8)) == [])
    }

    @Test("every prefix and every suffix of a valid value either parses or throws: never traps")
    func everyCutOfTheValueAlone() {
        let value = Array(#"Newauth realm="apps", type=1, title="Login to \"apps\"", Basic realm="simple", Negotiate YII=="#.utf8)
        for end in 0...value.count {
            _ = try? AuthenticationChallenge.parse(Array(value[..<end]))
            _ = try? AuthenticationChallenge.parse(Array(value[end...]))
        }
    }
}
