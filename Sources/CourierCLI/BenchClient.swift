// The client side of every benchmark workload: HTTP1Connection directly, one connection per
// worker, keep-alive unless told otherwise; bodies are streamed and counted, never buffered whole.

import Courier
import CourierBytes
import CourierHTTP1
import CourierTLS

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

    var line: String { "requests=\(requests) bytes=\(bytes) seconds=\(fixed(seconds, 6))" }
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
                group.addTask {
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
                        guard response.status == 200 else { throw BenchError.status(response.status) }
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

    /// One POST of `body` (sent in 1 MiB pieces of the same buffer, so nothing is copied).
    static func upload(_ target: BenchTarget, body: ByteBuffer, contentType: String) async throws -> BenchResult {
        let start = ContinuousClock.now
        let connection = try await connect(target)
        try await connection.sendHead(method: .post, target: target.target, headers: ["Content-Type": contentType],
                                      body: .known(UInt64(body.readableBytes)))
        var offset = 0
        let piece = 1 << 20
        while offset < body.readableBytes {
            let length = min(piece, body.readableBytes - offset)
            try await connection.writeBody(body.getSlice(at: body.readerIndex + offset, length: length)!)
            offset += length
        }
        try await connection.finishBody()
        let response = try await connection.receiveResponse()
        _ = try await response.body.collect(upTo: 1 << 20)
        await connection.close()
        guard (200..<300).contains(response.status) else { throw BenchError.status(response.status) }
        return BenchResult(requests: 1, bytes: body.readableBytes, seconds: seconds(since: start))
    }
}

enum BenchError: Error, CustomStringConvertible {
    case status(Int)
    case usage(String)

    var description: String {
        switch self {
        case .status(let status): return "the server answered \(status)"
        case .usage(let text): return text
        }
    }
}
