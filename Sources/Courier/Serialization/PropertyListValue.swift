// PropertyListValue: the value tree of an Apple property list (XML or binary), without
// Foundation. Dictionaries keep their entries in the order read or given; lookups take the last
// entry of a name (binary plists may repeat keys; CoreFoundation keeps the last).

import CourierJSON

/// A property-list value.
public enum PropertyListValue: Sendable, Equatable, CustomStringConvertible {
    /// `<string>`, or a binary ASCII / UTF-16 string.
    case string(String)
    /// `<integer>`: binary plists hold up to 64-bit signed values (8-byte ints are signed; a
    /// 16-byte int is accepted when it fits).
    case integer(Int64)
    /// `<real>`.
    case real(Double)
    /// `<true/>` / `<false/>`.
    case bool(Bool)
    /// `<date>`: a point in time (binary plists count seconds from 2001-01-01T00:00:00Z).
    case date(Timestamp)
    /// `<data>`: raw bytes (Base64 in XML).
    case data([UInt8])
    /// `<array>` (a binary set is read as an array).
    case array([PropertyListValue])
    /// `<dict>`: entries in order.
    case dictionary([(key: String, value: PropertyListValue)])
    /// A binary plist UID (keyed archives); has no XML form.
    case uid(UInt64)
    /// The binary null object (marker 0x00); has no XML form.
    case null

    /// The value of the last entry named `key` of a dictionary, else nil.
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries.last { $0.key == key }?.value
    }

    /// Structural equality; dictionary entries compared in order. Reals compare with `==`.
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a == b
        case let (.integer(a), .integer(b)): return a == b
        case let (.real(a), .real(b)): return a == b || (a.isNaN && b.isNaN)
        case let (.bool(a), .bool(b)): return a == b
        case let (.date(a), .date(b)): return a == b
        case let (.data(a), .data(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.dictionary(a), .dictionary(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        case let (.uid(a), .uid(b)): return a == b
        case (.null, .null): return true
        default: return false
        }
    }

    /// A short debugging rendering (not API).
    public var description: String {
        switch self {
        case .string(let value): return "\"\(value)\""
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .bool(let value): return String(value)
        case .date(let value): return value.iso8601String() ?? value.description
        case .data(let bytes): return "<\(bytes.count) bytes>"
        case .array(let values): return "[" + values.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let entries): return "{" + entries.map { "\"\($0.key)\": \($0.value)" }.joined(separator: ", ") + "}"
        case .uid(let value): return "UID(\(value))"
        case .null: return "null"
        }
    }
}
