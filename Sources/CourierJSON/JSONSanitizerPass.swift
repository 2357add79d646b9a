// JSONSanitizerPass: the byte → byte null remover over stage 1's token starts.
//
// What this file owns: one pass that validates like JSONTapeBuilder (same grammar, same checks,
// same fallback to the reference for errors) and writes compact JSON without nulls, without
// repeated names, with strings re-escaped canonically — exactly what JSONWriter writes for the
// document parsed with null removal.
//
// Theory of operation. Most output is input verbatim, so nothing is written per token: input
// bytes runStart..<(current token) are pending and copied in one block only when something must
// be left out (whitespace between tokens, a null item, a comma with nothing kept before it) or
// rewritten (a string with escapes). "Virtual" output positions count pending bytes as written.
// A member's `,"name":` stays pending or is written, and the output is cut back to `mark` (taken
// before it) when its value is `null`. A repeated name records the earlier member's output range
// (name to the comma before the next member) for deletion; the ranges are removed in one
// compaction at the end, with the comma next to each. Names are compared in canonical form —
// the input bytes of a name without escapes, the written bytes of one with escapes — which is
// equal exactly when the decoded names are.
//
// Bound: the output is never longer than the input (whitespace and nulls vanish; an escape is
// rewritten no longer than it was written), so it goes into one region of the input's size.

import CourierBytes

struct JSONSanitizerPass {
    private struct Frame {
        var isObject: Bool
        var hasOutput: Bool
    }

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let maxDepth: Int
    private var out: FixedSink
    private var runStart = 0
    /// The member names of the open objects. A record's `slot` is where the member starts in
    /// the output; its `location` is where its canonical bytes are: an input offset (≥ 0), or
    /// `-1 - x` for output offset x (a name with escapes, written re-escaped).
    private var names = JSONNameSet()
    private var deletions: [(start: Int, end: Int)] = []
    private var scratch: UnsafeMutablePointer<UInt8>? = nil
    private var scratchCapacity = 0

    /// Sanitizes `count` bytes at `base` into `output` (of at least `count` bytes).
    /// - Returns: the output length, or nil when the input is not acceptable (the reference
    ///   parser names the problem).
    static func run(_ base: UnsafePointer<UInt8>, count: Int, limits: JSONParser.Limits, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        var pass = JSONSanitizerPass(base: base, count: count, maxDepth: limits.maxDepth,
                                     out: FixedSink(base: output, capacity: count))
        defer {
            pass.scratch?.deallocate()
            pass.names.deallocate()
        }
        guard pass.run() else { return nil }
        if !pass.deletions.isEmpty { pass.compact() }
        return pass.out.count
    }

    private init(base: UnsafePointer<UInt8>, count: Int, maxDepth: Int, out: FixedSink) {
        self.base = base
        self.count = count
        self.maxDepth = maxDepth
        self.out = out
    }

    /// The output position of input position `position` if everything pending were written.
    @inline(__always)
    private func virtual(_ position: Int) -> Int { out.count &+ (position &- runStart) }

    /// Writes the pending bytes up to `end` and leaves out the bytes up to `resume`.
    @inline(__always)
    private mutating func skip(from end: Int, to resume: Int) {
        out.write(base + runStart, count: end &- runStart)
        runStart = resume
    }

    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    @inline(__always)
    private func endsToken(_ end: Int, next: Int) -> Bool {
        // SAFETY: end < count when end != next.
        end == next || (end < count && JSONSanitizerPass.isWhitespace(base[end]))
    }

    private mutating func run() -> Bool {
        let start = JSONByteOrderMark.length(base, count)
        var s = JSONStructuralScanner(base: base, count: count, start: start)
        var p = s.next()
        guard p < count else { return false }
        runStart = p
        var depth = 0
        var top = Frame(isObject: false, hasOutput: false)
        var outer = JSONStack<Frame>(capacity: 16)
        defer { outer.deallocate() }
        var mark = 0
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                atMemberName = false
                // SAFETY (whole loop): every base[x] is preceded by a check that x < count.
                guard p < count, base[p] == UInt8(ascii: "\"") else { return false }
                let q = s.next()
                guard let end = name(&s, at: p, next: q) else { return false }
                guard q < count, base[q] == UInt8(ascii: ":") else { return false }
                if end != q { skip(from: end, to: q) }
                p = s.next()
                if p != q &+ 1 { skip(from: q &+ 1, to: p) }
            }
            guard p < count else { return false }
            var q: Int
            var end: Int
            let byte = base[p]
            if byte == UInt8(ascii: "n") {
                q = s.next()
                guard literal(at: p, next: q, 0x6C6C_756E) else { return false }
                end = p &+ 4
                if depth > 0 {
                    // Drop the element, or the member with its `,"name":`.
                    out.write(base + runStart, count: p &- runStart)
                    out.count = mark
                    runStart = end
                    if top.isObject { names.removeLast() }
                }
            } else {
                top.hasOutput = true
                switch byte {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < maxDepth else { return false }
                    let isObject = byte == UInt8(ascii: "{")
                    q = s.next()
                    if q != p &+ 1 { skip(from: p &+ 1, to: q) }
                    if q < count && base[q] == byte &+ 2 {
                        end = q &+ 1
                        q = s.next()
                    } else {
                        if depth > 0 { outer.push(top) }
                        depth &+= 1
                        top = Frame(isObject: isObject, hasOutput: false)
                        if isObject { names.openObject() }
                        mark = virtual(q)
                        p = q
                        atMemberName = isObject
                        continue nextValue
                    }
                case UInt8(ascii: "\""):
                    q = s.next()
                    guard let stringEnd = string(&s, at: p, next: q) else { return false }
                    end = stringEnd
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    q = s.next()
                    let number = JSONNumberSyntax.scan(base, count, at: p).end
                    guard number > p, endsToken(number, next: q) else { return false }
                    end = number
                case UInt8(ascii: "t"):
                    q = s.next()
                    guard literal(at: p, next: q, 0x6575_7274) else { return false }
                    end = p &+ 4
                case UInt8(ascii: "f"):
                    q = s.next()
                    guard literal(at: p &+ 1, next: q, 0x6573_6C61) else { return false }
                    end = p &+ 5
                default:
                    return false
                }
            }

            // The value is complete; q is the next token. Continue or close containers.
            while true {
                if end != q && runStart <= end { skip(from: end, to: q) }
                guard depth > 0 else {
                    guard q == count, !s.failed else { return false }
                    out.write(base + runStart, count: end &- runStart)
                    return true
                }
                guard q < count else { return false }
                let next = base[q]
                if next == UInt8(ascii: ",") {
                    if top.hasOutput {
                        // Kept; cut back to before it if the next item is null.
                        mark = virtual(q)
                    } else {
                        // Everything before it was dropped: nothing for it to separate.
                        skip(from: q, to: q &+ 1)
                        mark = out.count
                    }
                    p = s.next()
                    if p != q &+ 1 { skip(from: q &+ 1, to: p) }
                    atMemberName = top.isObject
                    continue nextValue
                }
                guard next == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                if top.isObject { names.closeObject() }
                depth &-= 1
                if depth > 0 {
                    top = outer.pop()
                    // The container itself is output of its parent.
                    top.hasOutput = true
                }
                end = q &+ 1
                q = s.next()
            }
        }
    }

    @inline(__always)
    private func literal(at p: Int, next: Int, _ expected: UInt32) -> Bool {
        guard p &+ 4 <= count else { return false }
        // SAFETY: p + 4 <= count.
        let word = UInt32(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt32.self))
        return word == expected && endsToken(p &+ 4, next: next)
    }

    /// The string at `p`: left pending when it has no escapes, else written re-escaped.
    /// - Returns: the end of the token (after its closing quote), or nil when it is invalid.
    @inline(__always)
    private mutating func string(_ s: inout JSONStructuralScanner, at p: Int, next: Int) -> Int? {
        stringToken(&s, at: p, next: next)?.end
    }

    private struct StringToken {
        var end: Int
        /// The canonical bytes: in the input, or (escaped) in the output.
        var bytes: Int
        var length: Int
        var inOutput: Bool
    }

    @inline(__always)
    private mutating func stringToken(_ s: inout JSONStructuralScanner, at p: Int, next: Int) -> StringToken? {
        var close = next &- 1
        // SAFETY: close >= p >= 0 and close < count.
        while close > p && JSONSanitizerPass.isWhitespace(base[close]) { close &-= 1 }
        guard close > p, base[close] == UInt8(ascii: "\"") else { return nil }
        if !s.hasBackslash(from: p &+ 1, before: next) {
            return StringToken(end: close &+ 1, bytes: p &+ 1, length: close &- p &- 1, inOutput: false)
        }
        // Decode, then write re-escaped in place of the original. Only valid content is never
        // longer re-escaped than written (a raw control byte would grow to `\u00XX`), so stop as
        // soon as stage 1 has seen a problem.
        guard !s.failed else { return nil }
        let rawLength = close &- p &- 1
        if scratchCapacity < rawLength &+ 16 {
            scratch?.deallocate()
            scratchCapacity = max(rawLength &+ 16, scratchCapacity &* 2, 256)
            scratch = .allocate(capacity: scratchCapacity)
        }
        guard let length = JSONEscapes.decode(base, from: p &+ 1, to: close, into: scratch!) else { return nil }
        out.write(base + runStart, count: p &- runStart)
        let quoteAt = out.count
        JSONEscaping.writeQuoted(UnsafeRawBufferPointer(start: scratch!, count: length), to: &out)
        runStart = close &+ 1
        return StringToken(end: close &+ 1, bytes: quoteAt &+ 1, length: out.count &- quoteAt &- 2, inOutput: true)
    }

    /// A member name: written like a string, then checked against the object's earlier names.
    /// - Returns: the end of the name token, or nil when it is invalid.
    @inline(__always)
    private mutating func name(_ s: inout JSONStructuralScanner, at p: Int, next: Int) -> Int? {
        let outputStart = virtual(p)
        guard let token = stringToken(&s, at: p, next: next) else { return nil }
        let pointer = token.inOutput ? UnsafePointer(out.base + token.bytes) : base + token.bytes
        let readable = token.inOutput ? token.length : count &- token.bytes
        let input = base
        let output = UnsafePointer(out.base)
        let replaced = names.add(pointer, length: token.length, readable: readable,
                                 location: token.inOutput ? -1 &- token.bytes : token.bytes, slot: outputStart) { location in
            // SAFETY: locations are input offsets of names without escapes or output offsets of
            // names written re-escaped (before any compaction, which runs only at the end).
            location >= 0 ? input + location : output + (-1 &- location)
        }
        if let replaced {
            // The member runs from its name to the comma before the next member (the record
            // after it: the name just added, or a later one).
            deletions.append((names.record(replaced).slot, names.record(replaced &+ 1).slot &- 1))
        }
        return token.end
    }

    /// Removes the recorded member ranges, each with the comma after it (or, for the last member
    /// of an object, the comma before it).
    private mutating func compact() {
        deletions.sort { $0.start < $1.start }
        let region = out.base
        var read = 0
        var write = 0
        for deletion in deletions where deletion.start >= read {
            // SAFETY: read <= start < end <= out.count; write <= read, so moves go leftwards.
            let keep = deletion.start &- read
            if keep > 0 { (region + write).update(from: region + read, count: keep) }
            write &+= keep
            var end = deletion.end
            if end < out.count && region[end] == UInt8(ascii: ",") {
                end &+= 1
            } else if write > 0 && region[write &- 1] == UInt8(ascii: ",") {
                write &-= 1
            }
            read = end
        }
        let rest = out.count &- read
        if rest > 0 { (region + write).update(from: region + read, count: rest) }
        out.count = write &+ rest
    }
}
