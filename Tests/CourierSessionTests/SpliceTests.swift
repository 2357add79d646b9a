// Downloads spliced from the socket into the file in the kernel (issue: transport at wire speed):
// the file holds exactly the body, the connection is reused afterwards, and a body cut short, a
// stall or a cancellation end the task as they do without splicing.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierLoopbackServer
import CourierTestSupport
import Testing

extension SessionTests {
    @Suite struct Splice {
        @Test func aLargeDownloadIsSplicedAndTheConnectionReused() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession()
                let before = SessionSplicers.bytesSpliced
                let size = 20_000_003
                let result = await session.downloadTask(with: server.request("/bytes/\(size)")) { _, _ in directory + "/big.bin" }.response
                #expect(result.result.successValue == directory + "/big.bin")
                #expect(readFile(directory + "/big.bin") == pattern(size))
                let spliced = SessionSplicers.bytesSpliced - before
                #expect(spliced > UInt64(size) / 2, "only \(spliced) of \(size) bytes were spliced")
                #expect(result.metrics.bytesReceived == UInt64(size))
                // The keep-alive connection survived the loan.
                let again = await session.dataTask(with: server.request("/bytes/10")).response
                #expect(again.metrics.connectCount == 0, "the next request reused the connection")
                #expect(server.acceptedConnections == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func splicingCanBeTurnedOff() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession { $0.splicesDownloads = false }
                let before = SessionSplicers.bytesSpliced
                let result = await session.downloadTask(with: server.request("/bytes/5000000")) { _, _ in directory + "/b.bin" }.response
                #expect(result.result.successValue != nil)
                #expect(readFile(directory + "/b.bin") == pattern(5_000_000))
                #expect(SessionSplicers.bytesSpliced == before)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aBodyCutShortWhileSplicedIsTruncated() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(["/cut": truncatedBody(length: 10_000_000, sent: 3_000_000)])) { server in
                let session = makeSession()
                let result = await session.downloadTask(with: server.request("/cut"), keepsPartialData: false) { _, _ in directory + "/cut.bin" }.response
                #expect(result.result.failureValue?.curlExitCode == 18)
                #expect(listDirectory(directory).isEmpty, "no partial file is left")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aStallWhileSplicingTimesOut() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 9000000\r\n\r\n"), .writePattern(count: 2_000_000), .stall] }
            try await withServer(scripted(["/stall": script])) { server in
                let session = makeSession { $0.idleTimeout = .milliseconds(400) }
                let started = ContinuousClock.now
                let result = await session.downloadTask(with: server.request("/stall"), keepsPartialData: false) { _, _ in directory + "/s.bin" }.response
                #expect(result.result.failureValue?.curlExitCode == 28)
                #expect(ContinuousClock.now - started < .seconds(5))
                #expect(listDirectory(directory).isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func cancellingWhileSplicingStopsAtOnce() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 9000000\r\n\r\n"), .writePattern(count: 2_000_000), .stall] }
            try await withServer(scripted(["/stall": script])) { server in
                let session = makeSession()
                let task = session.downloadTask(with: server.request("/stall"), keepsPartialData: false) { _, _ in directory + "/c.bin" }
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                task.resume()
                #expect(await eventually { (progress.all.last?.completed ?? 0) >= 1_000_000 })
                task.cancel()
                let result = await task.response
                #expect(result.result.failureValue?.code == .cancelled)
                #expect(listDirectory(directory).isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
