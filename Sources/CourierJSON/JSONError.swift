// JSONError: why a byte sequence is not acceptable JSON text (RFC 8259), and where.
//
// Design §6: a public error is a struct with a stable code from a closed set of static constants
// plus context (here the byte offset). The message text is not API; the code and offset are.
// The parser and the streaming null sanitizer run the same scanner, so for any input they throw
// the same code at the same offset.

import CourierBytes

/// A malformed or unacceptable JSON text: a stable `code` and the byte `offset` where it was found.
public struct JSONError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The closed set of reasons a JSON text is rejected. Compare against the static constants;
    /// the raw value is stable and may be logged.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .emptyInput, .unexpectedEndOfInput, .unexpectedByte, .invalidLiteral, .invalidNumber,
            .controlCharacterInString, .invalidEscape, .invalidUnicodeEscape, .loneSurrogateEscape,
            .invalidUTF8, .trailingData, .depthLimitExceeded, .documentTooLarge
        ]

        @usableFromInline
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The input holds no value at all: it is empty or only whitespace (RFC 8259 §2:
        /// `JSON-text = ws value ws`). Offset: the end of the input.
        public static let emptyInput = Code("emptyInput")
        /// The input ends inside a value (an unclosed string, array or object, a cut-off literal,
        /// number, escape or UTF-8 sequence). Offset: the end of the input.
        public static let unexpectedEndOfInput = Code("unexpectedEndOfInput")
        /// A byte that cannot appear here by the grammar (a value was expected and none starts with
        /// this byte, or a `,`, `:`, `]`, `}` or `"` was expected). Offset: that byte.
        public static let unexpectedByte = Code("unexpectedByte")
        /// `true`, `false` or `null` misspelt. Offset: the first byte that differs.
        public static let invalidLiteral = Code("invalidLiteral")
        /// A number against RFC 8259 §6: a leading zero, `-` without digits, `.` or `e` without
        /// digits after it. Offset: the offending byte.
        public static let invalidNumber = Code("invalidNumber")
        /// A byte below 0x20 inside a string (RFC 8259 §7: must be escaped). Offset: that byte.
        public static let controlCharacterInString = Code("controlCharacterInString")
        /// A backslash followed by a character that is not one of `" \ / b f n r t u` (RFC 8259
        /// §7). Offset: the character after the backslash.
        public static let invalidEscape = Code("invalidEscape")
        /// `\u` not followed by four hexadecimal digits. Offset: the first byte that is not one.
        public static let invalidUnicodeEscape = Code("invalidUnicodeEscape")
        /// A `\uD800`–`\uDBFF` escape not followed by a `\uDC00`–`\uDFFF` escape, or a low
        /// surrogate escape without a high one before it. Such a string has no UTF-8 form (RFC 8259
        /// §8.2 calls its behaviour unpredictable; Courier rejects it). Offset: the backslash of the
        /// unpaired escape.
        public static let loneSurrogateEscape = Code("loneSurrogateEscape")
        /// Bytes that are not well-formed UTF-8 (RFC 8259 §8.1, RFC 3629 §4: overlong forms,
        /// encoded surrogates, code points above U+10FFFF, stray continuation bytes, a sequence cut
        /// short by another byte). Offset: the first byte of the ill-formed sequence.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// Bytes other than whitespace after the value. Offset: the first such byte.
        public static let trailingData = Code("trailingData")
        /// More nested arrays and objects than `JSONParser.Limits.maxDepth`. Offset: the `[` or
        /// `{` that would open one level too many.
        public static let depthLimitExceeded = Code("depthLimitExceeded")
        /// The input is longer than `JSONDocument.maximumInputSize` (256 MiB − 1), the most a
        /// document's 29-bit tape payloads can address. Offset: that size. (`JSONParser` and
        /// `JSONNullSanitizer` have no such limit.)
        public static let documentTooLarge = Code("documentTooLarge")
    }

    /// Why the input was rejected.
    public var code: Code
    /// The zero-based byte offset in the input where the problem was found.
    public var offset: Int

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - offset: the byte offset in the input.
    @inlinable
    public init(_ code: Code, offset: Int) {
        self.code = code
        self.offset = offset
    }

    /// A readable summary, `"<code> at byte <offset>"`. Not API.
    public var description: String { "JSON \(code.rawValue) at byte \(offset)" }
}
