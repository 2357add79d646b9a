// JSONNullSanitizer: removes nulls from JSON text and writes it back compact.
//
// Semantics: AFNetworking's `removesKeysWithNullValues` (AFJSONObjectByRemovingKeysWithNullValues)
// removes object members whose value is null, at every depth, keeping containers that become
// empty. AFNetworking left null ELEMENTS of arrays in place; Courier's fix drops them too:
//   {"a":{"b":null}} → {"a":{}}     [null] → []     {"a":[null,1,{"b":null}]} → {"a":[1,{}]}
// A top-level null stays null (there is no container to remove it from). A repeated member name
// keeps only its last member, before null removal: {"a":1,"a":null} → {}.
//
// Output: compact JSON (no whitespace), members and elements in input order, numbers and literals
// copied verbatim, strings re-escaped canonically — byte-for-byte what JSONWriter writes
// (compact) for the tree JSONParser(removesNullValues: true) builds.
//
// Theory of operation: the vector parser (JSONStructuralScanner, JSONTapeBuilder) builds a
// document with the nulls left out, and the writer writes it from the tape: strings without
// escapes are copied from the input with their quotes.

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
        let base = input.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONInput.empty
        guard input.count <= JSONDocument.maximumInputSize else {
            return JSONWriter.write(try JSONReferenceParser(limits: limits, removesNullValues: true).parse(input))
        }
        let storage = JSONTapeStorage()
        try JSONTapeBuilder.build(base, count: input.count, options: JSONDocument.Options(limits: limits, removesNullValues: true), into: storage)
        var sink = GrowingSink(capacity: input.count)
        JSONWriter.writeTape(JSONTapeReader(base: base, count: input.count, storage: storage), from: 0, pretty: false, to: &sink)
        return sink.bytes
    }

    /// Sanitizes the readable bytes of `input` and appends the result to `output`.
    /// - Parameters:
    ///   - input: the whole input (its reader index does not move).
    ///   - output: where the sanitized JSON is appended; unchanged when an error is thrown.
    /// - Throws: `JSONError`.
    public func sanitize(_ input: ByteBuffer, into output: inout ByteBuffer) throws(JSONError) {
        let bytes = try input.withUnsafeReadableBytes { (raw) throws(JSONError) -> [UInt8] in try sanitize(raw) }
        output.writeBytes(bytes)
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
}
