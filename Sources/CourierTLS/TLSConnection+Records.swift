// TLSConnection's records: ciphertext in and out, and the application data they carry.
//
// Copies, and which entry point makes them (design §3; CiphertextBIO.swift has the picture):
//   in   `handshake(from:)`, `readPlaintext(from:into:)`: none of ours — OpenSSL reads the
//        records straight out of the caller's receive buffer, lent for the call;
//        `receivedCiphertext(_:)`: one, into the engine's own inbound buffer (reused).
//   out  `writePlaintext(_:into:)`: the records are appended to the caller's buffer;
//        `writePlaintext(_:)` then `pendingCiphertext()`: the engine's output buffer is handed
//        over as it is; `writePendingCiphertext(into:)` hands it over too when the caller's buffer
//        is empty (and keeps the caller's storage for the next records), else appends a copy.
//   OpenSSL's own: ciphertext into its record buffer, where it decrypts in place, and plaintext
//   into the caller's buffer; plaintext into its record buffer, where it encrypts. Those are the
//   floor without kernel TLS.
//
// Sizes: a read fills the free room of the caller's buffer as it is (a pooled buffer keeps its
// size); when that runs out, or for an empty buffer, it reserves room for everything still
// buffered at once (plaintext is never longer than its records, plus one record OpenSSL may hold),
// so a buffer is never grown record by record. A write reserves the plaintext plus a record's
// overhead per record. An empty buffer gets exactly what is reserved, not the next power of two
// (the records of a 64 KiB write would otherwise take 128 KiB, past malloc's mmap threshold).

internal import CCourierOpenSSL
import CourierBytes

/// TLS records carry at most 2^14 plaintext bytes (RFC 8446 §5.1).
let maximumRecordPlaintext = 16_384

/// Room reserved per record beyond its plaintext: header 5, TLS 1.3 content type 1, AEAD tag 16,
/// TLS 1.2 explicit nonce 8, or a CBC suite's IV, MAC and padding (up to ~85). A reservation only:
/// more is taken if a record needs it.
private let recordOverheadReserve = 96

/// Gather-list pieces shorter than this are coalesced into one record (chunk-size lines, CRLFs,
/// request heads), so they do not each become a record of their own.
let coalesceBelow = 4096

extension TLSConnection {
    // MARK: Ciphertext in

    /// Hands over ciphertext received from the peer. Never fails and never parses: the bytes are
    /// looked at by the next `handshake()` or `readPlaintext(into:)`. The bytes are copied (the
    /// caller may reuse its buffer at once); `handshake(from:)` and `readPlaintext(from:into:)`
    /// read the caller's buffer in place instead.
    /// - Parameter bytes: the bytes as received, split anywhere.
    public func receivedCiphertext(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { receivedCiphertext($0) }
    }

    /// Hands over ciphertext received from the peer.
    /// - Parameter bytes: the bytes as received; copied before return.
    public func receivedCiphertext(_ bytes: UnsafeRawBufferPointer) {
        precondition(!transportClosed, "ciphertext received after receivedEOF()")
        guard bytes.count > 0 else { return }
        buffers.inbound.rewindIfDrained()
        buffers.inbound.writeBytes(bytes)
    }

    /// Records that the transport has ended: no more ciphertext will come.
    public func receivedEOF() {
        transportClosed = true
    }

    /// Runs `body` with OpenSSL reading from `ciphertext` in place. The caller's buffer is swapped
    /// in as the BIO's inbound buffer for the call and swapped back after, with its reader index
    /// moved past what OpenSSL consumed, so no reference to its storage stays behind (a pooled
    /// buffer can be reused, a unique one is written again without a copy-on-write).
    func withLentCiphertext<R>(_ ciphertext: inout ByteBuffer, _ body: () throws(TLSError) -> R) throws(TLSError) -> R {
        if buffers.inbound.readableBytes > 0 {
            // Bytes handed over with receivedCiphertext are older: these go after them (a copy,
            // only when the two ways of feeding the engine are mixed).
            if ciphertext.readableBytes > 0 {
                buffers.inbound.writeBuffer(ciphertext)
                ciphertext.moveReaderIndex(forwardBy: ciphertext.readableBytes)
            }
            return try body()
        }
        swap(&buffers.inbound, &ciphertext)
        defer { swap(&buffers.inbound, &ciphertext) }
        return try body()
    }

    // MARK: Ciphertext out

    /// Whether ciphertext is waiting to be sent.
    public var hasPendingCiphertext: Bool { buffers.outbound.readableBytes > 0 }

    /// The number of ciphertext bytes waiting to be sent.
    public var pendingCiphertextCount: Int { buffers.outbound.readableBytes }

    /// Takes the ciphertext waiting to be sent (handshake messages, records, alerts): the engine's
    /// output buffer itself, not a copy. After an error it may still hold the alert OpenSSL queued
    /// for the peer, worth sending before closing.
    /// - Returns: the bytes, empty when there are none.
    public func pendingCiphertext() -> ByteBuffer {
        let taken = buffers.outbound
        buffers.outbound = ByteBuffer()  // shares the one empty storage: no allocation
        return taken
    }

    /// Moves the ciphertext waiting to be sent into `buffer`. When `buffer` has nothing readable it
    /// takes the engine's output buffer as it is (no copy) and the engine keeps `buffer`'s storage
    /// for its next records; otherwise the bytes are appended at its writer index (a copy).
    /// - Parameter buffer: receives the bytes.
    /// - Returns: how many bytes were moved.
    @discardableResult
    public func writePendingCiphertext(into buffer: inout ByteBuffer) -> Int {
        let count = buffers.outbound.readableBytes
        guard count > 0 else { return 0 }
        if buffer.readableBytes == 0 {
            swap(&buffer, &buffers.outbound)
        } else {
            buffer.writeBuffer(buffers.outbound)
            buffers.outbound.moveReaderIndex(forwardBy: count)
        }
        buffers.outbound.rewindIfDrained()
        return count
    }

    // MARK: Writing application data

    /// Encrypts plaintext into records waiting in `pendingCiphertext()`.
    /// - Parameter plaintext: the bytes to send (its reader index is not moved).
    /// - Throws: `TLSError` (the connection's sticky error, or `.protocolError`).
    public func writePlaintext(_ plaintext: ByteBuffer) throws(TLSError) {
        try plaintext.withUnsafeReadableBytes { (bytes) throws(TLSError) in try writePlaintext(bytes) }
    }

    /// Encrypts plaintext into records waiting in `pendingCiphertext()`.
    /// - Parameter plaintext: the bytes to send.
    /// - Throws: `TLSError` (the connection's sticky error, or `.protocolError`).
    public func writePlaintext(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        try checkEstablished(forWriting: true)
        reserveOutput(for: plaintext.count)
        try encrypt(plaintext)
    }

    /// Encrypts a gather list into records waiting in `pendingCiphertext()`, all in one output
    /// buffer. Runs of small pieces (chunk-size lines, CRLFs, heads: under 4 KiB each) are
    /// coalesced, up to a record, so they do not each become a record of their own; large pieces
    /// are encrypted straight from their storage.
    /// - Parameter plaintext: the pieces, in order.
    /// - Throws: `TLSError` (the connection's sticky error, or `.protocolError`).
    public func writePlaintext(_ plaintext: GatherList) throws(TLSError) {
        try checkEstablished(forWriting: true)
        reserveOutput(for: plaintext.count)
        let pieces = plaintext.pieces
        var failure: TLSError? = nil
        var index = 0
        while index < pieces.count && failure == nil {
            // The run of small pieces starting here, at most one record long.
            var end = index
            var runBytes = 0
            while end < pieces.count, pieces[end].count < coalesceBelow, runBytes + pieces[end].count <= maximumRecordPlaintext {
                runBytes += pieces[end].count
                end += 1
            }
            if end <= index + 1 {
                // A large piece, or a small one alone: straight from its storage.
                pieces[index].withUnsafeBytes { bytes in
                    do throws(TLSError) { try encrypt(bytes) } catch { failure = error }
                }
                index += 1
                continue
            }
            withUnsafeTemporaryAllocation(byteCount: runBytes, alignment: 1) { scratch in
                var offset = 0
                for piece in pieces[index..<end] {
                    piece.withUnsafeBytes { bytes in
                        // SAFETY: the run's pieces add up to runBytes, the scratch's size.
                        UnsafeMutableRawBufferPointer(rebasing: scratch[offset..<(offset + bytes.count)]).copyMemory(from: bytes)
                        offset += bytes.count
                    }
                }
                do throws(TLSError) { try encrypt(UnsafeRawBufferPointer(scratch)) } catch { failure = error }
            }
            index = end
        }
        if let failure { throw failure }
    }

    /// Encrypts a gather list and appends the records (after any ciphertext already waiting, such
    /// as the end of the handshake) to `ciphertext`, the caller's output buffer: no copy of the
    /// records, and one buffer for one gather write however many records there are.
    /// - Parameters:
    ///   - plaintext: the pieces, in order (coalesced as in ``writePlaintext(_:)-(GatherList)``).
    ///   - ciphertext: receives the records at its writer index.
    /// - Throws: `TLSError` (the connection's sticky error, or `.protocolError`); records written
    ///   before the failure are in `ciphertext`, the alert OpenSSL queued in `pendingCiphertext()`.
    public func writePlaintext(_ plaintext: GatherList, into ciphertext: inout ByteBuffer) throws(TLSError) {
        writePendingCiphertext(into: &ciphertext)
        swap(&buffers.outbound, &ciphertext)
        defer { swap(&buffers.outbound, &ciphertext) }
        try writePlaintext(plaintext)
    }

    /// Encrypts `plaintext` and appends the records to `ciphertext` (see
    /// ``writePlaintext(_:into:)-(GatherList,_)``).
    /// - Parameters:
    ///   - plaintext: the bytes to send (its reader index is not moved).
    ///   - ciphertext: receives the records at its writer index.
    /// - Throws: as ``writePlaintext(_:)-(ByteBuffer)``.
    public func writePlaintext(_ plaintext: ByteBuffer, into ciphertext: inout ByteBuffer) throws(TLSError) {
        writePendingCiphertext(into: &ciphertext)
        swap(&buffers.outbound, &ciphertext)
        defer { swap(&buffers.outbound, &ciphertext) }
        try writePlaintext(plaintext)
    }

    /// Makes room in the output buffer for the records of `count` plaintext bytes.
    private func reserveOutput(for count: Int) {
        guard count > 0 else { return }
        let records = (count + maximumRecordPlaintext - 1) / maximumRecordPlaintext
        buffers.outbound.reserveExactly(minimumWritableBytes: count + records * recordOverheadReserve)
    }

    /// SSL_write until every byte is in records (the BIO takes everything, so it never stops short
    /// for want of room).
    private func encrypt(_ plaintext: UnsafeRawBufferPointer) throws(TLSError) {
        var offset = 0
        while offset < plaintext.count {
            OpenSSLErrorQueue.clear()
            let chunk = min(plaintext.count - offset, Int(Int32.max))
            let written = SSL_write(ssl, plaintext.baseAddress! + offset, Int32(chunk))
            if written > 0 {
                offset += Int(written)
                continue
            }
            throw fail(classifyFailure(SSL_get_error(ssl, written), duringHandshake: false))
        }
    }

    // MARK: Reading application data

    /// Decrypts every complete record buffered so far, appending the plaintext to `buffer`.
    ///
    /// Post-handshake messages (TLS 1.3 session tickets, key updates) are processed on the way; a
    /// key update may queue a reply, so check `hasPendingCiphertext` afterwards.
    /// - Parameter buffer: receives plaintext at its writer index. Its free room is used as it is;
    ///   when that runs out (or for an empty buffer) room for everything still buffered is
    ///   reserved at once, so the buffer is never grown record by record.
    /// - Returns: `.bytes(n)` when plaintext was appended, `.needsMoreData` when no complete record
    ///   is buffered, `.closed` after the peer's close_notify.
    /// - Throws: `TLSError` `.closedWithoutCloseNotify` when the transport ended without
    ///   close_notify (truncation), `.alertReceived`, `.clientCertificateRequired` (TLS 1.3 servers
    ///   reject a missing client certificate after the client's handshake completed),
    ///   `.protocolError`. Sticky.
    public func readPlaintext(into buffer: inout ByteBuffer) throws(TLSError) -> ReadResult {
        try checkEstablished(forWriting: false)
        if closeNotifyReceived { return .closed }
        if let error = deferredReadError { throw fail(error) }
        let room = plaintextBound
        // Nothing received and nothing held: OpenSSL could only say "want read".
        if room == 0 && !transportClosed { return .needsMoreData }
        // A buffer with room left is filled as it is (a pooled buffer keeps its size); a full one
        // (a fresh one: exactly) gets room for everything buffered, so it grows at most once.
        if buffer.writableBytes == 0 { buffer.reserveExactly(minimumWritableBytes: max(room, 1)) }
        var total = 0
        while true {
            if buffer.writableBytes == 0 {
                let more = plaintextBound
                if more == 0 && total > 0 { return .bytes(total) }
                buffer.reserveCapacity(minimumWritableBytes: max(more, 1))
            }
            OpenSSLErrorQueue.clear()
            var result: Int32 = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { region in
                result = SSL_read(ssl, region.baseAddress, Int32(min(region.count, Int(Int32.max))))
                return Int(max(result, 0))
            }
            if result > 0 {
                total += Int(result)
                continue
            }
            let code = SSL_get_error(ssl, result)
            switch code {
            case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE:
                OpenSSLErrorQueue.clear()
                if total > 0 { return .bytes(total) }
                if transportClosed {
                    throw fail(TLSError(
                        code: .closedWithoutCloseNotify,
                        message: "the connection closed without a TLS close_notify; data may be truncated"))
                }
                return .needsMoreData
            case SSL_ERROR_ZERO_RETURN:
                OpenSSLErrorQueue.clear()
                closeNotifyReceived = true
                return total > 0 ? .bytes(total) : .closed
            default:
                let error = classifyFailure(code, duringHandshake: false)
                if total > 0 {
                    deferredReadError = error
                    return .bytes(total)
                }
                throw fail(error)
            }
        }
    }

    /// At most how many plaintext bytes the buffered ciphertext can still give: plaintext is never
    /// longer than its records, plus one record OpenSSL may hold partly read or decrypted.
    private var plaintextBound: Int {
        buffers.inbound.readableBytes + (SSL_has_pending(ssl) == 1 ? maximumRecordPlaintext : 0)
    }

    /// Decrypts the complete records in `ciphertext`, the caller's receive buffer, read in place
    /// (no copy of the ciphertext), appending the plaintext to `plaintext` — typically the buffer
    /// the body is handed out from. The bytes consumed are skipped (the reader index moves; a
    /// partial record is taken into OpenSSL's record buffer, so after `.needsMoreData` nothing is
    /// left): compact or clear `ciphertext` before the next socket read.
    /// - Parameters:
    ///   - ciphertext: received bytes, after any handed over with `receivedCiphertext(_:)`.
    ///   - plaintext: receives plaintext at its writer index.
    /// - Returns: as ``readPlaintext(into:)``.
    /// - Throws: as ``readPlaintext(into:)``.
    public func readPlaintext(from ciphertext: inout ByteBuffer, into plaintext: inout ByteBuffer) throws(TLSError) -> ReadResult {
        try withLentCiphertext(&ciphertext) { () throws(TLSError) in try readPlaintext(into: &plaintext) }
    }
}

extension ByteBuffer {
    /// Makes room for `minimumWritableBytes`. An empty buffer too small for them gets storage of
    /// exactly that size, not the next power of two that `reserveCapacity` grows to: the records
    /// of a 64 KiB write are a little over 64 KiB, and doubling to 128 KiB would cross malloc's
    /// mmap threshold on every write. A buffer holding bytes grows as usual (amortized).
    mutating func reserveExactly(minimumWritableBytes: Int) {
        if readableBytes == 0 && capacity < minimumWritableBytes {
            self = ByteBuffer(capacity: minimumWritableBytes)
        } else {
            reserveCapacity(minimumWritableBytes: minimumWritableBytes)
        }
    }

    /// Moves both indices back to 0 when nothing is readable, without touching the storage (no
    /// allocation, unlike `clear()` on shared storage): the next write reuses the whole capacity.
    mutating func rewindIfDrained() {
        guard readableBytes == 0, writerIndex > 0 else { return }
        moveReaderIndex(to: 0)
        moveWriterIndex(to: 0)
    }
}
