import CourierBytes
@testable import CourierTLS
import Testing

extension TLS {
    @Suite("Mutual TLS")
    struct MutualTLS {
        static func server(_ authentication: ClientAuthentication, version: TLSVersion) -> TLSServerConfiguration {
            var server = Fixtures.serverConfiguration()
            server.clientAuthentication = authentication
            server.maximumVersion = version
            return server
        }

        @Test("Required client certificate, presented: both sides complete, server sees it", arguments: [TLSVersion.v1_3, .v1_2])
        func presented(version: TLSVersion) throws {
            var client = Fixtures.clientConfiguration()
            client.clientIdentity = Fixtures.clientIdentity
            let pair = try TLSPair(client: client, server: Self.server(.required(.certificates([Fixtures.ca])), version: version))
            #expect(pair.handshake().succeeded)
            #expect(pair.server.peerCertificates.first == Fixtures.client)
            #expect(pair.server.verifyResult.code == 0)
            #expect(try pair.transfer(Array("ping".utf8), from: pair.client, to: pair.server) == Array("ping".utf8))
        }

        @Test("Required client certificate, missing: clientCertificateRequired on both sides", arguments: [TLSVersion.v1_3, .v1_2])
        func missing(version: TLSVersion) throws {
            let pair = try TLSPair(
                client: Fixtures.clientConfiguration(), server: Self.server(.required(.certificates([Fixtures.ca])), version: version))
            let outcome = pair.handshake()
            #expect(outcome.serverError?.code == .clientCertificateRequired)
            var clientError = outcome.clientError
            if clientError == nil {
                // TLS 1.3: the client's handshake ends before the server has judged its (empty)
                // certificate; the refusal arrives as an alert on the first read.
                #expect(version == .v1_3)
                #expect(throws: TLSError.self) { _ = try pair.clientReadsPending() }
                do { _ = try pair.clientReadsPending() } catch { clientError = error as? TLSError }
            }
            #expect(clientError?.code == .clientCertificateRequired)
            // TLS 1.3 has an alert for it (certificate_required, RFC 8446 §4.4.2.4); TLS 1.2 servers
            // send handshake_failure, recognised because the server had asked for a certificate.
            #expect(clientError?.alert?.alertDescription == (version == .v1_3 ? 116 : 40))
        }

        @Test("Optional client certificate, missing: the handshake succeeds without one")
        func optionalMissing() throws {
            let pair = try TLSPair(
                client: Fixtures.clientConfiguration(), server: Self.server(.optional(.certificates([Fixtures.ca])), version: .v1_3))
            #expect(pair.handshake().succeeded)
            #expect(pair.server.peerCertificates.isEmpty)
            #expect(try pair.transfer(Array("ping".utf8), from: pair.client, to: pair.server) == Array("ping".utf8))
        }

        @Test("A client certificate from an unknown CA: untrustedIssuer at the server, its alert at the client")
        func untrustedClientCertificate() throws {
            var client = Fixtures.clientConfiguration()
            client.clientIdentity = Fixtures.clientIdentity
            let pair = try TLSPair(
                client: client, server: Self.server(.required(.certificates([Fixtures.otherCA])), version: .v1_2))
            let outcome = pair.handshake()
            #expect(outcome.serverError?.code == .untrustedIssuer)
            #expect(outcome.clientError?.code == .alertReceived)
            #expect(outcome.clientError?.alert?.alertDescription == 48)  // unknown_ca
        }
    }
}
