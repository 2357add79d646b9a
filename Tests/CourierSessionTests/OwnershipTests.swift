// Ownership that ends (design §3): a finished task is owned by its caller alone — the session, the
// pool and the loop keep nothing of it — and a body never pins a receive buffer larger than itself.
//
// Two checks over the same scenarios, one per task kind and ending:
// - in this process (parallel-safe): every task handle a scenario made is gone once the caller
//   drops it (a weak reference), and a buffered body's storage is about its own size;
// - in a quiet child process (QuietProcess): after a warm-up, running every scenario many times
//   on one session leaves the live-object counts (tasks, task lifecycles, connections, buffer storage,
//   sessions, pools), the open descriptors and the threads where they were.

import Courier
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierMultipart
import CourierPosix
import CourierTestSupport
import CourierURL
import Glibc
import Synchronization
import Testing

/// Weak references to the objects a scenario made, checked after the scenario returned.
final class WeakBag: Sendable {
    // @unchecked: the weak reference is only read (under the lock) to see whether it is nil.
    private struct Entry: @unchecked Sendable { weak var object: AnyObject?; let label: String }
    private let entries = Mutex<[Entry]>([])
    func add(_ object: AnyObject, _ label: String) { entries.withLock { $0.append(Entry(object: object, label: label)) } }
    /// The labels of the objects still alive.
    var alive: [String] { entries.withLock { $0.filter { $0.object != nil }.map(\.label) } }
}

/// One way a task is used and ends.
struct OwnershipScenario: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable (_ session: Session, _ server: LoopbackServer, _ directory: String, _ bag: WeakBag) async throws -> Void
    var testDescription: String { name }
}

/// The scripted routes the scenarios use, next to the server's own routes.
let ownershipScripts: [String: LoopbackScript] = [
    "/redirect": { _ in [.text("HTTP/1.1 302 Found\r\nLocation: /bytes/10\r\nContent-Length: 0\r\n\r\n")] },
    "/stall": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"), .writePattern(count: 100), .stall] },
    "/cut": truncatedBody(length: 50_000, sent: 20_000, validator: "ETag: \"v1\""),
    "/resumable": { request in
        // The rest of /cut's body from where a Range asks, else the whole.
        let range = request.headers.first(name: "Range")
        if let range, range.hasPrefix("bytes="), let start = Int(range.dropFirst(6).dropLast()) {
            return [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes \(start)-49999/50000\r\nETag: \"v1\"\r\nContent-Length: \(50_000 - start)\r\n\r\n"),
                    .writePattern(count: 50_000 - start)]
        }
        return [.text("HTTP/1.1 200 OK\r\nETag: \"v1\"\r\nContent-Length: 50000\r\n\r\n"), .writePattern(count: 50_000)]
    },
    // Answers keep-alive, then closes the idle connection: the next request finds it dead and the
    // pool retries it once on a fresh connection.
    "/then-close": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"), .pause(.milliseconds(20)), .close] },
]

/// Every scenario: each task kind, finished, failed, cancelled, redirected, retried, timed out,
/// refused, never awaited, never resumed.
let ownershipScenarios: [OwnershipScenario] = [
    OwnershipScenario(name: "data task, small body") { session, server, _, bag in
        let task = session.dataTask(with: server.request("/bytes/300"))
        bag.add(task, "data task")
        let body = try await task.value
        #expect(body.readableBytes == 300)
        #expect(body.storageCapacity <= 2 * 300 + 4096, "a 300-byte body keeps \(body.storageCapacity) bytes alive")
    },
    OwnershipScenario(name: "data task, chunked body") { session, server, _, bag in
        let task = session.dataTask(with: server.request("/chunked/20000?chunk=100"))
        bag.add(task, "data task")
        let body = try await task.value
        #expect(body.readableBytes == 20_000)
        #expect(body.storageCapacity <= 2 * 20_000 + 4096)
    },
    OwnershipScenario(name: "upload from bytes") { session, server, _, bag in
        let task = session.uploadTask(with: server.request(.post, "/upload"), from: .bytes(ByteBuffer(bytes: pattern(5000))))
        bag.add(task, "upload task")
        _ = try await task.value
    },
    OwnershipScenario(name: "upload from a file") { session, server, directory, bag in
        let path = directory + "/upload.bin"
        writeFile(path, pattern(70_000))
        let task = session.uploadTask(with: server.request(.put, "/upload"), from: .file(path: path))
        bag.add(task, "upload task")
        _ = try await task.value
    },
    OwnershipScenario(name: "upload from a stream, chunked") { session, server, _, bag in
        let task = session.uploadTask(with: server.request(.post, "/upload"), from: .stream(length: nil, PatternStream(count: 30_000)))
        bag.add(task, "upload task")
        _ = try await task.value
    },
    OwnershipScenario(name: "multipart upload") { session, server, directory, bag in
        let path = directory + "/part.bin"
        writeFile(path, pattern(10_000))
        var form = MultipartForm(boundary: MultipartBoundary("ownership-boundary")!)
        try form.appendField(name: "a", value: "1")
        try form.appendFile(atPath: path, name: "file", fileSystem: PosixFileSystem())
        let task = session.uploadTask(with: server.request(.post, "/upload"), from: .multipart(form))
        bag.add(task, "upload task")
        _ = try await task.value
    },
    OwnershipScenario(name: "stream task read to the end") { session, server, _, bag in
        let task = session.streamTask(with: server.request("/bytes/200000"))
        bag.add(task, "stream task")
        let response = try await task.value
        var total = 0
        for try await slice in response.body { total += slice.readableBytes }
        #expect(total == 200_000)
        _ = await task.completedMetrics()
    },
    OwnershipScenario(name: "stream task left early") { session, server, _, bag in
        let task = session.streamTask(with: server.request("/bytes/5000000"))
        bag.add(task, "stream task")
        let response = try await task.value
        for try await _ in response.body { break }
        _ = await task.completedMetrics()
    },
    OwnershipScenario(name: "download, finished") { session, server, directory, bag in
        let task = session.downloadTask(with: server.request("/bytes/40000")) { _, _ in directory + "/done.bin" }
        bag.add(task, "download task")
        let result = await task.response
        #expect(result.result.successValue == directory + "/done.bin")
    },
    OwnershipScenario(name: "download, failed then resumed") { session, server, directory, bag in
        let first = session.downloadTask(with: server.request("/cut")) { _, _ in directory + "/resumed.bin" }
        bag.add(first, "failed download")
        let failed = await first.response
        guard let resume = failed.resumeData else {
            Issue.record("the failed download has no resume data")
            return
        }
        var record = resume
        record.url = server.url("/resumable").description
        let second = session.downloadTask(resumingWith: record) { _, _ in directory + "/resumed.bin" }
        bag.add(second, "resumed download")
        let result = await second.response
        #expect(result.result.successValue == directory + "/resumed.bin")
    },
    OwnershipScenario(name: "download, cancelled") { session, server, directory, bag in
        let task = session.downloadTask(with: server.request("/stall")) { _, _ in directory + "/cancelled.bin" }
        bag.add(task, "cancelled download")
        task.resume()
        _ = await eventually(.seconds(2)) { server.requestCount > 0 && task.state == .running }
        try await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let result = await task.response
        #expect(result.result.failureValue?.code == .cancelled)
    },
    OwnershipScenario(name: "HTTPClient call (its own session, never invalidated)") { _, server, _, bag in
        let client = try HTTPClient(baseURL: server.url("/").description)
        bag.add(client.session, "HTTPClient session")
        let (value, response) = try await client.get("echo")
        #expect(response.status == 200)
        #expect(value != nil)
    },
    OwnershipScenario(name: "redirected") { session, server, _, bag in
        let task = session.dataTask(with: server.request("/redirect"))
        bag.add(task, "redirected task")
        let body = try await task.value
        #expect(body.readableBytes == 10)
    },
    OwnershipScenario(name: "retried on a dead reused connection") { session, server, _, bag in
        let first = session.dataTask(with: server.request("/then-close"))
        bag.add(first, "first task")
        _ = try await first.value
        try await Task.sleep(for: .milliseconds(60))
        let second = session.dataTask(with: server.request("/bytes/10"))
        bag.add(second, "retried task")
        #expect(try await second.value.readableBytes == 10)
    },
    OwnershipScenario(name: "timed out") { session, server, _, bag in
        var request = server.request("/stall")
        request.timeout = .milliseconds(150)
        let task = session.dataTask(with: request)
        bag.add(task, "timed-out task")
        let response = await task.response
        #expect(response.result.failureValue != nil)
    },
    OwnershipScenario(name: "cancelled while running") { session, server, _, bag in
        let task = session.dataTask(with: server.request("/stall"))
        bag.add(task, "cancelled task")
        task.resume()
        try await Task.sleep(for: .milliseconds(30))
        task.cancel()
        #expect(await task.response.result.failureValue?.code == .cancelled)
    },
    OwnershipScenario(name: "suspended then resumed") { session, server, _, bag in
        let task = session.dataTask(with: server.request("/bytes/100000"))
        bag.add(task, "suspended task")
        task.resume()
        task.suspend()
        try await Task.sleep(for: .milliseconds(10))
        task.resume()
        #expect(try await task.value.readableBytes == 100_000)
    },
    OwnershipScenario(name: "refused by an invalidated session") { _, server, _, bag in
        let dead = makeSession()
        await dead.invalidateAndCancel()
        let task = dead.dataTask(with: server.request("/bytes/1"))
        bag.add(task, "refused task")
        bag.add(dead, "invalidated session")
        #expect(await task.response.result.failureValue?.code == .invalidated)
    },
    OwnershipScenario(name: "resumed and never awaited") { session, server, _, bag in
        let done = OnceFlag()
        let events = session.events()
        let watcher = Task {
            for await event in events {
                if case .taskCompleted = event { done.set(); return }
            }
        }
        do {
            let task = session.dataTask(with: server.request("/bytes/1000"))
            bag.add(task, "unawaited task")
            task.resume()
        }
        _ = await eventually(.seconds(5)) { done.isSet }
        watcher.cancel()
    },
    OwnershipScenario(name: "never resumed") { session, server, _, bag in
        do {
            let task = session.dataTask(with: server.request("/bytes/1000"))
            bag.add(task, "unresumed task")
        }
    },
    OwnershipScenario(name: "session invalidated with a task running") { _, server, _, bag in
        let session = makeSession()
        bag.add(session, "invalidated session")
        let task = session.dataTask(with: server.request("/stall"))
        bag.add(task, "running task")
        task.resume()
        _ = await eventually(.seconds(2)) { task.state == .running }
        try await Task.sleep(for: .milliseconds(20))
        await session.invalidateAndCancel()
        #expect(await task.response.result.failureValue?.code == .cancelled)
    },
    OwnershipScenario(name: "low-level connection, three exchanges") { _, server, _, bag in
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: server.port)
        bag.add(connection, "connection")
        for size in [10, 70_000, 0] {
            try await connection.sendHead(method: .get, target: "/bytes/\(size)")
            let response = try await connection.receiveResponse()
            let body = try await response.body.collect()
            #expect(body.readableBytes == size)
            #expect(body.storageCapacity <= 2 * size + 4096)
        }
        await connection.close()
    },
]

/// A flag set once from any thread.
final class OnceFlag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

extension Result {
    var failureValue: Failure? { if case .failure(let error) = self { error } else { nil } }
}

extension SessionTests {
    /// Parallel-safe: the objects each scenario made are gone once it returns.
    @Suite struct Ownership {
        @Test(arguments: ownershipScenarios)
        func finishedTasksAreOwnedByTheirCallerAlone(scenario: OwnershipScenario) async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(ownershipScripts)) { server in
                let session = makeSession()
                let bag = WeakBag()
                try await scenario.run(session, server, directory, bag)
                let released = await eventually(.seconds(3)) { bag.alive.isEmpty }
                #expect(released, "still alive after \(scenario.name): \(bag.alive)")
                await session.invalidateAndCancel()
            }
        }

        /// The process-wide counts, in a child process where nothing else runs.
        @Test func liveObjectCountsReturnToTheirBaseline() async throws {
            guard LiveObjects.isCounting else { return }
            let outcome = await QuietProcess.run(filter: "QuietOwnership")
            #expect(outcome.passed, "the quiet child failed (status \(outcome.status.map(String.init) ?? "killed")):\n\(outcome.output.suffix(6000))")
        }
    }
}

/// Runs only in the quiet child process (see `liveObjectCountsReturnToTheirBaseline`).
@Suite(.enabled(if: QuietProcess.isChild && LiveObjects.isCounting), .serialized)
struct QuietOwnership {
    static let rounds = 15

    /// The counts that must return exactly to their baseline (descriptors and threads: at most).
    static func counts() async -> [String: Int] {
        var all: [String: Int] = [:]
        for (kind, count) in LiveObjects.snapshot() { all[kind.description] = count }
        all["descriptors"] = openDescriptorCount()
        all["threads"] = threadCount()
        let loop = SharedRuntime.loop
        all["loop timers"] = (try? await loop.submit { loop.pendingTimerCount }) ?? -1
        // Receive buffers kept by the loop's pool are reachable and bounded (a few per size
        // class), not owned by any task: they are not part of what must return.
        let pooled = (try? await loop.submit { loop.receiveBuffers.statistics.kept }) ?? 0
        all["buffer storage", default: 0] -= pooled
        return all
    }

    static func difference(_ now: [String: Int], _ baseline: [String: Int]) -> String {
        now.keys.sorted().compactMap { key in
            let delta = now[key]! - (baseline[key] ?? 0)
            return delta == 0 ? nil : "\(key) \(delta > 0 ? "+" : "")\(delta)"
        }.joined(separator: ", ")
    }

    @Test func everyScenarioManyTimesOnOneSession() async throws {
        let directory = makeTemporaryDirectory()
        defer { removeTree(directory) }
        try await withServer(scripted(ownershipScripts)) { server in
            let session = makeSession()
            func round() async throws {
                for scenario in ownershipScenarios {
                    try await scenario.run(session, server, directory, WeakBag())
                }
            }
            // Warm up: the shared loop, the resolver and blocking-I/O threads, the pool's idle
            // connection and the cooperative pool's threads exist from here on.
            try await round()
            try await round()
            _ = await eventually(.seconds(3)) { server.openConnections <= 1 }
            try await Task.sleep(for: .milliseconds(300))
            let baseline = await QuietOwnership.counts()
            for _ in 0..<QuietOwnership.rounds { try await round() }
            // Live objects and timers return exactly; descriptors and threads may only go down (a
            // worker thread that idled out is not a leak).
            var now = await QuietOwnership.counts()
            let deadline = ContinuousClock.now + .seconds(5)
            while !now.allSatisfy({ key, value in
                key == "descriptors" || key == "threads" ? value <= baseline[key]! : value == baseline[key]
            }) && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
                now = await QuietOwnership.counts()
            }
            let settled = ContinuousClock.now < deadline
            #expect(settled, "after \(QuietOwnership.rounds) rounds of \(ownershipScenarios.count) scenarios: \(QuietOwnership.difference(now, baseline)) (baseline \(baseline))")
            await session.invalidateAndCancel()
        }
    }
}
