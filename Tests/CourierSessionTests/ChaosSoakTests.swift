// Issue 10 §8: a chaos soak. Many requests through one Session — GETs and POSTs mixed, 8 at a
// time — against a loopback server that at random closes idle connections, resets mid-head and
// mid-body, answers nothing, delays, and answers with Connection: close. Afterwards: every task
// completed (a success with the right body, or a typed transport error), no GET went to the server
// more than twice (one retry at most), no POST more than once, no descriptor or thread left over,
// RSS flat after the warm-up.
//
// Short in CI (COURIER_CHAOS_REQUESTS, default 2,000, about a second); long on demand with
// `scripts/chaos-soak N`, which runs the quiet suite directly (no time limit). Under `swift test`
// it runs in a quiet child process, where nothing else opens descriptors or threads.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Synchronization
import Testing

/// What the chaos server did, per request id.
final class ChaosLedger: Sendable {
    private let arrivals: Mutex<[Int: Int]>
    private let actions = Mutex<[String: Int]>([:])

    /// - Parameter capacity: the number of requests (reserved up front, so the ledger's own growth
    ///   is not counted as the session's RSS growth).
    init(capacity: Int) {
        var table: [Int: Int] = [:]
        table.reserveCapacity(capacity)
        arrivals = Mutex(table)
    }

    func arrived(_ id: Int, action: String) {
        arrivals.withLock { $0[id, default: 0] += 1 }
        actions.withLock { $0[action, default: 0] += 1 }
    }

    func count(_ id: Int) -> Int { arrivals.withLock { $0[id] ?? 0 } }
    var actionCounts: [String: Int] { actions.withLock { $0 } }
}

/// The client side's counts, shared by the workers.
final class ChaosTally: Sendable {
    let next = Atomic<Int>(0)
    let succeeded = Atomic<Int>(0)
    let failures = Mutex<[String: Int]>([:])
    let wrong = Mutex<[String]>([])
    let rssAfterWarmUp = Atomic<Int>(0)
}

/// The server's behaviour for one request, chosen at random.
func chaosActions(size: Int, ledger: ChaosLedger, id: Int) -> [LoopbackAction] {
    let head = "HTTP/1.1 200 OK\r\nContent-Length: \(size)\r\n"
    let roll = Int.random(in: 0..<100)
    let (name, actions): (String, [LoopbackAction]) = switch roll {
    case 0..<50: ("normal", [.text(head + "\r\n"), .writePattern(count: size)])
    case 50..<60: ("close", [.text(head + "Connection: close\r\n\r\n"), .writePattern(count: size), .close])
    // Answers, then closes the connection just as the client may be sending its next request.
    case 60..<68: ("idle-close", [.text(head + "\r\n"), .writePattern(count: size), .pause(.milliseconds(Int.random(in: 0...20))), .close])
    case 68..<74: ("reset-head", [.text("HTTP/1.1 200 OK\r\nContent-Le"), .reset])
    case 74..<80: ("reset-body", [.text(head + "\r\n"), .writePattern(count: size / 2), .reset])
    case 80..<85: ("no-reply", [.close])
    default: ("delay", [.pause(.milliseconds(Int.random(in: 1...10))), .text(head + "\r\n"), .writePattern(count: size)])
    }
    ledger.arrived(id, action: name)
    return actions
}

extension SessionTests {
    @Suite struct ChaosSoak {
        @Test func aChaosSoakInAQuietProcess() async throws {
            let outcome = await QuietProcess.run(filter: "QuietChaosSoak", limit: .seconds(600))
            #expect(outcome.passed, "the chaos soak failed (status \(outcome.status.map(String.init) ?? "killed")):\n\(outcome.output.suffix(6000))")
            // The figures, for docs/limits.md.
            for line in outcome.output.split(separator: "\n") where line.hasPrefix("chaos-soak:") { print(line) }
        }
    }
}

@Suite(.enabled(if: QuietProcess.isChild), .serialized)
struct QuietChaosSoak {
    static var requestCount: Int {
        if let text = getenv("COURIER_CHAOS_REQUESTS"), let n = Int(String(cString: text)), n > 0 { return n }
        return 2_000
    }

    /// One request in three is a POST.
    static func isPost(_ id: Int) -> Bool { id % 3 == 0 }

    @Test func mixedRequestsAgainstAChaoticServer() async throws {
        let total = Self.requestCount
        let ledger = ChaosLedger(capacity: total)
        let script: LoopbackScript = { request in
            let query = request.target.split(separator: "?").last.map(String.init) ?? ""
            var id = 0, size = 0
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=")
                if parts.count == 2, parts[0] == "id" { id = Int(parts[1]) ?? 0 }
                if parts.count == 2, parts[0] == "size" { size = Int(parts[1]) ?? 0 }
            }
            return chaosActions(size: size, ledger: ledger, id: id)
        }
        let server = try await LoopbackServer.start(.init(scripts: ["/chaos": script]))
        let session = makeSession { $0.idleTimeout = .seconds(10) }
        let baseDescriptors = openDescriptorCount()
        let baseThreads = threadCount()

        let tally = ChaosTally()
        let warmUp = max(total / 5, 1)
        let started = ContinuousClock.now

        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    while true {
                        let id = tally.next.add(1, ordering: .relaxed).newValue
                        guard id <= total else { return }
                        if id == warmUp { tally.rssAfterWarmUp.store(residentSetSize(), ordering: .relaxed) }
                        let size = [0, 100, 5_000, 70_000][id % 4]
                        let path = "/chaos?id=\(id)&size=\(size)"
                        let response: TaskResponse<ByteBuffer>
                        if Self.isPost(id) {
                            let body = ByteBuffer(bytes: Array("post \(id)".utf8))
                            response = await session.uploadTask(with: server.request(.post, path), from: .bytes(body)).response
                        } else {
                            response = await session.dataTask(with: server.request(path)).response
                        }
                        switch response.result {
                        case .success(let body):
                            if response.head?.status == 200, isPattern(body, count: size) || (size == 0 && body.readableBytes == 0) {
                                tally.succeeded.add(1, ordering: .relaxed)
                            } else {
                                tally.wrong.withLock { $0.append("\(id): status \(response.head?.status ?? 0), \(body.readableBytes) bytes") }
                            }
                        case .failure(let error):
                            // Only what the server did may show: closes, resets, cut heads and bodies.
                            let code = error.connectionError?.code
                            if code == .remoteClosed || code == .bodyTruncated || code == .protocolError {
                                tally.failures.withLock { $0["\(code!) (\(error.curlExitCode))", default: 0] += 1 }
                            } else {
                                tally.wrong.withLock { $0.append("\(id): \(error)") }
                            }
                        }
                    }
                }
            }
        }
        let elapsed = ContinuousClock.now - started

        #expect(tally.wrong.withLock { $0 }.isEmpty, "unexpected outcomes: \(tally.wrong.withLock { Array($0.prefix(20)) })")
        var getsTwice = 0
        for id in 1...total {
            let count = ledger.count(id)
            if Self.isPost(id) {
                #expect(count <= 1, "POST \(id) reached the server \(count) times")
            } else {
                #expect(count <= 2, "GET \(id) reached the server \(count) times")
                if count == 2 { getsTwice += 1 }
            }
        }
        let failed = tally.failures.withLock { $0 }
        #expect(tally.succeeded.load(ordering: .relaxed) + failed.values.reduce(0, +) == total, "every task completed")

        await session.invalidateAndCancel()
        await server.shutdown()
        let released = await eventually(.seconds(5)) { openDescriptorCount() <= baseDescriptors }
        #expect(released, "descriptors: \(openDescriptorCount()) after, \(baseDescriptors) before")
        let threadsBack = await eventually(.seconds(5)) { threadCount() <= baseThreads }
        #expect(threadsBack, "threads: \(threadCount()) after, \(baseThreads) before")
        let rssEnd = residentSetSize()
        let growth = rssEnd - tally.rssAfterWarmUp.load(ordering: .relaxed)
        // Flat: what the allocator keeps for reuse moves by a few MiB; a leak of a receive buffer
        // (64 KiB) per request would be 100+ MiB over the run.
        #expect(growth < 8 << 20, "RSS grew by \(growth >> 10) KiB after the warm-up")

        print("chaos-soak: \(total) requests (8 concurrent, 1 in 3 a POST) in \(elapsed): \(tally.succeeded.load(ordering: .relaxed)) succeeded, "
              + "failed \(failed.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
              + "\(getsTwice) GETs retried; server actions \(ledger.actionCounts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")); "
              + "RSS \(rssEnd >> 20) MiB at the end, \(growth >> 10) KiB growth after the warm-up; descriptors \(openDescriptorCount())/\(baseDescriptors), threads \(threadCount())/\(baseThreads)")
    }
}
