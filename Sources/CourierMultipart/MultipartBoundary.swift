// MultipartBoundary: the delimiter string of a multipart body (RFC 2046 §5.1.1).
//
// Owns: the validated boundary bytes, AFNetworking's boundary format, and reading a boundary back
// out of a `Content-Type: multipart/form-data; boundary=...` value (for the parser's callers).
//
// Invariants: 1–70 bytes from RFC 2046 `bchars`, not ending in a space. The module is pure, so it
// never draws random numbers itself: the caller passes the random bits or a generator in.
//
//   boundary      := 0*69<bchars> bcharsnospace                 (RFC 2046 §5.1.1)
//   bchars        := bcharsnospace / " "
//   bcharsnospace := DIGIT / ALPHA / "'" / "(" / ")" / "+" / "_" / "," / "-" / "." / "/" / ":" /
//                    "=" / "?"

import CourierBytes

/// The boundary of a multipart body, validated against RFC 2046 §5.1.1.
public struct MultipartBoundary: Sendable, Hashable, CustomStringConvertible {
    /// The boundary text.
    public let value: String
    /// The boundary's bytes (ASCII).
    public let bytes: [UInt8]

    /// Creates a boundary in AFNetworking's format: `Boundary+` then 16 upper-case hex digits.
    ///
    /// AFNetworking formats two `arc4random()` values with `%08X%08X`; one 64-bit value printed
    /// as 16 digits is the same text for the same bits (high word first).
    /// - Parameter randomBits: 64 random bits from the caller's source of randomness.
    public init(randomBits: UInt64) {
        var bytes: [UInt8] = Array("Boundary+".utf8)
        bytes.reserveCapacity(25)
        let digits = ASCIIHex.upper
        var shift: UInt64 = 60
        while true {
            bytes.append(digits[Int((randomBits >> shift) & 0xF)])
            if shift == 0 { break }
            shift -= 4
        }
        self.bytes = bytes
        self.value = String(decoding: bytes, as: UTF8.self)
    }

    /// Creates an AFNetworking-format boundary from a random number generator.
    /// - Parameter generator: the source of randomness (for example `SystemRandomNumberGenerator`,
    ///   passed in by the I/O layer, or a seeded generator in tests).
    public init(using generator: inout some RandomNumberGenerator) {
        self.init(randomBits: generator.next())
    }

    /// Creates a boundary from text chosen by the caller.
    /// - Parameter value: 1–70 RFC 2046 `bchars`, not ending in a space.
    /// - Returns: nil when `value` is not a valid boundary.
    public init?(_ value: String) {
        let bytes = Array(value.utf8)
        guard MultipartBoundary.isValid(bytes) else { return nil }
        self.bytes = bytes
        self.value = value
    }

    /// Creates a boundary from bytes (for example a `boundary` parameter read off the wire).
    /// - Parameter bytes: 1–70 RFC 2046 `bchars`, not ending in a space.
    /// - Returns: nil when `bytes` is not a valid boundary.
    public init?(bytes: [UInt8]) {
        guard MultipartBoundary.isValid(bytes) else { return nil }
        self.bytes = bytes
        self.value = String(decoding: bytes, as: UTF8.self)
    }

    static func isValid(_ bytes: [UInt8]) -> Bool {
        // RFC 2046 §5.1.1: 1 to 70 characters, and the last is not a space.
        guard !bytes.isEmpty, bytes.count <= 70, bytes.last != 0x20 else { return false }
        return bytes.allSatisfy(isBoundaryCharacter)
    }

    static func isBoundaryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "a")...UInt8(ascii: "z"):
            return true
        case UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "+"), UInt8(ascii: "_"),
             UInt8(ascii: ","), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "="), UInt8(ascii: "?"), UInt8(ascii: " "):
            return true
        default:
            return false
        }
    }

    /// The request's `Content-Type` value: `multipart/form-data; boundary=B` (AFNetworking's exact
    /// text). The boundary is quoted only when it is not an RFC 9110 token (RFC 2046 §5.1.1 notes
    /// that some `bchars` need quoting).
    public var contentType: String {
        let needsQuotes = bytes.contains { !ByteClass.table[$0].contains(.token) }
        return needsQuotes ? "multipart/form-data; boundary=\"\(value)\"" : "multipart/form-data; boundary=\(value)"
    }

    /// Reads the boundary out of a `Content-Type` value such as `multipart/form-data; boundary=B`.
    ///
    /// The media type must be `multipart/form-data` (case-insensitive, RFC 9110 §8.3.1); parameters
    /// are `token=token` or `token="quoted"` separated by `;` with optional whitespace; the
    /// `boundary` parameter (case-insensitive name) must appear exactly once and be a valid boundary.
    /// - Parameter contentType: the header value.
    /// - Returns: the boundary, or nil when the value is not a form-data type with a valid boundary.
    public init?(contentType: String) {
        guard let bytes = ContentTypeScanner.formDataBoundary(Array(contentType.utf8)) else { return nil }
        self.init(bytes: bytes)
    }

    /// Whether `data` contains this boundary's delimiter (`--B` at its start, or `CRLF--B`
    /// anywhere), which would make a body holding `data` as a part ambiguous (RFC 2046 §5.1: "the
    /// boundary delimiter MUST NOT appear inside any of the encapsulated parts"). For fuzzing and
    /// for callers who choose their own boundary; the random default makes a collision a 2^-64
    /// event per position.
    /// - Parameter data: the bytes to search.
    /// - Returns: true when a delimiter occurs.
    public func occurs(in data: UnsafeRawBufferPointer) -> Bool {
        let dash = Array("--".utf8) + bytes
        if data.count >= dash.count && data.prefix(dash.count).elementsEqual(dash) { return true }
        let delimiter = Array("\r\n".utf8) + dash
        return DelimiterSearch.find(delimiter, in: data, from: 0).found != nil
    }

    /// The boundary text.
    public var description: String { value }
}

/// Upper-case hex digits, indexed by value.
enum ASCIIHex {
    static let upper: [UInt8] = Array("0123456789ABCDEF".utf8)
}

/// A small strict scanner for a `Content-Type` value (RFC 9110 §8.3 and §5.6.6 parameters).
enum ContentTypeScanner {
    static func formDataBoundary(_ input: [UInt8]) -> [UInt8]? {
        let table = ByteClass.table
        var i = 0
        func skipWhitespace() { while i < input.count, input[i] == 0x20 || input[i] == 0x09 { i += 1 } }
        func token() -> [UInt8]? {
            let start = i
            while i < input.count, table[input[i]].contains(.token) { i += 1 }
            return i > start ? Array(input[start..<i]) : nil
        }
        skipWhitespace()
        guard let type = token(), i < input.count, input[i] == UInt8(ascii: "/") else { return nil }
        i += 1
        guard let subtype = token() else { return nil }
        guard ASCIICase.lowercased(bytes: type) == Array("multipart".utf8),
              ASCIICase.lowercased(bytes: subtype) == Array("form-data".utf8) else { return nil }
        var boundary: [UInt8]?
        while true {
            skipWhitespace()
            if i == input.count { break }
            guard input[i] == UInt8(ascii: ";") else { return nil }
            i += 1
            skipWhitespace()
            guard let name = token(), i < input.count, input[i] == UInt8(ascii: "=") else { return nil }
            i += 1
            var value: [UInt8]
            if i < input.count, input[i] == UInt8(ascii: "\"") {
                // RFC 9110 §5.6.4 quoted-string, with quoted-pair.
                i += 1
                value = []
                var closed = false
                while i < input.count {
                    let byte = input[i]
                    if byte == UInt8(ascii: "\"") { closed = true; i += 1; break }
                    if byte == UInt8(ascii: "\\") {
                        i += 1
                        guard i < input.count else { return nil }
                    }
                    guard table[input[i]].contains(.fieldValue) else { return nil }
                    value.append(input[i])
                    i += 1
                }
                guard closed else { return nil }
            } else {
                guard let plain = token() else { return nil }
                value = plain
            }
            if ASCIICase.lowercased(bytes: name) == Array("boundary".utf8) {
                guard boundary == nil else { return nil }
                boundary = value
            }
        }
        return boundary
    }
}

/// ASCII lower-casing of bytes (other bytes unchanged).

