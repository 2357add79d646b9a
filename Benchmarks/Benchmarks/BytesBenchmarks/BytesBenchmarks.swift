import Benchmark
import CourierBytes

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(metrics: [.throughput, .wallClock, .mallocCountTotal], maxDuration: .seconds(2))
    Benchmark("ByteBuffer append 1 KiB x 1024") { benchmark in
        let chunk = [UInt8](repeating: 0x61, count: 1024)
        for _ in benchmark.scaledIterations {
            var buffer = ByteBuffer(capacity: 1 << 20)
            for _ in 0..<1024 { buffer.writeBytes(chunk) }
            blackHole(buffer)
        }
    }
}
