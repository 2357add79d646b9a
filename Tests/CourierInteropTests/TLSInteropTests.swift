// openssl s_server: TLS 1.2 and 1.3, and every certificate failure told apart. `-www` answers
// with HTTP/1.0 and a close-delimited body, ended by close_notify.
import Testing
import Courier
import CourierCurlExitCodes
import CourierTLS

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(2)))
struct TLSInteropTests {
    func get(_ portName: String, host: String = "localhost", tls: TLSConfiguration) async throws -> (Int, String) {
        let connection = try await HTTP1Connection.connect(host: host, port: Interop.tlsPort(portName), tls: tls, options: Interop.options())
        try await connection.send(method: .get, target: "/")
        let response = try await connection.receiveResponse()
        let body = try await response.body.collect(upTo: 1 << 20)
        await connection.close()
        return (response.head.status, body.readableString)
    }

    @Test(arguments: ["TLS12", "TLS13"])
    func handshakeAndRequest(_ port: String) async throws {
        let (status, body) = try await get(port, tls: try Interop.tls())
        #expect(status == 200)
        // s_server -www reports the protocol it negotiated.
        #expect(body.contains(port == "TLS12" ? "TLSv1.2" : "TLSv1.3"))
    }

    @Test func theIPAddressInSubjectAltNameIsVerifiedToo() async throws {
        let (status, _) = try await get("TLS13", host: "127.0.0.1", tls: try Interop.tls())
        #expect(status == 200)
    }

    @Test(arguments: [
        ("WRONGHOST", TLSError.Code.hostnameMismatch),
        ("EXPIRED", .certificateExpired),
        ("UNTRUSTED", .untrustedIssuer),
    ])
    func certificateFailuresAreToldApart(_ port: String, _ code: TLSError.Code) async throws {
        let tls = try Interop.tls()
        let error = await connectionError { _ = try await get(port, tls: tls) }
        #expect(error?.code == .tlsFailed)
        #expect(error?.tlsError?.code == code, "\(String(describing: error))")
        #expect(error?.curlExitCode == 60)
    }

    @Test func verificationOffConnectsToAnUntrustedServer() async throws {
        var tls = TLSConfiguration()
        tls.certificateVerification = .none
        let (status, _) = try await get("UNTRUSTED", tls: tls)
        #expect(status == 200)
    }

    @Test func aRequiredClientCertificateWithAnEncryptedKey() async throws {
        // openssl s_server -Verify 1: the client's key decrypted with its pass phrase (curl --pass).
        var tls = try Interop.tls()
        tls.clientIdentity = try TLSIdentity(certificateChainPEM: Interop.readFile(Interop.certificates + "/client.pem"),
                                             privateKeyPEM: Interop.readFile(Interop.certificates + "/client-encrypted.key"),
                                             passphrase: "s3cret")
        let (status, body) = try await get("MTLS", tls: tls)
        #expect(status == 200)
        // s_server -www reports the client certificate it verified.
        #expect(body.contains("courier-client"), "\(body.prefix(400))")
    }

    @Test func aRequiredClientCertificate() async throws {
        let (status, _) = try await get("MTLS", tls: try Interop.tls(clientCertificate: true))
        #expect(status == 200)
        let tls = try Interop.tls()
        let error = await connectionError { _ = try await get("MTLS", tls: tls) }
        #expect(error != nil, "a server requiring a client certificate must refuse us without one")
        #expect(error?.code == .tlsFailed || error?.code == .remoteClosed)
    }
}
