// StringResponseSerializer and TextCharset: the body as text. The charset comes from the
// Content-Type `charset` parameter (default UTF-8); UTF-8 (RFC 3629 §4, strict: overlong forms,
// surrogates and code points above U+10FFFF refused), US-ASCII and ISO-8859-1 are decoded by hand.
// Any other charset is `.unknownCharset`; a byte that is not valid in the charset is `.invalidText`
// with its offset.

import CourierBytes

/// The body as text, decoded with the Content-Type charset (default UTF-8).
public struct StringResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default nil: any).
    public var acceptableContentTypes: Set<String>? = nil
    /// The charset used when Content-Type names none (default `utf-8`).
    public var defaultCharset: String = "utf-8"

    /// Creates a serializer.
    public init() {}

    /// Decodes the body.
    /// - Parameters:
    ///   - head: supplies the charset.
    ///   - body: the body.
    /// - Returns: the text.
    /// - Throws: `.unknownCharset`, or `.invalidText` with the offset of the first bad byte.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> String {
        let name = head.charset ?? defaultCharset
        guard let charset = TextCharset(name: name) else {
            throw ResponseSerializationError(.unknownCharset, head: head, body: body)
        }
        do { return try body.withUnsafeReadableBytes { bytes throws(TextCharset.DecodingFailure) in try charset.decode(bytes) } } catch {
            throw ResponseSerializationError(.invalidText, head: head, body: body, offset: error.offset)
        }
    }
}

/// The charsets Courier decodes by hand.
public enum TextCharset: Sendable, Hashable {
    /// UTF-8 (RFC 3629), strictly validated.
    case utf8
    /// US-ASCII: bytes 0x00–0x7F only.
    case usASCII
    /// ISO-8859-1 (Latin-1): each byte is the code point of the same value.
    case isoLatin1

    /// Where a byte is not valid in the charset.
    public struct DecodingFailure: Error, Hashable, Sendable {
        /// The offset of the first bad byte.
        public var offset: Int
    }

    /// The charset for an IANA name or alias (case-insensitive): utf-8 / utf8; us-ascii / ascii;
    /// iso-8859-1 / iso_8859-1 / latin1 / l1 / iso-latin-1.
    /// - Parameter name: the name.
    public init?(name: String) {
        switch ASCIICase.uppercased(name) {
        case "UTF-8", "UTF8": self = .utf8
        case "US-ASCII", "ASCII", "US", "ANSI_X3.4-1968", "ISO646-US": self = .usASCII
        case "ISO-8859-1", "ISO_8859-1", "ISO8859-1", "LATIN1", "L1", "ISO-LATIN-1", "CP819", "IBM819": self = .isoLatin1
        default: return nil
        }
    }

    /// Decodes bytes.
    /// - Parameter bytes: the input.
    /// - Returns: the text.
    /// - Throws: `DecodingFailure` at the first bad byte (ill-formed UTF-8, a byte ≥ 0x80 in ASCII).
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(DecodingFailure) -> String {
        switch self {
        case .utf8:
            if let bad = UTF8Check.firstInvalidOffset(bytes) { throw DecodingFailure(offset: bad) }
            return String(decoding: bytes, as: UTF8.self)
        case .usASCII:
            for (offset, byte) in bytes.enumerated() where byte >= 0x80 { throw DecodingFailure(offset: offset) }
            return String(decoding: bytes, as: UTF8.self)
        case .isoLatin1:
            var scalars = String.UnicodeScalarView()
            for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        }
    }
}

/// RFC 3629 §4 validation with the offset of the first ill-formed sequence.
enum UTF8Check {
    static func firstInvalidOffset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 { index += 1; continue }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return index
            }
            guard index + length <= count else { return index }
            let second = bytes[index + 1]
            guard second >= low && second <= high else { return index }
            for k in 2..<length where bytes[index + k] & 0xC0 != 0x80 { return index }
            index += length
        }
        return nil
    }
}
