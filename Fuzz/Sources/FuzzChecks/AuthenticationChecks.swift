// Checks for CourierHTTP1.AuthenticationChallenge (WWW-Authenticate values) and Courier's Digest
// answer: the input is one field value. Whatever it is, parsing never traps; a value that parses
// has token schemes and names, never both a token68 and parameters, and written back in canonical
// form parses to the same challenges; a Digest challenge Courier answers gives an Authorization
// value that itself parses, with the challenge's realm and nonce in it.
import Courier
import CourierHTTP1

extension FuzzChecks {
    public static func authenticationChallenges(_ input: UnsafeRawBufferPointer) {
        guard let challenges = try? AuthenticationChallenge.parse(Array(input)) else { return }
        for challenge in challenges {
            require(isToken(challenge.scheme), "scheme \(challenge.scheme) is not a token")
            require(challenge.token68 == nil || challenge.parameters.isEmpty, "token68 and parameters in \(challenge)")
            for parameter in challenge.parameters {
                require(isToken(parameter.name), "parameter name \(parameter.name) is not a token")
                require(parameter.wasQuoted || isToken(parameter.value), "unquoted value \(parameter.value) is not a token")
            }
        }
        let text = canonical(challenges)
        let again = try? AuthenticationChallenge.parse(Array(text.utf8))
        require(again == challenges, "\(challenges) written as \(text) parses to \(String(describing: again))")

        if let digest = DigestChallenge.first(in: challenges) {
            let value = digest.authorization(credential: Credential(user: "u\"\\", password: "p"), method: "GET", uri: "/a?b",
                                             cnonce: "c", nonceCount: 7)
            let answer = try? AuthenticationChallenge.parse(Array(value.utf8))
            require(answer?.count == 1, "the answer \(value) is not one challenge-shaped value")
            require(answer?.first?.parameter("nonce") == digest.nonce && answer?.first?.parameter("realm") == digest.realm,
                    "the answer \(value) lost the realm or nonce")
        }
    }

    static func isToken(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }

    /// The challenges as a field value: quoted values quoted again (with `"` and `\` escaped).
    static func canonical(_ challenges: [AuthenticationChallenge]) -> String {
        challenges.map { challenge in
            var text = challenge.scheme
            if let token68 = challenge.token68 {
                text += " " + token68
            } else if !challenge.parameters.isEmpty {
                text += " " + challenge.parameters.map { parameter in
                    guard parameter.wasQuoted else { return parameter.name + "=" + parameter.value }
                    var quoted = "\""
                    // By scalar: a quote or backslash followed by a combining mark is one Character.
                    for scalar in parameter.value.unicodeScalars {
                        if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
                        quoted.unicodeScalars.append(scalar)
                    }
                    return parameter.name + "=" + quoted + "\""
                }.joined(separator: ", ")
            }
            return text
        }.joined(separator: ", ")
    }
}
