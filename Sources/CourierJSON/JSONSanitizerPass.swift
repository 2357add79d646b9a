// JSONSanitizerPass: the byte → byte null remover.
//
// What this file owns: one pass that validates like the parsers (the reference's scanner,
// JSONScanner, for every token; anything it rejects goes to the reference for the error's code
// and offset) and writes compact JSON without nulls, without repeated names, with strings
// re-escaped canonically — exactly what JSONWriter writes for the document parsed with null
// removal.
//
// Why byte by byte and not over stage 1's token starts, as the parsers are: the output is mostly
// the input copied, so the pass does little per token, and stage 1's classification (about eight
// instructions a byte with portable SIMD16 and no movemask) cost more than the scalar scan it
// replaced. Over stage 1 this pass took 26 instructions a byte on the benchmark document; byte by
// byte it takes 19 (callgrind), of which the check for repeated names is about 8.
//
// Theory of operation. Most output is input verbatim, so nothing is written per token: input
// bytes runStart..<(current position) are pending and copied in one block only when something
// must be left out (whitespace between tokens, a null item, a comma with nothing kept before it)
// or rewritten (a string with escapes). "Virtual" output positions count pending bytes as written.
// A member's `,"name":` stays pending or is written, and the output is cut back to `mark` (taken
// before it) when its value is `null`. Repeated names (JSONNameSet): a repeated name records the
// earlier member's output range (name to the comma before the next member) for deletion; the
// ranges are removed in one compaction at the end, with the comma next to each. Names are
// compared in canonical form — the input bytes of a name without escapes, the written bytes of
// one with escapes — which is equal exactly when the decoded names are.
//
// Bound: the output is never longer than the input (whitespace and nulls vanish; an escape is
// rewritten no longer than it was written, and content is validated before it is written), so it
// goes into one region of the input's size.

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

    /// Sanitizes `count` bytes at `base` into `output` (of at least `count` bytes).
    /// - Returns: the output length, or nil when the input is not acceptable (the reference
    ///   parser names the problem).
    static func run(_ base: UnsafePointer<UInt8>, count: Int, limits: JSONParser.Limits, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        var pass = JSONSanitizerPass(base: base, count: count, maxDepth: limits.maxDepth,
                                     out: FixedSink(base: output, capacity: count))
        defer {
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

    /// The pass over the input.
    /// - Returns: false at the first thing it cannot accept (the reference names it).
    private mutating func run() -> Bool {
        do throws(JSONError) {
            try loop()
            return true
        } catch {
            return false
        }
    }

    private mutating func loop() throws(JSONError) {
        var s = JSONScanner(base: base, count: count)
        s.position = JSONByteOrderMark.length(base, count)
        s.skipWhitespace()
        guard !s.isAtEnd else { throw s.endOfInput() }
        runStart = s.position
        var depth = 0
        var top = Frame(isObject: false, hasOutput: false)
        var outer = JSONStack<Frame>(capacity: 16)
        defer { outer.deallocate() }
        var stringScratch: [UInt8] = []
        // The virtual output length before the current item's comma (or before the item itself
        // when its comma was dropped or it has none): where a null item is cut back to.
        var mark = 0
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                atMemberName = false
                guard !s.isAtEnd, s.current == UInt8(ascii: "\"") else { throw s.endOfInput() }
                try name(&s, scratch: &stringScratch)
                skipWhitespace(&s)
                guard !s.isAtEnd, s.current == UInt8(ascii: ":") else { throw s.endOfInput() }
                s.position &+= 1
                skipWhitespace(&s)
            }
            guard !s.isAtEnd else { throw s.endOfInput() }
            let first = s.current
            if first == UInt8(ascii: "n") {
                let start = s.position
                try s.scanNull()
                if depth > 0 {
                    // Drop the element, or the member with its `,"name":`: the pending bytes up
                    // to the null are written and cut back off with what was already written.
                    out.write(base + runStart, count: start &- runStart)
                    out.count = mark
                    runStart = s.position
                    if top.isObject { names.removeLast() }
                }
            } else {
                top.hasOutput = true
                switch first {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < maxDepth else { throw s.endOfInput() }
                    let isObject = first == UInt8(ascii: "{")
                    s.position &+= 1
                    skipWhitespace(&s)
                    guard !s.isAtEnd else { throw s.endOfInput() }
                    if s.current == first &+ 2 {  // `}` is `{` + 2, `]` is `[` + 2
                        s.position &+= 1
                    } else {
                        if depth > 0 { outer.push(top) }
                        depth &+= 1
                        top = Frame(isObject: isObject, hasOutput: false)
                        if isObject { names.openObject() }
                        mark = virtual(s.position)
                        atMemberName = isObject
                        continue nextValue
                    }
                case UInt8(ascii: "\""):
                    _ = try string(&s, scratch: &stringScratch)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    _ = try s.scanNumberFast()
                case UInt8(ascii: "t"):
                    try s.scanTrue()
                case UInt8(ascii: "f"):
                    try s.scanFalse()
                default:
                    throw s.endOfInput()
                }
            }

            // The value is complete: continue or close the open containers.
            while true {
                skipWhitespace(&s)
                guard depth > 0 else {
                    guard s.isAtEnd else { throw s.endOfInput() }
                    out.write(base + runStart, count: s.position &- runStart)
                    return
                }
                guard !s.isAtEnd else { throw s.endOfInput() }
                let byte = s.current
                if byte == UInt8(ascii: ",") {
                    if top.hasOutput {
                        // Kept; cut back to before it if the next item is null.
                        mark = virtual(s.position)
                        s.position &+= 1
                    } else {
                        // Everything before it was dropped: nothing for it to separate.
                        out.write(base + runStart, count: s.position &- runStart)
                        s.position &+= 1
                        runStart = s.position
                        mark = out.count
                    }
                    skipWhitespace(&s)
                    atMemberName = top.isObject
                    continue nextValue
                }
                guard byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { throw s.endOfInput() }
                s.position &+= 1
                if top.isObject { names.closeObject() }
                depth &-= 1
                if depth > 0 {
                    top = outer.pop()
                    // The container itself is output of its parent.
                    top.hasOutput = true
                }
            }
        }
    }

    /// Skips whitespace; a non-empty run is left out of the output (the pending bytes before it
    /// are written first).
    @inline(__always)
    private mutating func skipWhitespace(_ s: inout JSONScanner) {
        guard !s.isAtEnd, s.current <= 0x20 else { return }
        let start = s.position
        s.skipWhitespace()
        if s.position != start { skip(from: start, to: s.position) }
    }

    /// A string at the cursor: content without escapes is canonical and stays pending; content
    /// with escapes is decoded and written re-escaped.
    /// - Returns: where its canonical content is (an input offset, or -1 - an output offset)
    ///   and its length.
    @inline(__always)
    private mutating func string(_ s: inout JSONScanner, scratch: inout [UInt8]) throws(JSONError) -> (location: Int, length: Int) {
        let quote = s.position
        let scanned = try s.scanString(scratch: &scratch)
        if !scanned.isDecoded { return (scanned.start, scanned.end &- scanned.start) }
        out.write(base + runStart, count: quote &- runStart)
        let quoteAt = out.count
        scratch.withUnsafeBytes { JSONEscaping.writeQuoted($0, to: &out) }
        runStart = s.position
        return (-1 &- (quoteAt &+ 1), out.count &- quoteAt &- 2)
    }

    /// A member name at the cursor: scanned like a string, then checked against the earlier
    /// names of its object.
    @inline(__always)
    private mutating func name(_ s: inout JSONScanner, scratch: inout [UInt8]) throws(JSONError) {
        let outputStart = virtual(s.position)
        let (location, length) = try string(&s, scratch: &scratch)
        let input = base
        let output = UnsafePointer(out.base)
        let pointer = location >= 0 ? input + location : output + (-1 &- location)
        let readable = location >= 0 ? count &- location : length
        let replaced = names.add(pointer, length: length, readable: readable, location: location, slot: outputStart) { location in
            // SAFETY: locations are input offsets of names without escapes or output offsets of
            // names written re-escaped (before any compaction, which runs only at the end).
            location >= 0 ? input + location : output + (-1 &- location)
        }
        if let replaced {
            // The member runs from its name to the comma before the next member (the record
            // after it: the name just added, or a later one).
            deletions.append((names.record(replaced).slot, names.record(replaced &+ 1).slot &- 1))
        }
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
