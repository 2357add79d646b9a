// The pool shell against the loopback server: reuse, and the retry-once rule (docs/pool.md rule 8)
// with a server that drops the second request on a connection without answering.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierPool
import CourierTestSupport
import Testing

/// Answers the first request on a connection, then closes the connection on the next one without
/// a byte of response — what a server that timed out an idle keep-alive connection looks like when
/// the request crosses its close.
private let dropsSecondRequest: LoopbackScript = { request in
    request.indexOnConnection == 1 ? [.response(body: "fresh")] : [.close]
}

private func fetch(_ pool: ConnectionPool, _ origin: ConnectionPool.Origin, _ method: HTTPMethod, _ target: String) async throws -> String {
    try await pool.execute(origin: origin, method: method) { connection in
        try await connection.send(method: method, target: target, body: method == .post ? ByteBuffer(string: "x") : nil)
        let response = try await connection.receiveResponse()
        return try await response.body.collect(upTo: 1 << 20).readableString
    }
}

extension ConnectionTests {
    @Suite struct Pool {
        @Test func sequentialRequestsReuseOneConnection() async throws {
            try await withServer { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                for _ in 0..<20 {
                    let body = try await fetch(pool, origin, .get, "/bytes/5")
                    #expect(body == "abcde")
                }
                #expect(server.acceptedConnections == 1)
                let count = await pool.connectionCount(for: origin)
                #expect(count == 1)
                await pool.shutdown()
                #expect(await eventually { server.openConnections == 0 })
            }
        }

        @Test func anIdempotentRequestDroppedOnAReusedConnectionIsSentOnceMore() async throws {
            try await withServer(.init(scripts: ["/flaky": dropsSecondRequest])) { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let body = try await fetch(pool, origin, .get, "/flaky")
                    #expect(body == "fresh")
                // Reused connection, dropped without a response byte: retried on a fresh connection.
                let again = try await fetch(pool, origin, .get, "/flaky")
                    #expect(again == "fresh")
                #expect(server.acceptedConnections == 2)
                #expect(server.requestCount == 3)
                await pool.shutdown()
            }
        }

        @Test func aPOSTIsNeverSentTwice() async throws {
            try await withServer(.init(scripts: ["/flaky": dropsSecondRequest])) { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let body = try await fetch(pool, origin, .post, "/flaky")
                    #expect(body == "fresh")
                let error = await expectConnectionError { _ = try await fetch(pool, origin, .post, "/flaky") }
                #expect(error?.code == .remoteClosed)
                #expect(server.requestCount == 2, "the POST reached the server once, and was not replayed")
                await pool.shutdown()
            }
        }

        @Test func aRetriedRequestThatFailsAgainFails() async throws {
            // Every request after the first on any connection is dropped, and fresh connections
            // are refused after the second: the retry happens once, then the error surfaces.
            try await withServer(.init(scripts: ["/always": { request in
                request.indexOnConnection == 1 && request.target.hasSuffix("first") ? [.response(body: "ok")] : [.close]
            }])) { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let body = try await fetch(pool, origin, .get, "/always?first")
                    #expect(body == "ok")
                let error = await expectConnectionError { _ = try await fetch(pool, origin, .get, "/always?again") }
                #expect(error?.code == .remoteClosed)
                #expect(server.requestCount == 3, "first, the dropped one, and exactly one retry")
                await pool.shutdown()
            }
        }
    
        @Test func theIdleTimeoutClosesAPooledConnection() async throws {
            try await withServer { server in
                var limits = PoolStateMachine.Limits()
                limits.idleTimeout = .milliseconds(200)
                let pool = ConnectionPool(limits: limits)
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let body = try await fetch(pool, origin, .get, "/bytes/3")
                #expect(body == "abc")
                #expect(await pool.connectionCount(for: origin) == 1)
                // The machine's timer fires through the shell's task and closes the idle connection.
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
                #expect(await pool.connectionCount(for: origin) == 0)
                // The next request dials afresh.
                let again = try await fetch(pool, origin, .get, "/bytes/3")
                #expect(again == "abc")
                #expect(server.acceptedConnections == 2)
                await pool.shutdown()
            }
        }

        /// Each request moves the idle deadline later; the pool's one loop timer is not re-armed
        /// for each (docs/benchmarks.md, "Memory"): it fires at the first deadline, finds a later
        /// one wanted, and waits for it. The connection must survive a stream of requests that
        /// lasts longer than the idle timeout, and still close once they stop.
        @Test func theIdleTimeoutCountsFromTheLastRequest() async throws {
            try await withServer { server in
                var limits = PoolStateMachine.Limits()
                limits.idleTimeout = .milliseconds(1_000)
                let pool = ConnectionPool(limits: limits)
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                let start = ContinuousClock.now
                while ContinuousClock.now - start < .milliseconds(2_500) {
                    #expect(try await fetch(pool, origin, .get, "/bytes/3") == "abc")
                    try await Task.sleep(for: .milliseconds(100))
                }
                #expect(server.acceptedConnections == 1, "the connection was closed between requests")
                #expect(await eventually(.seconds(5)) { server.openConnections == 0 })
                #expect(await pool.connectionCount(for: origin) == 0)
                await pool.shutdown()
            }
        }

        @Test func shutdownClosesEveryConnectionAndRefusesNewRequests() async throws {
            try await withServer { server in
                let pool = ConnectionPool()
                let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: server.port)
                _ = try await fetch(pool, origin, .get, "/bytes/1")
                await pool.shutdown()
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
                await #expect(throws: PoolError.self) { _ = try await fetch(pool, origin, .get, "/bytes/1") }
            }
        }
    }
}
