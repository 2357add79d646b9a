// AuthenticationChallenge: the challenges of WWW-Authenticate and Proxy-Authenticate fields
// (RFC 9110 §11.6.1, §11.3):
//
//   WWW-Authenticate = #challenge
//   challenge        = auth-scheme [ 1*SP ( token68 / #auth-param ) ]
//   auth-param       = token BWS "=" BWS ( token / quoted-string )
//   token68          = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
//
// The grammar is ambiguous at a glance — a comma separates both the parameters of one challenge
// and the challenges of a field — and is resolved by looking ahead: after a comma, `token BWS "="`
// (with something other than "=" or the end after it) is another parameter of the same
// challenge; a token followed by a space, a comma or the end starts a new challenge. A token68
// is only ever the one credential after a scheme (`Basic abc==`, `Negotiate YII=`).
//
// Empty list elements (",,", a leading or trailing comma) are skipped, as RFC 9110 §5.6.1 asks
// of recipients. Quoted strings lose their quotes and their backslashes (quoted-pair). Names are
// kept as sent; `parameter(_:)` compares them ignoring ASCII case. Malformed input throws with the
// byte offset; a field value is always whole (the head parser has already framed it), so there
// is no partial state.

import CourierBytes

/// One challenge of a WWW-Authenticate (or Proxy-Authenticate) field.
public struct AuthenticationChallenge: Sendable, Hashable {
    /// The auth-scheme as sent (`Basic`, `Digest`, ...); compare with `isScheme(_:)`.
    public var scheme: String
    /// The token68 credential, when the challenge carries one instead of parameters.
    public var token68: String?
    /// The auth-params in order, values unquoted.
    public var parameters: [Parameter]

    /// One `name=value` auth-param.
    public struct Parameter: Sendable, Hashable {
        /// The name as sent.
        public var name: String
        /// The value, without quotes and quoted-pair backslashes.
        public var value: String
        /// Whether the value was a quoted-string (RFC 7616 asks for some values to be quoted).
        public var wasQuoted: Bool

        /// Creates a parameter.
        public init(name: String, value: String, wasQuoted: Bool = false) {
            self.name = name
            self.value = value
            self.wasQuoted = wasQuoted
        }
    }

    /// Creates a challenge.
    public init(scheme: String, token68: String? = nil, parameters: [Parameter] = []) {
        self.scheme = scheme
        self.token68 = token68
        self.parameters = parameters
    }

    /// Whether the scheme is `name`, ignoring ASCII case (RFC 9110 §11.1).
    public func isScheme(_ name: String) -> Bool { ASCIICase.lowercased(scheme) == ASCIICase.lowercased(name) }

    /// The first parameter named `name` (ASCII case ignored, RFC 9110 §11.2), unquoted.
    public func parameter(_ name: String) -> String? {
        let wanted = ASCIICase.lowercased(name)
        return parameters.first { ASCIICase.lowercased($0.name) == wanted }?.value
    }

    /// Parses every challenge of every field value given (one per field line, in order).
    /// - Parameter fieldValues: the values of the WWW-Authenticate field lines.
    /// - Returns: the challenges, in order.
    /// - Throws: `AuthenticationChallengeError` for the first malformed value.
    public static func parse(_ fieldValues: [String]) throws(AuthenticationChallengeError) -> [AuthenticationChallenge] {
        var all: [AuthenticationChallenge] = []
        for value in fieldValues { all += try parse(Array(value.utf8)) }
        return all
    }

    /// Parses the challenges of one field value.
    /// - Parameter bytes: the field value (OWS around it allowed).
    /// - Returns: the challenges, in order (none for an empty value).
    /// - Throws: `AuthenticationChallengeError` with the byte offset of the first malformed part.
    public static func parse(_ bytes: [UInt8]) throws(AuthenticationChallengeError) -> [AuthenticationChallenge] {
        var scanner = ChallengeScanner(bytes: bytes)
        return try scanner.challenges()
    }
}

/// A WWW-Authenticate value that is not `#challenge`.
public struct AuthenticationChallengeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .expectedScheme, .invalidParameterValue, .unterminatedQuotedString, .expectedComma
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A challenge does not start with a token (its auth-scheme).
        public static let expectedScheme = Code("expectedScheme")
        /// A parameter has no value, or its value is neither a token nor a quoted-string.
        public static let invalidParameterValue = Code("invalidParameterValue")
        /// A quoted-string has no closing quote, or holds a control byte.
        public static let unterminatedQuotedString = Code("unterminatedQuotedString")
        /// Something other than a comma follows a parameter or a token68.
        public static let expectedComma = Code("expectedComma")
    }

    /// What is wrong.
    public var code: Code
    /// The offset in the field value where it was found.
    public var offset: Int

    /// Creates an error.
    public init(_ code: Code, at offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// `expectedComma at byte 12`.
    public var description: String { "\(code.rawValue) at byte \(offset)" }
}

/// The scanner over one field value.
private struct ChallengeScanner {
    let bytes: [UInt8]
    var index = 0
    let table = ByteClass.table

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index >= bytes.count }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
    }

    /// Skips OWS and commas (empty list elements); true when any comma was skipped.
    mutating func skipSeparators() -> Bool {
        var sawComma = false
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09: index += 1
            case UInt8(ascii: ","): index += 1; sawComma = true
            default: return sawComma
            }
        }
        return sawComma
    }

    func tokenEnd(from start: Int) -> Int {
        var end = start
        while end < bytes.count, table[bytes[end]].contains(.token) { end += 1 }
        return end
    }

    static func isToken68(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "+"), UInt8(ascii: "/"):
            return true
        default: return false
        }
    }

    func string(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// Whether a `token BWS "=" BWS` that is not a token68's padding starts at `start`: then it is
    /// an auth-param.
    func isParameter(at start: Int) -> Bool {
        let end = tokenEnd(from: start)
        guard end > start else { return false }
        var i = end
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { return false }
        i += 1
        // "abc=" then "=", "," or the end: the padding of a token68, not a parameter.
        var j = i
        while j < bytes.count, bytes[j] == 0x20 || bytes[j] == 0x09 { j += 1 }
        return j < bytes.count && bytes[j] != UInt8(ascii: "=") && bytes[j] != UInt8(ascii: ",")
    }

    mutating func challenges() throws(AuthenticationChallengeError) -> [AuthenticationChallenge] {
        var result: [AuthenticationChallenge] = []
        _ = skipSeparators()
        while !atEnd {
            let start = index
            let end = tokenEnd(from: start)
            guard end > start else { throw AuthenticationChallengeError(.expectedScheme, at: start) }
            var challenge = AuthenticationChallenge(scheme: string(start..<end))
            index = end
            // The scheme ends at a space (then a token68 or parameters may follow), a comma or
            // the end.
            if !atEnd, bytes[index] != 0x20, bytes[index] != 0x09, bytes[index] != UInt8(ascii: ",") {
                throw AuthenticationChallengeError(.expectedComma, at: index)
            }
            skipWhitespace()
            if !atEnd, bytes[index] != UInt8(ascii: ",") {
                if isParameter(at: index) {
                    try parameters(into: &challenge)
                } else {
                    try token68(into: &challenge)
                }
            }
            result.append(challenge)
            // After a challenge: a comma (or the end); `parameters` stops before a comma that
            // starts the next challenge.
            skipWhitespace()
            if !atEnd, bytes[index] != UInt8(ascii: ",") { throw AuthenticationChallengeError(.expectedComma, at: index) }
            _ = skipSeparators()
        }
        return result
    }

    mutating func token68(into challenge: inout AuthenticationChallenge) throws(AuthenticationChallengeError) {
        let start = index
        while index < bytes.count, Self.isToken68(bytes[index]) { index += 1 }
        guard index > start else { throw AuthenticationChallengeError(.expectedComma, at: index) }
        while index < bytes.count, bytes[index] == UInt8(ascii: "=") { index += 1 }
        challenge.token68 = string(start..<index)
    }

    /// Reads `#auth-param`, leaving `index` on the comma before the next challenge (or the end).
    mutating func parameters(into challenge: inout AuthenticationChallenge) throws(AuthenticationChallengeError) {
        while true {
            let nameStart = index
            let nameEnd = tokenEnd(from: nameStart)
            index = nameEnd
            skipWhitespace()
            index += 1  // "=" (checked by isParameter)
            skipWhitespace()
            guard !atEnd else { throw AuthenticationChallengeError(.invalidParameterValue, at: index) }
            let value: String
            let quoted: Bool
            if bytes[index] == UInt8(ascii: "\"") {
                value = try quotedString()
                quoted = true
            } else {
                let end = tokenEnd(from: index)
                guard end > index else { throw AuthenticationChallengeError(.invalidParameterValue, at: index) }
                value = string(index..<end)
                index = end
                quoted = false
            }
            challenge.parameters.append(.init(name: string(nameStart..<nameEnd), value: value, wasQuoted: quoted))
            skipWhitespace()
            guard !atEnd else { return }
            guard bytes[index] == UInt8(ascii: ",") else { throw AuthenticationChallengeError(.expectedComma, at: index) }
            // Another parameter of this challenge, or the next challenge?
            let comma = index
            _ = skipSeparators()
            if atEnd || !isParameter(at: index) {
                index = comma
                return
            }
        }
    }

    /// A quoted-string (RFC 9110 §5.6.4) starting at `index`, unquoted.
    mutating func quotedString() throws(AuthenticationChallengeError) -> String {
        let open = index
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "\\"):
                // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
                guard index + 1 < bytes.count, Self.isQuotable(bytes[index + 1]) else {
                    throw AuthenticationChallengeError(.unterminatedQuotedString, at: index)
                }
                value.append(bytes[index + 1])
                index += 2
            default:
                guard Self.isQuotable(byte) else { throw AuthenticationChallengeError(.unterminatedQuotedString, at: index) }
                value.append(byte)
                index += 1
            }
        }
        throw AuthenticationChallengeError(.unterminatedQuotedString, at: open)
    }

    /// HTAB, SP, VCHAR and obs-text.
    static func isQuotable(_ byte: UInt8) -> Bool { byte == 0x09 || (byte >= 0x20 && byte != 0x7F) }
}
