import CourierBytes
@testable import CourierTLS
import Synchronization
import Testing

/// A clock the test moves by hand, for session expiry.
final class ManualClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    var reader: @Sendable () -> ContinuousClock.Instant { { [self] in now } }
}

extension TLS {
    @Suite("Session resumption")
    struct Resumption {
        /// A full handshake, then the client reads what followed (TLS 1.3 tickets arrive after it).
        func connect(_ client: TLSClientContext, _ server: TLSServerContext, host: String = "localhost", port: Int = 443,
                     policy: SecurityPolicy? = nil) throws -> TLSPair {
            let pair = try TLSPair(client: client, server: server, host: host, port: port, policy: policy)
            #expect(pair.handshake().succeeded)
            #expect(try pair.clientReadsPending() == .needsMoreData)
            return pair
        }

        func server(_ version: TLSVersion? = nil) throws -> TLSServerContext {
            var configuration = Fixtures.serverConfiguration()
            configuration.maximumVersion = version
            return try TLSServerContext(configuration: configuration)
        }

        static let localhost = SessionKey(host: "localhost", port: 443, policy: nil)

        @Test("The second handshake to the same host:port resumes", arguments: [TLSVersion.v1_3, .v1_2])
        func resumes(version: TLSVersion) throws {
            let server = try server(version)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())

            let first = try connect(client, server)
            #expect(!first.client.isSessionResumed)
            #expect(client.cachedSessionCount == 1)

            let second = try connect(client, server)
            #expect(second.client.isSessionResumed)
            #expect(second.server.isSessionResumed)
            #expect(second.client.negotiatedVersion == version)
            // The peer's certificates are still known on a resumed session.
            #expect(second.client.peerCertificates.first == Fixtures.server)
            #expect(second.client.verifyResult.code == 0)
            try second.client.evaluate(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.ca]))
            #expect(try second.transfer(Array("again".utf8), from: second.client, to: second.server) == Array("again".utf8))

            let third = try connect(client, server)
            #expect(third.client.isSessionResumed)
            #expect(client.handshakeStatistics == .init(completed: 3, resumed: 2))
        }

        @Test("A connection gone without close_notify leaves its session resumable", arguments: [TLSVersion.v1_3, .v1_2])
        func resumesAfterAnUncleanClose(version: TLSVersion) throws {
            let server = try server(version)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            for _ in 0..<3 {
                // As after `Connection: close`: the server's TCP close, no alert, then the
                // connection is dropped (OpenSSL would mark its session not resumable, SSLv3's rule).
                let pair = try connect(client, server)
                pair.client.receivedEOF()
                #expect(throws: TLSError.self) { try pair.clientReadsPending() }
            }
            #expect(try connect(client, server).client.isSessionResumed)
            #expect(client.handshakeStatistics == .init(completed: 4, resumed: 3))
        }

        @Test("Another port is another cache entry")
        func keyedByHostAndPort() throws {
            let server = try server()
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server, port: 443)
            let other = try connect(client, server, port: 8443)
            #expect(!other.client.isSessionResumed)
            #expect(client.cachedSessionCount == 2)
        }

        @Test("Another SNI name does not resume, though the server would accept it", arguments: [TLSVersion.v1_3, .v1_2])
        func keyedBySNIName(version: TLSVersion) throws {
            let server = try server(version)
            // Host names unchecked, so one certificate serves every name.
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration(.noHostnameVerification))
            _ = try connect(client, server, host: "localhost")
            let renamed = try connect(client, server, host: "other.example")
            #expect(renamed.server.serverNameIndication == "other.example")
            #expect(!renamed.client.isSessionResumed)
            // An address sends no SNI at all: its own entry too.
            #expect(!(try connect(client, server, host: "127.0.0.1")).client.isSessionResumed)
            #expect(try connect(client, server, host: "localhost").client.isSessionResumed)
            #expect(try connect(client, server, host: "other.example").client.isSessionResumed)
        }

        @Test("A context with other trust settings has its own cache")
        func keyedByContext() throws {
            let server = try server()
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            let otherTrust = try TLSClientContext(configuration: Fixtures.clientConfiguration(trusting: [Fixtures.ca, Fixtures.otherCA]))
            #expect(!(try connect(otherTrust, server)).client.isSessionResumed)
            let otherVerification = try TLSClientContext(configuration: Fixtures.clientConfiguration(.none))
            #expect(!(try connect(otherVerification, server)).client.isSessionResumed)
            #expect(try connect(client, server).client.isSessionResumed)
        }

        @Test("A session made under one security policy is not offered under another")
        func keyedByPolicy() throws {
            let server = try server()
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            let pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.ca])
            let otherPin = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.server])
            _ = try connect(client, server, policy: pinned)
            #expect(!(try connect(client, server)).client.isSessionResumed)
            #expect(!(try connect(client, server, policy: otherPin)).client.isSessionResumed)
            let again = try connect(client, server, policy: pinned)
            #expect(again.client.isSessionResumed)
            try again.client.evaluate(pinned)
        }

        @Test("A capacity of zero turns resumption off")
        func disabled() throws {
            var configuration = Fixtures.clientConfiguration()
            configuration.sessionCacheCapacity = 0
            let server = try server()
            let client = try TLSClientContext(configuration: configuration)
            _ = try connect(client, server)
            #expect(client.cachedSessionCount == 0)
            #expect(!(try connect(client, server)).client.isSessionResumed)
            #expect(client.handshakeStatistics == .init(completed: 2, resumed: 0))
        }

        @Test("TLS 1.3: both tickets of a handshake are kept, each used once", arguments: [2, 3])
        func ticketsPerOrigin(connections: Int) throws {
            let server = try server(.v1_3)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            #expect(client.sessionCount(for: Self.localhost) == 2)  // OpenSSL servers send two
            // Parallel connections: each takes a ticket before any new one arrives.
            let pairs = try (0..<connections).map { _ in try TLSPair(client: client, server: server) }
            #expect(client.sessionCount(for: Self.localhost) == 0)
            for pair in pairs { #expect(pair.handshake().succeeded) }
            #expect(pairs.filter(\.client.isSessionResumed).count == 2)
        }

        @Test("TLS 1.3 tickets are used once: taking one removes it")
        func singleUseTickets() throws {
            let server = try server(.v1_3)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            let first = try #require(client.takeSession(for: Self.localhost))
            let second = try #require(client.takeSession(for: Self.localhost))
            #expect(first.session.isTLS13 && second.session !== first.session)
            #expect(client.takeSession(for: Self.localhost) == nil)
        }

        @Test("A session expires with its lifetime", arguments: [TLSVersion.v1_3, .v1_2])
        func expiry(version: TLSVersion) throws {
            let clock = ManualClock()
            let server = try server(version)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration(), now: clock.reader)
            _ = try connect(client, server)
            let lifetime = try #require(client.takeSession(for: Self.localhost)).session.lifetime
            #expect(lifetime == .seconds(7200))  // OpenSSL's default session timeout and ticket hint
            clock.advance(by: lifetime - .seconds(1))
            #expect(try connect(client, server).client.isSessionResumed)  // 1.3: the second ticket
            // Past the lifetime of everything cached (1.3: of the tickets the resumption brought).
            clock.advance(by: lifetime)
            #expect(!(try connect(client, server)).client.isSessionResumed)
        }

        @Test("Keys from one full handshake live at most 7 days through ticket after ticket")
        func authenticationAge() throws {
            let clock = ManualClock()
            let server = try server(.v1_3)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration(), now: clock.reader)
            _ = try connect(client, server)
            var resumed = 0
            // Every 90 minutes, within each ticket's two hours: resumes until the origin is 7 days old.
            while true {
                clock.advance(by: .seconds(90 * 60))
                guard try connect(client, server).client.isSessionResumed else { break }
                resumed += 1
                #expect(resumed < 200)
                if resumed >= 200 { break }
            }
            // Resumed at 1.5 h, 3 h, … while younger than 7 days: 111 times; at 168 h a full handshake.
            #expect(resumed == 7 * 24 * 60 / 90 - 1)
            #expect(try connect(client, server).client.isSessionResumed)  // a new 7 days
        }

        @Test("A handshake that fails with a fatal alert forgets the host's sessions")
        func fatalAlertForgets() throws {
            let server = try server(.v1_2)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            #expect(client.cachedSessionCount == 1)  // TLS 1.2: the session stays when used
            let pair = try TLSPair(client: client, server: server)
            #expect(try pair.client.handshake() == .needsWrite)
            _ = pair.client.pendingCiphertext()
            pair.client.receivedCiphertext(ByteBuffer(bytes: [21, 3, 3, 0, 2, 2, 40]))  // handshake_failure
            #expect(throws: TLSError.self) { try pair.client.handshake() }
            #expect(client.cachedSessionCount == 0)
            // A transport that just ended is no reason to forget.
            _ = try connect(client, server)
            let cut = try TLSPair(client: client, server: server)
            _ = try cut.client.handshake()
            _ = cut.client.pendingCiphertext()
            cut.client.receivedEOF()
            #expect(throws: TLSError.self) { try cut.client.handshake() }
            #expect(client.cachedSessionCount == 1)
        }

        @Test("The cache evicts the least recently used origin first, and keeps four tickets per origin")
        func cacheBounds() throws {
            let server = try server(.v1_2)
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            let tls12 = try #require(client.takeSession(for: Self.localhost)).session
            let now = ContinuousClock.now
            func cached(_ session: SessionOwner, expires: Duration = .seconds(60)) -> CachedSession {
                CachedSession(session: session, expires: now + expires, authenticated: now)
            }
            func key(_ host: String) -> SessionKey { SessionKey(host: host, port: 1, policy: nil) }

            var cache = SessionCache(capacity: 2)
            cache.store(cached(tls12), for: key("a"))
            cache.store(cached(tls12), for: key("b"))
            _ = cache.take(for: key("a"), now: now)  // a is now the most recent
            cache.store(cached(tls12), for: key("c"))  // evicts b
            #expect(cache.count == 2)
            #expect(cache.take(for: key("b"), now: now) == nil)
            #expect(cache.take(for: key("a"), now: now) != nil)
            #expect(cache.take(for: key("a"), now: now) != nil)  // TLS 1.2: stays
            #expect(cache.take(for: key("c"), now: now + .seconds(61)) == nil)  // expired, and gone
            #expect(cache.count == 1)

            let tls13Server = try self.server(.v1_3)
            let tls13Client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            var tickets: [SessionOwner] = []
            for _ in 0..<3 {
                _ = try connect(tls13Client, tls13Server)
                while let ticket = tls13Client.takeSession(for: Self.localhost) { tickets.append(ticket.session) }
            }
            #expect(tickets.count == 6)
            var perOrigin = SessionCache(capacity: 2)
            for ticket in tickets { perOrigin.store(cached(ticket), for: key("a")) }
            #expect(perOrigin.sessionCount(for: key("a")) == SessionCache.sessionsPerOrigin)
            // Newest first; the two oldest were dropped.
            for expected in tickets.reversed().prefix(4) {
                #expect(perOrigin.take(for: key("a"), now: now)?.session === expected)
            }
            #expect(perOrigin.take(for: key("a"), now: now) == nil)
        }
    }
}
