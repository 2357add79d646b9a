// JSONReferenceParser: the scalar parser, byte by byte over JSONScanner — the reference the vector
// path (JSONStructuralScanner + JSONTapeBuilder) is checked against, the source of every error's
// code and offset, and the tree parser for inputs beyond a document's size limit.
//
// What this file owns: the structural grammar (RFC 8259 §2, §4, §5) and tree building. Tokens come
// from JSONScanner, shared with the reference sanitizer.
//
//   JSON-text = [BOM] ws value ws           (§2, §8.1; any value at top level, scalars included)
//   object    = { ws [ member *( ws , ws member ) ] ws }      member = string ws : ws value
//   array     = [ ws [ value *( ws , ws value ) ] ws ]
//
// Theory of operation: no recursion. Open containers are frames on an explicit stack (bounded by
// Limits.maxDepth), so hostile nesting costs heap, never call stack. Finished values wait on one
// value stack; an object's member names wait on a parallel key stack (JSONBuildStack). Closing a
// container moves its slice of the stacks into a new array or object in one step, without
// retaining or releasing anything. Repeated short strings come from JSONStringCache.
//
// Invariants:
//   * depth (the open frames: `top` and `outer`) <= limits.maxDepth.
//   * For the open object frame f: keyCount - f.keyStart == valueCount - f.valueStart, except
//     between reading a member name and finishing its value, when keys has one more.
//   * Repeated names: when an object closes, only the last member of each name is kept (at its
//     own position), before null removal — the rule of JSONDocument.
//   * With removesNullValues, a null element is never pushed and null members are dropped when
//     their object closes (after the rule for repeated names), which is AFNetworking's
//     removesKeysWithNullValues plus Courier's fix for arrays.
//   * Errors are final: parse either returns a complete value or throws.

import CourierBytes

/// The scalar reference parser (see the file header).
@_spi(Fuzzing)
public struct JSONReferenceParser: Sendable {
    /// The limits this parser enforces.
    public var limits: JSONParser.Limits
    /// Whether nulls inside containers are dropped.
    public var removesNullValues: Bool

    /// Creates a parser.
    /// - Parameters:
    ///   - limits: resource limits.
    ///   - removesNullValues: whether to drop nulls inside containers while building.
    public init(limits: JSONParser.Limits = JSONParser.Limits(), removesNullValues: Bool = false) {
        self.limits = limits
        self.removesNullValues = removesNullValues
    }

    /// Parses one complete JSON text.
    /// - Parameter bytes: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError` with the code and byte offset of the first problem.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        guard let base = bytes.baseAddress, bytes.count > 0 else { throw JSONError(.emptyInput, offset: 0) }
        var scanner = JSONScanner(base: base.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        return try parseDocument(&scanner)
    }

    /// Parses one complete JSON text.
    /// - Parameter bytes: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError`.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        let result = bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try parse(raw) } }
        return try result.get()
    }

    /// Throws the reference's error for the input, if it has one.
    static func validate(_ base: UnsafePointer<UInt8>, count: Int, limits: JSONParser.Limits) throws(JSONError) {
        _ = try JSONReferenceParser(limits: limits).parse(UnsafeRawBufferPointer(start: base, count: count))
    }

    // MARK: The driver

    private struct Frame {
        var isObject: Bool
        var valueStart: Int
        var keyStart: Int
    }

    private func parseDocument(_ s: inout JSONScanner) throws(JSONError) -> JSONValue {
        s.position = JSONByteOrderMark.length(s.base, s.count)
        s.skipWhitespace()
        guard !s.isAtEnd else { throw JSONError(.emptyInput, offset: s.count) }

        // The innermost open container is `top` (meaningful when depth > 0); the ones around it
        // wait on `outer`, so the per-value path touches no array.
        var depth = 0
        var top = Frame(isObject: false, valueStart: 0, keyStart: 0)
        var outer: [Frame] = []
        var stack = JSONBuildStack()
        var cache = JSONStringCache(base: s.base, count: s.count)
        defer {
            stack.destroy()
            cache.destroy()
        }
        var scratch: [UInt8] = []
        let maxDepth = limits.maxDepth
        let dropNulls = removesNullValues

        // Set when a member name comes before the next value (read at one place, at the loop top).
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                // A member name (whitespace skipped) and the colon after it, written out here
                // rather than called: the compiler does not inline a helper this size into the loop.
                atMemberName = false
                guard !s.isAtEnd else { throw s.endOfInput() }
                guard s.current == UInt8(ascii: "\"") else { throw s.fail(.unexpectedByte, at: s.position) }
                stack.pushKey(try makeKey(&s, &cache, &scratch))
                s.skipWhitespace()
                guard !s.isAtEnd else { throw s.endOfInput() }
                guard s.current == UInt8(ascii: ":") else { throw s.fail(.unexpectedByte, at: s.position) }
                s.position &+= 1
                s.skipWhitespace()
            }
            // A value starts at the cursor (whitespace already skipped).
            guard !s.isAtEnd else { throw s.endOfInput() }
            var value: JSONValue
            switch s.current {
            case UInt8(ascii: "{"):
                guard depth < maxDepth else { throw s.fail(.depthLimitExceeded, at: s.position) }
                s.position &+= 1
                s.skipWhitespace()
                guard !s.isAtEnd else { throw s.endOfInput() }
                if s.current == UInt8(ascii: "}") {
                    s.position &+= 1
                    value = .object(JSONObject())
                } else {
                    if depth > 0 { outer.append(top) }
                    depth &+= 1
                    top = Frame(isObject: true, valueStart: stack.valueCount, keyStart: stack.keyCount)
                    atMemberName = true
                    continue nextValue
                }
            case UInt8(ascii: "["):
                guard depth < maxDepth else { throw s.fail(.depthLimitExceeded, at: s.position) }
                s.position &+= 1
                s.skipWhitespace()
                guard !s.isAtEnd else { throw s.endOfInput() }
                if s.current == UInt8(ascii: "]") {
                    s.position &+= 1
                    value = .array([])
                } else {
                    if depth > 0 { outer.append(top) }
                    depth &+= 1
                    top = Frame(isObject: false, valueStart: stack.valueCount, keyStart: stack.keyCount)
                    continue nextValue
                }
            case UInt8(ascii: "\""):
                value = .string(try makeString(&s, &scratch))
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let range = try s.scanNumberFast()
                // SAFETY: range lies within the input (scanNumber only advances over read bytes).
                value = .number(JSONNumber(uncheckedBytes: s.base + range.lowerBound, count: range.count,
                                           available: s.count &- range.lowerBound))
            case UInt8(ascii: "t"):
                try s.scanTrue()
                value = .bool(true)
            case UInt8(ascii: "f"):
                try s.scanFalse()
                value = .bool(false)
            case UInt8(ascii: "n"):
                try s.scanNull()
                value = .null
            default:
                throw s.fail(.unexpectedByte, at: s.position)
            }

            // The value is complete: hand it to the open container, closing containers as far as
            // the input closes them.
            while true {
                guard depth > 0 else {
                    s.skipWhitespace()
                    guard s.isAtEnd else { throw s.fail(.trailingData, at: s.position) }
                    return value
                }
                if dropNulls && !top.isObject, case .null = value {
                    // A null element is dropped; a null member waits until its object closes,
                    // where it still replaces an earlier member of the same name.
                } else {
                    stack.push(consume value)
                }
                s.skipWhitespace()
                guard !s.isAtEnd else { throw s.endOfInput() }
                let byte = s.current
                if byte == UInt8(ascii: ",") {
                    s.position &+= 1
                    s.skipWhitespace()
                    atMemberName = top.isObject
                    continue nextValue
                }
                if byte == (top.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.position &+= 1
                    if top.isObject {
                        var members = JSONReferenceParser.keepingLastOfEachName(
                            stack.moveMembers(valueStart: top.valueStart, keyStart: top.keyStart))
                        if dropNulls { members.removeAll { $0.value.isNull } }
                        value = .object(JSONObject(members))
                    } else {
                        value = .array(JSONArray(stack.moveArray(from: top.valueStart)))
                    }
                    depth &-= 1
                    if depth > 0 { top = outer.removeLast() }
                    continue
                }
                throw s.fail(.unexpectedByte, at: s.position)
            }
        }
    }

    /// Scans a member name at the cursor and takes its `String` from the cache (or builds it
    /// once). Only names go through the cache: values are far more often unique (ids, dates,
    /// texts) and would evict the names, which repeat in every record.
    @inline(__always)
    private func makeKey(_ s: inout JSONScanner, _ cache: inout JSONStringCache, _ scratch: inout [UInt8]) throws(JSONError) -> String {
        let scanned = try s.scanString(scratch: &scratch)
        if scanned.isDecoded {
            return String(decoding: scratch, as: UTF8.self)
        }
        return cache.string(start: scanned.start, length: scanned.end &- scanned.start)
    }

    /// Scans a string at the cursor and builds its `String` once.
    @inline(__always)
    private func makeString(_ s: inout JSONScanner, _ scratch: inout [UInt8]) throws(JSONError) -> String {
        let scanned = try s.scanString(scratch: &scratch)
        if scanned.isDecoded {
            return String(decoding: scratch, as: UTF8.self)
        }
        // SAFETY: start..<end lies within the input; the content was validated as UTF-8.
        return JSONStringCache.make(s.base + scanned.start, scanned.end &- scanned.start)
    }

    /// Keeps only the last member of each name, at its own position.
    static func keepingLastOfEachName(_ members: [JSONObject.Member]) -> [JSONObject.Member] {
        if members.count < 2 { return members }
        var last: [String: Int] = [:]
        last.reserveCapacity(members.count)
        for (position, member) in members.enumerated() { last[member.key] = position }
        if last.count == members.count { return members }
        var kept: [JSONObject.Member] = []
        kept.reserveCapacity(last.count)
        for (position, member) in members.enumerated() where last[member.key] == position { kept.append(member) }
        return kept
    }
}
