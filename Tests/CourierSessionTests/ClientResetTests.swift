// HTTPClient.invalidateSession(cancelingTasks:resetSession:) — AFNetworking's
// invalidateSessionCancelingTasks:resetSession: (issue 16).

import Courier
import CourierLoopbackServer
import CourierTestSupport
import Testing

extension SessionTests {
    @Suite struct ClientReset {
        @Test("without a reset the client's calls fail with .invalidated; with one they run on a fresh session")
        func reset() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 1_000_000, sent: 5000)])) { server in
                let client = try HTTPClient(baseURL: server.url("/").description)
                #expect(try await client.get("echo").response.status == 200)

                // A call in flight, then a reset that cancels: the call is cancelled, the next one
                // runs on a new session.
                let first = client.session
                let slow = try client.dataTask(.get, "slow")
                slow.resume()
                #expect(await eventually(.seconds(3)) { server.requestCount >= 2 })
                await client.invalidateSession(cancelingTasks: true, resetSession: true)
                #expect(failure(await slow.response.result)?.code == .cancelled)
                #expect(client.session !== first)
                #expect(try await client.get("echo").response.status == 200)
                // The old session takes nothing more.
                let late = first.dataTask(with: server.request("/echo"))
                #expect(failure(await late.response.result)?.code == .invalidated)

                // Without a reset: invalidated for good.
                await client.invalidateSession(cancelingTasks: false)
                do throws(SessionError) {
                    _ = try await client.get("echo")
                    Issue.record("an invalidated client must refuse calls")
                } catch {
                    #expect(error.code == .invalidated)
                }
            }
        }
    }
}
