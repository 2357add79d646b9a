// URI: an RFC 3986 URI reference, parsed into components and normalised.
//
// This file owns the value type, its serialisation (RFC 3986 §5.3 recomposition) and the HTTP
// helpers (request-target, Host field, default ports). Parsing lives in URIParser.swift and
// reference resolution in URI+Resolution.swift.
//
// Invariants of every `URI` value (the parser and the resolver keep them; the component
// initialiser checks them by parsing its own serialisation):
//   - every component holds only the bytes RFC 3986 §3 allows it, percent-encoded triplets well
//     formed; all text is ASCII (an international host is held in its ASCII form);
//   - `scheme` and `host` are lower case (RFC 3986 §6.2.2.1), except the hex digits of a
//     percent-encoded triplet in a host, which are upper case;
//   - `host != nil` exactly when the reference had an authority (`//`); then `path` is empty or
//     starts with "/" (RFC 3986 §3.3 `path-abempty`);
//   - `port` is nil when the authority had none or an empty one (`http://a:/`, RFC 3986 §6.2.3).

import CourierBytes

/// A URI reference (RFC 3986 §4.1): an absolute URI such as `https://example.com/a?b#c`, or a
/// relative reference such as `../a?b`, split into its components.
///
/// Parsing is strict: anything RFC 3986 does not allow throws a `URIError` with the byte offset.
/// Scheme and host are normalised to lower case; nothing else is changed, so a parsed URI
/// serialises to its input except for that case folding, an empty port (`a:` → `a`) and the port's
/// leading zeros.
public struct URI: Sendable, Hashable, CustomStringConvertible {
    /// The scheme, lower case, without the ":"; nil for a relative reference.
    public internal(set) var scheme: String?
    /// The userinfo (before "@" in the authority), still percent-encoded; nil when absent.
    /// Courier never sends it: `requestTarget` and `hostFieldValue` leave it out.
    public internal(set) var userinfo: String?
    /// The host; nil when the reference has no authority. An authority with an empty host
    /// (`file:///x`) has a host whose `text` is empty.
    public internal(set) var host: Host?
    /// The port given in the authority; nil when none was given (see `effectivePort`).
    public internal(set) var port: UInt16?
    /// The path, still percent-encoded; possibly empty.
    public internal(set) var path: String
    /// The query, without the "?", still percent-encoded; nil when there is no "?".
    /// An empty string means the reference ended in "?".
    public internal(set) var query: String?
    /// The fragment, without the "#", still percent-encoded; nil when there is no "#".
    public internal(set) var fragment: String?

    /// The host of an authority (RFC 3986 §3.2.2).
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        /// Which of the RFC 3986 host forms it is.
        public enum Kind: Sendable, Hashable {
            /// A registered name (usually a DNS name), possibly empty, possibly percent-encoded.
            case registeredName
            /// A dotted-quad IPv4 address.
            case ipv4Address
            /// An IPv6 address (written in brackets in a URI).
            case ipv6Address
        }

        /// The form of the host.
        public let kind: Kind
        /// The host without brackets, lower case, ASCII: what a resolver, `connect`, TLS (SNI and
        /// certificate matching), the Host field, cookies and proxies need. An international name
        /// is here in its ASCII form (`xn--bcher-kva.example` for `bücher.example`, UTS #46
        /// ToASCII); under a scheme other than http, https, ws, wss, ftp and file a registered
        /// name stays percent-encoded (the hex digits of each triplet upper case).
        public let text: String

        @usableFromInline
        init(kind: Kind, text: String) {
            self.kind = kind
            self.text = text
        }

        /// The host as written in a URI and in a Host field: IPv6 addresses in brackets.
        public var description: String { kind == .ipv6Address ? "[" + text + "]" : text }

        /// The host for display to a person: a registered name with its "xn--" labels decoded
        /// (UTS #46 ToUnicode, `bücher.example`), else `description`. Only a name whose Unicode
        /// form converts back to exactly this ASCII form is shown decoded; any other (an invalid
        /// "xn--" label, a label over 63 bytes, "_" in a name given in ASCII, which is never
        /// checked) is shown as it is, so the display never stands for another name than the one
        /// sent.
        public var unicodeDescription: String {
            guard kind == .registeredName, text.utf8.count >= 4, containsACELabel else { return description }
            let (unicode, error) = IDNA.toUnicode(text)
            // ToUnicode has no length checks: the round trip through ToASCII adds them
            // (Fuzz/Regressions/fuzz-idna/unicode-display-of-an-overlong-label).
            guard error == nil, (try? IDNA.toASCII(unicode)) == text else { return text }
            return unicode
        }

        /// Whether a label starts with "xn--" (text is lower case).
        private var containsACELabel: Bool {
            var atLabelStart = true
            var utf8 = text.utf8[...]
            while !utf8.isEmpty {
                if atLabelStart, utf8.starts(with: "xn--".utf8) { return true }
                atLabelStart = utf8.first == UInt8(ascii: ".")
                utf8 = utf8.dropFirst()
            }
            return false
        }
    }

    /// Bounds on what the parser accepts.
    public struct Limits: Sendable, Hashable {
        /// The longest input accepted, in bytes. Default 8,000,000: curl's `CURL_MAX_INPUT_LENGTH`
        /// (browsers stop near 2 MiB; a query built from a large parameter tree can pass 64 KiB).
        public var maximumLength: Int

        /// Creates limits.
        /// - Parameter maximumLength: the longest input accepted, in bytes.
        public init(maximumLength: Int = 8_000_000) {
            self.maximumLength = maximumLength
        }
    }

    /// The components as they are, unchecked: the parser and the resolver call this only with
    /// components that keep the invariants at the top of this file.
    init(
        uncheckedScheme scheme: String?, userinfo: String?, host: Host?, port: UInt16?,
        path: String, query: String?, fragment: String?
    ) {
        self.scheme = scheme
        self.userinfo = userinfo
        self.host = host
        self.port = port
        self.path = path
        self.query = query
        self.fragment = fragment
    }

    /// Creates a URI from components, each written as it appears in a URI (percent-encoded).
    ///
    /// The components are serialised and parsed again; the result must have the same components,
    /// after the case normalisation of scheme and host.
    /// - Parameters:
    ///   - scheme: the scheme without ":", or nil for a relative reference.
    ///   - userinfo: the userinfo, or nil.
    ///   - host: the host (an IPv6 address without brackets), or nil for no authority.
    ///   - port: the port, or nil.
    ///   - path: the path; it must be empty or start with "/" when there is a host.
    ///   - query: the query without "?", or nil.
    ///   - fragment: the fragment without "#", or nil.
    /// - Throws: `URIError` for a component with bytes it may not hold, or
    ///   `.inconsistentComponents` when the components cannot be told apart after serialising
    ///   (userinfo or port without a host, a relative path after a host).
    public init(
        scheme: String? = nil, userinfo: String? = nil, host: String? = nil, port: UInt16? = nil,
        path: String = "", query: String? = nil, fragment: String? = nil
    ) throws(URIError) {
        guard host != nil || (userinfo == nil && port == nil) else {
            throw URIError(.inconsistentComponents, offset: 0)
        }
        var text = ""
        if let scheme { text += scheme + ":" }
        if let host {
            text += "//"
            if let userinfo { text += userinfo + "@" }
            // A host with ":" can only be an IPv6 address; brackets are how a URI writes it.
            text += host.utf8.contains(UInt8(ascii: ":")) ? "[" + host + "]" : host
            if let port { text += ":" + String(port) }
        }
        text += path
        if let query { text += "?" + query }
        if let fragment { text += "#" + fragment }
        let parsed = try URI(parsing: text)
        let expectedHost: String?
        if let host {
            guard let text = try? URIParser.expectedHostText(host, scheme: parsed.scheme) else {
                throw URIError(.inconsistentComponents, offset: 0)
            }
            expectedHost = text
        } else {
            expectedHost = nil
        }
        guard parsed.scheme == scheme.map(ASCIICase.lowercased), parsed.userinfo == userinfo,
              parsed.host?.text == expectedHost,
              parsed.port == port, parsed.path == path, parsed.query == query,
              parsed.fragment == fragment
        else { throw URIError(.inconsistentComponents, offset: 0) }
        self = parsed
    }

    // MARK: Serialisation (RFC 3986 §5.3)

    /// The URI reference as text: RFC 3986 §5.3 recomposition of the components.
    ///
    /// Two cases RFC 3986 §5.3 leaves ambiguous are written so the text parses back to the same
    /// components: a path starting with "//" and no authority gets a "/." prefix, and a relative
    /// reference whose first segment holds ":" gets a "./" prefix (both only arise from
    /// resolution; they are the WHATWG URL Standard's fixes).
    public var description: String { serialized(includingUserinfo: true) }

    /// The URI as text with the userinfo left out, for logs and error messages (design §6).
    public var redactedDescription: String { serialized(includingUserinfo: false) }

    /// The URI as text for display to a person, its host in Unicode (`http://bücher.example/`
    /// where `description` has `http://xn--bcher-kva.example/`); see `Host.unicodeDescription`.
    /// The other components stay percent-encoded. Not for sending: use `description`.
    public var unicodeDescription: String { serialized(includingUserinfo: true, unicodeHost: true) }

    func serialized(includingUserinfo: Bool, unicodeHost: Bool = false) -> String {
        var text = ""
        text.reserveCapacity(path.utf8.count + (query?.utf8.count ?? 0) + 32)
        if let scheme {
            text += scheme
            text += ":"
        }
        if let host {
            text += "//"
            if includingUserinfo, let userinfo {
                text += userinfo
                text += "@"
            }
            text += unicodeHost ? host.unicodeDescription : host.description
            if let port {
                text += ":"
                text += String(port)
            }
        } else if path.utf8.starts(with: "//".utf8) {
            text += "/."
        } else if scheme == nil, URI.firstSegmentHasColon(path) {
            text += "./"
        }
        text += path
        if let query {
            text += "?"
            text += query
        }
        if let fragment {
            text += "#"
            text += fragment
        }
        return text
    }

    static func firstSegmentHasColon(_ path: String) -> Bool {
        for byte in path.utf8 {
            if byte == UInt8(ascii: "/") { return false }
            if byte == UInt8(ascii: ":") { return true }
        }
        return false
    }

    // MARK: Edits that keep the invariants

    /// This URI with its query replaced.
    /// - Parameter query: the new query without "?", already percent-encoded (for example the
    ///   output of `QueryString.build`), or nil to remove the query.
    /// - Returns: the new URI.
    /// - Throws: `URIError` (`.invalidCharacter` or `.malformedPercentEncoding`, offset within
    ///   `query`) when `query` holds a byte a query may not.
    public func replacingQuery(_ query: String?) throws(URIError) -> URI {
        if let query { try URIParser.validateQuery(query) }
        var copy = self
        copy.query = query
        return copy
    }

    /// This URI without its fragment: what is sent in a request (RFC 9110 §4.2.5).
    public var removingFragment: URI {
        var copy = self
        copy.fragment = nil
        return copy
    }

    /// Whether the URI has a scheme (RFC 3986 §4.3 `absolute-URI` also excludes a fragment;
    /// this does not).
    public var isAbsolute: Bool { scheme != nil }
}

