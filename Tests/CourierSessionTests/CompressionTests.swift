// Content coding through the session: gzip and deflate decoded while streaming, nothing decoded
// unasked, a corrupt body and a bomb ending in typed errors (curl 61 / 63) with bounded memory.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierCompression
import CourierLoopbackServer
import CourierURL
import Testing

extension SessionTests {
    @Suite struct Compression {
        static let routes: [String] = ["/gzip/300000", "/deflate/300000", "/gzip-chunked/300000"]

        @Test(arguments: routes)
        func decodedWhileStreaming(route: String) async throws {
            try await withServer { server in
                let session = makeSession { $0.acceptsCompressedResponses = true }
                let response = await session.dataTask(with: server.request(route)).response
                let body = try response.result.get()
                #expect(body.readableBytesArray == LoopbackServer.compressibleText(count: 300_000))
                #expect(response.metrics.bytesReceived == 300_000)
                #expect(response.head?.headers.first(name: "Content-Encoding") != nil)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func notDecodedUnasked() async throws {
            try await withServer { server in
                let session = makeSession()
                let response = await session.dataTask(with: server.request("/gzip/10000")).response
                let body = try response.result.get()
                // The gzip magic: the body is passed through as the server sent it (curl without --compressed).
                #expect(Array(body.readableBytesArray.prefix(2)) == [0x1F, 0x8B])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func acceptEncodingIsSentOnlyWhenAsked() async throws {
            let asked = makeSession { $0.acceptsCompressedResponses = true }
            let plain = makeSession()
            let request = HTTPRequest(method: .get, uri: try URI(parsing: "http://127.0.0.1:9/x"))
            #expect(try await asked.renderedRequest(for: request).readableString.contains("Accept-Encoding: gzip, deflate\r\n"))
            #expect(!(try await plain.renderedRequest(for: request).readableString.contains("Accept-Encoding")))
        }

        @Test func corruptDataIsBadContentEncoding() async throws {
            try await withServer { server in
                let session = makeSession { $0.acceptsCompressedResponses = true }
                let response = await session.dataTask(with: server.request("/bad-gzip")).response
                let error = failure(response.result)
                #expect(error?.code == .badContentEncoding)
                #expect(error?.decodingError != nil)
                #expect(error?.curlExitCode == 61)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBombStopsAtTheRatioLimit() async throws {
            try await withServer { server in
                let session = makeSession { $0.acceptsCompressedResponses = true }
                let task = session.streamTask(with: server.request("/bomb/1073741824"))
                let response = try await task.value
                var received = 0
                do {
                    for try await slice in response.body { received += slice.readableBytes }
                    Issue.record("a 1 GiB bomb was decoded whole")
                } catch let error as SessionError {
                    #expect(error.code == .decodedSizeExceeded)
                    #expect(error.decodingError?.code == .ratioExceeded)
                    #expect(error.curlExitCode == 61)
                } catch {
                    Issue.record("unexpected error \(error)")
                }
                #expect(received <= (1 << 20) + 65536, "at most the grace size and one piece")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBombStopsAtTheDownloadSizeLimit() async throws {
            try await withServer { server in
                let session = makeSession {
                    $0.acceptsCompressedResponses = true
                    $0.decompressionLimits.maximumRatio = nil
                    $0.maximumDownloadSize = 4 << 20
                }
                let response = await session.dataTask(with: server.request("/bomb/1073741824")).response
                let error = failure(response.result)
                #expect(error?.code == .decodedSizeExceeded)
                #expect(error?.curlExitCode == 63)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
