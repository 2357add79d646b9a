// HTTP Digest authentication (RFC 7616): the Authorization values against the RFC's own example
// (§3.9.1, SHA-256 and MD5) and values computed with Python's hashlib (SHA-512-256, -sess,
// userhash, RFC 2069's form), then the session's 401 handling against a loopback server that
// verifies every response: Digest chosen over Basic, the allowed schemes, stale=true answered once
// without asking again, and nc counted per nonce across the session.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierTLS
import Synchronization
import Testing

extension SessionTests {
    @Suite struct Digest {
        static func challenge(_ value: String) -> DigestChallenge? {
            guard let parsed = try? AuthenticationChallenge.parse(Array(value.utf8)) else { return nil }
            return DigestChallenge.first(in: parsed)
        }

        static let rfcChallenge = "realm=\"http-auth@example.org\", qop=\"auth, auth-int\", "
            + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\""
        static let mufasa = Credential(user: "Mufasa", password: "Circle of Life")

        @Test("fuzz-auth regression: a quote or backslash followed by a combining mark is still escaped in the answer")
        func backslashBeforeACombiningMarkIsEscaped() throws {
            // realm = x\<U+06ED> and nonce = n"<U+0301>: each ends in one Character with the mark.
            let meem = "\u{06ED}", acute = "\u{0301}"
            let field = "Digest realm=\"x\\\\" + meem + "\", nonce=\"n\\\"" + acute + "\""
            let realm = "x\\" + meem, nonce = "n\"" + acute
            let digest = try #require(Self.challenge(field))
            #expect(digest.realm == realm)
            #expect(digest.nonce == nonce)
            let value = digest.authorization(credential: Self.mufasa, method: "GET", uri: "/", cnonce: "c", nonceCount: 1)
            let quotedRealm = "realm=\"x\\\\" + meem + "\"", quotedNonce = "nonce=\"n\\\"" + acute + "\""
            #expect(value.contains(quotedRealm))
            #expect(value.contains(quotedNonce))
            let answer = try AuthenticationChallenge.parse(Array(value.utf8))
            #expect(answer.count == 1)
            #expect(answer.first?.parameter("realm") == realm)
            #expect(answer.first?.parameter("nonce") == nonce)
        }

        @Test("RFC 7616 §3.9.1, SHA-256 and MD5: the exact Authorization values", arguments: [
            ("SHA-256", "753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1"),
            ("MD5", "8ca523f5e9506fed4657c9700eebdbec"),
        ])
        func rfcExample(algorithm: String, response: String) throws {
            let digest = try #require(Self.challenge("Digest \(Self.rfcChallenge), algorithm=\(algorithm)"))
            let value = digest.authorization(credential: Self.mufasa, method: "GET", uri: "/dir/index.html",
                                             cnonce: "f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ", nonceCount: 1)
            #expect(value == "Digest username=\"Mufasa\", realm=\"http-auth@example.org\", "
                + "nonce=\"7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v\", uri=\"/dir/index.html\", "
                + "cnonce=\"f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ\", nc=00000001, qop=auth, response=\"\(response)\", "
                + "opaque=\"FQhe/qaU925kfnzjCev0ciny7QMkPqMAFRtzCUYo5tdS\", algorithm=\(algorithm)")
        }

        @Test("SHA-512-256 with userhash (§3.9.2's inputs; the hashes from Python's hashlib, as the RFC's printed ones do not reproduce)")
        func sha512_256WithUserhash() throws {
            let digest = try #require(Self.challenge("Digest realm=\"api@example.org\", qop=\"auth\", algorithm=SHA-512-256, "
                + "nonce=\"5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK\", opaque=\"HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS\", "
                + "charset=UTF-8, userhash=true"))
            let value = digest.authorization(credential: Credential(user: "J\u{e4}s\u{f8}n Doe", password: "Secret, or not?"), method: "GET",
                                             uri: "/doe.json", cnonce: "NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v", nonceCount: 1)
            #expect(value == "Digest username=\"793263caabb707a56211940d90411ea4a575adeccb7e360aeb624ed06ece9b0b\", realm=\"api@example.org\", "
                + "nonce=\"5TsQWLVdgBdmrQ0XsxbDODV+57QdFR34I9HAbC/RVvkK\", uri=\"/doe.json\", "
                + "cnonce=\"NTg6RKcb9boFIAS3KrFK9BGeh+iDa/sm6jUMp2wds69v\", nc=00000001, qop=auth, "
                + "response=\"3798d4131c277846293534c3edc11bd8a5e4cdcbff78b05db9d95eeb1cec68a5\", "
                + "opaque=\"HRPCssKJSGjCrkzDg8OhwpzCiGPChXYjwrI2QmXDnsOS\", algorithm=SHA-512-256, userhash=true")
        }

        @Test("-sess variants, nc in hex, quoted-pair escapes, RFC 2069's form without qop (values from Python's hashlib)")
        func variants() throws {
            let md5sess = try #require(Self.challenge("Digest realm=\"r\", nonce=\"n1\", qop=auth, algorithm=MD5-sess"))
            #expect(md5sess.authorization(credential: Credential(user: "u", password: "p"), method: "GET", uri: "/x", cnonce: "c1", nonceCount: 1)
                == "Digest username=\"u\", realm=\"r\", nonce=\"n1\", uri=\"/x\", cnonce=\"c1\", nc=00000001, qop=auth, "
                + "response=\"8dd08bf6c5607112bfa24c1d746bb28e\", algorithm=MD5-sess")
            let sha = try #require(Self.challenge("Digest realm=\"r\", nonce=\"n1\", qop=\"auth-int,auth\", algorithm=sha-256-SESS"))
            #expect(sha.authorization(credential: Credential(user: #"a"b\c"#, password: "p"), method: "POST", uri: "/y?q=1", cnonce: "c1",
                                      nonceCount: 10)
                == #"Digest username="a\"b\\c", realm="r", nonce="n1", uri="/y?q=1", cnonce="c1", nc=0000000a, qop=auth, "#
                + "response=\"2b28c39534d9ae37230de4baef0dcc153dfcd43c3dff8140fc67715612b3f95b\", algorithm=sha-256-SESS")
            let rfc2069 = try #require(Self.challenge("Digest realm=\"r\", nonce=\"n1\""))
            #expect(rfc2069.authorization(credential: Credential(user: "u", password: "p"), method: "GET", uri: "/x", cnonce: "c1", nonceCount: 1)
                == "Digest username=\"u\", realm=\"r\", nonce=\"n1\", uri=\"/x\", response=\"64026ff7531da42d94af2e92d57f1033\"")
        }

        @Test("challenges Courier cannot answer are skipped: the first usable one is taken")
        func unusable() throws {
            #expect(Self.challenge("Digest realm=\"r\", nonce=\"n\", qop=\"auth-int\"") == nil)
            #expect(Self.challenge("Digest realm=\"r\", nonce=\"n\", algorithm=SHA-1") == nil)
            #expect(Self.challenge("Digest realm=\"r\", qop=auth") == nil)
            #expect(Self.challenge("Digest nonce=\"n\"") == nil)
            #expect(Self.challenge("Basic realm=\"r\"") == nil)
            let picked = try #require(Self.challenge("Basic realm=\"b\", Digest realm=\"r\", nonce=\"n\", algorithm=SHA-1, "
                + "Digest realm=\"r\", nonce=\"n2\", algorithm=SHA-256, stale=TRUE, Digest realm=\"r\", nonce=\"n3\""))
            #expect(picked.nonce == "n2")
            #expect(picked.hash == .sha256)
            #expect(picked.isStale)
            #expect(!picked.usesQualityOfProtection)
        }

        @Test("the client nonce comes from the CSPRNG: 32 hex digits, never the same twice")
        func clientNonces() {
            let nonces = (0..<100).map { _ in DigestChallenge.makeClientNonce() }
            #expect(Set(nonces).count == 100)
            #expect(nonces.allSatisfy { $0.utf8.count == 32 && $0.utf8.allSatisfy { ByteClass.hexDigit.contains(byte: $0) } })
        }

        @Test("the hash functions are OpenSSL's: FIPS 180-4 and RFC 1321 test vectors")
        func hashVectors() {
            #expect(MessageDigest.md5.hexHash(Array("abc".utf8)) == "900150983cd24fb0d6963f7d28e17f72")
            #expect(MessageDigest.sha256.hexHash(Array("abc".utf8)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
            #expect(MessageDigest.sha512_256.hexHash(Array("abc".utf8)) == "53048e2681941ef99b2e29b76b4c7dabe4c2d0c634fc6d46e0e2f13107e7af23")
        }

        // MARK: The session

        /// A Digest server for user "u", password "p": verifies every response (nonce known, nc
        /// above the last one seen, uri, hash) and records what it saw.
        final class DigestServer: Sendable {
            struct State {
                var issued = 0
                var counts: [String: UInt32] = [:]
                var seen: [String] = []
            }
            let state = Mutex(State())
            let algorithm: String
            let alsoBasic: Bool
            let staleFirst: Bool
            let reuseNonce: Bool

            init(algorithm: String = "SHA-256", alsoBasic: Bool = false, staleFirst: Bool = false, reuseNonce: Bool = false) {
                self.algorithm = algorithm
                self.alsoBasic = alsoBasic
                self.staleFirst = staleFirst
                self.reuseNonce = reuseNonce
            }

            var seen: [String] { state.withLock { $0.seen } }

            func challenge(stale: Bool = false) -> LoopbackAction {
                let nonce = state.withLock { s -> String in
                    if !reuseNonce || s.issued == 0 { s.issued += 1 }
                    let nonce = "nonce-\(s.issued)"
                    if s.counts[nonce] == nil { s.counts[nonce] = 0 }
                    return nonce
                }
                var headers = ["WWW-Authenticate: Digest realm=\"r\", nonce=\"\(nonce)\", qop=\"auth\", algorithm=\(algorithm)"
                    + (stale ? ", stale=true" : "")]
                if alsoBasic { headers.insert("WWW-Authenticate: Basic realm=\"r\"", at: 0) }
                return .response(status: 401, headers: headers, body: "denied")
            }

            func respond(_ request: LoopbackRequest) -> [LoopbackAction] {
                guard let given = request.headers.first(name: "Authorization") else { return [challenge()] }
                state.withLock { $0.seen.append(given) }
                guard let parsed = try? AuthenticationChallenge.parse(Array(given.utf8)), let c = parsed.first, c.isScheme("Digest"),
                      let nonce = c.parameter("nonce"), let ncText = c.parameter("nc"), let nc = UInt32(ncText, radix: 16),
                      let cnonce = c.parameter("cnonce"), c.parameter("uri") == request.target, c.parameter("username") == "u" else {
                    return [.response(status: 401, body: "malformed")]
                }
                let hash: MessageDigest = algorithm == "MD5" ? .md5 : algorithm == "SHA-512-256" ? .sha512_256 : .sha256
                func h(_ text: String) -> String { hash.hexHash(Array(text.utf8)) }
                let expected = h(h("u:r:p") + ":\(nonce):\(ncText):\(cnonce):auth:" + h("\(request.method):\(request.target)"))
                let fresh: Bool = state.withLock { s in
                    guard let last = s.counts[nonce], nc > last else { return false }
                    s.counts[nonce] = nc
                    return true
                }
                guard fresh else { return [.response(status: 401, body: "replayed nc \(ncText)")] }
                guard c.parameter("response") == expected else { return [.response(status: 401, body: "wrong response")] }
                if staleFirst && nonce == "nonce-1" { return [challenge(stale: true)] }
                return [.response(body: "welcome nc=\(ncText)")]
            }
        }

        static func handler(_ asked: Recorder<Int>, user: String = "u", password: String = "p")
            -> @Sendable (Challenge) async -> ChallengeDisposition {
            { challenge in
                guard case .httpAuthentication(let response, _, let failures) = challenge else { return .performDefaultHandling }
                asked.append(response.status * 10 + failures)
                return .useCredential(Credential(user: user, password: password))
            }
        }

        @Test("a credential for a 401 answers Digest (each algorithm), preferred over Basic offered first",
              arguments: ["MD5", "SHA-256", "SHA-512-256"])
        func digestOverBasic(algorithm: String) async throws {
            let digest = DigestServer(algorithm: algorithm, alsoBasic: true)
            try await withServer(scripted(["/private": { digest.respond($0) }])) { server in
                let asked = Recorder<Int>()
                let session = makeSession { $0.challengeHandler = Self.handler(asked) }
                let response = await session.dataTask(with: server.request("/private?a=1")).onlyResponse()
                #expect(response.result.successValue?.readableString == "welcome nc=00000001")
                #expect(asked.all == [4010])
                #expect(server.requestCount == 2)
                #expect(digest.seen.count == 1 && digest.seen[0].hasSuffix("algorithm=\(algorithm)"), "\(digest.seen)")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("authenticationSchemes [.digest]: a Basic-only 401 is delivered as it is; [.basic]: Digest is not answered")
        func allowedSchemes() async throws {
            let scripts: [String: LoopbackScript] = [
                "/basic": { _ in [.response(status: 401, headers: ["WWW-Authenticate: Basic realm=\"r\""], body: "basic only")] },
                "/digest": { _ in [.response(status: 401, headers: ["WWW-Authenticate: Digest realm=\"r\", nonce=\"n\""], body: "digest only")] },
            ]
            try await withServer(scripted(scripts)) { server in
                let asked = Recorder<Int>()
                let digestOnly = makeSession {
                    $0.challengeHandler = Self.handler(asked)
                    $0.authenticationSchemes = [.digest]
                }
                let first = await digestOnly.dataTask(with: server.request("/basic")).onlyResponse()
                #expect(first.head?.status == 401)
                #expect(first.body?.readableString == "basic only")
                #expect(server.requestCount == 1, "nothing sent again")
                await digestOnly.finishTasksAndInvalidate()
                let basicOnly = makeSession {
                    $0.challengeHandler = Self.handler(asked)
                    $0.authenticationSchemes = [.basic]
                }
                let second = await basicOnly.dataTask(with: server.request("/digest")).onlyResponse()
                #expect(second.body?.readableString == "digest only")
                #expect(server.requestCount == 2)
                await basicOnly.finishTasksAndInvalidate()
            }
        }

        @Test("stale=true: the new nonce is answered once more without asking the handler; a wrong password is asked once")
        func staleNonce() async throws {
            let digest = DigestServer(staleFirst: true)
            try await withServer(scripted(["/private": { digest.respond($0) }])) { server in
                let asked = Recorder<Int>()
                let session = makeSession { $0.challengeHandler = Self.handler(asked) }
                let response = await session.dataTask(with: server.request("/private")).onlyResponse()
                #expect(response.result.successValue?.readableString == "welcome nc=00000001")
                #expect(asked.all == [4010], "asked once")
                #expect(server.requestCount == 3)
                #expect(digest.seen.map { $0.contains("nonce=\"nonce-1\"") } == [true, false])
                await session.finishTasksAndInvalidate()

                let wrong = makeSession { $0.challengeHandler = Self.handler(asked, password: "wrong") }
                let denied = await wrong.dataTask(with: server.request("/private")).onlyResponse()
                #expect(denied.head?.status == 401)
                #expect(denied.body?.readableString == "wrong response")
                #expect(server.requestCount == 5, "one 401, one retry, no more")
                await wrong.finishTasksAndInvalidate()
            }
        }

        @Test("a server that hands out the same nonce again sees nc count up across the session's tasks")
        func nonceCounting() async throws {
            let digest = DigestServer(reuseNonce: true)
            try await withServer(scripted(["/private": { digest.respond($0) }])) { server in
                let asked = Recorder<Int>()
                let session = makeSession { $0.challengeHandler = Self.handler(asked) }
                for expected in ["00000001", "00000002", "00000003"] {
                    let response = await session.dataTask(with: server.request("/private")).onlyResponse()
                    #expect(response.result.successValue?.readableString == "welcome nc=\(expected)")
                }
                #expect(asked.all == [4010, 4010, 4010])
                await session.finishTasksAndInvalidate()
                // A new session starts its own count; this server remembers nc 3 and refuses 1.
                let other = makeSession { $0.challengeHandler = Self.handler(asked) }
                let replay = await other.dataTask(with: server.request("/private")).onlyResponse()
                #expect(replay.body?.readableString == "replayed nc 00000001")
                await other.finishTasksAndInvalidate()
            }
        }
    }
}
