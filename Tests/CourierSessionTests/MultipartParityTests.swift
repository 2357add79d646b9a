// Issue 16, multipart parity with AFNetworking, against the loopback server and real files: byte
// values among the parameters, bandwidth throttling, writing a form to a file, file parts by URL.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierMultipart
import CourierURL
import Glibc
import Testing

extension SessionTests {
    @Suite struct MultipartParity {
        static let boundary = MultipartBoundary("parity-boundary")!

        /// The server's copy of what it received at /raw.
        static func capturing(_ seen: Recorder<LoopbackRequest>) -> LoopbackServer.Configuration {
            scripted(["/raw": { request in
                seen.append(request)
                return [.response(body: "ok")]
            }])
        }

        @Test func byteParametersArriveAsExactlyThoseBytes() async throws {
            let seen = Recorder<LoopbackRequest>()
            try await withServer(Self.capturing(seen)) { server in
                let session = makeSession()
                let raw: [UInt8] = [0xFF, 0x00, 0x0D, 0x0A, 0x80, 0x41]
                let request = try FormRequestSerializer().multipartRequest(
                    method: .post, uri: server.url("/raw"),
                    parameters: ["blob": QueryValue(bytes: raw), "list": [.bytes(ByteBuffer(bytes: [0xC0])), "t"]],
                    boundary: Self.boundary)
                _ = try await session.dataTask(with: request).value
                let body = try #require(seen.all.first).body
                let blob: [UInt8] = Array("--parity-boundary\r\nContent-Disposition: form-data; name=\"blob\"\r\n\r\n".utf8) + raw + Array("\r\n--".utf8)
                #expect(body.starts(with: blob))
                #expect(contains(body, Array("name=\"list[]\"\r\n\r\n".utf8) + [0xC0] + Array("\r\n".utf8)))
                #expect(contains(body, Array("name=\"list[]\"\r\n\r\nt\r\n".utf8)))
                await session.finishTasksAndInvalidate()
            }
        }

        /// 24,000 bytes at 40,000 B/s in 2,000-byte packets: the last packet cannot leave before
        /// (24,000 - 2,000 - 2,000) / 40,000 = 0.5 s. Only the lower bound is asserted (a slow
        /// machine is slower, never faster); meanwhile another request on the same session
        /// completes, so the wait holds no thread.
        @Test func throttledBodyKeepsToItsRate() async throws {
            let seen = Recorder<LoopbackRequest>()
            try await withServer(Self.capturing(seen)) { server in
                let session = makeSession()
                var form = MultipartForm(boundary: Self.boundary)
                try form.appendData(ByteBuffer(bytes: pattern(24_000)), name: "f", fileName: "f.bin", mimeType: "application/octet-stream")
                form.throttle = MultipartThrottle(bytesPerSecond: 40_000, packetSize: 2_000)
                let clock = ContinuousClock()
                let start = clock.now
                let throttled = server.request(.post, "/raw", body: .multipart(form))
                async let upload = session.dataTask(with: throttled).value
                let other = try await session.dataTask(with: server.request("/bytes/10")).value
                let otherDone = clock.now - start
                _ = try await upload
                let elapsed = clock.now - start
                #expect(other.readableBytes == 10)
                #expect(elapsed >= .milliseconds(500), "\(elapsed)")
                #expect(otherDone < elapsed, "a request beside the throttled one is not held up")
                #expect(UInt64(try #require(seen.all.first).body.count) == form.contentLength)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func writingTheBodyToAFileGivesARequestSendingThatFile() async throws {
            let seen = Recorder<LoopbackRequest>()
            try await withServer(Self.capturing(seen)) { server in
                let directory = makeTemporaryDirectory()
                defer { removeTree(directory) }
                writeFile(directory + "/part.bin", pattern(70_000))
                let serializer = FormRequestSerializer()
                let request = try serializer.multipartRequest(
                    method: .post, uri: server.url("/raw"), parameters: ["a": "1"], boundary: Self.boundary
                ) { form in
                    try form.appendFile(atPath: directory + "/part.bin", name: "f", fileSystem: PosixFileSystem())
                }
                guard case .multipart(let form) = request.body else { Issue.record("not multipart"); return }
                let expected = try form.renderedBytes(fileSystem: PosixFileSystem())
                let spooled = try await serializer.requestWritingMultipartBody(of: request, toFile: directory + "/body")
                guard case .file(let path) = spooled.body else { Issue.record("not a file body"); return }
                #expect(path == directory + "/body")
                #expect(readFile(path) == expected)
                #expect(listDirectory(directory) == ["body", "part.bin"], "no temporary file left")
                #expect(spooled.headers.first(name: "Content-Length") == String(expected.count))
                #expect(spooled.headers.first(name: "Content-Type") == "multipart/form-data; boundary=parity-boundary")
                let session = makeSession()
                _ = try await session.dataTask(with: spooled).value
                #expect(try #require(seen.all.first).body == expected)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func writingTheBodyToAFileFailsCleanly() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let serializer = FormRequestSerializer()
            let uri = try URI(parsing: "http://127.0.0.1:9/raw")
            // A part whose file vanished: the error names it and no file is left behind.
            writeFile(directory + "/gone.bin", pattern(10))
            let request = try serializer.multipartRequest(method: .post, uri: uri, parameters: nil, boundary: Self.boundary) { form in
                try form.appendFile(atPath: directory + "/gone.bin", name: "f", fileSystem: PosixFileSystem())
            }
            removeFile(directory + "/gone.bin")
            await #expect { try await serializer.requestWritingMultipartBody(of: request, toFile: directory + "/body") } throws: { error in
                guard let error = error as? RequestSerializationError, error.code == .multipartFailed,
                      let cause = error.underlying as? MultipartError else { return false }
                return cause.code == .fileUnavailable
            }
            #expect(listDirectory(directory).isEmpty)
            // A destination in a directory that does not exist: the sink fails.
            let small = try serializer.multipartRequest(method: .post, uri: uri, parameters: ["a": "1"], boundary: Self.boundary)
            await #expect { try await serializer.requestWritingMultipartBody(of: small, toFile: directory + "/no/such/body") } throws: { error in
                ((error as? RequestSerializationError)?.underlying as? MultipartError)?.code == .sinkFailed
            }
            // A request without a form.
            await #expect { try await serializer.requestWritingMultipartBody(of: HTTPRequest(method: .post, uri: uri), toFile: directory + "/body") } throws: { error in
                (error as? RequestSerializationError)?.code == .notMultipart
            }
        }

        @Test func filePartsFromURLs() async throws {
            let seen = Recorder<LoopbackRequest>()
            try await withServer(Self.capturing(seen)) { server in
                let directory = makeTemporaryDirectory()
                defer { removeTree(directory) }
                writeFile(directory + "/a b.txt", Array("hello".utf8))
                var form = MultipartForm(boundary: Self.boundary)
                try await form.appendFile(fileURL: try URI(parsing: "file://" + directory + "/a%20b.txt"), name: "f")
                try await form.appendFile(fileURL: try URI(parsing: "file://localhost" + directory + "/a%20b.txt"), name: "g",
                                          fileName: "x.bin", mimeType: "application/x-test")
                #expect(form.parts.map(\.fileName) == ["a b.txt", "x.bin"])
                #expect(form.parts.map(\.contentType) == ["text/plain", "application/x-test"])
                let session = makeSession()
                _ = try await session.dataTask(with: server.request(.post, "/raw", body: .multipart(form))).value
                let body = try #require(seen.all.first).body
                #expect(contains(body, Array("filename=\"a b.txt\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n".utf8)))
                await session.finishTasksAndInvalidate()

                // AFNetworking's refusals: NSURLErrorBadURL (-1000) with its texts.
                for text in ["http://127.0.0.1/a.txt", "https://example.com/x", "file://remote.example/etc/hosts", "ftp:/x"] {
                    await #expect { try await form.appendFile(fileURL: try URI(parsing: text), name: "h") } throws: { error in
                        guard let error = error as? MultipartError else { return false }
                        return error.code == .notAFileURL && error.afNetworkingCode == -1000
                            && error.failureReason == "Expected URL to be a file URL"
                    }
                }
                await #expect { try await form.appendFile(fileURL: try URI(parsing: "file://" + directory + "/missing.txt"), name: "h") } throws: { error in
                    guard let error = error as? MultipartError else { return false }
                    return error.code == .fileNotReachable && error.afNetworkingCode == -1000
                        && error.failureReason == "File URL not reachable." && error.underlying != nil
                }
                #expect(form.parts.count == 2, "a refused part leaves the form as it was")
            }
        }
    }
}

/// Whether `haystack` contains `needle` as a contiguous run.
private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start..<start + needle.count].elementsEqual(needle) {
        return true
    }
    return false
}

private func removeFile(_ path: String) { unlink(path) }
