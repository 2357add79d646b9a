// JSONTapeBuilder: stage 2 of the vector parser — the grammar over the token starts of
// JSONStructuralScanner, writing JSONDocument's tape.
//
// What this file owns: the structural grammar (RFC 8259 §2, §4, §5) over token starts, the
// checks stage 1 leaves to it (numbers §6, literals §3, escapes §7), the tape words, null removal
// and the rule for repeated member names.
//
// Theory of operation: no recursion; open containers are frames (the innermost in a local, the
// others on an array), bounded by Limits.maxDepth. A token is read at its start and ends where the
// next token starts (less trailing whitespace), so a string needs no scan at all unless stage 1
// saw a backslash inside it: its closing quote is the last non-whitespace byte before the next
// token. Numbers and literals are checked at their start and must be followed by whitespace or
// the next token.
//
// Repeated names: every open object keeps its names on a stack (tape index and a 32-bit hash of
// the decoded name) and a 128-bit signature of the hashes seen; a name whose signature bit is set
// is compared with the earlier names of its object (by hash, then bytes), through a dictionary
// once the object has more than 32 names, so the check stays linear. A repeated name turns the
// earlier member's name word into a `removed` word that skips the member.
//
// Failure: `run` returns false at the first thing it cannot accept, and stage 1 may have failed
// too; the caller then asks the scalar reference (JSONReferenceParser) for the error's code and
// offset. So the vector path only ever accepts, and the errors are the reference's.
//
// Invariants: tapeCount <= the word bound counted before parsing (each word follows a `,`, `:`
// or opening bracket, or is the root); names[top.nameStart..<nameCount] are the names of the
// innermost open object, in order, each spanning the tape from its index to the next one's.

import CourierBytes

struct JSONTapeBuilder {
    /// A member name of an open object.
    struct Name {
        /// Its tape index; bit 31 set once a later member with the same name removed it.
        var index: UInt32
        var hash: UInt32
        /// The previous name of the same object with the same hash (large objects only), or -1.
        var previous: Int32
    }

    private struct Frame {
        var open: Int
        var isObject: Bool
        var nameStart: Int
        var signature: UInt64
        var signature2: UInt64
        /// For objects of more than 32 names: hash → the latest name with that hash.
        var table: [UInt32: Int32]?
    }

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let start: Int
    private let storage: JSONTapeStorage
    private let maxDepth: Int
    private let dropNulls: Bool
    private var tape: UnsafeMutablePointer<UInt32>
    private var tapeCount = 0
    private let tapeCapacity: Int
    private var names: UnsafeMutablePointer<Name>
    private var nameCount = 0
    private var nameCapacity: Int

    /// Parses `count` bytes at `base` into `storage`.
    /// - Throws: `JSONError`, the reference parser's error for the input.
    static func build(_ base: UnsafePointer<UInt8>, count: Int, options: JSONDocument.Options, into storage: JSONTapeStorage) throws(JSONError) {
        guard count <= JSONDocument.maximumInputSize else {
            throw JSONError(.documentTooLarge, offset: JSONDocument.maximumInputSize)
        }
        let start = JSONByteOrderMark.length(base, count)
        storage.resetTape(words: wordBound(base + start, count &- start))
        storage.resetStrings()
        var builder = JSONTapeBuilder(base: base, count: count, start: start, storage: storage, options: options)
        let accepted = builder.run()
        storage.tapeCount = builder.tapeCount
        storage.names = builder.names
        storage.namesCapacity = builder.nameCapacity
        if accepted { return }
        try JSONReferenceParser.validate(base, count: count, limits: options.limits)
        preconditionFailure("JSONDocument: the vector parser refused input the reference parser accepts")
    }

    private init(base: UnsafePointer<UInt8>, count: Int, start: Int, storage: JSONTapeStorage, options: JSONDocument.Options) {
        self.base = base
        self.count = count
        self.start = start
        self.storage = storage
        self.maxDepth = options.limits.maxDepth
        self.dropNulls = options.removesNullValues
        self.tape = storage.tape
        self.tapeCapacity = storage.tapeCapacity
        self.names = storage.names
        self.nameCapacity = storage.namesCapacity
    }

    // MARK: The grammar

    private mutating func run() -> Bool {
        var s = JSONStructuralScanner(base: base, count: count, start: start)
        var p = s.next()
        guard p < count else { return false }
        var depth = 0
        var top = Frame(open: 0, isObject: false, nameStart: 0, signature: 0, signature2: 0, table: nil)
        var outer: [Frame] = []
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                atMemberName = false
                // SAFETY (whole loop): every base[x] is preceded by a check that x < count.
                guard p < count, base[p] == UInt8(ascii: "\"") else { return false }
                let q = s.next()
                guard writeName(&s, at: p, next: q, in: &top) else { return false }
                guard q < count, base[q] == UInt8(ascii: ":") else { return false }
                p = s.next()
            }
            guard p < count else { return false }
            var q: Int
            let byte = base[p]
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth < maxDepth else { return false }
                let isObject = byte == UInt8(ascii: "{")
                q = s.next()
                if q < count && base[q] == byte &+ 2 {  // `}` is `{` + 2, `]` is `[` + 2
                    emit(JSONTape.word(isObject ? JSONTape.object : JSONTape.array, tapeCount &+ 1))
                    q = s.next()
                } else {
                    if depth > 0 { outer.append(top) }
                    depth &+= 1
                    top = Frame(open: tapeCount, isObject: isObject, nameStart: nameCount, signature: 0, signature2: 0, table: nil)
                    emit(0)
                    p = q
                    atMemberName = isObject
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                q = s.next()
                guard let word = stringWord(&s, at: p, next: q) else { return false }
                emit(word)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                q = s.next()
                guard let word = numberWord(at: p, next: q) else { return false }
                emit(word)
            case UInt8(ascii: "t"):
                q = s.next()
                guard literal(at: p, next: q, 0x6575_7274, length: 4) else { return false }  // "true"
                emit(JSONTape.trueWord)
            case UInt8(ascii: "f"):
                q = s.next()
                guard literal(at: p &+ 1, next: q, 0x6573_6C61, length: 4) else { return false }  // "alse"
                emit(JSONTape.falseWord)
            case UInt8(ascii: "n"):
                q = s.next()
                guard literal(at: p, next: q, 0x6C6C_756E, length: 4) else { return false }  // "null"
                if dropNulls && depth > 0 {
                    // The element is left out; a member loses its name too.
                    if top.isObject { popName(&top) }
                } else {
                    emit(JSONTape.null)
                }
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
                    atMemberName = top.isObject
                    continue nextValue
                }
                guard next == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) else { return false }
                // SAFETY: top.open < tapeCount.
                tape[top.open] = JSONTape.word(top.isObject ? JSONTape.object : JSONTape.array, tapeCount)
                if top.isObject { nameCount = top.nameStart }
                depth &-= 1
                if depth > 0 { top = outer.removeLast() }
                q = s.next()
            }
        }
    }

    @inline(__always)
    private mutating func emit(_ word: UInt32) {
        precondition(tapeCount < tapeCapacity, "JSONDocument: tape bound exceeded")
        // SAFETY: tapeCount < tapeCapacity, checked above.
        tape[tapeCount] = word
        tapeCount &+= 1
    }

    // MARK: Tokens

    /// Whether `byte` is JSON whitespace (RFC 8259 §2).
    @inline(__always)
    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
    }

    /// Whether a scalar ending at `end` is followed by whitespace or the next token at `next`.
    @inline(__always)
    private func endsToken(_ end: Int, next: Int) -> Bool {
        // SAFETY: end < next <= count when end != next.
        end == next || (end < count && JSONTapeBuilder.isWhitespace(base[end]))
    }

    /// A literal's remaining four bytes (as a little-endian word) at `p`.
    @inline(__always)
    private func literal(at p: Int, next: Int, _ expected: UInt32, length: Int) -> Bool {
        guard p &+ length <= count else { return false }
        // SAFETY: p + 4 <= count.
        let word = UInt32(littleEndian: UnsafeRawPointer(base + p).loadUnaligned(as: UInt32.self))
        return word == expected && endsToken(p &+ length, next: next)
    }

    /// The word for the number at `p`, or nil when it is not a number followed by a token end.
    @inline(__always)
    private func numberWord(at p: Int, next: Int) -> UInt32? {
        // The commonest number: a plain integer of at most nine digits, not starting with 0.
        // SAFETY: every base[i] is preceded by i < count.
        if base[p] &- UInt8(ascii: "1") < 9 {
            var value = Int(base[p] &- UInt8(ascii: "0"))
            var i = p &+ 1
            let limit = min(count, p &+ 9)
            while i < limit {
                let digit = base[i] &- UInt8(ascii: "0")
                if digit >= 10 { break }
                value = value &* 10 &+ Int(digit)
                i &+= 1
            }
            if i == count || (base[i] &- UInt8(ascii: "0") >= 10 && base[i] != UInt8(ascii: ".") && base[i] | 0x20 != UInt8(ascii: "e")) {
                guard endsToken(i, next: next) else { return nil }
                if value <= Int(JSONTape.payloadMask) { return JSONTape.word(JSONTape.integer, value) }
                return JSONTape.word(JSONTape.number, p)
            }
        }
        var scanner = JSONScanner(base: base, count: count)
        scanner.position = p
        guard let range = try? scanner.scanNumberFast(), endsToken(range.upperBound, next: next) else { return nil }
        let length = range.count
        // SAFETY: p..<p+length lies within the input.
        if length <= 9 && base[p] != UInt8(ascii: "-") {
            var value = 0
            var i = p
            let end = p &+ length
            while i < end {
                let digit = base[i] &- UInt8(ascii: "0")
                if digit >= 10 { return JSONTape.word(JSONTape.number, p) }
                value = value &* 10 &+ Int(digit)
                i &+= 1
            }
            if value <= Int(JSONTape.payloadMask) { return JSONTape.word(JSONTape.integer, value) }
        }
        return JSONTape.word(JSONTape.number, p)
    }

    /// A string's word and its decoded bytes.
    private struct StringToken {
        var word: UInt32
        var bytes: UnsafePointer<UInt8>
        var length: Int
    }

    /// The word for the string whose opening quote is at `p` (the next token is at `next`).
    @inline(__always)
    private mutating func stringWord(_ s: inout JSONStructuralScanner, at p: Int, next: Int) -> UInt32? {
        stringToken(&s, at: p, next: next)?.word
    }

    /// The string whose opening quote is at `p`: its word and decoded bytes.
    @inline(__always)
    private mutating func stringToken(_ s: inout JSONStructuralScanner, at p: Int, next: Int) -> StringToken? {
        // The closing quote is the last non-whitespace byte before the next token.
        var close = next &- 1
        // SAFETY: close >= p >= 0 and close < count.
        while close > p && JSONTapeBuilder.isWhitespace(base[close]) { close &-= 1 }
        guard close > p, base[close] == UInt8(ascii: "\"") else { return nil }
        if !s.hasBackslash(from: p &+ 1, before: next) {
            return StringToken(word: JSONTape.word(JSONTape.string, p &+ 1), bytes: base + (p &+ 1), length: close &- p &- 1)
        }
        guard let offset = unescape(from: p &+ 1, to: close) else { return nil }
        // SAFETY: the side buffer holds the length word and the bytes at offset.
        let length = Int(UnsafeRawPointer(storage.strings + offset).loadUnaligned(as: UInt32.self))
        return StringToken(word: JSONTape.word(JSONTape.escaped, offset), bytes: UnsafePointer(storage.strings + offset + 4), length: length)
    }

    /// Decodes string content with escapes into the side buffer.
    /// - Returns: the offset of its length word, or nil for an invalid escape.
    private mutating func unescape(from contentStart: Int, to end: Int) -> Int? {
        storage.reserveStrings(4 &+ (end &- contentStart))
        let offset = storage.stringsCount
        // SAFETY: the reservation covers 4 + (end - contentStart) bytes, and decoding never
        // writes more bytes than it reads.
        let output = storage.strings + offset + 4
        guard let length = JSONEscapes.decode(base, from: contentStart, to: end, into: output) else { return nil }
        UnsafeMutableRawPointer(storage.strings + offset).storeBytes(of: UInt32(truncatingIfNeeded: length), as: UInt32.self)
        storage.stringsCount = offset &+ 4 &+ length
        return offset
    }

    // MARK: Member names

    /// Writes the name at `p` and applies the rule for repeated names.
    @inline(__always)
    private mutating func writeName(_ s: inout JSONStructuralScanner, at p: Int, next: Int, in top: inout Frame) -> Bool {
        guard let token = stringToken(&s, at: p, next: next) else { return false }
        let index = tapeCount
        emit(token.word)
        let pointer = token.bytes, length = token.length
        // A raw name is in the input (followed by at least its closing quote); an unescaped one is
        // in the side buffer, which keeps eight bytes of slack.
        let readable = JSONTape.tag(token.word) == JSONTape.string ? count &- (p &+ 1) : length &+ 8
        let hash = JSONTapeBuilder.hash(pointer, length, readable: readable)
        // A 128-bit signature of the names seen: a clear bit proves the name is new.
        let bit: UInt64 = 1 &<< UInt64(hash & 63)
        let seen = hash & 64 == 0 ? top.signature : top.signature2
        if seen & bit != 0 || top.table != nil {
            removeEarlierMember(named: pointer, length, hash: hash, in: &top)
        }
        if hash & 64 == 0 { top.signature |= bit } else { top.signature2 |= bit }
        pushName(Name(index: UInt32(truncatingIfNeeded: index), hash: hash, previous: -1), in: &top)
        return true
    }

    /// The decoded bytes of a name or string word.
    @inline(__always)
    func nameBytes(_ word: UInt32) -> (UnsafePointer<UInt8>, Int) {
        let payload = JSONTape.payload(word)
        if JSONTape.tag(word) == JSONTape.string {
            // SAFETY: the content is followed by its closing quote within the input.
            return (base + payload, JSONStrings.rawLength(base + payload, limit: count &- payload))
        }
        // SAFETY: the side buffer holds a length word then that many bytes at payload.
        let length = Int(UnsafeRawPointer(storage.strings + payload).loadUnaligned(as: UInt32.self))
        return (UnsafePointer(storage.strings + payload + 4), length)
    }

    /// A 32-bit hash of a name's length and its first and last eight bytes (all of a name up to
    /// 16 bytes); equal names hash alike, and the bytes are compared before anything is removed.
    /// - Parameter readable: how many bytes from `pointer` may be read (at least `length`).
    @inline(__always)
    static func hash(_ pointer: UnsafePointer<UInt8>, _ length: Int, readable: Int) -> UInt32 {
        var first: UInt64 = 0
        var last: UInt64 = 0
        if length >= 8 {
            // SAFETY: length >= 8 bytes are readable at pointer.
            first = UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self)
            last = UnsafeRawPointer(pointer + (length &- 8)).loadUnaligned(as: UInt64.self)
        } else if readable >= 8 {
            // SAFETY: 8 bytes are readable; the bytes past the name are masked off.
            first = UInt64(littleEndian: UnsafeRawPointer(pointer).loadUnaligned(as: UInt64.self))
                & ((1 &<< UInt64(length &* 8)) &- 1)
        } else {
            var i = 0
            while i < length {
                // SAFETY: i < length.
                first |= UInt64(pointer[i]) &<< UInt64(i &* 8)
                i &+= 1
            }
        }
        var h = (first ^ UInt64(length)) &* 0x9E37_79B9_7F4A_7C15
        h = (h ^ last ^ (h &>> 29)) &* 0xC2B2_AE3D_27D4_EB4F
        return UInt32(truncatingIfNeeded: h &>> 32)
    }

    @inline(__always)
    private mutating func pushName(_ name: Name, in top: inout Frame) {
        if nameCount == nameCapacity { growNames() }
        var name = name
        if top.table != nil {
            name.previous = top.table![name.hash] ?? -1
            top.table![name.hash] = Int32(truncatingIfNeeded: nameCount)
        }
        // SAFETY: nameCount < nameCapacity.
        names[nameCount] = name
        nameCount &+= 1
        if top.table == nil && nameCount &- top.nameStart > 32 { buildTable(&top) }
    }

    /// Drops the last name (its member's value was a null being removed) and its tape word.
    @inline(__always)
    private mutating func popName(_ top: inout Frame) {
        nameCount &-= 1
        tapeCount &-= 1
        if top.table != nil {
            // SAFETY: nameCount is the index of the name just popped.
            let name = names[nameCount]
            if name.previous >= 0 { top.table![name.hash] = name.previous } else { top.table![name.hash] = nil }
        }
    }

    private mutating func buildTable(_ top: inout Frame) {
        var table: [UInt32: Int32] = [:]
        var i = top.nameStart
        while i < nameCount {
            // SAFETY: i < nameCount.
            names[i].previous = table[names[i].hash] ?? -1
            table[names[i].hash] = Int32(truncatingIfNeeded: i)
            i &+= 1
        }
        top.table = table
    }

    /// Finds the live earlier member with the same name, if any, and removes it.
    @inline(never)
    private mutating func removeEarlierMember(named pointer: UnsafePointer<UInt8>, _ length: Int, hash: UInt32, in top: inout Frame) {
        var i: Int
        if let table = top.table {
            i = Int(table[hash] ?? -1)
        } else {
            i = nameCount &- 1
        }
        while i >= top.nameStart {
            // SAFETY: nameStart <= i < nameCount.
            let name = names[i]
            if name.hash == hash && name.index & 0x8000_0000 == 0 {
                let (other, otherLength) = nameBytes(tape[Int(name.index)])
                if otherLength == length && JSONStrings.equal(other, pointer, length) {
                    // The member spans from its name to the next name (or the new one).
                    let end = i &+ 1 < nameCount ? Int(names[i &+ 1].index & 0x7FFF_FFFF) : tapeCount &- 1
                    tape[Int(name.index)] = JSONTape.word(JSONTape.removed, end &- Int(name.index))
                    names[i].index |= 0x8000_0000
                    return
                }
            }
            i = top.table != nil ? Int(name.previous) : i &- 1
        }
    }

    @inline(never)
    private mutating func growNames() {
        let capacity = nameCapacity &* 2
        let fresh = UnsafeMutablePointer<Name>.allocate(capacity: capacity)
        // SAFETY: the first nameCount entries are initialised (a trivial type); fresh has room.
        fresh.update(from: names, count: nameCount)
        names.deallocate()
        names = fresh
        nameCapacity = capacity
    }

    // MARK: The tape bound

    /// 1 + the number of `,` `:` `[` `{` bytes: at least the number of tape words any parse of
    /// these bytes writes (see the invariants).
    static func wordBound(_ p: UnsafePointer<UInt8>, _ n: Int) -> Int {
        var total = 2
        var i = 0
        let comma = ByteVector(repeating: UInt8(ascii: ",")), colon = ByteVector(repeating: UInt8(ascii: ":"))
        let brace = ByteVector(repeating: UInt8(ascii: "{")), bit5 = ByteVector(repeating: 0x20)
        while i &+ 16 <= n {
            // Per-lane counters, emptied before they can wrap.
            var lanes = ByteVector()
            let limit = min(n, i &+ 16 &* 255)
            while i &+ 16 <= limit {
                // SAFETY: i + 16 <= n.
                let v = ByteVectors.load(p + i)
                let hit = (v .== comma) .| (v .== colon) .| ((v | bit5) .== brace)
                lanes = lanes &- ByteVectors.bytes(hit)
                i &+= 16
            }
            total &+= Int(SIMD16<UInt16>(truncatingIfNeeded: lanes).wrappedSum())
        }
        while i < n {
            // SAFETY: i < n.
            let byte = p[i]
            if byte == UInt8(ascii: ",") || byte == UInt8(ascii: ":") || byte | 0x20 == UInt8(ascii: "{") { total &+= 1 }
            i &+= 1
        }
        return total
    }
}

/// RFC 8259 §8.1: a parser MAY ignore a byte order mark; JSONSerialization does.
enum JSONByteOrderMark {
    /// 3 when the input starts with EF BB BF, else 0.
    @inline(__always)
    static func length(_ base: UnsafePointer<UInt8>, _ count: Int) -> Int {
        // SAFETY: three bytes are read only when count >= 3.
        count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF ? 3 : 0
    }
}

/// Byte-level helpers for string content already validated.
enum JSONStrings {
    /// The length of raw string content (no escapes) at `p`: the distance to its closing quote.
    /// - Parameters:
    ///   - p: the first content byte.
    ///   - limit: how many bytes from `p` may be read (the closing quote is among them).
    @inline(__always)
    static func rawLength(_ p: UnsafePointer<UInt8>, limit: Int) -> Int {
        var i = 0
        let quote = ByteVector(repeating: UInt8(ascii: "\""))
        while i &+ 16 <= limit {
            // SAFETY: i + 16 <= limit.
            let lane = ByteVectors.firstLane(ByteVectors.load(p + i) .== quote)
            if lane < 16 { return i &+ lane }
            i &+= 16
        }
        // SAFETY: the closing quote lies within the limit.
        while p[i] != UInt8(ascii: "\"") { i &+= 1 }
        return i
    }

    /// Whether `length` bytes at `a` and `b` are equal.
    @inline(__always)
    static func equal(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ length: Int) -> Bool {
        var i = 0
        // SAFETY: both ranges hold `length` readable bytes.
        while i &+ 8 <= length {
            if UnsafeRawPointer(a + i).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(b + i).loadUnaligned(as: UInt64.self) { return false }
            i &+= 8
        }
        while i < length {
            if a[i] != b[i] { return false }
            i &+= 1
        }
        return true
    }
}
