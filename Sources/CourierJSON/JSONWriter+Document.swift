// JSONWriter for document values: the same output as for a `JSONValue` tree (compact or pretty,
// members in order or sorted), written straight from the tape. Strings without escapes are
// already canonical (no quote, backslash or control byte), so they are copied from the input
// with their quotes; strings with escapes are written re-escaped from their decoded bytes.
// Output can go to a growing array, a `ByteBuffer`, or in fixed-size chunks to a callback, so a
// large document is written without a second copy of it in memory.

import CourierBytes

extension JSONWriter {
    /// Writes a document value as JSON text.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting; compact and in document order by default.
    /// - Returns: the UTF-8 bytes.
    public static func write(_ value: JSONDocument.Value, options: Options = []) -> [UInt8] {
        var sink = GrowingSink(capacity: 64)
        write(value, options: options, to: &sink)
        return sink.bytes
    }

    /// Appends a document value as JSON text to a buffer.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting.
    ///   - buffer: where the bytes are appended.
    public static func write(_ value: JSONDocument.Value, options: Options = [], into buffer: inout ByteBuffer) {
        var sink = BufferSink(buffer: buffer)
        buffer = ByteBuffer()
        write(value, options: options, to: &sink)
        buffer = sink.buffer
    }

    /// Writes a document value as JSON text in pieces of at most `chunkSize` bytes.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting.
    ///   - chunkSize: the size of the pieces handed to `body` (the last may be shorter).
    ///   - body: called with each piece in order; an error it throws ends the writing and is
    ///     rethrown.
    /// - Throws: what `body` throws.
    public static func write<E: Error>(_ value: JSONDocument.Value, options: Options = [], chunkSize: Int = 1 << 16,
                                       to body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try withoutActuallyEscaping(body) { (escapable) throws(E) in
            var sink = ChunkSink<E>(capacity: max(chunkSize, 16), body: escapable)
            defer { sink.release() }
            write(value, options: options, to: &sink)
            sink.flush()
            if let error = sink.error { throw error }
        }
    }

    /// Writes a document value as JSON text in a `String`.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting.
    /// - Returns: the text.
    public static func string(_ value: JSONDocument.Value, options: Options = []) -> String {
        String(decoding: write(value, options: options), as: UTF8.self)
    }

    static func write<Sink: JSONByteSink>(_ value: JSONDocument.Value, options: Options, to sink: inout Sink) {
        if options.contains(.sortedKeys) {
            // Sorting needs every member at once; the tree writer does it.
            write(JSONValue(value), options: options, to: &sink)
            return
        }
        let pretty = options.contains(.prettyPrinted)
        value.withReader { reader in writeTape(reader, from: value.index, pretty: pretty, to: &sink) }
    }

    static func writeTape<Sink: JSONByteSink>(_ reader: JSONTapeReader, from root: Int, pretty: Bool, to sink: inout Sink) {
        var stack: [(isObject: Bool, end: Int)] = []
        var i = root
        var first = false

        func newline(_ sink: inout Sink, depth: Int) {
            sink.write(UInt8(ascii: "\n"))
            var k = 0
            while k < depth {
                sink.write(UInt8(ascii: " "))
                sink.write(UInt8(ascii: " "))
                k &+= 1
            }
        }

        func writeString(_ word: UInt32, _ sink: inout Sink) {
            let bytes = reader.stringBytes(word)
            if JSONTape.tag(word) == JSONTape.string {
                // SAFETY: raw content is preceded and followed by its quotes in the input.
                sink.write(UnsafeRawBufferPointer(start: bytes.baseAddress! - 1, count: bytes.count &+ 2))
            } else {
                JSONEscaping.writeQuoted(UnsafeRawBufferPointer(bytes), to: &sink)
            }
        }

        nextValue: while true {
            let word = reader.word(i)
            switch JSONTape.tag(word) {
            case JSONTape.literal:
                let text: StaticString = word == JSONTape.null ? "null" : word == JSONTape.trueWord ? "true" : "false"
                sink.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
                i &+= 1
            case JSONTape.number, JSONTape.integer:
                reader.withNumberText(word) { sink.write(UnsafeRawBufferPointer($0)) }
                i &+= 1
            case JSONTape.string, JSONTape.escaped:
                writeString(word, &sink)
                i &+= 1
            default:
                let isObject = JSONTape.tag(word) == JSONTape.object
                sink.write(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
                stack.append((isObject, JSONTape.payload(word)))
                i &+= 1
                first = true
            }
            // The next child of the innermost open container, closing the finished ones.
            while let top = stack.last {
                if top.isObject { i = reader.liveMember(from: i, end: top.end) }
                if i < top.end {
                    if !first { sink.write(UInt8(ascii: ",")) }
                    if pretty { newline(&sink, depth: stack.count) }
                    first = false
                    if top.isObject {
                        writeString(reader.word(i), &sink)
                        sink.write(UInt8(ascii: ":"))
                        if pretty { sink.write(UInt8(ascii: " ")) }
                        i &+= 1
                    }
                    continue nextValue
                }
                stack.removeLast()
                if pretty && !first { newline(&sink, depth: stack.count) }
                sink.write(top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                first = false
                i = top.end
            }
            return
        }
    }
}

/// A sink that appends to a `ByteBuffer`.
struct BufferSink: JSONByteSink {
    var buffer: ByteBuffer

    mutating func write(_ byte: UInt8) { buffer.writeInteger(byte) }
    mutating func write(_ bytes: UnsafeRawBufferPointer) { buffer.writeBytes(bytes) }
}

/// A sink that hands fixed-size pieces to a callback; after the callback throws, it keeps the
/// error and drops everything else.
struct ChunkSink<E: Error>: JSONByteSink {
    private let region: UnsafeMutableRawBufferPointer
    private var used = 0
    private let body: (UnsafeRawBufferPointer) throws(E) -> Void
    private(set) var error: E?

    init(capacity: Int, body: @escaping (UnsafeRawBufferPointer) throws(E) -> Void) {
        region = .allocate(byteCount: capacity, alignment: 16)
        self.body = body
    }

    mutating func write(_ byte: UInt8) {
        if used == region.count { flush() }
        region[used] = byte
        used &+= 1
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        var offset = 0
        while offset < bytes.count {
            if used == region.count { flush() }
            let n = min(bytes.count &- offset, region.count &- used)
            // SAFETY: used + n <= region.count and offset + n <= bytes.count.
            (region.baseAddress! + used).copyMemory(from: bytes.baseAddress! + offset, byteCount: n)
            used &+= n
            offset &+= n
        }
    }

    mutating func flush() {
        defer { used = 0 }
        guard used > 0, error == nil else { return }
        do throws(E) { try body(UnsafeRawBufferPointer(rebasing: region[0..<used])) } catch { self.error = error }
    }

    func release() { region.deallocate() }
}
