// SessionConfiguration: everything a Session needs to know, as one value (AFNetworking's
// NSURLSessionConfiguration plus the manager's properties). Defaults are design §5's.

import CourierCompression
import CourierHTTP1
import CourierPosix
import CourierTLS
import CourierURL

/// A session's settings. Change a copy before creating the session; a session keeps its own.
public struct SessionConfiguration: Sendable {
    /// Bounds the whole connection phase: name resolution, TCP connect and TLS handshake, as
    /// curl's `--connect-timeout` does. Default 10 s (design §5).
    public var connectTimeout: Duration = .seconds(10)
    /// The longest time without a byte read or written while waiting on the peer. Default 60 s.
    public var idleTimeout: Duration = .seconds(60)
    /// The deadline of a whole task, redirects included (curl `--max-time`). Default none.
    public var totalTimeout: Duration? = nil
    /// The most connections per origin (scheme, host, port). Default 8.
    public var maximumConnectionsPerHost: Int = 8
    /// How long an idle pooled connection is kept. Default 60 s.
    public var connectionIdleTimeout: Duration = .seconds(60)
    /// TLS settings for https: trust roots, verification, client identity, versions.
    public var tls: TLSConfiguration = TLSConfiguration()
    /// AFNetworking's security policy (pinning), evaluated after each handshake. Default none.
    public var securityPolicy: SecurityPolicy? = nil
    /// Fixed name-to-address answers (curl `--resolve`).
    public var resolveOverrides: [ResolveOverride] = []
    /// Where connections for a host and port go instead (curl `--connect-to`); the request, its
    /// Host field and SNI still name the URL's host.
    public var connectTo: [ConnectToOverride] = []
    /// Connect over this address family only (curl `-4`, `-6`); nil: both (Happy Eyeballs).
    public var addressFamily: IPAddress.Family? = nil
    /// RFC 8305's Connection Attempt Delay: how long one address may try before the next starts.
    /// Default 250 ms (curl's `--happy-eyeballs-timeout-ms` is the same idea, 200 ms).
    public var connectionAttemptDelay: Duration = .milliseconds(250)
    /// Serve every origin of this session over this AF_UNIX socket instead of resolving its host
    /// and connecting over TCP (curl `--unix-socket`; the Docker API case). Requests, their Host
    /// field, TLS's SNI and name check still name the URL's host; the pool keys connections by
    /// origin as before, all of them on this socket, so a session with a socket never shares a
    /// connection with one without (each session has its own pool). Default nil.
    public var unixSocket: UnixSocketAddress? = nil
    /// The local end of every TCP connection (curl `--interface`, `--local-port`); a failure is
    /// `ConnectionError.Code.localBindFailed` (curl 45). Default nil: the kernel's choice.
    public var localBinding: LocalBinding? = nil
    /// TCP keep-alive probes on every TCP connection (curl `--keepalive-time`; curl probes after
    /// 60 s by default). Default nil: none (the kernel's default, off).
    public var tcpKeepAlive: TCPKeepAlive? = nil
    /// The most bytes per second each connection reads (curl `--limit-rate`): a token bucket;
    /// reading pauses on a timer when it is spent, and TCP's window slows the server. Capped
    /// bodies are never spliced. Default nil: no cap.
    public var maximumReceiveRate: Int? = nil
    /// The most bytes per second each connection writes (curl `--limit-rate`). Default nil.
    public var maximumSendRate: Int? = nil
    /// Fail an exchange whose speed stays below `bytesPerSecond` for `duration` (curl `-Y`/`-y`)
    /// with `ConnectionError.Code.transferTooSlow` (curl 28). Default nil.
    public var lowSpeedLimit: LowSpeedLimit? = nil
    /// Read a response body with a Content-Length until the connection closes, as if the field
    /// were not there (curl `--ignore-content-length`). Default false.
    public var ignoresContentLength: Bool = false
    /// Hand out chunked bodies as they came, chunk framing included (curl `--raw`; turn off
    /// `acceptsCompressedResponses` too for curl's whole `--raw`). Default false.
    public var passesChunkedFramingThrough: Bool = false
    /// Whether 3xx responses with a Location are followed. Default true (AFNetworking follows).
    public var followsRedirects: Bool = true
    /// Whether a download to a regular file over a plain connection moves the body from the
    /// socket to the file in the kernel (splice(2)), without copying it through the process.
    /// Default true; content-coded, chunked and TLS bodies are always written through the process.
    public var splicesDownloads: Bool = true
    /// Sees every connection's bytes and the tasks' events in step with them (the CLI's
    /// `--trace`); not coded. Default nil: nothing is observed. A tap turns off splicing and
    /// sendfile, so every byte passes through the process.
    package var wireTap: WireTap? = nil
    /// The network-activity tracker that counts this session's tasks, each from its resume to its
    /// suspension or completion (AFNetworkActivityIndicatorManager); nil (the default) counts
    /// nothing. Give several sessions `NetworkActivityTracker.shared`, or one of your own, to
    /// count them together.
    public var activityTracker: NetworkActivityTracker? = nil
    /// The most redirects followed per task (design §5: 10).
    public var redirectLimit: Int = 10
    /// Whether a redirect from https to http may be followed. Default false.
    public var allowsInsecureRedirects: Bool = false
    /// Header fields added to every request that does not carry a field of the same name
    /// (NSURLSessionConfiguration's `HTTPAdditionalHeaders`). Default: the User-Agent.
    public var defaultHeaders: HTTPHeaders = HTTPHeaders([("User-Agent", CourierVersion.userAgent)])
    /// The largest body a buffered data task keeps in memory (design §5: 10 MiB).
    public var maximumBodySize: Int = 10 * 1024 * 1024
    /// The largest (decoded) body any task accepts, also for bodies of unknown length (curl
    /// `--max-filesize`). A Content-Length above it fails before the body is read. Default none.
    public var maximumDownloadSize: UInt64? = nil
    /// Whether requests carry `Accept-Encoding: gzip, deflate` and bodies are decoded while
    /// streaming. Default false (curl without `--compressed`).
    public var acceptsCompressedResponses: Bool = false
    /// Limits on decoding a compressed response (docs/compression.md): expansion ratio 200 after
    /// 1 MiB (Apache mod_deflate's precedent), decoded size 1 GiB here; `maximumDownloadSize`
    /// lowers the decoded size further.
    public var decompressionLimits = DecompressionLimits(maximumDecodedSize: 1 << 30)
    /// Basic credentials sent with every request that has no Authorization field (curl `-u`).
    public var credential: Credential? = nil
    /// Asked before each redirect is followed; may change the next request or refuse it.
    public var redirectHandler: (@Sendable (Redirect) async -> RedirectDecision)? = nil
    /// The schemes a credential given by the challenge handler for a 401 is sent with, the
    /// strongest the server offers first: a usable Digest challenge (RFC 7616) gets Digest, else
    /// Basic. Default both (curl `--anyauth`); `[.digest]` is curl's `--digest`. With none the
    /// server offers, the 401 is the task's response.
    public var authenticationSchemes: [AuthenticationScheme] = [.digest, .basic]
    /// Asked for server trust after each TLS handshake, and on a 401 response.
    public var challengeHandler: (@Sendable (Challenge) async -> ChallengeDisposition)? = nil
    /// The mode a download task gives a file it creates, before the process's umask applies
    /// (open(2)'s mode). Default 0666, so a new file is 0644 under the usual umask 022, as curl's
    /// `-o` files are. A file that existed keeps its own mode.
    public var downloadFileMode: UInt32 = 0o666
    /// The cookie jar: it gives every request sent (each redirect hop included) its Cookie field
    /// and takes the Set-Cookie fields of every response head. Sessions share cookies only when
    /// given the same jar. Default none: no cookies are stored or sent (curl without `-b`/`-c`).
    public var cookieJar: CookieJar? = nil
    /// The HTTP proxy requests go through (docs/proxy.md): none (the default), one proxy URL, or
    /// the environment's `http_proxy`/`https_proxy`/`all_proxy`/`no_proxy` as curl reads them —
    /// read once, when the session is created.
    public var proxy: ProxyConfiguration = .none
    /// Parser limits for responses (head size, field count, interim responses).
    public var parserLimits: HTTP1ParserLimits = .default
    /// The most bytes of response heads one task accepts over its whole redirect chain (and
    /// authentication retries): every response's head counts, each already bounded by
    /// `parserLimits.maxHeadSize`. Beyond it the task fails with `.responseHeadsTooLarge` (curl
    /// exit 100) and nothing more is requested. Default 1 MiB: four heads of the maximum size;
    /// curl's transfer-wide bound is 20 × 300 KiB, which a chain of 10 redirects could make the
    /// CLI hold in memory.
    public var maximumTotalHeadSize: Int = 1024 * 1024
    /// When request bodies wait for the server's 100 Continue (`Expect: 100-continue`): bodies
    /// over 1 MiB or of unknown length, at most 1 s (curl's rule and timeout); `.never` turns it
    /// off. A request's own `expectContinue` overrides it. See docs/session.md.
    public var expectContinue: ExpectContinuePolicy = .default
    /// When failed requests are sent again (docs/retry.md): methods, statuses, errors, full-jitter
    /// backoff, `Retry-After`, a per-host budget. Default nil: no retries (the pool's one-time
    /// resend of a request that met a dead reused connection happens anyway).
    public var retryPolicy: RetryPolicy? = nil
    /// The private HTTP cache (RFC 9111; memory and disk tiers, docs/cache.md); nil (the
    /// default): nothing is cached. Sessions given the same `HTTPCache` share its entries.
    public var cache: HTTPCache? = nil

    /// The defaults.
    public init() {}
}

/// A redirect about to be followed.
public struct Redirect: Sendable {
    /// The 3xx response's status.
    public var status: Int
    /// The response head that asked for the redirect.
    public var response: HTTPResponseHead
    /// The request that got the redirect.
    public var previousRequest: HTTPRequest
    /// The request that will be sent next (method, body and credentials already adjusted).
    public var nextRequest: HTTPRequest
}

/// What a redirect handler decides.
public enum RedirectDecision: Sendable {
    /// Send `nextRequest` as prepared.
    case follow
    /// Send this request instead.
    case followWith(HTTPRequest)
    /// Do not follow: the 3xx response is the task's response.
    case refuse
}

/// An authentication challenge (AFNetworking's `NSURLAuthenticationChallenge`).
public enum Challenge: Sendable {
    /// After a TLS handshake, before the first request on the connection.
    case serverTrust(ServerTrustChallenge)
    /// A 401 response; `previousFailureCount` counts earlier 401s in this task.
    case httpAuthentication(response: HTTPResponseHead, url: URI, previousFailureCount: Int)
}
