// Timeouts, hostile servers, TLS failures, cancellation and descriptor leaks.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierTLS
import CourierTestSupport
import Testing

private func shortOptions(idle: Duration = .seconds(5), total: Duration? = nil, handshake: Duration = .seconds(5)) -> HTTP1ConnectionOptions {
    var options = HTTP1ConnectionOptions()
    options.idleTimeout = idle
    options.totalTimeout = total
    options.tlsHandshakeTimeout = handshake
    return options
}

extension ConnectionTests {
    @Suite struct Failures {
        @Test func tlsHandshakeTimeout() async throws {
            try await withServer(.init(tls: TestTLS.server, stallsConnections: true)) { server in
                let start = ContinuousClock.now
                let error = await expectConnectionError {
                    _ = try await connect(server, options: shortOptions(handshake: .milliseconds(200)))
                }
                #expect(error?.code == .tlsHandshakeTimeout)
                #expect(ContinuousClock.now - start < .seconds(3))
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        /// curl's --connect-timeout bounds the handshake too: when the connection phase's budget
        /// runs out mid-handshake, the error is a handshake timeout naming the connection phase,
        /// not the exchange's total deadline (which is set, and later).
        @Test func connectionPhaseBudgetEndsAStalledHandshake() async throws {
            try await withServer(.init(tls: TestTLS.server, stallsConnections: true)) { server in
                var options = shortOptions(total: .seconds(20), handshake: .seconds(20))
                options.connectAndHandshakeTimeout = .milliseconds(200)
                let start = ContinuousClock.now
                let error = await expectConnectionError { _ = try await connect(server, options: options) }
                #expect(error?.code == .tlsHandshakeTimeout)
                #expect(error?.message.contains("not established in time") == true)
                #expect(ContinuousClock.now - start < .seconds(3))
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        @Test func idleTimeoutWaitingForTheHead() async throws {
            try await withServer(.init(scripts: ["/stall": { _ in [.stall] }])) { server in
                let connection = try await connect(server, options: shortOptions(idle: .milliseconds(200)))
                try await connection.sendHead(method: .get, target: "/stall")
                let error = await expectConnectionError { _ = try await connection.receiveResponse() }
                #expect(error?.code == .idleTimeout)
                #expect(!connection.isReusable)
            }
        }

        @Test func idleTimeoutMidBody() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/half": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"), .writePattern(count: 10), .stall] },
            ])
            try await withServer(config) { server in
                let connection = try await connect(server, options: shortOptions(idle: .milliseconds(200)))
                try await connection.sendHead(method: .get, target: "/half")
                let response = try await connection.receiveResponse()
                var received = 0
                let error = await expectConnectionError {
                    for try await slice in response.body { received += slice.readableBytes }
                }
                #expect(error?.code == .idleTimeout)
                #expect(received == 10)
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        @Test func totalTimeoutWhileDataTrickles() async throws {
            var steps: [LoopbackAction] = [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n")]
            for _ in 0..<50 { steps += [.writePattern(count: 1), .pause(.milliseconds(20))] }
            let script = steps
            try await withServer(.init(scripts: ["/slow": { _ in script }])) { server in
                let connection = try await connect(server, options: shortOptions(idle: .milliseconds(500),
                                                                                 total: .milliseconds(300)))
                let start = ContinuousClock.now
                let error = await expectConnectionError { _ = try await get(connection, "/slow") }
                #expect(error?.code == .totalTimeout)
                #expect(ContinuousClock.now - start < .seconds(2))
            }
        }

        @Test func emptyReplyIsTyped() async throws {
            try await withServer(.init(scripts: ["/empty": { _ in [.close] }])) { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/empty")
                let error = await expectConnectionError { _ = try await connection.receiveResponse() }
                #expect(error?.code == .remoteClosed)
                #expect(error?.parserError?.code == .emptyResponse)
                #expect(error?.curlExitCode == 52)
            }
        }

        @Test func resetMidBodyIsTyped() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/cut": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n"), .writePattern(count: 10), .reset] },
                "/cutchunked": { _ in [.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nabcde\r\n"), .reset] },
            ])
            try await withServer(config) { server in
                for target in ["/cut", "/cutchunked"] {
                    let connection = try await connect(server)
                    let error = await expectConnectionError { _ = try await get(connection, target) }
                    #expect(error?.code == .bodyTruncated || error?.code == .remoteClosed)
                    #expect(!connection.isReusable)
                }
            }
        }

        @Test func garbageIsAProtocolError() async throws {
            try await withServer(.init(scripts: ["/junk": { _ in [.text("HTTP/1.1 2x0 OK\r\n\r\n")] }])) { server in
                let connection = try await connect(server)
                let error = await expectConnectionError { _ = try await get(connection, "/junk") }
                #expect(error?.code == .protocolError)
                #expect(error?.parserError?.code == .invalidStatusLine)
                let again = await expectConnectionError { try await connection.sendHead(method: .get, target: "/") }
                #expect(again?.code == .protocolError)
            }
        }

        @Test func tlsHostnameMismatch() async throws {
            try await withServer(.init(tls: TestTLS.wrongHostServer)) { server in
                for host in ["127.0.0.1", "localhost"] {
                    let error = await expectConnectionError { _ = try await connect(server, host: host) }
                    #expect(error?.code == .tlsFailed)
                    #expect(error?.tlsError?.code == .hostnameMismatch)
                    #expect(error?.curlExitCode == 60)
                    #expect(error?.afNetworkingCode == -1202)
                }
            }
        }

        @Test func tlsTruncationOfACloseDelimitedBody() async throws {
            let config = LoopbackServer.Configuration(tls: TestTLS.server, scripts: [
                "/truncated": { _ in [.text("HTTP/1.1 200 OK\r\n\r\nabc"), .close] },
                "/clean": { _ in [.text("HTTP/1.1 200 OK\r\n\r\nabc"), .closeNotify, .close] },
            ])
            try await withServer(config) { server in
                let connection = try await connect(server)
                let error = await expectConnectionError { _ = try await get(connection, "/truncated") }
                #expect(error?.code == .tlsFailed)
                #expect(error?.tlsError?.code == .closedWithoutCloseNotify)
                #expect(error?.curlExitCode == 56)

                let clean = try await connect(server)
                let (_, body) = try await get(clean, "/clean")
                #expect(body == Array("abc".utf8))
                #expect(!clean.isReusable)
            }
        }

        @Test func cancellingTheTaskMidBodyClosesTheConnection() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/hang": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"), .writePattern(count: 10), .stall] },
            ])
            try await withServer(config) { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/hang")
                let response = try await connection.receiveResponse()
                let task = Task { () -> ConnectionError? in
                    do {
                        for try await _ in response.body {}
                        return nil
                    } catch {
                        return error as? ConnectionError
                    }
                }
                try await Task.sleep(for: .milliseconds(100))
                task.cancel()
                let error = await task.value
                #expect(error?.code == .cancelled)
                #expect(error?.afNetworkingCode == -999)
                #expect(!connection.isReusable)
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        @Test func connectionRefusedIsConnectFailed() async throws {
            try await DescriptorTestLock.shared.withLock { try await connectionRefusedLocked() }
        }

        func connectionRefusedLocked() async throws {
            let server = try await LoopbackServer.start()
            let port = server.port
            await server.shutdown()
            let error = await expectConnectionError {
                _ = try await HTTP1Connection.connect(host: "127.0.0.1", port: port)
            }
            #expect(error?.code == .connectFailed)
            #expect(error?.connectError?.code == .connectionRefused)
        }

        @Test func noSocketLeaks() async throws {
            // Every socket of every connection made here is closed: plain and TLS, reused,
            // closed by the server, failed. Checked per server port, so parallel suites of other
            // targets cannot disturb it.
            var ports: [UInt16] = []
            try await withServer { server in
                ports.append(server.port)
                for _ in 0..<20 {
                    let connection = try await connect(server)
                    _ = try await get(connection, "/bytes/100")
                    await connection.close()
                }
                // The probe sees live sockets (client and server end), so the final check can fail.
                let live = try await connect(server)
                #expect(await eventually { openSockets(onPort: server.port) == 3 })  // + the listener
                await live.close()
                let dropped = try await connect(server)
                _ = try await get(dropped, "/close")
                do {
                    let abandoned = try await connect(server)
                    try await abandoned.sendHead(method: .get, target: "/bytes/100000")
                    _ = try await abandoned.receiveResponse()
                    // Dropped without reading or closing: deinit closes it.
                }
            }
            try await withServer(.init(tls: TestTLS.server, scripts: ["/empty": { _ in [.close] }])) { server in
                ports.append(server.port)
                for _ in 0..<5 {
                    let connection = try await connect(server)
                    _ = try? await get(connection, "/empty")
                }
            }
            try await withServer(.init(tls: TestTLS.server, stallsConnections: true)) { server in
                ports.append(server.port)
                let error = await expectConnectionError {
                    _ = try await connect(server, options: shortOptions(handshake: .milliseconds(100)))
                }
                #expect(error?.code == .tlsHandshakeTimeout)
            }
            // Reading /proc opens descriptors: do it under the lock other targets' checks take.
            let finalPorts = ports
            await DescriptorTestLock.shared.withLock {
                for port in finalPorts {
                    #expect(await eventually { openSockets(onPort: port) == 0 }, "sockets left on port \(port)")
                }
            }
        }
    }
}

import CourierPosix

extension ConnectionTests {
    @Suite struct ConnectPhase {
        /// A listener whose accept queue is full drops further SYNs, so a connect hangs.
        @Test func connectTimeout() async throws {
            try await DescriptorTestLock.shared.withLock { try await connectTimeoutLocked() }
        }

        func connectTimeoutLocked() async throws {
            let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0), backlog: 0)
            defer { try? listener.close() }
            let port = try listener.localAddress().port
            let loop = try EventLoop(name: "filler")
            var fillers: [Socket] = []
            // Fill the accept queue (backlog 0 holds one or two) with connections never accepted.
            for _ in 0..<4 {
                do {
                    fillers.append(try await loop.connect(to: [SocketAddress(ip: .loopbackV4, port: port)],
                                                          configuration: ConnectConfiguration(timeout: .milliseconds(200))))
                } catch {
                    break
                }
            }
            var options = HTTP1ConnectionOptions()
            options.connectTimeout = .milliseconds(200)
            let start = ContinuousClock.now
            let error = await expectConnectionError {
                _ = try await HTTP1Connection.connect(host: "127.0.0.1", port: port, options: options)
            }
            #expect(error?.code == .connectTimeout)
            #expect(ContinuousClock.now - start < .seconds(3))
            for socket in fillers { try? socket.close() }
            await loop.shutdown()
        }

        /// A peer that never reads: the upload fills the socket buffers, the write waits, and the
        /// idle timeout fires on the write side.
        @Test func idleTimeoutWhileWriting() async throws {
            try await DescriptorTestLock.shared.withLock {
                let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                defer { try? listener.close() }
                var options = HTTP1ConnectionOptions()
                options.idleTimeout = .milliseconds(200)
                let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: try listener.localAddress().port,
                                                                   options: options)
                let total: UInt64 = 1 << 32
                try await connection.sendHead(method: .post, target: "/upload", body: .known(total))
                let piece = ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 1 << 20))
                var written = 0
                let error = await expectConnectionError {
                    for _ in 0..<4096 {
                        try await connection.writeBody(piece)
                        written += 1
                    }
                }
                #expect(error?.code == .idleTimeout)
                #expect(written > 0 && written < 4096)
            }
        }

        @Test func idleConnectionClosedByServerIsNotReused() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/bye-later": { _ in [.response(body: "ok"), .pause(.milliseconds(20)), .close] },
            ])
            try await withServer(config) { server in
                let connection = try await connect(server)
                let (_, body) = try await get(connection, "/bye-later")
                #expect(body == Array("ok".utf8))
                #expect(await eventually { server.openConnections == 0 })
                let error = await expectConnectionError { try await connection.sendHead(method: .get, target: "/bytes/1") }
                #expect(error?.code == .notReusable)
                #expect(!connection.isReusable)
            }
        }

        @Test func staleBodyIteratorDoesNotReadTheNextResponse() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/bytes/5")
                let first = try await connection.receiveResponse()
                #expect(try await first.body.collect().readableString == "abcde")
                let (_, second) = try await get(connection, "/bytes/3")
                #expect(second == Array("abc".utf8))
                try await connection.sendHead(method: .get, target: "/bytes/4")
                let third = try await connection.receiveResponse()
                // Iterating the first response again yields nothing and leaves the third intact.
                #expect(try await first.body.collect().readableBytes == 0)
                #expect(try await third.body.collect().readableString == "abcd")
                await connection.close()
            }
        }
    }
}
