// ResponseSerializer: AFURLResponseSerialization and AFHTTPResponseSerializer's validation.
//
// Validation (-validateResponse:data:error:), in AFNetworking's order:
//   1. content type: when `acceptableContentTypes` is set and does not hold the response's media
//      type, the response is invalid; an error (-1016) is made only when the body is not empty.
//   2. status: when `acceptableStatusCodes` is set and does not hold the status, the response is
//      invalid and the error is -1011, wrapping the content-type error (if any) as underlying.
// Then each serializer (AFJSONResponseSerializer and the others):
//   - a content-type failure (at any depth of the error) stops: the error is thrown, nothing parsed;
//   - a status-only failure parses the body anyway; a parse error is thrown with the status error
//     underneath; otherwise the status error is thrown carrying the parsed value and the body;
//   - a content-type mismatch with an empty body is no error at all: the body is parsed (and an
//     empty body gives the serializer's empty result).

import CourierBytes

/// Turns a response into a value (AFNetworking's `AFURLResponseSerialization`).
public protocol ResponseSerializer: Sendable {
    /// What the serializer produces.
    associatedtype Value: Sendable

    /// Acceptable status codes; nil accepts any. Default 200–299.
    var acceptableStatusCodes: Set<Int>? { get set }
    /// Acceptable media types (lower case `type/subtype`); nil accepts any.
    var acceptableContentTypes: Set<String>? { get set }

    /// Parses a body that validation let through (no validation here).
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError` for a body this serializer cannot read.
    func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value
}

/// AFNetworking's default acceptable status codes: 200–299.
public let defaultAcceptableStatusCodes: Set<Int> = Set(200...299)

extension ResponseSerializer {
    /// AFNetworking's `-validateResponse:data:error:`.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: whether the response is valid, and the error to report (nil for a content-type
    ///   mismatch on an empty body, which is invalid but not an error).
    public func validate(head: HTTPResponseHead, body: ByteBuffer) -> (isValid: Bool, error: ResponseSerializationError?) {
        var isValid = true
        var error: ResponseSerializationError?
        if let types = acceptableContentTypes, !(head.mimeType.map(types.contains) ?? false) {
            if !body.isEmpty {
                error = ResponseSerializationError(.unacceptableContentType, head: head, body: body)
            }
            isValid = false
        }
        if let codes = acceptableStatusCodes, !codes.contains(head.status) {
            error = ResponseSerializationError(.unacceptableStatusCode, head: head, body: body, underlying: error)
            isValid = false
        }
        return (isValid, error)
    }

    /// Validates, then parses, with AFNetworking's rules (see the top of this file).
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value.
    /// - Throws: `ResponseSerializationError`: -1016 / -1011 from validation (a status-only
    ///   failure carries the parsed `value`), or the parser's error.
    public func serialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> Value {
        let validation = validate(head: head, body: body)
        guard let failure = validation.error else { return try parse(head: head, body: body) }
        if failure.hasCode(.unacceptableContentType) { throw failure }
        let value: Value
        do { value = try parse(head: head, body: body) } catch {
            var parseError = error
            parseError.underlying = failure
            throw parseError
        }
        var statusError = failure
        // A serializer's "no value" (JSON's empty body) is kept as no value, not a boxed nil.
        if let optional = value as? any OptionalProtocol, optional.isNone { statusError.value = nil } else { statusError.value = value }
        throw statusError
    }
}

/// AFHTTPResponseSerializer: the body bytes as they are (any content type).
public struct DataResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default nil: any).
    public var acceptableContentTypes: Set<String>? = nil

    /// Creates a serializer.
    public init() {}

    /// Returns the body.
    /// - Parameters:
    ///   - head: ignored.
    ///   - body: the body.
    /// - Returns: the body.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> ByteBuffer { body }
}

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
        switch RequestDefaults.uppercasedASCII(name) {
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
