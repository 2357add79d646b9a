// LoopbackServer: an embedded HTTP/1.1 server on 127.0.0.1 for tests and benchmarks (design §10).
//
// What it owns: one EventLoop (its own thread), the listening socket and every accepted
// connection. All of them live on the loop thread; the public object only holds the immutable
// configuration, the bound port and atomic counters, which is what makes it Sendable.
//
// It speaks HTTP/1.1 through CourierHTTP1's server role (RequestHeadParser, BodyFraming.forRequest,
// BodyDecoder, ResponseHeadEncoder, ChunkedEncoder.sizeLine) and, optionally, TLS through a
// TLSServerContext. The routes are listed in docs/loopback-server.md.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import Synchronization

/// An HTTP/1.1 server (plain or TLS) on 127.0.0.1 with fixed test routes and scripted replies.
///
/// ```swift
/// let server = try await LoopbackServer.start()
/// defer { Task { await server.shutdown() } }
/// // GET http://127.0.0.1:\(server.port)/bytes/1024
/// ```
public final class LoopbackServer: Sendable {
    /// How the server behaves.
    public struct Configuration: Sendable {
        /// TLS settings; nil serves plain HTTP.
        public var tls: TLSServerConfiguration?
        /// The port to bind on 127.0.0.1; 0 picks a free one (read it back from `port`).
        public var port: UInt16
        /// Scripted routes by exact path (the target up to "?"), or by prefix as "/prefix/*" (every
        /// path under /prefix/ without a script of its own); they take precedence over the
        /// built-in routes.
        public var scripts: [String: LoopbackScript]
        /// When true, accepted connections are held open and never read from or written to: a
        /// server that "never answers" (connect succeeds, TLS handshake and response never come).
        public var stallsConnections: Bool
        /// The most bytes read from a socket per call.
        public var readSize: Int

        /// Creates a configuration.
        /// - Parameters:
        ///   - tls: TLS settings, or nil for plain HTTP.
        ///   - port: the port (0: ephemeral).
        ///   - scripts: scripted routes by path.
        ///   - stallsConnections: hold connections open without ever reading or answering.
        ///   - readSize: bytes per read call (default 64 KiB).
        public init(tls: TLSServerConfiguration? = nil, port: UInt16 = 0, scripts: [String: LoopbackScript] = [:],
                    stallsConnections: Bool = false, readSize: Int = 65536) {
            self.tls = tls
            self.port = port
            self.scripts = scripts
            self.stallsConnections = stallsConnections
            self.readSize = readSize
        }

        /// A TLS configuration from a PEM certificate chain and PEM private key.
        /// - Parameters:
        ///   - certificateChainPEM: the leaf first, then intermediates.
        ///   - privateKeyPEM: the leaf's key.
        /// - Returns: the server TLS configuration.
        /// - Throws: `TLSError` for unparsable input.
        public static func tls(certificateChainPEM: String, privateKeyPEM: String) throws(TLSError) -> TLSServerConfiguration {
            let identity = try TLSIdentity(certificateChainPEM: Array(certificateChainPEM.utf8),
                                           privateKeyPEM: Array(privateKeyPEM.utf8))
            return TLSServerConfiguration(identity: identity)
        }
    }

    /// The configuration the server was started with.
    public let configuration: Configuration
    /// The bound port on 127.0.0.1.
    public let port: UInt16
    /// Whether the server speaks TLS.
    public var usesTLS: Bool { configuration.tls != nil }

    let loop: EventLoop
    let counters: Counters
    private let core: ServerCore

    /// Connection and request counters, shared with the loop thread.
    final class Counters: Sendable {
        let accepted = Atomic<Int>(0)
        let requests = Atomic<Int>(0)
        let open = Atomic<Int>(0)
    }

    private init(configuration: Configuration, port: UInt16, loop: EventLoop, counters: Counters, core: ServerCore) {
        self.configuration = configuration
        self.port = port
        self.loop = loop
        self.counters = counters
        self.core = core
    }

    /// Starts a server: binds 127.0.0.1, starts the event-loop thread, begins accepting.
    /// - Parameter configuration: routes, TLS, port.
    /// - Returns: the running server; call `shutdown()` when done.
    /// - Throws: `Errno` (bind, listen, epoll) or `TLSError` (bad identity).
    public static func start(_ configuration: Configuration = Configuration()) async throws -> LoopbackServer {
        let context = try configuration.tls.map { (tls) throws(TLSError) -> TLSServerContext in
            try TLSServerContext(configuration: tls)
        }
        let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: configuration.port))
        let port: UInt16
        do {
            port = try listener.localAddress().port
        } catch {
            try? listener.close()
            throw error
        }
        let loop = try EventLoop(name: "loopback-server")
        let counters = Counters()
        let core = ServerCore(loop: loop, listener: listener, configuration: configuration, tls: context,
                              counters: counters)
        do {
            try await loop.submit { try core.start() }
        } catch {
            try? listener.close()
            await loop.shutdown()
            throw error
        }
        return LoopbackServer(configuration: configuration, port: port, loop: loop, counters: counters, core: core)
    }

    /// Connections accepted since the start.
    public var acceptedConnections: Int { counters.accepted.load(ordering: .acquiring) }
    /// Complete request heads received since the start (over all connections).
    public var requestCount: Int { counters.requests.load(ordering: .acquiring) }
    /// Connections currently open.
    public var openConnections: Int { counters.open.load(ordering: .acquiring) }

    /// Closes the listener and every connection, then stops the loop thread. Idempotent.
    public func shutdown() async {
        _ = try? await loop.submit { [core] in core.stop() }
        await loop.shutdown()
    }
}

/// The loop-side state of a server: the listener and the set of live connections.
///
/// Invariant: touched only on the loop thread (every entry point runs from a loop handler or a
/// `submit` closure); the `@unchecked Sendable` conformance rests on that.
final class ServerCore: @unchecked Sendable {
    let loop: EventLoop
    let configuration: LoopbackServer.Configuration
    let tls: TLSServerContext?
    let counters: LoopbackServer.Counters
    let content = SharedContent()
    private var listener: Socket?
    private var registration: EventLoop.Registration?
    private var connections: [ObjectIdentifier: ServerConnection] = [:]

    init(loop: EventLoop, listener: Socket, configuration: LoopbackServer.Configuration, tls: TLSServerContext?,
         counters: LoopbackServer.Counters) {
        self.loop = loop
        self.listener = listener
        self.configuration = configuration
        self.tls = tls
        self.counters = counters
    }

    func start() throws {
        guard let listener else { return }
        registration = try loop.register(listener, interest: .readable) { [unowned self] _ in acceptAll() }
    }

    private func acceptAll() {
        guard let listener else { return }
        // Bounded per turn, so one burst of connects cannot starve the connections' I/O.
        for _ in 0..<64 {
            let result: IOResult<Socket>
            do {
                result = try listener.accept()
            } catch {
                return  // EMFILE, ECONNABORTED: nothing to do but try again on the next event
            }
            guard case .processed(let socket) = result else { return }
            counters.accepted.add(1, ordering: .releasing)
            counters.open.add(1, ordering: .releasing)
            let connection = ServerConnection(core: self, socket: socket)
            connections[ObjectIdentifier(connection)] = connection
            connection.start()
        }
    }

    func connectionClosed(_ connection: ServerConnection) {
        if connections.removeValue(forKey: ObjectIdentifier(connection)) != nil {
            counters.open.subtract(1, ordering: .releasing)
        }
    }

    func stop() {
        if let registration { loop.deregister(registration) }
        registration = nil
        try? listener?.close()
        listener = nil
        for connection in Array(connections.values) { connection.close() }
        connections.removeAll()
    }
}

/// The bytes every body route serves: one buffer filled once with "abc…z" repeated, handed out in
/// slices so no response allocates its body (byte i of a body is letter i mod 26).
final class SharedContent: Sendable {
    /// 8192 copies of the alphabet: a multiple of 26, so slices can start at any phase.
    let buffer: ByteBuffer

    init() {
        var buffer = ByteBuffer(capacity: 26 * 8192)
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 26 * 8192) { region in
            for i in 0..<(26 * 8192) { region[i] = UInt8(ascii: "a") &+ UInt8(i % 26) }
            return 26 * 8192
        }
        self.buffer = buffer
    }

    /// A slice of the pattern starting at body position `position`, at most `length` bytes.
    func slice(at position: UInt64, length: Int) -> ByteBuffer {
        let phase = Int(position % 26)
        let count = min(length, buffer.readableBytes - 26)
        return buffer.getSlice(at: buffer.readerIndex + phase, length: count)!
    }
}
