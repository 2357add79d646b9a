// Byte sinks for the writer and the streaming sanitizer, and the one string-escaping routine both
// use, so a string is spelt the same way whichever produced it.
//
// Escaping (RFC 8259 §7, minimal and canonical): `"` → `\"`, `\` → `\\`, U+0008/0009/000A/000C/
// 000D → `\b \t \n \f \r`, other bytes below 0x20 → `\u00xx` (lowercase hex, as JSON.stringify).
// Nothing else is escaped: `/` stays `/`, DEL and non-ASCII stay raw UTF-8.

/// Where serialised JSON bytes go.
protocol JSONByteSink {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeRawBufferPointer)
}

/// A growing sink over an array (the writer's output).
struct GrowingSink: JSONByteSink {
    var bytes: [UInt8]

    init(capacity: Int) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    mutating func write(_ byte: UInt8) { bytes.append(byte) }

    mutating func write(_ raw: UnsafeRawBufferPointer) {
        bytes.append(contentsOf: raw.assumingMemoryBound(to: UInt8.self))
    }

    mutating func write(_ string: StaticString) {
        write(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }
}

/// A sink over a fixed, caller-provided region (the sanitizer's output, whose length can never
/// exceed its input's). Every write checks the bound once, so a broken length argument traps
/// instead of writing out of bounds.
struct FixedSink: JSONByteSink {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    var count: Int = 0

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    mutating func write(_ byte: UInt8) {
        precondition(count < capacity, "sanitizer output overran its bound")
        // SAFETY: count < capacity, checked above.
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func write(_ raw: UnsafeRawBufferPointer) {
        guard raw.count > 0 else { return }
        precondition(raw.count <= capacity &- count, "sanitizer output overran its bound")
        // SAFETY: raw.count <= capacity - count, checked above; source and destination are
        // distinct allocations (the input is borrowed, the output is ours).
        UnsafeMutableRawPointer(base + count).copyMemory(from: raw.baseAddress!, byteCount: raw.count)
        count &+= raw.count
    }

    mutating func write(_ string: StaticString) {
        write(UnsafeRawBufferPointer(start: string.utf8Start, count: string.utf8CodeUnitCount))
    }

    /// Copies `count` bytes from `source` (which must not overlap the region).
    @inline(__always)
    mutating func write(_ source: UnsafePointer<UInt8>, count byteCount: Int) {
        guard byteCount > 0 else { return }
        precondition(byteCount <= capacity &- count, "sanitizer output overran its bound")
        // SAFETY: byteCount <= capacity - count, checked above; the source is the borrowed input,
        // a different allocation from the output region.
        (base + count).update(from: source, count: byteCount)
        count &+= byteCount
    }
}

/// Escaping shared by `JSONWriter` and `JSONNullSanitizer`.
enum JSONEscaping {
    /// Whether `byte` may appear raw inside a JSON string.
    @inline(__always)
    static func isPlain(_ byte: UInt8) -> Bool {
        byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\")
    }

    /// Writes `"…"` with the content of `utf8` (already well-formed UTF-8) escaped minimally.
    static func writeQuoted<Sink: JSONByteSink>(_ utf8: UnsafeRawBufferPointer, to sink: inout Sink) {
        sink.write(UInt8(ascii: "\""))
        let count = utf8.count
        var runStart = 0
        var i = 0
        while i < count {
            let byte = utf8[i]
            if isPlain(byte) {
                i &+= 1
                continue
            }
            if i > runStart { sink.write(UnsafeRawBufferPointer(rebasing: utf8[runStart..<i])) }
            writeEscape(byte, to: &sink)
            i &+= 1
            runStart = i
        }
        if count > runStart { sink.write(UnsafeRawBufferPointer(rebasing: utf8[runStart..<count])) }
        sink.write(UInt8(ascii: "\""))
    }

    /// Writes the escape for one byte that is not plain.
    static func writeEscape<Sink: JSONByteSink>(_ byte: UInt8, to sink: inout Sink) {
        sink.write(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): sink.write(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): sink.write(UInt8(ascii: "\\"))
        case 0x08: sink.write(UInt8(ascii: "b"))
        case 0x09: sink.write(UInt8(ascii: "t"))
        case 0x0A: sink.write(UInt8(ascii: "n"))
        case 0x0C: sink.write(UInt8(ascii: "f"))
        case 0x0D: sink.write(UInt8(ascii: "r"))
        default:
            let hex: StaticString = "0123456789abcdef"
            sink.write(UInt8(ascii: "u"))
            sink.write(UInt8(ascii: "0"))
            sink.write(UInt8(ascii: "0"))
            sink.write(hex.utf8Start[Int(byte >> 4)])
            sink.write(hex.utf8Start[Int(byte & 0x0F)])
        }
    }

    /// Writes a Swift string quoted and escaped.
    static func writeQuoted<Sink: JSONByteSink>(_ string: String, to sink: inout Sink) {
        var string = string
        string.withUTF8 { writeQuoted(UnsafeRawBufferPointer($0), to: &sink) }
    }
}
