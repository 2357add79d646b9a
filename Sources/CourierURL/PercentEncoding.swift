// PercentEncoding: encoding (RFC 3986 §2.1) with a caller's set, and strict decoding.
//
// Encoding is a throughput target (docs/url.md: at least 1 GB/s on mixed text in release
// builds). The hot loop reads the UTF-8 bytes in place, takes 8 bytes at a time, and when none of
// them needs escaping (no byte ≥ 0x80 and no escape flag in the set's table) stores them as one
// word; otherwise it stores each byte's packed table entry (1 or 3 bytes) with no branch. The
// output is preallocated at the worst case, 3 bytes per input byte plus one spare byte for the
// last 4-byte store, and the String is built once around it.
//
// Decoding never guesses: a "%" not followed by two hex digits is an error with its offset,
// never passed through. Decoding into text also rejects invalid UTF-8.

import CourierBytes

/// Percent-encoding and decoding of UTF-8 text (RFC 3986 §2.1).
public enum PercentEncoding {
    // MARK: Encoding

    /// Percent-encodes the UTF-8 form of `string`: bytes in `set` stay, every other byte becomes
    /// `%XX` with upper-case hex digits.
    /// - Parameters:
    ///   - string: the text to encode.
    ///   - set: the bytes to leave alone, for example `.afnetworkingQueryComponent`.
    /// - Returns: the encoded text (ASCII).
    public static func encode(_ string: String, allowing set: PercentEncodingSet) -> String {
        if let result = string.utf8.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0), allowing: set) }) {
            return result
        }
        var copy = string
        return copy.withUTF8 { encode(UnsafeRawBufferPointer($0), allowing: set) }
    }

    /// Percent-encodes bytes (for example UTF-8 text) into a String.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - set: the bytes to leave alone.
    /// - Returns: the encoded text (ASCII).
    public static func encode(_ bytes: UnsafeRawBufferPointer, allowing set: PercentEncodingSet) -> String {
        let count = bytes.count
        if count == 0 { return "" }
        return String(unsafeUninitializedCapacity: worstCaseCapacity(count)) { output in
            // SAFETY: the capacity is the worst case the encoder can write (see worstCaseCapacity).
            encode(bytes, into: UnsafeMutableRawPointer(output.baseAddress!), tables: set.tables)
        }
    }

    /// Percent-encodes the UTF-8 form of `string`, appending to `buffer` (no String is made).
    /// - Parameters:
    ///   - string: the text to encode.
    ///   - set: the bytes to leave alone.
    ///   - buffer: where the encoded bytes are appended.
    public static func encode(_ string: String, allowing set: PercentEncodingSet, into buffer: inout ByteBuffer) {
        let done: Void? = string.utf8.withContiguousStorageIfAvailable {
            encode(UnsafeRawBufferPointer($0), allowing: set, into: &buffer)
        }
        if done != nil { return }
        var copy = string
        copy.withUTF8 { encode(UnsafeRawBufferPointer($0), allowing: set, into: &buffer) }
    }

    /// Percent-encodes bytes, appending to `buffer`.
    /// - Parameters:
    ///   - bytes: the bytes to encode.
    ///   - set: the bytes to leave alone.
    ///   - buffer: where the encoded bytes are appended.
    public static func encode(_ bytes: UnsafeRawBufferPointer, allowing set: PercentEncodingSet, into buffer: inout ByteBuffer) {
        let count = bytes.count
        if count == 0 { return }
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: worstCaseCapacity(count)) { region in
            // SAFETY: writeWithUnsafeMutableBytes made at least worstCaseCapacity(count) bytes room.
            encode(bytes, into: region.baseAddress!, tables: set.tables)
        }
    }

    /// The number of bytes `encode` returns for `bytes`, without encoding them.
    /// - Parameters:
    ///   - bytes: the bytes that would be encoded.
    ///   - set: the bytes that would be left alone.
    /// - Returns: the length of the encoded form.
    public static func encodedCount(of bytes: UnsafeRawBufferPointer, allowing set: PercentEncodingSet) -> Int {
        let escapes = set.tables.escapes
        var escaped = 0
        for byte in bytes { escaped &+= Int(escapes[Int(byte)]) }
        return bytes.count + 2 * escaped
    }

    /// Room the encoder may touch for `count` input bytes: 3 per byte, plus 1 because each byte's
    /// entry is stored as 4 bytes.
    @inline(__always)
    static func worstCaseCapacity(_ count: Int) -> Int { count * 3 + 1 }

    /// The encoding loop. `output` must have `worstCaseCapacity(input.count)` bytes of room.
    /// - Returns: the number of bytes of output.
    static func encode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, tables: PercentEncodingSet.Tables) -> Int {
        let n = input.count
        guard n > 0 else { return 0 }
        let source = input.baseAddress!
        let entries = tables.entries
        let escapes = tables.escapes
        var i = 0
        var o = 0
        // SAFETY (whole loop): i + 8 <= n bounds every read; o <= 3 * i, so a store of at most 8
        // bytes at o ends at or before 3 * i + 8 <= 3 * n, within the worst-case capacity, and the
        // per-byte 4-byte stores end at or before 3 * (n - 1) + 4 = 3 * n + 1.
        while i &+ 8 <= n {
            let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            if word & 0x8080_8080_8080_8080 == 0 {
                let w = UInt64(littleEndian: word)
                let flags = escapes[Int(w & 0xFF)] | escapes[Int(w >> 8 & 0xFF)]
                    | escapes[Int(w >> 16 & 0xFF)] | escapes[Int(w >> 24 & 0xFF)]
                    | escapes[Int(w >> 32 & 0xFF)] | escapes[Int(w >> 40 & 0xFF)]
                    | escapes[Int(w >> 48 & 0xFF)] | escapes[Int(w >> 56)]
                if flags == 0 {
                    output.storeBytes(of: word, toByteOffset: o, as: UInt64.self)
                    i &+= 8
                    o &+= 8
                    continue
                }
            }
            for k in 0..<8 {
                let entry = entries[Int(source.load(fromByteOffset: i &+ k, as: UInt8.self))]
                output.storeBytes(of: entry.littleEndian, toByteOffset: o, as: UInt32.self)
                o &+= Int(entry &>> 24)
            }
            i &+= 8
        }
        while i < n {
            let entry = entries[Int(source.load(fromByteOffset: i, as: UInt8.self))]
            output.storeBytes(of: entry.littleEndian, toByteOffset: o, as: UInt32.self)
            o &+= Int(entry &>> 24)
            i &+= 1
        }
        return o
    }

    // MARK: Decoding

    /// Decodes percent-encoded text to bytes.
    /// - Parameter string: the encoded text; "+" is left as "+" (see `FormURLEncoded` for the
    ///   form format, where it means a space).
    /// - Returns: the decoded bytes.
    /// - Throws: `PercentDecodingError.malformedPercentEncoding` with the offset of the first "%"
    ///   not followed by two hex digits.
    public static func decode(_ string: String) throws(PercentDecodingError) -> [UInt8] {
        var string = string
        let result = string.withUTF8 { input in
            Result { () throws(PercentDecodingError) in try decodeToArray(UnsafeRawBufferPointer(input), plusAsSpace: false) }
        }
        return try result.get()
    }

    /// Decodes percent-encoded bytes to bytes.
    /// - Parameter bytes: the encoded bytes.
    /// - Returns: the decoded bytes.
    /// - Throws: `PercentDecodingError.malformedPercentEncoding` with the offset of the bad "%".
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(PercentDecodingError) -> [UInt8] {
        try decodeToArray(bytes, plusAsSpace: false)
    }

    /// Decodes percent-encoded bytes, appending the result to `buffer`. On error nothing is
    /// appended.
    /// - Parameters:
    ///   - bytes: the encoded bytes.
    ///   - buffer: where the decoded bytes are appended.
    /// - Throws: `PercentDecodingError.malformedPercentEncoding` with the offset of the bad "%".
    public static func decode(_ bytes: UnsafeRawBufferPointer, into buffer: inout ByteBuffer) throws(PercentDecodingError) {
        // The writer index only moves when the body returns, so a throw appends nothing. (Do not
        // restore a writer index saved before the call: making room may move the readable bytes
        // to the front of new storage, and the old index would then expose uninitialised bytes.)
        try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes.count) { (region) throws(PercentDecodingError) -> Int in
            try decode(bytes, into: region.baseAddress!, plusAsSpace: false)
        }
    }

    /// Decodes percent-encoded text to text.
    /// - Parameter string: the encoded text; "+" stays "+".
    /// - Returns: the decoded text.
    /// - Throws: `PercentDecodingError` `.malformedPercentEncoding`, or `.invalidUTF8` when the
    ///   decoded bytes are not UTF-8 (never repaired with U+FFFD).
    public static func decodeToString(_ string: String) throws(PercentDecodingError) -> String {
        var string = string
        let result = string.withUTF8 { input in
            Result { () throws(PercentDecodingError) in try decodeToString(UnsafeRawBufferPointer(input), plusAsSpace: false) }
        }
        return try result.get()
    }

    /// Decodes percent-encoded bytes to text.
    /// - Parameter bytes: the encoded bytes; "+" stays "+".
    /// - Returns: the decoded text.
    /// - Throws: `PercentDecodingError` `.malformedPercentEncoding` or `.invalidUTF8`.
    public static func decodeToString(_ bytes: UnsafeRawBufferPointer) throws(PercentDecodingError) -> String {
        try decodeToString(bytes, plusAsSpace: false)
    }

    static func decodeToArray(_ input: UnsafeRawBufferPointer, plusAsSpace: Bool) throws(PercentDecodingError) -> [UInt8] {
        if input.isEmpty { return [] }
        var failure: PercentDecodingError?
        let bytes = [UInt8](unsafeUninitializedCapacity: input.count) { output, count in
            let result = Result { () throws(PercentDecodingError) -> Int in
                try decode(input, into: UnsafeMutableRawPointer(output.baseAddress!), plusAsSpace: plusAsSpace)
            }
            switch result {
            case .success(let written): count = written
            case .failure(let error): failure = error; count = 0
            }
        }
        if let failure { throw failure }
        return bytes
    }

    /// Decodes and checks the result is UTF-8. Offsets in errors are relative to `input`.
    static func decodeToString(_ input: UnsafeRawBufferPointer, plusAsSpace: Bool) throws(PercentDecodingError) -> String {
        let bytes = try decodeToArray(input, plusAsSpace: plusAsSpace)
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        let bad = UTF8Validation.firstInvalidIndex(bytes) ?? 0
        throw PercentDecodingError(.invalidUTF8, offset: inputOffset(ofDecodedIndex: bad, in: input))
    }

    /// The offset in `input` of the byte or triplet that decoded to byte `index`.
    private static func inputOffset(ofDecodedIndex index: Int, in input: UnsafeRawBufferPointer) -> Int {
        var offset = 0
        for _ in 0..<index {
            offset += input[offset] == UInt8(ascii: "%") ? 3 : 1
        }
        return offset
    }

    /// The decoding loop. `output` must have `input.count` bytes of room (decoding never grows).
    /// - Returns: the number of bytes of output.
    static func decode(_ input: UnsafeRawBufferPointer, into output: UnsafeMutableRawPointer, plusAsSpace: Bool) throws(PercentDecodingError) -> Int {
        let n = input.count
        guard n > 0 else { return 0 }
        let source = input.baseAddress!
        let hex = HexDigitTable.values
        let percents: UInt64 = 0x2525_2525_2525_2525            // "%" in every byte
        let pluses: UInt64 = plusAsSpace ? 0x2B2B_2B2B_2B2B_2B2B : 0x2525_2525_2525_2525
        var i = 0
        var o = 0
        // SAFETY (whole loop): reads are below n (i + 8 <= n, i + 2 < n checked before the hex
        // digits are read); o <= i always, and output has n bytes of room.
        while i < n {
            if i &+ 8 <= n {
                let word = source.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                if !hasByte(word, percents) && !hasByte(word, pluses) {
                    output.storeBytes(of: word, toByteOffset: o, as: UInt64.self)
                    i &+= 8
                    o &+= 8
                    continue
                }
            }
            let byte = source.load(fromByteOffset: i, as: UInt8.self)
            if byte == UInt8(ascii: "%") {
                guard i &+ 2 < n else { throw PercentDecodingError(.malformedPercentEncoding, offset: i) }
                let high = hex[Int(source.load(fromByteOffset: i &+ 1, as: UInt8.self))]
                let low = hex[Int(source.load(fromByteOffset: i &+ 2, as: UInt8.self))]
                guard high | low < 16 else { throw PercentDecodingError(.malformedPercentEncoding, offset: i) }
                output.storeBytes(of: high &<< 4 | low, toByteOffset: o, as: UInt8.self)
                i &+= 3
            } else {
                let decoded = plusAsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte
                output.storeBytes(of: decoded, toByteOffset: o, as: UInt8.self)
                i &+= 1
            }
            o &+= 1
        }
        return o
    }

    /// Whether any byte of `word` equals the byte repeated in `pattern` (the classic SWAR
    /// zero-byte test on `word ^ pattern`).
    @inline(__always)
    private static func hasByte(_ word: UInt64, _ pattern: UInt64) -> Bool {
        let x = word ^ pattern
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080 != 0
    }
}

/// Hex digit values for decoding: 0–15, or 0xFF for a byte that is not a hex digit.
enum HexDigitTable {
    // SAFETY: written once during lazy global initialisation, read-only afterwards.
    nonisolated(unsafe) static let values: UnsafePointer<UInt8> = {
        let table = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
        table.initialize(repeating: 0xFF, count: 256)
        for value in 0..<10 { table[Int(UInt8(ascii: "0")) + value] = UInt8(value) }
        for value in 0..<6 {
            table[Int(UInt8(ascii: "A")) + value] = UInt8(10 + value)
            table[Int(UInt8(ascii: "a")) + value] = UInt8(10 + value)
        }
        return UnsafePointer(table)
    }()
}
