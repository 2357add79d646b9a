// The settings of one low-level connection: timeouts (design §5: connect / TLS handshake /
// idle read-write / total = 10 s / 10 s / 60 s / none, after AsyncHTTPClient and curl), parser
// limits, buffering, and which event loop and resolver to use.

import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

/// Settings for `HTTP1Connection.connect`.
public struct HTTP1ConnectionOptions: Sendable {
    /// Resolution plus the TCP connect race (Happy Eyeballs). Default 10 s (curl
    /// `--connect-timeout` default is 300 s; AsyncHTTPClient 10 s).
    public var connectTimeout: Duration = .seconds(10)
    /// The TLS handshake. Default 10 s.
    public var tlsHandshakeTimeout: Duration = .seconds(10)
    /// The longest time without a byte read or written while an operation waits on the peer
    /// (a consumer that does not pull the body is not waiting on the peer). Default 60 s
    /// (AsyncHTTPClient's read timeout; curl `--speed-time` in spirit).
    public var idleTimeout: Duration = .seconds(60)
    /// The deadline for one exchange, from sending the head to the end of the response body; the
    /// connect and handshake are bounded by it too. Default none (curl `--max-time` default).
    public var totalTimeout: Duration? = nil
    /// RFC 8305 Connection Attempt Delay. Default 250 ms.
    public var attemptDelay: Duration = .milliseconds(250)
    /// Response parsing limits.
    public var limits: HTTP1ParserLimits = .default
    /// The most bytes read from the socket per call (reads start smaller and adapt up to this).
    /// Default 64 KiB.
    public var readSize: Int = 65536
    /// How many decoded response-body bytes the connection reads ahead of its consumer: reading
    /// goes on while the bytes nobody has taken stay below it, and stops above it (back-pressure
    /// then reaches the server through TCP's window). 0 reads only while the consumer waits
    /// (strict pull). Default 256 KiB (the high-water mark AsyncHTTPClient's body stream uses).
    public var readAheadLimit: Int = 256 * 1024
    /// The event loop to run on; nil uses a process-wide loop.
    public var eventLoop: EventLoop? = nil
    /// The resolver; nil uses a process-wide resolver.
    public var resolver: Resolver? = nil
    /// When set, bounds resolution, the TCP connect and the TLS handshake together, as curl's
    /// `--connect-timeout` does; `connectTimeout` and `tlsHandshakeTimeout` still apply inside it.
    public var connectAndHandshakeTimeout: Duration? = nil
    /// A policy evaluated on the completed handshake (AFNetworking's `AFSecurityPolicy`: pinning,
    /// invalid certificates, domain names). Nil: the handshake's own verification decides.
    public var securityPolicy: SecurityPolicy? = nil
    /// Connect to this AF_UNIX socket instead of resolving the host and connecting over TCP (curl
    /// `--unix-socket`, `--abstract-unix-socket`: the Docker API case). The request, its Host
    /// field, TLS's SNI and name check still use the host given to `connect`. Default nil.
    public var unixSocket: UnixSocketAddress? = nil
    /// The local end of TCP connections (curl `--interface`, `--local-port`). Default nil: the
    /// kernel picks the address and port.
    public var localBinding: LocalBinding? = nil
    /// TCP keep-alive probes on every TCP connection (curl `--keepalive-time`). Default nil: none.
    public var keepAlive: TCPKeepAlive? = nil
    /// The most bytes per second read from the socket (curl `--limit-rate`), ciphertext included
    /// on TLS; reading pauses on a timer when the budget is spent (TCP's window then slows the
    /// server). Default nil: no cap.
    public var maximumReceiveRate: Int? = nil
    /// The most bytes per second written to the socket (curl `--limit-rate`). Default nil.
    public var maximumSendRate: Int? = nil
    /// Fail an exchange whose speed stays below this for its duration (curl `-Y`/`-y`), with
    /// `transferTooSlow` (exit 28). Default nil.
    public var lowSpeedLimit: LowSpeedLimit? = nil
    /// Read a response's Content-Length body until the close instead (curl
    /// `--ignore-content-length`); the connection is then not reused. Default false.
    public var ignoresContentLength = false
    /// Hand out chunked response bodies with their chunk framing, as they came (curl `--raw`).
    /// Default false.
    public var passesChunkedFramingThrough = false
    /// AFNetworking's server-trust challenge: asked after every TLS handshake, before any request
    /// is sent. Nil: default handling (the policy, or the handshake's verification).
    public var serverTrustHandler: (@Sendable (ServerTrustChallenge) async -> ChallengeDisposition)? = nil
    /// Asked for the server-trust handler when `serverTrustHandler` is nil, each time a
    /// connection is opened (a session's handler that can be set at any time).
    var currentServerTrustHandler: (@Sendable () -> (@Sendable (ServerTrustChallenge) async -> ChallengeDisposition)?)? = nil

    /// How long a request body sent with `Expect: 100-continue` waits for the server's 100
    /// Continue before it is sent anyway. Default 1 s (curl's `--expect100-timeout` default).
    public var expectContinueTimeout: Duration = .seconds(1)

    /// Sees the bytes sent and received (the CLI's --trace); nil, the default, costs nothing.
    /// With a tap, file bodies and downloads go through the process (no sendfile or splice).
    package var wireTap: WireTap? = nil

    /// The defaults.
    public init() {}

    /// The event loop connections use when their options name none. A task that drives
    /// connections on it (`Task(executorPreference: HTTP1ConnectionOptions.sharedEventLoop)`, or
    /// `withTaskExecutorPreference`) moves bytes from the socket to its code without a thread
    /// switch; from any other executor each operation costs one hop.
    public static var sharedEventLoop: EventLoop { SharedRuntime.loop }
}

/// The process-wide event loop and resolver used when options name none. Created on first use and
/// kept for the life of the process (like swift-nio's singleton loop group).
package enum SharedRuntime {
    /// The event loop every connection uses unless its options name another.
    package static let loop: EventLoop = {
        do { return try EventLoop(name: "courier") } catch { fatalError("cannot create the Courier event loop: \(error)") }
    }()

    static let resolver: Resolver = {
        do { return try Resolver() } catch { fatalError("cannot create the Courier resolver: \(error)") }
    }()
}
