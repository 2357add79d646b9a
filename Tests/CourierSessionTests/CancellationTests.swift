// Cancellation before resume, while connecting and during the body (-999, `.cancelled`), and
// suspend/resume in the middle of a body.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierTLS
import CourierTestSupport
import Testing

/// A head announcing `length` bytes, `sent` of them, then silence with the connection open.
func stallingBody(length: Int, sent: Int) -> LoopbackScript {
    { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: \(length)\r\nETag: \"v1\"\r\n\r\n"), .writePattern(count: sent), .stall] }
}

extension SessionTests {
    @Suite struct Cancellation {
        @Test func beforeResume() async throws {
            try await withServer { server in
                let session = makeSession()
                let log = EventLog(session)
                let task = session.dataTask(with: server.request("/bytes/10"))
                task.cancel()
                #expect(task.state == .completed)
                let response = await task.response
                let error = failure(response.result)
                #expect(error?.code == .cancelled)
                #expect(error?.afNetworkingCode == -999)
                #expect(error?.curlExitCode == 42)
                #expect(response.head == nil)
                task.resume()  // too late: nothing happens
                #expect(task.state == .completed)
                let stream = session.streamTask(with: server.request("/bytes/10"))
                stream.cancel()
                await #expect(throws: SessionError.self) { _ = try await stream.value }
                let download = session.downloadTask(with: server.request("/bytes/10")) { _, _ in "/tmp/never-written" }
                download.cancel()
                #expect(failure(await download.response.result)?.code == .cancelled)
                #expect(!fileExists("/tmp/never-written"))
                await session.finishTasksAndInvalidate()
                #expect(server.requestCount == 0)
                let events = await log.finished().map(\.summary)
                #expect(events == ["completed 1 cancelled", "completed 2 cancelled", "completed 3 cancelled", "invalidated"])
            }
        }

        @Test func whileConnecting() async throws {
            // The TLS handshake never comes back: the task is stuck in the connection phase.
            try await withServer(.init(tls: TestTLS.server, stallsConnections: true)) { server in
                let session = makeSession { $0.tls = TestTLS.client }
                let task = session.dataTask(with: server.request("/bytes/10"))
                task.resume()
                #expect(await eventually(.seconds(3)) { server.acceptedConnections == 1 })
                try await Task.sleep(for: .milliseconds(100))
                let started = ContinuousClock.now
                task.cancel()
                let error = failure(await task.response.result)
                #expect(error?.code == .cancelled)
                #expect(error?.afNetworkingCode == -999)
                #expect(ContinuousClock.now - started < .seconds(2), "cancellation is prompt")
                await session.invalidateAndCancel()
            }
        }

        @Test func duringTheBody() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 1_000_000, sent: 5000)])) { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/slow"))
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                task.resume()
                #expect(await eventually { progress.all.last?.completed == 5000 })
                #expect(task.state == .running)
                task.cancel()
                let response = await task.response
                let error = failure(response.result)
                #expect(error?.code == .cancelled)
                #expect(error?.afNetworkingCode == -999)
                #expect(response.head?.status == 200, "the head had arrived")
                #expect(task.state == .completed)
                // The half-read connection is closed, not pooled.
                #expect(await eventually(.seconds(3)) { server.openConnections == 0 })
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aStreamTaskDuringTheBody() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 1_000_000, sent: 5000)])) { server in
                let session = makeSession()
                let task = session.streamTask(with: server.request("/slow"))
                let response = try await task.value
                var iterator = response.body.makeAsyncIterator()
                var got = 0
                while got < 5000, let slice = try await iterator.next() { got += slice.readableBytes }
                task.cancel()
                do {
                    _ = try await iterator.next()
                    Issue.record("the body should fail after cancel()")
                } catch let error as SessionError {
                    #expect(error.code == .cancelled)
                }
                _ = await task.completedMetrics()
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func suspendThenResumeDuringTheBody() async throws {
            // The body pauses after its first 104,000 bytes so that the suspension lands in the
            // middle of it however slowly progress handlers run (they run behind the transfer): a
            // body sent in one go can be read whole before suspend() is called. (104,000 is a
            // whole number of pattern periods, so the two writes make one pattern.)
            let size = 8_000_000
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n\r\n"), .writePattern(count: 104_000), .pause(.seconds(2)),
                 .writePattern(count: size - 104_000)]
            }
            try await withServer(scripted(["/slow": script])) { server in
                let session = makeSession()
                let log = EventLog(session)
                let task = session.dataTask(with: server.request("/slow"))
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { value in
                    progress.append(value)
                })
                task.resume()
                #expect(await eventually { (progress.all.last?.completed ?? 0) > 0 })
                task.suspend()
                #expect(task.state == .suspended)
                // At most the slice in flight lands; then nothing moves while suspended.
                try await Task.sleep(for: .milliseconds(150))
                let paused = progress.all.last?.completed ?? 0
                try await Task.sleep(for: .milliseconds(300))
                #expect(progress.all.last?.completed == paused, "no byte is read while suspended")
                #expect(paused < UInt64(size))
                task.resume()
                #expect(task.state == .running)
                let body = try await task.value
                #expect(isPattern(body, count: size))
                await session.finishTasksAndInvalidate()
                let events = await log.finished().map(\.summary)
                #expect(events == ["resumed 1", "suspended 1", "resumed 1", "completed 1 ok", "invalidated"])
            }
        }

        @Test func cancelWhileSuspended() async throws {
            // The body pauses after its first bytes, so the task is still running when it is
            // suspended (progress handlers run off the loop, behind the transfer).
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 200 OK\r\nContent-Length: 8000000\r\n\r\n"), .writePattern(count: 100_000), .pause(.seconds(3)),
                 .writePattern(count: 7_900_000)]
            }
            try await withServer(scripted(["/slow": script])) { server in
                let session = makeSession()
                let task = session.dataTask(with: server.request("/slow"))
                let progress = Recorder<TransferProgress>()
                task.setProgressHandler(upload: nil, download: { progress.append($0) })
                task.resume()
                #expect(await eventually { (progress.all.last?.completed ?? 0) > 0 })
                task.suspend()
                try await Task.sleep(for: .milliseconds(50))
                task.cancel()
                #expect(failure(await task.response.result)?.code == .cancelled)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}

enum TestTLS {
    static let ca: Certificate = try! Certificate.certificates(fromPEM: Array(LoopbackIdentity.caCertificatePEM.utf8))[0]

    static var client: TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .certificates([ca])
        return configuration
    }

    static var server: TLSServerConfiguration {
        try! LoopbackServer.Configuration.tls(certificateChainPEM: LoopbackIdentity.serverCertificatePEM,
                                              privateKeyPEM: LoopbackIdentity.serverKeyPEM)
    }
}
