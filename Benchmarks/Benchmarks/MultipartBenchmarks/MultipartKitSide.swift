// vapor/multipart-kit serialising the same parts as Courier (see CourierSide.swift for why the
// two sides live in separate files).
import MultipartKit

/// multipart-kit's serializer over prebuilt parts, into a reused buffer.
final class MultipartKitRender {
    let parts: [MultipartPart]
    let boundary: String
    var buffer: ByteBuffer

    init(partHeaders: [[(String, String)]], bodies: [[UInt8]], boundary: String, capacity: Int) {
        parts = zip(partHeaders, bodies).map { headers, body in
            MultipartPart(headers: HTTPHeaders(headers), body: body)
        }
        self.boundary = boundary
        buffer = ByteBuffer()
        buffer.reserveCapacity(capacity)
    }

    /// Serialises every part into the reused buffer; returns the byte count.
    func render() -> Int {
        buffer.clear()
        try! MultipartSerializer().serialize(parts: parts, boundary: boundary, into: &buffer)
        return buffer.readableBytes
    }

    var renderedBytes: [UInt8] { buffer.getBytes(at: buffer.readerIndex, length: buffer.readableBytes)! }
}
