// HTTP Digest authentication (RFC 7616), the client side: answering a `Digest` challenge of a 401
// with an Authorization field, and choosing between Digest and Basic when a server offers both.
//
// - Algorithms: MD5, SHA-256 and SHA-512-256, and their "-sess" variants (RFC 7616 §3.4.2), hashed
//   by the system OpenSSL (CourierTLS.MessageDigest). An unknown algorithm makes a challenge
//   unusable; the first usable Digest challenge is answered (§3.7: "the topmost header field that
//   it supports"), as curl answers the first one.
// - qop: `auth` (with cnonce and nc) when offered; a challenge without qop gets RFC 2069's form
//   (no cnonce, no nc), as curl sends it. `auth-int` alone is not answered (it hashes the body,
//   which may be a stream not yet read): such a challenge is unusable.
// - userhash=true (§3.4.4): the username is H(user ":" realm), and `userhash=true` is sent.
// - cnonce: 16 bytes from OpenSSL's CSPRNG, as 32 hex digits.
// - nc: counted per nonce for the whole session (`DigestNonceCounts`): a server that hands out the
//   same nonce again (Apache's time-based nonces do) sees 00000002, never 00000001 twice (curl
//   starts again at 1 for every challenge).
// - stale=true (§3.3): the credentials were right but the nonce was not; the transfer answers the
//   new challenge once more without asking the challenge handler again.
// The field's parameters are written in curl's order and quoting, so a server sees the same bytes
// from both apart from cnonce and response.

import CourierBytes
import CourierHTTP1
import CourierTLS
import Synchronization

/// An HTTP authentication scheme Courier can answer a 401 challenge with.
public enum AuthenticationScheme: String, Sendable, Hashable, CaseIterable {
    /// RFC 7617: the user name and password, base64-encoded.
    case basic = "Basic"
    /// RFC 7616: a hash over the password, the server's nonce and the request.
    case digest = "Digest"
}

/// A `Digest` challenge Courier can answer (RFC 7616 §3.3).
public struct DigestChallenge: Sendable, Hashable {
    /// The protection space.
    public var realm: String
    /// The server's nonce.
    public var nonce: String
    /// Returned unchanged, when the server sent it.
    public var opaque: String?
    /// The hash function.
    public var hash: MessageDigest
    /// Whether the algorithm is a "-sess" variant (A1 includes the nonce and cnonce).
    public var isSessionVariant: Bool
    /// The algorithm token as the server wrote it (echoed back; nil when the server sent none,
    /// which means MD5).
    public var algorithmToken: String?
    /// Whether `qop=auth` is answered (false: the server sent no qop, RFC 2069's form).
    public var usesQualityOfProtection: Bool
    /// Whether the server said the previous nonce was stale (the credentials were right).
    public var isStale: Bool
    /// Whether the server asks for a hashed username (RFC 7616 §3.4.4).
    public var hashesUsername: Bool

    /// The challenge, when `challenge` is a Digest challenge Courier can answer: a realm and a
    /// nonce, a known algorithm (or none: MD5), and qop absent or including `auth`.
    /// - Parameter challenge: one parsed challenge.
    public init?(_ challenge: AuthenticationChallenge) {
        guard challenge.isScheme("Digest"), let realm = challenge.parameter("realm"), let nonce = challenge.parameter("nonce") else {
            return nil
        }
        let token = challenge.parameter("algorithm")
        var name = ASCIICase.lowercased(token ?? "MD5")
        isSessionVariant = name.hasSuffix("-sess")
        if isSessionVariant { name.removeLast(5) }
        guard let hash = MessageDigest.allCases.first(where: { ASCIICase.lowercased($0.rawValue) == name }) else { return nil }
        if let qop = challenge.parameter("qop") {
            let options = qop.split(separator: ",").map { ASCIICase.lowercased(String($0.filter { $0 != " " && $0 != "\t" })) }
            guard options.contains("auth") else { return nil }
            usesQualityOfProtection = true
        } else {
            usesQualityOfProtection = false
        }
        self.realm = realm
        self.nonce = nonce
        self.opaque = challenge.parameter("opaque")
        self.hash = hash
        self.algorithmToken = token
        self.isStale = ASCIICase.lowercased(challenge.parameter("stale") ?? "") == "true"
        self.hashesUsername = ASCIICase.lowercased(challenge.parameter("userhash") ?? "") == "true"
    }

    /// The first Digest challenge Courier can answer among `challenges`.
    public static func first(in challenges: [AuthenticationChallenge]) -> DigestChallenge? {
        for challenge in challenges {
            if let digest = DigestChallenge(challenge) { return digest }
        }
        return nil
    }

    /// The Authorization field value answering this challenge (RFC 7616 §3.4).
    /// - Parameters:
    ///   - credential: the user name and password.
    ///   - method: the request method, as sent.
    ///   - uri: the request-target, as sent.
    ///   - cnonce: the client nonce (ignored without qop).
    ///   - nonceCount: how many times this nonce has been used, this time included (from 1).
    /// - Returns: `Digest username="…", realm="…", …`.
    public func authorization(credential: Credential, method: String, uri: String, cnonce: String, nonceCount: UInt32) -> String {
        func h(_ text: String) -> String { hash.hexHash(Array(text.utf8)) }
        var a1 = h(credential.user + ":" + realm + ":" + credential.password)
        if isSessionVariant { a1 = h(a1 + ":" + nonce + ":" + cnonce) }
        let a2 = h(method + ":" + uri)
        let nc = Self.hex8(nonceCount)
        let response = usesQualityOfProtection ? h(a1 + ":" + nonce + ":" + nc + ":" + cnonce + ":auth:" + a2) : h(a1 + ":" + nonce + ":" + a2)
        let username = hashesUsername ? h(credential.user + ":" + realm) : credential.user
        var value = "Digest username=\(Self.quoted(username)), realm=\(Self.quoted(realm)), nonce=\(Self.quoted(nonce)), uri=\(Self.quoted(uri))"
        if usesQualityOfProtection {
            value += ", cnonce=\(Self.quoted(cnonce)), nc=\(nc), qop=auth"
        }
        value += ", response=\"\(response)\""
        if let opaque { value += ", opaque=\(Self.quoted(opaque))" }
        if let algorithmToken { value += ", algorithm=\(algorithmToken)" }
        if hashesUsername { value += ", userhash=true" }
        return value
    }

    /// A fresh client nonce: 16 bytes from the CSPRNG as 32 hex digits.
    public static func makeClientNonce() -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in SecureRandom.bytes(16) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    static func hex8(_ value: UInt32) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8](repeating: 0, count: 8)
        for i in 0..<8 { text[7 - i] = digits[Int((value >> (4 * UInt32(i))) & 0xF)] }
        return String(decoding: text, as: UTF8.self)
    }

    /// A quoted-string: `"` and `\` escaped (RFC 9110 §5.6.4). By scalar, not by Character: a
    /// quote followed by a combining mark is one Character, and compared as a Character it would
    /// go out unescaped and end the string early (found by fuzz-auth).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out + "\""
    }
}

/// How often each nonce has been answered in a session (RFC 7616 §3.4: nc counts the requests
/// sent with a nonce, so the server can detect replays). Bounded: the 64 most recent nonces.
final class DigestNonceCounts: Sendable {
    private struct State {
        var counts: [String: UInt32] = [:]
        var order: [String] = []
    }
    private let state = Mutex(State())
    static let capacity = 64

    /// The count for the next use of `nonce` at `origin` (1 for a new nonce).
    func next(origin: String, nonce: String) -> UInt32 {
        let key = origin + " " + nonce
        return state.withLock { s in
            if let count = s.counts[key] {
                let next = count == UInt32.max ? count : count + 1
                s.counts[key] = next
                return next
            }
            if s.order.count >= Self.capacity {
                s.counts[s.order.removeFirst()] = nil
            }
            s.order.append(key)
            s.counts[key] = 1
            return 1
        }
    }
}

/// The answer to a 401: which scheme, and the Authorization value.
struct ChallengeAnswer: Sendable {
    var scheme: AuthenticationScheme
    var authorization: String

    /// The strongest answer `schemes` allow to the challenges of a 401: Digest when a usable
    /// Digest challenge is offered, else Basic when Basic is offered (or the response names no
    /// scheme Courier knows, as before Digest existed); nil when none is allowed.
    static func choose(for head: HTTPResponseHead, credential: Credential, schemes: [AuthenticationScheme], method: String,
                       target: String, origin: String, counts: DigestNonceCounts) -> ChallengeAnswer? {
        // A malformed field is treated as one naming no scheme: the caller's credential still gets
        // its Basic answer, as before.
        let challenges = (try? AuthenticationChallenge.parse(head.headers["WWW-Authenticate"])) ?? []
        if schemes.contains(.digest), let digest = DigestChallenge.first(in: challenges) {
            return ChallengeAnswer(scheme: .digest, authorization: digest.answer(credential: credential, method: method, target: target,
                                                                                origin: origin, counts: counts))
        }
        if schemes.contains(.basic) {
            let offersOther = challenges.contains { !$0.isScheme("Basic") } && !challenges.contains { $0.isScheme("Basic") }
            if !offersOther { return ChallengeAnswer(scheme: .basic, authorization: credential.basicAuthorization) }
        }
        return nil
    }
}

extension DigestChallenge {
    /// The Authorization value with a fresh cnonce and the session's next count for the nonce.
    func answer(credential: Credential, method: String, target: String, origin: String, counts: DigestNonceCounts) -> String {
        let count = usesQualityOfProtection ? counts.next(origin: origin, nonce: nonce) : 1
        return authorization(credential: credential, method: method, uri: target, cnonce: Self.makeClientNonce(), nonceCount: count)
    }
}
