import CourierBytes
@testable import CourierTLS
import Testing

extension TLS {
    @Suite("Session resumption")
    struct Resumption {
        /// A full handshake, then the client reads what followed (TLS 1.3 tickets arrive after it).
        func connect(_ client: TLSClientContext, _ server: TLSServerContext, port: Int = 443) throws -> TLSPair {
            let pair = try TLSPair(client: client, server: server, port: port)
            #expect(pair.handshake().succeeded)
            #expect(try pair.clientReadsPending() == .needsMoreData)
            return pair
        }

        @Test("The second handshake to the same host:port resumes", arguments: [TLSVersion.v1_3, .v1_2])
        func resumes(version: TLSVersion) throws {
            var serverConfiguration = Fixtures.serverConfiguration()
            serverConfiguration.maximumVersion = version
            let server = try TLSServerContext(configuration: serverConfiguration)
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
        }

        @Test("Another port is another cache entry")
        func keyedByHostAndPort() throws {
            let server = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server, port: 443)
            let other = try connect(client, server, port: 8443)
            #expect(!other.client.isSessionResumed)
            #expect(client.cachedSessionCount == 2)
        }

        @Test("A capacity of zero turns resumption off")
        func disabled() throws {
            var configuration = Fixtures.clientConfiguration()
            configuration.sessionCacheCapacity = 0
            let server = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            let client = try TLSClientContext(configuration: configuration)
            _ = try connect(client, server)
            #expect(client.cachedSessionCount == 0)
            #expect(!(try connect(client, server)).client.isSessionResumed)
        }

        @Test("The cache evicts the least recently used host first")
        func leastRecentlyUsed() throws {
            let server = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            var configuration = Fixtures.clientConfiguration()
            configuration.maximumVersion = .v1_2  // TLS 1.2 sessions stay in the cache when used
            let client = try TLSClientContext(configuration: configuration)
            let pair = try connect(client, server)
            _ = pair
            let session = try #require(client.takeSession(for: "localhost:443"))
            var cache = SessionCache(capacity: 2)
            cache.store(session, for: "a:1")
            cache.store(session, for: "b:1")
            _ = cache.take(for: "a:1")         // a is now the most recent
            cache.store(session, for: "c:1")   // evicts b
            #expect(cache.count == 2)
            #expect(cache.take(for: "b:1") == nil)
            #expect(cache.take(for: "a:1") != nil)
            #expect(cache.take(for: "c:1") != nil)
        }

        @Test("TLS 1.3 tickets are used once: taking one removes it")
        func singleUseTickets() throws {
            let server = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            let client = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            _ = try connect(client, server)
            let session = try #require(client.takeSession(for: "localhost:443"))
            #expect(session.isTLS13)
            #expect(client.takeSession(for: "localhost:443") == nil)
        }
    }
}
