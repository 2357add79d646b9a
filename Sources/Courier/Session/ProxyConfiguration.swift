// ProxyConfiguration: where a session's requests go when they go through an HTTP proxy, as curl
// decides it (lib/url.c `detect_proxy`, lib/noproxy.c; docs/proxy.md). The configuration is a
// value; the session turns it into a `ProxySettings` once, when it is created (the environment is
// read then, never per request), and asks the settings for each request's route.

import CourierHTTP1
import CourierPosix
import CourierURL

/// How a session reaches the network: directly, through one proxy, or through the proxies the
/// environment names (`http_proxy`, `https_proxy`, `all_proxy`, `no_proxy`, as curl reads them).
public struct ProxyConfiguration: Sendable {
    /// Where the proxy comes from.
    public enum Source: Sendable, Hashable {
        /// No proxy (the library's default).
        case none
        /// This proxy for http and https URLs: `http://[user:password@]host[:port]` (no scheme
        /// means http; the default port is 1080, as curl's).
        case url(String)
        /// The environment, read when the session is created (the CLI's default, as curl's):
        /// `http_proxy` (lower case only) for http URLs; `https_proxy`, then `HTTPS_PROXY`, for
        /// https URLs; then `all_proxy`, `ALL_PROXY`. Empty variables count as unset.
        case environment
    }

    /// Where the proxy comes from. Default `.none`.
    public var source: Source = .none
    /// Hosts reached directly (curl `--noproxy`): when nil, the environment's `no_proxy` /
    /// `NO_PROXY` applies (read even for `.url`, as curl does); `""` turns bypassing off.
    public var noProxy: String? = nil
    /// Credentials for the proxy (curl `-U`), used instead of the proxy URL's user information.
    public var credential: Credential? = nil
    /// Whether http URLs go through a CONNECT tunnel too (curl `-p`, `--proxytunnel`), instead of
    /// being sent to the proxy in absolute form. https URLs always use a tunnel.
    public var tunnelsHTTP: Bool = false
    /// Header fields sent to the proxy only (curl `--proxy-header`): on a CONNECT request, or on
    /// a request sent to the proxy in absolute form.
    public var headers: HTTPHeaders = HTTPHeaders()
    /// Whether Basic credentials go with the first request to the proxy (curl's behaviour), or
    /// only in answer to a 407 that asks for Basic. Default true.
    public var authenticatesPreemptively: Bool = true

    /// Creates a configuration.
    /// - Parameter source: where the proxy comes from.
    public init(_ source: Source = .none) { self.source = source }

    /// No proxy.
    public static var none: ProxyConfiguration { ProxyConfiguration(.none) }
    /// The environment's proxies, read when the session is created.
    public static var environment: ProxyConfiguration { ProxyConfiguration(.environment) }
    /// One proxy for every URL.
    /// - Parameter url: `http://[user:password@]host[:port]`.
    /// - Returns: the configuration.
    public static func url(_ url: String) -> ProxyConfiguration { ProxyConfiguration(.url(url)) }

    /// The settings this configuration means now: the environment (when it is read) through
    /// `lookup`. A proxy URL that cannot be used is kept as an error every request reports.
    /// - Parameter lookup: reads an environment variable; the process environment by default.
    /// - Returns: the settings.
    public func resolve(lookup: (String) -> String? = ProcessEnvironment.value) -> ProxySettings {
        var settings = ProxySettings()
        settings.tunnelsHTTP = tunnelsHTTP
        settings.headers = headers
        settings.authenticatesPreemptively = authenticatesPreemptively
        let noProxyText = noProxy ?? ProxyEnvironment.noProxy(lookup: lookup) ?? ""
        settings.noProxy = NoProxyList(noProxyText)
        func server(_ text: String, variable: String?) -> Result<ProxyServer, SessionError>? {
            do throws(SessionError) {
                var server = try ProxyServer(parsing: text)
                if let credential { server.credential = credential }
                return .success(server)
            } catch {
                var failure = error
                if let variable { failure.message += " (from \(variable))" }
                return .failure(failure)
            }
        }
        switch source {
        case .none:
            break
        case .url(let text):
            // curl: an empty -x "" means no proxy at all.
            if !text.isEmpty {
                settings.http = server(text, variable: nil)
                settings.https = settings.http
            }
        case .environment:
            if let found = ProxyEnvironment.proxy(forScheme: "http", lookup: lookup) {
                settings.http = server(found.value, variable: found.name)
            }
            if let found = ProxyEnvironment.proxy(forScheme: "https", lookup: lookup) {
                settings.https = server(found.value, variable: found.name)
            }
        }
        return settings
    }
}

/// One HTTP proxy: host, port and (optionally) Basic credentials.
public struct ProxyServer: Sendable, Hashable, CustomStringConvertible {
    /// The proxy's host name or address (IPv6 without brackets).
    public var host: String
    /// The proxy's port.
    public var port: UInt16
    /// Basic credentials for the proxy (from the URL's user information, percent-decoded).
    public var credential: Credential?

    /// curl's default proxy port (CURL_DEFAULT_PROXY_PORT).
    public static let defaultPort: UInt16 = 1080

    /// Creates a proxy.
    /// - Parameters:
    ///   - host: the host.
    ///   - port: the port.
    ///   - credential: Basic credentials, or nil.
    public init(host: String, port: UInt16 = ProxyServer.defaultPort, credential: Credential? = nil) {
        self.host = host
        self.port = port
        self.credential = credential
    }

    /// Parses `[http://][user[:password]@]host[:port][/]` as curl's `-x` does. Only http proxies
    /// are supported: https:// and socks schemes are refused (docs/proxy.md).
    /// - Parameter text: the proxy URL.
    /// - Throws: `SessionError` `.invalidProxy` (curl 5) for a URL that cannot be parsed,
    ///   `.unsupportedProxyScheme` (curl 7) for another scheme.
    public init(parsing text: String) throws(SessionError) {
        var candidate = text
        if !candidate.contains("://") { candidate = "http://" + candidate }
        let uri: URI
        do { uri = try URI(parsing: candidate) } catch {
            throw SessionError(.invalidProxy, "the proxy \(ProxyServer.redacted(text)) is not a valid URL")
        }
        guard let scheme = uri.scheme, scheme == "http" else {
            throw SessionError(.unsupportedProxyScheme, "the proxy scheme \(uri.scheme ?? "") is not supported (only http:// proxies are)")
        }
        guard let host = uri.host, !host.text.isEmpty else {
            throw SessionError(.invalidProxy, "the proxy \(ProxyServer.redacted(text)) has no host")
        }
        // A path or query is ignored, as curl ignores it.
        self.host = host.text
        self.port = uri.port ?? ProxyServer.defaultPort
        if let userinfo = uri.userinfo {
            let parts = userinfo.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            do throws(PercentDecodingError) {
                let user = try PercentEncoding.decodeToString(String(parts[0]))
                let password = parts.count > 1 ? try PercentEncoding.decodeToString(String(parts[1])) : ""
                credential = Credential(user: user, password: password)
            } catch {
                throw SessionError(.invalidProxy, "the proxy's user information is not valid percent-encoding")
            }
        }
    }

    /// `http://host:port` (never the credentials).
    public var description: String {
        let name = host.contains(":") ? "[" + host + "]" : host
        return "http://\(name):\(port)"
    }

    /// The text with any user information replaced, for messages.
    static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@") else { return text }
        let start = text.firstRange(of: "://").map { $0.upperBound } ?? text.startIndex
        guard start <= at else { return text }
        return String(text[..<start]) + "***" + String(text[at...])
    }
}

/// A configuration made concrete: the proxy (or the error) for each scheme and the bypass list.
public struct ProxySettings: Sendable {
    /// The proxy for http URLs (nil: direct), or why the configured one cannot be used.
    public var http: Result<ProxyServer, SessionError>?
    /// The proxy for https URLs.
    public var https: Result<ProxyServer, SessionError>?
    /// Hosts reached directly.
    public var noProxy = NoProxyList("")
    /// See `ProxyConfiguration.tunnelsHTTP`.
    public var tunnelsHTTP = false
    /// See `ProxyConfiguration.headers`.
    public var headers = HTTPHeaders()
    /// See `ProxyConfiguration.authenticatesPreemptively`.
    public var authenticatesPreemptively = true

    /// No proxy.
    public init() {}

    /// Whether any proxy is configured.
    public var isEmpty: Bool { http == nil && https == nil }

    /// The proxy a request to `uri` goes through: nil for a direct connection (no proxy for its
    /// scheme, or its host is in the bypass list).
    /// - Parameter uri: an http or https URL.
    /// - Returns: the proxy, or nil.
    /// - Throws: the configuration's error when the proxy for this scheme cannot be used.
    public func proxy(for uri: URI) throws(SessionError) -> ProxyServer? {
        let chosen = uri.scheme == "https" ? https : http
        guard let chosen else { return nil }
        if let host = uri.host?.text, noProxy.matches(host: host) { return nil }
        return try chosen.get()
    }

    /// Whether a request to `uri` through a proxy goes through a CONNECT tunnel.
    func tunnels(_ uri: URI) -> Bool { uri.scheme == "https" || tunnelsHTTP }
}
