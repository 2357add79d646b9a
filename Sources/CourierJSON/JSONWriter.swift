// JSONWriter: JSONValue → JSON text (RFC 8259), compact or pretty.
//
// Output rules:
//   * compact: no whitespace at all. pretty: two-space indentation, one member or element per
//     line, `"name": value`, empty containers as `[]` and `{}`, no trailing newline.
//   * members in insertion order (duplicates written as they are), or sorted by name when asked
//     (byte-wise on UTF-8, i.e. by code point; a stable sort, so duplicates keep their order).
//   * numbers from their exact text; strings escaped minimally (see JSONOutput.swift).
// Like the parser, the writer keeps its own stack instead of recursing, so a deep value built in
// code cannot exhaust the call stack.

import CourierBytes

/// Serialises `JSONValue`s.
public enum JSONWriter {
    /// Output formatting.
    public struct Options: OptionSet, Sendable, Hashable {
        /// The option bits.
        public let rawValue: Int
        /// Creates options from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Two-space indentation, one member or element per line.
        public static let prettyPrinted = Options(rawValue: 1 << 0)
        /// Object members sorted by name (code point order) instead of insertion order.
        public static let sortedKeys = Options(rawValue: 1 << 1)
    }

    /// Writes `value` as JSON text.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting; compact and in insertion order by default.
    /// - Returns: the UTF-8 bytes.
    public static func write(_ value: JSONValue, options: Options = []) -> [UInt8] {
        var sink = GrowingSink(capacity: 64)
        write(value, options: options, to: &sink)
        return sink.bytes
    }

    /// Appends `value` as JSON text to a buffer.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting.
    ///   - buffer: where the bytes are appended.
    public static func write(_ value: JSONValue, options: Options = [], into buffer: inout ByteBuffer) {
        let bytes = write(value, options: options)
        buffer.writeBytes(bytes)
    }

    /// Writes `value` as JSON text in a `String`.
    /// - Parameters:
    ///   - value: the value.
    ///   - options: formatting.
    /// - Returns: the text.
    public static func string(_ value: JSONValue, options: Options = []) -> String {
        String(decoding: write(value, options: options), as: UTF8.self)
    }

    private enum Frame {
        case array([JSONValue], next: Int)
        case object([JSONObject.Member], next: Int)
    }

    static func write<Sink: JSONByteSink>(_ root: JSONValue, options: Options, to sink: inout Sink) {
        let pretty = options.contains(.prettyPrinted)
        let sorted = options.contains(.sortedKeys)
        var stack: [Frame] = []

        func newline(_ sink: inout Sink, depth: Int) {
            sink.write(UInt8(ascii: "\n"))
            var i = 0
            while i < depth {
                sink.write(UInt8(ascii: " "))
                sink.write(UInt8(ascii: " "))
                i += 1
            }
        }

        var value = root
        while true {
            // Write `value`; containers with contents push a frame instead of finishing.
            switch value {
            case .null:
                writeStatic("null", to: &sink)
            case .bool(let flag):
                writeStatic(flag ? "true" : "false", to: &sink)
            case .number(let number):
                number.withUTF8 { sink.write(UnsafeRawBufferPointer($0)) }
            case .string(let string):
                JSONEscaping.writeQuoted(string, to: &sink)
            case .array(let elements):
                if elements.isEmpty {
                    writeStatic("[]", to: &sink)
                } else {
                    sink.write(UInt8(ascii: "["))
                    stack.append(.array(elements.elements, next: 0))
                }
            case .object(let object):
                if object.isEmpty {
                    writeStatic("{}", to: &sink)
                } else {
                    sink.write(UInt8(ascii: "{"))
                    var members = object.members
                    if sorted {
                        members.sort { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
                    }
                    stack.append(.object(members, next: 0))
                }
            }

            // Find the next value to write, closing finished containers.
            var found = false
            while let top = stack.last {
                let depth = stack.count
                switch top {
                case .array(let elements, let next):
                    if next < elements.count {
                        if next > 0 { sink.write(UInt8(ascii: ",")) }
                        if pretty { newline(&sink, depth: depth) }
                        stack[stack.count - 1] = .array(elements, next: next + 1)
                        value = elements[next]
                        found = true
                    } else {
                        stack.removeLast()
                        if pretty { newline(&sink, depth: depth - 1) }
                        sink.write(UInt8(ascii: "]"))
                    }
                case .object(let members, let next):
                    if next < members.count {
                        if next > 0 { sink.write(UInt8(ascii: ",")) }
                        if pretty { newline(&sink, depth: depth) }
                        JSONEscaping.writeQuoted(members[next].key, to: &sink)
                        sink.write(UInt8(ascii: ":"))
                        if pretty { sink.write(UInt8(ascii: " ")) }
                        stack[stack.count - 1] = .object(members, next: next + 1)
                        value = members[next].value
                        found = true
                    } else {
                        stack.removeLast()
                        if pretty { newline(&sink, depth: depth - 1) }
                        sink.write(UInt8(ascii: "}"))
                    }
                }
                if found { break }
            }
            if !found { return }
        }
    }

    private static func writeStatic<Sink: JSONByteSink>(_ text: StaticString, to sink: inout Sink) {
        sink.write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}
