// A client engine and a server engine wired back to back in memory: every test here moves
// ciphertext between them by hand, so no socket is involved and every byte is visible.

import CourierBytes
@testable @_spi(Fuzzing) import CourierTLS
import Testing

/// Every test of this target runs inside this serialized suite, because the memory test reads a
/// process-wide counter of live OpenSSL objects that parallel tests would disturb.
@Suite(.serialized)
struct TLS {}

enum Fixtures {
    static func pem(_ text: String) -> [UInt8] { Array(text.utf8) }

    static func certificate(_ text: String) -> Certificate {
        try! Certificate.certificates(fromPEM: pem(text))[0]
    }

    static let ca = certificate(TestCertificates.caCertificate)
    static let otherCA = certificate(TestCertificates.otherCaCertificate)
    static let server = certificate(TestCertificates.serverCertificate)
    static let selfSigned = certificate(TestCertificates.selfsignedCertificate)
    static let wrongHost = certificate(TestCertificates.wronghostCertificate)
    static let client = certificate(TestCertificates.clientCertificate)

    static func identity(_ certificate: String, _ key: String) -> TLSIdentity {
        try! TLSIdentity(certificateChainPEM: pem(certificate), privateKeyPEM: pem(key))
    }

    static let serverIdentity = identity(TestCertificates.serverCertificate, TestCertificates.serverKey)
    static let clientIdentity = identity(TestCertificates.clientCertificate, TestCertificates.clientKey)

    /// A client that trusts the test CA only.
    static func clientConfiguration(
        _ verification: CertificateVerification = .fullVerification, trusting roots: [Certificate] = [ca]
    ) -> TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .certificates(roots)
        configuration.certificateVerification = verification
        return configuration
    }

    static func serverConfiguration(
        certificate: String = TestCertificates.serverCertificate, key: String = TestCertificates.serverKey
    ) -> TLSServerConfiguration {
        TLSServerConfiguration(identity: identity(certificate, key))
    }
}

/// The outcome of pumping a handshake.
struct HandshakeOutcome {
    var clientError: TLSError?
    var serverError: TLSError?
    var clientComplete = false
    var serverComplete = false
    var succeeded: Bool { clientError == nil && serverError == nil && clientComplete && serverComplete }
}

final class TLSPair {
    let client: TLSConnection
    let server: TLSConnection

    init(client clientContext: TLSClientContext, server serverContext: TLSServerContext,
         host: String = "localhost", port: Int = 443, policy: SecurityPolicy? = nil) throws {
        client = try TLSConnection(context: clientContext, host: host, port: port, securityPolicy: policy)
        server = try TLSConnection(context: serverContext)
    }

    convenience init(client: TLSConfiguration, server: TLSServerConfiguration, host: String = "localhost") throws {
        try self.init(client: TLSClientContext(configuration: client), server: TLSServerContext(configuration: server), host: host)
    }

    /// Moves whatever each side has queued to the other. Returns the number of bytes moved.
    @discardableResult
    func pump() -> Int {
        let toServer = client.pendingCiphertext()
        if !toServer.isEmpty { server.receivedCiphertext(toServer) }
        let toClient = server.pendingCiphertext()
        if !toClient.isEmpty { client.receivedCiphertext(toClient) }
        return toServer.readableBytes + toClient.readableBytes
    }

    /// Runs both handshakes until both are complete or failed, or nothing moves any more.
    @discardableResult
    func handshake() -> HandshakeOutcome {
        var outcome = HandshakeOutcome()
        var idleRounds = 0
        while idleRounds < 3 {
            if outcome.clientError == nil && !outcome.clientComplete {
                do { outcome.clientComplete = try client.handshake() == .complete } catch { outcome.clientError = error }
            }
            let movedByClient = pump()
            if outcome.serverError == nil && !outcome.serverComplete {
                do { outcome.serverComplete = try server.handshake() == .complete } catch { outcome.serverError = error }
            }
            let moved = movedByClient + pump()
            let clientSettled = outcome.clientComplete || outcome.clientError != nil
            let serverSettled = outcome.serverComplete || outcome.serverError != nil
            if clientSettled && serverSettled && moved == 0 { break }
            idleRounds = moved == 0 ? idleRounds + 1 : 0
        }
        return outcome
    }

    /// Lets the client process what the server sent after the handshake (TLS 1.3 session tickets).
    func clientReadsPending() throws -> TLSConnection.ReadResult {
        var sink = ByteBuffer()
        return try client.readPlaintext(into: &sink)
    }

    /// Sends `bytes` from one side and reads them all on the other, delivering the ciphertext in
    /// pieces of 5000 bytes so that records arrive split across reads.
    func transfer(_ bytes: [UInt8], from sender: TLSConnection, to receiver: TLSConnection) throws -> [UInt8] {
        try sender.writePlaintext(ByteBuffer(bytes: bytes))
        var queued = sender.pendingCiphertext()
        var received = ByteBuffer()
        while queued.readableBytes > 0 {
            let piece = queued.readSlice(length: min(5000, queued.readableBytes))!
            receiver.receivedCiphertext(piece)
            _ = try receiver.readPlaintext(into: &received)
        }
        return received.readableBytesArray
    }
}

/// Deterministic pseudo-random bytes (xorshift), so large transfers have structure to get wrong.
func patternBytes(count: Int, seed: UInt64 = 0x9E37_79B9_7F4A_7C15) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    for index in 0..<count {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        bytes[index] = UInt8(truncatingIfNeeded: state)
    }
    return bytes
}
