// HTTP1Connection: the low-level, session-free client connection (docs/connection.md).
//
// What it owns: a LoopConnection on an event loop. An async method called from a task whose
// executor preference is that loop calls the core directly and suspends only when it must wait for
// the peer (its continuation is resumed by the loop's I/O handler, and the task goes on in the same
// loop turn); called from anywhere else it hops to the loop once. Nothing here blocks a thread of
// the cooperative pool (design §4). Cancelling the awaiting task cancels the operation and closes
// the connection.
//
// Lifecycle: connect → (sendHead → [writeBody…, finishBody] → receiveResponse → body…)* → close.
// One exchange at a time (no pipelining); a new request needs `isReusable`.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

/// One HTTP/1.1 connection to an origin, plain or TLS, usable without any session object.
///
/// ```swift
/// let connection = try await HTTP1Connection.connect(host: "example.com", port: 443, tls: .default)
/// try await connection.sendHead(method: .get, target: "/")
/// let response = try await connection.receiveResponse()
/// for try await slice in response.body { consume(slice) }
/// await connection.close()
/// ```
public final class HTTP1Connection: Sendable {
    let core: LoopConnection
    /// The host name or address this connection was made to.
    public let host: String
    /// The port.
    public let port: UInt16
    /// Whether the connection uses TLS.
    public let usesTLS: Bool
    /// The peer's address.
    public let remoteAddress: SocketAddress?
    /// How long each phase of establishing the connection took.
    public var timings: ConnectionTimings { timingsStorage.withLock { $0 } }
    /// The number of request heads sent on this connection so far (0: a fresh connection).
    public var requestCount: Int { requests.load(ordering: .relaxed) }

    private let timingsStorage = Mutex(ConnectionTimings())
    private let tunnelStorage = Mutex<[TunnelExchange]>([])
    private let proxyStorage = Mutex<ProxyServer?>(nil)

    /// The proxy this connection goes through (its TCP peer), nil for a direct connection.
    var proxy: ProxyServer? { proxyStorage.withLock { $0 } }

    /// The CONNECT exchanges that opened this connection's tunnel through a proxy (a 407 answered
    /// makes two), for the `-v` trace and `%{http_connect}`; empty without a tunnel.
    var tunnelExchanges: [TunnelExchange] { tunnelStorage.withLock { $0 } }
    private let requests = Atomic<Int>(0)

    private init(core: LoopConnection, host: String, port: UInt16, usesTLS: Bool, remoteAddress: SocketAddress?) {
        LiveObjects.created(.connection)
        self.core = core
        self.host = host
        self.port = port
        self.usesTLS = usesTLS
        self.remoteAddress = remoteAddress
    }

    deinit {
        LiveObjects.destroyed(.connection)
        let core = self.core
        core.loop.execute { core.close() }
    }

    /// Resolves `host`, connects (Happy Eyeballs, RFC 8305) and, with `tls`, runs the TLS
    /// handshake with SNI and host name verification.
    /// - Parameters:
    ///   - host: a DNS name or IP literal.
    ///   - port: the port.
    ///   - tls: TLS settings, or nil for plain HTTP.
    ///   - options: timeouts, limits, loop and resolver.
    /// - Returns: a connected, idle connection.
    /// - Throws: `ConnectionError` (`connectFailed`, `connectTimeout`, `tlsFailed`,
    ///   `tlsHandshakeTimeout`, `totalTimeout`, `cancelled`).
    public static func connect(host: String, port: UInt16, tls: TLSConfiguration? = nil,
                               options: HTTP1ConnectionOptions = HTTP1ConnectionOptions()) async throws(ConnectionError) -> HTTP1Connection {
        try await connect(host: host, port: port, tls: tls, options: options, via: nil)
    }

    /// `connect`, through `proxy` when there is one (docs/proxy.md): the TCP connection goes to the
    /// proxy; with a tunnel, a CONNECT exchange opens it (a 407 asking for Basic answered once,
    /// on the same connection when its body was read whole, else on a new one), then TLS runs
    /// with the origin's name (SNI, host name verification, pinning), never the proxy's.
    static func connect(host: String, port: UInt16, tls: TLSConfiguration?, options: HTTP1ConnectionOptions,
                        via proxy: ProxyRoute?) async throws(ConnectionError) -> HTTP1Connection {
        var options = options
        if options.serverTrustHandler == nil { options.serverTrustHandler = options.currentServerTrustHandler?() }
        let loop = options.eventLoop ?? SharedRuntime.loop
        let started = Instant.now()
        var timings = ConnectionTimings()
        var tls = tls
        if tls != nil {
            if options.serverTrustHandler != nil {
                // The handler may trust what verification would refuse: record, decide afterwards.
                tls!.certificateVerification = .none
            } else if let policy = options.securityPolicy {
                tls!.certificateVerification = weaker(tls!.certificateVerification, policy.requiredVerification)
            }
        }
        let context: TLSClientContext?
        if let tls {
            do { context = try TLSClientContext.shared(for: tls) } catch { throw ConnectionError.from(tls: error) }
        } else {
            context = nil
        }
        let tunnels = proxy?.tunnel == true
        var authorization = proxy.flatMap { $0.authenticatesPreemptively ? $0.server.credential?.basicAuthorization : nil }
        var exchanges: [TunnelExchange] = []
        var answered407 = false
        attempts: while true {
            let (socket, remote) = try await dial(host: proxy?.server.host ?? host, port: proxy?.server.port ?? port,
                                                  proxy: proxy, options: options, started: started, timings: &timings)
            var engine: TLSConnection?
            if let context, !tunnels {
                do {
                    // The policy joins the resumption key: a session is only offered where the same
                    // pins will judge it.
                    engine = try TLSConnection(context: context, host: host, port: Int(port), securityPolicy: options.securityPolicy)
                } catch {
                    try? socket.close()
                    throw ConnectionError.from(tls: error)
                }
            }
            let core = LoopConnection(loop: loop, socket: socket, tls: engine, options: options)
            let connection = HTTP1Connection(core: core, host: host, port: port, usesTLS: tls != nil, remoteAddress: remote)
            do {
                try await loop.submit { try core.attach() }
                if tunnels, let proxy {
                    try await loop.submit { core.markReady() }
                    while true {
                        let reply = try await connection.requestTunnel(host: host, port: port, proxy: proxy, authorization: authorization)
                        exchanges.append(reply.exchange)
                        if reply.status / 100 == 2 { break }
                        if reply.status == 407, !answered407, authorization == nil, let credential = proxy.server.credential,
                           reply.asksForBasic {
                            answered407 = true
                            authorization = credential.basicAuthorization
                            if reply.reusable { continue }
                            await connection.close()
                            continue attempts
                        }
                        await connection.close()
                        var failure = ConnectionError(.proxyTunnelFailed, "CONNECT tunnel failed, response \(reply.status)")
                        failure.proxy = proxy.server.description
                        failure.proxyStatus = reply.status
                        failure.tunnelExchanges = exchanges
                        throw failure
                    }
                    let policy = options.securityPolicy
                    try await loop.submit { () throws in
                        let engine = try context.map { try TLSConnection(context: $0, host: host, port: Int(port), securityPolicy: policy) }
                        try core.openTunnel(tls: engine)
                    }
                }
                if let tls {
                    // The nearer deadline fires, named for what it bounds: the connection phase
                    // (curl --connect-timeout) is a handshake timeout, not the exchange's total.
                    var bound = options.totalTimeout.map { (at: started + $0, code: ConnectionError.Code.totalTimeout) }
                    if let phase = options.connectAndHandshakeTimeout, bound.map({ started + phase < $0.at }) ?? true {
                        bound = (at: started + phase, code: .tlsHandshakeTimeout)
                    }
                    let deadline = bound
                    let handshakeStarted = Instant.now()
                    do {
                        try await loop.submit(deferred: { (promise: LoopPromise<Void>) in core.handshake(promise, deadline: deadline) })
                    } catch {
                        throw connection.closing(ConnectionError.from(error))
                    }
                    timings.tlsHandshake = Instant.now() - handshakeStarted
                    try await connection.decideTrust(tls: tls, options: options)
                } else if !tunnels {
                    try await loop.submit { core.markReady() }
                }
            } catch let error as ConnectionError where error.code == .proxyTunnelFailed {
                throw error
            } catch {
                throw connection.closing(ConnectionError.from(error))
            }
            let finalTimings = timings
            connection.timingsStorage.withLock { $0 = finalTimings }
            connection.tunnelStorage.withLock { $0 = exchanges }
            connection.proxyStorage.withLock { $0 = proxy?.server }
            return connection
        }
    }

    /// Resolves `host` and connects to it (Happy Eyeballs) within the connection phase's budget;
    /// failures name the proxy when `proxy` is set (curl 5 for a proxy that does not resolve).
    private static func dial(host: String, port: UInt16, proxy: ProxyRoute?, options: HTTP1ConnectionOptions, started: Instant,
                             timings: inout ConnectionTimings) async throws(ConnectionError) -> (Socket, SocketAddress?) {
        let loop = options.eventLoop ?? SharedRuntime.loop
        let resolver = options.resolver ?? SharedRuntime.resolver
        var connectBudget = options.connectTimeout
        if let total = options.totalTimeout, total < connectBudget { connectBudget = total }
        if let phase = options.connectAndHandshakeTimeout, phase < connectBudget { connectBudget = phase }
        let resolveStarted = Instant.now()
        let socket: Socket
        let connectStarted: Instant
        if let unixSocket = options.unixSocket {
            // No resolution: the origin (or the proxy) is served on this socket (curl
            // --unix-socket); the host still names the request, its Host field and TLS.
            timings.resolution = .zero
            connectStarted = Instant.now()
            do {
                socket = try await loop.connect(toUnixSocket: unixSocket, timeout: max(connectBudget, .milliseconds(1)))
            } catch let error as Errno {
                var failure = ConnectionError(error == .timedOut ? .connectTimeout : .connectFailed,
                                              "could not connect to unix socket \(unixSocket): \(error.message)")
                failure.errno = error
                throw failure
            } catch {
                throw ConnectionError.from(error)
            }
        } else {
            var configuration = ConnectConfiguration(attemptDelay: options.attemptDelay)
            configuration.setup.keepAlive = options.keepAlive
            if let binding = options.localBinding {
                let keepAlive = configuration.setup.keepAlive
                configuration.setup = try await binding.resolve(with: resolver)
                configuration.setup.keepAlive = keepAlive
            }
            let remainingBudget = connectBudget - (Instant.now() - started)
            let addresses: [SocketAddress]
            do {
                addresses = try await resolve(host: host, port: port, resolver: resolver, within: max(remainingBudget, .milliseconds(1)))
            } catch {
                var failure = error
                if let proxy {
                    failure.proxy = proxy.server.description
                    if failure.resolutionError != nil { failure.message = "Could not resolve proxy: \(host)" }
                }
                throw failure
            }
            timings.resolution = (timings.resolution ?? .zero) + (Instant.now() - resolveStarted)
            connectStarted = Instant.now()
            do {
                configuration.timeout = max(connectBudget - (Instant.now() - started), .milliseconds(1))
                socket = try await loop.connect(to: addresses, configuration: configuration)
            } catch let error as ConnectError {
                if error.code == .localBindFailed, let attempt = error.attempts.first(where: \.failedToBind), let errno = attempt.error {
                    // curl's words for a local end that cannot be bound (exit 45).
                    var failure = ConnectionError(.localBindFailed, "bind failed with errno \(errno.rawValue): \(errno.message)")
                    failure.errno = errno
                    failure.connectError = error
                    throw failure
                }
                var failure = ConnectionError(error.code == .timedOut ? .connectTimeout : .connectFailed,
                                              proxy == nil ? "could not connect to \(host):\(port)" : "could not connect to the proxy \(host):\(port)")
                failure.connectError = error
                failure.proxy = proxy?.server.description
                throw failure
            } catch {
                throw ConnectionError.from(error)
            }
        }
        timings.connect = (timings.connect ?? .zero) + (Instant.now() - connectStarted)
        return (socket, try? socket.remoteAddress())
    }

    /// Sends `CONNECT host:port` (with `Host: host:port`, the proxy's credentials and header
    /// fields) and reads the proxy's reply: a 2xx leaves the connection ready to become a tunnel
    /// (its framing fields ignored, RFC 9110 §9.3.6); any other reply's body is read and dropped
    /// (up to 1 MiB), so the connection can carry a second CONNECT when it persists.
    private func requestTunnel(host: String, port: UInt16, proxy: ProxyRoute, authorization: String?) async throws(ConnectionError) -> TunnelReply {
        let authority = (host.contains(":") ? "[" + host + "]" : host) + ":\(port)"
        var headers = HTTPHeaders()
        if let authorization { headers.add(name: "Proxy-Authorization", value: authorization) }
        if let agent = proxy.userAgent, !proxy.headers.contains(name: "User-Agent") { headers.add(name: "User-Agent", value: agent) }
        // curl's order: Proxy-Connection, then the --proxy-header fields.
        if !proxy.headers.contains(name: "Proxy-Connection") { headers.add(name: "Proxy-Connection", value: "Keep-Alive") }
        for (name, value) in proxy.headers { headers.add(name: name, value: value) }
        let encoded: EncodedHead
        do {
            encoded = try RequestHeadEncoder().encode(method: .connect, target: authority, host: authority, headers: headers, body: .none)
        } catch {
            var failure = ConnectionError(.invalidRequest, "the CONNECT request head is invalid")
            failure.encodingError = error
            throw failure
        }
        try await sendHead(encoded: encoded, method: .connect, headers: headers)
        let response = try await receiveResponse()
        let exchange = TunnelExchange(requestHead: encoded.bytes.joined, response: response.head)
        if response.head.status / 100 == 2 {
            return TunnelReply(exchange: exchange, status: response.head.status, asksForBasic: false, reusable: false)
        }
        var reusable = true
        var dropped = 0
        do {
            for try await slice in response.body {
                dropped += slice.readableBytes
                if dropped > 1 << 20 { reusable = false; break }
            }
        } catch {
            reusable = false
        }
        let asksForBasic = response.head.headers["Proxy-Authenticate"].contains { value in
            value.utf8.count >= 5 && value.utf8.prefix(5).map { $0 | 0x20 } == Array("basic".utf8)
        }
        return TunnelReply(exchange: exchange, status: response.head.status, asksForBasic: asksForBasic, reusable: reusable && isReusable)
    }

    /// The server-trust step after a handshake: the challenge handler first (AFNetworking asks its
    /// delegate before evaluating), then the security policy. A failure leaves the engine failed.
    private func decideTrust(tls: TLSConfiguration, options: HTTP1ConnectionOptions) async throws {
        let core = self.core
        let loop = core.loop
        let host = self.host
        let port = self.port
        var policy = options.securityPolicy
        if let handler = options.serverTrustHandler {
            let challenge = try await loop.submit {
                ServerTrustChallenge(host: host, port: port, peerCertificates: core.tls?.peerCertificates ?? [],
                                     verifyResult: core.tls!.verifyResult)
            }
            switch await handler(challenge) {
            case .useCredential: return
            case .cancelAuthenticationChallenge: throw ConnectionError(.cancelled, "the server-trust challenge was cancelled")
            case .fail(let error):
                var failure = ConnectionError.from(tls: TLSError(code: .certificateRejected,
                                                                 message: "the server-trust challenge failed the connection to \(host): \(error)"))
                failure.underlying = error
                throw failure
            case .rejectProtectionSpace:
                throw ConnectionError.from(tls: TLSError(code: .certificateRejected, message: "the server-trust challenge rejected \(host)"))
            case .performDefaultHandling:
                // The handshake verified nothing: default handling is the policy, or the
                // configured verification expressed as one.
                if policy == nil {
                    var derived = SecurityPolicy()
                    derived.allowInvalidCertificates = tls.certificateVerification == .none
                    derived.validatesDomainName = tls.certificateVerification == .fullVerification
                    policy = derived
                }
            }
        }
        guard let policy else { return }
        try await loop.submit { try core.tls!.evaluate(policy) }
    }

    /// Resolves `host`, giving up after `budget` (the resolver itself has no deadline; a cancelled
    /// resolution returns at once and its getaddrinfo finishes in the background).
    private static func resolve(host: String, port: UInt16, resolver: Resolver,
                                within budget: Duration) async throws(ConnectionError) -> [SocketAddress] {
        enum Outcome: Sendable {
            case resolved([SocketAddress])
            case failed(ResolutionError)
            case timedOut
        }
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do throws(ResolutionError) {
                    return .resolved(try await resolver.resolve(host: host, port: port))
                } catch {
                    return .failed(error)
                }
            }
            group.addTask {
                try? await Task.sleep(for: budget)
                return .timedOut
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        switch outcome {
        case .resolved(let addresses):
            return addresses
        case .timedOut:
            if Task.isCancelled { throw ConnectionError(.cancelled, "the task was cancelled") }
            throw ConnectionError(.connectTimeout, "resolving \(host) took longer than \(budget)")
        case .failed(let error):
            if error.code == .cancelled { throw ConnectionError(.cancelled, "the task was cancelled") }
            var failure = ConnectionError(.connectFailed, "could not resolve \(host)")
            failure.resolutionError = error
            throw failure
        }
    }

    /// Whether a new request may be sent now: connected, idle, and the last response allowed
    /// persistence (RFC 9112 §9.3).
    public var isReusable: Bool { core.reusable.load(ordering: .acquiring) }

    /// Sends a request head. With `body` `.known(n)` (n > 0) or `.unknown`, follow with
    /// `writeBody` calls and `finishBody()`; `.unknown` is sent chunked.
    ///
    /// When `headers` carry `Expect: 100-continue` and a body follows, the first body write waits
    /// for the server's 100 Continue — at most `HTTP1ConnectionOptions.expectContinueTimeout`,
    /// then the body goes anyway; other interim responses (102, 103) are skipped. A final
    /// response that comes first ends the upload: the write throws `earlyResponse`, nothing of the
    /// body is sent, `receiveResponse()` returns that response, and the connection closes after
    /// it. Upload progress therefore sees no byte before the 100.
    /// - Parameters:
    ///   - method: the method (CONNECT is not supported here).
    ///   - target: the request target, already percent-encoded (origin form `/path?query`).
    ///   - headers: the fields; a Host field is added from `host` and `port` unless present.
    ///   - body: the body length.
    /// - Throws: `ConnectionError` (`invalidRequest` before anything is sent; `notReusable`;
    ///   I/O and timeout errors, after which the connection is closed).
    public func sendHead(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(),
                         body: BodyLength = .none) async throws(ConnectionError) {
        guard method != .connect else {
            throw ConnectionError(.invalidRequest, "CONNECT is not supported by HTTP1Connection")
        }
        let encoded: EncodedHead
        do {
            encoded = try RequestHeadEncoder().encode(method: method, target: target, host: hostField,
                                                      headers: headers, body: body)
        } catch {
            var failure = ConnectionError(.invalidRequest, "the request head is invalid")
            failure.encodingError = error
            throw failure
        }
        try await sendHead(encoded: encoded, method: method, headers: headers)
    }

    /// Sends a head the caller already encoded (a session encodes each request once: the same
    /// bytes go to its observer, its offline rendering and the wire).
    /// - Parameter expectContinueTimeout: how long a body waits for 100 Continue when the head
    ///   carries `Expect: 100-continue` (nil: the options' `expectContinueTimeout`).
    func sendHead(encoded: EncodedHead, method: HTTPMethod, headers: HTTPHeaders,
                  expectContinueTimeout: Duration? = nil) async throws(ConnectionError) {
        var info = HTTP1ClientStateMachine.RequestInfo(method: method, headers: headers, hasBody: false)
        info.upgradeRequested = false  // protocol switches are not supported: a 101 is an error
        let requestInfo = info
        let expect = HTTP1Connection.expectsContinue(headers) ? (expectContinueTimeout ?? core.options.expectContinueTimeout) : nil
        // A CONNECT opens the connection (a tunnel); the requests it carries are counted.
        if method != .connect { requests.add(1, ordering: .relaxed) }
        try await perform({ core in core.sendHead(encoded, info: requestInfo, expectContinue: expect) },
                          wait: { core, waiter in core.waitForWrite(waiter) })
    }

    /// Whether the fields carry `Expect: 100-continue` (the expectation is case-insensitive,
    /// RFC 9110 §10.1.1).
    static func expectsContinue(_ headers: HTTPHeaders) -> Bool {
        headers["Expect"].contains { value in
            let trimmed = value.utf8.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            return ASCIICase.equal(trimmed, "100-continue".utf8)
        }
    }

    /// Sends a request with a whole body in one call (head, body, end).
    /// - Parameters:
    ///   - method: the method.
    ///   - target: the request target.
    ///   - headers: the fields.
    ///   - body: the body, or nil for none.
    /// - Throws: `ConnectionError`.
    public func send(method: HTTPMethod, target: String, headers: HTTPHeaders = HTTPHeaders(),
                     body: ByteBuffer? = nil) async throws(ConnectionError) {
        guard let body else {
            try await sendHead(method: method, target: target, headers: headers, body: .none)
            return
        }
        try await sendHead(method: method, target: target, headers: headers, body: .known(UInt64(body.readableBytes)))
        if body.readableBytes > 0 {
            try await writeBody(body)
            try await finishBody()
        }
    }

    /// Writes part of the request body; returns once the bytes are in the kernel's send buffer
    /// (back-pressure: at most one buffer is queued).
    /// - Parameter buffer: the bytes (framed as a chunk when the length is unknown; an empty
    ///   buffer writes nothing).
    /// - Throws: `ConnectionError` (`invalidRequest` when it would exceed the declared length;
    ///   `earlyResponse` when the server answered before taking the whole body — stop sending
    ///   and read that response with `receiveResponse()`).
    public func writeBody(_ buffer: ByteBuffer) async throws(ConnectionError) {
        try await perform({ core in core.writeBody(buffer) }, wait: { core, waiter in
            core.waitForWrite(waiter, retry: { core.writeBody(buffer) })
        })
    }

    /// Writes `count` bytes of `file` from `offset` as part of a Content-Length request body, with
    /// sendfile(2) (zero copy). Plain connections only: over TLS read the file and `writeBody`.
    /// - Parameters:
    ///   - file: an open file (kept open by the caller until this returns).
    ///   - offset: the file offset of the first byte.
    ///   - count: the number of bytes.
    /// - Throws: `ConnectionError` (`invalidRequest` on TLS, for chunked bodies, when the count
    ///   exceeds the declared length or the file is shorter than the range).
    public func writeFile(_ file: File, offset: Int64, count: Int) async throws(ConnectionError) {
        try await perform({ core in core.writeFile(file, offset: offset, count: count) }, wait: { core, waiter in
            core.waitForWrite(waiter, retry: { core.writeFile(file, offset: offset, count: count) })
        })
    }

    /// Ends the request body: the last chunk (with `trailers`) for chunked bodies; a check that
    /// every declared byte was written for Content-Length bodies.
    /// - Parameter trailers: trailer fields (chunked bodies only).
    /// - Throws: `ConnectionError`.
    public func finishBody(trailers: HTTPHeaders = HTTPHeaders()) async throws(ConnectionError) {
        try await perform({ core in core.finishBody(trailers: trailers) }, wait: { core, waiter in
            core.waitForWrite(waiter, retry: { core.finishBody(trailers: trailers) })
        })
    }

    /// Waits for the final response head (1xx interim responses are skipped).
    /// - Returns: the response; read its `body` to the end before the next request.
    /// - Throws: `ConnectionError` (`remoteClosed` for an empty reply, `protocolError`, timeouts).
    public func receiveResponse() async throws(ConnectionError) -> HTTP1Response {
        // On the loop the body stays with the connection for the first pull (no box, no hop);
        // from elsewhere it comes with the head, which saves a hop for a small response.
        let bodyWithHead = !core.isOnLoop
        let start = try await perform({ core in core.receiveHead(bodyWithHead: bodyWithHead) },
                                      wait: { core, waiter in core.waitForHead(waiter) })
        return HTTP1Response(head: start.head, expectContinue: start.continueOutcome,
                             body: HTTP1ResponseBody(connection: self, exchange: start.exchange, prefetched: start.body))
    }

    /// Closes the connection (with a TLS close_notify when possible). Operations in progress fail
    /// with `cancelled`. Idempotent.
    public func close() async {
        let core = self.core
        if core.isOnLoop {
            core.close()
            return
        }
        _ = try? await core.loop.submit { core.close() }
    }

    // MARK: Internals

    /// Closes the connection without waiting (on the loop, now if already there).
    func closeSoon() {
        let core = self.core
        if core.isOnLoop { core.close() } else { core.loop.execute { core.close() } }
    }

    /// Calls `handler` (on the loop) when the connection closes or fails while no exchange is in
    /// progress: a pool drops it at once instead of finding it dead at the next lease.
    func whenIdleCloses(_ handler: @escaping @Sendable () -> Void) {
        let core = self.core
        if core.isOnLoop { core.onIdleClose = handler } else { core.loop.execute { core.onIdleClose = handler } }
    }

    /// The event loop this connection lives on.
    var eventLoop: EventLoop { core.loop }

    /// Lends the rest of the response body of `exchange` for splicing into a file (plain
    /// connections, Content-Length bodies); nil when it cannot be. Return it with `returnLoan`.
    func lendBody(exchange: Int) async -> BodyLoan? {
        let core = self.core
        if core.isOnLoop { return core.lendBody(exchange: exchange) }
        return try? await core.loop.submit { core.lendBody(exchange: exchange) }
    }

    /// Gives a lent body back (see `LoopConnection.returnLoan`).
    func returnLoan(moved: UInt64, endOfStream: Bool, error: ConnectionError?) async {
        let core = self.core
        if core.isOnLoop {
            core.returnLoan(moved: moved, endOfStream: endOfStream, error: error)
            return
        }
        _ = try? await core.loop.submit { core.returnLoan(moved: moved, endOfStream: endOfStream, error: error) }
    }

    /// Decoded response-body bytes read ahead and not yet taken by the consumer (tests only).
    package var bufferedBodyBytes: Int {
        get async {
            let core = self.core
            if core.isOnLoop { return core.bufferedBodyBytes }
            return (try? await core.loop.submit { core.bufferedBodyBytes }) ?? 0
        }
    }

    /// Everything decoded of the body since the last pull (or the end).
    func nextBody(exchange: Int) async throws(ConnectionError) -> BodyBatch {
        try await perform({ core in core.receiveBody(exchange: exchange) },
                          wait: { core, waiter in core.waitForBody(exchange: exchange, waiter) })
    }

    /// The Host field value: the host (bracketed if IPv6) and the port unless it is the default.
    private var hostField: String {
        var name = host
        if name.contains(":") && !name.hasPrefix("[") { name = "[" + name + "]" }
        let defaultPort: UInt16 = usesTLS ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    /// Runs a loop-side operation: directly when the caller already runs on the connection's loop
    /// (a task whose executor preference is the loop: no hop, no thread switch), after one hop
    /// otherwise; suspends only when the operation must wait for the peer. The waiter is resumed
    /// on the loop by an I/O handler, so a task on the loop continues in the same turn.
    /// Cancelling the awaiting task closes the connection.
    private func perform<T: Sendable>(_ start: @escaping @Sendable (LoopConnection) -> Readiness<T>,
                                      wait: @escaping @Sendable (LoopConnection, UnsafeContinuation<T, any Error>) -> Void)
        async throws(ConnectionError) -> T {
        let core = self.core
        if core.isOnLoop {
            switch start(core) {
            case .ready(let value): return value
            case .failed(let error): throw error
            case .wait: break
            }
            return try await suspend { continuation in wait(core, continuation) }
        }
        return try await suspend { continuation in
            let accepted = core.loop.execute {
                switch start(core) {
                case .ready(let value): continuation.resume(returning: value)
                case .failed(let error): continuation.resume(throwing: error)
                case .wait: wait(core, continuation)
                }
            }
            if !accepted { continuation.resume(throwing: ConnectionError(.cancelled, "the event loop has shut down")) }
        }
    }

    private func suspend<T: Sendable>(_ install: (UnsafeContinuation<T, any Error>) -> Void) async throws(ConnectionError) -> T {
        let core = self.core
        do {
            return try await withTaskCancellationHandler {
                try await withUnsafeThrowingContinuation { continuation in install(continuation) }
            } onCancel: {
                core.loop.execute { core.cancel() }
            }
        } catch {
            throw ConnectionError.from(error)
        }
    }

    /// Makes sure the connection is failed with `error` (on the loop) and returns it.
    private func closing(_ error: ConnectionError) -> ConnectionError {
        let core = self.core
        core.loop.execute { core.fail(error) }
        return error
    }
}

/// A request's route through an HTTP proxy (docs/proxy.md).
struct ProxyRoute: Sendable, Hashable {
    /// The proxy.
    var server: ProxyServer
    /// Whether the connection is a CONNECT tunnel (https, or http with `tunnelsHTTP`).
    var tunnel: Bool
    /// Fields sent to the proxy only (`--proxy-header`).
    var headers: HTTPHeaders
    /// The User-Agent for a CONNECT request (curl sends its own there).
    var userAgent: String?
    /// Whether Basic credentials go with the first CONNECT.
    var authenticatesPreemptively: Bool

    /// The pool partition: connections through a proxy are never shared with direct ones, nor
    /// a tunnel with a request sent to the proxy in absolute form.
    var partition: String { "proxy \(server.description)\(tunnel ? " tunnel" : "")" }
}

/// One CONNECT request and the proxy's reply head.
struct TunnelExchange: Sendable {
    /// The request head's bytes, as sent.
    var requestHead: [UInt8]
    /// The proxy's response head.
    var response: HTTPResponseHead
}

/// The proxy's reply to one CONNECT.
struct TunnelReply: Sendable {
    var exchange: TunnelExchange
    var status: Int
    /// A 407 whose Proxy-Authenticate offers Basic.
    var asksForBasic: Bool
    /// The reply's body was read whole and the connection persists.
    var reusable: Bool
}

/// How long each phase of establishing a connection took.
public struct ConnectionTimings: Sendable, Hashable {
    /// Name resolution (nil when it did not happen).
    public var resolution: Duration?
    /// The TCP connect (Happy Eyeballs race).
    public var connect: Duration?
    /// The TLS handshake, for TLS connections.
    public var tlsHandshake: Duration?

    /// No phase measured.
    public init() {}
}

/// The weaker of two verification levels (none < chain only < full).
private func weaker(_ a: CertificateVerification, _ b: CertificateVerification) -> CertificateVerification {
    func rank(_ v: CertificateVerification) -> Int {
        switch v {
        case .none: return 0
        case .noHostnameVerification: return 1
        case .fullVerification: return 2
        }
    }
    return rank(a) <= rank(b) ? a : b
}
