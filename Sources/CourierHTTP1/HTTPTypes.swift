// Value types shared by the HTTP/1.1 encoders and parsers: version, method, owned header fields.
// Parsed messages do not use `HTTPHeaders` (they hand out zero-copy slices of the receive buffer);
// `HTTPHeaders` is what a caller builds a request or response from.

import CourierBytes

/// An HTTP version as it appears on the wire: `HTTP/major.minor` (RFC 9112 §2.3).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public var major: UInt8
    /// The minor version digit.
    public var minor: UInt8

    /// Creates a version.
    public init(major: UInt8, minor: UInt8) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// `HTTP/1.1` and the like.
    public var description: String { "HTTP/\(major).\(minor)" }
}

/// A request method: an RFC 9110 §9 `token`, case-sensitive.
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method name exactly as it is sent.
    public let rawValue: String

    /// Creates a method after checking that `rawValue` is a non-empty token.
    /// - Parameter rawValue: the method name, sent as typed.
    /// - Throws: `HTTPMethod.InvalidToken` when it is empty or holds a byte outside `tchar`.
    public init(_ rawValue: String) throws(HTTPMethod.InvalidToken) {
        let table = ByteClass.table
        var offset = 0
        for byte in rawValue.utf8 {
            guard table[byte].contains(.token) else { throw InvalidToken(offset: offset) }
            offset += 1
        }
        guard offset > 0 else { throw InvalidToken(offset: 0) }
        self.rawValue = rawValue
    }

    private init(known: String) { rawValue = known }

    /// Why a string is not a method token.
    public struct InvalidToken: Error, Hashable, Sendable {
        /// The byte offset of the first byte that is not a `tchar` (0 for an empty string).
        public var offset: Int
    }

    /// GET.
    public static let get = HTTPMethod(known: "GET")
    /// HEAD.
    public static let head = HTTPMethod(known: "HEAD")
    /// POST.
    public static let post = HTTPMethod(known: "POST")
    /// PUT.
    public static let put = HTTPMethod(known: "PUT")
    /// PATCH.
    public static let patch = HTTPMethod(known: "PATCH")
    /// DELETE.
    public static let delete = HTTPMethod(known: "DELETE")
    /// OPTIONS.
    public static let options = HTTPMethod(known: "OPTIONS")
    /// TRACE.
    public static let trace = HTTPMethod(known: "TRACE")
    /// CONNECT.
    public static let connect = HTTPMethod(known: "CONNECT")

    /// The name as sent.
    public var description: String { rawValue }
}

/// An ordered list of header fields that a caller builds, with case-insensitive lookup
/// (RFC 9110 §5.1). Order and duplicates are kept as given. Nothing is validated here: the
/// encoders validate every name and value before producing a byte.
public struct HTTPHeaders: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The fields in order, as (name, value).
    public private(set) var fields: [(name: String, value: String)]

    /// Creates an empty list.
    public init() { fields = [] }

    /// Creates a list from (name, value) pairs, in order.
    public init(_ fields: [(String, String)]) { self.fields = fields.map { (name: $0.0, value: $0.1) } }

    /// Creates a list from a literal, in order.
    public init(dictionaryLiteral elements: (String, String)...) { self.init(elements) }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Appends a field, keeping any field of the same name.
    public mutating func add(name: String, value: String) { fields.append((name: name, value: value)) }

    /// Replaces every field named `name` (any case) with one field at the place of the first.
    public mutating func replaceOrAdd(name: String, value: String) {
        if let first = fields.firstIndex(where: { HTTPHeaders.namesEqual($0.name, name) }) {
            fields[first] = (name: name, value: value)
            var i = fields.count - 1
            while i > first {
                if HTTPHeaders.namesEqual(fields[i].name, name) { fields.remove(at: i) }
                i -= 1
            }
        } else {
            add(name: name, value: value)
        }
    }

    /// Removes every field named `name` (any case).
    public mutating func remove(name: String) { fields.removeAll { HTTPHeaders.namesEqual($0.name, name) } }

    /// The values of every field named `name` (any case), in order.
    public subscript(name: String) -> [String] {
        fields.filter { HTTPHeaders.namesEqual($0.name, name) }.map(\.value)
    }

    /// The value of the first field named `name` (any case).
    public func first(name: String) -> String? {
        fields.first { HTTPHeaders.namesEqual($0.name, name) }?.value
    }

    /// Whether a field named `name` (any case) is present.
    public func contains(name: String) -> Bool { fields.contains { HTTPHeaders.namesEqual($0.name, name) } }

    /// Iterates the fields in order.
    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { fields.makeIterator() }

    /// ASCII case-insensitive comparison of field names.
    public static func namesEqual(_ a: String, _ b: String) -> Bool {
        ASCIICase.equal(a.utf8, b.utf8)
    }

    /// Lists are equal when they hold the same fields in the same order (names compared exactly).
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count && zip(lhs.fields, rhs.fields).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Hashes the fields in order.
    public func hash(into hasher: inout Hasher) {
        for field in fields { hasher.combine(field.name); hasher.combine(field.value) }
    }
}
