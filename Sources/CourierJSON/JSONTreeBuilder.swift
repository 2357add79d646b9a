// The conversion of a document's tape to an owned JSONValue tree (JSONParser's output,
// `JSONValue(document.root)`).
//
// Theory of operation: one pass over the tape in document order, no recursion. Finished values
// wait on JSONBuildStack's value stack and member names on its key stack; when the tape index
// reaches a container's end (its word holds it), the container's slice of the stacks is MOVED
// into an array of exactly its size (no retain or release per value, no regrowth). Member names
// repeat in every record of a typical document, so they come from JSONStringCache (built and
// validated once); values are mostly unique and are built directly. Small integers on the tape
// become inline JSONNumbers without any String.
//
// Heights: every frame tracks the height of its tree (1 + the tallest child container), so
// each container is built plain or boxed by the rule of JSONArray.swift (plain when releasing it
// cannot recurse deeply) without looking at its children again.
//
// Invariants: stack.valueCount - top.valueStart values (and, in an object, as many names) belong
// to the innermost open container `top`; `i` is a tape index inside `top`, at a member name (in
// an object) or a value, or equal to `top.end` when the container is complete.

extension JSONTapeReader {
    /// The value at `index` as an owned `JSONValue` tree (built without recursion).
    func jsonValue(at index: Int) -> JSONValue {
        let word = tape[index]
        if JSONTape.tag(word) < JSONTape.array { return scalar(word) }
        return tree(at: index)
    }

    /// The value of a word that is not a container.
    @inline(__always)
    func scalar(_ word: UInt32) -> JSONValue {
        switch JSONTape.tag(word) {
        case JSONTape.literal: return word == JSONTape.null ? .null : .bool(word == JSONTape.trueWord)
        case JSONTape.integer: return .number(JSONNumber(smallInteger: JSONTape.payload(word)))
        case JSONTape.number: return .number(number(word))
        default: return .string(string(word))
        }
    }

    private struct TreeFrame {
        var isObject: Bool
        var end: Int
        var valueStart: Int
        var keyStart: Int
        /// 1 + the height of the tallest child container so far (1: only scalars).
        var height: Int
    }

    /// The container at `index` as a tree.
    private func tree(at index: Int) -> JSONValue {
        var stack = JSONBuildStack()
        var cache = JSONStringCache(base: base, count: count)
        defer {
            stack.destroy()
            cache.destroy()
        }
        var outer: [TreeFrame] = []
        var top = TreeFrame(isObject: JSONTape.tag(tape[index]) == JSONTape.object, end: JSONTape.payload(tape[index]),
                            valueStart: 0, keyStart: 0, height: 1)
        var i = index &+ 1
        while true {
            if top.isObject {
                // SAFETY (whole loop): i < top.end <= the tape's count whenever a word is read.
                while i < top.end && JSONTape.tag(tape[i]) == JSONTape.removed { i &+= JSONTape.payload(tape[i]) }
                if i < top.end {
                    stack.pushKey(key(tape[i], &cache))
                    i &+= 1
                }
            }
            if i < top.end {
                let word = tape[i]
                let tag = JSONTape.tag(word)
                if tag < JSONTape.array {
                    stack.push(scalar(word))
                    i &+= 1
                    continue
                }
                let end = JSONTape.payload(word)
                if end == i &+ 1 {
                    // An empty container: height 1.
                    stack.push(tag == JSONTape.object ? .object(JSONObject()) : .array(JSONArray()))
                    if top.height < 2 { top.height = 2 }
                    i = end
                    continue
                }
                outer.append(top)
                top = TreeFrame(isObject: tag == JSONTape.object, end: end, valueStart: stack.valueCount,
                                keyStart: stack.keyCount, height: 1)
                i &+= 1
                continue
            }
            // The container is complete (i == top.end): move its slice into it.
            let value: JSONValue
            if top.isObject {
                value = .object(JSONObject(members: stack.moveMembers(valueStart: top.valueStart, keyStart: top.keyStart),
                                           height: top.height))
            } else {
                value = .array(JSONArray(elements: stack.moveArray(from: top.valueStart), height: top.height))
            }
            guard let parent = outer.popLast() else { return value }
            let height = top.height
            top = parent
            if top.height <= height { top.height = height &+ 1 }
            stack.push(value)
        }
    }

    /// A member name's `String`: raw names through the cache, unescaped ones built directly.
    @inline(__always)
    private func key(_ word: UInt32, _ cache: inout JSONStringCache) -> String {
        let payload = JSONTape.payload(word)
        if JSONTape.tag(word) == JSONTape.string {
            // SAFETY: raw content lies in the input, followed by its closing quote.
            return cache.string(start: payload, length: JSONStrings.rawLength(base + payload, limit: count &- payload))
        }
        return string(word)
    }
}

// MARK: - Parsing straight to a tree

// JSONTreeBuilder: a JSONValue tree built directly as stage 2 (JSONStage2) reads the input, with
// no tape — what JSONParser returns.
//
// The same value and key stacks as the tape conversion above (slices moved into each container
// when it closes, exact sizes), the same member-name cache, heights tracked per open container.
// Repeated names follow the document's rule (JSONNameSet): when a name repeats, the earlier
// member is marked, and its object leaves the marked members out when it closes. Unescaped member
// names are kept in `escapedNames` for those comparisons, raw ones are compared in the input.
//
// Invariants: `frames` holds the enclosing containers of `top` (top-level: depth 0, no frame);
// in an object, member k of `top` is key keyStart + k, value valueStart + k and name record
// names.objectStart + k (once its value is read), so the marks line up with the stacks.

struct JSONTreeBuilder: JSONStage2Sink {
    private struct Frame {
        var valueStart: Int
        var keyStart: Int
        /// 1 + the height of the tallest child container so far (1: only scalars).
        var height: Int
        /// Whether a later member replaced an earlier one (the object must drop marked members).
        var hasRemoved: Bool
    }

    private let base: UnsafePointer<UInt8>
    private let count: Int
    private let dropNulls: Bool
    private var stack = JSONBuildStack()
    private var cache: JSONStringCache
    private var frames = JSONStack<Frame>(capacity: 16)
    private var top = Frame(valueStart: 0, keyStart: 0, height: 1, hasRemoved: false)
    private var depth = 0
    private var names = JSONNameSet()
    /// Unescaped member names (for comparisons with later names) and unescaped strings.
    private var escapedNames: UnsafeMutablePointer<UInt8>
    private var escapedNamesCount = 0
    private var escapedNamesCapacity = 0
    private var scratch: UnsafeMutablePointer<UInt8>
    private var scratchCapacity = 0
    private var result: JSONValue = .null

    /// Parses `count` bytes at `base` (at most JSONDocument.maximumInputSize) into a tree.
    /// - Throws: `JSONError`, the reference parser's error for the input.
    static func parse(_ base: UnsafePointer<UInt8>, count: Int, limits: JSONParser.Limits, removesNullValues: Bool) throws(JSONError) -> JSONValue {
        var builder = JSONTreeBuilder(base: base, count: count, dropNulls: removesNullValues)
        defer { builder.destroy() }
        let start = JSONByteOrderMark.length(base, count)
        if JSONStage2.run(base, count: count, start: start, maxDepth: limits.maxDepth, into: &builder) {
            return builder.result
        }
        try JSONReferenceParser.validate(base, count: count, limits: limits)
        preconditionFailure("JSONParser: the vector parser refused input the reference parser accepts")
    }

    private init(base: UnsafePointer<UInt8>, count: Int, dropNulls: Bool) {
        self.base = base
        self.count = count
        self.dropNulls = dropNulls
        cache = JSONStringCache(base: base, count: count)
        escapedNames = .allocate(capacity: 1)
        scratch = .allocate(capacity: 1)
    }

    private mutating func destroy() {
        stack.destroy()
        cache.destroy()
        frames.deallocate()
        names.deallocate()
        escapedNames.deallocate()
        scratch.deallocate()
    }

    /// Hands a finished value to the innermost open container (or makes it the result).
    @inline(__always)
    private mutating func deliver(_ value: __owned JSONValue) {
        if depth == 0 {
            result = value
        } else {
            stack.push(value)
        }
    }

    // MARK: JSONStage2Sink

    @inline(__always)
    mutating func open(isObject: Bool) {
        if depth > 0 { frames.push(top) }
        depth &+= 1
        top = Frame(valueStart: stack.valueCount, keyStart: stack.keyCount, height: 1, hasRemoved: false)
        if isObject { names.openObject() }
    }

    @inline(__always)
    mutating func close(isObject: Bool) {
        let value: JSONValue
        if isObject {
            let members: [JSONObject.Member]
            if top.hasRemoved {
                let first = names.objectStart
                let names = self.names
                members = stack.moveMembers(valueStart: top.valueStart, keyStart: top.keyStart) { k in
                    names.record(first &+ k).removed
                }
            } else {
                members = stack.moveMembers(valueStart: top.valueStart, keyStart: top.keyStart)
            }
            names.closeObject()
            value = .object(JSONObject(members: members, height: top.height))
        } else {
            value = .array(JSONArray(elements: stack.moveArray(from: top.valueStart), height: top.height))
        }
        let height = top.height
        depth &-= 1
        if depth > 0 {
            top = frames.pop()
            if top.height <= height { top.height = height &+ 1 }
        }
        deliver(value)
    }

    @inline(__always)
    mutating func empty(isObject: Bool) {
        if depth > 0 && top.height < 2 { top.height = 2 }
        deliver(isObject ? .object(JSONObject()) : .array(JSONArray()))
    }

    @inline(__always)
    mutating func string(_ span: JSONStringSpan) -> Bool {
        if !span.hasEscapes {
            // SAFETY: the content lies in the input and was validated as UTF-8 by stage 1.
            deliver(.string(JSONStringCache.make(base + span.start, span.length)))
            return true
        }
        guard let length = unescape(span) else { return false }
        deliver(.string(JSONStringCache.make(scratch, length)))
        return true
    }

    @inline(__always)
    mutating func number(start: Int, end: Int, small: Int) {
        if small >= 0 {
            deliver(.number(JSONNumber(smallInteger: small)))
        } else {
            // SAFETY: start..<end lies within the input.
            deliver(.number(JSONNumber(uncheckedBytes: base + start, count: end &- start, available: count &- start)))
        }
    }

    @inline(__always)
    mutating func bool(_ value: Bool) {
        deliver(.bool(value))
    }

    @inline(__always)
    mutating func null(depth: Int, inObject: Bool) {
        if dropNulls && depth > 0 {
            // The element is left out; a member takes back its name.
            if inObject {
                stack.popKey()
                names.removeLast()
            }
        } else {
            deliver(.null)
        }
    }

    @inline(__always)
    mutating func name(_ span: JSONStringSpan) -> Bool {
        let key: String
        let bytes: UnsafePointer<UInt8>
        let length: Int
        let readable: Int
        let location: Int
        if !span.hasEscapes {
            key = cache.string(start: span.start, length: span.length)
            bytes = base + span.start
            length = span.length
            readable = count &- span.start
            location = span.start
        } else {
            guard let decoded = unescape(span) else { return false }
            // Kept for comparisons with the later names of the object.
            if escapedNamesCount &+ decoded &+ 8 > escapedNamesCapacity { growEscapedNames(decoded &+ 8) }
            // SAFETY: the buffer has room for `decoded` bytes plus eight of slack.
            (escapedNames + escapedNamesCount).update(from: scratch, count: decoded)
            key = JSONStringCache.make(scratch, decoded)
            bytes = UnsafePointer(escapedNames + escapedNamesCount)
            length = decoded
            readable = decoded &+ 8
            location = -1 &- escapedNamesCount
            escapedNamesCount &+= decoded
        }
        let input = base
        let escaped = UnsafePointer(escapedNames)
        let slot = stack.keyCount &- top.keyStart
        if names.add(bytes, length: length, readable: readable, location: location, slot: slot, bytesAt: { location in
            // SAFETY: locations are input offsets of raw names or positions in escapedNames.
            location >= 0 ? input + location : escaped + (-1 &- location)
        }) != nil {
            top.hasRemoved = true
        }
        stack.pushKey(key)
        return true
    }

    // MARK: Unescaping

    /// Decodes a string with escapes into `scratch`; nil for an invalid escape.
    @inline(never)
    private mutating func unescape(_ span: JSONStringSpan) -> Int? {
        if scratchCapacity < span.length &+ 8 {
            scratch.deallocate()
            scratchCapacity = max(span.length &+ 8, scratchCapacity &* 2, 256)
            scratch = .allocate(capacity: scratchCapacity)
        }
        // SAFETY: decoding never writes more bytes than it reads; scratch has room for them all.
        return JSONEscapes.decode(base, from: span.start, to: span.end, into: scratch)
    }

    @inline(never)
    private mutating func growEscapedNames(_ more: Int) {
        let capacity = max(escapedNamesCount &+ more, escapedNamesCapacity &* 2, 256)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        // SAFETY: the first escapedNamesCount bytes are written; fresh has room for them.
        fresh.update(from: escapedNames, count: escapedNamesCount)
        escapedNames.deallocate()
        escapedNames = fresh
        escapedNamesCapacity = capacity
    }
}
