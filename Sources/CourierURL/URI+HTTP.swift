// URI+HTTP: what an HTTP/1.1 client needs from a URI (RFC 9110 §4.2, RFC 9112 §3.2).
//
// Courier sends requests in origin-form (`path?query`, RFC 9112 §3.2.1) and writes the Host field
// from the authority without userinfo (RFC 9110 §7.2). These helpers are the only place that
// knows the http and https default ports.

extension URI {
    /// The port a scheme uses when the URI names none: 80 for `http`, 443 for `https`
    /// (RFC 9110 §4.2.1, §4.2.2); nil for other schemes.
    /// - Parameter scheme: a lower-case scheme.
    /// - Returns: the default port, or nil.
    public static func defaultPort(forScheme scheme: String) -> UInt16? {
        switch scheme {
        case "http": return 80
        case "https": return 443
        default: return nil
        }
    }

    /// The port to connect to: the explicit port, else the scheme's default; nil when neither
    /// exists.
    public var effectivePort: UInt16? {
        if let port { return port }
        return scheme.flatMap(URI.defaultPort(forScheme:))
    }

    /// Whether the scheme is `http` or `https`.
    public var isHTTP: Bool { scheme == "http" || scheme == "https" }

    /// The request-target in origin-form (RFC 9112 §3.2.1): the path, "/" when it is empty, then
    /// "?" and the query when there is one (even an empty one). Never the fragment or userinfo.
    ///
    /// The path is sent as parsed: dot segments are not removed (use `URI.removeDotSegments(_:)`
    /// first if that is wanted, as curl does unless `--path-as-is`).
    public var requestTarget: String {
        var target = path.isEmpty ? "/" : path
        if let query {
            target += "?"
            target += query
        }
        return target
    }

    /// The Host field value (RFC 9110 §7.2): the host, IPv6 addresses in brackets, then ":" and
    /// the port unless it is the scheme's default. Nil when there is no authority.
    public var hostFieldValue: String? {
        guard let host else { return nil }
        guard let port, port != scheme.flatMap(URI.defaultPort(forScheme:)) else {
            return host.description
        }
        return host.description + ":" + String(port)
    }

    /// Checks that this URI can be requested: scheme `http` or `https` and a non-empty host.
    ///
    /// `URI(parsing:)` already rejects an http(s) authority with an empty host; this also rejects
    /// `http:g`, which RFC 3986 accepts (and §5.4.2 resolves) but RFC 9110 §4.2.1 does not.
    /// - Throws: `URIError` `.unsupportedScheme` or `.missingHost`, offset 0.
    public func validateForHTTP() throws(URIError) {
        guard isHTTP else { throw URIError(.unsupportedScheme, offset: 0) }
        guard let host, !host.text.isEmpty else { throw URIError(.missingHost, offset: 0) }
    }
}
