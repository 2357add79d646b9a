// The built-in routes, checked byte for byte with a raw socket.

import CourierBytes
import CourierLoopbackServer
import CourierPosix
import Testing

extension LoopbackServerTests {
    @Suite struct Routes {
        @Test func fixedBodyHasExactBytes() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bytes/30 HTTP/1.1\r\nHost: x\r\n\r\n")
                let bytes = try await client.receive(until: hasResponse(bodyLength: 30))
                let head = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: 30\r\n\r\n"
                #expect(bytes == Array(head.utf8) + pattern(30))
            }
        }

        @Test func largeFixedBodyAndKeepAlive() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                let size = 3 * 1024 * 1024 + 7
                for _ in 0..<2 {
                    try await client.send("GET /bytes/\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
                    let bytes = try await client.receive(until: hasResponse(bodyLength: size))
                    let end = headEnd(bytes)!
                    #expect(bytes.count == end + size)
                    #expect(Array(bytes[end...]) == pattern(size))
                    client.consume(bytes.count)
                }
                #expect(server.acceptedConnections == 1)
                #expect(server.requestCount == 2)
            }
        }

        @Test func chunkedBody() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /chunked/10?chunk=4 HTTP/1.1\r\nHost: x\r\n\r\n")
                let expected = "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "4\r\nabcd\r\n4\r\nefgh\r\n2\r\nij\r\n0\r\n\r\n"
                let bytes = try await client.receive { $0.count >= expected.utf8.count }
                #expect(String(decoding: bytes, as: UTF8.self) == expected)
            }
        }

        @Test func uploadCountsKnownAndChunkedBodies() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello")
                var bytes = try await client.receive(until: hasResponse(bodyLength: 14))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\n{\"received\":5}"))
                client.consume(bytes.count)
                try await client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n")
                bytes = try await client.receive(until: hasResponse(bodyLength: 14))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\n{\"received\":5}"))
            }
        }

        @Test func echoEscapesJSON() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("POST /echo?q=1 HTTP/1.1\r\nHost: x\r\nX-A: \"q\\\r\nContent-Length: 4\r\n\r\na\nb\u{1}")
                let bytes = try await client.receiveUntilBody()
                let body = String(decoding: bytes, as: UTF8.self)
                #expect(body == #"{"method":"POST","target":"/echo?q=1","version":"HTTP/1.1","headers":[["Host","x"],["X-A","\"q\\"],["Content-Length","4"]],"bodyLength":4,"body":"a\nb\u0001"}"#)
            }
        }

        @Test func statusHeadAndNotFound() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /status/204 HTTP/1.1\r\nHost: x\r\n\r\n")
                var bytes = try await client.receive(until: hasResponse(bodyLength: 0))
                #expect(String(decoding: bytes, as: UTF8.self) == "HTTP/1.1 204 No Content\r\n\r\n")
                client.consume(bytes.count)
                try await client.send("HEAD /bytes/100 HTTP/1.1\r\nHost: x\r\n\r\n")
                bytes = try await client.receive(until: hasResponse(bodyLength: 0))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("Content-Length: 100\r\n\r\n"))
                client.consume(bytes.count)
                try await client.send("GET /nope HTTP/1.1\r\nHost: x\r\n\r\n")
                bytes = try await client.receive(until: hasResponse(bodyLength: 10))
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 404 Not Found\r\n"))
            }
        }

        @Test func closeRouteAndConnectionCloseCloseTheConnection() async throws {
            try await withServer { server, loop in
                var client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /close HTTP/1.1\r\nHost: x\r\n\r\n")
                var bytes = try await client.receiveToEOF()
                #expect(String(decoding: bytes, as: UTF8.self).contains("Connection: close\r\n"))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\nbye\n"))
                client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bytes/3 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                bytes = try await client.receiveToEOF()
                #expect(String(decoding: bytes, as: UTF8.self).contains("Connection: close\r\n"))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("\r\n\r\nabc"))
            }
        }

        @Test func expectContinueGetsInterimResponse() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("PUT /upload HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n")
                let interim = try await client.receive { $0.count >= 25 }
                #expect(String(decoding: interim, as: UTF8.self) == "HTTP/1.1 100 Continue\r\n\r\n")
                client.consume(25)
                try await client.send("ok")
                let bytes = try await client.receive(until: hasResponse(bodyLength: 14))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("{\"received\":2}"))
            }
        }

        @Test func pipelinedRequestsAreAnsweredInOrder() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bytes/1 HTTP/1.1\r\nHost: x\r\n\r\nGET /bytes/2 HTTP/1.1\r\nHost: x\r\n\r\n")
                let bytes = try await client.receive { String(decoding: $0, as: UTF8.self).hasSuffix("\r\n\r\nab") }
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(text.contains("Content-Length: 1\r\n\r\naHTTP/1.1 200 OK"))
                #expect(server.requestCount == 2)
            }
        }
    }
}

extension RawClient {
    /// Reads one Content-Length response and returns its body.
    func receiveUntilBody() async throws -> [UInt8] {
        let bytes = try await receive { bytes in
            guard let end = headEnd(bytes) else { return false }
            let head = String(decoding: bytes[..<end], as: UTF8.self)
            guard let line = head.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("content-length:") }),
                  let n = Int(line.dropFirst(15).trimmingPrefix(" ")) else { return false }
            return bytes.count - end >= n
        }
        return Array(bytes[headEnd(bytes)!...])
    }
}
