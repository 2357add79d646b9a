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
// written into it yet, which decides whether the next item needs a comma). A member is written
// (`,"name":`) as soon as its name is read, and the output is cut back to the mark taken before
// it if its value turns out to be `null` — the only lookahead this transformation needs.
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

        var frames: [UInt8] = []
        frames.reserveCapacity(16)
        var scratch: [UInt8] = []
        let maxDepth = limits.maxDepth
        // Output length before the pending member's `,"name":` was written.
        var memberMark = 0

        // Reads a member name at the cursor (whitespace skipped) and the colon after it, writing
        // `,"name":` (the comma only when the object already has output).
        func readMemberName(_ s: inout JSONScanner, _ out: inout FixedSink, hasOutput: Bool) throws(JSONError) {
            guard !s.isAtEnd else { throw s.endOfInput() }
            guard s.current == UInt8(ascii: "\"") else { throw s.fail(.unexpectedByte, at: s.position) }
            memberMark = out.count
            if hasOutput { out.write(UInt8(ascii: ",")) }
            try copyString(&s, &out, scratch: &scratch)
            s.skipWhitespace()
            guard !s.isAtEnd else { throw s.endOfInput() }
            guard s.current == UInt8(ascii: ":") else { throw s.fail(.unexpectedByte, at: s.position) }
            out.write(UInt8(ascii: ":"))
            s.position &+= 1
            s.skipWhitespace()
        }

        nextValue: while true {
            guard !s.isAtEnd else { throw s.endOfInput() }
            let first = s.current
            if first == UInt8(ascii: "n") {
                try s.scanLiteral("null")
                if let top = frames.last {
                    // Drop the member (cut `,"name":` back off) or the element (nothing written).
                    if top & Self.isObjectBit != 0 { out.count = memberMark }
                } else {
                    out.write("null")
                }
            } else {
                // A non-null value: it takes the pending member slot, or an element slot.
                if let top = frames.last {
                    if top & Self.isObjectBit == 0 && top & Self.hasOutputBit != 0 { out.write(UInt8(ascii: ",")) }
                    frames[frames.count &- 1] = top | Self.hasOutputBit
                }
                switch first {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard frames.count < maxDepth else { throw s.fail(.depthLimitExceeded, at: s.position) }
                    let isObject = first == UInt8(ascii: "{")
                    out.write(first)
                    s.position &+= 1
                    s.skipWhitespace()
                    guard !s.isAtEnd else { throw s.endOfInput() }
                    let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                    if s.current == closing {
                        s.position &+= 1
                        out.write(closing)
                    } else {
                        frames.append(isObject ? Self.isObjectBit : 0)
                        if isObject { try readMemberName(&s, &out, hasOutput: false) }
                        continue nextValue
                    }
                case UInt8(ascii: "\""):
                    try copyString(&s, &out, scratch: &scratch)
                case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                    let range = try s.scanNumber()
                    // SAFETY: range lies within the input.
                    out.write(UnsafeRawBufferPointer(start: s.base + range.lowerBound, count: range.count))
                case UInt8(ascii: "t"):
                    try s.scanLiteral("true")
                    out.write("true")
                case UInt8(ascii: "f"):
                    try s.scanLiteral("false")
                    out.write("false")
                default:
                    throw s.fail(.unexpectedByte, at: s.position)
                }
            }

            // The value is complete: continue or close the open containers.
            while true {
                guard let top = frames.last else {
                    s.skipWhitespace()
                    guard s.isAtEnd else { throw s.fail(.trailingData, at: s.position) }
                    return
                }
                let isObject = top & Self.isObjectBit != 0
                s.skipWhitespace()
                guard !s.isAtEnd else { throw s.endOfInput() }
                let byte = s.current
                if byte == UInt8(ascii: ",") {
                    s.position &+= 1
                    s.skipWhitespace()
                    if isObject { try readMemberName(&s, &out, hasOutput: top & Self.hasOutputBit != 0) }
                    continue nextValue
                }
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    s.position &+= 1
                    frames.removeLast()
                    out.write(byte)
                    continue
                }
                throw s.fail(.unexpectedByte, at: s.position)
            }
        }
    }

    /// Copies a string at the cursor in canonical form: content without escapes is already
    /// canonical and is copied in one block; content with escapes is decoded and re-escaped.
    private func copyString(_ s: inout JSONScanner, _ out: inout FixedSink, scratch: inout [UInt8]) throws(JSONError) {
        let scanned = try s.scanString(scratch: &scratch)
        if scanned.isDecoded {
            scratch.withUnsafeBytes { JSONEscaping.writeQuoted($0, to: &out) }
        } else {
            // SAFETY: start-1 ..< end+1 (the quotes included) lies within the input.
            out.write(UnsafeRawBufferPointer(start: s.base + (scanned.start &- 1), count: scanned.end &- scanned.start &+ 2))
        }
    }
}
