// Requests and responses over plain and TLS connections to the loopback server.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierTestSupport
import Testing

extension ConnectionTests {
    @Suite struct Exchanges {
        @Test(arguments: [false, true])
        func getFixedBody(tls: Bool) async throws {
            try await withServer(.init(tls: tls ? TestTLS.server : nil)) { server in
                let connection = try await connect(server)
                let (response, body) = try await get(connection, "/bytes/1000")
                #expect(response.head.status == 200)
                #expect(response.head.version == .http1_1)
                #expect(response.head.headers.first(name: "content-length") == "1000")
                #expect(body == pattern(1000))
                #expect(connection.isReusable)
                await connection.close()
            }
        }

        @Test(arguments: [false, true])
        func thousandRequestsOnOneConnection(tls: Bool) async throws {
            try await withServer(.init(tls: tls ? TestTLS.server : nil)) { server in
                let connection = try await connect(server)
                for i in 0..<1000 {
                    let (response, body) = try await get(connection, "/bytes/\(i % 50)")
                    #expect(response.head.status == 200)
                    #expect(body.count == i % 50)
                }
                #expect(server.acceptedConnections == 1)
                #expect(server.requestCount == 1000)
                await connection.close()
            }
        }

        @Test(arguments: [false, true])
        func chunkedDownloadIsStreamedInSlices(tls: Bool) async throws {
            try await withServer(.init(tls: tls ? TestTLS.server : nil)) { server in
                let connection = try await connect(server)
                let size = 8 * 1024 * 1024
                try await connection.sendHead(method: .get, target: "/chunked/\(size)?chunk=16384")
                let response = try await connection.receiveResponse()
                #expect(response.head.headers.first(name: "transfer-encoding") == "chunked")
                var total = 0
                var slices = 0
                var largest = 0
                var patternOK = true
                for try await slice in response.body {
                    // Bounded memory: no slice is larger than one read.
                    largest = max(largest, slice.readableBytes)
                    let first = slice.getInteger(at: slice.readerIndex)!
                    if first != UInt8(ascii: "a") + UInt8(total % 26) { patternOK = false }
                    total += slice.readableBytes
                    slices += 1
                }
                #expect(total == size)
                #expect(slices > 100)
                #expect(largest <= 65536)
                #expect(patternOK)
                #expect(connection.isReusable)
                await connection.close()
            }
        }

        @Test("collect(upTo:) refuses a body over its limit with bodyTooLarge naming the limit")
        func collectOverTheLimit() async throws {
            try await withServer(.init()) { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/bytes/1000")
                let response = try await connection.receiveResponse()
                let error = await #expect(throws: ConnectionError.self) {
                    _ = try await response.body.collect(upTo: 999)
                }
                #expect(error?.code == .bodyTooLarge)
                #expect(error?.limit == 999)
                #expect(error?.message.contains("999") == true)
                #expect(error?.afNetworkingCode == -1103)
                #expect(!connection.isReusable)
                await connection.close()
            }
            try await withServer(.init()) { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/bytes/1000")
                #expect(try await connection.receiveResponse().body.collect(upTo: 1000).readableBytes == 1000)
                await connection.close()
            }
        }

        @Test func uploadWithKnownLength() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                let piece = ByteBuffer(bytes: pattern(100_000))
                try await connection.sendHead(method: .post, target: "/upload", body: .known(1_000_000))
                for _ in 0..<10 { try await connection.writeBody(piece) }
                try await connection.finishBody()
                let response = try await connection.receiveResponse()
                #expect(try await response.body.collect().readableString == #"{"received":1000000}"#)
                #expect(connection.isReusable)
                await connection.close()
            }
        }

        @Test(arguments: [false, true])
        func uploadWithUnknownLengthIsChunked(tls: Bool) async throws {
            try await withServer(.init(tls: tls ? TestTLS.server : nil)) { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .put, target: "/echo", body: .unknown)
                try await connection.writeBody(ByteBuffer(string: "hello "))
                try await connection.writeBody(ByteBuffer())
                try await connection.writeBody(ByteBuffer(string: "world"))
                try await connection.finishBody()
                let response = try await connection.receiveResponse()
                let text = try await response.body.collect().readableString
                #expect(text.contains(#"["Transfer-Encoding","chunked"]"#))
                #expect(text.hasSuffix(#""bodyLength":11,"body":"hello world"}"#))
                await connection.close()
            }
        }

        @Test func wholeBodySendAndEcho() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                try await connection.send(method: .post, target: "/echo?x=1", headers: ["X-Test": "a\"b"],
                                          body: ByteBuffer(string: "line\n"))
                let text = try await connection.receiveResponse().body.collect().readableString
                #expect(text.hasPrefix(#"{"method":"POST","target":"/echo?x=1","version":"HTTP/1.1","headers":[["Host","127.0.0.1:"#))
                #expect(text.contains(#"["X-Test","a\"b"]"#))
                #expect(text.hasSuffix(#""body":"line\n"}"#))
                await connection.close()
            }
        }

        @Test func interimContinueIsSkipped() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .put, target: "/upload", headers: ["Expect": "100-continue"],
                                              body: .known(3))
                try await connection.writeBody(ByteBuffer(string: "abc"))
                try await connection.finishBody()
                let response = try await connection.receiveResponse()
                #expect(response.head.status == 200)
                #expect(response.expectContinue == .continued, "the body waited for the server's 100")
                #expect(try await response.body.collect().readableString == #"{"received":3}"#)
                #expect(connection.isReusable)
                await connection.close()
            }
        }

        @Test func scriptedInterimResponsesAreSkipped() async throws {
            let config = LoopbackServer.Configuration(scripts: [
                "/early": { _ in [.text("HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"),
                                  .response(status: 201, body: "made")] },
            ])
            try await withServer(config) { server in
                let connection = try await connect(server)
                let (response, body) = try await get(connection, "/early")
                #expect(response.head.status == 201)
                #expect(body == Array("made".utf8))
                await connection.close()
            }
        }

        @Test func connectionCloseIsRespected() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                let (response, body) = try await get(connection, "/close")
                #expect(response.head.headers.first(name: "connection") == "close")
                #expect(body == Array("bye\n".utf8))
                #expect(!connection.isReusable)
                let error = await expectConnectionError { try await connection.sendHead(method: .get, target: "/bytes/1") }
                #expect(error?.code == .notReusable)
                #expect(await eventually { server.openConnections == 0 })

                let second = try await connect(server)
                let (_, body2) = try await get(second, "/bytes/2", headers: ["Connection": "close"])
                #expect(body2 == Array("ab".utf8))
                #expect(!second.isReusable)
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        @Test func headResponseHasNoBody() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .head, target: "/bytes/100")
                let response = try await connection.receiveResponse()
                #expect(response.head.headers.first(name: "content-length") == "100")
                #expect(try await response.body.collect().readableBytes == 0)
                #expect(connection.isReusable)
                let (_, body) = try await get(connection, "/bytes/3")
                #expect(body == Array("abc".utf8))
                #expect(server.acceptedConnections == 1)
                await connection.close()
            }
        }

        @Test func statusAndLocalMisuse() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                let (response, _) = try await get(connection, "/status/404")
                #expect(response.head.status == 404)
                // A second request while a response is unread is refused without closing.
                try await connection.sendHead(method: .get, target: "/bytes/10")
                var error = await expectConnectionError { try await connection.sendHead(method: .get, target: "/bytes/1") }
                #expect(error?.code == .notReusable)
                _ = try await connection.receiveResponse().body.collect()
                // Too many body bytes: refused, nothing sent.
                try await connection.sendHead(method: .post, target: "/upload", body: .known(2))
                error = await expectConnectionError { try await connection.writeBody(ByteBuffer(string: "abc")) }
                #expect(error?.code == .invalidRequest)
                try await connection.writeBody(ByteBuffer(string: "ab"))
                try await connection.finishBody()
                #expect(try await connection.receiveResponse().body.collect().readableString == #"{"received":2}"#)
                // Bad header values never reach the wire.
                error = await expectConnectionError {
                    try await connection.sendHead(method: .get, target: "/", headers: ["X": "a\r\nb"])
                }
                #expect(error?.code == .invalidRequest)
                #expect(connection.isReusable)
                await connection.close()
            }
        }
    }
}
