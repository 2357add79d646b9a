// JSONTapeBuilder: the document's tape, written as stage 2 (JSONStage2) reads the input.
//
// What this file owns: the tape words (JSONDocument.swift), null removal and the rule for
// repeated member names on the tape, and the bound on the tape's size.
//
// Theory of operation: JSONStage2 runs the grammar and calls this sink once per value. A scalar
// is one word; a container's word is written when it opens and completed with its end index when
// it closes; a member name is one word, a string without escapes refers to the input, one with
// escapes is unescaped into the side buffer. Repeated names (JSONNameSet): when a name repeats
// in its object, the earlier member's name word becomes a `removed` word that skips the member
// (name and value), so readers never see it. With null removal a null element writes nothing
// and a null member takes back its name word.
//
// Failure: stage 2 returns false at the first thing it cannot accept; the caller then asks the
// scalar reference (JSONReferenceParser) for the error's code and offset.
//
// Invariants: tapeCount <= the word bound counted before parsing (each word follows a `,`, `:`
// or opening bracket, or is the root); opens holds the tape index of every open non-empty
// container, innermost last; the name records of the innermost object are its live and removed
// names in order, record k's slot being the tape index of its name word.

import CourierBytes

struct JSONTapeBuilder: JSONStage2Sink {
    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let storage: JSONTapeStorage
    private let dropNulls: Bool
    private var tape: UnsafeMutablePointer<UInt32>
    private var tapeCount = 0
    private let tapeCapacity: Int
    private var opens: JSONStack<Int>
    private var names: JSONNameSet

    /// Parses `count` bytes at `base` into `storage`.
    /// - Throws: `JSONError`, the reference parser's error for the input.
    static func build(_ base: UnsafePointer<UInt8>, count: Int, options: JSONDocument.Options, into storage: JSONTapeStorage) throws(JSONError) {
        guard count <= JSONDocument.maximumInputSize else {
            throw JSONError(.documentTooLarge, offset: JSONDocument.maximumInputSize)
        }
        let start = JSONByteOrderMark.length(base, count)
        storage.resetTape(words: wordBound(base + start, count &- start))
        storage.resetStrings()
        var builder = JSONTapeBuilder(base: base, count: count, storage: storage, options: options)
        var kinds = storage.scratch.kinds
        let accepted = JSONStage2.run(base, count: count, start: start, maxDepth: options.limits.maxDepth,
                                      kinds: &kinds, into: &builder)
        // The stacks may have grown (new buffers): the storage keeps the current ones.
        storage.scratch = JSONStage2Scratch(kinds: kinds, opens: builder.opens, names: builder.names)
        storage.tapeCount = builder.tapeCount
        if accepted { return }
        try JSONReferenceParser.validate(base, count: count, limits: options.limits)
        preconditionFailure("JSONDocument: the vector parser refused input the reference parser accepts")
    }

    private init(base: UnsafePointer<UInt8>, count: Int, storage: JSONTapeStorage, options: JSONDocument.Options) {
        self.base = base
        self.count = count
        self.storage = storage
        self.dropNulls = options.removesNullValues
        self.tape = storage.tape
        self.tapeCapacity = storage.tapeCapacity
        self.opens = storage.scratch.opens
        self.opens.reset()
        self.names = storage.scratch.names
        self.names.reset()
    }

    @inline(__always)
    private mutating func emit(_ word: UInt32) {
        precondition(tapeCount < tapeCapacity, "JSONDocument: tape bound exceeded")
        // SAFETY: tapeCount < tapeCapacity, checked above.
        tape[tapeCount] = word
        tapeCount &+= 1
    }

    // MARK: JSONStage2Sink

    @inline(__always)
    mutating func open(isObject: Bool) {
        opens.push(tapeCount)
        emit(0)
        if isObject { names.openObject() }
    }

    @inline(__always)
    mutating func close(isObject: Bool) {
        let index = opens.pop()
        // SAFETY: index < tapeCount (its word was emitted when the container opened).
        tape[index] = JSONTape.word(isObject ? JSONTape.object : JSONTape.array, tapeCount)
        if isObject { names.closeObject() }
    }

    @inline(__always)
    mutating func empty(isObject: Bool) {
        emit(JSONTape.word(isObject ? JSONTape.object : JSONTape.array, tapeCount &+ 1))
    }

    @inline(__always)
    mutating func string(_ span: JSONStringSpan) -> Bool {
        guard let word = stringWord(span) else { return false }
        emit(word)
        return true
    }

    @inline(__always)
    mutating func number(start: Int, end: Int, small: Int) {
        emit(small >= 0 ? JSONTape.word(JSONTape.integer, small) : JSONTape.word(JSONTape.number, start))
    }

    @inline(__always)
    mutating func bool(_ value: Bool) {
        emit(value ? JSONTape.trueWord : JSONTape.falseWord)
    }

    @inline(__always)
    mutating func null(depth: Int, inObject: Bool) {
        if dropNulls && depth > 0 {
            // The element is left out; a member takes back its name.
            if inObject {
                names.removeLast()
                tapeCount &-= 1
            }
        } else {
            emit(JSONTape.null)
        }
    }

    @inline(__always)
    mutating func name(_ span: JSONStringSpan) -> Bool {
        guard let word = stringWord(span) else { return false }
        let index = tapeCount
        emit(word)
        let bytes: UnsafePointer<UInt8>
        let length: Int
        let readable: Int
        if span.hasEscapes {
            // SAFETY: the side buffer holds a length word then the bytes, plus eight bytes of slack.
            let offset = JSONTape.payload(word)
            length = Int(UnsafeRawPointer(storage.strings + offset).loadUnaligned(as: UInt32.self))
            bytes = UnsafePointer(storage.strings + offset + 4)
            readable = length &+ 8
        } else {
            // A raw name is in the input, followed by at least its closing quote.
            bytes = base + span.start
            length = span.length
            readable = count &- span.start
        }
        let tape = self.tape
        let input = base
        let strings = storage.strings
        let replaced = names.add(bytes, length: length, readable: readable, location: index, slot: index) { location in
            // SAFETY: the location is the tape index of an earlier name word.
            let word = tape[location]
            let payload = JSONTape.payload(word)
            return JSONTape.tag(word) == JSONTape.string ? input + payload : UnsafePointer(strings + payload + 4)
        }
        if let replaced {
            // The earlier member spans from its name word to the next name's word.
            let start = names.record(replaced).slot
            let end = names.record(replaced &+ 1).slot
            // SAFETY: start < tapeCount.
            self.tape[start] = JSONTape.word(JSONTape.removed, end &- start)
        }
        return true
    }

    // MARK: Strings

    /// The word for a string: its input offset when it has no escapes, else its unescaped copy in
    /// the side buffer (nil for an invalid escape).
    @inline(__always)
    private mutating func stringWord(_ span: JSONStringSpan) -> UInt32? {
        if !span.hasEscapes { return JSONTape.word(JSONTape.string, span.start) }
        guard let offset = unescape(from: span.start, to: span.end) else { return nil }
        return JSONTape.word(JSONTape.escaped, offset)
    }

    /// Decodes string content with escapes into the side buffer.
    /// - Returns: the offset of its length word, or nil for an invalid escape.
    @inline(never)
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
