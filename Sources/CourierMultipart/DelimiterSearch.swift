// DelimiterSearch: finds a multipart delimiter (`CRLF--boundary`, RFC 2046 §5.1.1) in a run of
// bytes, or the position from which the end of the run could still be the start of one.
//
// Owns the one hot loop of the parser. Every delimiter begins with CR, so the scan looks for CR
// eight bytes at a time (the classic "has zero byte" test on `word ^ 0x0D0D...`) and compares the
// pattern only at CR positions (32 bytes per step with SIMD16 compares, then eight at a time). Never rescans: a caller that got `safeEnd` hands out the bytes
// before it and searches again from there once more bytes arrive.

import CourierBytes

enum DelimiterSearch {
    /// The outcome of one search.
    struct Result: Equatable {
        /// The index where the whole pattern starts, if it occurs.
        var found: Int?
        /// When not found: bytes before this index can never be part of a match; bytes from it to
        /// the end are a prefix of the pattern and must be kept until more input arrives.
        var safeEnd: Int
    }

    /// Searches `data[start...]` for `pattern`, which must start with CR.
    /// - Parameters:
    ///   - pattern: the delimiter bytes (CR first).
    ///   - data: the bytes to search.
    ///   - start: where to start.
    /// - Returns: the match, or how far the bytes are certainly free of one.
    static func find(_ pattern: [UInt8], in data: UnsafeRawBufferPointer, from start: Int) -> Result {
        pattern.withUnsafeBytes { find(pattern: $0, in: data, from: start) }
    }

    /// Searches `data[start...]` for `pattern`, which must start with CR.
    static func find(pattern: UnsafeRawBufferPointer, in data: UnsafeRawBufferPointer, from start: Int) -> Result {
        let n = data.count
        guard n > start, let base = data.baseAddress, let pat = pattern.baseAddress else {
            return Result(found: nil, safeEnd: max(start, n))
        }
        let m = pattern.count
        var p = start
        while true {
            guard let cr = nextCR(base, from: p, count: n) else { return Result(found: nil, safeEnd: n) }
            let available = n - cr
            let compare = min(m, available)
            // SAFETY: cr + compare <= n, and compare <= m, so both reads stay in bounds.
            if memoryEqual(base + cr, pat, compare) {
                if available >= m { return Result(found: cr, safeEnd: cr) }
                return Result(found: nil, safeEnd: cr)
            }
            p = cr + 1
        }
    }

    /// The index of the next CR at or after `from`, or nil.
    @inline(__always)
    static func nextCR(_ base: UnsafeRawPointer, from: Int, count n: Int) -> Int? {
        var i = from
        // Thirty-two bytes per step (two SIMD16 compares ORed, so one test per step), then the
        // first set lane of the half that has it: memchr's shape.
        let cr = ByteVector(repeating: 0x0D)
        while i &+ 32 <= n {
            // SAFETY: i + 32 <= n.
            let a = ByteVectors.load(base + i) .== cr
            let b = ByteVectors.load(base + i + 16) .== cr
            if ByteVectors.any(a .| b) {
                let lane = ByteVectors.firstLane(a)
                return lane < 16 ? i &+ lane : i &+ 16 &+ ByteVectors.firstLane(b)
            }
            i &+= 32
        }
        let crs: UInt64 = 0x0D0D_0D0D_0D0D_0D0D
        let lows: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while i + 8 <= n {
            // SAFETY: i + 8 <= n, so the 8-byte load is inside the buffer.
            let word = base.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ crs
            if (word &- lows) & ~word & highs != 0 { break }
            i += 8
        }
        while i < n {
            // SAFETY: i < n.
            if base.load(fromByteOffset: i, as: UInt8.self) == 0x0D { return i }
            i += 1
        }
        return nil
    }

    @inline(__always)
    static func memoryEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
        var i = 0
        while i < count {
            if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
            i += 1
        }
        return true
    }
}
