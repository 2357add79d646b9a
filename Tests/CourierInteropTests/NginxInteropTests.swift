// nginx (Debian's): keep-alive, many requests on one connection, a 256 MiB download, concurrency,
// an upload. nginx logs each request with its connection serial number, so connection reuse is
// checked on the server's side, not only on ours.
import Testing
import Courier
import CourierBytes
import CourierHTTP1

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(5)))
struct NginxInteropTests {
    @Test func aThousandRequestsOnOneKeepAliveConnection() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.nginxPort, options: Interop.options())
        for i in 0..<1000 {
            try await connection.send(method: .get, target: "/small.txt?n=\(i)")
            let response = try await connection.receiveResponse()
            #expect(response.head.status == 200)
            let body = try await response.body.collect(upTo: 1024)
            #expect(body.readableString == "hello, nginx\n")
            #expect(connection.isReusable)
        }
        await connection.close()
        // nginx's view: 1,000 requests, one connection serial, request counts 1…1000. nginx writes
        // a request's log line after it sent the response, so the last line may still be on its
        // way when the last response arrives: wait for it (bounded), never race the server.
        var lines: [String] = []
        let deadline = ContinuousClock.now + .seconds(10)
        repeat {
            lines = Interop.readLines(Interop.nginxLog).filter { $0.contains("/small.txt?n=") }
            if lines.count >= 1000 { break }
            try await Task.sleep(for: .milliseconds(20))
        } while ContinuousClock.now < deadline
        #expect(lines.count == 1000)
        let serials = Set(lines.map { $0.split(separator: " ")[0] })
        #expect(serials.count == 1, "nginx saw \(serials.count) connections")
        #expect(lines.last?.split(separator: " ")[1] == "1000")
    }

    @Test func a256MiBDownloadStreamsInSlices() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.nginxPort, options: Interop.options())
        try await connection.send(method: .get, target: "/large.bin")
        let response = try await connection.receiveResponse()
        #expect(response.head.status == 200)
        #expect(response.head.headers.first(name: "Content-Length") == String(256 << 20))
        var total = 0
        var largest = 0
        for try await slice in response.body {
            total += slice.readableBytes
            largest = max(largest, slice.readableBytes)
        }
        #expect(total == 256 << 20)
        #expect(largest <= 1 << 20, "slices stay small: the body is streamed, not buffered")
        #expect(connection.isReusable)
        await connection.close()
    }

    @Test func thirtyTwoConnectionsAtOnce() async throws {
        let port = Interop.nginxPort
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<32 {
                group.addTask {
                    let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: port, options: Interop.options())
                    var ok = 0
                    for _ in 0..<20 {
                        try await connection.send(method: .get, target: "/random-1m.bin")
                        let response = try await connection.receiveResponse()
                        let body = try await response.body.collect(upTo: 2 << 20)
                        if response.head.status == 200 && body.readableBytes == 1 << 20 { ok += 1 }
                    }
                    await connection.close()
                    return ok
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(results == 32 * 20)
    }

    @Test func uploadsOfKnownAndUnknownLength() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.nginxPort, options: Interop.options())
        let payload = ByteBuffer(bytes: [UInt8](repeating: 0x61, count: 1 << 20))
        try await connection.send(method: .post, target: "/upload", body: payload)
        let first = try await connection.receiveResponse()
        #expect(first.head.status == 204)
        _ = try await first.body.collect(upTo: 1024)
        #expect(connection.isReusable)
        try await connection.sendHead(method: .post, target: "/upload", body: .unknown)
        for _ in 0..<8 { try await connection.writeBody(payload) }
        try await connection.finishBody()
        let second = try await connection.receiveResponse()
        #expect(second.head.status == 204)
        _ = try await second.body.collect(upTo: 1024)
        await connection.close()
    }

    @Test func aMissingFileIsA404WithABody() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.nginxPort, options: Interop.options())
        try await connection.send(method: .get, target: "/missing")
        let response = try await connection.receiveResponse()
        #expect(response.head.status == 404)
        let body = try await response.body.collect(upTo: 1 << 16)
        #expect(body.readableString.contains("404"))
        await connection.close()
    }
}
