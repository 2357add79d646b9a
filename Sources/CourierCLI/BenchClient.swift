// The client side of every benchmark workload: HTTP1Connection directly, one connection per
// worker, keep-alive unless told otherwise; bodies are streamed and counted, never buffered whole.

import CCourierAllocationCounter
import Courier
import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL

struct BenchTarget: Sendable {
    var host: String
    var port: UInt16
    var tls: TLSConfiguration?
    var target: String
}

struct BenchResult: Sendable {
    var requests: Int
    var bytes: Int
    var seconds: Double
    /// What the workload cost the process: allocation calls and context switches (voluntary and
    /// involuntary, every thread), from just before to just after it.
    var cost = BenchCost()

    /// The peer harness's line (it reads requests=, bytes= and seconds=; the rest is extra).
    var line: String {
        "requests=\(requests) bytes=\(bytes) seconds=\(fixed(seconds, 6)) mallocs=\(cost.allocations)"
            + " csw_voluntary=\(cost.voluntarySwitches) csw_involuntary=\(cost.involuntarySwitches)"
    }
}

/// Allocation calls and context switches over an interval.
struct BenchCost: Sendable {
    var allocations = 0
    var voluntarySwitches = 0
    var involuntarySwitches = 0

    /// Runs `body` and records what it cost.
    static func measure<T>(_ body: () async throws -> T) async rethrows -> (T, BenchCost) {
        let usage = ResourceUsage.current()
        let allocations = courier_allocation_count()
        let value = try await body()
        let after = ResourceUsage.current()
        let cost = BenchCost(allocations: Int(courier_allocation_count() - allocations),
                             voluntarySwitches: after.voluntaryContextSwitches - usage.voluntaryContextSwitches,
                             involuntarySwitches: after.involuntaryContextSwitches - usage.involuntaryContextSwitches)
        return (value, cost)
    }
}

enum BenchClient {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    static func connect(_ target: BenchTarget) async throws -> HTTP1Connection {
        try await HTTP1Connection.connect(host: target.host, port: target.port, tls: target.tls)
    }

    /// `requests` GETs spread over `connections` workers; bytes counts response body bytes.
    static func get(_ target: BenchTarget, requests: Int, connections: Int, keepAlive: Bool = true) async throws -> BenchResult {
        let workers = max(1, min(connections, requests))
        let start = ContinuousClock.now
        let bytes = try await withThrowingTaskGroup(of: Int.self) { group in
            for worker in 0..<workers {
                let share = requests / workers + (worker < requests % workers ? 1 : 0)
                // On the connections' loop: a pull of bytes already read is a plain call, and a
                // wait ends in the same loop turn (no thread switch per exchange).
                group.addTask(executorPreference: HTTP1ConnectionOptions.sharedEventLoop) {
                    var total = 0
                    var connection: HTTP1Connection?
                    for _ in 0..<share {
                        if connection == nil || !connection!.isReusable || !keepAlive {
                            if let old = connection { await old.close() }
                            connection = try await connect(target)
                        }
                        let headers: HTTPHeaders = keepAlive ? HTTPHeaders() : ["Connection": "close"]
                        try await connection!.send(method: .get, target: target.target, headers: headers)
                        let response = try await connection!.receiveResponse()
                        guard response.head.status == 200 else { throw BenchError.status(response.head.status) }
                        for try await slice in response.body { total += slice.readableBytes }
                    }
                    if let connection { await connection.close() }
                    return total
                }
            }
            return try await group.reduce(0, +)
        }
        return BenchResult(requests: requests, bytes: bytes, seconds: seconds(since: start))
    }

    /// One GET whose body is streamed and counted.
    static func download(_ target: BenchTarget) async throws -> BenchResult {
        try await get(target, requests: 1, connections: 1)
    }

    /// One POST of the file at `path`, through a Session upload task: a multipart form with one
    /// file part, or the raw file. File bytes go out with sendfile(2) on plain connections and
    /// through one buffer over TLS, so memory stays flat whatever the size.
    static func upload(_ target: BenchTarget, file path: String, multipart: Bool) async throws -> BenchResult {
        var configuration = SessionConfiguration()
        if let tls = target.tls { configuration.tls = tls }
        let session = Session(configuration: configuration)
        let scheme = target.tls == nil ? "http" : "https"
        let uri = try URI(parsing: "\(scheme)://\(target.host):\(target.port)\(target.target)")
        let source: UploadSource
        var headers = HTTPHeaders()
        let size: Int
        if multipart {
            var random = KernelRandom()
            var form = MultipartForm(boundary: MultipartBoundary(using: &random))
            try form.appendFile(atPath: path, name: "file", fileSystem: PosixFileSystem())
            headers.add(name: "Content-Type", value: form.contentType)
            size = Int(form.contentLength)
            source = .multipart(form)
        } else {
            headers.add(name: "Content-Type", value: "application/octet-stream")
            let file = try File.open(path)
            size = Int(try file.size())
            try file.close()
            source = .file(path: path)
        }
        let start = ContinuousClock.now
        let task = session.uploadTask(with: HTTPRequest(method: .post, uri: uri, headers: headers), from: source)
        task.resume()
        let response = await task.response
        let seconds = seconds(since: start)
        await session.invalidateAndCancel()
        guard let status = response.head?.status else {
            _ = try response.result.get()
            throw BenchError.status(0)
        }
        guard (200..<300).contains(status) else { throw BenchError.status(status) }
        return BenchResult(requests: 1, bytes: size, seconds: seconds)
    }
}

enum BenchError: Error, CustomStringConvertible {
    case status(Int)
    case usage(String)
    case failed(String)

    var description: String {
        switch self {
        case .status(let status): return "the server answered \(status)"
        case .usage(let text): return text
        case .failed(let text): return text
        }
    }
}
