// Upload tasks from every source (bytes, file, stream of known and unknown length, multipart form
// with a file part), checked by the server's byte count or echo, and progress both ways.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierLoopbackServer
import CourierMultipart
import Testing

extension SessionTests {
    @Suite struct Uploads {
        @Test func fromBytesWithProgress() async throws {
            try await withServer { server in
                let session = makeSession()
                let size = 1_500_000
                let task = session.uploadTask(with: server.request(.post, "/upload"), from: .bytes(ByteBuffer(bytes: pattern(size))))
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: { progress.append($0) }, download: nil)
                let stream = task.uploadProgress()
                let streamed = Task { var all: [TransferProgress] = []; for await p in stream { all.append(p) }; return all }
                let body = try await task.value
                #expect(body.readableString == #"{"received":\#(size)}"#)
                #expect(isMonotonicToTotal(progress.all, total: UInt64(size)), "\(progress.all)")
                #expect(progress.all.count > 1, "progress comes in steps")
                let fromStream = await streamed.value
                #expect(fromStream.map(\.completed) == progress.all.map(\.completed), "the stream sees the same values, then ends")
                #expect(await task.response.metrics.bytesSent == UInt64(size))
                await session.finishTasksAndInvalidate()
            }
        }

        static let fileSizes: [Int] = [0, 1, 300_001]
        static let streamSizes: [Int] = [0, 12_345, 1_000_000]
        static let chunkedSizes: [Int] = [0, 40_000]
        static let progressPaths: [String] = ["/bytes/2000000", "/chunked/2000000"]

        @Test(arguments: fileSizes)
        func fromFile(size: Int) async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let path = directory + "/upload.bin"
            writeFile(path, pattern(size))
            try await withServer { server in
                let session = makeSession()
                let progress = Recorder<TransferProgress>()
                let task = session.uploadTask(with: server.request(.put, "/upload"), from: .file(path: path))
                task.setProgressHandler(upload: { progress.append($0) }, download: nil)
                let body = try await task.value
                #expect(body.readableString == #"{"received":\#(size)}"#)
                if size > 0 { #expect(isMonotonicToTotal(progress.all, total: UInt64(size)), "\(progress.all)") }
                // The bytes themselves, through /echo.
                let small = directory + "/small.txt"
                writeFile(small, Array("a file's text\n".utf8))
                let echo = try await session.uploadTask(with: server.request(.post, "/echo"), from: .file(path: small),
                                                        serializer: JSONResponseSerializer()).value
                #expect(echo?["body"]?.stringValue == "a file's text\n")
                #expect(echoedHeader(echo, "Content-Length") == "14")
                await session.finishTasksAndInvalidate()
            }
        }

        /// A file body is opened once per request and measured on that descriptor; every attempt
        /// reads it from the start: a 307 sends it again on the next hop, and a reused connection
        /// that closes without answering makes the pool send it once more on a fresh one. Each
        /// time the whole file arrives.
        @Test func aFileBodyIsSentWholeOnEveryAttempt() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let path = directory + "/upload.bin"
            let size = 1_500_000 // more than one sendfile range
            writeFile(path, pattern(size))
            let hits = Recorder<Int>()
            let scripts: [String: LoopbackScript] = [
                "/warm": { _ in [.response(body: "warm")] },
                "/temporary": { _ in [.response(status: 307, headers: ["Location: /check"])] },
                "/flaky": { request in
                    hits.append(request.indexOnConnection)
                    // On a reused connection: close without a byte of response.
                    if request.indexOnConnection > 1 { return [.close] }
                    return [.response(body: request.body == pattern(size) ? "whole" : "damaged \(request.body.count)")]
                },
                "/check": { request in [.response(body: request.body == pattern(size) ? "whole" : "damaged \(request.body.count)")] },
            ]
            try await withServer(scripted(scripts)) { server in
                let session = makeSession()
                let redirected = try await session.uploadTask(with: server.request(.put, "/temporary"), from: .file(path: path)).value
                #expect(redirected.readableString == "whole")
                _ = try await session.dataTask(with: server.request("/warm")).value
                let retried = await session.uploadTask(with: server.request(.put, "/flaky"), from: .file(path: path)).onlyResponse()
                #expect(retried.result.successValue?.readableString == "whole")
                #expect(hits.all == [4, 1], "the first attempt on the reused connection (after /temporary, /check, /warm), the second on a fresh one")
                await session.finishTasksAndInvalidate()
            }
        }

        /// Over TLS a file is read (on the blocking-I/O thread) and encrypted, not sent with
        /// sendfile (multipart file parts take the same path): the bytes arrive whole.
        @Test func fromFileOverTLS() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let size = 3_000_000
            let path = directory + "/upload.bin"
            writeFile(path, pattern(size))
            try await withServer(.init(tls: TestTLS.server)) { server in
                let session = makeSession { $0.tls = TestTLS.client }
                let body = try await session.uploadTask(with: server.request(.put, "/upload"), from: .file(path: path)).value
                #expect(body.readableString == #"{"received":\#(size)}"#)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aMissingFileFailsBeforeAnythingIsSent() async throws {
            try await withServer { server in
                let session = makeSession()
                let response = await session.uploadTask(with: server.request(.post, "/upload"), from: .file(path: "/nonexistent/file")).onlyResponse()
                let error = failure(response.result)
                #expect(error?.code == .fileReadFailed)
                #expect(error?.errno?.rawValue == 2)
                #expect(error?.curlExitCode == 26)
                #expect(server.requestCount == 0)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test(arguments: streamSizes)
        func fromStreamOfKnownLength(size: Int) async throws {
            try await withServer { server in
                let session = makeSession()
                let progress = Recorder<TransferProgress>()
                let task = session.uploadTask(with: server.request(.post, "/upload"),
                                              from: .stream(length: UInt64(size), PatternStream(count: size)))
                task.setProgressHandler(upload: { progress.append($0) }, download: nil)
                let got = try await task.value
                #expect(got.readableString == #"{"received":\#(size)}"#)
                if size > 0 { #expect(isMonotonicToTotal(progress.all, total: UInt64(size)), "\(progress.all)") }
                await session.finishTasksAndInvalidate()
            }
        }

        @Test(arguments: chunkedSizes)
        func fromStreamOfUnknownLengthIsChunked(size: Int) async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.uploadTask(with: server.request(.post, "/echo"), from: .stream(length: nil, PatternStream(count: size, piece: 3000)),
                                              serializer: JSONResponseSerializer())
                let echo = try await task.value
                #expect(echoedHeader(echo, "Transfer-Encoding") == "chunked")
                #expect(echo?["bodyLength"]?.numberValue?.description == String(size))
                #expect(echo?["body"]?.stringValue.map { Array($0.utf8) } == pattern(size))
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aStreamShorterThanDeclaredFails() async throws {
            try await withServer { server in
                let session = makeSession()
                let response = await session.uploadTask(with: server.request(.post, "/upload"),
                                                        from: .stream(length: 5000, PatternStream(count: 4000))).onlyResponse()
                #expect(failure(response.result)?.code == .fileReadFailed)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func multipartFormWithAFilePart() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let path = directory + "/photo.txt"
            writeFile(path, Array("the file part's bytes".utf8))
            try await withServer { server in
                let session = makeSession()
                var form = MultipartForm(boundary: MultipartBoundary("courier-boundary-42")!)
                try form.appendField(name: "title", value: "hello")
                try form.appendFile(atPath: path, name: "upload", fileSystem: PosixFileSystem())
                let expected = try form.renderedBytes(fileSystem: PosixFileSystem())
                let progress = Recorder<TransferProgress>()
                let request = server.request(.post, "/echo", headers: ["Content-Type": form.contentType])
                let task = session.uploadTask(with: request, from: .multipart(form), serializer: JSONResponseSerializer())
                task.setProgressHandler(upload: { progress.append($0) }, download: nil)
                let echo = try await task.value
                #expect(echo?["body"]?.stringValue.map { Array($0.utf8) } == expected)
                #expect(echoedHeader(echo, "Content-Length") == String(form.contentLength))
                #expect(echoedHeader(echo, "Content-Type") == "multipart/form-data; boundary=courier-boundary-42")
                let text = echo?["body"]?.stringValue ?? ""
                #expect(text.contains("filename=\"photo.txt\""))
                #expect(text.contains("the file part's bytes"))
                #expect(isMonotonicToTotal(progress.all, total: form.contentLength), "\(progress.all)")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func multipartRequestFromTheSerializer() async throws {
            try await withServer { server in
                let session = makeSession()
                var generator = SystemRandomNumberGenerator()
                let request = try FormRequestSerializer().multipartRequest(
                    method: .post, uri: server.url("/echo"), parameters: ["a": "1"], using: &generator) { form in
                    try form.appendData(ByteBuffer(string: "xyz"), name: "f", fileName: "f.bin", mimeType: "application/octet-stream")
                }
                let echo = try await session.dataTask(with: request, serializer: JSONResponseSerializer()).value
                let text = echo?["body"]?.stringValue ?? ""
                #expect(text.contains("name=\"a\"\r\n\r\n1\r\n"))
                #expect(text.contains("xyz"))
                #expect(echoedHeader(echo, "Content-Type")?.hasPrefix("multipart/form-data; boundary=") == true)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test(arguments: progressPaths)
        func downloadProgress(path: String) async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request(path))
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                _ = try await task.value
                let values = progress.all
                #expect(values.first?.completed == 0)
                #expect(values.last?.completed == 2_000_000)
                for (a, b) in zip(values, values.dropFirst()) { #expect(a.completed <= b.completed) }
                if path.hasPrefix("/bytes") {
                    #expect(isMonotonicToTotal(values, total: 2_000_000))
                    #expect(values.last?.fractionCompleted == 1.0)
                } else {
                    #expect(values.allSatisfy { $0.total == nil }, "a chunked body has no known total")
                }
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
