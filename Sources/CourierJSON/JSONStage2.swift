// JSONStage2: the grammar of the vector parser over stage 1's token starts, shared by the outputs
// that need the whole structure — the document's tape (JSONTapeBuilder) and the JSONValue tree
// built directly from the input (JSONTreeBuilder).
//
// What this file owns: the structural grammar (RFC 8259 §2, §4, §5) over token starts, the
// checks stage 1 leaves to it (numbers §6, literals §3, where a string ends), and the nesting
// limit. What a value becomes is the sink's business (JSONStage2Sink): the driver is generic and
// specialised for each sink, so the calls cost nothing.
//
// Theory of operation: no recursion; the kinds of the open containers are a byte stack bounded by
// Limits.maxDepth. A token is read at its start and ends where the next token starts (less
// trailing whitespace), so a string needs no scan at all: its closing quote is the last
// non-whitespace byte before the next token, and stage 1 says whether a backslash occurs inside.
// Numbers and literals are checked where they start and must be followed by whitespace or the
// next token.
//
// Failure: `run` returns false at the first thing it cannot accept (or when stage 1 failed); the
// callers then ask the scalar reference (JSONReferenceParser) for the error's code and offset. So
// the vector path only ever accepts, and the errors are the reference's.

import CourierBytes

/// A string token: its content in the input (between the quotes) and whether stage 1 saw a
/// backslash in it (then the content must be unescaped).
struct JSONStringSpan {
    var start: Int
    var end: Int
    var hasEscapes: Bool
    var length: Int { end &- start }
}

/// What stage 2 tells an output about the values it reads, in document order.
protocol JSONStage2Sink {
    /// A non-empty array or object opens; its first element or member name follows.
    mutating func open(isObject: Bool)
    /// The innermost non-empty container closes.
    mutating func close(isObject: Bool)
    /// An empty array or object (a value).
    mutating func empty(isObject: Bool)
    /// A member name of the innermost container (an object). False rejects the input.
    mutating func name(_ span: JSONStringSpan) -> Bool
    /// A string value. False rejects the input (an invalid escape).
    mutating func string(_ span: JSONStringSpan) -> Bool
    /// A number value (its text is `start..<end`); `small` is its value when it is a plain
    /// non-negative integer below 2^29, else -1.
    mutating func number(start: Int, end: Int, small: Int)
    /// `true` or `false`.
    mutating func bool(_ value: Bool)
    /// `null`; `depth` 0 at top level, `inObject` when it is a member's value.
    mutating func null(depth: Int, inObject: Bool)
}

enum JSONStage2 {
    /// Runs the grammar over the input, telling `sink` what it reads.
    /// - Returns: true when the input is a JSON text (stage 1 included); false otherwise.
    @inline(__always)
    static func run<Sink: JSONStage2Sink>(_ base: UnsafePointer<UInt8>, count: Int, start: Int, maxDepth: Int,
                                          into sink: inout Sink) -> Bool {
        var kinds = JSONStack<Bool>()
        defer { kinds.deallocate() }
        return run(base, count: count, start: start, maxDepth: maxDepth, kinds: &kinds, into: &sink)
    }

    /// `run` with a caller's stack for the kinds of the open containers (emptied first).
    @inline(__always)
    static func run<Sink: JSONStage2Sink>(_ base: UnsafePointer<UInt8>, count: Int, start: Int, maxDepth: Int,
                                          kinds: inout JSONStack<Bool>, into sink: inout Sink) -> Bool {
        kinds.reset()
        var s = JSONStructuralScanner(base: base, count: count, start: start)
        var p = s.next()
        guard p < count else { return false }
        var depth = 0
        var inObject = false
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                atMemberName = false
                // SAFETY (whole loop): every base[x] is preceded by a check that x < count.
                guard p < count, base[p] == UInt8(ascii: "\"") else { return false }
                let q = s.next()
                guard let span = stringSpan(&s, base, at: p, next: q), sink.name(span) else { return false }
                guard q < count, base[q] == UInt8(ascii: ":") else { return false }
                p = s.next()
            }
            guard p < count else { return false }
            var q: Int
            let byte = base[p]
            switch byte {
            case UInt8(ascii: "\""):
                q = s.next()
                guard let span = stringSpan(&s, base, at: p, next: q), sink.string(span) else { return false }
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                q = s.next()
                let (end, small) = JSONNumberSyntax.scan(base, count, at: p)
                guard end > p, endsToken(base, count, end, next: q) else { return false }
                sink.number(start: p, end: end, small: small)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { return false }
                let isObject = byte == UInt8(ascii: "{")
                q = s.next()
                if q < count && base[q] == byte &+ 2 {  // `}` is `{` + 2, `]` is `[` + 2
                    sink.empty(isObject: isObject)
                    q = s.next()
                } else {
                    kinds.push(inObject)
                    depth &+= 1
                    inObject = isObject
                    sink.open(isObject: isObject)
                    p = q
                    atMemberName = isObject
                    continue nextValue
                }
            case UInt8(ascii: "t"):
                q = s.next()
                guard literal(base, count, at: p, next: q, 0x6575_7274, length: 4) else { return false }  // "true"
                sink.bool(true)
            case UInt8(ascii: "f"):
                q = s.next()
                guard literal(base, count, at: p &+ 1, next: q, 0x6573_6C61, length: 4) else { return false }  // "alse"
                sink.bool(false)
            case UInt8(ascii: "n"):
                q = s.next()
                guard literal(base, count, at: p, next: q, 0x6C6C_756E, length: 4) else { return false }  // "null"
                sink.null(depth: depth, inObject: inObject)
            default:
                return false
            }

            // The value is complete; q is the next token. Continue or close containers.
            while true {
                guard depth > 0 else { return q == count && !s.failed }
                guard q < count else { return false }
                let next = base[q]
                if next == UInt8(ascii: ",") {
                    p = s.next()
                    atMemberName = inObject
                    continue nextValue
                }
                guard next == (inObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                sink.close(isObject: inObject)
                depth &-= 1
                inObject = kinds.pop()
                q = s.next()
            }
        }
    }

    // MARK: Tokens

    /// Whether `byte` is JSON whitespace (RFC 8259 §2).
    @inline(__always)
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Whether a scalar ending at `end` is followed by whitespace or the next token at `next`.
    @inline(__always)
    static func endsToken(_ base: UnsafePointer<UInt8>, _ count: Int, _ end: Int, next: Int) -> Bool {
        // SAFETY: end < count is checked before the read.
        end == next || (end < count && isWhitespace(base[end]))
    }

    /// Whether the four bytes at `p` (a little-endian word) are `expected` and the token ends
    /// `length` bytes after `p`.
    @inline(__always)
    static func literal(_ base: UnsafePointer<UInt8>, _ count: Int, at p: Int, next: Int, _ expected: UInt32, length: Int) -> Bool {
        guard p &+ length <= count else { return false }
        // SAFETY: p + 4 <= count.
        let word = UInt32(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt32.self))
        return word == expected && endsToken(base, count, p &+ length, next: next)
    }

    /// The string whose opening quote is at `p`, the next token being at `next`: its closing
    /// quote is the last non-whitespace byte before `next`.
    @inline(__always)
    static func stringSpan(_ s: inout JSONStructuralScanner, _ base: UnsafePointer<UInt8>, at p: Int, next: Int) -> JSONStringSpan? {
        var close = next &- 1
        // SAFETY: p < next, so p <= close < count.
        if base[close] != UInt8(ascii: "\"") {
            while close > p && isWhitespace(base[close]) { close &-= 1 }
            guard base[close] == UInt8(ascii: "\"") else { return nil }
        }
        guard close > p else { return nil }
        return JSONStringSpan(start: p &+ 1, end: close, hasEscapes: s.hasBackslash(from: p &+ 1, before: next))
    }
}

/// A growable stack of a trivial type (no retain or release; elements are never deinitialised),
/// for stage 2's working state. Its buffer can be kept between parses (`reset`).
struct JSONStack<Element> {
    private var base: UnsafeMutablePointer<Element>
    private var capacity: Int
    private(set) var count = 0

    init(capacity: Int = 64) {
        base = .allocate(capacity: capacity)
        self.capacity = capacity
    }

    mutating func deallocate() { base.deallocate() }

    /// Empties the stack, keeping its buffer.
    mutating func reset() { count = 0 }

    @inline(__always)
    mutating func push(_ element: Element) {
        if count == capacity { grow() }
        // SAFETY: count < capacity.
        (base + count).initialize(to: element)
        count &+= 1
    }

    /// The element pushed last; the stack must not be empty.
    @inline(__always)
    mutating func pop() -> Element {
        count &-= 1
        // SAFETY: count was >= 1; the slot was written by push (a trivial type, nothing to release).
        return base[count]
    }

    @inline(never)
    private mutating func grow() {
        let fresh = UnsafeMutablePointer<Element>.allocate(capacity: capacity &* 2)
        // SAFETY: the first `count` elements are initialised (a trivial type).
        fresh.moveInitialize(from: base, count: count)
        base.deallocate()
        base = fresh
        capacity &*= 2
    }
}

/// RFC 8259 §6 numbers, checked where they start.
enum JSONNumberSyntax {
    /// Scans the number at `p` (whose first byte is `-` or a digit).
    /// - Returns: its end (equal to `p` when it is not a number) and its value when it is a plain
    ///   non-negative integer below 2^29 (else -1).
    @inline(__always)
    static func scan(_ base: UnsafePointer<UInt8>, _ count: Int, at p: Int) -> (end: Int, small: Int) {
        // SAFETY (whole function): every base[i] is preceded by a check that i < count.
        var i = p
        let negative = base[i] == UInt8(ascii: "-")
        if negative {
            i &+= 1
            guard i < count else { return (p, -1) }
        }
        let first = base[i] &- UInt8(ascii: "0")
        guard first < 10 else { return (p, -1) }
        i &+= 1
        var value = Int(first)
        if first != 0 {
            // At most nine digits are accumulated (below 10^9, no overflow); longer integers are
            // not small, and their remaining digits are skipped eight at a time.
            let limit = min(count, i &+ 8)
            while i < limit {
                let digit = base[i] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                value = value &* 10 &+ Int(digit)
                i &+= 1
            }
            if i == limit && i < count && base[i] &- UInt8(ascii: "0") < 10 {
                value = Int.max
                i = skipDigits(base, count, from: i)
            }
        }
        var small = negative || value > Int(JSONTape.payloadMask) ? -1 : value
        if i < count && base[i] == UInt8(ascii: ".") {
            i &+= 1
            guard i < count, base[i] &- UInt8(ascii: "0") < 10 else { return (p, -1) }
            i = skipDigits(base, count, from: i &+ 1)
            small = -1
        }
        if i < count && base[i] | 0x20 == UInt8(ascii: "e") {
            i &+= 1
            if i < count && (base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-")) { i &+= 1 }
            guard i < count, base[i] &- UInt8(ascii: "0") < 10 else { return (p, -1) }
            i = skipDigits(base, count, from: i &+ 1)
            small = -1
        }
        return (i, small)
    }

    /// The first position at or after `from` that is not an ASCII digit (or `count`).
    @inline(__always)
    static func skipDigits(_ base: UnsafePointer<UInt8>, _ count: Int, from: Int) -> Int {
        var i = from
        while i &+ 8 <= count {
            // SAFETY: i + 8 <= count.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let mask = JSONScanner.nonDigitMask(word)
            if mask != 0 { return i &+ (mask.trailingZeroBitCount &>> 3) }
            i &+= 8
        }
        // SAFETY: i < count is checked first.
        while i < count && base[i] &- UInt8(ascii: "0") < 10 { i &+= 1 }
        return i
    }
}
