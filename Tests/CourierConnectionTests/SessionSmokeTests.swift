import Courier
import CourierBytes
import CourierLoopbackServer
import CourierURL
import Testing

/// A first end-to-end pass through Session against the loopback server (the full suite is
/// CourierSessionTests).
@Suite(.serialized) struct SessionSmokeTests {
    @Test func dataTaskBuffersABody() async throws {
        let server = try await LoopbackServer.start()
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "http://127.0.0.1:\(server.port)/bytes/100000"))
        let task = session.dataTask(with: request)
        task.resume()
        let response = await task.response()
        #expect(response.head?.status == 200)
        #expect(try response.result.get().readableBytes == 100_000)
        #expect(response.metrics.connectCount == 1)
        let again = session.dataTask(with: request)
        again.resume()
        let second = await again.response()
        #expect(try second.result.get().readableBytes == 100_000)
        #expect(second.metrics.connectCount == 0)
        await session.invalidateAndCancel()
        await server.shutdown()
    }

    @Test func streamTaskDeliversSlices() async throws {
        let server = try await LoopbackServer.start()
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "http://127.0.0.1:\(server.port)/chunked/300000?chunk=7000"))
        let task = session.streamTask(with: request)
        let response = try await task.response()
        #expect(response.head.status == 200)
        let body = try await response.body.collect()
        #expect(body.readableBytes == 300_000)
        await session.finishTasksAndInvalidate()
        await server.shutdown()
    }
}
