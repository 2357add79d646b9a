// TLS session resumption through HTTP1Connection against the loopback server, the way every new
// connection of a Session or of `courier bench` makes it: one shared client context per
// configuration, a request with `Connection: close`, the server closing first.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierTLS
import CourierTestSupport
import Testing

extension ConnectionTests {
    @Suite("TLS resumption against the loopback server")
    struct TLSResumption {
        /// A client configuration no other test uses (its own capacity), so the shared context and
        /// its handshake counts belong to this test alone.
        func isolated(_ capacity: Int, roots: [Certificate] = [TestTLS.ca]) -> TLSConfiguration {
            var configuration = TestTLS.client
            configuration.trustRoots = .certificates(roots)
            configuration.sessionCacheCapacity = capacity
            return configuration
        }

        func server(_ version: TLSVersion?) -> TLSServerConfiguration {
            var configuration = TestTLS.server
            configuration.maximumVersion = version
            return configuration
        }

        /// One GET on a new connection that the server closes; whether its handshake resumed.
        func fetch(_ server: LoopbackServer, host: String = "localhost", tls: TLSConfiguration,
                   policy: SecurityPolicy? = nil) async throws -> Bool {
            let context = try TLSClientContext.shared(for: tls)
            let before = context.handshakeStatistics
            var options = HTTP1ConnectionOptions()
            options.securityPolicy = policy
            let connection = try await HTTP1Connection.connect(host: host, port: server.port, tls: tls, options: options)
            let (response, body) = try await get(connection, "/bytes/1024", headers: ["Connection": "close"])
            #expect(response.head.status == 200)
            #expect(body == pattern(1024))
            await connection.close()
            let after = context.handshakeStatistics
            #expect(after.completed == before.completed + 1)
            return after.resumed == before.resumed + 1
        }

        @Test("The second connection to the server resumes, and the next ones", arguments: [TLSVersion.v1_3, .v1_2])
        func resumes(version: TLSVersion) async throws {
            try await withServer(.init(tls: server(version))) { (server: LoopbackServer) async throws in
                let tls = isolated(101 + (version == .v1_2 ? 1 : 0))
                #expect(!(try await fetch(server, tls: tls)))
                for _ in 0..<5 { #expect(try await fetch(server, tls: tls)) }
                #expect(server.acceptedConnections == 6)
            }
        }

        @Test("Another SNI name does not resume", arguments: [TLSVersion.v1_3, .v1_2])
        func otherName(version: TLSVersion) async throws {
            try await withServer(.init(tls: server(version))) { (server: LoopbackServer) async throws in
                let tls = isolated(103 + (version == .v1_2 ? 1 : 0))
                #expect(!(try await fetch(server, host: "localhost", tls: tls)))
                // The certificate names 127.0.0.1 too; an address sends no SNI and has its own entry.
                #expect(!(try await fetch(server, host: "127.0.0.1", tls: tls)))
                #expect(try await fetch(server, host: "localhost", tls: tls))
                #expect(try await fetch(server, host: "127.0.0.1", tls: tls))
            }
        }

        @Test("A configuration with other trust roots does not resume the first one's sessions")
        func otherTrust() async throws {
            try await withServer(.init(tls: server(nil))) { (server: LoopbackServer) async throws in
                let tls = isolated(105)
                let widerTrust = isolated(105, roots: [TestTLS.ca, try Certificate.certificates(fromPEM: Array(TestPEM.wronghostCertificate.utf8))[0]])
                #expect(!(try await fetch(server, tls: tls)))
                #expect(!(try await fetch(server, tls: widerTrust)))
                #expect(try await fetch(server, tls: tls))
                #expect(try await fetch(server, tls: widerTrust))
            }
        }

        @Test("A connection with other pins does not resume")
        func otherPolicy() async throws {
            try await withServer(.init(tls: server(nil))) { (server: LoopbackServer) async throws in
                let tls = isolated(106)
                let pinned = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [TestTLS.ca])
                #expect(!(try await fetch(server, tls: tls)))
                #expect(!(try await fetch(server, tls: tls, policy: pinned)))
                #expect(try await fetch(server, tls: tls, policy: pinned))
                #expect(try await fetch(server, tls: tls))
            }
        }
    }
}
