// JSONParser: a whole-input, strict RFC 8259 parser that builds a JSONValue tree: the vector path
// (JSONStructuralScanner, JSONStage2) building the tree directly (JSONTreeBuilder), or, for
// inputs beyond a document's size limit, the scalar JSONReferenceParser.
//
// The grammar, the limits and the errors are the reference's (docs/json.md); both paths give the
// same tree or the same error for every input (the tests and fuzz-json check it).

import CourierBytes

/// A strict RFC 8259 JSON parser over a complete input.
public struct JSONParser: Sendable {
    /// Resource limits (design §5).
    public struct Limits: Sendable, Hashable {
        /// The most arrays and objects that may be open at once. Default 512, the limit of
        /// swift-corelibs-foundation's JSONSerialization (and of Foundation's JSONDecoder).
        /// `[[…]]` with 512 brackets parses; with 513 it fails with `.depthLimitExceeded`.
        public var maxDepth: Int

        /// Creates limits.
        /// - Parameter maxDepth: the nesting limit; at least 1 for any container to parse.
        public init(maxDepth: Int = 512) {
            precondition(maxDepth >= 0, "negative depth limit")
            self.maxDepth = maxDepth
        }
    }

    /// The limits this parser enforces.
    public var limits: Limits
    /// When true, object members whose value is `null` and `null` array elements are dropped at
    /// every depth while building (see `JSONNullSanitizer` for the semantics). A top-level `null`
    /// stays `null`.
    public var removesNullValues: Bool

    /// Creates a parser.
    /// - Parameters:
    ///   - limits: resource limits.
    ///   - removesNullValues: whether to drop nulls inside containers while building.
    public init(limits: Limits = Limits(), removesNullValues: Bool = false) {
        self.limits = limits
        self.removesNullValues = removesNullValues
    }

    // MARK: Entry points

    /// Parses one complete JSON text.
    /// - Parameter bytes: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError` with the code and byte offset of the first problem.
    public func parse(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> JSONValue {
        guard bytes.count <= JSONDocument.maximumInputSize else {
            // Beyond what a tape addresses: the scalar parser builds the tree directly.
            return try JSONReferenceParser(limits: limits, removesNullValues: removesNullValues).parse(bytes)
        }
        let base = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONInput.empty
        return try JSONTreeBuilder.parse(base, count: bytes.count, limits: limits, removesNullValues: removesNullValues)
    }

    /// Parses one complete JSON text.
    /// - Parameter bytes: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError`.
    public func parse(_ bytes: [UInt8]) throws(JSONError) -> JSONValue {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(JSONError) in try parse(raw) } }
        return try result.get()
    }

    /// Parses the readable bytes of a buffer (the reader index does not move; error offsets count
    /// from the reader index).
    /// - Parameter buffer: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError`.
    public func parse(_ buffer: ByteBuffer) throws(JSONError) -> JSONValue {
        try buffer.withUnsafeReadableBytes { (raw) throws(JSONError) -> JSONValue in try parse(raw) }
    }

    /// Parses the UTF-8 form of a string.
    /// - Parameter text: the whole input.
    /// - Returns: the value.
    /// - Throws: `JSONError` (offsets count UTF-8 bytes).
    public func parse(_ text: String) throws(JSONError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses with default limits and no null removal (the entry point for fuzzing).
    /// - Parameters:
    ///   - bytes: the whole input.
    ///   - limits: resource limits.
    /// - Returns: the value.
    /// - Throws: `JSONError`.
    public static func parse(_ bytes: UnsafeRawBufferPointer, limits: Limits = Limits()) throws(JSONError) -> JSONValue {
        try JSONParser(limits: limits).parse(bytes)
    }

    /// Parses with default limits and no null removal.
    /// - Parameters:
    ///   - bytes: the whole input.
    ///   - limits: resource limits.
    /// - Returns: the value.
    /// - Throws: `JSONError`.
    public static func parse(_ bytes: [UInt8], limits: Limits = Limits()) throws(JSONError) -> JSONValue {
        try JSONParser(limits: limits).parse(bytes)
    }
}
