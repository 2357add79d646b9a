// QueryValue: the parameter tree AFNetworking's request serializer turns into a query string.
//
// It mirrors what `AFQueryStringFromParameters` accepts from Foundation: NSString, NSNumber
// (integer, floating point, boolean), NSNull, NSArray, NSSet and NSDictionary. A dictionary is an
// ordered list of pairs so tests and callers can build it from literals; the order given does not
// matter to the output, which sorts keys (see QueryString.swift).

import CourierBytes

/// A parameter value for `QueryString.build`: a scalar, or a container of more values.
public enum QueryValue: Sendable, Hashable {
    /// Text, written percent-encoded.
    case string(String)
    /// An integer, written in decimal (NSNumber's description of an integer).
    case int(Int64)
    /// A floating-point number, written as described in `QueryString` (NSNumber's `%0.16g`
    /// layout with shortest round-trip digits).
    case double(Double)
    /// A Boolean, written `1` or `0` (NSNumber's description of a BOOL).
    case bool(Bool)
    /// NSNull: the key is written with no "=" and no value.
    case null
    /// An array: each element under `key[]`, in order.
    case array([QueryValue])
    /// A set: each member under the same key with no brackets, members sorted by their
    /// description; equal members are written once.
    case set([QueryValue])
    /// A dictionary: each value under `key[name]` (or `name` at the top level), names sorted.
    case dictionary([(String, QueryValue)])
    /// Raw bytes (AFNetworking's NSData value): a multipart form field with exactly these bytes;
    /// in a query string or form body, the bytes percent-encoded one by one (AFNetworking would
    /// write NSData's description, `<68656c6c 6f>`, which no server means to receive).
    case bytes(ByteBuffer)

    /// Structural equality; dictionary pairs are compared in the order given.
    public static func == (lhs: QueryValue, rhs: QueryValue) -> Bool {
        switch (lhs, rhs) {
        case let (.string(a), .string(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.bool(a), .bool(b)): return a == b
        case (.null, .null): return true
        case let (.array(a), .array(b)): return a == b
        case let (.set(a), .set(b)): return a == b
        case let (.dictionary(a), .dictionary(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        case let (.bytes(a), .bytes(b)): return a == b
        default: return false
        }
    }

    /// Hashes the structure, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .string(let value): hasher.combine(0); hasher.combine(value)
        case .int(let value): hasher.combine(1); hasher.combine(value)
        case .double(let value): hasher.combine(2); hasher.combine(value)
        case .bool(let value): hasher.combine(3); hasher.combine(value)
        case .null: hasher.combine(4)
        case .array(let values): hasher.combine(5); hasher.combine(values)
        case .set(let values): hasher.combine(6); hasher.combine(values)
        case .dictionary(let pairs):
            hasher.combine(7)
            hasher.combine(pairs.count)
            for (key, value) in pairs {
                hasher.combine(key)
                hasher.combine(value)
            }
        case .bytes(let bytes):
            hasher.combine(8)
            hasher.combine(bytes)
        }
    }
}

extension QueryValue: ExpressibleByStringLiteral {
    /// A `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension QueryValue: ExpressibleByIntegerLiteral {
    /// An `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
}

extension QueryValue: ExpressibleByFloatLiteral {
    /// A `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension QueryValue: ExpressibleByBooleanLiteral {
    /// A `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension QueryValue: ExpressibleByNilLiteral {
    /// `.null`.
    public init(nilLiteral: ()) { self = .null }
}

extension QueryValue: ExpressibleByArrayLiteral {
    /// An `.array`.
    public init(arrayLiteral elements: QueryValue...) { self = .array(elements) }
}

extension QueryValue: ExpressibleByDictionaryLiteral {
    /// A `.dictionary` with the pairs in the order written.
    public init(dictionaryLiteral elements: (String, QueryValue)...) { self = .dictionary(elements) }
}

extension QueryValue: CustomStringConvertible {
    /// The text this value sorts by inside a set, as Foundation's `description` would give it for
    /// scalars: the string itself, decimal integers, `1`/`0`, `<null>`, numbers as
    /// `QueryString.describe(_:)`. Containers use a Courier rendering close to Foundation's
    /// (`(a, b)`, `{(a, b)}`, `{k = v; }`) — it only decides the order of containers inside a set.
    public var description: String {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        case .double(let value): return QueryString.describe(value)
        case .bool(let value): return value ? "1" : "0"
        case .null: return "<null>"
        case .array(let values): return "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .set(let values): return "{(" + values.map(\.description).joined(separator: ", ") + ")}"
        case .dictionary(let pairs):
            return "{" + pairs.map { "\($0.0) = \($0.1.description); " }.joined() + "}"
        case .bytes(let bytes):
            // NSData's classic description: lower-case hex in angle brackets.
            let digits: [UInt8] = Array("0123456789abcdef".utf8)
            var text: [UInt8] = [UInt8(ascii: "<")]
            for byte in bytes.readableBytesArray {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0xF)])
            }
            text.append(UInt8(ascii: ">"))
            return String(decoding: text, as: UTF8.self)
        }
    }
}

extension QueryValue {
    /// A `.bytes` value holding a copy of `bytes` (AFNetworking's NSData parameter).
    /// - Parameter bytes: the bytes.
    public init(bytes: [UInt8]) { self = .bytes(ByteBuffer(bytes: bytes)) }
}
