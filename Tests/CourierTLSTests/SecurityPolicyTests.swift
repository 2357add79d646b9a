import CourierBytes
@testable import CourierTLS
import Testing

extension TLS {
    @Suite("Security policy and pinning")
    struct Pinning {
        /// The server key's pin, computed independently with
        /// `openssl pkey -pubin -in server-pubkey.pem -outform der | openssl dgst -sha256 -binary | base64`.
        static let serverPin = "sha256//CksGvMyvp7NRxmDfmAcGzEVcaBwixS+k2fkRGPM4/wU="
        /// The client certificate key's pin (any key that is not the server's).
        static let otherPin = "sha256//tgS8kvnz7PXaEMbaKHMTj8w+cZpbRMRprd4hakliP5s="

        /// Connects with the verification the policy needs and evaluates it.
        func evaluate(
            _ policy: SecurityPolicy, certificate: String = TestCertificates.serverCertificate,
            key: String = TestCertificates.serverKey, host: String = "localhost",
            chain: [Certificate]? = nil
        ) throws -> Result<Void, TLSError> {
            let server = try chain.map { TLSServerConfiguration(identity: try TLSIdentity(certificateChain: $0, privateKey: Array(key.utf8))) }
                ?? Fixtures.serverConfiguration(certificate: certificate, key: key)
            let pair = try TLSPair(client: Fixtures.clientConfiguration(policy.requiredVerification), server: server, host: host)
            let outcome = pair.handshake()
            if let error = outcome.clientError { return .failure(error) }
            #expect(outcome.succeeded)
            do {
                try pair.client.evaluate(policy)
                return .success(())
            } catch {
                // A connection that failed its policy is failed for good.
                #expect(throws: error) { try pair.client.writePlaintext(ByteBuffer(string: "x")) }
                return .failure(error)
            }
        }

        func code(_ result: Result<Void, TLSError>) -> TLSError.Code? {
            if case .failure(let error) = result { return error.code }
            return nil
        }

        @Test("The default policy passes a good server")
        func defaultPolicy() throws {
            #expect(code(try evaluate(.default)) == nil)
        }

        @Test("sha256// pins: the server's key matches, another key does not")
        func spkiPins() throws {
            #expect(PublicKeyPin(certificate: Fixtures.server).description == Self.serverPin)
            var policy = SecurityPolicy()
            policy.pinnedPublicKeys = try PublicKeyPin.parseHashes(Self.serverPin)
            #expect(code(try evaluate(policy)) == nil)
            policy.pinnedPublicKeys = try PublicKeyPin.parseHashes(Self.otherPin + ";" + Self.serverPin)
            #expect(code(try evaluate(policy)) == nil)
            policy.pinnedPublicKeys = try PublicKeyPin.parseHashes(Self.otherPin)
            #expect(code(try evaluate(policy)) == .pinningFailed)
        }

        @Test("sha256// pins are the leaf's: the CA's key does not pass")
        func spkiPinsAreLeafOnly() throws {
            var policy = SecurityPolicy()
            policy.pinnedPublicKeys = [PublicKeyPin(certificate: Fixtures.ca)]
            #expect(code(try evaluate(policy)) == .pinningFailed)
        }

        @Test("Public-key file pins, PEM and DER (curl --pinnedpubkey FILE)")
        func keyFilePins() throws {
            let pem = Array(TestCertificates.serverPublicKey.utf8)
            let pemPin = try PublicKeyPin(publicKey: pem)
            let derPin = try PublicKeyPin(publicKey: Fixtures.server.subjectPublicKeyInfo)
            #expect(pemPin.description == Self.serverPin)
            var policy = SecurityPolicy()
            policy.pinnedPublicKeys = [pemPin]
            #expect(code(try evaluate(policy)) == nil)
            policy.pinnedPublicKeys = [derPin]
            #expect(code(try evaluate(policy)) == nil)
            policy.pinnedPublicKeys = [try PublicKeyPin(publicKey: Fixtures.otherCA.subjectPublicKeyInfo)]
            #expect(code(try evaluate(policy)) == .pinningFailed)
        }

        @Test("Certificate pinning: the leaf or the CA in the chain passes, another CA fails")
        func certificatePins() throws {
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.server]))) == nil)
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.ca]))) == nil)
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.otherCA]))) == .pinningFailed)
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: []))) == .pinningFailed)
        }

        @Test("Certificate pinning a self-signed server, invalid certificates allowed (AFNetworking's usual case)")
        func selfSignedCertificatePin() throws {
            var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.selfSigned, Fixtures.selfSigned])
            #expect(policy.pinnedCertificates.count == 1)
            policy.allowInvalidCertificates = true
            let selfSigned = (TestCertificates.selfsignedCertificate, TestCertificates.selfsignedKey)
            #expect(code(try evaluate(policy, certificate: selfSigned.0, key: selfSigned.1)) == nil)
            // The pinned anchor still has to match the host name.
            #expect(code(try evaluate(policy, certificate: selfSigned.0, key: selfSigned.1, host: "other.example")) == .hostnameMismatch)
            // Pinning something else fails.
            policy.pinnedCertificates = [Fixtures.server]
            #expect(code(try evaluate(policy, certificate: selfSigned.0, key: selfSigned.1)) == .pinningFailed)
        }

        @Test("Public-key pinning: the leaf's or the CA's key passes, another fails")
        func publicKeyPins() throws {
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.server]))) == nil)
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.ca]))) == nil)
            #expect(code(try evaluate(SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.otherCA]))) == .pinningFailed)
        }

        @Test("Public-key pinning still checks the host name unless validatesDomainName is off (Courier's fix)")
        func publicKeyPinningChecksHost() throws {
            let wrongHost = (TestCertificates.wronghostCertificate, TestCertificates.wronghostKey)
            var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.wrongHost])
            policy.allowInvalidCertificates = true  // AFNetworking would skip the host name here
            #expect(code(try evaluate(policy, certificate: wrongHost.0, key: wrongHost.1)) == .hostnameMismatch)
            policy.validatesDomainName = false
            #expect(code(try evaluate(policy, certificate: wrongHost.0, key: wrongHost.1)) == nil)
        }

        @Test("An untrusted chain: only the leaf's key counts, not a pinned certificate sent alongside")
        func unverifiedIntermediateDoesNotCount() throws {
            var policy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Fixtures.ca])
            policy.allowInvalidCertificates = true
            policy.validatesDomainName = false
            // The self-signed server sends the test CA after its leaf, which the CA never signed.
            let result = try evaluate(
                policy, key: TestCertificates.selfsignedKey, chain: [Fixtures.selfSigned, Fixtures.ca])
            #expect(code(result) == .pinningFailed)
        }

        @Test("When both the host name and the pin fail, the host name is reported")
        func hostBeforePin() throws {
            var policy = SecurityPolicy()
            policy.pinnedPublicKeys = try PublicKeyPin.parseHashes(Self.otherPin)
            let wrongHost = (TestCertificates.wronghostCertificate, TestCertificates.wronghostKey)
            #expect(code(try evaluate(policy, certificate: wrongHost.0, key: wrongHost.1)) == .hostnameMismatch)
        }

        @Test("AFNetworking's rule: allowing invalid certificates while validating the domain needs a pin")
        func insecurePolicy() throws {
            var policy = SecurityPolicy()
            policy.allowInvalidCertificates = true
            #expect(code(try evaluate(policy)) == .insecurePolicy)
            policy.validatesDomainName = false  // curl -k
            let selfSigned = (TestCertificates.selfsignedCertificate, TestCertificates.selfsignedKey)
            #expect(code(try evaluate(policy, certificate: selfSigned.0, key: selfSigned.1)) == nil)
        }

        @Test("No pinning, invalid certificates not allowed: the specific trust failure is reported")
        func trustFailureWithoutPinning() throws {
            // The handshake is relaxed (.none), so the policy is what rejects the expired chain.
            var relaxed = SecurityPolicy()
            relaxed.validatesDomainName = false
            let expired = (TestCertificates.expiredCertificate, TestCertificates.expiredKey)
            let pair = try TLSPair(
                client: Fixtures.clientConfiguration(.none),
                server: Fixtures.serverConfiguration(certificate: expired.0, key: expired.1))
            #expect(pair.handshake().succeeded)
            let error = #expect(throws: TLSError.self) { try pair.client.evaluate(relaxed) }
            #expect(error?.code == .certificateExpired)
        }

        @Test("A policy failure forgets the host's cached session")
        func failureDropsSession() throws {
            var configuration = Fixtures.clientConfiguration()
            configuration.maximumVersion = .v1_2
            let client = try TLSClientContext(configuration: configuration)
            let server = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            let pair = try TLSPair(client: client, server: server)
            #expect(pair.handshake().succeeded)
            #expect(client.cachedSessionCount == 1)
            #expect(throws: TLSError.self) {
                try pair.client.evaluate(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Fixtures.otherCA]))
            }
            #expect(client.cachedSessionCount == 0)
        }

        @Test("Malformed pins are refused", arguments: [
            "", "sha256//", "sha1//CksGvMyvp7NRxmDfmAcGzEVcaBwixS+k2fkRGPM4/wU=",
            "sha256//CksGvMyvp7NRxmDfmAcGzEVcaBwixS+k2fkRGPM4/wU", "sha256//AAAA",
            "sha256//CksGvMyvp7NRxmDfmAcGzEVcaBwixS+k2fkRGPM4/wU=;",
            " sha256//CksGvMyvp7NRxmDfmAcGzEVcaBwixS+k2fkRGPM4/wU=",
        ])
        func malformedPins(text: String) {
            let error = #expect(throws: TLSError.self) { try PublicKeyPin.parseHashes(text) }
            #expect(error?.code == .invalidPin)
        }
    }
}
