import CourierBytes
@testable @_spi(Fuzzing) import CourierTLS
import Testing

extension TLS {
    @Suite("Handshake and application data")
    struct Handshake {
        @Test("Handshake, ALPN, SNI, then 1 MiB each way", arguments: [TLSVersion.v1_3, .v1_2])
        func handshakeAndData(version: TLSVersion) throws {
            var server = Fixtures.serverConfiguration()
            server.maximumVersion = version
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: server)
            let outcome = pair.handshake()
            #expect(outcome.succeeded, "\(String(describing: outcome.clientError)) \(String(describing: outcome.serverError))")
            #expect(pair.client.negotiatedVersion == version)
            #expect(pair.server.negotiatedVersion == version)
            #expect(pair.client.negotiatedApplicationProtocol == "http/1.1")
            #expect(pair.server.negotiatedApplicationProtocol == "http/1.1")
            #expect(pair.server.serverNameIndication == "localhost")
            #expect(pair.client.cipherSuite != nil)
            #expect(!pair.client.isSessionResumed)
            #expect(pair.client.peerCertificates.first == Fixtures.server)
            #expect(pair.client.verifyResult.code == 0)

            let upload = patternBytes(count: 1 << 20, seed: 1)
            let download = patternBytes(count: 1 << 20, seed: 2)
            let atServer = try pair.transfer(upload, from: pair.client, to: pair.server)
            #expect(atServer.count == upload.count && atServer == upload)
            let atClient = try pair.transfer(download, from: pair.server, to: pair.client)
            #expect(atClient.count == download.count && atClient == download)
        }

        @Test("The handshake answers needsWrite, needsMoreData and complete in order")
        func handshakeSteps() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(try pair.client.handshake() == .needsWrite)  // ClientHello queued
            #expect(pair.client.hasPendingCiphertext)
            let hello = pair.client.pendingCiphertext()
            #expect(hello.getInteger(at: 0) == 22)  // a handshake record
            #expect(try pair.client.handshake() == .needsMoreData)
            pair.server.receivedCiphertext(hello)
            #expect(try pair.server.handshake() == .needsWrite)
            pair.client.receivedCiphertext(pair.server.pendingCiphertext())
            #expect(try pair.server.handshake() == .needsMoreData)
            #expect(try pair.client.handshake() == .needsWrite)  // client Finished
            #expect(pair.client.isHandshakeComplete)
            pair.server.receivedCiphertext(pair.client.pendingCiphertext())
            #expect(try pair.client.handshake() == .complete)
            #expect(try pair.server.handshake() == .needsWrite)  // session tickets
            pair.client.receivedCiphertext(pair.server.pendingCiphertext())
            #expect(try pair.server.handshake() == .complete)
            #expect(try pair.clientReadsPending() == .needsMoreData)
        }

        @Test("IP address hosts verify against iPAddress SANs and send no SNI", arguments: ["127.0.0.1", "::1", "[::1]", "::1%lo"])
        func ipAddressHosts(host: String) throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration(), host: host)
            #expect(pair.client.hostIsIPAddress)
            #expect(pair.handshake().succeeded)
            #expect(pair.client.host == "::1" || pair.client.host == "127.0.0.1")
            #expect(pair.server.serverNameIndication == nil)
        }

        @Test("The common name is never used: a CN that is not a host name passes, a CN-only certificate fails")
        func commonNameIgnored() throws {
            // The server certificate's CN is "Courier Test Server (not a host name)"; it passed above.
            let pair = try TLSPair(
                client: Fixtures.clientConfiguration(),
                server: Fixtures.serverConfiguration(certificate: TestCertificates.cnonlyCertificate, key: TestCertificates.cnonlyKey))
            let outcome = pair.handshake()
            #expect(outcome.clientError?.code == .hostnameMismatch)
        }

        @Test("A trailing dot in the host name is ignored")
        func trailingDot() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration(), host: "localhost.")
            #expect(pair.handshake().succeeded)
            #expect(pair.server.serverNameIndication == "localhost")
        }

        @Test("ALPN: the server's choice among the client's offers; none in common means no ALPN")
        func alpnSelection() throws {
            var client = Fixtures.clientConfiguration()
            client.applicationProtocols = ["h2", "http/1.1"]
            var pair = try TLSPair(client: client, server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
            #expect(pair.client.negotiatedApplicationProtocol == "http/1.1")

            client.applicationProtocols = ["h2"]
            pair = try TLSPair(client: client, server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
            #expect(pair.client.negotiatedApplicationProtocol == nil)

            client.applicationProtocols = []
            pair = try TLSPair(client: client, server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
            #expect(pair.client.negotiatedApplicationProtocol == nil)
        }

        @Test("No common version: client 1.3 only against a 1.2 server")
        func protocolVersionMismatch() throws {
            var client = Fixtures.clientConfiguration()
            client.minimumVersion = .v1_3
            var server = Fixtures.serverConfiguration()
            server.maximumVersion = .v1_2
            let pair = try TLSPair(client: client, server: server)
            let outcome = pair.handshake()
            #expect(outcome.serverError?.code == .protocolVersion)
            #expect(outcome.clientError?.code == .protocolVersion)
            #expect(outcome.clientError?.alert?.alertDescription == 70)
        }

        @Test("Gather-list writes arrive intact, small pieces coalesced")
        func gatherListWrite() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
            var list = GatherList()
            list.append(.staticBytes("POST / HTTP/1.1\r\n\r\n"))
            list.append(ByteBuffer(string: "5\r\n"))
            list.append(ByteBuffer(bytes: patternBytes(count: 10_000)))
            list.append(.staticBytes("\r\n"))
            try pair.client.writePlaintext(list)
            pair.pump()
            var received = ByteBuffer()
            _ = try pair.server.readPlaintext(into: &received)
            #expect(received.readableBytesArray == list.joined)
        }

        @Test("Writing before the handshake or after an error: the error is sticky")
        func stickyErrors() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(trusting: [Fixtures.otherCA]), server: Fixtures.serverConfiguration())
            let outcome = pair.handshake()
            let first = try #require(outcome.clientError)
            #expect(throws: first) { try pair.client.handshake() }
            var sink = ByteBuffer()
            #expect(throws: first) { try pair.client.readPlaintext(into: &sink) }
            #expect(throws: first) { try pair.client.writePlaintext(ByteBuffer(string: "x")) }
            #expect(throws: first) { try pair.client.shutdown() }
        }
    }
}
