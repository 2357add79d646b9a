// Error descriptions read as AFNetworking's, with the failing URL (issue 16).

import Courier
import CourierLoopbackServer
import Testing

extension SessionTests {
    @Suite struct ErrorText {
        @Test("Foundation's status texts, as AFNetworking quotes them")
        func statusTexts() {
            let expected: [Int: String] = [
                100: "continue", 150: "informational", 200: "no error", 204: "no content", 250: "success",
                301: "moved permanently", 308: "redirected", 400: "bad request", 401: "unauthorized", 404: "not found",
                406: "unacceptable", 415: "unsupported media type", 429: "client error", 500: "internal server error",
                503: "service unavailable", 504: "gateway unavailable", 599: "server error", 42: "server error",
            ]
            for (status, text) in expected { #expect(HTTPResponseHead.localizedString(forStatusCode: status) == text, "\(status)") }
        }

        @Test("a 404 and an unacceptable content type, through a client, read as AFNetworking's texts with the URL")
        func throughAClient() async throws {
            try await withServer { server in
                let client = try HTTPClient(baseURL: server.url("/").description)
                do throws(SessionError) {
                    _ = try await client.get("status/404")
                    Issue.record("a 404 must fail")
                } catch {
                    #expect(error.localizedDescription == "Request failed: not found (404) (\(server.url("/status/404")))")
                    #expect(error.afNetworkingCode == -1011)
                }
                do throws(SessionError) {
                    _ = try await client.get("bytes/10")
                    Issue.record("octet-stream is not JSON")
                } catch {
                    #expect(error.localizedDescription
                        == "Request failed: unacceptable content-type: application/octet-stream (\(server.url("/bytes/10")))")
                    #expect(error.afNetworkingCode == -1016)
                }
                await client.session.finishTasksAndInvalidate()
            }
        }

        @Test("cancelled reads \"cancelled\", with the URL")
        func cancelled() async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/bytes/10"))
                task.cancel()
                let error = failure(await task.response.result)
                #expect(error?.localizedDescription == "cancelled (\(server.url("/bytes/10")))")
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
