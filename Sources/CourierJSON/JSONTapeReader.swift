// JSONTapeReader: reading a document's tape with raw pointers, for the code that walks a whole
// document inside one borrow of its input (the JSONValue conversion, the writer, the decoder) and
// for JSONDocument.Value's accessors.
//
// Invariants: `base[0..<count]` is the input the tape was built from; every word at an index
// below the tape's count is well formed (JSONDocument.swift); `removed` words appear only where
// a member name would, and skip that member.

import CourierBytes

struct JSONTapeReader {
    let base: UnsafePointer<UInt8>
    let count: Int
    let tape: UnsafePointer<UInt32>
    let strings: UnsafePointer<UInt8>

    init(base: UnsafePointer<UInt8>, count: Int, storage: JSONTapeStorage) {
        self.base = base
        self.count = count
        self.tape = UnsafePointer(storage.tape)
        self.strings = UnsafePointer(storage.strings)
    }

    @inline(__always)
    func word(_ index: Int) -> UInt32 {
        // SAFETY: callers pass indices of words the builder wrote.
        tape[index]
    }

    /// The index after the value at `index` (after its whole subtree).
    @inline(__always)
    func after(_ index: Int) -> Int {
        let word = tape[index]
        return JSONTape.tag(word) >= JSONTape.array ? JSONTape.payload(word) : index &+ 1
    }

    /// The first member name at or after `index` that was not removed, or `end`.
    @inline(__always)
    func liveMember(from index: Int, end: Int) -> Int {
        var i = index
        while i < end && JSONTape.tag(tape[i]) == JSONTape.removed { i &+= JSONTape.payload(tape[i]) }
        return i
    }

    /// The UTF-8 bytes of a string word.
    @inline(__always)
    func stringBytes(_ word: UInt32) -> UnsafeBufferPointer<UInt8> {
        let payload = JSONTape.payload(word)
        if JSONTape.tag(word) == JSONTape.string {
            // SAFETY: raw content lies in the input, followed by its closing quote.
            return UnsafeBufferPointer(start: base + payload, count: JSONStrings.rawLength(base + payload, limit: count &- payload))
        }
        // SAFETY: the side buffer holds a 32-bit length then the bytes at `payload`.
        let length = Int(UnsafeRawPointer(strings + payload).loadUnaligned(as: UInt32.self))
        return UnsafeBufferPointer(start: strings + payload + 4, count: length)
    }

    /// A `String` from a string word (the bytes were validated as UTF-8 by stage 1).
    @inline(__always)
    func string(_ word: UInt32) -> String {
        String(decoding: stringBytes(word), as: UTF8.self)
    }

    /// The text of a number word (`number` or `integer`), as bytes, passed to `body`.
    @inline(__always)
    func withNumberText<R>(_ word: UInt32, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        let payload = JSONTape.payload(word)
        if JSONTape.tag(word) == JSONTape.integer {
            var digits: (UInt64, UInt64) = (0, 0)
            return withUnsafeMutableBytes(of: &digits) { raw in
                let out = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                // SAFETY: a 29-bit value has at most 9 decimal digits; raw has 16 bytes.
                var value = payload
                var n = 0
                repeat {
                    out[15 &- n] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0")
                    value /= 10
                    n &+= 1
                } while value > 0
                return body(UnsafeBufferPointer(start: out + (16 &- n), count: n))
            }
        }
        // The text was validated when the tape was built; only its end is looked for.
        let end = numberEnd(from: payload)
        return body(UnsafeBufferPointer(start: base + payload, count: end &- payload))
    }

    /// The number of a number word.
    @inline(__always)
    func number(_ word: UInt32) -> JSONNumber {
        let payload = JSONTape.payload(word)
        if JSONTape.tag(word) == JSONTape.integer { return JSONNumber(smallInteger: payload) }
        let end = numberEnd(from: payload)
        // SAFETY: payload..<end lies within the input.
        return JSONNumber(uncheckedBytes: base + payload, count: end &- payload, available: count &- payload)
    }

    /// The end of the number text (validated when the tape was built) starting at `start`: the
    /// first byte that is not a digit, `.`, `e`, `E`, `+` or `-`.
    @inline(__always)
    func numberEnd(from start: Int) -> Int {
        var i = start
        while i < count {
            // SAFETY: i < count.
            let byte = base[i]
            if byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: ".") || byte | 0x20 == UInt8(ascii: "e")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") {
                i &+= 1
            } else {
                break
            }
        }
        return i
    }

    /// The number of elements or live members of the container at `index`.
    func childCount(_ index: Int) -> Int {
        let word = tape[index]
        let end = JSONTape.payload(word)
        var i = index &+ 1
        var n = 0
        if JSONTape.tag(word) == JSONTape.object {
            while true {
                i = liveMember(from: i, end: end)
                if i >= end { return n }
                n &+= 1
                i = after(i &+ 1)
            }
        }
        while i < end {
            n &+= 1
            i = after(i)
        }
        return n
    }

    /// The value of the member named `name` in the object at `index`, or nil.
    func member(_ index: Int, named name: UnsafeBufferPointer<UInt8>) -> Int? {
        let end = JSONTape.payload(tape[index])
        var i = index &+ 1
        while true {
            i = liveMember(from: i, end: end)
            if i >= end { return nil }
            let bytes = stringBytes(tape[i])
            if bytes.count == name.count && (name.count == 0 || JSONStrings.equal(bytes.baseAddress!, name.baseAddress!, name.count)) {
                return i &+ 1
            }
            i = after(i &+ 1)
        }
    }
}
