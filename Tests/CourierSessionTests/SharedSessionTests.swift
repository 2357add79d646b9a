// Issue 15 §2: response types chosen per call, clients sharing one session and its pool, and
// multipart file parts appended by path alone — against the loopback server.

import Courier
import CourierLoopbackServer
import CourierTestSupport
import Testing

/// What the loopback server's /echo route answers (the fields used here).
private struct Echo: Decodable, Sendable, Equatable {
    let method: String
    let target: String
    let bodyLength: Int
    let body: String
}

extension SessionTests {
    @Suite struct SharedSessionAndPerCallTypes {
        @Test("two clients on one session share its pool: four calls, alternating, use one connection")
        func twoClientsOnePool() async throws {
            try await withServer { server in
                let session = makeSession()
                let api = try HTTPClient(baseURL: server.url("/").description, session: session)
                let raw = try HTTPClient(baseURL: server.url("/").description, session: session,
                                         requestSerializer: FormRequestSerializer(), responseSerializer: DataResponseSerializer())
                #expect(api.session === session && raw.session === session)

                let (echo, first) = try await api.get("echo", parameters: ["q": "1"], as: Echo.self)
                #expect(echo.method == "GET" && echo.target == "/echo?q=1")
                #expect(first.status == 200)
                let (bytes, _) = try await raw.get("bytes/100")
                #expect(isPattern(bytes, count: 100))
                let (posted, _) = try await api.post("echo", parameters: ["a": "b"], as: Echo.self)
                #expect(posted.method == "POST" && posted.body == "a=b")
                let (again, _) = try await raw.get("echo", serializer: StringResponseSerializer())
                #expect(again.hasPrefix("{\"method\":\"GET\""))

                #expect(server.acceptedConnections == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("the client's serializer is the default; serializer: and as: choose per call, per verb")
        func perCallTypes() async throws {
            try await withServer { server in
                let client = try HTTPClient(baseURL: server.url("/").description, configuration: SessionConfiguration())
                // Default: the client's JSON serializer.
                let (json, _) = try await client.put("echo")
                #expect(json?["method"]?.stringValue == "PUT")
                // serializer: any serializer, for one call.
                let (text, _) = try await client.patch("echo", serializer: StringResponseSerializer())
                #expect(text.contains("\"PATCH\""))
                // as: a Decodable.
                let (deleted, _) = try await client.delete("echo", as: Echo.self)
                #expect(deleted.method == "DELETE")
                // An empty body is nil for an Optional, an error for anything else.
                let (none, head) = try await client.get("status/204", as: Echo?.self)
                #expect(none == nil && head.status == 204)
                do throws(SessionError) {
                    _ = try await client.get("status/204", as: Echo.self)
                    Issue.record("an empty body decoded as a non-optional")
                } catch {
                    #expect(error.serializationError?.hasCode(.decodingFailed) == true)
                }
                // A bad status is the status error, whatever the type.
                do throws(SessionError) {
                    _ = try await client.get("status/404", as: Echo.self)
                    Issue.record("a 404 decoded")
                } catch {
                    #expect(error.serializationError?.hasCode(.unacceptableStatusCode) == true)
                }
                await client.session.finishTasksAndInvalidate()
            }
        }

        @Test("form.appendFile(atPath:name:) reads the real file system, named and typed from the path")
        func appendFileByPath() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let path = directory + "/note.txt"
            writeFile(path, Array("hello from a file".utf8))
            try await withServer { server in
                let client = try HTTPClient(baseURL: server.url("/").description)
                let (echo, _) = try await client.post("echo", parameters: ["album": "trips"], as: Echo.self) { form in
                    try await form.appendFile(atPath: path, name: "file")
                }
                #expect(echo.body.contains("name=\"album\"\r\n\r\ntrips\r\n"))
                #expect(echo.body.contains("name=\"file\"; filename=\"note.txt\"\r\nContent-Type: text/plain\r\n\r\nhello from a file\r\n"))
                // A missing file fails before anything is sent, with the file error underneath.
                let before = server.requestCount
                do throws(SessionError) {
                    _ = try await client.post("echo", parameters: nil) { form in
                        try await form.appendFile(atPath: directory + "/missing", name: "file")
                    }
                    Issue.record("a missing file was sent")
                } catch {
                    #expect(error.code == .invalidRequest)
                    #expect(error.requestSerializationError?.code == .multipartFailed)
                    #expect((error.requestSerializationError?.underlying as? MultipartError)?.code == .fileUnavailable)
                }
                #expect(server.requestCount == before)
                await client.session.finishTasksAndInvalidate()
            }
        }

        @Test("ResourceDownloader(session:serializer:) fetches on the given session and caches the serializer's value")
        func downloaderOnASession() async throws {
            try await withServer { server in
                let session = makeSession()
                let cache = AutoPurgingCache<String, ByteBuffer>()
                let downloader = ResourceDownloader(session: session, serializer: DataResponseSerializer(), cache: cache)
                let request = server.request("/bytes/64")
                let fetched = try await downloader.value(for: request)
                let cached = try await downloader.value(for: request)
                #expect(isPattern(fetched, count: 64) && isPattern(cached, count: 64))
                #expect(server.requestCount == 1)
                do throws(ResourceDownloaderError) {
                    _ = try await downloader.value(for: server.request("/status/404"))
                    Issue.record("a 404 was cached as a value")
                } catch {
                    #expect(error.code == .fetchFailed)
                }
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
