// ZStream: the one owner of a zlib `z_stream` (swift-nio-ssl's rule: every C object has exactly
// one Swift owner that frees it in deinit).
//
// Invariants:
// - The z_stream lives at a fixed heap address for its whole life: zlib ≥ 1.2.9 stores a pointer
//   back to it in its private state and rejects a stream that has moved (inflateStateCheck), so it
//   can never be a stored property of a Swift struct.
// - `next_in`/`next_out` point into caller memory only for the duration of one `run` call; between
//   calls they are stale and zlib never reads them.
// - Mutation happens only through a uniquely referenced ZStream: the value types that hold one
//   (InflateStage, ContentEncoder) call `copy()` (inflateCopy/deflateCopy) before mutating a
//   shared one. That is what the `@unchecked Sendable` conformance rests on, as for
//   ByteBuffer.Storage.
//
// zlib's allocation failures (Z_MEM_ERROR) trap, as every Swift allocation failure does.

internal import CCourierZlib

/// The framing around a deflate stream, as zlib's windowBits encode it.
enum ZFormat: Sendable, Hashable {
    /// RFC 1952: gzip header, deflate data, CRC-32 and ISIZE.
    case gzip
    /// RFC 1950: two-byte header, deflate data, Adler-32.
    case zlib
    /// RFC 1951: deflate data alone.
    case raw

    /// zlib's windowBits for a 32 KiB window in this framing.
    var windowBits: Int32 {
        switch self {
        case .gzip: return 15 + 16
        case .zlib: return 15
        case .raw: return -15
        }
    }
}

/// What one call into zlib did.
struct ZResult {
    /// zlib's return code (Z_OK, Z_STREAM_END, Z_BUF_ERROR, Z_DATA_ERROR, …).
    var status: Int32
    /// Input bytes zlib consumed.
    var consumed: Int
    /// Output bytes zlib wrote.
    var produced: Int
}

final class ZStream: @unchecked Sendable {
    enum Direction { case inflate, deflate }

    let direction: Direction
    let format: ZFormat
    private let stream: UnsafeMutablePointer<z_stream>

    /// An inflater for `format`.
    init(inflating format: ZFormat) {
        direction = .inflate
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())  // zalloc/zfree/opaque nil: zlib's own allocator
        let status = courier_inflateInit2(stream, format.windowBits)
        precondition(status == Z_OK, "inflateInit2 failed (\(status))")
    }

    /// A deflater for `format` at compression `level` (0…9).
    init(deflating format: ZFormat, level: Int32) {
        direction = .deflate
        self.format = format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // memLevel 8 is zlib's default (deflateInit uses it): about 256 KiB of state.
        let status = courier_deflateInit2(stream, level, format.windowBits, 8, Z_DEFAULT_STRATEGY)
        precondition(status == Z_OK, "deflateInit2 failed (\(status))")
    }

    private init(copying other: ZStream) {
        direction = other.direction
        format = other.format
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        let status = other.direction == .inflate ? inflateCopy(stream, other.stream) : deflateCopy(stream, other.stream)
        precondition(status == Z_OK, "zlib stream copy failed (\(status))")
    }

    deinit {
        switch direction {
        case .inflate: inflateEnd(stream)
        case .deflate: deflateEnd(stream)
        }
        stream.deinitialize(count: 1)
        stream.deallocate()
    }

    /// An independent stream in the same state (window, bit buffer, checksums).
    func copy() -> ZStream { ZStream(copying: self) }

    /// Makes an inflater ready for a new stream in the same framing (the next gzip member).
    func reset() {
        precondition(direction == .inflate)
        let status = inflateReset(stream)
        precondition(status == Z_OK, "inflateReset failed (\(status))")
    }

    /// Total input bytes consumed since creation or the last reset.
    var totalIn: UInt64 { UInt64(stream.pointee.total_in) }

    /// zlib's description of the last error, if it gave one.
    var message: String? {
        guard let msg = stream.pointee.msg else { return nil }
        return String(cString: msg)
    }

    /// One inflate or deflate call over `input` into `output`.
    ///
    /// - Parameters:
    ///   - input: the bytes to consume (zlib takes at most 4 GiB − 1 per call).
    ///   - output: where to write (likewise capped).
    ///   - flush: Z_NO_FLUSH, Z_SYNC_FLUSH or Z_FINISH (deflate); inflate always uses Z_NO_FLUSH.
    /// - Returns: zlib's status and how far it got.
    func run(input: UnsafeRawBufferPointer, output: UnsafeMutableRawBufferPointer, flush: Int32 = Z_NO_FLUSH) -> ZResult {
        let inCount = UInt32(clamping: input.count)
        let outCount = UInt32(clamping: output.count)
        // SAFETY: both pointers are valid for the counts given for the duration of this call (the
        // caller's closures hold them), zlib reads at most avail_in bytes and writes at most
        // avail_out bytes, and neither pointer is used after the call returns.
        stream.pointee.next_in = input.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_in = inCount
        stream.pointee.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
        stream.pointee.avail_out = outCount
        let status: Int32
        switch direction {
        case .inflate: status = inflate(stream, Z_NO_FLUSH)
        case .deflate: status = deflate(stream, flush)
        }
        let consumed = Int(inCount - stream.pointee.avail_in)
        let produced = Int(outCount - stream.pointee.avail_out)
        stream.pointee.next_in = nil
        stream.pointee.avail_in = 0
        stream.pointee.next_out = nil
        stream.pointee.avail_out = 0
        return ZResult(status: status, consumed: consumed, produced: produced)
    }
}

/// zlib's status codes, for the files that do not import zlib.
enum ZStatus {
    static let ok = Z_OK
    static let streamEnd = Z_STREAM_END
    static let needDictionary = Z_NEED_DICT
    static let bufferError = Z_BUF_ERROR
    static let dataError = Z_DATA_ERROR
    static let noFlush = Z_NO_FLUSH
    static let syncFlush = Z_SYNC_FLUSH
    static let finish = Z_FINISH
}
