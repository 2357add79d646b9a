// TLSConnection: one TLS session driven over Swift-owned ciphertext buffers, with no I/O of its own.
//
// Theory of operation. The socket code owns every read and write (design §7). OpenSSL reads
// ciphertext through a custom BIO (CiphertextBIO.swift) straight out of a ByteBuffer: either the
// caller's receive buffer, lent for one call (`handshake(from:)`, `readPlaintext(from:into:)`), or
// bytes handed over earlier with `receivedCiphertext(_:)`. The records OpenSSL writes are appended
// to one output buffer, taken as it is by `pendingCiphertext()` or appended to the caller's with
// `writePlaintext(_:into:)` / `writePendingCiphertext(into:)`, ready for one gather write. In
// between, `handshake()`, `readPlaintext(into:)`, `writePlaintext(_:)` and `shutdown()` run OpenSSL
// and say what they need next. Because the BIO never blocks and always takes what is written,
// OpenSSL never wants to *write*: it only ever runs out of input. So the only question after each
// call is "is there ciphertext to send?", which `handshake()` folds into its answer and the other
// calls leave to `hasPendingCiphertext`.
//
//     socket ──▶ receive buffer ──(BIO read)──▶ SSL ──(BIO write)──▶ output buffer ──▶ socket
//                                                │ ▲
//         readPlaintext(…into: caller's buffer) ◀┘ └── writePlaintext(_:)
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
// Resumption (client). The context's session cache (SessionCache.swift) is keyed by host, port and
// security policy; the newest live session for the key is set before the first handshake flight.
// Sessions arrive through the context's new-session callback: in TLS 1.2 during the handshake, in
// TLS 1.3 after it, with the first records read (NewSessionTicket is a post-handshake message).
// A fatal error forgets the key's sessions (RFC 5246 §7.2.2); so does a failed security policy.
//
// Ownership. This class is the one owner of its SSL object, and through SSL_set0_rbio/wbio of its
// one BIO; deinit frees both. The SSL's ex-data slot 0 points back at this object (unretained),
// which is how the C callbacks (new session, client-certificate request) reach it; the BIO's data
// points at `buffers` (unretained). Callbacks run only inside calls made by this object, while it
// is alive.

internal import CCourierOpenSSL
import CourierBytes

/// A TLS connection (client or server side) over in-memory buffers: you move the ciphertext, it
/// does the cryptography.
///
/// Use it from one thread at a time. Typical client loop, with the caller's receive buffer lent to
/// the engine (no copy of the ciphertext) and one output buffer per write:
///
///     let tls = try TLSConnection(context: context, host: "example.com", port: 443)
///     var received = ByteBuffer(capacity: 65536), output = ByteBuffer()
///     handshake: while true {
///         switch try tls.handshake(from: &received) {
///         case .needsWrite: tls.writePendingCiphertext(into: &output); send(&output)
///         case .needsMoreData: receive(into: &received)
///         case .complete: break handshake
///         }
///     }
///     try tls.evaluate(policy)           // optional: pinning, AFNetworking rules
///     try tls.writePlaintext(request, into: &output); send(&output)
///     var plaintext = ByteBuffer()
///     while case .bytes = try tls.readPlaintext(from: &received, into: &plaintext) { … }
///
/// The older form, `receivedCiphertext(_:)` then `handshake()` / `readPlaintext(into:)`, and
/// `pendingCiphertext()`, works the same way with one copy of the received bytes.
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
    /// The ciphertext on both sides of the BIO (the BIO's data pointer refers to it).
    let buffers = CiphertextBuffers()
    let clientContext: TLSClientContext?
    private let serverContext: TLSServerContext?
    /// The cache key of a client connection (nil for a server, or with resumption off).
    let sessionKey: SessionKey?
    /// When the full handshake behind the session offered to the server happened.
    private var offeredSessionAuthenticated: ContinuousClock.Instant?

    private var state: State = .handshaking
    var transportClosed = false
    private var closeNotifySent = false
    var closeNotifyReceived = false
    /// An error found after some plaintext was already returned; thrown by the next read.
    var deferredReadError: TLSError?
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
    ///   - securityPolicy: the policy the caller will evaluate with ``evaluate(_:)`` after the
    ///     handshake, if any. It joins the resumption key: a session made under one policy (its
    ///     pins) is never offered under another. Default nil (no policy).
    /// - Throws: `TLSError` `.invalidConfiguration` for an empty or unusable host name,
    ///   `.internalError` when OpenSSL cannot allocate.
    public init(context: TLSClientContext, host: String, port: Int, securityPolicy: SecurityPolicy? = nil) throws(TLSError) {
        let name = normalizedHostName(host)
        guard !name.isEmpty, !name.utf8.contains(0) else {
            throw TLSError(code: .invalidConfiguration, message: "empty or invalid host name")
        }
        let isIP = isIPAddressLiteral(name)
        self.role = .client
        self.host = name
        self.hostIsIPAddress = isIP
        self.ssl = try makeSSL(context.owner, over: buffers)
        self.clientContext = context
        self.serverContext = nil
        self.sessionKey = context.configuration.sessionCacheCapacity > 0
            ? SessionKey(host: name, port: port, policy: securityPolicy) : nil
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
        if let key = sessionKey, let cached = context.takeSession(for: key) {
            // SSL_set_session takes its own reference; the cache's owner releases ours when it goes.
            if SSL_set_session(ssl, cached.session.pointer) == 1 {
                offeredSessionAuthenticated = cached.authenticated
            }
        }
        OpenSSLErrorQueue.clear()
    }

    /// Creates the server side of a connection.
    /// - Parameter context: the server context.
    /// - Throws: `TLSError` `.internalError` when OpenSSL cannot allocate.
    public init(context: TLSServerContext) throws(TLSError) {
        self.role = .server
        self.host = nil
        self.hostIsIPAddress = false
        self.ssl = try makeSSL(context.owner, over: buffers)
        self.clientContext = nil
        self.serverContext = context
        self.sessionKey = nil
        countObjectCreated()
        SSL_set_ex_data(ssl, 0, Unmanaged.passUnretained(self).toOpaque())
        SSL_set_accept_state(ssl)
    }

    deinit {
        // SSL_free marks the session of a connection that did not send close_notify as not
        // resumable (ssl_clear_bad_session: SSLv3's rule, dropped by TLS 1.1, RFC 4346 §7.2.1).
        // For a client that is the session in its cache — the one it offered (TLS 1.2) or the last
        // ticket it received (TLS 1.3) — so a server that closes first, as after
        // `Connection: close`, would cost the next connection its resumption. Which sessions a
        // failure must forget is decided in `fail(_:)` (and OpenSSL forgets those of a fatal alert
        // itself), so the flag only says "closed": nothing is sent.
        SSL_set_shutdown(ssl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN)
        SSL_free(ssl)  // frees the BIO too, before `buffers`, its data, goes
        countObjectFreed()
    }

    /// The connection whose SSL this is, for C callbacks.
    static func from(_ ssl: OpaquePointer) -> TLSConnection? {
        guard let raw = SSL_get_ex_data(ssl, 0) else { return nil }
        return Unmanaged<TLSConnection>.fromOpaque(raw).takeUnretainedValue()
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
            clientContext?.recordHandshake(resumed: isSessionResumed)
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

    /// Advances the handshake reading ciphertext straight from `ciphertext`, the caller's receive
    /// buffer (no copy). The bytes OpenSSL consumed are skipped (the reader index moves); what is
    /// left (records after the handshake's last message) stays for ``readPlaintext(from:into:)``.
    /// - Parameter ciphertext: received bytes, after any handed over with `receivedCiphertext(_:)`.
    /// - Returns: as ``handshake()``.
    /// - Throws: as ``handshake()``.
    public func handshake(from ciphertext: inout ByteBuffer) throws(TLSError) -> HandshakeResult {
        try withLentCiphertext(&ciphertext) { () throws(TLSError) in try handshake() }
    }

    /// Whether the handshake has completed.
    public var isHandshakeComplete: Bool {
        if case .established = state { return true }
        return false
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

    /// Throws the sticky error; traps on misuse (before the handshake, writing after shutdown).
    func checkEstablished(forWriting: Bool) throws(TLSError) {
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
        // RFC 5246 §7.2.2: the sessions of a connection that failed with a fatal alert are
        // forgotten. A transport that merely ended (with or without close_notify) is no reason.
        if let key = sessionKey, error.code != .closedWithoutCloseNotify, error.code != .unexpectedEOF {
            clientContext?.removeSession(for: key)
        }
        return error
    }

    /// Called by the new-session callback: keeps a resumable session for this origin.
    func sessionIssued(_ session: OpaquePointer) -> Bool {
        guard let key = sessionKey, let context = clientContext, SSL_SESSION_is_resumable(session) == 1 else {
            return false
        }
        // A session issued on a resumed connection descends from the same full handshake.
        let authenticated = isSessionResumed ? offeredSessionAuthenticated : nil
        context.storeSession(SessionOwner(taking: session), for: key, authenticated: authenticated)
        return true
    }
}

/// RFC 6125 §6.4.4 and §7.2: names from subjectAltName only; wildcards only as a whole label.
let hostCheckFlags = UInt32(X509_CHECK_FLAG_NEVER_CHECK_SUBJECT | X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS)

/// Makes an SSL with one ciphertext BIO over `buffers` for both directions (the SSL owns it).
private func makeSSL(_ context: SSLContextOwner, over buffers: CiphertextBuffers) throws(TLSError) -> OpaquePointer {
    OpenSSLErrorQueue.clear()
    guard let ssl = SSL_new(context.pointer) else { throw OpenSSLErrorQueue.error(.internalError, "SSL_new failed") }
    guard let bio = CiphertextBIO.make(over: buffers) else {
        SSL_free(ssl)
        throw OpenSSLErrorQueue.error(.internalError, "BIO_new failed")
    }
    // SSL_set0_rbio and SSL_set0_wbio each take over one reference (SSL_set_bio(3)).
    _ = BIO_up_ref(bio)
    SSL_set0_rbio(ssl, bio)
    SSL_set0_wbio(ssl, bio)
    return ssl
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
