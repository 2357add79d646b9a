// One outcome shape and one head type (issue 15 §3): data, upload, download and stream tasks all
// read `value` / `result` / `response` the same way, with AFNetworking's (value, response, error),
// and the head a task hands out — in its outcome and in its events — is the one
// `HTTPResponseHead`, with the version and reason phrase as sent.

import Courier
import CourierLoopbackServer
import CourierTestSupport
import Testing

/// A 299 with a reason phrase of its own and a Content-Type with a quoted charset.
private let customHead: LoopbackScript = { _ in
    [.text("HTTP/1.1 299 Fine Thanks\r\nContent-Type: Text/Plain; charset=\"UTF-8\"\r\nContent-Length: 5\r\n\r\nhello")]
}

extension SessionTests {
    @Suite struct TaskOutcomes {
        /// Checks the head every kind of task must hand out for `customHead`.
        static func expectCustomHead(_ head: HTTPResponseHead?) {
            #expect(head?.version == .http1_1)
            #expect(head?.status == 299)
            #expect(head?.reason == "Fine Thanks")
            #expect(head?.mimeType == "text/plain")
            #expect(head?.charset == "utf-8")
        }

        @Test("every task kind: value, result and response agree, with the same head as the events")
        func sameShapeForEveryKind() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(["/custom": customHead])) { server in
                let session = makeSession()

                // Data task: the three forms, each resuming the task if needed.
                let data = session.dataTask(with: server.request("/custom"))
                let heads = Recorder<HTTPResponseHead>()
                data.setObserver { event in if case .responseHead(let head) = event { heads.append(head) } }
                let body = try await data.value
                #expect(body.readableString == "hello")
                let dataResponse = await data.response
                #expect(dataResponse.value?.readableString == "hello" && dataResponse.error == nil)
                #expect(dataResponse.body?.readableString == "hello")
                Self.expectCustomHead(dataResponse.head)
                #expect(heads.all.map(\.reason) == ["Fine Thanks"])
                #expect(try await data.result.get().readableString == "hello")

                // Upload task: the same type and the same shape.
                let upload = session.uploadTask(with: server.request(.post, "/custom"), from: .bytes(ByteBuffer(string: "x")))
                let uploaded = await upload.result
                #expect(uploaded.successValue?.readableString == "hello")
                Self.expectCustomHead(await upload.response.head)

                // Download task: the value is the path; the response has the head.
                let path = directory + "/custom.txt"
                let download = session.downloadTask(with: server.request("/custom")) { head, _ in
                    Self.expectCustomHead(head)
                    return path
                }
                #expect(try await download.value == path)
                let downloaded = await download.response
                #expect(downloaded.value == path && downloaded.error == nil && downloaded.resumeData == nil && downloaded.body == nil)
                Self.expectCustomHead(downloaded.head)

                // Stream task: the value is the head with the body still to read.
                let stream = session.streamTask(with: server.request("/custom"))
                let streamed = try await stream.value
                Self.expectCustomHead(streamed.head)
                #expect(try await streamed.body.collect().readableString == "hello")
                let streamResponse = await stream.response
                Self.expectCustomHead(streamResponse.head)
                #expect(streamResponse.error == nil && streamResponse.metrics.effectiveURL.hasSuffix("/custom"))
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("a failure reads the same way for every kind: value throws, result and response carry the error")
        func failureForEveryKind() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            // Not HTTP at all: every kind fails before any head, with the same error.
            try await withServer(scripted(["/bad": { _ in [.text("NOT HTTP\r\n\r\n")] }])) { server in
                let session = makeSession()
                let data = session.dataTask(with: server.request("/bad"))
                let upload = session.uploadTask(with: server.request(.post, "/bad"), from: .bytes(ByteBuffer(string: "x")))
                let download = session.downloadTask(with: server.request("/bad")) { _, _ in directory + "/never.bin" }
                let stream = session.streamTask(with: server.request("/bad"))
                await #expect(throws: SessionError.self) { _ = try await data.value }
                await #expect(throws: SessionError.self) { _ = try await upload.value }
                await #expect(throws: SessionError.self) { _ = try await download.value }
                await #expect(throws: SessionError.self) { _ = try await stream.value }
                let errors = [await data.response.error, await upload.response.error, await download.response.error,
                              await stream.response.error]
                #expect(errors.allSatisfy { $0 != nil })
                #expect(Set(errors.map { $0.map { "\($0.code)" } ?? "none" }).count == 1)
                let heads = [await data.response.head, await upload.response.head, await download.response.head, await stream.response.head]
                #expect(heads.allSatisfy { $0 == nil })
                if case .success = await data.result { Issue.record("the data task succeeded") }
                if case .success = await stream.result { Issue.record("the stream task succeeded") }
                let dataValue = await data.response.value
                let downloadValue = await download.response.value
                #expect(dataValue == nil && downloadValue == nil)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("onCompletion hands every kind's TaskResponse to the callback, without resuming the task")
        func completionCallbacks() async throws {
            try await withServer(scripted(["/custom": customHead])) { server in
                let session = makeSession()
                let stream = session.streamTask(with: server.request("/custom"))
                let data = session.dataTask(with: server.request("/custom"))
                let seen = Recorder<String>()
                let done = AsyncStream<Void>.makeStream()
                data.onCompletion(on: .immediate) { response in
                    seen.append("data \(response.head?.reason ?? "-") \(response.value?.readableString ?? "-")")
                    done.continuation.yield()
                }
                stream.onCompletion { response in
                    seen.append("stream \(response.head?.reason ?? "-")")
                    done.continuation.yield()
                }
                #expect(data.state == .suspended && stream.state == .suspended)
                data.resume()
                stream.resume()
                var iterator = done.stream.makeAsyncIterator()
                _ = await iterator.next()
                _ = await iterator.next()
                #expect(Set(seen.all) == ["data Fine Thanks hello", "stream Fine Thanks"])
                _ = try await stream.value.body.collect()
                await session.finishTasksAndInvalidate()
            }
        }

        @Test("HTTPResponseHead: the media type and charset follow the fields they come from")
        func mediaTypeFollowsFields() {
            var head = HTTPResponseHead(status: 200, headers: ["Content-Type": "application/json; charset=UTF-8"])
            #expect(head.version == .http1_1 && head.reason == "")
            #expect(head.mimeType == "application/json" && head.charset == "utf-8")
            head.headers.replaceOrAdd(name: "Content-Type", value: "text/html")
            #expect(head.mimeType == "text/html" && head.charset == nil)
            head.headers.remove(name: "Content-Type")
            #expect(head.mimeType == nil)
        }
    }
}
