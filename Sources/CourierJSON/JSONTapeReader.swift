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
        var scanner = JSONScanner(base: base, count: count)
        scanner.position = payload
        // The text was validated when the tape was built; scanning it again only finds its end.
        let end = (try? scanner.scanNumberFast().upperBound) ?? payload
        return body(UnsafeBufferPointer(start: base + payload, count: end &- payload))
    }

    /// The number of a number word.
    @inline(__always)
    func number(_ word: UInt32) -> JSONNumber {
        if JSONTape.tag(word) == JSONTape.integer { return JSONNumber(JSONTape.payload(word)) }
        let payload = JSONTape.payload(word)
        var scanner = JSONScanner(base: base, count: count)
        scanner.position = payload
        let end = (try? scanner.scanNumberFast().upperBound) ?? payload
        // SAFETY: payload..<end lies within the input.
        return JSONNumber(uncheckedBytes: base + payload, count: end &- payload, available: count &- payload)
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

    // MARK: Conversion to a tree

    /// The value at `index` as an owned `JSONValue` tree (built without recursion).
    func jsonValue(at index: Int) -> JSONValue {
        struct Frame {
            var isObject: Bool
            var next: Int
            var end: Int
            var elements: [JSONValue]
            var members: [JSONObject.Member]
            var pendingName: String
        }
        var stack: [Frame] = []
        var i = index
        while true {
            var value: JSONValue
            let word = tape[i]
            switch JSONTape.tag(word) {
            case JSONTape.literal:
                value = word == JSONTape.null ? .null : .bool(word == JSONTape.trueWord)
                i &+= 1
            case JSONTape.number, JSONTape.integer:
                value = .number(number(word))
                i &+= 1
            case JSONTape.string, JSONTape.escaped:
                value = .string(string(word))
                i &+= 1
            default:
                let isObject = JSONTape.tag(word) == JSONTape.object
                let end = JSONTape.payload(word)
                if end == i &+ 1 {
                    value = isObject ? .object(JSONObject()) : .array([])
                    i = end
                } else {
                    var frame = Frame(isObject: isObject, next: i &+ 1, end: end, elements: [], members: [], pendingName: "")
                    // Exact capacity (a walk over the children, skipping their subtrees): one
                    // allocation per container, not one per doubling.
                    if isObject { frame.members.reserveCapacity(childCount(i)) } else { frame.elements.reserveCapacity(childCount(i)) }
                    if isObject {
                        frame.next = liveMember(from: i &+ 1, end: end)
                        if frame.next >= end {
                            value = .object(JSONObject())
                            i = end
                            break
                        }
                        frame.pendingName = string(tape[frame.next])
                        frame.next &+= 1
                    }
                    i = frame.next
                    stack.append(frame)
                    continue
                }
            }
            // Hand the value to the open containers, closing those that are complete.
            while true {
                guard !stack.isEmpty else { return value }
                let last = stack.count &- 1
                if stack[last].isObject {
                    stack[last].members.append(JSONObject.Member(key: stack[last].pendingName, value: value))
                    let next = liveMember(from: i, end: stack[last].end)
                    if next < stack[last].end {
                        stack[last].pendingName = string(tape[next])
                        i = next &+ 1
                        break
                    }
                    value = .object(JSONObject(stack[last].members))
                    i = stack[last].end
                } else {
                    stack[last].elements.append(value)
                    if i < stack[last].end { break }
                    value = .array(JSONArray(stack[last].elements))
                }
                stack.removeLast()
            }
        }
    }
}
