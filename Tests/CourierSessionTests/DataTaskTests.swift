// Data and stream tasks: buffered and streamed bodies (fixed length and chunked), serializer
// failures with their head, Content-Length: 0 for a bodiless POST, and `renderedRequest(for:)` against
// what the server really received.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierLoopbackServer
import CourierMultipart
import CourierTestSupport
import Testing

extension SessionTests {
    @Suite struct DataTasks {
        static let sizes: [Int] = [0, 1, 100_000, 3_000_000]

        @Test(arguments: sizes)
        func getBuffered(size: Int) async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/bytes/\(size)"))
                #expect(task.state == .suspended)
                let body = try await task.value
                #expect(isPattern(body, count: size))
                let response = await task.response
                #expect(response.head?.status == 200)
                #expect(response.head?.headers.first(name: "Content-Length") == String(size))
                #expect(response.metrics.bytesReceived == UInt64(size))
                #expect(response.metrics.effectiveURL.hasSuffix("/bytes/\(size)"))
                #expect(task.state == .completed)
                await session.finishTasksAndInvalidate()
            }
        }

        static let chunkedCases: [(Int, Int)] = [(0, 100), (5000, 1), (1_000_000, 16384), (1_000_003, 4096)]

        @Test(arguments: chunkedCases)
        func getChunked(size: Int, chunk: Int) async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/chunked/\(size)?chunk=\(chunk)"))
                let body = try await task.value
                #expect(isPattern(body, count: size))
                let response = await task.response
                #expect(response.head?.headers.first(name: "Transfer-Encoding") == "chunked")
                #expect(response.metrics.bytesReceived == UInt64(size))
                await session.finishTasksAndInvalidate()
            }
        }

        static let streamedPaths: [String] = ["/bytes/5000000", "/chunked/5000000?chunk=7000"]

        @Test(arguments: streamedPaths)
        func streamed(path: String) async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.streamTask(with: server.request(path))
                let response = try await task.value
                #expect(response.head.status == 200)
                #expect(response.head.version == .http1_1)
                #expect(response.url.hasSuffix(path))
                var received = 0
                var slices = 0
                var intact = true
                for try await slice in response.body {
                    slice.withUnsafeReadableBytes { raw in
                        for i in 0..<raw.count where raw[i] != UInt8(ascii: "a") + UInt8((received + i) % 26) {
                            intact = false
                            break
                        }
                    }
                    received += slice.readableBytes
                    slices += 1
                }
                #expect(received == 5_000_000)
                #expect(intact)
                #expect(slices > 10, "the body arrives in slices, not as one buffer")
                let metrics = await task.completedMetrics()
                #expect(metrics.bytesReceived == 5_000_000)
                #expect(task.state == .completed)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func streamCollect() async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.streamTask(with: server.request("/bytes/70000"))
                let body = try await task.value.body.collect()
                #expect(isPattern(body, count: 70000))
                await session.finishTasksAndInvalidate()
            }
        }

        /// The observer has every head when `value` returns (the CLI prints `-I`/`-i` heads
        /// from its observer at that moment; the event used to arrive a moment later at times).
        @Test func theObserverHasTheHeadWhenTheStreamResponseReturns() async throws {
            try await withServer { server in
                let session = makeSession()
                for round in 0..<300 {
                    let heads = Recorder<Int>()
                    let task = session.streamTask(with: server.request("/bytes/10"))
                    task.setObserver { event in if case .responseHead(let info) = event { heads.append(info.status) } }
                    let response = try await task.value
                    #expect(heads.all == [200], "round \(round)")
                    _ = try await response.body.collect()
                }
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aStreamConsumerThatStopsEarlyCancelsTheTransfer() async throws {
            try await withServer { server in
                let session = makeSession()
                let task = session.streamTask(with: server.request("/bytes/50000000"))
                let response = try await task.value
                var iterator = response.body.makeAsyncIterator()
                let first = try await iterator.next()
                #expect(first != nil)
                _ = consume iterator
                _ = await task.completedMetrics()
                #expect(task.state == .completed)
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func status418WithTheDefaultSerializerIsASerializationErrorWithTheHead() async throws {
            try await withServer { server in
                let session = makeSession()
                let response = await session.dataTask(with: server.request("/status/418")).onlyResponse()
                #expect(response.head?.status == 418)
                #expect(response.body != nil)
                let error = failure(response.result)
                #expect(error?.code == .serialization)
                #expect(error?.afNetworkingCode == -1011)
                #expect(error?.serializationError?.status == 418)
                #expect(error?.curlExitCode == 22)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func notFoundBodyIsKeptWithTheError() async throws {
            try await withServer { server in
                let session = makeSession()
                let response = await session.dataTask(with: server.request("/nothing-here")).onlyResponse()
                #expect(response.head?.status == 404)
                #expect(response.body?.readableString == "not found\n")
                #expect(failure(response.result)?.serializationError?.body.readableString == "not found\n")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func jsonSerializer() async throws {
            try await withServer { server in
                let session = makeSession()
                let value = try await session.dataTask(with: server.request(.put, "/echo?x=1"), serializer: JSONResponseSerializer()).value
                #expect(value?["method"]?.stringValue == "PUT")
                #expect(value?["target"]?.stringValue == "/echo?x=1")
                await session.finishTasksAndInvalidate()
            }
        }

        static let bodyMethods: [HTTPMethod] = [.post, .put, .patch]

        @Test(arguments: bodyMethods)
        func aBodilessPOSTSendsContentLengthZero(method: HTTPMethod) async throws {
            try await withServer { server in
                let session = makeSession()
                let json = try await session.dataTask(with: server.request(method, "/echo"), serializer: JSONResponseSerializer()).value
                #expect(json?["method"]?.stringValue == method.rawValue)
                #expect(echoedHeader(json, "Content-Length") == "0")
                #expect(echoedHeader(json, "Transfer-Encoding") == nil)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBodilessGETSendsNoContentLength() async throws {
            try await withServer { server in
                let session = makeSession()
                let json = try await session.dataTask(with: server.request(.get, "/echo"), serializer: JSONResponseSerializer()).value
                #expect(echoedHeader(json, "Content-Length") == nil)
                #expect(echoedHeader(json, "User-Agent") != nil, "the session's default User-Agent is sent")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func defaultHeadersDoNotOverrideTheRequestsOwn() async throws {
            try await withServer { server in
                let session = makeSession { $0.defaultHeaders = ["User-Agent": "default", "X-Default": "d"] }
                let request = server.request(.get, "/echo", headers: ["User-Agent": "mine", "X-Custom": "c"])
                let json = try await session.dataTask(with: request, serializer: JSONResponseSerializer()).value
                #expect(echoedHeader(json, "User-Agent") == "mine")
                #expect(echoedHeader(json, "X-Default") == "d")
                #expect(echoedHeader(json, "X-Custom") == "c")
                await session.finishTasksAndInvalidate()
            }
        }

        /// `renderedRequest(for:)` is what `--offline` prints: it must be what goes on the wire.
        static let bodyKinds: [String] = ["none", "bytes", "stream", "chunked", "multipart", "file", "empty-file",
                                          "multipart-file-and-stream", "large-bytes"]

        @Test(arguments: bodyKinds)
        func requestBytesEqualWhatTheServerReceived(body kind: String) async throws {
            let seen = Recorder<LoopbackRequest>()
            try await withServer(scripted(["/raw": { request in
                seen.append(request)
                return [.response(body: "ok")]
            }])) { server in
                let session = makeSession { $0.credential = Credential(user: "u", password: "p") }
                var body: HTTPRequest.Body = .none
                var method = HTTPMethod.get
                let directory = makeTemporaryDirectory()
                defer { removeTree(directory) }
                // 600,000 bytes: more than one segment of memory (256 KiB), less than one file range.
                let pattern = (0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) }
                writeFile(directory + "/upload.bin", pattern)
                writeFile(directory + "/empty.bin", [])
                switch kind {
                case "file": body = .file(path: directory + "/upload.bin"); method = .put
                case "empty-file": body = .file(path: directory + "/empty.bin"); method = .put
                case "large-bytes": body = .bytes(ByteBuffer(bytes: pattern)); method = .post
                case "multipart-file-and-stream":
                    var form = MultipartForm(boundary: MultipartBoundary("test-boundary-5678")!)
                    try form.appendField(name: "a", value: "1")
                    try form.appendFile(atPath: directory + "/upload.bin", name: "f", fileSystem: PosixFileSystem())
                    try form.appendStream(PatternStream(count: 70_000), name: "s", fileName: "s.bin", length: 70_000,
                                          mimeType: "application/octet-stream")
                    try form.appendField(name: "z", value: "last")
                    body = .multipart(form)
                    method = .post
                case "bytes": body = .bytes(ByteBuffer(string: "name=value&x=1")); method = .post
                case "stream": body = .stream(length: 30_000, PatternStream(count: 30_000)); method = .put
                case "chunked": body = .stream(length: nil, PatternStream(count: 30_000)); method = .post
                case "multipart":
                    var form = MultipartForm(boundary: MultipartBoundary("test-boundary-1234")!)
                    try form.appendField(name: "a", value: "1")
                    try form.appendData(ByteBuffer(string: "file body"), name: "f", fileName: "f.txt", mimeType: "text/plain")
                    body = .multipart(form)
                    method = .post
                default: break
                }
                let request = server.request(method, "/raw?q=1", headers: ["X-One": "1"], body: body)
                let offline = try await session.renderedRequest(for: request)
                let heads = Recorder<ByteBuffer>()
                let task = session.dataTask(with: request)
                task.setObserver { event in if case .requestHead(let head) = event { heads.append(head) } }
                let got = try await task.value
                #expect(got.readableString == "ok")
                let received = try #require(seen.all.first)
                let offlineBytes = offline.readableBytesArray
                // The head: byte for byte.
                let headEnd = try #require(firstHeadEnd(offlineBytes))
                let wire = wireText(received)
                let wireHeadEnd = try #require(firstHeadEnd(wire))
                #expect(String(decoding: offlineBytes[..<headEnd], as: UTF8.self) == String(decoding: wire[..<wireHeadEnd], as: UTF8.self))
                #expect(heads.all.first?.readableBytesArray == Array(offlineBytes[..<headEnd]))
                // The body: as framed on the wire (the server decodes chunked framing).
                let offlineBody = Array(offlineBytes[headEnd...])
                if kind == "chunked" {
                    #expect(decodeChunked(offlineBody) == received.body, "the offline body is chunk-framed as sent")
                } else {
                    #expect(offlineBody == received.body)
                }
                await session.finishTasksAndInvalidate()
            }
        }
    }
}

/// The index just after the first "\r\n\r\n".
func firstHeadEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
        return i + 4
    }
    return nil
}

/// Decodes a chunked body (no extensions, no trailers); nil when it is not chunked framing.
func decodeChunked(_ bytes: [UInt8]) -> [UInt8]? {
    var out: [UInt8] = []
    var i = 0
    while true {
        var size = 0
        var digits = 0
        while i < bytes.count, let d = hexValue(bytes[i]) {
            size = size * 16 + d
            digits += 1
            i += 1
        }
        guard digits > 0, i + 1 < bytes.count, bytes[i] == 13, bytes[i + 1] == 10 else { return nil }
        i += 2
        if size == 0 {
            return i + 2 == bytes.count && bytes[i] == 13 && bytes[i + 1] == 10 ? out : nil
        }
        guard i + size + 2 <= bytes.count, bytes[i + size] == 13, bytes[i + size + 1] == 10 else { return nil }
        out += bytes[i..<(i + size)]
        i += size + 2
    }
}

private func hexValue(_ byte: UInt8) -> Int? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(byte - UInt8(ascii: "0"))
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return Int(byte - UInt8(ascii: "a") + 10)
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return Int(byte - UInt8(ascii: "A") + 10)
    default: return nil
    }
}
