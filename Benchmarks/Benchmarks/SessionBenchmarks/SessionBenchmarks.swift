// The session at rest and in a long run: mallocs per request in steady state (one Session, one
// keep-alive connection; and the low-level connection under it), and a soak of many requests whose
// resident set must stay flat (design §3: ownership ends). The origin runs in a child process
// (Benchmarks/origin.py), so the malloc counts are the client's alone.
//
// Budgets (Benchmarks/budgets.txt, checked by summarize.py on every run, as swift-nio's
// allocation-counter tests do): a change that adds allocations per request fails the run.
import Benchmark
import BenchmarkSupport
import Courier
import CourierURL
import Foundation

/// The origin process and its URL.
final class Origin: @unchecked Sendable {
    let process = Process()
    let stdin = Pipe()
    let port: Int

    init() throws {
        let here = URL(fileURLWithPath: #filePath)
        let script = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("origin.py")
        let portFile = FileManager.default.temporaryDirectory.appendingPathComponent("courier-origin-\(getpid())")
        try? FileManager.default.removeItem(at: portFile)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, portFile.path]
        process.standardInput = stdin
        try process.run()
        var port: Int?
        for _ in 0..<500 {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let value = Int(text) {
                port = value
                break
            }
            usleep(10_000)
        }
        try? FileManager.default.removeItem(at: portFile)
        guard let port else { throw OriginError.didNotStart }
        self.port = port
    }

    enum OriginError: Error { case didNotStart }

    func url(_ path: String) -> URI { try! URI(parsing: "http://127.0.0.1:\(port)\(path)") }

    deinit {
        try? stdin.fileHandleForWriting.close()
        process.waitUntilExit()
    }
}

/// VmRSS of this process, in bytes.
func residentBytes() -> Int {
    guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
    for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }
    return 0
}

let benchmarks: @Sendable () -> Void = {
    let origin: Origin
    do { origin = try Origin() } catch {
        requireAgreement(false, "the origin (python3 Benchmarks/origin.py) did not start: \(error)")
        return
    }
    let requestsPerIteration = 1_000
    // 0.2–30 KB bodies, as an API's responses vary.
    let sizes = [200, 1_500, 4_000, 12_000, 30_000]
    let requests = (0..<requestsPerIteration).map { HTTPRequest(method: .get, uri: origin.url("/bytes/\(sizes[$0 % sizes.count])")) }
    let bodyBytes = (0..<requestsPerIteration).reduce(0) { $0 + sizes[$1 % sizes.count] }

    // One session for every iteration: the steady state of a server process's client.
    let session = Session()
    Benchmark("session: 1,000 keep-alive GETs of 0.2-30 KB on one Session [courier] bytes=\(bodyBytes)",
              configuration: courierConfiguration(maxIterations: 50, seconds: 5)) { benchmark in
        for _ in benchmark.scaledIterations {
            for request in requests {
                let body = try await session.dataTask(with: request).value
                blackHole(body.readableBytes)
            }
        }
    }

    Benchmark("connection: 1,000 keep-alive GETs of 0.2-30 KB on one HTTP1Connection [courier] bytes=\(bodyBytes)",
              configuration: courierConfiguration(maxIterations: 50, seconds: 5)) { benchmark in
        let connection = try await HTTP1Connection.connect(host: "127.0.0.1", port: UInt16(origin.port))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            for request in requests {
                try await connection.sendHead(method: .get, target: request.uri.requestTarget)
                let response = try await connection.receiveResponse()
                for try await slice in response.body { blackHole(slice.readableBytes) }
            }
        }
        benchmark.stopMeasurement()
        await connection.close()
    }

    // The soak: RSS sampled every 10,000 requests on one session; the growth after the first
    // 1,000 must stay under 2 MiB (a leak of even 21 bytes per request fails it).
    let soakRequests = isShortRun ? 20_000 : 100_000
    Benchmark("session: soak of \(soakRequests) GETs on one Session, RSS growth checked [courier] bytes=\(soakRequests / 1000 * bodyBytes)",
              configuration: Benchmark.Configuration(metrics: [.wallClock, .mallocCountTotal, .peakMemoryResident],
                                                     warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)) { _ in
        let soak = Session()
        var atThousand = 0
        var peak = 0
        for i in 1...soakRequests {
            let body = try await soak.dataTask(with: requests[i % requests.count]).value
            blackHole(body.readableBytes)
            if i == 1_000 { atThousand = residentBytes() }
            if i > 1_000 && i % 10_000 == 0 { peak = max(peak, residentBytes()) }
        }
        await soak.invalidateAndCancel()
        let growth = peak - atThousand
        print("soak: \(soakRequests) requests, RSS \(atThousand) bytes after 1,000, growth \(growth) bytes afterwards")
        requireAgreement(growth < 2 << 20, "RSS grew by \(growth) bytes over \(soakRequests) requests on one session (budget 2 MiB)")
    }
}
