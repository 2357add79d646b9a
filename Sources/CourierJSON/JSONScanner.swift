// JSONScanner: the one cursor over input bytes, shared by JSONParser (which builds a tree) and
// JSONNullSanitizer (which rewrites bytes). Both call the same token scanners in the same order,
// so they accept the same language and report the same error code at the same offset.
//
// What this file owns: the lexical grammar of RFC 8259 — whitespace (§2), literals (§3), numbers
// (§6), strings with escapes (§7) and UTF-8 well-formedness (§8.1, RFC 3629 §4). The structural
// grammar (nesting, commas, colons, depth) lives in the two drivers.
//
// Invariants:
//   * 0 <= position <= count; bytes are read only at indices < count (every read is preceded by a
//     bound check in the same function; the unsafe reads are marked SAFETY).
//   * A scanner function either leaves `position` just past the token it scanned, or throws.
//   * Running out of input inside a token is always `.unexpectedEndOfInput` at `count`, so a
//     prefix of a valid text is rejected with that code (or is itself a valid, shorter text).

/// A cursor over borrowed input bytes. It never owns or outlives the memory it reads.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position: Int

    /// - Parameters:
    ///   - base: the first byte; valid for `count` bytes for the scanner's whole life.
    ///   - count: the number of bytes, at least 1 (callers reject empty input before scanning).
    init(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
        self.position = 0
    }

    // MARK: Bytes

    /// The byte at `position`; callers check `position < count` first.
    var current: UInt8 {
        @inline(__always) get {
            // SAFETY: every caller has checked position < count.
            base[position]
        }
    }

    var isAtEnd: Bool { @inline(__always) get { position >= count } }

    func fail(_ code: JSONError.Code, at offset: Int) -> JSONError { JSONError(code, offset: offset) }

    func endOfInput() -> JSONError { JSONError(.unexpectedEndOfInput, offset: count) }

    // MARK: Whitespace — RFC 8259 §2: ws = *( %x20 / %x09 / %x0A / %x0D )

    /// Moves past SP, HT, LF and CR, and nothing else (no BOM, no NBSP, no form feed).
    @inline(__always)
    mutating func skipWhitespace() {
        while position < count {
            // SAFETY: position < count.
            let byte = base[position]
            // Every whitespace byte is <= 0x20; anything above ends the run at once.
            guard byte <= 0x20, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            position &+= 1
        }
    }

    // MARK: Literals — RFC 8259 §3: false / null / true (lowercase only)

    /// Scans one of `true`, `false`, `null`, whose first byte is at `position`.
    /// - Parameter literal: the expected spelling.
    mutating func scanLiteral(_ literal: StaticString) throws(JSONError) {
        let length = literal.utf8CodeUnitCount
        let expected = literal.utf8Start
        var i = 1
        while i < length {
            guard position &+ i < count else { throw endOfInput() }
            // SAFETY: position + i < count; i < length for the static string.
            guard base[position &+ i] == expected[i] else { throw fail(.invalidLiteral, at: position &+ i) }
            i &+= 1
        }
        position &+= length
    }

    /// The four bytes at `offset` as one little-endian word; callers check `offset + 4 <= count`.
    @inline(__always)
    func word32(at offset: Int) -> UInt32 {
        // SAFETY: offset + 4 <= count (callers check); loadUnaligned has no alignment requirement.
        UInt32(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt32.self))
    }

    /// `null` at `position`: one four-byte compare; on a mismatch the byte-wise scan finds the
    /// error's code and offset.
    @inline(__always)
    mutating func scanNull() throws(JSONError) {
        // "null" as a little-endian word.
        if position &+ 4 <= count && word32(at: position) == 0x6C6C_756E {
            position &+= 4
            return
        }
        try scanLiteral("null")
    }

    /// `true` at `position` (see `scanNull`).
    @inline(__always)
    mutating func scanTrue() throws(JSONError) {
        // "true" as a little-endian word.
        if position &+ 4 <= count && word32(at: position) == 0x6575_7274 {
            position &+= 4
            return
        }
        try scanLiteral("true")
    }

    /// `false` at `position` (see `scanNull`; the `f` is already known).
    @inline(__always)
    mutating func scanFalse() throws(JSONError) {
        // "alse" as a little-endian word.
        if position &+ 5 <= count && word32(at: position &+ 1) == 0x6573_6C61 {
            position &+= 5
            return
        }
        try scanLiteral("false")
    }

    // MARK: Numbers — RFC 8259 §6
    //   number = [ minus ] int [ frac ] [ exp ]
    //   int    = zero / ( digit1-9 *DIGIT )
    //   frac   = decimal-point 1*DIGIT
    //   exp    = e [ minus / plus ] 1*DIGIT

    /// Scans a number whose first byte (`-` or a digit) is at `position`.
    /// - Returns: the byte range of the number's text.
    mutating func scanNumber() throws(JSONError) -> Range<Int> {
        let start = position
        var p = position
        // SAFETY (whole function): every base[p] is preceded by a check that p < count.
        if base[p] == UInt8(ascii: "-") {
            p &+= 1
            guard p < count else { throw endOfInput() }
        }
        let first = base[p]
        if first == UInt8(ascii: "0") {
            p &+= 1
            // A leading zero may not be followed by more digits ("01", "-00").
            if p < count && base[p] &- UInt8(ascii: "0") < 10 { throw fail(.invalidNumber, at: p) }
        } else if first &- UInt8(ascii: "1") < 9 {
            p = skipDigits(from: p &+ 1)
        } else {
            throw fail(.invalidNumber, at: p)  // "-" not followed by a digit: "-x", "-.5"
        }
        if p < count && base[p] == UInt8(ascii: ".") {
            p &+= 1
            guard p < count else { throw endOfInput() }
            guard base[p] &- UInt8(ascii: "0") < 10 else { throw fail(.invalidNumber, at: p) }  // "1." "1.e5"
            p = skipDigits(from: p &+ 1)
        }
        if p < count && (base[p] | 0x20) == UInt8(ascii: "e") {
            p &+= 1
            guard p < count else { throw endOfInput() }
            if base[p] == UInt8(ascii: "+") || base[p] == UInt8(ascii: "-") {
                p &+= 1
                guard p < count else { throw endOfInput() }
            }
            guard base[p] &- UInt8(ascii: "0") < 10 else { throw fail(.invalidNumber, at: p) }  // "1e", "1e+x"
            p = skipDigits(from: p &+ 1)
        }
        position = p
        return start..<p
    }

    /// `scanNumber` with its commonest case inlined: a plain integer that does not start with 0
    /// (ids, counts). Anything else — a sign, a leading zero, a fraction, an exponent, an error —
    /// is scanned again from the start by `scanNumber`, so the result and errors are the same.
    @inline(__always)
    mutating func scanNumberFast() throws(JSONError) -> Range<Int> {
        let start = position
        // SAFETY: the caller saw a byte at position < count; p < count is checked before base[p].
        if base[start] &- UInt8(ascii: "1") < 9 {
            let p = skipDigits(from: start &+ 1)
            if p == count || (base[p] != UInt8(ascii: ".") && base[p] | 0x20 != UInt8(ascii: "e")) {
                position = p
                return start..<p
            }
        }
        return try scanNumber()
    }

    /// The index of the first byte at or after `start` that is not an ASCII digit (or `count`),
    /// eight bytes at a time.
    @inline(__always)
    func skipDigits(from start: Int) -> Int {
        var p = start
        while p &+ 8 <= count {
            // SAFETY: p + 8 <= count. Read as little-endian so byte order is memory order.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
            let mask = JSONScanner.nonDigitMask(word)
            if mask != 0 { return p &+ (mask.trailingZeroBitCount >> 3) }
            p &+= 8
        }
        // SAFETY: p < count checked first.
        while p < count && base[p] &- UInt8(ascii: "0") < 10 { p &+= 1 }
        return p
    }

    /// A mask with the high bit set in (at least) the lowest byte of `word` that is not `0`–`9`;
    /// zero when all eight are digits. A byte is a digit when its high nibble is 3 and stays 3
    /// after adding 6 (0x30–0x39). The add can carry out of a byte only from a byte >= 0xFA, a
    /// non-digit, so it can only disturb bytes above the first non-digit: the lowest mark is exact.
    @inline(__always)
    static func nonDigitMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highNibbles = ones &* 0xF0
        let threes = ones &* 0x30
        let notThree = (word & highNibbles) ^ threes
        let notThreeAfterSix = ((word &+ ones &* 0x06) & highNibbles) ^ threes
        // Each byte of `either` is zero for a digit and has only high-nibble bits otherwise;
        // halving then adding 0x78 sets bit 7 exactly for the non-zero bytes, without carries.
        let either = notThree | notThreeAfterSix
        return ((either >> 1) &+ ones &* 0x78) & (ones &* 0x80)
    }

    // MARK: Strings — RFC 8259 §7
    //   string = quotation-mark *char quotation-mark
    //   char   = unescaped / escape ( %x22 / %x5C / %x2F / %x62 / %x66 / %x6E / %x72 / %x74 / %x75 4HEXDIG )
    //   unescaped = %x20-21 / %x23-5B / %x5D-10FFFF

    /// Where a scanned string's content is.
    struct ScannedString {
        /// The raw content between the quotes (escapes not decoded).
        var start: Int
        var end: Int
        /// True when the content had escapes; the decoded UTF-8 is then in the scratch buffer.
        /// When false the raw content is already the decoded text.
        var isDecoded: Bool
    }

    /// Scans a string whose opening quote is at `position`. Strings without escapes are validated
    /// in place and not copied; strings with escapes are decoded into `scratch` (cleared first).
    /// - Parameter scratch: reusable storage for decoded content.
    /// - Returns: the raw content range and whether `scratch` holds the decoded text.
    @inline(__always)
    mutating func scanString(scratch: inout [UInt8]) throws(JSONError) -> ScannedString {
        let contentStart = position &+ 1
        // Fast path, inlined into the drivers: printable ASCII eight bytes at a time up to the
        // first special byte; most strings (keys above all) end there at their closing quote.
        var p = contentStart
        while p &+ 8 <= count {
            // SAFETY: p + 8 <= count; loadUnaligned has no alignment requirement.
            let mask = JSONScanner.specialByteMask(UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self))
            if mask != 0 {
                #if _endian(little)
                p &+= mask.trailingZeroBitCount >> 3
                #endif
                break
            }
            p &+= 8
        }
        // SAFETY: p < count checked first.
        if p < count && base[p] == UInt8(ascii: "\"") {
            position = p &+ 1
            return ScannedString(start: contentStart, end: p, isDecoded: false)
        }
        return try scanStringSlowPath(contentStart: contentStart, from: p, scratch: &scratch)
    }

    /// The rest of `scanString` from `resume` (every byte before it is plain ASCII): UTF-8
    /// sequences, escapes, and the errors.
    @inline(never)
    mutating func scanStringSlowPath(contentStart: Int, from resume: Int, scratch: inout [UInt8]) throws(JSONError) -> ScannedString {
        var p = try scanPlainRun(from: resume)
        guard p < count else { throw endOfInput() }
        // SAFETY: p < count.
        var byte = base[p]
        if byte == UInt8(ascii: "\"") {
            position = p &+ 1
            return ScannedString(start: contentStart, end: p, isDecoded: false)
        }
        // Slow path: the content has escapes (or a control byte, rejected below).
        scratch.removeAll(keepingCapacity: true)
        var runStart = contentStart
        while true {
            if p > runStart {
                // SAFETY: runStart..<p lies within 0..<count (both came from scanPlainRun).
                scratch.append(contentsOf: UnsafeBufferPointer(start: base + runStart, count: p &- runStart))
            }
            if byte == UInt8(ascii: "\"") {
                position = p &+ 1
                return ScannedString(start: contentStart, end: p, isDecoded: true)
            }
            if byte == UInt8(ascii: "\\") {
                p = try decodeEscape(at: p, into: &scratch)
            } else {
                // scanPlainRun stops only at a quote, a backslash or a control byte.
                throw fail(.controlCharacterInString, at: p)
            }
            runStart = p
            p = try scanPlainRun(from: p)
            guard p < count else { throw endOfInput() }
            // SAFETY: p < count.
            byte = base[p]
        }
    }

    /// A mask with the high bit set in (at least) the lowest byte of `word` that is below 0x20, a
    /// quote, a backslash, or 0x80 and above (the start of a multi-byte sequence). Zero when there
    /// is none. SWAR tests: a byte of `x` is zero when `(x - 0x01…) & ~x & 0x80…` has its high bit
    /// set; a borrow can only mark bytes ABOVE a true hit, so the lowest marked byte is exact.
    @inline(__always)
    static func specialByteMask(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let belowSpace = (word &- ones &* 0x20) & ~word & highs
        let quote = word ^ (ones &* 0x22)
        let quoteZero = (quote &- ones) & ~quote & highs
        let backslash = word ^ (ones &* 0x5C)
        let backslashZero = (backslash &- ones) & ~backslash & highs
        return belowSpace | quoteZero | backslashZero | (word & highs)
    }

    /// Advances from `start` over string content that stands for itself: printable ASCII other
    /// than `"` and `\`, and well-formed UTF-8 sequences.
    /// - Returns: the index of the first quote, backslash or control byte, or `count`.
    func scanPlainRun(from start: Int) throws(JSONError) -> Int {
        var p = start
        while p < count {
            if p &+ 8 <= count {
                // SAFETY: p + 8 <= count; loadUnaligned has no alignment requirement.
                let word = UnsafeRawPointer(base + p).loadUnaligned(as: UInt64.self)
                let mask = JSONScanner.specialByteMask(word)
                if mask == 0 {
                    p &+= 8
                    continue
                }
                #if _endian(little)
                // The lowest marked byte is the first special byte in memory order.
                p &+= mask.trailingZeroBitCount >> 3
                #endif
            }
            // SAFETY: p < count (loop condition, or p advanced to a byte inside the loaded word).
            let byte = base[p]
            if byte < 0x80 {
                if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte < 0x20 { return p }
                p &+= 1
            } else {
                p = try validateUTF8Sequence(at: p)
            }
        }
        return p
    }

    /// Checks the multi-byte UTF-8 sequence whose lead byte (>= 0x80) is at `p`, by RFC 3629 §4
    /// (Unicode Table 3-7): no overlong forms (C0, C1, E0 80–9F, F0 80–8F), no surrogates (ED
    /// A0–BF), nothing above U+10FFFF (F4 90+, F5–FF), no stray continuation bytes.
    /// - Returns: the index after the sequence.
    func validateUTF8Sequence(at p: Int) throws(JSONError) -> Int {
        // SAFETY: the caller checked p < count; every later read checks its index first.
        let lead = base[p]
        var trailing: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: trailing = 1
        case 0xE0: trailing = 2; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: trailing = 2
        case 0xED: trailing = 2; high = 0x9F
        case 0xF0: trailing = 3; low = 0x90
        case 0xF1...0xF3: trailing = 3
        case 0xF4: trailing = 3; high = 0x8F
        default: throw fail(.invalidUTF8, at: p)
        }
        guard p &+ 1 < count else { throw endOfInput() }
        let second = base[p &+ 1]
        guard second >= low && second <= high else { throw fail(.invalidUTF8, at: p) }
        var i = 2
        while i <= trailing {
            guard p &+ i < count else { throw endOfInput() }
            guard base[p &+ i] & 0xC0 == 0x80 else { throw fail(.invalidUTF8, at: p) }
            i &+= 1
        }
        return p &+ trailing &+ 1
    }

    /// Decodes the escape whose backslash is at `p`, appending its UTF-8 to `scratch`.
    /// - Returns: the index after the escape (after both halves of a surrogate pair).
    func decodeEscape(at p: Int, into scratch: inout [UInt8]) throws(JSONError) -> Int {
        guard p &+ 1 < count else { throw endOfInput() }
        // SAFETY: p + 1 < count.
        let escaped = base[p &+ 1]
        switch escaped {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(escaped)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "u"):
            let unit = try hexQuad(at: p &+ 2)
            var scalar = UInt32(unit)
            var end = p &+ 6
            if unit & 0xFC00 == 0xD800 {
                // RFC 8259 §7: a character outside the BMP is a UTF-16 surrogate pair of escapes.
                // A high surrogate must be followed at once by `\u` and a low surrogate.
                guard end < count else { throw endOfInput() }
                guard base[end] == UInt8(ascii: "\\") else { throw fail(.loneSurrogateEscape, at: p) }
                guard end &+ 1 < count else { throw endOfInput() }
                guard base[end &+ 1] == UInt8(ascii: "u") else { throw fail(.loneSurrogateEscape, at: p) }
                let low = try hexQuad(at: end &+ 2)
                guard low & 0xFC00 == 0xDC00 else { throw fail(.loneSurrogateEscape, at: p) }
                scalar = 0x10000 &+ ((UInt32(unit) & 0x3FF) << 10 | (UInt32(low) & 0x3FF))
                end &+= 6
            } else if unit & 0xFC00 == 0xDC00 {
                throw fail(.loneSurrogateEscape, at: p)
            }
            JSONScanner.appendUTF8(scalar, to: &scratch)
            return end
        default:
            throw fail(.invalidEscape, at: p &+ 1)
        }
        return p &+ 2
    }

    /// Reads four hexadecimal digits (either case) at `p`.
    func hexQuad(at p: Int) throws(JSONError) -> UInt16 {
        var value: UInt16 = 0
        var i = 0
        while i < 4 {
            guard p &+ i < count else { throw endOfInput() }
            // SAFETY: p + i < count.
            let byte = base[p &+ i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: throw fail(.invalidUnicodeEscape, at: p &+ i)
            }
            value = value << 4 | UInt16(digit)
            i &+= 1
        }
        return value
    }

    /// Appends the UTF-8 form of a Unicode scalar value (never a surrogate; at most U+10FFFF).
    static func appendUTF8(_ scalar: UInt32, to out: inout [UInt8]) {
        switch scalar {
        case 0..<0x80:
            out.append(UInt8(truncatingIfNeeded: scalar))
        case 0x80..<0x800:
            out.append(0xC0 | UInt8(truncatingIfNeeded: scalar >> 6))
            out.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        case 0x800..<0x10000:
            out.append(0xE0 | UInt8(truncatingIfNeeded: scalar >> 12))
            out.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        default:
            out.append(0xF0 | UInt8(truncatingIfNeeded: scalar >> 18))
            out.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 12) & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: (scalar >> 6) & 0x3F))
            out.append(0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F))
        }
    }
}
