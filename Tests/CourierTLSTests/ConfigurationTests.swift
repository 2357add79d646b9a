import CourierBytes
@testable @_spi(Fuzzing) import CourierTLS
import Testing

extension TLS {
    @Suite("Configuration input and object lifetimes")
    struct Configuration {
        static let certificatesDirectory: String = {
            let file = #filePath
            return String(file[..<file.lastIndex(of: "/")!]) + "/Certificates"
        }()

        @Test("PEM parsing: several certificates in order; garbage, truncation and emptiness refused")
        func pemParsing() throws {
            let both = try Certificate.certificates(fromPEM: Array((TestCertificates.serverCertificate + "\n" + TestCertificates.caCertificate).utf8))
            #expect(both == [Fixtures.server, Fixtures.ca])
            #expect(Fixtures.server.subjectName.contains("not a host name"))
            #expect(Fixtures.server.issuerName.contains("Courier Test CA"))

            for bad in ["", "hello", String(TestCertificates.serverCertificate.dropLast(40))] {
                let error = #expect(throws: TLSError.self) { try Certificate.certificates(fromPEM: Array(bad.utf8)) }
                #expect(error?.code == .invalidCertificate)
            }
        }

        @Test("Cipher lists (curl's --ciphers, --tls13-ciphers): the suite asked for is the one negotiated; an unknown list is invalidConfiguration")
        func cipherLists() throws {
            var twelve = Fixtures.clientConfiguration()
            twelve.maximumVersion = .v1_2
            twelve.cipherList = "ECDHE-ECDSA-CHACHA20-POLY1305"
            let pair12 = try TLSPair(client: twelve, server: Fixtures.serverConfiguration())
            #expect(pair12.handshake().succeeded)
            #expect(pair12.client.cipherSuite == "ECDHE-ECDSA-CHACHA20-POLY1305")

            var thirteen = Fixtures.clientConfiguration()
            thirteen.minimumVersion = .v1_3
            thirteen.tls13CipherSuites = "TLS_CHACHA20_POLY1305_SHA256"
            let pair13 = try TLSPair(client: thirteen, server: Fixtures.serverConfiguration())
            #expect(pair13.handshake().succeeded)
            #expect(pair13.client.cipherSuite == "TLS_CHACHA20_POLY1305_SHA256")

            var none = Fixtures.clientConfiguration()
            none.maximumVersion = .v1_2
            none.cipherList = "ECDHE-RSA-AES128-GCM-SHA256"  // the test server's key is ECDSA: nothing in common
            let pairNone = try TLSPair(client: none, server: Fixtures.serverConfiguration())
            #expect(!pairNone.handshake().succeeded)

            for (list, suites) in [("NOT-A-CIPHER", nil), (nil, "NOT_A_SUITE")] as [(String?, String?)] {
                var bad = TLSConfiguration()
                bad.cipherList = list
                bad.tls13CipherSuites = suites
                let error = #expect(throws: TLSError.self) { _ = try TLSClientContext(configuration: bad) }
                #expect(error?.code == .invalidConfiguration)
            }
        }

        @Test("DER certificates: exact bytes only")
        func derParsing() throws {
            let der = Fixtures.server.derBytes
            #expect(try Certificate(derBytes: der) == Fixtures.server)
            #expect(try Certificate.certificates(fromPEMOrDER: der) == [Fixtures.server])
            #expect(throws: TLSError.self) { try Certificate(derBytes: der + [0]) }
            #expect(throws: TLSError.self) { try Certificate(derBytes: Array(der.dropLast())) }
            #expect(throws: TLSError.self) { try Certificate(derBytes: []) }
        }

        @Test("Identities: bad keys and mismatched keys are invalidKey")
        func identities() {
            let certificate = Array(TestCertificates.serverCertificate.utf8)
            var error = #expect(throws: TLSError.self) {
                try TLSIdentity(certificateChainPEM: certificate, privateKeyPEM: Array("not a key".utf8))
            }
            #expect(error?.code == .invalidKey)
            error = #expect(throws: TLSError.self) {
                try TLSIdentity(certificateChainPEM: certificate, privateKeyPEM: Array(TestCertificates.clientKey.utf8))
            }
            #expect(error?.code == .invalidKey)
            error = #expect(throws: TLSError.self) {
                try TLSIdentity(certificateChainPEM: Array("junk".utf8), privateKeyPEM: Array(TestCertificates.serverKey.utf8))
            }
            #expect(error?.code == .invalidCertificate)
            let publicKeyError = #expect(throws: TLSError.self) { try PublicKeyPin(publicKey: Array("junk".utf8)) }
            #expect(publicKeyError?.code == .invalidKey)
        }

        @Test("Trust roots from a PEM file; a missing file is invalidConfiguration")
        func caFile() throws {
            var configuration = Fixtures.clientConfiguration()
            configuration.trustRoots = .pemFile(path: Self.certificatesDirectory + "/ca.pem")
            let pair = try TLSPair(client: configuration, server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)

            configuration.trustRoots = .pemFile(path: Self.certificatesDirectory + "/missing.pem")
            let error = #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
            #expect(error?.code == .invalidConfiguration)
        }

        @Test("The system trust store loads once; it does not trust the test CA")
        func systemStore() throws {
            var configuration = TLSConfiguration()
            #expect(configuration.trustRoots == .system)
            configuration.sessionCacheCapacity = 1
            let first = try TLSClientContext.shared(for: configuration)
            let second = try TLSClientContext.shared(for: configuration)
            #expect(first === second)
            let store = try SystemTrustStore.shared.get()
            #expect(store === (try SystemTrustStore.shared.get()))
            let pair = try TLSPair(client: first, server: TLSServerContext(configuration: Fixtures.serverConfiguration()))
            #expect(pair.handshake().clientError?.code == .untrustedIssuer)
        }

        @Test("Invalid settings are refused")
        func invalidSettings() throws {
            var configuration = Fixtures.clientConfiguration()
            configuration.minimumVersion = .v1_3
            configuration.maximumVersion = .v1_2
            #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
            configuration = Fixtures.clientConfiguration()
            configuration.applicationProtocols = [""]
            #expect(throws: TLSError.self) { try TLSClientContext(configuration: configuration) }
            let context = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            #expect(throws: TLSError.self) { try TLSConnection(context: context, host: "", port: 443) }
        }

        @Test("Every OpenSSL object is freed when its owners go")
        func noLeaks() throws {
            _ = try SystemTrustStore.shared.get()  // process-wide, loaded once: not counted as a leak
            _ = TLSFuzzing.feedClientHandshake([])  // its static context too
            _ = (Fixtures.ca, Fixtures.server, Fixtures.clientIdentity)  // static fixtures live forever
            let baseline = TLSDebugCounters.liveObjects
            do {
                var clientConfiguration = Fixtures.clientConfiguration()
                clientConfiguration.clientIdentity = Fixtures.clientIdentity
                var serverConfiguration = Fixtures.serverConfiguration()
                serverConfiguration.clientAuthentication = .required(.certificates([Fixtures.ca]))
                let client = try TLSClientContext(configuration: clientConfiguration)
                let server = try TLSServerContext(configuration: serverConfiguration)
                for _ in 0..<3 {
                    let pair = try TLSPair(client: client, server: server)
                    #expect(pair.handshake().succeeded)
                    _ = try pair.clientReadsPending()
                    try pair.client.evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.ca]))
                    _ = pair.client.peerCertificates
                    _ = pair.server.peerCertificates
                    #expect(TLSDebugCounters.liveObjects > baseline)
                }
                #expect(client.cachedSessionCount == 1)
                _ = TLSFuzzing.feedClientHandshake(patternBytes(count: 500))
                _ = try? Certificate.certificates(fromPEM: Array("junk".utf8))
            }
            #expect(TLSDebugCounters.liveObjects == baseline)
        }
    }
}
