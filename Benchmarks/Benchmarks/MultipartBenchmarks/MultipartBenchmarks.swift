// Rendering a multipart/form-data body — 1,000 small fields and one 64 MiB in-memory part — into a
// reused buffer, beside vapor/multipart-kit serialising the same parts, and memcpy of the same
// number of bytes (the limit: the body is almost all one part's bytes).
import Benchmark
import BenchmarkSupport

let benchmarks: @Sendable () -> Void = {
    let fields = (0..<1000).map { ("field\($0)", "value \($0) of a small form field") }
    var file = [UInt8](repeating: 0, count: 64 << 20)
    var rng = XorShift()
    for i in stride(from: 0, to: file.count, by: 8) {
        withUnsafeBytes(of: rng.next()) { word in for j in 0..<8 { file[i + j] = word[j] } }
    }
    let courier = CourierMultipartRender(fields: fields, file: file, fileName: "payload.bin",
                                         mimeType: "application/octet-stream", boundary: 0x0123_4567_89AB_CDEF)
    let size = courier.contentLength
    let peer = MultipartKitRender(partHeaders: courier.partHeaders, bodies: fields.map { Array($0.1.utf8) } + [file],
                                  boundary: courier.boundary, capacity: size)

    // Each renderer is an object made once, so every sample reuses its output buffer.
    // The three move the same bytes: the two renderers produce identical bodies.
    requireAgreement(courier.render() == size && peer.render() == size,
                     "byte counts differ: Courier \(size), multipart-kit \(peer.buffer.readableBytes)")
    requireAgreement(courier.renderedBytes == peer.renderedBytes, "Courier and multipart-kit render different bodies")

    let name = "multipart render, 1,000 fields + one 64 MiB part"
    Benchmark("\(name) [courier] bytes=\(size)", configuration: courierConfiguration(maxIterations: 500)) { benchmark in
        let render = courier
        for _ in benchmark.scaledIterations {
            blackHole(render.render())
        }
    }
    Benchmark("\(name) [multipart-kit] bytes=\(size)", configuration: courierConfiguration(maxIterations: 500)) { benchmark in
        let render = peer
        for _ in benchmark.scaledIterations {
            blackHole(render.render())
        }
    }
    // The memcpy limit copies between two buffers made once, outside the measurement, as the
    // other two render into a buffer made once.
    let source = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    let destination = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
    source.initializeMemory(as: UInt8.self, repeating: 1)
    destination.initializeMemory(as: UInt8.self, repeating: 0)
    let buffers = (source: UnsafeRawPointer(source.baseAddress!), destination: destination.baseAddress!)
    Benchmark("\(name) [memcpy] bytes=\(size)", configuration: courierConfiguration(maxIterations: 500)) { benchmark in
        for _ in benchmark.scaledIterations {
            buffers.destination.copyMemory(from: buffers.source, byteCount: size)
            blackHole(buffers.destination)
        }
    }
}
