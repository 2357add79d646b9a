import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import CourierMultipart
import CourierPosix
import Synchronization
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
        let response = await task.response
        #expect(response.head?.status == 200)
        #expect(try response.result.get().readableBytes == 100_000)
        #expect(response.metrics.connectCount == 1)
        let again = session.dataTask(with: request)
        again.resume()
        let second = await again.response
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
        let response = try await task.value
        #expect(response.head.status == 200)
        let body = try await response.body.collect()
        #expect(body.readableBytes == 300_000)
        await session.finishTasksAndInvalidate()
        await server.shutdown()
    }
}

@Suite(.serialized) struct SessionUploadSmokeTests {
    static func makeFile(size: Int) throws -> String {
        let file = try File.makeTemporary(in: "/tmp", prefix: "courier-upload-")
        var buffer = ByteBuffer()
        for i in 0..<size { buffer.writeInteger(UInt8(truncatingIfNeeded: i &* 31)) }
        try file.write(buffer, at: 0)
        try file.close()
        return file.path
    }

    @Test func fileAndMultipartUploadsUseTheWholeFile() async throws {
        let server = try await LoopbackServer.start()
        let path = try Self.makeFile(size: 3_000_001)
        defer { try? File.remove(path) }
        let session = Session()
        let uri = try URI(parsing: "http://127.0.0.1:\(server.port)/upload")
        let plain = session.uploadTask(with: HTTPRequest(method: .post, uri: uri), from: .file(path: path))
        let progress = Mutex<[TransferProgress]>([])
        plain.setProgressHandler(upload: { p in progress.withLock { $0.append(p) } }, download: nil)
        plain.resume()
        let body = try await plain.value
        #expect(body.readableString == "{\"received\":3000001}")
        let values = progress.withLock { $0 }
        #expect(values.last == TransferProgress(completed: 3_000_001, total: 3_000_001))
        #expect(zip(values, values.dropFirst()).allSatisfy { $0.completed <= $1.completed })

        var random = SystemRandomNumberGenerator()
        var form = MultipartForm(boundary: MultipartBoundary(using: &random))
        try form.appendField(name: "a", value: "1")
        try form.appendFile(atPath: path, name: "file", fileSystem: PosixFileSystem())
        let expected = form.contentLength
        let multipart = session.uploadTask(with: HTTPRequest(method: .post, uri: uri, headers: HTTPHeaders([("Content-Type", form.contentType)])),
                                           from: .multipart(form))
        multipart.resume()
        #expect(try await multipart.value.readableString == "{\"received\":\(expected)}")
        await session.invalidateAndCancel()
        await server.shutdown()
    }
}
