// A Python server scripted to misbehave (scripts/interop/scripted_server.py).
import Testing
import Courier
import CourierCurlExitCodes

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(2)))
struct ScriptedInteropTests {
    func fetch(_ target: String, idle: Duration = .seconds(10)) async -> ConnectionError? {
        await connectionError {
            let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.scriptedPort, options: Interop.options(idle: idle))
            defer { Task { await connection.close() } }
            try await connection.send(method: .get, target: target)
            let response = try await connection.receiveResponse()
            _ = try await response.body.collect(upTo: 1 << 20)
        }
    }

    @Test func aResetMidBodyIsAReceiveFailure() async {
        let error = await fetch("/reset")
        #expect(error?.code == .remoteClosed || error?.code == .bodyTruncated, "\(String(describing: error))")
    }

    @Test func aStallEndsWithTheIdleTimeout() async {
        let error = await fetch("/stall", idle: .milliseconds(300))
        #expect(error?.code == .idleTimeout)
        #expect(error?.curlExitCode == 28)
    }

    @Test func aBodyShorterThanAnnounced() async {
        let error = await fetch("/truncated")
        #expect(error?.code == .bodyTruncated)
        #expect(error?.curlExitCode == 18)
    }

    @Test func anEmptyReply() async {
        let error = await fetch("/empty")
        #expect(error?.code == .remoteClosed)
        #expect(error?.curlExitCode == 52)
    }

    @Test func anIdleConnectionClosedByTheServerIsNotReused() async throws {
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: Interop.scriptedPort, options: Interop.options())
        try await connection.send(method: .get, target: "/idle-close")
        let response = try await connection.receiveResponse()
        #expect(try await response.body.collect(upTo: 64).readableString == "ok")
        try await Task.sleep(for: .milliseconds(400))
        // The server has closed it: a second request must not be written into a dead connection.
        let error = await connectionError { try await connection.send(method: .get, target: "/") }
        #expect(error?.code == .notReusable || error?.code == .remoteClosed, "\(String(describing: error))")
        await connection.close()
    }

    @Test func thePoolSendsAGETAgainOnAFreshConnectionWhenTheIdleOneWasClosed() async throws {
        let pool = ConnectionPool()
        let origin = ConnectionPool.Origin(scheme: "http", host: "127.0.0.1", port: Interop.scriptedPort)
        let get: @Sendable (HTTP1Connection) async throws -> String = { connection in
            try await connection.send(method: .get, target: "/idle-close")
            return try await connection.receiveResponse().body.collect(upTo: 64).readableString
        }
        let first = try await pool.execute(origin: origin, method: .get, get)
        #expect(first == "ok")
        try await Task.sleep(for: .milliseconds(400))
        // The server closed the pooled connection while it was idle: the retry rule sends the GET
        // on a fresh connection instead of failing it.
        let second = try await pool.execute(origin: origin, method: .get, get)
        #expect(second == "ok")
        await pool.shutdown()
    }
}
