// The Courier side of the multipart benchmark, in a file of its own: MultipartKit re-exports
// NIO's `ByteBuffer`, which would clash with CourierBytes' type of the same name.
import CourierBytes
import CourierMultipart

/// The benchmark form: `fieldCount` small text fields, then one in-memory file part.
final class CourierMultipartRender {
    let form: MultipartForm
    var stream: MultipartBodyStream
    let output: UnsafeMutableRawBufferPointer

    init(fields: [(String, String)], file: [UInt8], fileName: String, mimeType: String, boundary: UInt64) {
        var form = MultipartForm(boundary: MultipartBoundary(randomBits: boundary))
        for (name, value) in fields { try! form.appendField(name: name, value: value) }
        try! form.appendData(ByteBuffer(bytes: file), name: "file", fileName: fileName, mimeType: mimeType)
        self.form = form
        self.stream = MultipartBodyStream(form: form)
        self.output = .allocate(byteCount: Int(form.contentLength), alignment: 16)
    }

    var boundary: String { form.boundary.value }
    var contentLength: Int { Int(form.contentLength) }

    /// Each part's headers, as (name, value) pairs, for the peer to send the same heads.
    var partHeaders: [[(String, String)]] { form.parts.map { $0.headers.map { ($0.name, $0.value) } } }

    /// Renders the whole body into the reused output region; returns the byte count.
    func render() -> Int {
        stream.restart()
        return try! stream.read(into: output)
    }

    var renderedBytes: [UInt8] { Array(UnsafeRawBufferPointer(output)) }
}
