import CourierBytes

/// Builds a ByteBuffer whose readable bytes do not start at index 0, so entry points that take a
/// buffer are tested with a moved reader index.
enum ByteBufferFixture {
    static func make(_ text: String) -> ByteBuffer {
        var buffer = ByteBuffer(string: "GARBAGE" + text)
        buffer.moveReaderIndex(forwardBy: 7)
        return buffer
    }
}
