// TLSConnection: one TLS session driven over two memory BIOs, with no I/O of its own.
//
// Theory of operation. The socket code owns every read and write (design §7). It hands received
// ciphertext to `receivedCiphertext(_:)`, which only appends it to the in-BIO; it takes the bytes to
// send from `pendingCiphertext()`, which drains the out-BIO. In between, `handshake()`,
// `readPlaintext(into:)`, `writePlaintext(_:)` and `shutdown()` run OpenSSL over those buffers and
// say what they need next. Because memory BIOs never block, OpenSSL never wants to *write*: it only
// ever runs out of input. So the only question after each call is "is there ciphertext to send?",
// which `handshake()` folds into its answer and the other calls leave to `hasPendingCiphertext`.
//
//     socket ──bytes──▶ receivedCiphertext ──▶ [in-BIO] ──▶ SSL ──▶ [out-BIO] ──▶ pendingCiphertext ──▶ socket
//                                                            │ ▲
//                                    readPlaintext(into:) ◀──┘ └── writePlaintext(_:)
//
// States: handshaking → established → (closed by either side); any failure → failed, for good
// (errors are sticky: every later call rethrows the first error). Reading and writing before the
// handshake completes, or writing after our close_notify, are programmer errors (preconditions).
//
// Closing (RFC 8446 §6.1, RFC 5246 §7.2.1). The peer's close_notify makes `readPlaintext` answer
// `.closed`. When the transport ends (`receivedEOF()`) without one, the next read that runs out of
// buffered records throws `closedWithoutCloseNotify` (or `unexpectedEOF` during the handshake): a
// truncation is never mistaken for a clean end. Whether a truncation matters is the caller's call
// (it does for a close-delimited HTTP body).
//
// Ownership. This class is the one owner of its SSL object, and through SSL_set_bio of the two
// BIOs; deinit frees all three. The SSL's ex-data slot 0 points back at this object (unretained),
// which is how the C callbacks (new session, client-certificate request) reach it; callbacks run
// only inside calls made by this object, while it is alive.

internal import CCourierOpenSSL
import CourierBytes

/// A TLS connection (client or server side) over in-memory buffers: you move the ciphertext, it
/// does the cryptography.
///
/// Use it from one thread at a time. Typical client loop:
///
///     let tls = try TLSConnection(context: context, host: "example.com", port: 443)
///     handshake: while true {
///         switch try tls.handshake() {
///         case .needsWrite: send(tls.pendingCiphertext())
///         case .needsMoreData: tls.receivedCiphertext(receive())
///         case .complete: break handshake
///         }
///     }
///     try tls.evaluate(policy)           // optional: pinning, AFNetworking rules
///     try tls.writePlaintext(request); send(tls.pendingCiphertext())
///     var plaintext = ByteBuffer()
///     while case .bytes = try tls.readPlaintext(into: &plaintext) { … }
public final class TLSConnection {
    /// Which side of the handshake this connection plays.
    public enum Role: Sendable, Hashable {
        /// Connects to a server (SNI, server certificate verification).
        case client
        /// Accepts a client.
        case server
    }

    /// What `handshake()` needs next.
    public enum HandshakeResult: Sendable, Hashable {
        /// Send `pendingCiphertext()`, then call `handshake()` again.
        case needsWrite
        /// Feed more ciphertext from the peer with `receivedCiphertext(_:)`, then call again.
        case needsMoreData
        /// The handshake is done and nothing is waiting to be sent.
        case complete
    }

    /// What `readPlaintext(into:)` produced.
    public enum ReadResult: Sendable, Hashable {
        /// This many plaintext bytes were appended (more than zero).
        case bytes(Int)
        /// No complete record is buffered: feed more ciphertext.
        case needsMoreData
        /// The peer sent close_notify: no more data will come (the clean end).
        case closed
    }

    /// What `shutdown()` achieved.
    public enum ShutdownResult: Sendable, Hashable {
        /// Our close_notify is in `pendingCiphertext()`; the peer's has not arrived (it need not
        /// be waited for, RFC 8446 §6.1).
        case closeNotifySent
        /// Both close_notify alerts have been exchanged (or the handshake never finished, so there
        /// was nothing to close).
        case complete
    }

    private enum State {
        case handshaking
        case established
        case failed(TLSError)
    }

    /// Client or server.
    public let role: Role
    /// The host name or IP address the client connects to (nil for a server).
    public let host: String?
    /// Whether `host` is an IP address literal (no SNI is sent for it, RFC 6066 §3).
    public let hostIsIPAddress: Bool

    let ssl: OpaquePointer
    private let inBIO: OpaquePointer   // owned by `ssl` after SSL_set_bio
    private let outBIO: OpaquePointer  // owned by `ssl` after SSL_set_bio
    let clientContext: TLSClientContext?
    private let serverContext: TLSServerContext?
    let sessionKey: String?

    private var state: State = .handshaking
    private var transportClosed = false
    private var closeNotifySent = false
    private var closeNotifyReceived = false
    /// An error found after some plaintext was already returned; thrown by the next read.
    private var deferredReadError: TLSError?
    /// Set by the client-certificate callback: the server asked for a certificate we do not have.
    var serverRequestedCertificate = false

    // MARK: Creation

    /// Creates the client side of a connection to `host`.
    /// - Parameters:
    ///   - context: the client context (trust, verification, versions, ALPN, session cache).
    ///   - host: the server's DNS name or IP address literal (IPv6 with or without brackets). Sent as
    ///     SNI unless it is an IP address, and verified against the certificate's subjectAltName
    ///     when the context verifies host names.
    ///   - port: the server's port; with `host` it keys the session-resumption cache.
    /// - Throws: `TLSError` `.invalidConfiguration` for an empty or unusable host name,
    ///   `.internalError` when OpenSSL cannot allocate.
    public init(context: TLSClientContext, host: String, port: Int) throws(TLSError) {
        let name = normalizedHostName(host)
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw TLSError(code: .invalidConfiguration, message: "empty or invalid host name")
        }
        let isIP = isIPAddressLiteral(name)
        let (ssl, inBIO, outBIO) = try makeSSL(context.owner)
        self.role = .client
        self.host = name
        self.hostIsIPAddress = isIP
        self.ssl = ssl
        self.inBIO = inBIO
        self.outBIO = outBIO
        self.clientContext = context
        self.serverContext = nil
        self.sessionKey = isIP && name.contains(":") ? "[\(name)]:\(port)" : "\(name):\(port)"
        countObjectCreated()
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_connect_state(ssl)

        OpenSSLErrorQueue.clear()
        // RFC 6066 §3: SNI carries DNS names only, never IP literals.
        if !isIP && courier_SSL_set_tlsext_host_name(ssl, name) != 1 {
            throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL refused the SNI name \(name)")
        }
        if context.configuration.certificateVerification == .fullVerification {
            // RFC 6125 §6.4.4: subjectAltName only, never the subject common name; no partial
            // wildcards ("f*.example.com").
            let parameters = SSL_get0_param(ssl)
            X509_VERIFY_PARAM_set_hostflags(parameters, hostCheckFlags)
            let accepted = isIP
                ? X509_VERIFY_PARAM_set1_ip_asc(parameters, name)
                : X509_VERIFY_PARAM_set1_host(parameters, name, 0)
            if accepted != 1 {
                throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL cannot verify against the host \(name)")
            }
        }
        if let key = sessionKey, let session = context.takeSession(for: key) {
            // SSL_set_session takes its own reference; the owner releases ours when it goes.
            _ = SSL_set_session(ssl, session.pointer)
        }
        OpenSSLErrorQueue.clear()
    }

    /// Creates the server side of a connection.
    /// - Parameter context: the server context.
    /// - Throws: `TLSError` `.internalError` when OpenSSL cannot allocate.
    public init(context: TLSServerContext) throws(TLSError) {
        let (ssl, inBIO, outBIO) = try makeSSL(context.owner)
        self.role = .server
        self.host = nil
        self.hostIsIPAddress = false
        self.ssl = ssl
        self.inBIO = inBIO
        self.outBIO = outBIO
        self.clientContext = nil
        self.serverContext = context
        self.sessionKey = nil
        countObjectCreated()
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_accept_state(ssl)
    }

    deinit {
        SSL_free(ssl)  // frees both BIOs too
        countObjectFreed()
    }

    /// The connection whose SSL this is, for C callbacks.
    static func from(_ ssl: OpaquePointer) -> TLSConnection? {
        guard let raw = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<TLSConnection>.fromOpaque(raw).takeUnretainedValue()
    }

    // MARK: Ciphertext in and out

    /// Appends ciphertext received from the peer. Never fails and never parses: the bytes are
    /// looked at by the next `handshake()` or `readPlaintext(into:)`.
    /// - Parameter bytes: the bytes as received, split anywhere.
    public func receivedCiphertext(_ bytes: ByteBuffer) {
        bytes.withUnsafeReadableBytes { receivedCiphertext($0) }
    }

    /// Appends ciphertext received from the peer.
    /// - Parameter bytes: the bytes as received; copied before return.
    public func receivedCiphertext(_ bytes: UnsafeRawBufferPointer) {
        precondition(!transportClosed, "ciphertext received after receivedEOF()")
        var offset = 0
        while offset < bytes.count {
            let chunk = min(bytes.count - offset, Int(Int32.max))
            let written = BIO_write(inBIO, bytes.baseAddress! + offset, Int32(chunk))
            // A memory BIO write fails only when allocation fails.
            precondition(written > 0, "BIO_write to a memory BIO failed (out of memory)")
            offset += Int(written)
        }
    }

    /// Records that the transport has ended: no more ciphertext will come.
    public func receivedEOF() {
        transportClosed = true
    }

    /// Whether ciphertext is waiting to be sent.
    public var hasPendingCiphertext: Bool { BIO_ctrl_pending(outBIO) > 0 }

    /// The number of ciphertext bytes waiting to be sent.
    public var pendingCiphertextCount: Int { Int(BIO_ctrl_pending(outBIO)) }

    /// Takes the ciphertext waiting to be sent (handshake messages, records, alerts). After an
    /// error it may still hold the alert OpenSSL queued for the peer, worth sending before closing.
    /// - Returns: the bytes, empty when there are none.
    public func pendingCiphertext() -> ByteBuffer {
        var buffer = ByteBuffer(capacity: pendingCiphertextCount)
        writePendingCiphertext(into: &buffer)
        return buffer
    }

    /// Appends the ciphertext waiting to be sent to `buffer` (to reuse one send buffer).
    /// - Parameter buffer: receives the bytes at its writer index.
    /// - Returns: how many bytes were appended.
    @discardableResult
    public func writePendingCiphertext(into buffer: inout ByteBuffer) -> Int {
        var total = 0
        while true {
            let pending = pendingCiphertextCount
            if pending == 0 { return total }
            let chunk = min(pending, Int(Int32.max))
            let read = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: chunk) { region in
                Int(max(0, BIO_read(outBIO, region.baseAddress, Int32(chunk))))
            }
            if read == 0 { return total }
            total += read
        }
    }

    // MARK: Handshake

    /// Advances the handshake as far as the buffered ciphertext allows.
    /// - Returns: `.needsWrite` while ciphertext waits to be sent, `.needsMoreData` when OpenSSL
    ///   needs the peer's next flight, `.complete` once done with nothing left to send.
    /// - Throws: `TLSError`: certificate failures (`.certificateExpired`, `.hostnameMismatch`, …),
    ///   `.protocolVersion`, `.alertReceived`, `.clientCertificateRequired`, `.unexpectedEOF` (the
    ///   transport ended), `.handshakeFailed`. The error is sticky.
    public func handshake() throws(TLSError) -> HandshakeResult {
        switch state {
        case .failed(let error): throw error
        case .established: return hasPendingCiphertext ? .needsWrite : .complete
        case .handshaking: break
        }
        OpenSSLErrorQueue.clear()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            state = .established
            return hasPendingCiphertext ? .needsWrite : .complete
        }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE {
            OpenSSLErrorQueue.clear()
            if hasPendingCiphertext { return .needsWrite }
            if transportClosed {
                throw fail(TLSError(code: .unexpectedEOF, message: "the connection closed during the TLS handshake"))
            }
            return .needsMoreData
        }
        throw fail(classifyFailure(code, duringHandshake: true))
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool {
        if case .established = state { return true }
        return false
    }

    // MARK: Application data

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

    /// Encrypts a gather list. Small pieces (chunk-size lines, CRLFs, heads) are coalesced so they do
    /// not each become a record of their own; large pieces are encrypted straight from their storage.
    /// - Parameter plaintext: the pieces, in order.
    /// - Throws: `TLSError` (the connection's sticky error, or `.protocolError`).
    public func writePlaintext(_ plaintext: GatherList) throws(TLSError) {
        try checkEstablished(forWriting: true)
        let coalesceBelow = 4096
        var scratch: [UInt8] = []
        var failure: TLSError? = nil
        func flush() {
            guard !scratch.isEmpty, failure == nil else { return }
            scratch.withUnsafeBytes { bytes in
                do throws(TLSError) { try writePlaintext(bytes) } catch { failure = error }
            }
            scratch.removeAll(keepingCapacity: true)
        }
        for piece in plaintext.pieces where failure == nil {
            piece.withUnsafeBytes { bytes in
                if bytes.count < coalesceBelow {
                    if scratch.count + bytes.count > maximumRecordPlaintext { flush() }
                    scratch.append(contentsOf: bytes)
                } else {
                    flush()
                    if failure == nil {
                        do throws(TLSError) { try writePlaintext(bytes) } catch { failure = error }
                    }
                }
            }
        }
        flush()
        if let failure { throw failure }
    }

    /// Decrypts every complete record buffered so far, appending the plaintext to `buffer`.
    ///
    /// Post-handshake messages (TLS 1.3 session tickets, key updates) are processed on the way; a
    /// key update may queue a reply, so check `hasPendingCiphertext` afterwards.
    /// - Parameter buffer: receives plaintext at its writer index.
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
        var total = 0
        while true {
            OpenSSLErrorQueue.clear()
            var result: Int32 = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: maximumRecordPlaintext) { region in
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

    // MARK: Closing

    /// Queues our close_notify (RFC 8446 §6.1). Send `pendingCiphertext()` afterwards. Waiting for
    /// the peer's reply is optional; a client closing after a complete response need not.
    /// - Returns: `.closeNotifySent`, or `.complete` once the peer's close_notify has also arrived
    ///   (or when the handshake never completed, so there is no session to close).
    /// - Throws: the connection's sticky error.
    @discardableResult
    public func shutdown() throws(TLSError) -> ShutdownResult {
        switch state {
        case .failed(let error): throw error
        case .handshaking: return .complete
        case .established: break
        }
        OpenSSLErrorQueue.clear()
        let result = SSL_shutdown(ssl)
        closeNotifySent = true
        if result == 1 { return .complete }
        if result == 0 { return .closeNotifySent }
        let code = SSL_get_error(ssl, result)
        if code == SSL_ERROR_WANT_READ || code == SSL_ERROR_WANT_WRITE {
            OpenSSLErrorQueue.clear()
            return .closeNotifySent
        }
        throw fail(classifyFailure(code, duringHandshake: false))
    }

    /// Whether the peer's close_notify has been received.
    public var hasReceivedCloseNotify: Bool { closeNotifyReceived }

    // MARK: State helpers

    private func checkEstablished(forWriting: Bool) throws(TLSError) {
        switch state {
        case .failed(let error): throw error
        case .handshaking: preconditionFailure("TLS application data before the handshake completed")
        case .established: break
        }
        if forWriting { precondition(!closeNotifySent, "TLS write after shutdown()") }
    }

    /// Enters the failed state for good and returns the error to throw.
    func fail(_ error: TLSError) -> TLSError {
        if case .failed(let first) = state { return first }
        state = .failed(error)
        return error
    }

    /// Called by the new-session callback: keeps a resumable session for this host:port.
    func sessionIssued(_ session: OpaquePointer) -> Bool {
        guard let key = sessionKey, let context = clientContext, SSL_SESSION_is_resumable(session) == 1 else {
            return false
        }
        context.storeSession(SessionOwner(taking: session), for: key)
        return true
    }
}

/// TLS records carry at most 2^14 plaintext bytes (RFC 8446 §5.1).
let maximumRecordPlaintext = 16_384

/// RFC 6125 §6.4.4 and §7.2: names from subjectAltName only; wildcards only as a whole label.
let hostCheckFlags = UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)

/// Makes an SSL with two fresh memory BIOs attached (the SSL owns them afterwards).
private func makeSSL(_ context: SSLContextOwner) throws(TLSError) -> (OpaquePointer, OpaquePointer, OpaquePointer) {
    OpenSSLErrorQueue.clear()
    guard let ssl = SSL_new(context.pointer) else { throw OpenSSLErrorQueue.error(.internalError, "SSL_new failed") }
    guard let inBIO = BIO_new(BIO_s_mem()) else {
        SSL_free(ssl)
        throw OpenSSLErrorQueue.error(.internalError, "BIO_new failed")
    }
    guard let outBIO = BIO_new(BIO_s_mem()) else {
        BIO_free(inBIO)
        SSL_free(ssl)
        throw OpenSSLErrorQueue.error(.internalError, "BIO_new failed")
    }
    // An empty in-BIO means "retry later", not end of stream: the end is reported by receivedEOF().
    _ = courier_BIO_set_mem_eof_return(inBIO, -1)
    SSL_set_bio(ssl, inBIO, outBIO)
    return (ssl, inBIO, outBIO)
}

/// Strips IPv6 brackets and zone identifier (RFC 6874: "fe80::1%eth0" is meaningful only on this
/// host, never in a certificate), and one trailing dot ("example.com." names the same host).
func normalizedHostName(_ host: String) -> String {
    var name = Substring(host)
    if name.hasPrefix("[") && name.hasSuffix("]") && name.count >= 2 { name = name.dropFirst().dropLast() }
    if name.contains(":"), let zone = name.firstIndex(of: "%") { name = name[..<zone] }
    if name.hasSuffix(".") && name.count > 1 { name = name.dropLast() }
    return String(name)
}

/// Whether `name` is an IPv4 or IPv6 address literal, as OpenSSL parses them for iPAddress SANs.
func isIPAddressLiteral(_ name: String) -> Bool {
    guard let parsed = a2i_IPADDRESS(name) else {
        OpenSSLErrorQueue.clear()
        return false
    }
    ASN1_OCTET_STRING_free(parsed)
    return true
}
