// TLS contexts: one configured SSL_CTX per configuration, shared by every connection made from it.
//
// Why contexts are shared: building an SSL_CTX and above all loading a trust store are expensive
// (the system bundle is ~150 certificates to parse), while making an SSL from a configured SSL_CTX
// is cheap and thread-safe. So:
//   - the system trust store is loaded once per process (`SystemTrustStore.shared`) and attached
//     to every context that uses it (SSL_CTX_set1_cert_store takes a reference, no copy);
//   - a context is made once per configuration (`TLSClientContext.shared(for:)` keeps a small
//     process-wide cache) and holds the client session cache for its connections.
// A context is never reconfigured after init; that is what makes it safe to share.

import Synchronization
internal import CCourierOpenSSL

/// The system trust store, loaded on first use and kept for the life of the process.
enum SystemTrustStore {
    static let shared: Result<TrustStoreOwner, TLSError> = {
        guard let store = TrustStoreOwner() else {
            return .failure(OpenSSLErrorQueue.error(.internalError, "cannot allocate an X509_STORE"))
        }
        OpenSSLErrorQueue.clear()
        // OpenSSL's default file (the bundle) is read now; the hashed directory is searched lazily.
        guard X509_STORE_set_default_paths(store.pointer) == 1 else {
            return .failure(OpenSSLErrorQueue.error(.invalidConfiguration, "cannot load the system trust store"))
        }
        OpenSSLErrorQueue.clear()
        return .success(store)
    }()
}

/// A configured client TLS context: trust roots, verification mode, versions, ALPN, client
/// identity, and the session-resumption cache shared by its connections.
///
/// Make one per configuration and keep it (or use ``shared(for:)``); each connection is then cheap.
public final class TLSClientContext: Sendable {
    /// The configuration this context was made from.
    public let configuration: TLSConfiguration
    let owner: SSLContextOwner
    private let sessions: Mutex<SessionCache>
    /// The clock of the session cache's expiry times.
    let now: @Sendable () -> ContinuousClock.Instant
    private let completedHandshakes = Atomic<Int>(0)
    private let resumedHandshakes = Atomic<Int>(0)

    /// Builds a context.
    /// - Parameter configuration: the settings to apply.
    /// - Throws: `TLSError` for an unreadable CA file (`.invalidConfiguration`), a bad identity
    ///   (`.invalidCertificate`, `.invalidKey`), a bad ALPN list or cipher list
    ///   (`.invalidConfiguration`).
    public convenience init(configuration: TLSConfiguration) throws(TLSError) {
        try self.init(configuration: configuration, now: { ContinuousClock.now })
    }

    /// Builds a context whose session cache reads the time from `now` (tests move it forward).
    init(configuration: TLSConfiguration, now: @escaping @Sendable () -> ContinuousClock.Instant) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let raw = SSL_CTX_new(TLS_client_method()) else {
            throw OpenSSLErrorQueue.error(.internalError, "SSL_CTX_new failed")
        }
        let owner = SSLContextOwner(taking: raw)
        try applyCommonSettings(owner, minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        if let list = configuration.cipherList, SSL_CTX_set_cipher_list(raw, list) != 1 {
            throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL refused the cipher list \"\(list)\"")
        }
        if let suites = configuration.tls13CipherSuites, SSL_CTX_set_ciphersuites(raw, suites) != 1 {
            throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL refused the TLS 1.3 cipher suites \"\(suites)\"")
        }
        try applyTrustRoots(configuration.trustRoots, to: owner)
        let mode = configuration.certificateVerification == .none ? SSL_VERIFY_NONE : SSL_VERIFY_PEER
        SSL_CTX_set_verify(raw, mode, nil)

        if !configuration.applicationProtocols.isEmpty {
            let wire = try alpnWireFormat(configuration.applicationProtocols)
            // SSL_CTX_set_alpn_protos returns 0 on success (unlike almost everything else).
            let failed = wire.withUnsafeBufferPointer { SSL_CTX_set_alpn_protos(raw, $0.baseAddress, UInt32($0.count)) }
            if failed != 0 { throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL refused the ALPN list") }
        }

        if let identity = configuration.clientIdentity {
            try applyIdentity(identity, to: owner)
        } else {
            // Called only when the server asks for a certificate and none is set: remember that it
            // asked, so a TLS 1.2 handshake_failure alert can be reported as "certificate required".
            SSL_CTX_set_client_cert_cb(raw) { ssl, _, _ in
                if let ssl, let connection = TLSConnection.from(ssl) { connection.serverRequestedCertificate = true }
                return 0
            }
        }

        if configuration.sessionCacheCapacity > 0 {
            courier_SSL_CTX_enable_client_session_callback(raw)
            SSL_CTX_sess_set_new_cb(raw) { ssl, session in
                // Returning 1 keeps the reference OpenSSL handed over; 0 lets OpenSSL drop it.
                guard let ssl, let session, let connection = TLSConnection.from(ssl) else { return 0 }
                return connection.sessionIssued(session) ? 1 : 0
            }
        } else {
            _ = courier_SSL_CTX_set_session_cache_mode(raw, Int(SSL_SESS_CACHE_OFF))
        }

        self.configuration = configuration
        self.owner = owner
        self.sessions = Mutex(SessionCache(capacity: configuration.sessionCacheCapacity))
        self.now = now
    }

    /// A context for `configuration` shared across the process: made on first use, then reused.
    /// Keeps up to 16 configurations (a program uses a handful); beyond that the oldest is dropped
    /// from the cache (connections that hold it keep it alive).
    /// - Parameter configuration: the settings.
    /// - Returns: the shared context.
    /// - Throws: as ``init(configuration:)``.
    public static func shared(for configuration: TLSConfiguration) throws(TLSError) -> TLSClientContext {
        if let existing = sharedClientContexts.withLock({ $0.lookup(configuration) }) { return existing }
        let made = try TLSClientContext(configuration: configuration)
        return sharedClientContexts.withLock { $0.insert(made, for: configuration) }
    }

    /// How many origins (host, port and security policy) the resumption cache holds sessions for.
    public var cachedSessionCount: Int { sessions.withLock { $0.count } }

    /// Counts of the handshakes completed by this context's connections.
    public struct HandshakeStatistics: Sendable, Hashable {
        /// Handshakes completed, full and resumed.
        public var completed: Int
        /// Of those, the ones that resumed a cached session (no certificate exchange).
        public var resumed: Int
    }

    /// How many handshakes this context's connections completed, and how many of them resumed a
    /// session. Counted when `TLSConnection.handshake()` completes.
    public var handshakeStatistics: HandshakeStatistics {
        HandshakeStatistics(completed: completedHandshakes.load(ordering: .relaxed),
                            resumed: resumedHandshakes.load(ordering: .relaxed))
    }

    func recordHandshake(resumed: Bool) {
        completedHandshakes.add(1, ordering: .relaxed)
        if resumed { resumedHandshakes.add(1, ordering: .relaxed) }
    }

    func takeSession(for key: SessionKey) -> CachedSession? {
        let now = now()
        return sessions.withLock { $0.take(for: key, now: now) }
    }

    /// Keeps a session the server just issued, bounded by its own lifetime and by the age of the
    /// full handshake it descends from (`authenticated`, nil for this very handshake).
    func storeSession(_ session: SessionOwner, for key: SessionKey, authenticated: ContinuousClock.Instant?) {
        let now = now()
        let origin = authenticated ?? now
        let expires = min(now + session.lifetime, origin + SessionCache.maximumAuthenticationAge)
        guard expires > now else { return }
        let cached = CachedSession(session: session, expires: expires, authenticated: origin)
        sessions.withLock { $0.store(cached, for: key) }
    }

    func removeSession(for key: SessionKey) { sessions.withLock { $0.remove(for: key) } }

    /// The sessions kept for `key` (tests).
    func sessionCount(for key: SessionKey) -> Int { sessions.withLock { $0.sessionCount(for: key) } }
}

/// A configured server TLS context (for tests and the embedded loopback server).
public final class TLSServerContext: Sendable {
    /// The configuration this context was made from.
    public let configuration: TLSServerConfiguration
    let owner: SSLContextOwner
    private let alpn: ALPNProtocolList?

    /// Builds a server context.
    /// - Parameter configuration: the settings to apply.
    /// - Throws: `TLSError` for a bad identity, trust roots or ALPN list.
    public init(configuration: TLSServerConfiguration) throws(TLSError) {
        OpenSSLErrorQueue.clear()
        guard let raw = SSL_CTX_new(TLS_server_method()) else {
            throw OpenSSLErrorQueue.error(.internalError, "SSL_CTX_new failed")
        }
        let owner = SSLContextOwner(taking: raw)
        try applyCommonSettings(owner, minimum: configuration.minimumVersion, maximum: configuration.maximumVersion)
        try applyIdentity(configuration.identity, to: owner)

        switch configuration.clientAuthentication {
        case .none:
            SSL_CTX_set_verify(raw, SSL_VERIFY_NONE, nil)
        case .optional(let roots):
            try applyTrustRoots(roots, to: owner)
            SSL_CTX_set_verify(raw, SSL_VERIFY_PEER, nil)
        case .required(let roots):
            try applyTrustRoots(roots, to: owner)
            SSL_CTX_set_verify(raw, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, nil)
        }
        // Resumed sessions must come from this context (and OpenSSL refuses to resume a session
        // with a verified client certificate without an id context).
        let idContext: [UInt8] = Array("courier".utf8)
        _ = idContext.withUnsafeBufferPointer { SSL_CTX_set_session_id_context(raw, $0.baseAddress, UInt32($0.count)) }

        if configuration.applicationProtocols.isEmpty {
            alpn = nil
        } else {
            let list = ALPNProtocolList(try alpnWireFormat(configuration.applicationProtocols))
            alpn = list
            // SAFETY: `list` is kept alive by this context, which also owns the SSL_CTX that calls back.
            SSL_CTX_set_alpn_select_cb(raw, { _, out, outLength, offered, offeredLength, argument in
                guard let argument, let out, let outLength, let offered else { return SSL_TLSEXT_ERR_NOACK }
                let list = Unmanaged<ALPNProtocolList>.fromOpaque(argument).takeUnretainedValue()
                var selected: UnsafeMutablePointer<UInt8>? = nil
                var selectedLength: UInt8 = 0
                let result = SSL_select_next_proto(
                    &selected, &selectedLength, list.bytes.baseAddress, UInt32(list.bytes.count), offered, offeredLength)
                guard result == OPENSSL_NPN_NEGOTIATED, let selected else { return SSL_TLSEXT_ERR_NOACK }
                out.pointee = UnsafePointer(selected)
                outLength.pointee = selectedLength
                return SSL_TLSEXT_ERR_OK
            }, Unmanaged.passUnretained(list).toOpaque())
        }
        self.configuration = configuration
        self.owner = owner
    }
}

// MARK: - Shared setup

/// Version bounds, modes and options common to both roles.
private func applyCommonSettings(_ context: SSLContextOwner, minimum: TLSVersion, maximum: TLSVersion?) throws(TLSError) {
    let raw = context.pointer
    if let maximum, maximum < minimum {
        throw TLSError(code: .invalidConfiguration, message: "maximum TLS version \(maximum) is below the minimum \(minimum)")
    }
    guard courier_SSL_CTX_set_min_proto_version(raw, Int32(minimum.rawValue)) == 1,
          courier_SSL_CTX_set_max_proto_version(raw, Int32(maximum?.rawValue ?? 0)) == 1 else {
        throw OpenSSLErrorQueue.error(.invalidConfiguration, "OpenSSL refused the TLS version range")
    }
    courier_SSL_CTX_set_courier_options(raw)
    // Memory BIOs never block, so a write is always complete; release idle record buffers.
    _ = courier_SSL_CTX_set_mode(raw, Int(SSL_MODE_RELEASE_BUFFERS | SSL_MODE_AUTO_RETRY))
}

private func applyTrustRoots(_ roots: TrustRoots, to context: SSLContextOwner) throws(TLSError) {
    let store: TrustStoreOwner
    switch roots {
    case .system:
        store = try SystemTrustStore.shared.get()
    case .certificates(let certificates):
        guard let fresh = TrustStoreOwner() else { throw OpenSSLErrorQueue.error(.internalError, "X509_STORE_new failed") }
        for certificate in certificates where !fresh.add(certificate.owner) {
            throw OpenSSLErrorQueue.error(.invalidCertificate, "cannot add \(certificate.subjectName) to the trust store")
        }
        store = fresh
    case .pemFile(let path):
        guard let fresh = TrustStoreOwner() else { throw OpenSSLErrorQueue.error(.internalError, "X509_STORE_new failed") }
        OpenSSLErrorQueue.clear()
        guard X509_STORE_load_file(fresh.pointer, path) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidConfiguration, "cannot read CA certificates from \(path)")
        }
        store = fresh
    case .hashedDirectory(let directory, let file):
        guard let fresh = TrustStoreOwner() else { throw OpenSSLErrorQueue.error(.internalError, "X509_STORE_new failed") }
        OpenSSLErrorQueue.clear()
        if let file {
            guard X509_STORE_load_file(fresh.pointer, file) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidConfiguration, "cannot read CA certificates from \(file)")
            }
        } else {
            guard X509_STORE_set_default_paths(fresh.pointer) == 1 else {
                throw OpenSSLErrorQueue.error(.invalidConfiguration, "cannot load the system trust store")
            }
        }
        guard X509_STORE_load_path(fresh.pointer, directory) == 1 else {
            throw OpenSSLErrorQueue.error(.invalidConfiguration, "cannot use the CA directory \(directory)")
        }
        OpenSSLErrorQueue.clear()
        store = fresh
    }
    SSL_CTX_set1_cert_store(context.pointer, store.pointer)
}

private func applyIdentity(_ identity: TLSIdentity, to context: SSLContextOwner) throws(TLSError) {
    let raw = context.pointer
    let key = try parsePrivateKey(identity.privateKeyBytes)
    OpenSSLErrorQueue.clear()
    guard let leaf = identity.certificateChain.first, SSL_CTX_use_certificate(raw, leaf.owner.pointer) == 1 else {
        throw OpenSSLErrorQueue.error(.invalidCertificate, "OpenSSL refused the certificate")
    }
    for intermediate in identity.certificateChain.dropFirst() where courier_SSL_CTX_add1_chain_cert(raw, intermediate.owner.pointer) != 1 {
        throw OpenSSLErrorQueue.error(.invalidCertificate, "OpenSSL refused the chain certificate \(intermediate.subjectName)")
    }
    guard SSL_CTX_use_PrivateKey(raw, key.pointer) == 1, SSL_CTX_check_private_key(raw) == 1 else {
        throw OpenSSLErrorQueue.error(.invalidKey, "the private key does not belong to the certificate")
    }
}

/// Whether `key` is the private key of `certificate`.
func keyMatches(_ key: PrivateKeyOwner, _ certificate: X509Owner) -> Bool {
    OpenSSLErrorQueue.clear()
    let matches = X509_check_private_key(certificate.pointer, key.pointer) == 1
    OpenSSLErrorQueue.clear()
    return matches
}

/// RFC 7301 §3.1: a list of non-empty names of at most 255 bytes, each prefixed by its length.
func alpnWireFormat(_ protocols: [String]) throws(TLSError) -> [UInt8] {
    var wire: [UInt8] = []
    for name in protocols {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= 255 else {
            throw TLSError(code: .invalidConfiguration, message: "ALPN protocol names are 1 to 255 bytes long")
        }
        wire.append(UInt8(bytes.count))
        wire.append(contentsOf: bytes)
    }
    return wire
}

/// A server's ALPN list in wire format at a stable address, for the selection callback.
final class ALPNProtocolList: Sendable {
    // SAFETY (Sendable): written once in init, only read afterwards.
    nonisolated(unsafe) let bytes: UnsafeMutableBufferPointer<UInt8>

    init(_ wire: [UInt8]) {
        bytes = .allocate(capacity: wire.count)
        _ = bytes.initialize(from: wire)
    }

    deinit { bytes.deallocate() }
}

// MARK: - Process-wide context cache

private let sharedClientContexts = Mutex(SharedContexts())

private struct SharedContexts {
    static let capacity = 16
    private var contexts: [TLSConfiguration: TLSClientContext] = [:]
    private var order: [TLSConfiguration] = []

    func lookup(_ configuration: TLSConfiguration) -> TLSClientContext? { contexts[configuration] }

    /// Inserts unless another thread got there first; returns the context to use.
    mutating func insert(_ context: TLSClientContext, for configuration: TLSConfiguration) -> TLSClientContext {
        if let existing = contexts[configuration] { return existing }
        if order.count >= Self.capacity {
            contexts[order.removeFirst()] = nil
        }
        contexts[configuration] = context
        order.append(configuration)
        return context
    }
}
