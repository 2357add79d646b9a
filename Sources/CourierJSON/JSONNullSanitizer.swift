// JSONNullSanitizer: a single-pass byte → byte rewriter that removes nulls from JSON without
// building a tree.
//
// Semantics: AFNetworking's `removesKeysWithNullValues` (AFJSONObjectByRemovingKeysWithNullValues)
// removes object members whose value is null, at every depth, keeping containers that become
// empty. AFNetworking left null ELEMENTS of arrays in place; Courier's fix drops them too:
//   {"a":{"b":null}} → {"a":{}}     [null] → []     {"a":[null,1,{"b":null}]} → {"a":[1,{}]}
// A top-level null stays null (there is no container to remove it from).
//
// Output: compact JSON (no whitespace), members and elements in input order, duplicates kept,
// numbers and literals copied verbatim, strings re-escaped canonically — byte-for-byte what
// JSONWriter writes (compact) for the tree JSONParser(removesNullValues: true) builds. The two
// forms must agree on every input; the tests check it.
//
// Theory of operation: the same scanner and the same structural checks as JSONParser, in the
// same order, so validation is equally strict and errors carry the same code and offset. The
// only state per open container is one byte (object or array, and whether anything has been
// written into it yet, which decides whether the next comma is kept). Most of the output is the
// input verbatim, so nothing is written per token: a pending run of input bytes is copied in one
// block when something must be left out (whitespace, a null item, a comma with nothing kept
// before it) or rewritten (a string with escapes). A member's `,"name":` stays pending or is
// written, and the output is cut back to the mark taken before it if its value turns out to be
// `null` — the only lookahead this transformation needs.
//
// Bound: every output byte stands for at least one consumed input byte (whitespace and nulls
// vanish; an escape is rewritten no longer than it was written: `\u00e9` → 2 bytes, `\/` → `/`,
// a surrogate pair of 12 bytes → 4), so the output never exceeds the input and is written into
// one region of `input.count` bytes without growing. FixedSink still checks every write.

import CourierBytes

/// Removes null members and null array elements from JSON text in one streaming pass.
public struct JSONNullSanitizer: Sendable {
    /// The limits enforced while validating (the same as the parser's).
    public var limits: JSONParser.Limits

    /// Creates a sanitizer.
    /// - Parameter limits: the nesting limit and other limits.
    public init(limits: JSONParser.Limits = JSONParser.Limits()) {
        self.limits = limits
    }

    /// Sanitizes a complete JSON text.
    /// - Parameter input: the whole input.
    /// - Returns: compact JSON without null members or null array elements.
    /// - Throws: `JSONError`, exactly as `JSONParser.parse` would for the same input.
    public func sanitize(_ input: [UInt8]) throws(JSONError) -> [UInt8] {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = input.withUnsafeBytes { raw in Result { () throws(JSONError) in try sanitize(raw) } }
        return try result.get()
    }

    /// Sanitizes a complete JSON text.
    /// - Parameter input: the whole input.
    /// - Returns: the sanitized compact JSON.
    /// - Throws: `JSONError`.
    public func sanitize(_ input: UnsafeRawBufferPointer) throws(JSONError) -> [UInt8] {
        guard let base = input.baseAddress, input.count > 0 else { throw JSONError(.emptyInput, offset: 0) }
        var failure: JSONError? = nil
        let output = [UInt8](unsafeUninitializedCapacity: input.count) { region, initialized in
            var sink = FixedSink(base: region.baseAddress!, capacity: region.count)
            do throws(JSONError) {
                try run(base.assumingMemoryBound(to: UInt8.self), count: input.count, into: &sink)
            } catch {
                failure = error
            }
            initialized = failure == nil ? sink.count : 0
        }
        if let failure { throw failure }
        return output
    }

    /// Sanitizes the readable bytes of `input` and appends the result to `output`.
    /// - Parameters:
    ///   - input: the whole input (its reader index does not move).
    ///   - output: where the sanitized JSON is appended; unchanged when an error is thrown.
    /// - Throws: `JSONError`.
    public func sanitize(_ input: ByteBuffer, into output: inout ByteBuffer) throws(JSONError) {
        try input.withUnsafeReadableBytes { (raw) throws(JSONError) in
            guard let base = raw.baseAddress, raw.count > 0 else { throw JSONError(.emptyInput, offset: 0) }
            var failure: JSONError? = nil
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: raw.count) { region in
                var sink = FixedSink(base: region.baseAddress!.assumingMemoryBound(to: UInt8.self), capacity: raw.count)
                do throws(JSONError) {
                    try run(base.assumingMemoryBound(to: UInt8.self), count: raw.count, into: &sink)
                } catch {
                    failure = error
                    return 0
                }
                return sink.count
            }
            if let failure { throw failure }
        }
    }

    /// Sanitizes with default limits (the entry point for fuzzing).
    /// - Parameters:
    ///   - input: the whole input.
    ///   - limits: resource limits.
    /// - Returns: the sanitized compact JSON.
    /// - Throws: `JSONError`.
    public static func sanitize(_ input: [UInt8], limits: JSONParser.Limits = JSONParser.Limits()) throws(JSONError) -> [UInt8] {
        try JSONNullSanitizer(limits: limits).sanitize(input)
    }

    // MARK: The driver

    /// Frame bits: what an open container is and whether it has output yet.
    private static let isObjectBit: UInt8 = 1
    private static let hasOutputBit: UInt8 = 2

    private func run(_ base: UnsafePointer<UInt8>, count: Int, into out: inout FixedSink) throws(JSONError) {
        var s = JSONScanner(base: base, count: count)
        s.skipWhitespace()
        guard !s.isAtEnd else { throw JSONError(.emptyInput, offset: count) }

        // Input bytes runStart..<s.position are pending: they belong in the output verbatim and
        // are copied in one block only when something must be left out or rewritten, so compact
        // input is a handful of large copies. "Virtual" output positions count them as written.
        var runStart = s.position
        // The innermost open container is `top` (valid when depth > 0); the ones around it wait
        // on `outer`, so the per-item path touches no array.
        var depth = 0
        var top: UInt8 = 0
        var outer: [UInt8] = []
        outer.reserveCapacity(16)
        var scratch: [UInt8] = []
        let maxDepth = limits.maxDepth
        // The virtual output length before the current item's comma (or before the item itself
        // when its comma was dropped or it has none): where a null item is cut back to.
        var mark = 0

        // Set when a member name comes before the next value (read at one place, at the loop top).
        var atMemberName = false

        nextValue: while true {
            if atMemberName {
                // A member name (whitespace skipped) and the colon after it, written out here
                // rather than called: the compiler does not inline a helper this size into `run`.
                atMemberName = false
                guard !s.isAtEnd else { throw s.endOfInput() }
                guard s.current == UInt8(ascii: "\"") else { throw s.fail(.unexpectedByte, at: s.position) }
                try copyString(&s, &out, &runStart, scratch: &scratch)
                Self.skipWhitespace(&s, &out, &runStart)
                guard !s.isAtEnd else { throw s.endOfInput() }
                guard s.current == UInt8(ascii: ":") else { throw s.fail(.unexpectedByte, at: s.position) }
                s.position &+= 1
                Self.skipWhitespace(&s, &out, &runStart)
            }
            guard !s.isAtEnd else { throw s.endOfInput() }
            let first = s.current
            if first == UInt8(ascii: "n") {
                let start = s.position
                try s.scanNull()
                if depth > 0 {
                    // Drop the element, or the member with its `,"name":` — the pending bytes up
                    // to the null are written and then cut back off with what was already written.
                    out.write(base + runStart, count: start &- runStart)
                    out.count = mark
                    runStart = s.position
                }
            } else {
                // A non-null value: it takes the pending member slot, or an element slot.
                top |= Self.hasOutputBit
                switch first {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard depth < maxDepth else { throw s.fail(.depthLimitExceeded, at: s.position) }
                    let isObject = first == UInt8(ascii: "{")
                    s.position &+= 1
                    Self.skipWhitespace(&s, &out, &runStart)
                    guard !s.isAtEnd else { throw s.endOfInput() }
                    if s.current == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                        s.position &+= 1
                    } else {
                        if depth > 0 { outer.append(top) }
                        depth &+= 1
                        top = isObject ? Self.isObjectBit : 0
                        mark = out.count &+ (s.position &- runStart)
                        atMemberName = isObject
                        continue nextValue
                    }
                case UInt8(ascii: "\""):
                    try copyString(&s, &out, &runStart, scratch: &scratch)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    _ = try s.scanNumberFast()
                case UInt8(ascii: "t"):
                    try s.scanTrue()
                case UInt8(ascii: "f"):
                    try s.scanFalse()
                default:
                    throw s.fail(.unexpectedByte, at: s.position)
                }
            }

            // The value is complete: continue or close the open containers.
            while true {
                guard depth > 0 else {
                    Self.skipWhitespace(&s, &out, &runStart)
                    guard s.isAtEnd else { throw s.fail(.trailingData, at: s.position) }
                    out.write(base + runStart, count: s.position &- runStart)
                    return
                }
                let isObject = top & Self.isObjectBit != 0
                Self.skipWhitespace(&s, &out, &runStart)
                guard !s.isAtEnd else { throw s.endOfInput() }
                let byte = s.current
                if byte == UInt8(ascii: ",") {
                    if top & Self.hasOutputBit != 0 {
                        // Kept verbatim; cut back to before it if the next item is null.
                        mark = out.count &+ (s.position &- runStart)
                        s.position &+= 1
                    } else {
                        // Everything before it was dropped: nothing for it to separate.
                        out.write(base + runStart, count: s.position &- runStart)
                        s.position &+= 1
                        runStart = s.position
                        mark = out.count
                    }
                    Self.skipWhitespace(&s, &out, &runStart)
                    atMemberName = isObject
                    continue nextValue
                }
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.position &+= 1
                    depth &-= 1
                    if depth > 0 { top = outer.removeLast() }
                    continue
                }
                throw s.fail(.unexpectedByte, at: s.position)
            }
        }
    }

    /// Skips whitespace; a non-empty run is left out of the output (the pending bytes before it
    /// are written first).
    @inline(__always)
    private static func skipWhitespace(_ s: inout JSONScanner, _ out: inout FixedSink, _ runStart: inout Int) {
        guard !s.isAtEnd, s.current <= 0x20 else { return }
        let start = s.position
        s.skipWhitespace()
        if s.position != start {
            out.write(s.base + runStart, count: start &- runStart)
            runStart = s.position
        }
    }

    /// Scans a string at the cursor. Content without escapes is already canonical and stays in
    /// the pending run; content with escapes is decoded and written re-escaped.
    @inline(__always)
    private func copyString(_ s: inout JSONScanner, _ out: inout FixedSink, _ runStart: inout Int, scratch: inout [UInt8]) throws(JSONError) {
        let quote = s.position
        let scanned = try s.scanString(scratch: &scratch)
        if scanned.isDecoded {
            out.write(s.base + runStart, count: quote &- runStart)
            scratch.withUnsafeBytes { JSONEscaping.writeQuoted($0, to: &out) }
            runStart = s.position
        }
    }
}
