// ByteVector: the portable SIMD vocabulary the byte scanners share (JSON stage 1, percent-encoding,
// the HTTP/1.1 head scanner, the multipart delimiter search).
//
// Why these shapes. Swift's portable SIMD types lower to single machine instructions only where
// the standard library has concrete implementations: for `SIMD16<UInt8>` comparisons, bitwise
// operations and wrapping arithmetic do (one SSE2 / NEON instruction each); for `SIMD32<UInt8>`
// and `SIMD64<UInt8>` several of them (`&`, `|`, shifts, `any`) fall back to a lane-by-lane loop
// that runs 100× slower (checked in the generated code with Swift 6.3). So every scanner works on
// 16-byte vectors, four of them for a 64-byte block, and reinterprets when it needs 64-bit lanes.
//
// There is also no portable "movemask" (one bit per lane). Two replacements, both measured:
//   * `firstLane(_:)`: the index of the first true lane of a 16-byte mask, from its two 64-bit
//     halves (each lane is 0x00 or 0xFF): a compare and a trailing-zero count.
//   * `bitmask(_:_:_:_:)`: the 64-bit mask of a 64-byte block. Each of the four lane masks is
//     ANDed with a weight (byte i of vector k gets bit 2k + i / 8), the four are ORed, and the two
//     halves folded, which leaves one byte per column j = i mod 8 holding the bits of positions
//     j, j+8, …, j+56; an 8×8 bit transpose (three delta swaps) puts bit p at position p. About
//     twenty instructions per 64 bytes; five such masks classify 64 bytes at ~19 GB/s here.

/// Sixteen bytes, the unit every vector scanner works in.
public typealias ByteVector = SIMD16<UInt8>
/// The result of comparing two `ByteVector`s lane by lane.
public typealias ByteVectorMask = SIMDMask<SIMD16<Int8>>

/// Helpers over `ByteVector`s.
public enum ByteVectors {
    /// The 16 bytes at `pointer` (no alignment needed).
    /// - Parameter pointer: at least 16 readable bytes.
    /// - Returns: the vector.
    @inlinable @inline(__always)
    public static func load(_ pointer: UnsafeRawPointer) -> ByteVector {
        pointer.loadUnaligned(as: ByteVector.self)
    }

    /// Stores a vector at `pointer` (no alignment needed).
    /// - Parameters:
    ///   - vector: the bytes.
    ///   - pointer: at least 16 writable bytes.
    @inlinable @inline(__always)
    public static func store(_ vector: ByteVector, to pointer: UnsafeMutableRawPointer) {
        pointer.storeBytes(of: vector, as: ByteVector.self)
    }

    /// The lane mask as bytes (0x00 or 0xFF each).
    /// - Parameter mask: a comparison result.
    /// - Returns: the same bits as a byte vector.
    @inlinable @inline(__always)
    public static func bytes(_ mask: ByteVectorMask) -> ByteVector {
        unsafeBitCast(mask, to: ByteVector.self)
    }

    /// Whether any lane of `mask` is true.
    /// - Parameter mask: a comparison result.
    /// - Returns: true when at least one lane is set.
    @inlinable @inline(__always)
    public static func any(_ mask: ByteVectorMask) -> Bool {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        return halves[0] | halves[1] != 0
    }

    /// Whether any byte of `vector` has its high bit set (is not ASCII).
    /// - Parameter vector: the bytes.
    /// - Returns: true when a byte is 0x80 or above.
    @inlinable @inline(__always)
    public static func hasNonASCII(_ vector: ByteVector) -> Bool {
        let halves = unsafeBitCast(vector, to: SIMD2<UInt64>.self)
        return (halves[0] | halves[1]) & 0x8080_8080_8080_8080 != 0
    }

    /// The index (0–15) of the first true lane of `mask`, or 16 when none is.
    /// - Parameter mask: a comparison result.
    /// - Returns: the first set lane, or 16.
    @inlinable @inline(__always)
    public static func firstLane(_ mask: ByteVectorMask) -> Int {
        let halves = unsafeBitCast(mask, to: SIMD2<UInt64>.self)
        #if _endian(little)
        if halves[0] != 0 { return halves[0].trailingZeroBitCount &>> 3 }
        if halves[1] != 0 { return 8 &+ (halves[1].trailingZeroBitCount &>> 3) }
        #else
        for lane in 0..<16 where mask[lane] { return lane }
        #endif
        return 16
    }

    /// The 16-bit mask of a lane mask: bit i is lane i.
    /// - Parameter mask: a comparison result.
    /// - Returns: one bit per lane.
    @inlinable @inline(__always)
    public static func bitmask(_ mask: ByteVectorMask) -> UInt32 {
        // Each 64-bit half holds eight 0x00/0x01 bytes; the multiply gathers byte i's bit into
        // bit 56 + i (the products of different bytes never overlap, so nothing carries).
        let halves = unsafeBitCast(bytes(mask) & ByteVector(repeating: 1), to: SIMD2<UInt64>.self)
        let low = (halves[0] &* 0x0102_0408_1020_4080) &>> 56
        let high = (halves[1] &* 0x0102_0408_1020_4080) &>> 56
        return UInt32(truncatingIfNeeded: low | high &<< 8)
    }

    /// The 64-bit mask of four consecutive lane masks (a 64-byte block): bit p is byte p.
    /// - Parameters:
    ///   - m0: bytes 0–15.
    ///   - m1: bytes 16–31.
    ///   - m2: bytes 32–47.
    ///   - m3: bytes 48–63.
    /// - Returns: one bit per byte, byte 0 in bit 0.
    @inlinable @inline(__always)
    public static func bitmask(_ m0: ByteVectorMask, _ m1: ByteVectorMask, _ m2: ByteVectorMask, _ m3: ByteVectorMask) -> UInt64 {
        // Byte i of vector k carries bit 2k + i/8, so after folding the halves byte j (j < 8)
        // holds positions j + 8t in bit t: column j of an 8×8 bit matrix.
        let w0 = ByteVector(1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2)
        let w1 = ByteVector(4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8)
        let w2 = ByteVector(16, 16, 16, 16, 16, 16, 16, 16, 32, 32, 32, 32, 32, 32, 32, 32)
        let w3 = ByteVector(64, 64, 64, 64, 64, 64, 64, 64, 128, 128, 128, 128, 128, 128, 128, 128)
        let x = (bytes(m0) & w0) | (bytes(m1) & w1) | (bytes(m2) & w2) | (bytes(m3) & w3)
        let folded = x.lowHalf | x.highHalf
        #if _endian(little)
        return transpose8x8(unsafeBitCast(folded, to: UInt64.self))
        #else
        var result: UInt64 = 0
        for j in 0..<8 { for t in 0..<8 where folded[j] & (1 << t) != 0 { result |= 1 << UInt64(j + 8 * t) } }
        return result
        #endif
    }

    /// The 64-bit masks of two 64-byte blocks' lane masks at once: `bitmask` for each, with the
    /// two folded halves transposed together in one 16-byte register (the delta swaps are 64-bit
    /// lane shifts), which costs about two thirds of two separate calls.
    /// - Parameters:
    ///   - a0: the first block's mask of bytes 0–15.
    ///   - a1: the first block's mask of bytes 16–31.
    ///   - a2: the first block's mask of bytes 32–47.
    ///   - a3: the first block's mask of bytes 48–63.
    ///   - b0: the second block's mask of bytes 0–15.
    ///   - b1: the second block's mask of bytes 16–31.
    ///   - b2: the second block's mask of bytes 32–47.
    ///   - b3: the second block's mask of bytes 48–63.
    /// - Returns: the two masks, byte 0 in bit 0.
    @inlinable @inline(__always)
    public static func bitmasks(_ a0: ByteVectorMask, _ a1: ByteVectorMask, _ a2: ByteVectorMask, _ a3: ByteVectorMask,
                                _ b0: ByteVectorMask, _ b1: ByteVectorMask, _ b2: ByteVectorMask, _ b3: ByteVectorMask) -> (UInt64, UInt64) {
        #if _endian(little)
        let w0 = ByteVector(1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2)
        let w1 = ByteVector(4, 4, 4, 4, 4, 4, 4, 4, 8, 8, 8, 8, 8, 8, 8, 8)
        let w2 = ByteVector(16, 16, 16, 16, 16, 16, 16, 16, 32, 32, 32, 32, 32, 32, 32, 32)
        let w3 = ByteVector(64, 64, 64, 64, 64, 64, 64, 64, 128, 128, 128, 128, 128, 128, 128, 128)
        let xa = unsafeBitCast((bytes(a0) & w0) | (bytes(a1) & w1) | (bytes(a2) & w2) | (bytes(a3) & w3), to: SIMD2<UInt64>.self)
        let xb = unsafeBitCast((bytes(b0) & w0) | (bytes(b1) & w1) | (bytes(b2) & w2) | (bytes(b3) & w3), to: SIMD2<UInt64>.self)
        // Lane 0: a's folded halves; lane 1: b's. Then the delta swaps of transpose8x8 per lane.
        var x = SIMD2<UInt64>(xa[0], xb[0]) | SIMD2<UInt64>(xa[1], xb[1])
        var t = (x ^ (x &>> 7)) & SIMD2(repeating: 0x00AA_00AA_00AA_00AA)
        x = x ^ t ^ (t &<< 7)
        t = (x ^ (x &>> 14)) & SIMD2(repeating: 0x0000_CCCC_0000_CCCC)
        x = x ^ t ^ (t &<< 14)
        t = (x ^ (x &>> 28)) & SIMD2(repeating: 0x0000_0000_F0F0_F0F0)
        x = x ^ t ^ (t &<< 28)
        return (x[0], x[1])
        #else
        return (bitmask(a0, a1, a2, a3), bitmask(b0, b1, b2, b3))
        #endif
    }

    /// Transposes the 8×8 bit matrix whose row r is byte r (bit c of row r is bit 8r + c).
    /// Hacker's Delight §7-3: three delta swaps.
    /// - Parameter x: the matrix.
    /// - Returns: the transposed matrix.
    @inlinable @inline(__always)
    public static func transpose8x8(_ x: UInt64) -> UInt64 {
        var x = x
        var t = (x ^ (x &>> 7)) & 0x00AA_00AA_00AA_00AA
        x = x ^ t ^ (t &<< 7)
        t = (x ^ (x &>> 14)) & 0x0000_CCCC_0000_CCCC
        x = x ^ t ^ (t &<< 14)
        t = (x ^ (x &>> 28)) & 0x0000_0000_F0F0_F0F0
        return x ^ t ^ (t &<< 28)
    }

    /// Lanes whose byte lies in `low...high` (unsigned).
    /// - Parameters:
    ///   - vector: the bytes.
    ///   - low: the smallest byte in the range.
    ///   - high: the largest byte in the range (at least `low`).
    /// - Returns: the lanes in range.
    @inlinable @inline(__always)
    public static func inRange(_ vector: ByteVector, _ low: UInt8, _ high: UInt8) -> ByteVectorMask {
        // One subtraction moves the range to 0...(high - low); bytes below `low` wrap above it.
        (vector &- ByteVector(repeating: low)) .<= ByteVector(repeating: high &- low)
    }
}

/// Sixty-four bytes as four `ByteVector`s.
@frozen
public struct ByteBlock64 {
    /// Bytes 0–15.
    public var v0: ByteVector
    /// Bytes 16–31.
    public var v1: ByteVector
    /// Bytes 32–47.
    public var v2: ByteVector
    /// Bytes 48–63.
    public var v3: ByteVector

    /// Creates a block from four vectors.
    /// - Parameters:
    ///   - v0: bytes 0–15.
    ///   - v1: bytes 16–31.
    ///   - v2: bytes 32–47.
    ///   - v3: bytes 48–63.
    @inlinable @inline(__always)
    public init(_ v0: ByteVector, _ v1: ByteVector, _ v2: ByteVector, _ v3: ByteVector) {
        self.v0 = v0
        self.v1 = v1
        self.v2 = v2
        self.v3 = v3
    }

    /// Loads 64 bytes.
    /// - Parameter pointer: at least 64 readable bytes.
    @inlinable @inline(__always)
    public init(loading pointer: UnsafeRawPointer) {
        v0 = pointer.loadUnaligned(as: ByteVector.self)
        v1 = pointer.loadUnaligned(fromByteOffset: 16, as: ByteVector.self)
        v2 = pointer.loadUnaligned(fromByteOffset: 32, as: ByteVector.self)
        v3 = pointer.loadUnaligned(fromByteOffset: 48, as: ByteVector.self)
    }

    /// The 64-bit mask of the bytes equal to `byte`.
    /// - Parameter byte: the byte to find.
    /// - Returns: bit p set when byte p equals it.
    @inlinable @inline(__always)
    public func equal(_ byte: UInt8) -> UInt64 {
        let b = ByteVector(repeating: byte)
        return ByteVectors.bitmask(v0 .== b, v1 .== b, v2 .== b, v3 .== b)
    }

    /// The 64-bit mask of the bytes below `byte` (unsigned).
    /// - Parameter byte: the bound.
    /// - Returns: bit p set when byte p is below it.
    @inlinable @inline(__always)
    public func below(_ byte: UInt8) -> UInt64 {
        let b = ByteVector(repeating: byte)
        return ByteVectors.bitmask(v0 .< b, v1 .< b, v2 .< b, v3 .< b)
    }

    /// Whether any of the 64 bytes is 0x80 or above.
    @inlinable
    public var hasNonASCII: Bool {
        @inline(__always) get { ByteVectors.hasNonASCII(v0 | v1 | v2 | v3) }
    }
}
