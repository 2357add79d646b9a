// ContentEncoder: gzip and deflate through the system zlib, whole-buffer and streaming. Used by
// the loopback server's compressed routes and by tests; a client rarely compresses request bodies.
//
// What it owns: one zlib deflater (copy-on-write through deflateCopy, as ContentDecoder's
// inflaters). Invariants: output is appended as zlib produces it; nothing is buffered here beyond
// zlib's own state; after `finish()` the encoder is spent (a precondition).
//
// RFC 1952 (gzip: zlib writes a minimal header — no name, no time, OS 3), RFC 1950 (zlib), RFC 1951.

import CourierBytes

/// A streaming gzip or deflate compressor.
///
/// ```swift
/// var encoder = ContentEncoder(.gzip)
/// var body = encoder.encode(part1)
/// body.writeBuffer(encoder.encode(part2))
/// body.writeBuffer(encoder.finish())
/// ```
public struct ContentEncoder: Sendable {
    /// The framing of the compressed stream.
    public enum Format: Sendable, Hashable, CaseIterable {
        /// RFC 1952 gzip (`Content-Encoding: gzip`).
        case gzip
        /// RFC 1950 zlib-wrapped deflate (`Content-Encoding: deflate`).
        case zlib
        /// RFC 1951 raw deflate, as some servers wrongly send for `deflate`.
        case rawDeflate
    }

    /// The framing produced.
    public let format: Format
    private var stream: ZStream
    private var finished = false

    /// An encoder.
    /// - Parameters:
    ///   - format: the framing.
    ///   - level: zlib's compression level, 0 (store) … 9 (best); 6 is zlib's default.
    public init(_ format: Format, level: Int = 6) {
        precondition((0...9).contains(level), "compression level must be 0…9")
        self.format = format
        let zFormat: ZFormat
        switch format {
        case .gzip: zFormat = .gzip
        case .zlib: zFormat = .zlib
        case .rawDeflate: zFormat = .raw
        }
        stream = ZStream(deflating: zFormat, level: Int32(level))
    }

    /// An encoder for a content coding (`gzip` or `deflate`, the zlib-wrapped form).
    /// - Parameters:
    ///   - coding: the coding; `identity` is a precondition failure (there is nothing to encode).
    ///   - level: zlib's compression level, 0…9.
    public init(coding: ContentCoding, level: Int = 6) {
        switch coding {
        case .gzip: self.init(.gzip, level: level)
        case .deflate: self.init(.zlib, level: level)
        case .identity: preconditionFailure("identity has no encoder")
        }
    }

    /// Compresses more input.
    /// - Parameter input: the next bytes.
    /// - Returns: compressed bytes produced so far (often none: zlib holds input until it has a block).
    public mutating func encode(_ input: ByteBuffer) -> ByteBuffer {
        run(input, flush: ZStatus.noFlush)
    }

    /// Compresses more input and flushes to a byte boundary (Z_SYNC_FLUSH), so everything given so
    /// far can be decoded by the peer now. Costs a few bytes per flush.
    /// - Parameter input: the next bytes (may be empty).
    /// - Returns: the compressed bytes.
    public mutating func flush(_ input: ByteBuffer = ByteBuffer()) -> ByteBuffer {
        run(input, flush: ZStatus.syncFlush)
    }

    /// Compresses the last input and ends the stream (the trailer: CRC-32 and size, or Adler-32).
    /// - Parameter input: the last bytes (may be empty).
    /// - Returns: the rest of the compressed stream.
    public mutating func finish(_ input: ByteBuffer = ByteBuffer()) -> ByteBuffer {
        let out = run(input, flush: ZStatus.finish)
        finished = true
        return out
    }

    /// Compresses a whole buffer.
    /// - Parameters:
    ///   - input: the bytes.
    ///   - format: the framing.
    ///   - level: zlib's compression level, 0…9.
    /// - Returns: the complete compressed stream.
    public static func encode(_ input: ByteBuffer, format: Format, level: Int = 6) -> ByteBuffer {
        var encoder = ContentEncoder(format, level: level)
        return encoder.finish(input)
    }

    private mutating func run(_ input: ByteBuffer, flush: Int32) -> ByteBuffer {
        precondition(!finished, "the encoder has finished")
        if !isKnownUniquelyReferenced(&stream) { stream = stream.copy() }
        let stream = self.stream
        var out = ByteBuffer()
        var offset = 0
        let total = input.readableBytes
        while true {
            // A guess at the output (zlib is called again when it fills the room): an eighth of the
            // input, so a run of zeros does not allocate its own size for a few hundred bytes.
            let room = 512 + min(total - offset, 1 << 20) / 8
            var result = ZResult(status: ZStatus.ok, consumed: 0, produced: 0)
            var given = 0
            input.withUnsafeReadableBytes { bytes in
                let rest = UnsafeRawBufferPointer(rebasing: bytes[offset...])
                out.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { region in
                    given = region.count
                    result = stream.run(input: rest, output: region, flush: flush)
                    return result.produced
                }
            }
            offset += result.consumed
            if result.status == ZStatus.streamEnd { return out }
            precondition(result.status == ZStatus.ok || result.status == ZStatus.bufferError, "deflate returned \(result.status)")
            // zlib's contract: called again with the same flush while it fills the output; done
            // (short of Z_FINISH) when all input is taken and room was left over.
            if flush != ZStatus.finish && offset == total && (result.produced < given || result.status == ZStatus.bufferError) {
                return out
            }
        }
    }
}
