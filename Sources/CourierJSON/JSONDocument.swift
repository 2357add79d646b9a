// JSONDocument: one parse, one tape (simdjson's design with 32-bit words).
//
// What this file owns: the document type, its storage and the tape format. Parsing is
// JSONTapeBuilder (stage 2) over JSONStructuralScanner (stage 1); reading is JSONDocument.Value.
//
// The tape is one UInt32 per value and per member name, in document order; a container's word
// holds the tape index one past its last descendant, so a reader skips a whole subtree in one
// step and no closing word is needed. Word = tag (top 3 bits) | payload (29 bits):
//
//   tag          payload
//   literal      0 null, 1 false, 2 true
//   number       offset of the number's text in the input (the text is re-read on demand)
//   integer      the value of a non-negative integer written without fraction or exponent,
//                below 2^29 (its text is its decimal form: JSON has no leading zeros or `+`)
//   string       offset of the content in the input: no escapes, so the content is the input
//                up to the next quote
//   escaped      offset in the side buffer of a 32-bit length followed by the decoded UTF-8
//   array/object tape index one past the container's last word
//   removed      a member that a later member of the same name replaced: skip `payload` words
//                (its name and value)
//
// Memory: the input is retained, not copied. The tape has at most 1 + (commas + colons + opening
// brackets) words — counted in a vector pre-pass, so it is allocated once at its final size —
// and each word stands for at least two input bytes, so it is at most 2× the input; the side
// buffer holds only strings with escapes, each shorter decoded than written. Payloads are 29
// bits, so a document is at most 256 MiB (`JSONError.Code.documentTooLarge`); the tree parser
// and the sanitizer have no such limit.
//
// Names: an object's member names are unique in a document. When a name repeats, the last
// member wins and the earlier ones are removed (before null removal, so `{"a":1,"a":null}` is
// `{}` with `removesNullValues`), as JSONSerialization keeps only the last; RFC 8259 §4 leaves
// duplicate names to the implementation.

import CourierBytes

/// A parsed JSON text: the input bytes, a tape of 32-bit words and a buffer of unescaped strings.
/// Values are cheap views (`JSONDocument.Value`) that read the tape; nothing is built until asked
/// for (`String`s, `JSONNumber`s, or a whole `JSONValue` tree with `JSONValue(document.root)`).
public struct JSONDocument: Sendable {
    /// What is parsed and what is kept.
    public struct Options: Sendable, Hashable {
        /// Nesting limits (default: 512 levels).
        public var limits: JSONParser.Limits
        /// When true, object members whose value is null and null array elements are left out at
        /// every depth (AFNetworking's `removesKeysWithNullValues`, with Courier's fix for arrays);
        /// a top-level null stays null.
        public var removesNullValues: Bool

        /// Creates options.
        /// - Parameters:
        ///   - limits: nesting limits.
        ///   - removesNullValues: whether nulls inside containers are left out.
        public init(limits: JSONParser.Limits = JSONParser.Limits(), removesNullValues: Bool = false) {
            self.limits = limits
            self.removesNullValues = removesNullValues
        }
    }

    /// The largest input a document can hold: 256 MiB − 1 (payloads are 29 bits, and the side
    /// buffer of unescaped strings can reach 1.25× the input).
    public static let maximumInputSize = (1 << 28) - 1

    let input: JSONInput
    var storage: JSONTapeStorage

    /// Parses a complete JSON text (a UTF-8 byte order mark before it is skipped).
    /// - Parameters:
    ///   - bytes: the whole input; retained by the document, not copied.
    ///   - options: limits and null removal.
    ///   - spare: a document no longer needed; when nothing else holds it, its tape and string
    ///     buffer are reused, so parsing in a loop allocates nothing for them. Pass it with
    ///     `consume` (`doc = try JSONDocument(parsing: next, reusing: consume doc)`), or the
    ///     argument is a second reference and nothing can be reused.
    /// - Throws: `JSONError` with the code and byte offset of the first problem.
    public init(parsing bytes: [UInt8], options: Options = Options(), reusing spare: consuming JSONDocument? = nil) throws(JSONError) {
        try self.init(input: .array(bytes), options: options, spare: spare)
    }

    /// Parses the readable bytes of a buffer (offsets in errors count from the reader index).
    /// - Parameters:
    ///   - buffer: the whole input; retained, not copied.
    ///   - options: limits and null removal.
    ///   - spare: a document whose buffers may be reused.
    /// - Throws: `JSONError`.
    public init(parsing buffer: ByteBuffer, options: Options = Options(), reusing spare: consuming JSONDocument? = nil) throws(JSONError) {
        try self.init(input: .buffer(buffer), options: options, spare: spare)
    }

    /// Parses the UTF-8 form of a string.
    /// - Parameters:
    ///   - text: the whole input.
    ///   - options: limits and null removal.
    /// - Throws: `JSONError` (offsets count UTF-8 bytes).
    public init(parsing text: String, options: Options = Options()) throws(JSONError) {
        try self.init(input: .array(Array(text.utf8)), options: options, spare: nil)
    }

    private init(input: JSONInput, options: Options, spare: consuming JSONDocument?) throws(JSONError) {
        let storage: JSONTapeStorage
        var spareDocument = consume spare
        if spareDocument != nil && isKnownUniquelyReferenced(&spareDocument!.storage) {
            storage = spareDocument!.storage
        } else {
            storage = JSONTapeStorage()
        }
        spareDocument = nil
        try input.withBytes { (base, count) throws(JSONError) in
            try JSONTapeBuilder.build(base, count: count, options: options, into: storage)
        }
        self.input = input
        self.storage = storage
    }

    /// The top-level value.
    public var root: Value { Value(document: self, index: 0) }

    /// Bytes held beyond the input: the tape and the side buffer of unescaped strings (their
    /// allocated sizes).
    public var storageByteCount: Int { storage.tapeCapacity * 4 + storage.stringsCapacity }

    /// The input's length in bytes.
    public var inputByteCount: Int { input.count }
}

/// The input bytes a document retains.
enum JSONInput: Sendable {
    case array([UInt8])
    case buffer(ByteBuffer)

    var count: Int {
        switch self {
        case .array(let bytes): return bytes.count
        case .buffer(let buffer): return buffer.readableBytes
        }
    }

    /// Calls `body` with the input's first byte and length (a dummy pointer for empty input).
    @inline(__always)
    func withBytes<R, E: Error>(_ body: (UnsafePointer<UInt8>, Int) throws(E) -> R) throws(E) -> R {
        switch self {
        case .array(let bytes):
            let result = bytes.withUnsafeBufferPointer { raw in
                Result { () throws(E) -> R in try body(raw.baseAddress ?? JSONInput.empty, raw.count) }
            }
            return try result.get()
        case .buffer(let buffer):
            return try buffer.withUnsafeReadableBytes { (raw) throws(E) -> R in
                try body(raw.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? JSONInput.empty, raw.count)
            }
        }
    }

    // SAFETY: a pointer that is never read (count 0), for empty inputs.
    nonisolated(unsafe) static let empty: UnsafePointer<UInt8> = {
        let pointer = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        pointer.initialize(to: 0)
        return UnsafePointer(pointer)
    }()
}

/// The tape format (see the file header).
enum JSONTape {
    static let payloadBits: UInt32 = 29
    static let payloadMask: UInt32 = (1 << 29) - 1

    static let literal: UInt32 = 0
    static let number: UInt32 = 1
    static let integer: UInt32 = 2
    static let string: UInt32 = 3
    static let escaped: UInt32 = 4
    static let array: UInt32 = 5
    static let object: UInt32 = 6
    static let removed: UInt32 = 7

    static let null: UInt32 = 0
    static let falseWord: UInt32 = 1
    static let trueWord: UInt32 = 2

    @inline(__always) static func tag(_ word: UInt32) -> UInt32 { word &>> payloadBits }
    @inline(__always) static func payload(_ word: UInt32) -> Int { Int(word & payloadMask) }
    @inline(__always) static func word(_ tag: UInt32, _ payload: Int) -> UInt32 {
        tag &<< payloadBits | UInt32(truncatingIfNeeded: payload)
    }
}

/// A document's tape and side buffer. Written once by the builder, read-only afterwards (a spare
/// document's storage is rewritten only when nothing else holds it).
final class JSONTapeStorage: @unchecked Sendable {
    // SAFETY: mutated only by JSONTapeBuilder before the document is published, or when the
    // storage is uniquely referenced (reuse); read-only while shared.
    var tape: UnsafeMutablePointer<UInt32>
    var tapeCapacity = 0
    var tapeCount = 0
    var strings: UnsafeMutablePointer<UInt8>
    var stringsCapacity = 0
    var stringsCount = 0
    /// Stage 2's working stacks, kept for reuse.
    var scratch = JSONStage2Scratch()

    init() {
        tape = .allocate(capacity: 1)
        strings = .allocate(capacity: 1)
    }

    deinit {
        tape.deallocate()
        strings.deallocate()
        scratch.deallocate()
    }

    /// Makes room for `words` words (the existing ones are dropped).
    func resetTape(words: Int) {
        tapeCount = 0
        if tapeCapacity < words || tapeCapacity > 4 * words + 4096 {
            tape.deallocate()
            tape = .allocate(capacity: words)
            tapeCapacity = words
        }
    }

    /// Drops the strings, keeping the buffer.
    func resetStrings() {
        stringsCount = 0
    }

    /// Makes room for `more` bytes after `stringsCount`, plus eight bytes of slack so that an
    /// 8-byte load at any string's start stays inside the buffer.
    @inline(__always)
    func reserveStrings(_ more: Int) {
        if stringsCount &+ more &+ 8 > stringsCapacity { growStrings(stringsCount &+ more &+ 8) }
    }

    @inline(never)
    private func growStrings(_ needed: Int) {
        let newCapacity = max(needed, stringsCapacity &* 2, 256)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        // SAFETY: the first stringsCount bytes are written; fresh has room for them.
        fresh.update(from: strings, count: stringsCount)
        strings.deallocate()
        strings = fresh
        stringsCapacity = newCapacity
    }
}

/// Stage 2's working stacks (container kinds, open containers, member names), kept by a document's
/// storage so that parsing into a reused document allocates nothing for them.
struct JSONStage2Scratch {
    var kinds = JSONStack<Bool>()
    var opens = JSONStack<Int>()
    var names = JSONNameSet()

    mutating func deallocate() {
        kinds.deallocate()
        opens.deallocate()
        names.deallocate()
    }
}
