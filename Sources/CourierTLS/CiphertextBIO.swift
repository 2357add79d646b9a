// CiphertextBIO: the custom BIO between OpenSSL's record layer and Swift-owned ciphertext buffers.
//
// Why not memory BIOs: a memory BIO is a second buffer. Received ciphertext was copied into it
// (BIO_write), and every record OpenSSL wrote was copied into it and then out again into the
// buffer the socket writes. With this BIO, OpenSSL reads records straight out of the buffer the
// socket filled (`CiphertextBuffers.inbound`, possibly the caller's own receive buffer, lent for
// the duration of one call) and appends the records it writes to `outbound`, which is handed to
// the socket code as it is. The only user-space copies left on the way in are OpenSSL's own (from
// the receive buffer into its record buffer, where it decrypts in place, then the plaintext into
// the caller's buffer); on the way out, the plaintext into OpenSSL's record buffer, where it
// encrypts, and the record into `outbound`.
//
// Rules:
//   - Reading never blocks and never reports end of stream: an empty `inbound` answers "retry"
//     (BIO_set_retry_read, -1). The end of the transport is `TLSConnection.receivedEOF()`, judged
//     in Swift, exactly as the memory BIO with eof_return -1 behaved (the close_notify versus
//     truncation rules live in TLSConnection, not here).
//   - Writing always takes every byte (appends to `outbound`), so OpenSSL never wants to write.
//   - ctrl answers FLUSH (OpenSSL's write buffer flushes at the end of each handshake flight),
//     PENDING and WPENDING; everything else (kTLS queries, ...) is "not supported", 0.
//   - One BIO serves both directions of one SSL (SSL_set0_rbio and SSL_set0_wbio each take one
//     reference, so the SSL frees it with itself). Its data pointer is the connection's
//     `CiphertextBuffers`, unretained: the connection owns both the SSL and the buffers and frees
//     the SSL first, and the callbacks run only inside OpenSSL calls the connection makes.
//   - The BIO_METHOD is made once per process and never freed (every BIO keeps a pointer to it).

internal import CCourierOpenSSL
import CourierBytes

/// The ciphertext on both sides of one connection's BIO.
final class CiphertextBuffers {
    /// Received ciphertext OpenSSL has not read yet.
    var inbound: ByteBuffer
    /// Records OpenSSL wrote, waiting to be taken by the socket code.
    var outbound: ByteBuffer

    init() {
        inbound = ByteBuffer()
        outbound = ByteBuffer()
    }

    /// The buffers of `bio`.
    static func of(_ bio: OpaquePointer) -> CiphertextBuffers {
        // SAFETY: every BIO made from `CiphertextBIO.method` gets its data pointer set before it
        // is attached to an SSL, and the buffers outlive the SSL (see the file header).
        Unmanaged<CiphertextBuffers>.fromOpaque(BIO_get_data(bio)!).takeUnretainedValue()
    }

    /// Copies up to `count` received bytes to `destination` (OpenSSL's record buffer).
    func read(into destination: UnsafeMutableRawPointer, count: Int) -> Int {
        let n = min(count, inbound.readableBytes)
        guard n > 0 else { return 0 }
        inbound.withUnsafeReadableBytes { bytes in
            // SAFETY: n <= readable bytes; OpenSSL gave room for `count` >= n bytes.
            destination.copyMemory(from: bytes.baseAddress!, byteCount: n)
        }
        // Only the reader index moves: `inbound` may be the caller's buffer, lent for this call
        // and given back with its storage (TLSConnection.withLentCiphertext).
        inbound.moveReaderIndex(forwardBy: n)
        return n
    }
}

enum CiphertextBIO {
    /// The process-wide method table.
    static let method: BIOMethodOwner = {
        OpenSSLErrorQueue.clear()
        let type = BIO_get_new_index() | BIO_TYPE_SOURCE_SINK
        guard let method = BIO_meth_new(type, "courier ciphertext") else {
            preconditionFailure("BIO_meth_new failed (out of memory)")
        }
        _ = BIO_meth_set_read(method, readCallback)
        _ = BIO_meth_set_write(method, writeCallback)
        _ = BIO_meth_set_ctrl(method, controlCallback)
        OpenSSLErrorQueue.clear()
        return BIOMethodOwner(taking: method)
    }()

    /// A new BIO over `buffers` (the caller attaches it to an SSL, which then owns it).
    static func make(over buffers: CiphertextBuffers) -> OpaquePointer? {
        guard let bio = BIO_new(method.pointer) else { return nil }
        BIO_set_data(bio, Unmanaged.passUnretained(buffers).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }
}

/// Owns the process's one BIO_METHOD (never freed: BIOs made from it point at it).
final class BIOMethodOwner: @unchecked Sendable {
    // SAFETY (Sendable): configured in CiphertextBIO.method's initializer, read-only afterwards.
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        countObjectCreated()
    }
}

private let readCallback: @convention(c) (OpaquePointer?, UnsafeMutablePointer<CChar>?, Int32) -> Int32 = { bio, destination, length in
    guard let bio else { return -1 }
    courier_BIO_clear_retry_flags(bio)
    guard let destination, length > 0 else { return 0 }
    let n = CiphertextBuffers.of(bio).read(into: UnsafeMutableRawPointer(destination), count: Int(length))
    if n == 0 {
        // Nothing buffered: "try again later", never end of stream (see the file header).
        courier_BIO_set_retry_read(bio)
        return -1
    }
    return Int32(n)
}

private let writeCallback: @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> Int32 = { bio, source, length in
    guard let bio else { return -1 }
    courier_BIO_clear_retry_flags(bio)
    guard let source, length > 0 else { return 0 }
    CiphertextBuffers.of(bio).outbound.writeBytes(UnsafeRawBufferPointer(start: source, count: Int(length)))
    return length
}

private let controlCallback: @convention(c) (OpaquePointer?, Int32, Int, UnsafeMutableRawPointer?) -> Int = { bio, command, _, _ in
    guard let bio else { return 0 }
    switch command {
    case BIO_CTRL_FLUSH: return 1
    case BIO_CTRL_PENDING: return CiphertextBuffers.of(bio).inbound.readableBytes
    case BIO_CTRL_WPENDING: return CiphertextBuffers.of(bio).outbound.readableBytes
    default: return 0
    }
}
