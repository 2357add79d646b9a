// URIError and PercentDecodingError: the typed errors of CourierURL (design §6).
//
// Each error is a struct with a stable `code` (a closed set of static constants; the message text
// is not API) and the byte offset in the input at which the problem was found.

import CourierBytes

/// Why a string is not an acceptable URI reference (RFC 3986 §4.1), or not an acceptable `http`
/// or `https` URI (RFC 9110 §4.2).
public struct URIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. Compare against the static constants; new codes may be added.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code, for logs and metrics.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidCharacter, .malformedPercentEncoding, .invalidScheme, .invalidPort, .missingHost,
            .invalidIPv4Address, .invalidIPv6Address, .unsupportedIPvFuture, .unsupportedIPv6Zone,
            .tooLong, .inconsistentComponents, .unsupportedScheme, .invalidHostName
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A byte that no component may hold at that position: SP, a control character, a
        /// non-ASCII byte, or a delimiter outside the component that allows it (RFC 3986 §2, §3).
        public static let invalidCharacter = Code("invalidCharacter")
        /// A `%` not followed by two hex digits (RFC 3986 §2.1).
        public static let malformedPercentEncoding = Code("malformedPercentEncoding")
        /// The reference starts like a scheme but is not one, and a relative reference may not have
        /// a `:` in its first path segment (RFC 3986 §3.1, §4.2 `path-noscheme`).
        public static let invalidScheme = Code("invalidScheme")
        /// The port is not `*DIGIT` or is above 65535 (RFC 3986 §3.2.3).
        public static let invalidPort = Code("invalidPort")
        /// An `http` or `https` URI whose authority has an empty host, or that has no authority
        /// (RFC 9110 §4.2.1, §4.2.2: "MUST reject it as invalid").
        public static let missingHost = Code("missingHost")
        /// A host of only digits and dots that is not a dotted-quad IPv4 address (RFC 3986 §3.2.2
        /// `IPv4address`); Courier rejects it rather than let a resolver read `127.1` or `010.0.0.1`
        /// in the inet_aton way (RFC 3986 §7.4).
        public static let invalidIPv4Address = Code("invalidIPv4Address")
        /// A bracketed host that is not an `IPv6address` (RFC 3986 §3.2.2), or a missing `]`.
        public static let invalidIPv6Address = Code("invalidIPv6Address")
        /// `[v…]`: IPvFuture literals are not supported (no address family uses them).
        public static let unsupportedIPvFuture = Code("unsupportedIPvFuture")
        /// `[fe80::1%25eth0]`: IPv6 zone identifiers (RFC 6874) are not supported; they name an
        /// interface of one host and have no meaning in a URI sent anywhere else.
        public static let unsupportedIPv6Zone = Code("unsupportedIPv6Zone")
        /// The input is longer than `URI.Limits.maximumLength`.
        public static let tooLong = Code("tooLong")
        /// Components given to `URI.init(scheme:...)` that do not survive serialising and
        /// parsing again unchanged (for example a path without "/" after an authority).
        public static let inconsistentComponents = Code("inconsistentComponents")
        /// The URI cannot be requested over HTTP: its scheme is not `http` or `https`.
        public static let unsupportedScheme = Code("unsupportedScheme")
        /// An international host name that UTS #46 ToASCII refuses (a disallowed character, an
        /// invalid "xn--" label, a hyphen, Bidi or joiner rule, a DNS length): `idna` names the
        /// label and the rule, and the offset is where the label starts.
        public static let invalidHostName = Code("invalidHostName")
    }

    /// What went wrong.
    public let code: Code
    /// The offset, in bytes of the input's UTF-8 form, of the first byte found at fault.
    public let offset: Int
    /// For `.invalidHostName`: the label at fault and the UTS #46 rule it breaks.
    public let idna: IDNAError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - offset: where, in bytes from the start of the input.
    ///   - idna: for `.invalidHostName`, the label and the rule.
    public init(_ code: Code, offset: Int, idna: IDNAError? = nil) {
        self.code = code
        self.offset = offset
        self.idna = idna
    }

    /// The code and offset (and the label and rule of a host name), for logs.
    public var description: String {
        guard let idna else { return "URIError(\(code.rawValue), offset: \(offset))" }
        return "URIError(\(code.rawValue), offset: \(offset), \(idna))"
    }
}

/// Why percent-encoded text cannot be decoded.
public struct PercentDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem. Compare against the static constants; new codes may be added.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code, for logs and metrics.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .malformedPercentEncoding, .invalidUTF8
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// A `%` not followed by two hex digits (RFC 3986 §2.1). Courier never guesses: it does
        /// not pass the `%` through as browsers do.
        public static let malformedPercentEncoding = Code("malformedPercentEncoding")
        /// The decoded bytes are not valid UTF-8 and text was asked for. The offset is that of the
        /// input byte (or `%` triplet) that starts the first invalid sequence.
        public static let invalidUTF8 = Code("invalidUTF8")
    }

    /// What went wrong.
    public let code: Code
    /// The offset, in bytes of the input, of the `%` or of the first byte found at fault.
    public let offset: Int

    /// Creates an error.
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - offset: where, in bytes from the start of the input.
    public init(_ code: Code, offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// The code and offset, for logs.
    public var description: String { "PercentDecodingError(\(code.rawValue), offset: \(offset))" }
}
