// PropertyListXMLWriter: a Foundation-free writer of XML property lists (Apple's DTD
// "-//Apple//DTD PLIST 1.0//EN"), in the layout NSPropertyListSerialization uses: an XML
// declaration, the DOCTYPE line, <plist version="1.0">, one element per line, nested elements
// indented by one tab.
//
// Element forms: <string>, <integer> (decimal), <real> (Swift's shortest round-trip digits;
// `nan`, `+infinity`, `-infinity` for the non-finite values, as CoreFoundation writes them),
// <true/>, <false/>, <date> (ISO 8601 UTC, `Z`, fraction only when non-zero), <data> (Base64 on
// one line — Apple wraps at 68 columns; readers accept both), <array>, <dict> (entries in order).
// Text is escaped: & < > as entities. XML 1.0 §2.2 cannot carry control characters other than
// TAB, LF and CR, so a string holding one is refused; so are `.null` and `.uid`, which have no
// XML form.
//
// The writer is iterative: an explicit stack, so any depth writes without recursion.

import CourierBytes
import CourierJSON

/// Writes `PropertyListValue`s as XML property lists.
public enum PropertyListXMLWriter {
    /// Why a value cannot be written.
    public struct Failure: Error, Hashable, Sendable {
        /// What is wrong, e.g. "null has no XML form".
        public var reason: String
    }

    /// Writes a complete XML property list document.
    /// - Parameter value: the root value.
    /// - Returns: the UTF-8 document, ending with a newline.
    /// - Throws: `Failure` for `.null`, `.uid`, a control character in a string or key, or a
    ///   date outside years 0000–9999.
    public static func write(_ value: PropertyListValue) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        append(&out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        append(&out, "<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n")
        append(&out, "<plist version=\"1.0\">\n")

        enum Work {
            case value(PropertyListValue, depth: Int)
            case key(String, depth: Int)
            case close(String, depth: Int)
        }
        var stack: [Work] = [.value(value, depth: 0)]
        while let work = stack.popLast() {
            switch work {
            case .key(let key, let depth):
                try element(&out, "key", text: key, depth: depth)
            case .close(let name, let depth):
                indent(&out, depth); append(&out, "</\(name)>\n")
            case .value(let value, let depth):
                switch value {
                case .string(let text): try element(&out, "string", text: text, depth: depth)
                case .integer(let number): try element(&out, "integer", text: String(number), depth: depth)
                case .real(let number): try element(&out, "real", text: realText(number), depth: depth)
                case .bool(let flag): indent(&out, depth); append(&out, flag ? "<true/>\n" : "<false/>\n")
                case .date(let timestamp):
                    guard let text = timestamp.iso8601String() else { throw Failure(reason: "date outside years 0000-9999") }
                    try element(&out, "date", text: text, depth: depth)
                case .data(let bytes): try element(&out, "data", text: Base64.encode(bytes), depth: depth)
                case .array(let values):
                    indent(&out, depth)
                    if values.isEmpty { append(&out, "<array/>\n"); continue }
                    append(&out, "<array>\n")
                    stack.append(.close("array", depth: depth))
                    for element in values.reversed() { stack.append(.value(element, depth: depth + 1)) }
                case .dictionary(let entries):
                    indent(&out, depth)
                    if entries.isEmpty { append(&out, "<dict/>\n"); continue }
                    append(&out, "<dict>\n")
                    stack.append(.close("dict", depth: depth))
                    for entry in entries.reversed() {
                        stack.append(.value(entry.value, depth: depth + 1))
                        stack.append(.key(entry.key, depth: depth + 1))
                    }
                case .null: throw Failure(reason: "null has no XML property-list form")
                case .uid: throw Failure(reason: "UID has no XML property-list form")
                }
            }
        }
        append(&out, "</plist>\n")
        return out
    }

    /// The text of a real: shortest round-trip digits; `nan`, `+infinity`, `-infinity`.
    static func realText(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-infinity" : "+infinity" }
        if value == 0 && value.sign == .minus { return "-0" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func element(_ out: inout [UInt8], _ name: String, text: String, depth: Int) throws(Failure) {
        indent(&out, depth)
        append(&out, "<\(name)>")
        try escape(&out, text)
        append(&out, "</\(name)>\n")
    }

    private static func escape(_ out: inout [UInt8], _ text: String) throws(Failure) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "&"): append(&out, "&amp;")
            case UInt8(ascii: "<"): append(&out, "&lt;")
            case UInt8(ascii: ">"): append(&out, "&gt;")
            case 0x09, 0x0A, 0x0D: out.append(byte)
            case 0..<0x20: throw Failure(reason: "control character 0x\(String(byte, radix: 16)) cannot be written in XML 1.0")
            default: out.append(byte)
            }
        }
    }

    private static func indent(_ out: inout [UInt8], _ depth: Int) {
        for _ in 0..<depth { out.append(0x09) }
    }

    private static func append(_ out: inout [UInt8], _ text: String) { out.append(contentsOf: text.utf8) }
}
