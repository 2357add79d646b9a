// The transport's shape (issue: transport at wire speed): work on the loop needs no hop, the
// connection reads ahead up to its limit and no further (back-pressure), a body of tiny chunks
// arrives coalesced, receive buffers are reused, and an idle connection the server closes leaves
// the pool without anyone probing it.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierPosix
import CourierTestSupport
import Testing

extension ConnectionTests {
    @Suite struct Transport {
        @Test func anExchangeOnTheLoopStaysOnTheLoop() async throws {
            try await withServer { server in
                let loop = HTTP1ConnectionOptions.sharedEventLoop
                let port = server.port
                let (stayed, total) = try await Task(executorPreference: loop) { () async throws -> (Bool, Int) in
                    let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: port)
                    var stayed = loop.inEventLoop
                    var total = 0
                    for _ in 0..<20 {
                        try await connection.sendHead(method: .get, target: "/bytes/300000")
                        stayed = stayed && loop.inEventLoop
                        let response = try await connection.receiveResponse()
                        stayed = stayed && loop.inEventLoop
                        for try await slice in response.body {
                            total += slice.readableBytes
                            stayed = stayed && loop.inEventLoop
                        }
                    }
                    await connection.close()
                    return (stayed, total)
                }.value
                #expect(stayed, "every step of the exchange ran on the loop thread")
                #expect(total == 20 * 300_000)
            }
        }

        static let limits: [Int] = [0, 64 * 1024, 256 * 1024]

        @Test(arguments: limits)
        func readAheadStopsAtItsLimit(limit: Int) async throws {
            try await withServer { server in
                var options = HTTP1ConnectionOptions()
                options.readAheadLimit = limit
                let connection = try await connect(server, options: options)
                try await connection.sendHead(method: .get, target: "/bytes/50000000")
                let response = try await connection.receiveResponse()
                // The consumer does not pull: the connection reads up to the limit (plus at most
                // one read) and stops; with 0 it reads nothing beyond the head's own read.
                try await Task.sleep(for: .milliseconds(300))
                let buffered = await connection.bufferedBodyBytes
                #expect(buffered <= limit + options.readSize, "read ahead \(buffered) bytes with a limit of \(limit)")
                if limit > 0 { #expect(buffered >= limit / 2, "read ahead only \(buffered) bytes with a limit of \(limit)") }
                // Pulling resumes the reading, to the end.
                var total = 0
                var iterator = response.body.makeAsyncIterator()
                while let slice = try await iterator.next() {
                    total += slice.readableBytes
                    if total >= 2_000_000 { break }
                }
                #expect(total >= 2_000_000)
                await connection.close()
            }
        }

        @Test func tinyChunksArriveCoalesced() async throws {
            try await withServer { server in
                let connection = try await connect(server)
                try await connection.sendHead(method: .get, target: "/chunked/200000?chunk=1")
                let response = try await connection.receiveResponse()
                var slices = 0
                var body: [UInt8] = []
                for try await slice in response.body {
                    slices += 1
                    body += slice.readableBytesArray
                }
                #expect(body == pattern(200_000))
                // 200,000 one-byte chunks, copied together as they are read: a hand-over per read,
                // not per chunk.
                #expect(slices <= 200_000 / 100, "\(slices) slices for 200,000 one-byte chunks")
                #expect(connection.isReusable)
                await connection.close()
            }
        }

        @Test func receiveBuffersAreReusedAcrossExchanges() async throws {
            let loop = try EventLoop(name: "buffer-test")
            defer { loop.shutdownBlocking() }
            try await withServer { server in
                var options = HTTP1ConnectionOptions()
                options.eventLoop = loop
                let connection = try await connect(server, options: options)
                func exchanges() async throws {
                    for size in Array(repeating: 100_000, count: 50) + Array(repeating: 500, count: 50) {
                        let (response, body) = try await get(connection, "/bytes/\(size)")
                        #expect(response.head.status == 200 && body.count == size)
                    }
                }
                try await exchanges()
                let (keptAfterFirst, _) = try await loop.submit { loop.receiveBuffers.statistics }
                try await exchanges()
                let (kept, free) = try await loop.submit { loop.receiveBuffers.statistics }
                // A handful of buffers (one per read size used), reused: a hundred more exchanges
                // add none, and an idle connection holds none.
                #expect(kept <= 12, "the pool keeps \(kept) buffers after 200 exchanges")
                #expect(kept == keptAfterFirst, "the second hundred exchanges added \(kept - keptAfterFirst) buffers")
                #expect(free == kept, "\(kept - free) buffers still held by an idle connection")
                await connection.close()
            }
        }

        @Test func anIdleConnectionClosedByTheServerLeavesThePool() async throws {
            let scripts: [String: LoopbackScript] = [
                "/then-close": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .pause(.milliseconds(30)), .close] },
            ]
            try await withServer(LoopbackServer.Configuration(scripts: scripts)) { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let body = try await pool.execute(origin: origin, method: .get) { connection in
                    try await connection.sendHead(method: .get, target: "/then-close")
                    return try await connection.receiveResponse().body.collect()
                }
                #expect(body.readableString == "ok")
                #expect(pool.connectionCount(for: origin) == 1, "the keep-alive connection went back to the pool")
                // The server closes it while it idles: the pool drops it without a request.
                let dropped = await eventually(.seconds(2)) { pool.connectionCount(for: origin) == 0 }
                #expect(dropped, "the pool still holds a connection the server closed")
                // The next request goes out once, on a fresh connection.
                let requestsBefore = server.requestCount
                let again = try await pool.execute(origin: origin, method: .post) { connection in
                    #expect(connection.requestCount == 0, "a fresh connection")
                    try await connection.sendHead(method: .get, target: "/bytes/3")
                    return try await connection.receiveResponse().body.collect()
                }
                #expect(again.readableBytes == 3)
                #expect(server.requestCount == requestsBefore + 1)
                await pool.shutdown()
            }
        }
    }
}
