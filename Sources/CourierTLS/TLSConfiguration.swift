// TLS configuration values: what a client (and the test/embedded server) asks of a TLS context.
//
// These are plain values (Sendable, Hashable) so a session can compare them and share one context
// per distinct configuration; nothing here touches OpenSSL until a context is made from them.
// Defaults are the secure ones of design §7: system trust store, full verification (chain and host
// name against subjectAltName only), TLS 1.2 minimum, ALPN `http/1.1`, session resumption on.

/// A TLS protocol version Courier can negotiate. Versions before 1.2 are not offered at all
/// (RFC 8996 deprecates TLS 1.0 and 1.1).
public enum TLSVersion: Int, Sendable, Hashable, Comparable, CustomStringConvertible {
    /// TLS 1.2 (RFC 5246).
    case v1_2 = 0x0303
    /// TLS 1.3 (RFC 8446).
    case v1_3 = 0x0304

    /// Orders by protocol version.
    public static func < (lhs: TLSVersion, rhs: TLSVersion) -> Bool { lhs.rawValue < rhs.rawValue }

    /// `TLSv1.2` or `TLSv1.3`.
    public var description: String { self == .v1_2 ? "TLSv1.2" : "TLSv1.3" }
}

/// Where the certificates that anchor trust come from.
public enum TrustRoots: Sendable, Hashable {
    /// The operating system's store (OpenSSL's default paths: `/etc/ssl/certs`). Loaded once per
    /// process and shared by every context that uses it.
    case system
    /// Exactly these certificates (curl's `--cacert` with the file already read).
    case certificates([Certificate])
    /// A PEM file of CA certificates, read by OpenSSL when the context is made.
    case pemFile(path: String)
    /// An OpenSSL hashed directory (`HASH.0` names, as `openssl rehash` makes them) searched for
    /// issuers during verification, plus a PEM file (nil: the system store's default file and
    /// directory) — curl's `--capath DIR`, with or without `--cacert FILE`. The directory is read
    /// lazily: one that does not exist simply holds no issuer (curl's behaviour too).
    case hashedDirectory(path: String, pemFile: String?)
}

/// How the server's certificate is checked during the handshake.
public enum CertificateVerification: Sendable, Hashable {
    /// The chain must lead to a trust root and the leaf's subjectAltName must match the host name
    /// or IP address. The default.
    case fullVerification
    /// The chain must lead to a trust root; the host name is not checked.
    case noHostnameVerification
    /// Nothing is checked: any certificate, any name, expired or not. This is curl's `-k`. The
    /// verification result is still recorded, so a `SecurityPolicy` can decide after the handshake.
    case none
}

/// A certificate chain and its private key: a client's identity for mutual TLS, or a server's.
public struct TLSIdentity: Sendable, Hashable {
    /// The leaf first, then any intermediates to send with it.
    public let certificateChain: [Certificate]
    /// The private key of the leaf, as given (PEM or DER).
    public let privateKeyBytes: [UInt8]

    /// Creates an identity from PEM text, checking that the key belongs to the leaf.
    /// - Parameters:
    ///   - certificateChainPEM: the leaf certificate, then intermediates, as PEM.
    ///   - privateKeyPEM: the leaf's unencrypted private key, PEM (PKCS#8 or traditional) or DER.
    /// - Throws: `TLSError` `.invalidCertificate` or `.invalidKey` (also when key and
    ///   certificate do not match).
    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8]) throws(TLSError) {
        try self.init(certificateChain: Certificate.certificates(fromPEM: certificateChainPEM), privateKey: privateKeyPEM)
    }

    /// Creates an identity from PEM text whose private key may be encrypted (curl's `--key` with
    /// `--pass`): the key is decrypted with `passphrase` and kept unencrypted (DER) in memory.
    /// - Parameters:
    ///   - certificateChainPEM: the leaf certificate, then intermediates, as PEM.
    ///   - privateKeyPEM: the leaf's private key, PEM, encrypted or not.
    ///   - passphrase: the pass phrase of an encrypted key (nil: the key must not be encrypted).
    /// - Throws: `TLSError` `.invalidCertificate`, or `.invalidKey` (also for a wrong pass phrase
    ///   and for a key that does not belong to the certificate).
    public init(certificateChainPEM: [UInt8], privateKeyPEM: [UInt8], passphrase: String?) throws(TLSError) {
        guard let passphrase else {
            try self.init(certificateChainPEM: certificateChainPEM, privateKeyPEM: privateKeyPEM)
            return
        }
        let certificates = try Certificate.certificates(fromPEM: certificateChainPEM)
        try self.init(certificateChain: certificates, privateKey: try decryptPrivateKey(privateKeyPEM, passphrase: passphrase))
    }

    /// Creates an identity from parsed certificates and key bytes, checking that they match.
    /// - Parameters:
    ///   - certificateChain: the leaf first, then intermediates; not empty.
    ///   - privateKey: the leaf's unencrypted private key, PEM or DER.
    /// - Throws: `TLSError` `.invalidCertificate` for an empty chain, `.invalidKey` when the key
    ///   does not parse or does not belong to the leaf.
    public init(certificateChain: [Certificate], privateKey: [UInt8]) throws(TLSError) {
        guard let leaf = certificateChain.first else {
            throw TLSError(code: .invalidCertificate, message: "an identity needs at least one certificate")
        }
        let key = try parsePrivateKey(privateKey)
        guard keyMatches(key, leaf.owner) else {
            throw OpenSSLErrorQueue.error(.invalidKey, "the private key does not belong to the certificate")
        }
        self.certificateChain = certificateChain
        self.privateKeyBytes = privateKey
    }
}

/// Client-side TLS settings. One `TLSClientContext` is made per distinct configuration and shared
/// by every connection that uses it.
public struct TLSConfiguration: Sendable, Hashable {
    /// The trust anchors. Default: the system store.
    public var trustRoots: TrustRoots = .system
    /// How the server certificate is checked in the handshake. Default: full verification.
    public var certificateVerification: CertificateVerification = .fullVerification
    /// The lowest version offered. Default TLS 1.2 (RFC 9325 §3.1.1).
    public var minimumVersion: TLSVersion = .v1_2
    /// The highest version offered; nil means the highest OpenSSL supports.
    public var maximumVersion: TLSVersion? = nil
    /// A client certificate and key for mutual TLS.
    public var clientIdentity: TLSIdentity? = nil
    /// ALPN protocol names offered, most preferred first (RFC 7301). Default `http/1.1`.
    public var applicationProtocols: [String] = ["http/1.1"]
    /// How many host:port entries the session-resumption cache keeps (least recently used ones go
    /// first); 0 turns resumption off. Default 32: curl keeps a few per handle, browsers hundreds;
    /// a client talks to a handful of hosts.
    public var sessionCacheCapacity: Int = 32
    /// The cipher list for TLS 1.2 and below, in OpenSSL's syntax (`SSL_CTX_set_cipher_list`,
    /// curl's `--ciphers`); nil: OpenSSL's default.
    public var cipherList: String? = nil
    /// The TLS 1.3 cipher suites, in OpenSSL's syntax (`SSL_CTX_set_ciphersuites`, curl's
    /// `--tls13-ciphers`); nil: OpenSSL's default.
    public var tls13CipherSuites: String? = nil

    /// The secure defaults.
    public init() {}

    /// The secure defaults (same as `init()`).
    public static var `default`: TLSConfiguration { TLSConfiguration() }
}

/// Whether and how a server asks for client certificates.
public enum ClientAuthentication: Sendable, Hashable {
    /// No client certificate is requested.
    case none
    /// A certificate is requested and verified against the roots when sent; none is accepted.
    case optional(TrustRoots)
    /// A certificate verified against the roots is required (TLS 1.3 alert certificate_required
    /// otherwise, RFC 8446 §4.4.2.4).
    case required(TrustRoots)
}

/// Server-side TLS settings, for the in-memory tests and the embedded loopback test server.
public struct TLSServerConfiguration: Sendable, Hashable {
    /// The server's certificate chain and key.
    public var identity: TLSIdentity
    /// Client-certificate policy. Default: none requested.
    public var clientAuthentication: ClientAuthentication = .none
    /// The lowest version accepted. Default TLS 1.2.
    public var minimumVersion: TLSVersion = .v1_2
    /// The highest version accepted; nil means the highest OpenSSL supports.
    public var maximumVersion: TLSVersion? = nil
    /// ALPN protocols the server accepts, in its order of preference. Default `http/1.1`. When the
    /// client offers none of them the handshake continues without ALPN.
    public var applicationProtocols: [String] = ["http/1.1"]

    /// Creates a server configuration with the default settings.
    /// - Parameter identity: the certificate chain and key the server presents.
    public init(identity: TLSIdentity) {
        self.identity = identity
    }
}
