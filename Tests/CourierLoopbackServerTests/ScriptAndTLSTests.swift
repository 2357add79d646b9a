// Scripted replies, stalled connections, TLS, and counters.

import CourierBytes
import CourierLoopbackServer
import CourierPosix
import CourierTestSupport
import Testing

extension LoopbackServerTests {
    @Suite struct Scripts {
        @Test func scriptWritesPausesAndCloses() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/raw": { request in
                    [.text("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), .pause(.milliseconds(50)),
                     .text(request.method), .close]
                },
            ])
            try await withServer(config) { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                let start = ContinuousClock.now
                try await client.send("GET /raw?x HTTP/1.1\r\nHost: x\r\n\r\n")
                let bytes = try await client.receiveToEOF()
                #expect(ContinuousClock.now - start >= .milliseconds(50))
                #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabcGET")
            }
        }

        @Test func scriptSeesBodyAndKeepsConnection() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/s": { request in [.response(body: "\(request.indexOnConnection):\(request.body.count)")] },
            ])
            try await withServer(config) { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("POST /s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc")
                var body = try await client.receiveUntilBody()
                #expect(body == Array("1:3".utf8))
                client.consume(client.received.count)
                try await client.send("GET /s HTTP/1.1\r\nHost: x\r\n\r\n")
                body = try await client.receiveUntilBody()
                #expect(body == Array("2:0".utf8))
                #expect(server.acceptedConnections == 1)
            }
        }

        @Test func stalledServerNeverAnswers() async throws {
            try await withServer(.init(stallsConnections: true)) { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\n")
                await #expect(throws: RawClientTimeout.self) {
                    try await client.receive(timeout: .milliseconds(200)) { !$0.isEmpty }
                }
                #expect(server.openConnections == 1)
            }
        }

        @Test func badRequestIsAnsweredAndClosed() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET / HTTP/1.1\r\nBad Header: x\r\n\r\n")
                let bytes = try await client.receiveToEOF()
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400 Bad Request\r\n"))
            }
        }

        @Test func tlsServerStartsAndRejectsPlaintext() async throws {
            let tls = try LoopbackServer.Configuration.tls(certificateChainPEM: LoopbackIdentity.serverCertificatePEM,
                                                           privateKeyPEM: LoopbackIdentity.serverKeyPEM)
            try await withServer(.init(tls: tls)) { server, loop in
                #expect(server.usesTLS)
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                // Not a ClientHello: the server answers with an alert or just closes.
                let bytes = try await client.receiveToEOF()
                #expect(!String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/"))
            }
        }

        @Test func shutdownClosesOpenConnections() async throws {
            try await DescriptorTestLock.shared.withLock { try await shutdownClosesOpenConnectionsLocked() }
        }

        func shutdownClosesOpenConnectionsLocked() async throws {
            let server = try await LoopbackServer.start()
            let loop = try EventLoop(name: "raw-client")
            let client = try await RawClient.connect(port: server.port, loop: loop)
            try await client.send("GET /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try await client.receive(until: hasResponse(bodyLength: 1))
            await server.shutdown()
            let bytes = try await client.receiveToEOF(timeout: .seconds(5))
            #expect(bytes == client.received)
            await loop.shutdown()
        }
    }
}
