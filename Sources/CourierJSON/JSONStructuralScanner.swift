// JSONStructuralScanner: stage 1 of the vector parser (simdjson's design, in portable Swift SIMD).
//
// What this file owns: the classification of the input in 64-byte blocks into the positions
// where a token starts — the operators `{ } [ ] , :`, the opening quote of every string, and the
// first byte of every number or literal — with string contents masked out, and the validation
// that needs no grammar: UTF-8 well-formedness of the whole input (RFC 3629 §4), no raw byte below
// 0x20 inside a string (RFC 8259 §7), no string left open at the end. Stage 2 (JSONTapeBuilder,
// JSONNullSanitizer) walks the positions with the grammar.
//
// Per block, with no branch on the data:
//   * five bitmaps: quote, backslash, operator, whitespace, control (ByteVectors.bitmask);
//   * escaped characters: the bytes after an odd-length run of backslashes (runs may cross
//     blocks; simdjson's add-with-carry formulation);
//   * in-string mask: the prefix XOR of the unescaped quotes (six shift-XOR steps), flipped when
//     the previous block ended inside a string. It covers the opening quote and the content, not
//     the closing quote;
//   * token starts = operators, plus "scalar" bytes (neither operator nor whitespace) that do not
//     follow another non-quote scalar byte, minus the string tails (content and closing quote).
//   * UTF-8: blocks with no byte >= 0x80 are skipped; otherwise each byte is checked against the
//     three bytes before it, loaded at offsets -1, -2, -3 (no shuffle needed): a continuation byte
//     exactly where a lead byte before it asks for one, no 0xC0, 0xC1 or 0xF5–0xFF, and the
//     second-byte ranges after E0, ED, F0 and F4 (overlongs, surrogates, above U+10FFFF).
//
// A problem found here only sets `failed`: the callers then run the scalar reference
// (JSONScanner), which reports the first problem with its code and offset, so errors are the
// same whichever path ran. A scalar byte outside strings that cannot start a value (a stray
// control byte, a non-ASCII byte) is a token start like any other and stage 2 rejects it.
//
// Invariants: blocks are classified in order, each once; `blockStart` is the block whose token
// starts are in `pending`; every position returned is < count; `count` is returned at the end and
// from then on. The first block and the last partial block are classified from a padded copy
// (zeros before, spaces after), so no load leaves the input.

import CourierBytes

struct JSONStructuralScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    /// The first byte scanned (after a byte order mark).
    let start: Int

    /// The block whose token starts are in `pending` (start - 64 before the first block).
    private(set) var blockStart: Int
    /// Token starts of the current block not handed out yet (bit i: blockStart + i).
    private var pending: UInt64 = 0
    /// Backslashes of the current block.
    private var backslashes: UInt64 = 0
    /// The position of the last backslash before the current block, or -1.
    private var lastBackslashBefore = -1

    // State carried from block to block.
    private var previousInString: UInt64 = 0
    private var previousEscaped: UInt64 = 0
    private var previousScalar: UInt64 = 0
    private var atEnd = false

    /// Whether stage 1 found something invalid (the reference parser names it).
    private(set) var failed = false

    /// Creates a scanner over `count` bytes at `base`, starting at `start`.
    init(base: UnsafePointer<UInt8>, count: Int, start: Int) {
        self.base = base
        self.count = count
        self.start = start
        self.blockStart = start &- 64
    }

    /// The next token start, or `count` at the end of the input.
    @inline(__always)
    mutating func next() -> Int {
        while pending == 0 {
            if !advance() { return count }
        }
        let bit = pending.trailingZeroBitCount
        pending &= pending &- 1
        return blockStart &+ bit
    }

    /// Whether a backslash occurs in `from..<before`, where `before` is the token start most
    /// recently returned by `next()` (or `count`) and `from` is after the previous one.
    @inline(__always)
    func hasBackslash(from: Int, before: Int) -> Bool {
        let relative = before &- blockStart
        let below = relative >= 64 ? backslashes : backslashes & ((1 &<< UInt64(truncatingIfNeeded: max(relative, 0))) &- 1)
        if from >= blockStart {
            return below &>> UInt64(truncatingIfNeeded: from &- blockStart) != 0
        }
        return below != 0 || lastBackslashBefore >= from
    }

    /// Classifies the next block; false at the end of the input.
    @inline(never)
    private mutating func advance() -> Bool {
        if atEnd { return false }
        let nextStart = blockStart &+ 64
        if backslashes != 0 {
            lastBackslashBefore = blockStart &+ 63 &- backslashes.leadingZeroBitCount
        }
        guard nextStart < count else {
            finish()
            return false
        }
        blockStart = nextStart
        if nextStart &- start >= 3 && nextStart &+ 64 <= count {
            // SAFETY: nextStart - 3 >= start >= 0 and nextStart + 64 <= count.
            classify(UnsafeRawPointer(base + nextStart))
        } else {
            classifyPadded()
        }
        return true
    }

    /// The checks that need the whole input: no open string, no sequence cut short at the end.
    private mutating func finish() {
        atEnd = true
        pending = 0
        if previousInString != 0 { failed = true }
        // SAFETY: each index is checked against `start` first.
        let n = count
        if n &- 1 >= start && base[n &- 1] >= 0xC0 { failed = true }
        if n &- 2 >= start && base[n &- 2] >= 0xE0 { failed = true }
        if n &- 3 >= start && base[n &- 3] >= 0xF0 { failed = true }
    }

    /// Classifies a block that is the first one or shorter than 64 bytes from a copy: the three
    /// bytes before it (zero before the start), the block, spaces after the end.
    private mutating func classifyPadded() {
        var padded = (ByteVector(), ByteVector(repeating: 0x20), ByteVector(repeating: 0x20),
                      ByteVector(repeating: 0x20), ByteVector(repeating: 0x20))
        let available = min(64, count &- blockStart)
        withUnsafeMutableBytes(of: &padded) { raw in
            // SAFETY: raw has 80 bytes; the block goes to 16..<16+available, the three bytes
            // before it to 13..<16, each copied only from indices start..<count.
            let region = raw.baseAddress!
            var k = 1
            while k <= 3 {
                let index = blockStart &- k
                if index >= start { region.storeBytes(of: base[index], toByteOffset: 16 &- k, as: UInt8.self) }
                k &+= 1
            }
            region.advanced(by: 16).copyMemory(from: base + blockStart, byteCount: available)
        }
        withUnsafeBytes(of: &padded) { raw in
            classify(raw.baseAddress! + 16)
        }
    }

    /// Classifies the 64 bytes at `p`; the three bytes before `p` must be readable.
    @inline(__always)
    private mutating func classify(_ p: UnsafeRawPointer) {
        let block = ByteBlock64(loading: p)
        let quoteByte = ByteVector(repeating: 0x22)
        let backslashByte = ByteVector(repeating: 0x5C)
        let space = ByteVector(repeating: 0x20)
        // Four bitmaps from two extractions. Whitespace is taken as every byte up to SP: the
        // control bytes among them that are not HT, LF or CR are rejected below, wherever they
        // are, so treating them as whitespace changes nothing that is accepted.
        let (quote, operators) = ByteVectors.bitmasks(
            block.v0 .== quoteByte, block.v1 .== quoteByte, block.v2 .== quoteByte, block.v3 .== quoteByte,
            JSONStructuralScanner.isOperator(block.v0), JSONStructuralScanner.isOperator(block.v1),
            JSONStructuralScanner.isOperator(block.v2), JSONStructuralScanner.isOperator(block.v3))
        let (whitespace, backslash) = ByteVectors.bitmasks(
            block.v0 .<= space, block.v1 .<= space, block.v2 .<= space, block.v3 .<= space,
            block.v0 .== backslashByte, block.v1 .== backslashByte, block.v2 .== backslashByte, block.v3 .== backslashByte)

        let escaped = findEscaped(backslash)
        let unescapedQuote = quote & ~escaped
        let inString = JSONStructuralScanner.prefixXOR(unescapedQuote) ^ previousInString
        previousInString = UInt64(bitPattern: Int64(bitPattern: inString) &>> 63)
        let stringTail = inString ^ unescapedQuote

        let scalar = ~(operators | whitespace)
        let nonQuoteScalar = scalar & ~unescapedQuote
        let followsNonQuoteScalar = nonQuoteScalar &<< 1 | previousScalar
        previousScalar = nonQuoteScalar &>> 63
        pending = (operators | (scalar & ~followsNonQuoteScalar)) & ~stringTail
        backslashes = backslash

        // Control bytes: none at all in compact text, so one test of the block's smallest byte
        // usually settles it.
        let smallest = pointwiseMin(pointwiseMin(block.v0, block.v1), pointwiseMin(block.v2, block.v3))
        if ByteVectors.any(smallest .< space) { checkControls(block, inString: inString) }
        if block.hasNonASCII {
            if !JSONStructuralScanner.isValidUTF8(p, block) { failed = true }
        } else {
            // An ASCII block cannot continue a sequence the previous block left open.
            // SAFETY: the three bytes before p are readable (see the caller).
            if p.load(fromByteOffset: -1, as: UInt8.self) >= 0xC0 || p.load(fromByteOffset: -2, as: UInt8.self) >= 0xE0
                || p.load(fromByteOffset: -3, as: UInt8.self) >= 0xF0 {
                failed = true
            }
        }
    }

    /// A block holding bytes below SP: none may be in a string (RFC 8259 §7), and outside strings
    /// only HT, LF and CR are whitespace (§2).
    @inline(never)
    private mutating func checkControls(_ block: ByteBlock64, inString: UInt64) {
        if block.below(0x20) & inString != 0 { failed = true }
        let space = ByteVector(repeating: 0x20)
        @inline(__always) func stray(_ v: ByteVector) -> ByteVectorMask {
            (v .< space) .& .!((v .== ByteVector(repeating: 0x09)) .| (v .== ByteVector(repeating: 0x0A))
                .| (v .== ByteVector(repeating: 0x0D)))
        }
        if ByteVectors.any(stray(block.v0) .| stray(block.v1) .| stray(block.v2) .| stray(block.v3)) { failed = true }
    }

    /// The backslash-escaped bytes of the block (simdjson's branchless formulation): the byte
    /// after each odd-length run of backslashes, runs continuing from the previous block.
    @inline(__always)
    private mutating func findEscaped(_ backslashIn: UInt64) -> UInt64 {
        let evenBits: UInt64 = 0x5555_5555_5555_5555
        // A backslash escaped by the previous block's last backslash starts nothing.
        let backslash = backslashIn & ~previousEscaped
        let followsEscape = backslash &<< 1 | previousEscaped
        let oddSequenceStarts = backslash & ~evenBits & ~followsEscape
        let (sequencesStartingOnEvenBits, overflow) = oddSequenceStarts.addingReportingOverflow(backslash)
        previousEscaped = overflow ? 1 : 0
        let invertMask = sequencesStartingOnEvenBits &<< 1
        return (evenBits ^ invertMask) & followsEscape
    }

    /// Bit i set when an odd number of bits at or below i are set in `x`.
    @inline(__always)
    static func prefixXOR(_ x: UInt64) -> UInt64 {
        var x = x
        x ^= x &<< 1
        x ^= x &<< 2
        x ^= x &<< 4
        x ^= x &<< 8
        x ^= x &<< 16
        x ^= x &<< 32
        return x
    }

    /// `{ } [ ] , :`, and also `Y _ y` and DEL: `v | 0x26` is 0x7F exactly for `[ ] { }` and
    /// those four. They cannot occur outside strings in a JSON text and are masked inside them,
    /// so where they are taken as operators the text is rejected anyway (stage 2 finds no value
    /// or separator there).
    @inline(__always)
    static func isOperator(_ v: ByteVector) -> ByteVectorMask {
        ((v | ByteVector(repeating: 0x26)) .== ByteVector(repeating: 0x7F))
            .| (v .== ByteVector(repeating: 0x2C)) .| (v .== ByteVector(repeating: 0x3A))
    }

    /// SP, HT, LF, CR (RFC 8259 §2).
    @inline(__always)
    static func isWhitespace(_ v: ByteVector) -> ByteVectorMask {
        (v .== ByteVector(repeating: 0x20)) .| (v .== ByteVector(repeating: 0x0A))
            .| (v .== ByteVector(repeating: 0x0D)) .| (v .== ByteVector(repeating: 0x09))
    }

    /// Whether the block at `p` is well-formed UTF-8 given the three bytes before it (sequences
    /// that continue past the block are checked with the next block, or by `finish`).
    @inline(never)
    static func isValidUTF8(_ p: UnsafeRawPointer, _ block: ByteBlock64) -> Bool {
        // SAFETY: the caller guarantees the three bytes before p are readable.
        let e0 = utf8Errors(block.v0, p - 1, p - 2, p - 3)
        let e1 = utf8Errors(block.v1, p + 15, p + 14, p + 13)
        let e2 = utf8Errors(block.v2, p + 31, p + 30, p + 29)
        let e3 = utf8Errors(block.v3, p + 47, p + 46, p + 45)
        return !ByteVectors.any(e0 .| e1 .| e2 .| e3)
    }

    /// The lanes of `v` that break RFC 3629 §4 given the bytes 1, 2 and 3 positions earlier.
    @inline(__always)
    static func utf8Errors(_ v: ByteVector, _ at1: UnsafeRawPointer, _ at2: UnsafeRawPointer, _ at3: UnsafeRawPointer) -> ByteVectorMask {
        let p1 = ByteVectors.load(at1), p2 = ByteVectors.load(at2), p3 = ByteVectors.load(at3)
        let mustContinue = (p1 .>= ByteVector(repeating: 0xC0)) .| (p2 .>= ByteVector(repeating: 0xE0))
            .| (p3 .>= ByteVector(repeating: 0xF0))
        let isContinuation = (v & ByteVector(repeating: 0xC0)) .== ByteVector(repeating: 0x80)
        var errors = mustContinue .^ isContinuation
        errors = errors .| (v .>= ByteVector(repeating: 0xF5)) .| ByteVectors.inRange(v, 0xC0, 0xC1)
        errors = errors .| ((p1 .== ByteVector(repeating: 0xE0)) .& (v .< ByteVector(repeating: 0xA0)))
        errors = errors .| ((p1 .== ByteVector(repeating: 0xED)) .& (v .> ByteVector(repeating: 0x9F)))
        errors = errors .| ((p1 .== ByteVector(repeating: 0xF0)) .& (v .< ByteVector(repeating: 0x90)))
        errors = errors .| ((p1 .== ByteVector(repeating: 0xF4)) .& (v .> ByteVector(repeating: 0x8F)))
        return errors
    }
}

