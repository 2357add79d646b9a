import CourierBytes
import CourierCompression
import Testing

@Test func smoke() throws {
    let body = ContentEncoder.encode(ByteBuffer(string: "hello hello hello"), format: .gzip)
    let decoded = try ContentDecoder.decode(body, contentEncoding: "gzip")
    #expect(decoded.readableString == "hello hello hello")
}
