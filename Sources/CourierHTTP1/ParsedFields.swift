// ParsedFields: a zero-copy view of the field lines of a parsed head or trailer section.
//
// Owns nothing but a slice of the receive buffer (sharing its storage) and the index pairs the
// scanner recorded. Names and values are handed out as `ByteBuffer` slices; a `String` is made
// only when a caller asks for one. Lookup is ASCII case-insensitive (RFC 9110 §5.1) and
// allocation-free.
//
// Invariants: every range lies inside `bytes` (the scanner only records ranges of the block it
// validated); names are non-empty tokens; values have no leading or trailing SP/HTAB and only
// `field-value` bytes — except that, when `hasFoldedValues`, a value range may span obs-folds
// (OWS, CR? LF, RWS; RFC 9112 §5.2), and every way of reading a value (subscript, lookups, list
// tokens) replaces each fold by one SP. Only such a value is copied; `bytes` stays as received.

import CourierBytes

/// Where one field line's name and value lie, as offsets from the start of the block.
struct FieldRange: Sendable, Hashable {
    var nameStart: UInt32
    var nameEnd: UInt32
    var valueStart: UInt32
    var valueEnd: UInt32

    @inline(__always) var nameLength: Int { Int(nameEnd &- nameStart) }
    @inline(__always) var valueLength: Int { Int(valueEnd &- valueStart) }
}

/// One field line of a parsed message: name and value as slices of the received bytes.
public struct ParsedField: Sendable, Hashable, CustomStringConvertible {
    /// The field name exactly as received (a token; compare it case-insensitively).
    public var name: ByteBuffer
    /// The field value with surrounding whitespace removed.
    public var value: ByteBuffer

    /// `name: value` (a copy, for diagnostics).
    public var description: String { "\(name.readableString): \(value.readableString)" }
}

/// The field lines of a parsed head or trailer section, in order, as zero-copy slices.
///
/// Holding a `ParsedFields` keeps the received bytes it refers to alive (the storage is shared, so
/// the connection's later reads never change them).
public struct ParsedFields: Sendable, RandomAccessCollection, CustomStringConvertible {
    /// The bytes of the whole block the ranges point into (index 0 = first byte of the block).
    public let bytes: ByteBuffer
    let ranges: [FieldRange]
    /// Whether some value range spans an obs-fold (a lenient parse of a response).
    let hasFoldedValues: Bool

    init(bytes: ByteBuffer, ranges: [FieldRange], hasFoldedValues: Bool = false) {
        self.bytes = bytes
        self.ranges = ranges
        self.hasFoldedValues = hasFoldedValues
    }

    /// An empty list (for example, the trailers of a message that had none).
    public init() {
        bytes = ParsedFields.emptyBytes
        ranges = []
        hasFoldedValues = false
    }

    // One shared empty buffer, so an empty trailer list costs no allocation.
    private static let emptyBytes = ByteBuffer()

    /// The position of the first field.
    public var startIndex: Int { 0 }
    /// One past the position of the last field.
    public var endIndex: Int { ranges.count }

    /// The field at `position`.
    /// - Parameter position: an index in `0..<count`.
    public subscript(position: Int) -> ParsedField {
        let range = ranges[position]
        return ParsedField(name: bytes.getSlice(at: Int(range.nameStart), length: range.nameLength)!,
                           value: value(of: range))
    }

    /// The value of `range`: a slice of the received bytes, or — for a value spanning obs-folds —
    /// a copy with each fold replaced by one SP.
    func value(of range: FieldRange) -> ByteBuffer {
        let slice = bytes.getSlice(at: Int(range.valueStart), length: range.valueLength)!
        guard hasFoldedValues else { return slice }
        return slice.withUnsafeReadableBytes { raw in
            ParsedFields.unfolded(raw).map { ByteBuffer(bytes: $0) } ?? slice
        }
    }

    /// RFC 9112 §5.2: `raw` with every run of SP / HTAB / CR / LF that holds an LF (an obs-fold
    /// and the whitespace around it) replaced by one SP; nil when `raw` holds no fold. (A value
    /// holds CR or LF only inside a fold: anywhere else they are parse errors.)
    static func unfolded(_ raw: UnsafeRawBufferPointer) -> [UInt8]? {
        guard raw.contains(0x0A) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        while i < raw.count {
            let byte = raw[i]
            if byte == 0x0A || byte == 0x0D {
                while let last = out.last, ASCII.isWhitespace(last) { out.removeLast() }
                while i < raw.count && (ASCII.isWhitespace(raw[i]) || raw[i] == 0x0A || raw[i] == 0x0D) { i += 1 }
                out.append(0x20)
                continue
            }
            out.append(byte)
            i += 1
        }
        return out
    }

    /// Calls `body` with the value bytes of `range`, unfolded when needed.
    @inline(__always)
    func withValueBytes<R, E: Error>(_ range: FieldRange, _ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try bytes.withUnsafeReadableBytes { (raw) throws(E) -> R in
            let value = UnsafeRawBufferPointer(start: raw.baseAddress! + Int(range.valueStart), count: range.valueLength)
            if hasFoldedValues, let unfolded = ParsedFields.unfolded(value) {
                return try ByteBuffer(bytes: unfolded).withUnsafeReadableBytes { (copy) throws(E) -> R in try body(copy) }
            }
            return try body(value)
        }
    }

    /// Whether the field at `position` is named `name`, compared ASCII case-insensitively.
    /// - Parameters:
    ///   - position: an index in `0..<count`.
    ///   - name: the name to compare with.
    /// - Returns: true when the names are equal ignoring ASCII case.
    public func name(at position: Int, equals name: String) -> Bool {
        var name = name
        return name.withUTF8 { needle in matches(ranges[position], UnsafeRawBufferPointer(needle)) }
    }

    /// The value of the first field named `name` (any case), as a slice; no allocation.
    /// - Parameter name: the field name.
    /// - Returns: the value, or nil when no such field exists.
    public func first(_ name: String) -> ByteBuffer? {
        var name = name
        let index = name.withUTF8 { needle in firstIndex(UnsafeRawBufferPointer(needle)) }
        return index.map { self[$0].value }
    }

    /// The value of the first field named `name` (any case), decoded as UTF-8 (a copy).
    /// - Parameter name: the field name.
    /// - Returns: the value, or nil when no such field exists.
    public func firstString(_ name: String) -> String? { first(name)?.readableString }

    /// Whether a field named `name` (any case) is present; no allocation.
    /// - Parameter name: the field name.
    /// - Returns: true when at least one field has that name.
    public func contains(_ name: String) -> Bool {
        var name = name
        return name.withUTF8 { needle in firstIndex(UnsafeRawBufferPointer(needle)) != nil }
    }

    /// The values of every field named `name` (any case), in order (allocates the array).
    /// - Parameter name: the field name.
    /// - Returns: the values as slices.
    public func values(_ name: String) -> [ByteBuffer] {
        var name = name
        return name.withUTF8 { needle -> [ByteBuffer] in
            let raw = UnsafeRawBufferPointer(needle)
            var result: [ByteBuffer] = []
            for position in ranges.indices where matches(ranges[position], raw) { result.append(self[position].value) }
            return result
        }
    }

    /// Whether any field named `name` (any case) lists `token` (any case) as an element of its
    /// comma-separated value (RFC 9110 §5.6.1), e.g. `Connection: keep-alive, close`; no allocation.
    /// - Parameters:
    ///   - token: the list element to look for.
    ///   - name: the field name.
    /// - Returns: true when some element equals `token` ignoring ASCII case.
    public func containsToken(_ token: String, inField name: String) -> Bool {
        var token = token
        var name = name
        return name.withUTF8 { n in
            token.withUTF8 { t in containsToken(UnsafeRawBufferPointer(t), inField: UnsafeRawBufferPointer(n)) }
        }
    }

    /// The fields as an owned `HTTPHeaders` (copies every name and value into strings).
    public var headers: HTTPHeaders {
        HTTPHeaders(map { ($0.name.readableString, $0.value.readableString) })
    }

    /// `[name: value, ...]` (copies, for diagnostics).
    public var description: String { "[" + map(\.description).joined(separator: ", ") + "]" }

    // MARK: Internal, allocation-free helpers (names given as raw ASCII)

    func matches(_ range: FieldRange, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard range.nameLength == needle.count else { return false }
        return bytes.withUnsafeReadableBytes { raw in
            ASCII.equalsIgnoringCase(raw.baseAddress! + Int(range.nameStart), needle.baseAddress!, needle.count)
        }
    }

    func firstIndex(_ needle: UnsafeRawBufferPointer) -> Int? {
        for position in ranges.indices where matches(ranges[position], needle) { return position }
        return nil
    }

    func containsToken(_ token: UnsafeRawBufferPointer, inField name: UnsafeRawBufferPointer) -> Bool {
        for range in ranges where matches(range, name) {
            let found = withValueBytes(range) { value in
                ASCII.listContains(value.baseAddress ?? token.baseAddress!, count: value.count, token: token)
            }
            if found { return true }
        }
        return false
    }

    /// Calls `body` with each value (as raw bytes) of the fields named `name`, in order.
    func forEachValue<E: Error>(
        named name: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer, _ offset: Int) throws(E) -> Void
    ) throws(E) {
        for range in ranges where matches(range, name) {
            try withValueBytes(range) { (value) throws(E) in try body(value, Int(range.valueStart)) }
        }
    }
}

/// Small ASCII helpers shared by the parsers. No allocation, no libc.
enum ASCII {
    /// Whether `count` bytes at `a` and `b` are equal ignoring ASCII case.
    @inline(__always)
    static func equalsIgnoringCase(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        var i = 0
        while i < count {
            // SAFETY: i < count, and both regions hold `count` bytes (checked by the callers).
            let x = a.load(fromByteOffset: i, as: UInt8.self)
            let y = b.load(fromByteOffset: i, as: UInt8.self)
            if x != y && ASCIICase.lowercased(x) != ASCIICase.lowercased(y) { return false }
            i += 1
        }
        return true
    }

    /// Calls `body` with the start and end offsets of each element of a comma-separated list
    /// (RFC 9110 §5.6.1), whitespace around elements removed. Empty elements are reported too
    /// (as start == end) so that callers can decide whether they are acceptable.
    @inline(__always)
    static func forEachListElement<E: Error>(
        _ p: UnsafeRawPointer, count: Int,
        _ body: (_ start: Int, _ end: Int) throws(E) -> Bool
    ) throws(E) {
        var i = 0
        while true {
            var start = i
            while start < count && isWhitespace(p.load(fromByteOffset: start, as: UInt8.self)) { start += 1 }
            var end = start
            while end < count && p.load(fromByteOffset: end, as: UInt8.self) != UInt8(ascii: ",") { end += 1 }
            let next = end + 1
            while end > start && isWhitespace(p.load(fromByteOffset: end - 1, as: UInt8.self)) { end -= 1 }
            guard try body(start, end) else { return }
            if next > count { return }
            i = next
        }
    }

    /// Whether the comma-separated list at `p` has an element equal to `token` ignoring case.
    static func listContains(_ p: UnsafeRawPointer, count: Int, token: UnsafeRawBufferPointer) -> Bool {
        var found = false
        forEachListElement(p, count: count) { start, end in
            if end - start == token.count && equalsIgnoringCase(p + start, token.baseAddress!, token.count) {
                found = true
                return false
            }
            return true
        }
        return found
    }

    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}

extension StaticString {
    /// The bytes of an ASCII literal, for allocation-free comparisons.
    @inline(__always)
    var rawBytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: utf8Start, count: utf8CodeUnitCount) }
}
