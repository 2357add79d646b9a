// FormURLEncoded: parsing of `application/x-www-form-urlencoded` bodies and queries.
//
// The format (WHATWG URL Standard §5.1, HTML forms): the input is split on "&"; empty pieces are
// skipped; the first "=" in a piece separates name from value; "+" means a space, in this format
// only; then names and values are percent-decoded and must be UTF-8.
//
// Courier is strict where the WHATWG parser is forgiving: a "%" not followed by two hex digits
// and bytes that do not decode to UTF-8 are errors with their offset in the whole input, never
// passed through or replaced with U+FFFD. A piece without "=" has a nil value (the WHATWG parser
// gives ""), so `a&b=` tells `a` (no value, NSNull in AFNetworking's query strings) from `b=`.
//
// The output is linear in the input (each field needs at least one byte and an "&"), so the body
// size limit of the caller bounds it; there is no separate field-count limit here.

import CourierBytes

/// Parsing of `application/x-www-form-urlencoded` text.
public enum FormURLEncoded {
    /// One name and value, decoded.
    public typealias Field = (name: String, value: String?)

    /// Parses form-urlencoded text into fields, in order.
    /// - Parameter text: the body or query, for example `a=1&b=x+y&c`.
    /// - Returns: the fields; a piece without "=" has a nil value.
    /// - Throws: `PercentDecodingError` (`.malformedPercentEncoding`, `.invalidUTF8`) with the
    ///   offset in `text`.
    public static func parse(_ text: String) throws(PercentDecodingError) -> [Field] {
        var text = text
        let result = text.withUTF8 { bytes in
            Result { () throws(PercentDecodingError) in try parse(UnsafeRawBufferPointer(bytes)) }
        }
        return try result.get()
    }

    /// Parses form-urlencoded bytes into fields, in order.
    /// - Parameter bytes: the body or query.
    /// - Returns: the fields; a piece without "=" has a nil value.
    /// - Throws: `PercentDecodingError` with the offset in `bytes`.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws(PercentDecodingError) -> [Field] {
        var fields: [Field] = []
        let n = bytes.count
        var start = 0
        while start < n {
            var end = start
            var equals: Int?
            while end < n, bytes[end] != UInt8(ascii: "&") {
                if equals == nil, bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                let nameEnd = equals ?? end
                let name = try decode(bytes, start..<nameEnd)
                let value = try equals.map { (equals) throws(PercentDecodingError) in try decode(bytes, (equals + 1)..<end) }
                fields.append((name: name, value: value))
            }
            start = end + 1
        }
        return fields
    }

    /// Parses the readable bytes of a buffer.
    /// - Parameter buffer: the body.
    /// - Returns: the fields.
    /// - Throws: `PercentDecodingError` with the offset from the buffer's reader index.
    public static func parse(_ buffer: ByteBuffer) throws(PercentDecodingError) -> [Field] {
        try buffer.withUnsafeReadableBytes { (bytes) throws(PercentDecodingError) in try parse(bytes) }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, _ range: Range<Int>) throws(PercentDecodingError) -> String {
        if range.isEmpty { return "" }
        do {
            return try PercentEncoding.decodeToString(UnsafeRawBufferPointer(rebasing: bytes[range]), plusAsSpace: true)
        } catch {
            throw PercentDecodingError(error.code, offset: error.offset + range.lowerBound)
        }
    }
}
