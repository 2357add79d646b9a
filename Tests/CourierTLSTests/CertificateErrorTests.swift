import CourierBytes
@testable import CourierTLS
import Testing

extension TLS {
    @Suite("Certificate verification failures map to distinct codes")
    struct CertificateErrors {
        struct Case: Sendable, CustomStringConvertible {
            let name: String
            let certificate: String
            let key: String
            let host: String
            let trust: [Certificate]
            let expected: TLSError.Code
            let verifyCode: Int32
            var description: String { name }
        }

        static let cases: [Case] = [
            Case(name: "expired", certificate: TestCertificates.expiredCertificate, key: TestCertificates.expiredKey,
                 host: "localhost", trust: [Fixtures.ca], expected: .certificateExpired, verifyCode: 10),
            Case(name: "not yet valid", certificate: TestCertificates.notyetvalidCertificate, key: TestCertificates.notyetvalidKey,
                 host: "localhost", trust: [Fixtures.ca], expected: .certificateNotYetValid, verifyCode: 9),
            Case(name: "wrong host", certificate: TestCertificates.wronghostCertificate, key: TestCertificates.wronghostKey,
                 host: "localhost", trust: [Fixtures.ca], expected: .hostnameMismatch, verifyCode: 62),
            Case(name: "wrong IP", certificate: TestCertificates.serverCertificate, key: TestCertificates.serverKey,
                 host: "10.1.2.3", trust: [Fixtures.ca], expected: .hostnameMismatch, verifyCode: 64),
            Case(name: "CN only, no SAN", certificate: TestCertificates.cnonlyCertificate, key: TestCertificates.cnonlyKey,
                 host: "localhost", trust: [Fixtures.ca], expected: .hostnameMismatch, verifyCode: 62),
            Case(name: "self-signed", certificate: TestCertificates.selfsignedCertificate, key: TestCertificates.selfsignedKey,
                 host: "localhost", trust: [Fixtures.ca], expected: .untrustedIssuer, verifyCode: 18),
            Case(name: "unknown issuer", certificate: TestCertificates.serverCertificate, key: TestCertificates.serverKey,
                 host: "localhost", trust: [Fixtures.otherCA], expected: .untrustedIssuer, verifyCode: 20),
        ]

        @Test("Each failure has its code, verify result and the client's alert at the server", arguments: cases)
        func failure(_ testCase: Case) throws {
            let pair = try TLSPair(
                client: Fixtures.clientConfiguration(trusting: testCase.trust),
                server: Fixtures.serverConfiguration(certificate: testCase.certificate, key: testCase.key),
                host: testCase.host)
            let outcome = pair.handshake()
            let error = try #require(outcome.clientError)
            #expect(error.code == testCase.expected)
            #expect(error.verifyResult?.code == testCase.verifyCode)
            #expect(error.isCertificateVerificationFailure)
            #expect(!error.openSSLErrors.isEmpty)
            // The client told the server why, with an alert.
            #expect(outcome.serverError?.code == .alertReceived)
            #expect(outcome.serverError?.alert != nil)
        }

        @Test("Expired, not yet valid, wrong host and untrusted issuer are told apart")
        func distinctCodes() {
            let codes = Set(Self.cases.map(\.expected))
            #expect(codes == [.certificateExpired, .certificateNotYetValid, .hostnameMismatch, .untrustedIssuer])
        }

        @Test("noHostnameVerification accepts a wrong host but not an untrusted chain")
        func noHostnameVerification() throws {
            var pair = try TLSPair(
                client: Fixtures.clientConfiguration(.noHostnameVerification),
                server: Fixtures.serverConfiguration(certificate: TestCertificates.wronghostCertificate, key: TestCertificates.wronghostKey))
            #expect(pair.handshake().succeeded)

            pair = try TLSPair(
                client: Fixtures.clientConfiguration(.noHostnameVerification),
                server: Fixtures.serverConfiguration(certificate: TestCertificates.selfsignedCertificate, key: TestCertificates.selfsignedKey))
            #expect(pair.handshake().clientError?.code == .untrustedIssuer)
        }

        @Test("Verification .none connects to a self-signed, expired or wrong-host server, recording the result")
        func noVerification() throws {
            let servers: [(String, String, Int32)] = [
                (TestCertificates.selfsignedCertificate, TestCertificates.selfsignedKey, 18),
                (TestCertificates.expiredCertificate, TestCertificates.expiredKey, 10),
                (TestCertificates.wronghostCertificate, TestCertificates.wronghostKey, 0),
            ]
            for (certificate, key, recorded) in servers {
                let pair = try TLSPair(
                    client: Fixtures.clientConfiguration(.none),
                    server: Fixtures.serverConfiguration(certificate: certificate, key: key))
                #expect(pair.handshake().succeeded)
                #expect(pair.client.verifyResult.code == recorded)
                #expect(try pair.transfer(Array("hello".utf8), from: pair.client, to: pair.server) == Array("hello".utf8))
            }
        }
    }
}
