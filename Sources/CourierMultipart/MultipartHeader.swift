// MultipartHeader and MultipartEscaping: one header line of a part, and the browser escaping of
// field names and file names.
//
// Invariants kept by the builder (checked at append time, so no value can break the framing):
//   - a header name is an RFC 9110 §5.6.2 token;
//   - a header value is RFC 9110 §5.5 field-value: field-vchar, SP, HTAB, never CR, LF, NUL or
//     another control byte, and it neither starts nor ends with whitespace (a parser would strip
//     it, so it could not round-trip);
//   - a field name or file name goes inside a quoted string with `"`, CR and LF replaced by `%22`,
//     `%0D` and `%0A` (WHATWG HTML, "multipart/form-data encoding algorithm"; RFC 7578 §2 points
//     to percent-encoding for such names). Other control bytes cannot be escaped that way and are
//     refused.

import CourierBytes

/// One header line of a part: `Name: value`.
public struct MultipartHeader: Sendable, Hashable, CustomStringConvertible {
    /// The field name, as written.
    public var name: String
    /// The field value, as written.
    public var value: String

    /// Creates a header. It is validated when it is appended to a form.
    /// - Parameters:
    ///   - name: the field name (an RFC 9110 token).
    ///   - value: the field value (no CR, LF, NUL or other control bytes).
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// `Name: value`.
    public var description: String { "\(name): \(value)" }

    /// Whether `name` is an RFC 9110 token.
    static func isValidName(_ name: String) -> Bool {
        let table = ByteClass.table
        var count = 0
        for byte in name.utf8 {
            guard table[byte].contains(.token) else { return false }
            count += 1
        }
        return count > 0
    }

    /// Whether `value` is an RFC 9110 field-value with no leading or trailing whitespace.
    static func isValidValue(_ value: String) -> Bool {
        let table = ByteClass.table
        var first = true
        var last: UInt8 = 0
        for byte in value.utf8 {
            guard table[byte].contains(.fieldValue) else { return false }
            if first && (byte == 0x20 || byte == 0x09) { return false }
            first = false
            last = byte
        }
        return last != 0x20 && last != 0x09
    }
}

/// The escaping browsers apply to multipart field names and file names.
public enum MultipartEscaping {
    /// Escapes `"` as `%22`, CR as `%0D` and LF as `%0A`; nothing else changes (`%` itself is not
    /// escaped, exactly as browsers do).
    /// - Parameter name: a field name or file name.
    /// - Returns: the text that goes between the quotes.
    public static func escape(_ name: String) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(name.utf8.count)
        for byte in name.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x25, 0x32, 0x32])
            case 0x0D: out.append(contentsOf: [0x25, 0x30, 0x44])
            case 0x0A: out.append(contentsOf: [0x25, 0x30, 0x41])
            default: out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reverses `escape`: `%22`, `%0D`, `%0A` (hex digits in either case) become `"`, CR, LF.
    ///
    /// Because browsers do not escape `%`, a name that already held the text `%22` comes back as
    /// `"`; `unescape(escape(x)) == x` only for names without those three sequences, and
    /// `escape(unescape(escape(x))) == escape(x)` always.
    /// - Parameter escaped: the text between the quotes.
    /// - Returns: the name.
    public static func unescape(_ escaped: String) -> String {
        String(decoding: unescape(bytes: Array(escaped.utf8)), as: UTF8.self)
    }

    static func unescape(bytes: [UInt8]) -> [UInt8] {
        guard bytes.contains(0x25) else { return bytes }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count {
                let hi = bytes[i + 1], lo = bytes[i + 2] | 0x20
                if hi == UInt8(ascii: "2") && bytes[i + 2] == UInt8(ascii: "2") { out.append(0x22); i += 3; continue }
                if hi == UInt8(ascii: "0") && lo == UInt8(ascii: "d") { out.append(0x0D); i += 3; continue }
                if hi == UInt8(ascii: "0") && lo == UInt8(ascii: "a") { out.append(0x0A); i += 3; continue }
            }
            out.append(bytes[i])
            i += 1
        }
        return out
    }

    /// Whether a field name or file name can be escaped: no NUL, no C0 control byte other than
    /// HTAB, CR and LF, no DEL.
    static func isEscapable(_ name: String) -> Bool {
        for byte in name.utf8 {
            if byte == 0x7F { return false }
            if byte < 0x20 && byte != 0x09 && byte != 0x0D && byte != 0x0A { return false }
        }
        return true
    }

    /// Appends the escaped form of `name` to `buffer`; one bulk copy when nothing needs escaping.
    static func writeEscaped(_ name: String, into buffer: inout ByteBuffer) {
        var name = name
        name.withUTF8 { utf8 in
            var needs = false
            for byte in utf8 where byte == 0x22 || byte == 0x0D || byte == 0x0A { needs = true; break }
            if !needs {
                buffer.writeBytes(UnsafeRawBufferPointer(utf8))
                return
            }
            for byte in utf8 {
                switch byte {
                case 0x22: buffer.writeString("%22")
                case 0x0D: buffer.writeString("%0D")
                case 0x0A: buffer.writeString("%0A")
                default: buffer.writeInteger(byte)
                }
            }
        }
    }
}
