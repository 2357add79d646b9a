// Response-head parsing (bytes/s and allocations per head in steady state) and chunked decoding
// (it slices the receive buffer, never copies).
import Benchmark
import BenchmarkSupport
import CourierBytes
import CourierHTTP1

let benchmarks: @Sendable () -> Void = {
    // 1,000 typical heads per iteration, each in its own receive buffer, parsed by one parser whose
    // header slots are reused — as on a keep-alive connection.
    let heads = (0..<1000).map { ByteBuffer(bytes: typicalResponseHead($0)) }
    let headBytes = heads.reduce(0) { $0 + $1.readableBytes }

    Benchmark("response head parsing, 1,000 heads of 300-600 bytes [courier] bytes=\(headBytes)",
              configuration: courierConfiguration()) { benchmark in
        var parser = ResponseHeadParser()
        for _ in benchmark.scaledIterations {
            for head in heads {
                parser.reset()
                guard case .complete(let parsed, let consumed) = try parser.parse(head) else {
                    requireAgreement(false, "a typical head did not parse")
                    return
                }
                blackHole(parsed.status)
                blackHole(consumed)
            }
        }
    }

    // 256 MiB of payload in 16 KiB chunks, framed once outside the measurement.
    let chunkSize = 16 << 10
    let payloadBytes = 256 << 20
    var encoded = ByteBuffer(capacity: payloadBytes + (payloadBytes / chunkSize) * 16 + 16)
    let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: chunkSize)
    let sizeLine = Array("4000\r\n".utf8)
    for _ in 0..<(payloadBytes / chunkSize) {
        encoded.writeBytes(sizeLine)
        encoded.writeBytes(chunk)
        encoded.writeBytes(Array("\r\n".utf8))
    }
    encoded.writeBytes(Array("0\r\n\r\n".utf8))
    let frozen = encoded

    Benchmark("chunked decoding, 256 MiB in 16 KiB chunks [courier] bytes=\(payloadBytes)",
              configuration: courierConfiguration(maxIterations: 1000)) { benchmark in
        for _ in benchmark.scaledIterations {
            var input = frozen
            var decoder = ChunkedDecoder()
            var total = 0
            while let event = try decoder.next(from: &input) {
                if case .data(let slice) = event { total += slice.readableBytes } else { break }
            }
            requireAgreement(total == payloadBytes, "decoded \(total) bytes, expected \(payloadBytes)")
        }
    }
}
