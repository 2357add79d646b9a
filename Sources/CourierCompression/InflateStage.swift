// InflateStage: undoes one content coding (gzip or deflate) over a stream of input buffers, one
// bounded output piece at a time. ContentDecoder chains stages and enforces the limits.
//
// What it owns: one zlib inflater (created when the framing is known), the input it has been given
// and not yet consumed (a shared slice of the caller's buffer: no copy), its output scratch buffer,
// and counters of bytes consumed and produced.
//
// States:
//   awaitingMember  (gzip) before the first member or after a complete one: no input yet, or the
//                   member ended exactly at the end of the input. The next byte must be 0x1f, the
//                   first byte of another member (RFC 1952 §2.2: "a series of members"); anything
//                   else is trailing garbage and an error (Go's gzip.Reader, Python's gzip module).
//   sniffing        (deflate) fewer than two bytes seen: the framing is not known yet.
//   inflating       inside a stream; zlib owns the parse.
//   ended           (deflate) the stream is complete; `allowance` more bytes are tolerated (4 after
//                   a raw stream, as curl does: servers that send zlib without its header still
//                   append the Adler-32; 0 after a zlib stream).
//
// Invariants:
// - `produce` returns an empty buffer only when no more output can come without more input; it
//   never returns with usable input left and room in the piece.
// - Errors are not sticky here; ContentDecoder makes them sticky.
// - The outcome never depends on how the input was cut: the framing is decided on the first two
//   bytes whatever their arrival, and zlib itself is split-independent.
//
// RFC 1950 §2.2 (zlib header: CM = 8, CINFO ≤ 7, FCHECK makes CMF·256+FLG a multiple of 31), RFC 1951
// (deflate), RFC 1952 §2.2–2.3 (members, header, CRC-32, ISIZE; zlib checks both).

import CourierBytes

/// Why a stage stopped, before ContentDecoder adds offsets.
struct StageFailure: Error {
    var code: ContentDecodingError.Code
    var message: String
}

struct InflateStage {
    enum Coding { case gzip, deflate }

    private enum State {
        case awaitingMember
        case sniffing
        case inflating
        case ended(allowance: Int)
    }

    let coding: Coding
    private var state: State
    private var stream: ZStream?
    private var pending = InflateStage.empty
    private var scratch = InflateStage.empty
    /// Whether `stream` is raw deflate (the fallback for a `deflate` body without a zlib header).
    private(set) var isRawDeflate = false
    /// Input bytes consumed (by zlib, or tolerated after the end).
    private(set) var consumed: UInt64 = 0
    /// Output bytes produced.
    private(set) var produced: UInt64 = 0
    /// Gzip members started.
    private(set) var members = 0
    /// True when the last `produce` stopped for lack of input (not because its piece was full)
    /// and no input has been appended since: no more output without more input.
    private(set) var isDrained = true

    /// One shared empty buffer: assigning it releases a consumed slice without allocating.
    static let empty = ByteBuffer()

    init(_ coding: Coding) {
        self.coding = coding
        state = coding == .gzip ? .awaitingMember : .sniffing
    }

    /// Whether input is waiting to be consumed.
    var hasPendingInput: Bool { pending.readableBytes > 0 }

    /// Queues input. Zero copy when nothing is pending (the usual case); appends otherwise.
    mutating func append(_ input: ByteBuffer) {
        guard input.readableBytes > 0 else { return }
        isDrained = false
        if pending.readableBytes == 0 {
            pending = input
        } else {
            pending.writeBuffer(input)
        }
    }

    /// Decodes pending input into one piece of at most `maxBytes` bytes.
    /// - Returns: the piece; empty when more input is needed.
    /// - Throws: `StageFailure` for invalid data.
    mutating func produce(maxBytes: Int) throws(StageFailure) -> ByteBuffer {
        // Take the scratch out of self so it is uniquely referenced while written (and reused when
        // the previous piece handed out has been dropped).
        var out = scratch
        scratch = InflateStage.empty
        out.clear()
        out.reserveCapacity(minimumWritableBytes: maxBytes)
        defer { if pending.readableBytes == 0 { pending = InflateStage.empty } }
        try fill(&out, room: maxBytes)
        let count = out.readableBytes
        produced += UInt64(count)
        isDrained = count < maxBytes
        if count == 0 {
            scratch = out
            return InflateStage.empty
        }
        // A small piece is copied to a buffer of its own size, so a caller keeping many small
        // pieces does not keep a full scratch buffer alive for each; a large one is handed out as
        // is (the next call allocates a fresh scratch if the caller still holds it).
        if count >= maxBytes / 4 {
            return out
        }
        let piece = out.withUnsafeReadableBytes { ByteBuffer(bytes: $0) }
        scratch = out
        return piece
    }

    /// Checks that the stream ended cleanly when the input ends.
    /// - Throws: `.truncated` when the input ended inside a stream.
    func finish() throws(StageFailure) {
        switch state {
        case .awaitingMember, .ended:
            return
        case .sniffing:
            // No byte at all is an empty body: curl and Go hand it over as empty.
            if pending.readableBytes == 0 && consumed == 0 { return }
            throw StageFailure(code: .truncated, message: "the deflate stream ended after its first byte")
        case .inflating:
            let what = coding == .gzip ? "gzip member" : isRawDeflate ? "raw deflate stream" : "zlib stream"
            throw StageFailure(code: .truncated, message: "the input ended inside a \(what)")
        }
    }

    // MARK: Decoding

    private mutating func fill(_ out: inout ByteBuffer, room: Int) throws(StageFailure) {
        makeStreamUnique()
        while out.readableBytes < room {
            switch state {
            case .awaitingMember:
                guard let first = pending.getInteger(at: pending.readerIndex) else { return }
                guard first == 0x1F else {
                    throw StageFailure(code: .invalidData, message: members == 0
                        ? "not a gzip stream (the first byte is not 0x1f)"
                        : "bytes after the end of the gzip stream that do not start another member")
                }
                if let stream { stream.reset() } else { stream = ZStream(inflating: .gzip) }
                members += 1
                state = .inflating
            case .sniffing:
                guard pending.readableBytes >= 2,
                      let cmf = pending.getInteger(at: pending.readerIndex),
                      let flg = pending.getInteger(at: pending.readerIndex + 1) else { return }
                // RFC 1950 §2.2. A raw stream that happens to pass all three checks is read as
                // zlib (Chromium sniffs the same way); curl instead retries raw after a data error.
                let isZlib = cmf & 0x0F == 8 && cmf >> 4 <= 7 && (UInt16(cmf) << 8 | UInt16(flg)) % 31 == 0
                isRawDeflate = !isZlib
                stream = ZStream(inflating: isZlib ? .zlib : .raw)
                state = .inflating
            case .ended(let allowance):
                let count = pending.readableBytes
                guard count > 0 else { return }
                guard count <= allowance else {
                    consumed += UInt64(allowance)
                    throw StageFailure(code: .invalidData, message: "bytes after the end of the deflate stream")
                }
                pending.moveReaderIndex(forwardBy: count)
                consumed += UInt64(count)
                state = .ended(allowance: allowance - count)
            case .inflating:
                guard let stream else { preconditionFailure("inflating without a stream") }
                let room = room - out.readableBytes
                var result = ZResult(status: ZStatus.ok, consumed: 0, produced: 0)
                _ = pending.withUnsafeReadableBytes { input in
                    out.writeWithUnsafeMutableBytes(minimumWritableBytes: room) { region in
                        result = stream.run(input: input, output: UnsafeMutableRawBufferPointer(rebasing: region.prefix(room)))
                        return result.produced
                    }
                }
                pending.moveReaderIndex(forwardBy: result.consumed)
                consumed += UInt64(result.consumed)
                switch result.status {
                case ZStatus.ok:
                    if result.consumed == 0 && result.produced == 0 { return }
                case ZStatus.bufferError:
                    return  // no progress possible: the input is used up (the piece has room)
                case ZStatus.streamEnd:
                    state = coding == .gzip ? .awaitingMember : .ended(allowance: isRawDeflate ? 4 : 0)
                case ZStatus.needDictionary:
                    throw StageFailure(code: .invalidData, message: "the zlib stream needs a preset dictionary (FDICT), which HTTP cannot supply")
                case ZStatus.dataError:
                    throw StageFailure(code: .invalidData, message: stream.message ?? "invalid compressed data")
                default:
                    preconditionFailure("inflate returned \(result.status)")
                }
            }
        }
    }

    /// Copy-on-write for the zlib state: a copied decoder gets its own stream before either
    /// copy mutates one.
    private mutating func makeStreamUnique() {
        if stream != nil && !isKnownUniquelyReferenced(&stream) { stream = stream!.copy() }
    }
}
