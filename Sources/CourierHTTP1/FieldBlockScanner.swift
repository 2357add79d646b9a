// FieldBlockScanner: the one implementation of HTTP/1.1 line finding and field-line validation,
// shared by the response head parser, the request head parser and the chunked trailer section.
//
// What it owns: the resumable position of the search for the end of a block (a head or a trailer
// section) and the reusable array of field ranges recorded so far.
//
// How it works. A block is a sequence of lines ending in CRLF, closed by an empty line. For a
// line none of whose bytes were seen before, a fast path parses and validates a well-formed field
// line in a single pass (token name, colon, OWS, field-value bytes eight at a time, CRLF). It can
// only accept: whenever it meets anything else — a malformed byte, or the end of the bytes
// received — it hands over to the general path, which finds the LF with an 8-bytes-at-a-time
// search (16 bytes at a time, SIMD16), checks that a CR precedes it, and only then validates the complete line and reports
// the first fault. Errors therefore come only from complete lines, whichever path ran, so the
// outcome never depends on where the input was cut. Between calls the scanner remembers where
// the current line started and how far the LF search got, so input that trickles in byte by
// byte is searched once and each line validated once: total work stays linear (design §3,
// "never rescan").
//
// Invariants:
//   - 0 <= lineStart <= searchFrom, both offsets from the first byte of the block;
//   - every byte before `lineStart` belongs to a complete, validated line;
//   - no byte in lineStart..<searchFrom is LF;
//   - `ranges` holds one entry per validated field line, offsets fitting in UInt32 (the limit is
//     clamped to 4 GiB).
//
// RFC 9112 §2.2 (message parsing: CRLF, bare CR, bare LF, whitespace after the start line),
// §5.1 (no whitespace before the colon), §5.2 (obs-fold); RFC 9110 §5.1, §5.5, §5.6.2 (field
// names are tokens; field values are VCHAR / obs-text / SP / HTAB, trimmed of OWS).
//
// Two modes, chosen by the role (docs/http1.md "Strictness choices"):
//   - lenient (a client reading responses, as curl, browsers and Go do): a bare LF ends a line
//     like CRLF (RFC 9112 §2.2 "MAY recognize a single LF"), and obs-fold is unfolded (§5.2: a user
//     agent "MUST replace each received obs-fold with one or more SP octets"): the continuation
//     line extends the previous field's value range, and `hasFoldedValues` tells `ParsedFields` to
//     hand such values out with each fold replaced by one SP. A fold in Content-Length or
//     Transfer-Encoding is still an error (`obsoleteLineFolding`): folded framing never frames a
//     message. Whitespace right after the start line is an error in both modes (§2.2).
//   - strict (a server reading requests): a bare LF is `bareLineFeed`, obs-fold is
//     `obsoleteLineFolding` (§5.2 lets a server reject it).
// A bare CR is an error in both modes (§2.2).

import CourierBytes

struct FieldBlockScanner: Sendable {
    /// What a call to `scan` found.
    enum Step {
        /// No complete line beyond what was already reported; call again with more bytes.
        case needMoreData
        /// The first line of a head, CRLF excluded, for the caller to validate.
        case startLine(start: Int, end: Int)
        /// The empty line that closes the block; `end` is one past its LF (the block's length).
        case complete(end: Int)
    }

    private(set) var lineStart = 0
    private var searchFrom = 0
    private(set) var expectsStartLine: Bool
    /// Whether bare LF line ends are accepted and obs-fold unfolded (a client reading responses).
    let isLenient: Bool
    /// Whether some value of the block spans an obs-fold (lenient mode only).
    private(set) var hasFoldedValues = false
    /// The field lines validated so far; reused across blocks (capacity is kept).
    private(set) var ranges: [FieldRange] = []

    init(expectsStartLine: Bool, lenient: Bool = false) {
        self.expectsStartLine = expectsStartLine
        self.isLenient = lenient
    }

    /// Starts a new block, keeping the capacity of the range array. Call it when no one else holds
    /// the array (after the previous block's view was dropped), so no copy is made.
    mutating func reset(expectsStartLine: Bool) {
        lineStart = 0
        searchFrom = 0
        self.expectsStartLine = expectsStartLine
        hasFoldedValues = false
        ranges.removeAll(keepingCapacity: true)
    }

    /// Scans the readable bytes of a block from where the previous call stopped.
    ///
    /// - Parameters:
    ///   - raw: the block's bytes received so far (the same prefix as before, possibly longer).
    ///   - limit: the most bytes the block may have; more is `tooLarge`.
    ///   - maxFields: the most field lines.
    ///   - tooLarge: the code to throw when the block exceeds `limit`.
    ///   - errorBase: added to offsets in errors (bytes of the message before this block).
    /// - Returns: the next step.
    /// - Throws: `HTTPParserError` for a malformed line or an exceeded limit.
    mutating func scan(
        _ raw: UnsafeRawBufferPointer,
        limit: Int,
        maxFields: Int,
        tooLarge: HTTPParserError.Code,
        errorBase: Int
    ) throws(HTTPParserError) -> Step {
        precondition(raw.count >= searchFrom, "the bytes of a block in progress were removed")
        guard let base = raw.baseAddress, raw.count > 0 else { return .needMoreData }
        let end = min(raw.count, limit)
        let classes = ByteClasses()
        while true {
            // Fast path, for a line none of whose bytes were looked at yet: parse and validate it
            // in one pass. It only ever accepts; anything unusual (a malformed byte, the end of
            // the bytes received) falls through to the general path below, which finds the LF
            // first and reports errors only for complete lines, so the outcome never depends on
            // the path taken (nor on where the input was cut).
            if !expectsStartLine && searchFrom == lineStart {
                switch FieldBlockScanner.fastLine(base, start: lineStart, end: end, classes) {
                case .endOfBlock:
                    lineStart += 2
                    searchFrom = lineStart
                    return .complete(end: lineStart)
                case .field(let range, let next):
                    guard ranges.count < maxFields else { throw HTTPParserError(.tooManyFields, offset: errorBase + lineStart) }
                    ranges.append(range)
                    lineStart = next
                    searchFrom = next
                    continue
                case .undecided(let scannedTo):
                    // No LF in lineStart..<scannedTo: the search resumes there.
                    searchFrom = scannedTo
                }
            }
            guard let lf = FieldBlockScanner.findLineFeed(base, from: searchFrom, to: end) else {
                searchFrom = max(end, searchFrom)
                // The block would be longer than `limit` whatever comes next.
                if raw.count >= limit { throw HTTPParserError(tooLarge, offset: errorBase + max(limit, 0)) }
                return .needMoreData
            }
            // RFC 9112 §2.2: lines end in CRLF; a bare LF ends one only in lenient mode.
            let contentEnd: Int
            if lf > lineStart && base.load(fromByteOffset: lf - 1, as: UInt8.self) == UInt8(ascii: "\r") {
                contentEnd = lf - 1
            } else if isLenient {
                contentEnd = lf
            } else {
                throw HTTPParserError(.bareLineFeed, offset: errorBase + lf)
            }
            let start = lineStart
            lineStart = lf + 1
            searchFrom = lineStart
            if expectsStartLine {
                expectsStartLine = false
                return .startLine(start: start, end: contentEnd)
            }
            if contentEnd == start { return .complete(end: lf + 1) }
            // RFC 9112 §5.2: a line starting with SP or HTAB continues the previous field
            // (obs-fold). Right after the start line it is §2.2's whitespace, never a fold.
            if isLenient && !ranges.isEmpty && ASCII.isWhitespace(base.load(fromByteOffset: start, as: UInt8.self)) {
                try unfold(base, start: start, end: contentEnd, errorBase: errorBase, classes)
                continue
            }
            guard ranges.count < maxFields else { throw HTTPParserError(.tooManyFields, offset: errorBase + start) }
            let range = try FieldBlockScanner.validateFieldLine(base, start: start, end: contentEnd, errorBase: errorBase, classes)
            ranges.append(range)
        }
    }

    /// Joins the continuation line `start..<end` (which starts with SP or HTAB) to the value of
    /// the last field: its range is extended over the fold, and `ParsedFields` replaces the fold by
    /// one SP when the value is read (RFC 9112 §5.2).
    private mutating func unfold(
        _ base: UnsafeRawPointer, start: Int, end: Int, errorBase: Int, _ classes: ByteClasses
    ) throws(HTTPParserError) {
        var range = ranges[ranges.count - 1]
        // Folded framing never frames a message: Content-Length and Transfer-Encoding stay errors.
        let contentLength: StaticString = "content-length", transferEncoding: StaticString = "transfer-encoding"
        for name in [contentLength, transferEncoding] where range.nameLength == name.utf8CodeUnitCount
            && ASCII.equalsIgnoringCase(base + Int(range.nameStart), name.utf8Start, range.nameLength) {
            throw HTTPParserError(.obsoleteLineFolding, offset: errorBase + start)
        }
        var valueStart = start
        while valueStart < end && ASCII.isWhitespace(base.load(fromByteOffset: valueStart, as: UInt8.self)) { valueStart &+= 1 }
        var valueEnd = end
        while valueEnd > valueStart && ASCII.isWhitespace(base.load(fromByteOffset: valueEnd &- 1, as: UInt8.self)) { valueEnd &-= 1 }
        try FieldBlockScanner.validateFieldValue(base, start: valueStart, end: valueEnd, errorBase: errorBase, classes)
        // A line of whitespace only adds nothing to the value.
        guard valueStart < valueEnd else { return }
        if range.valueStart == range.valueEnd {
            // Nothing before the fold: the value starts on the continuation line, no fold inside.
            range.valueStart = UInt32(truncatingIfNeeded: valueStart)
        } else {
            hasFoldedValues = true
        }
        range.valueEnd = UInt32(truncatingIfNeeded: valueEnd)
        ranges[ranges.count - 1] = range
    }

    // MARK: Line finding

    /// The offset of the first LF in `from..<end`, or nil.
    @inline(__always)
    static func findLineFeed(_ base: UnsafeRawPointer, from: Int, to end: Int) -> Int? {
        var i = from
        // Sixteen bytes at a time (SIMD16: one compare, then the first set lane).
        let lineFeed = ByteVector(repeating: 0x0A)
        while i &+ 16 <= end {
            // SAFETY: i + 16 <= end <= the number of readable bytes at `base`.
            let lane = ByteVectors.firstLane(ByteVectors.load(base + i) .== lineFeed)
            if lane < 16 { return i &+ lane }
            i &+= 16
        }
        // Eight bytes at a time: a byte of `x` is zero exactly where the word holds LF; the
        // lowest flagged byte is always a true match (false positives only occur above one).
        while i &+ 8 <= end {
            // SAFETY: i + 8 <= end <= the number of readable bytes at `base`.
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let x = word ^ 0x0A0A_0A0A_0A0A_0A0A
            let found = (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
            if found != 0 { return i &+ (found.trailingZeroBitCount &>> 3) }
            i &+= 8
        }
        while i < end {
            // SAFETY: i < end <= the number of readable bytes at `base`.
            if base.load(fromByteOffset: i, as: UInt8.self) == 0x0A { return i }
            i &+= 1
        }
        return nil
    }

    // MARK: Field lines

    enum FastLine {
        /// CRLF at the start of the line: the block ends.
        case endOfBlock
        /// A valid field line; the next line starts at `next`.
        case field(FieldRange, next: Int)
        /// Not decided here; no LF occurs before `scannedTo`.
        case undecided(scannedTo: Int)
    }

    /// One pass over a well-formed `token ":" OWS field-value OWS CRLF` line.
    // Not inlined on purpose: inside `scan` the loops below lose their registers to the
    // surrounding state and run about 1.5x slower (measured on 468-byte heads).
    @inline(never)
    static func fastLine(_ base: UnsafeRawPointer, start: Int, end: Int, _ classes: ByteClasses) -> FastLine {
        // SAFETY (whole function): every load is at an offset below `end`, the readable count.
        var i = start
        guard i &+ 1 < end else { return .undecided(scannedTo: start) }
        if base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: "\r") {
            return base.load(fromByteOffset: i &+ 1, as: UInt8.self) == UInt8(ascii: "\n") ? .endOfBlock : .undecided(scannedTo: start)
        }
        while i < end && classes.isToken(base.load(fromByteOffset: i, as: UInt8.self)) { i &+= 1 }
        // Every byte passed over is a token byte, OWS or a field-value byte, none of them LF: the
        // LF search may resume where this pass stopped (linear work for trickling input).
        guard i > start, i < end, base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: ":") else {
            return .undecided(scannedTo: i)
        }
        let nameEnd = i
        i &+= 1
        while i < end && ASCII.isWhitespace(base.load(fromByteOffset: i, as: UInt8.self)) { i &+= 1 }
        let valueStart = i
        while true {
            // Sixteen, then eight bytes at a time while none is below 0x20 or 0x7F (see
            // validateFieldValue).
            i = firstControlOrDelete(base, from: i, to: end)
            while i &+ 8 <= end {
                let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
                let below20 = (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
                let del = word ^ 0x7F7F_7F7F_7F7F_7F7F
                let isDel = (del &- 0x0101_0101_0101_0101) & ~del & 0x8080_8080_8080_8080
                if below20 | isDel != 0 { break }
                i &+= 8
            }
            guard i < end else { return .undecided(scannedTo: i) }
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if byte == UInt8(ascii: "\r") { break }
            guard classes.isFieldValue(byte) else { return .undecided(scannedTo: i) }
            i &+= 1
        }
        guard i &+ 1 < end, base.load(fromByteOffset: i &+ 1, as: UInt8.self) == UInt8(ascii: "\n") else {
            return .undecided(scannedTo: i)
        }
        var valueEnd = i
        while valueEnd > valueStart && ASCII.isWhitespace(base.load(fromByteOffset: valueEnd &- 1, as: UInt8.self)) {
            valueEnd &-= 1
        }
        return .field(FieldRange(nameStart: UInt32(truncatingIfNeeded: start), nameEnd: UInt32(truncatingIfNeeded: nameEnd),
                                 valueStart: UInt32(truncatingIfNeeded: valueStart), valueEnd: UInt32(truncatingIfNeeded: valueEnd)),
                      next: i &+ 2)
    }

    /// Validates `field-name ":" OWS field-value OWS` in `start..<end` (CRLF excluded) and returns
    /// the trimmed name and value positions.
    static func validateFieldLine(
        _ base: UnsafeRawPointer, start: Int, end: Int, errorBase: Int, _ classes: ByteClasses
    ) throws(HTTPParserError) -> FieldRange {
        // SAFETY (whole function): every load is at an offset in start..<end, which the caller
        // took from the readable bytes at `base`.
        let first = base.load(fromByteOffset: start, as: UInt8.self)
        // RFC 9112 §5.2 obs-fold (strict mode), or §2.2 whitespace between the start line and the
        // first field.
        if ASCII.isWhitespace(first) { throw HTTPParserError(.obsoleteLineFolding, offset: errorBase + start) }
        var i = start
        while i < end && classes.isToken(base.load(fromByteOffset: i, as: UInt8.self)) { i &+= 1 }
        let nameEnd = i
        guard i < end else { throw HTTPParserError(.invalidFieldName, offset: errorBase + i) }
        let stop = base.load(fromByteOffset: i, as: UInt8.self)
        guard stop == UInt8(ascii: ":") && nameEnd > start else {
            if ASCII.isWhitespace(stop) && nameEnd > start {
                // RFC 9112 §5.1: whitespace between name and colon MUST be rejected.
                var j = i
                while j < end && ASCII.isWhitespace(base.load(fromByteOffset: j, as: UInt8.self)) { j &+= 1 }
                if j < end && base.load(fromByteOffset: j, as: UInt8.self) == UInt8(ascii: ":") {
                    throw HTTPParserError(.whitespaceBeforeColon, offset: errorBase + i)
                }
            }
            if stop == UInt8(ascii: "\r") { throw HTTPParserError(.bareCarriageReturn, offset: errorBase + i) }
            throw HTTPParserError(.invalidFieldName, offset: errorBase + i)
        }
        i &+= 1
        while i < end && ASCII.isWhitespace(base.load(fromByteOffset: i, as: UInt8.self)) { i &+= 1 }
        let valueStart = i
        try validateFieldValue(base, start: valueStart, end: end, errorBase: errorBase, classes)
        var valueEnd = end
        while valueEnd > valueStart && ASCII.isWhitespace(base.load(fromByteOffset: valueEnd &- 1, as: UInt8.self)) {
            valueEnd &-= 1
        }
        return FieldRange(nameStart: UInt32(truncatingIfNeeded: start), nameEnd: UInt32(truncatingIfNeeded: nameEnd),
                          valueStart: UInt32(truncatingIfNeeded: valueStart), valueEnd: UInt32(truncatingIfNeeded: valueEnd))
    }

    /// Checks that every byte in `start..<end` is a `field-value` byte (RFC 9110 §5.5: VCHAR,
    /// obs-text, SP, HTAB). Also used for the reason phrase, which has the same alphabet.
    @inline(__always)
    static func validateFieldValue(
        _ base: UnsafeRawPointer, start: Int, end: Int, errorBase: Int, _ classes: ByteClasses
    ) throws(HTTPParserError) {
        // Fast path: sixteen, then eight bytes at a time, leaving to the byte loop any byte below
        // 0x20 (CTL, or HTAB which is allowed) or 0x7F (DEL).
        var i = firstControlOrDelete(base, from: start, to: end)
        while i &+ 8 <= end {
            // SAFETY: i + 8 <= end, inside the line.
            let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            let below20 = (word &- 0x2020_2020_2020_2020) & ~word & 0x8080_8080_8080_8080
            let del = word ^ 0x7F7F_7F7F_7F7F_7F7F
            let isDel = (del &- 0x0101_0101_0101_0101) & ~del & 0x8080_8080_8080_8080
            if below20 | isDel != 0 { break }
            i &+= 8
        }
        guard i < end else { return }
        while i < end {
            let byte = base.load(fromByteOffset: i, as: UInt8.self)
            if !classes.isFieldValue(byte) {
                throw HTTPParserError(byte == UInt8(ascii: "\r") ? .bareCarriageReturn : .invalidFieldValue, offset: errorBase + i)
            }
            i &+= 1
        }
    }

    /// The first position in `from..<end` (16 bytes at a time) holding a byte below 0x20 or DEL,
    /// or the position where fewer than 16 bytes remain.
    @inline(__always)
    static func firstControlOrDelete(_ base: UnsafeRawPointer, from: Int, to end: Int) -> Int {
        var i = from
        let space = ByteVector(repeating: 0x20), delete = ByteVector(repeating: 0x7F)
        while i &+ 16 <= end {
            // SAFETY: i + 16 <= end <= the number of readable bytes at `base`.
            let v = ByteVectors.load(base + i)
            let lane = ByteVectors.firstLane((v .< space) .| (v .== delete))
            if lane < 16 { return i &+ lane }
            i &+= 16
        }
        return i
    }

    // MARK: Versions

    /// Parses `HTTP/DIGIT.DIGIT` at `p` (8 bytes must be readable).
    /// - Returns: the version, or nil when the bytes are not of that form.
    @inline(__always)
    static func parseVersion(_ p: UnsafeRawPointer) -> HTTPVersion? {
        // SAFETY: the caller guarantees 8 readable bytes at `p`.
        guard p.load(fromByteOffset: 0, as: UInt8.self) == UInt8(ascii: "H"),
              p.load(fromByteOffset: 1, as: UInt8.self) == UInt8(ascii: "T"),
              p.load(fromByteOffset: 2, as: UInt8.self) == UInt8(ascii: "T"),
              p.load(fromByteOffset: 3, as: UInt8.self) == UInt8(ascii: "P"),
              p.load(fromByteOffset: 4, as: UInt8.self) == UInt8(ascii: "/"),
              p.load(fromByteOffset: 6, as: UInt8.self) == UInt8(ascii: ".") else { return nil }
        let major = p.load(fromByteOffset: 5, as: UInt8.self) &- UInt8(ascii: "0")
        let minor = p.load(fromByteOffset: 7, as: UInt8.self) &- UInt8(ascii: "0")
        guard major < 10 && minor < 10 else { return nil }
        return HTTPVersion(major: major, minor: minor)
    }
}

/// The byte-class table and the classes the parsers test, read once per call: reading
/// `ByteClass.table` or a `ByteClass` constant from another module goes through a lazy global
/// initialiser every time, which a per-byte loop cannot afford.
struct ByteClasses {
    let table = ByteClass.table
    let token = ByteClass.token
    let fieldValue = ByteClass.fieldValue
    let requestTarget = ByteClass.requestTarget

    @inline(__always) func isToken(_ byte: UInt8) -> Bool { table.isAny(byte, of: token) }
    @inline(__always) func isFieldValue(_ byte: UInt8) -> Bool { table.isAny(byte, of: fieldValue) }
    @inline(__always) func isRequestTarget(_ byte: UInt8) -> Bool { table.isAny(byte, of: requestTarget) }
}
