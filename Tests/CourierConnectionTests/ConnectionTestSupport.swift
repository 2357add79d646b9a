// Shared helpers for the connection tests: the serialized parent suite (descriptor counts are
// process-wide), server set-up, TLS configurations trusting the test CA, and the fd counter.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierTLS
import CourierTestSupport
import Glibc
import Testing

/// Every connection test lives in a suite nested in this one, so they run one at a time.
@Suite(.serialized, .timeLimit(.minutes(2)))
struct ConnectionTests {}

func withServer(_ configuration: LoopbackServer.Configuration = .init(),
                _ body: (LoopbackServer) async throws -> Void) async throws {
    try await DescriptorTestLock.shared.withLock {
        try await withServerLocked(configuration, body)
    }
}

private func withServerLocked(_ configuration: LoopbackServer.Configuration,
                              _ body: (LoopbackServer) async throws -> Void) async throws {
    let server = try await LoopbackServer.start(configuration)
    let port = server.port
    do {
        try await body(server)
    } catch {
        await server.shutdown()
        _ = await eventually(.seconds(2)) { openSockets(onPort: port) == 0 }
        throw error
    }
    await server.shutdown()
    // Client sockets of failed or dropped connections close on the loop thread: let them land
    // before the lock is released, so other targets' descriptor checks do not see them.
    _ = await eventually(.seconds(2)) { openSockets(onPort: port) == 0 }
}

enum TestTLS {
    static let ca: Certificate = try! Certificate.certificates(fromPEM: Array(LoopbackIdentity.caCertificatePEM.utf8))[0]

    static var client: TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .certificates([ca])
        return configuration
    }

    static var server: TLSServerConfiguration {
        try! LoopbackServer.Configuration.tls(certificateChainPEM: LoopbackIdentity.serverCertificatePEM, privateKeyPEM: LoopbackIdentity.serverKeyPEM)
    }

    static var wrongHostServer: TLSServerConfiguration {
        try! LoopbackServer.Configuration.tls(certificateChainPEM: TestPEM.wronghostCertificate,
                                              privateKeyPEM: TestPEM.wronghostKey)
    }
}

/// The body the server's pattern routes send: byte i is "a" + i mod 26.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) } }

/// Connects to the loopback server.
func connect(_ server: LoopbackServer, host: String = "127.0.0.1",
             options: HTTP1ConnectionOptions = HTTP1ConnectionOptions()) async throws -> HTTP1Connection {
    try await HTTP1Connection.connect(host: host, port: server.port, tls: server.usesTLS ? TestTLS.client : nil,
                                      options: options)
}

/// GET `target` and collect the body.
func get(_ connection: HTTP1Connection, _ target: String, headers: HTTPHeaders = HTTPHeaders()) async throws -> (HTTP1Response, [UInt8]) {
    try await connection.sendHead(method: .get, target: target, headers: headers)
    let response = try await connection.receiveResponse()
    let body = try await response.body.collect()
    return (response, body.readableBytesArray)
}

/// Expects `body` to throw a ConnectionError and returns it.
func expectConnectionError(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> ConnectionError? {
    do {
        try await body()
        Issue.record("expected a ConnectionError", sourceLocation: sourceLocation)
        return nil
    } catch let error as ConnectionError {
        return error
    } catch {
        Issue.record("expected a ConnectionError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

