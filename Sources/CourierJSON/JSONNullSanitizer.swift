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
// Theory of operation: one pass over the input (JSONSanitizerPass), validating like
// the document parser and copying runs of input verbatim; errors come from the scalar reference.

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
        var accepted = false
        let output = [UInt8](unsafeUninitializedCapacity: input.count) { region, initialized in
            let length = JSONSanitizerPass.run(base, count: input.count, limits: limits, into: region.baseAddress ?? UnsafeMutablePointer(mutating: JSONInput.empty))
            accepted = length != nil
            initialized = length ?? 0
        }
        if accepted { return output }
        try JSONReferenceParser.validate(base, count: input.count, limits: limits)
        preconditionFailure("JSONNullSanitizer: the pass refused input the reference parser accepts")
    }

    /// Sanitizes the readable bytes of `input` and appends the result to `output`.
    /// - Parameters:
    ///   - input: the whole input (its reader index does not move).
    ///   - output: where the sanitized JSON is appended; unchanged when an error is thrown.
    /// - Throws: `JSONError`.
    public func sanitize(_ input: ByteBuffer, into output: inout ByteBuffer) throws(JSONError) {
        try input.withUnsafeReadableBytes { (raw) throws(JSONError) in
            let base = raw.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONInput.empty
            guard raw.count > 0, raw.count <= JSONDocument.maximumInputSize else {
                output.writeBytes(try sanitize(raw))
                return
            }
            var accepted = false
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: raw.count) { region in
                let length = JSONSanitizerPass.run(base, count: raw.count, limits: limits,
                                                   into: region.baseAddress!.assumingMemoryBound(to: UInt8.self))
                accepted = length != nil
                return length ?? 0
            }
            if accepted { return }
            try JSONReferenceParser.validate(base, count: raw.count, limits: limits)
            preconditionFailure("JSONNullSanitizer: the pass refused input the reference parser accepts")
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
}
