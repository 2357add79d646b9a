// Download tasks: content, the temporary file renamed into place, the destination closure, the
// downloadMoved event, and failures mid-body that leave nothing at the destination (or a partial
// file with resume data when the server named a validator).

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import CourierTestSupport
import Glibc
import Testing

/// A head announcing `length` bytes, `sent` of them, then a close.
func truncatedBody(length: Int, sent: Int, validator: String? = nil) -> LoopbackScript {
    { _ in
        var head = "HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\n"
        if let validator { head += validator + "\r\n" }
        return [.text(head + "\r\n"), .writePattern(count: sent), .close]
    }
}

extension SessionTests {
    @Suite struct Downloads {
        static let paths: [String] = ["/bytes/1234567", "/chunked/700000?chunk=9000", "/bytes/0"]
        static let keepFlags: [Bool] = [false, true]

        @Test(arguments: paths)
        func toAFile(path: String) async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession()
                let log = EventLog(session)
                let seen = Recorder<(Int, String)>()
                let destination = directory + "/out.bin"
                let task = session.downloadTask(with: server.request(path)) { head, url in
                    seen.append((head.status, url.requestTarget))
                    return destination
                }
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                let result = await task.response
                #expect(result.result.successValue == destination)
                #expect(result.head?.status == 200)
                #expect(result.resumeData == nil)
                var expectedSize = 700_000
                if path == "/bytes/0" { expectedSize = 0 } else if path.hasPrefix("/bytes") { expectedSize = 1_234_567 }
                #expect(readFile(destination) == pattern(expectedSize))
                #expect(listDirectory(directory) == ["out.bin"], "the temporary file is gone")
                #expect(seen.all.count == 1)
                #expect(seen.all.first?.0 == 200)
                #expect(seen.all.first?.1 == path)
                #expect(progress.all.last?.completed == UInt64(expectedSize))
                #expect(result.metrics.bytesReceived == UInt64(expectedSize))
                await session.finishTasksAndInvalidate()
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "moved 1 \(destination)", "completed 1 ok", "invalidated"])
                // The completed event carries the metrics and the file's path.
                let completions = await log.finished().compactMap { event -> TaskCompletion? in
                    if case .taskCompleted(let completion) = event { return completion } else { return nil }
                }
                #expect(completions.first?.downloadLocation == destination)
                #expect(completions.first?.metrics.bytesReceived == UInt64(expectedSize))
                #expect(completions.first?.error == nil)
            }
        }

        @Test("a file that cannot be moved into place: a downloadMoveFailed event with the file error, then the failure")
        func moveFailedEvent() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let folder = directory + "/sub"
            #expect(mkdir(folder, 0o700) == 0)
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"), .writePattern(count: 1000), .pause(.milliseconds(600)),
                 .writePattern(count: 1000)]
            }
            try await withServer(scripted(["/slow": script])) { server in
                let session = makeSession()
                let log = EventLog(session)
                let task = session.downloadTask(with: server.request("/slow")) { _, _ in folder + "/out.bin" }
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                task.resume()
                #expect(await eventually { (progress.all.last?.completed ?? 0) > 0 })
                // The body is written to an unnamed temporary file: the folder is empty and can go.
                #expect(rmdir(folder) == 0)
                let result = await task.response
                #expect(failure(result.result)?.code == .fileWriteFailed)
                await session.finishTasksAndInvalidate()
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "move failed 1 fileWriteFailed", "completed 1 fileWriteFailed", "invalidated"])
            }
        }

        @Test func anExistingDestinationIsReplacedOnlyOnSuccess() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let destination = directory + "/out.bin"
            writeFile(destination, Array("old".utf8))
            try await withServer(scripted(["/cut": truncatedBody(length: 100_000, sent: 5000)])) { server in
                let session = makeSession()
                let failed = await session.downloadTask(with: server.request("/cut")) { _, _ in destination }.response
                #expect(failure(failed.result) != nil)
                #expect(readFile(destination) == Array("old".utf8), "a failed download leaves the old file alone")
                let done = await session.downloadTask(with: server.request("/bytes/300")) { _, _ in destination }.response
                #expect(done.result.successValue == destination)
                #expect(readFile(destination) == pattern(300))
                #expect(listDirectory(directory) == ["out.bin"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test(arguments: keepFlags)
        func failingMidBodyLeavesNothingWithoutAValidator(keepsPartialData: Bool) async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(["/cut": truncatedBody(length: 100_000, sent: 5000)])) { server in
                let session = makeSession()
                let destination = directory + "/out.bin"
                let task = session.downloadTask(with: server.request("/cut"), keepsPartialData: keepsPartialData) { _, _ in destination }
                let result = await task.response
                let error = failure(result.result)
                #expect(error?.code == .connection)
                #expect(error?.connectionError?.code == .bodyTruncated)
                #expect(error?.curlExitCode == 18)
                #expect(result.resumeData == nil)
                #expect(listDirectory(directory).isEmpty, "nothing at the destination, no temporary file")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func failingMidBodyWithAnETagKeepsThePartialFileAsResumeData() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(["/cut": truncatedBody(length: 100_000, sent: 5000, validator: "ETag: \"abc\"")])) { server in
                let session = makeSession()
                let destination = directory + "/out.bin"
                let result = await session.downloadTask(with: server.request("/cut")) { _, _ in destination }.response
                #expect(failure(result.result) != nil)
                let resume = try #require(result.resumeData)
                #expect(resume.bytesOnDisk == 5000)
                #expect(resume.entityTag == "\"abc\"")
                #expect(resume.totalLength == 100_000)
                #expect(resume.url == server.url("/cut").redactedDescription)
                #expect(resume.partialPath != destination)
                #expect(!fileExists(destination), "nothing at the destination")
                #expect(readFile(resume.partialPath) == pattern(5000))
                let decoded = try ResumeData(encoded: resume.encoded())
                #expect(decoded == resume)
                // Without keepsPartialData the same failure removes it.
                let dropped = await session.downloadTask(with: server.request("/cut"), keepsPartialData: false) { _, _ in destination }.response
                #expect(dropped.resumeData == nil)
                #expect(listDirectory(directory) == [String(resume.partialPath.split(separator: "/").last!)])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aDownloadCancelledMidBodyLeavesNothingWithoutAValidator() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"), .writePattern(count: 3000), .stall] }
            try await withServer(scripted(["/slow": script])) { server in
                let session = makeSession()
                let task = session.downloadTask(with: server.request("/slow")) { _, _ in directory + "/out.bin" }
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                task.resume()
                #expect(await eventually { progress.all.last?.completed == 3000 })
                task.cancel()
                let result = await task.response
                #expect(failure(result.result)?.code == .cancelled)
                #expect(listDirectory(directory).isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        /// A resume against a scripted server that honours Range: 206 appended, final file equal.
        @Test func resumeAppendsA206() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let ranges = Recorder<String>()
            let script: LoopbackScript = { request in
                let range = request.headers.first(name: "Range") ?? ""
                ranges.append(range + " | " + (request.headers.first(name: "If-Range") ?? ""))
                if range == "bytes=4000-" {
                    return [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 4000-9999/10000\r\nContent-Length: 6000\r\nETag: \"e1\"\r\n\r\n"),
                            .write(pattern(6000, from: 4000))]
                }
                return [.text("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\nETag: \"e1\"\r\n\r\n"), .writePattern(count: 4000), .close]
            }
            try await withServer(scripted(["/file": script])) { server in
                let session = makeSession()
                let destination = directory + "/out.bin"
                let first = await session.downloadTask(with: server.request("/file")) { _, _ in destination }.response
                let resume = try #require(first.resumeData)
                #expect(resume.bytesOnDisk == 4000)
                let second = await session.downloadTask(resumingWith: resume) { _, _ in destination }.response
                #expect(second.result.successValue == destination)
                #expect(second.head?.status == 206)
                #expect(readFile(destination) == pattern(10000))
                #expect(listDirectory(directory) == ["out.bin"], "the partial file became the destination")
                #expect(ranges.all == [" | ", "bytes=4000- | \"e1\""])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func a206ThatStartsElsewhereIsAResumeMismatch() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 10-99/100\r\nContent-Length: 90\r\n\r\n"), .writePattern(count: 90)]
            }
            try await withServer(scripted(["/file": script])) { server in
                let session = makeSession()
                let partial = directory + "/partial"
                writeFile(partial, pattern(50))
                let resume = ResumeData(url: server.url("/file").description, entityTag: "\"x\"", bytesOnDisk: 50, partialPath: partial, totalLength: 100)
                let result = await session.downloadTask(resumingWith: resume) { _, _ in directory + "/out.bin" }.response
                let error = failure(result.result)
                #expect(error?.code == .resumeMismatch)
                #expect(error?.curlExitCode == 33)
                #expect(readFile(partial) == pattern(50), "the partial file is untouched")
                #expect(listDirectory(directory) == ["partial"])
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
