// SecurityPolicy: AFNetworking's AFSecurityPolicy, evaluated on the OpenSSL chain after the
// handshake, plus curl's leaf public-key pins.
//
// Evaluation order (AFNetworking's `evaluateServerTrust:forDomain:`, with Courier's changes marked):
//   1. Refuse a policy that allows invalid certificates and validates the domain name but pins
//      nothing: a host name check on a certificate nobody vouches for proves nothing
//      (`.insecurePolicy`). Courier counts `pinnedPublicKeys` as pins too.
//   2. Trust = the chain verified against the context's roots, plus the host name (subjectAltName
//      only) when `validatesDomainName`. Pinning `.none`: pass if trusted or invalid certificates
//      are allowed. Other modes: fail now if untrusted and invalid certificates are not allowed.
//      The failure keeps its specific code (expired, not yet valid, host name, untrusted issuer).
//   3. `.certificate`: verify the presented chain again with the pinned certificates as the only
//      anchors (a pinned leaf or intermediate is an anchor too), including the host name when
//      `validatesDomainName`; then the resulting chain must contain a pinned certificate.
//      `.publicKey`: COURIER CHANGE 1: the host name is checked even when invalid certificates are
//      allowed (AFNetworking skips it there), unless `validatesDomainName` is false. Then a key in
//      the chain must equal the key of a pinned certificate. COURIER CHANGE 2: keys are taken from
//      the verified chain only; when the chain is not trusted (invalid certificates allowed), only
//      the leaf's key counts, because an unverified "intermediate" proves nothing: anyone can send
//      a copy of a pinned certificate after their own leaf.
//   4. Courier addition: `pinnedPublicKeys` (curl's --pinnedpubkey) must match the leaf's key.
// A failure from 2 or 3 that is about the host name or trust is reported before any pin failure,
// so "wrong host and wrong pin" reports the host (curl's exit 60 rather than 90).
//
// Without a domain (AFNetworking's `evaluateServerTrust:` or `forDomain:nil`; Courier's
// `evaluate(_:forDomain: nil)`): rule 1 does not apply (AFNetworking tests `domain &&` first), and
// `validatesDomainName` checks nothing (AFNetworking's SSL policy is created with a NULL host name,
// which validates the chain for TLS server use and no name). The chain, the expiry and the pins are
// judged exactly as with a domain. docs/tls.md has the whole allow/deny table, and
// Tests/CourierTLSTests/PolicyTableTests.swift runs every row of it against openssl s_server.

/// When a server's certificate chain is accepted: AFNetworking's pinning modes and switches, on
/// top of the handshake's own verification.
///
/// Evaluate with ``TLSConnection/evaluate(_:)`` after the handshake. To let the policy decide about
/// chains the handshake would reject (`allowInvalidCertificates`, `validatesDomainName = false`),
/// make the context with a matching `CertificateVerification` (``requiredVerification``).
public struct SecurityPolicy: Sendable, Hashable {
    /// How the server is pinned (AFNetworking's `AFSSLPinningMode`).
    public enum PinningMode: Sendable, Hashable {
        /// No pinning: the chain and host name decide.
        case none
        /// The chain must verify with the pinned certificates as its only anchors and contain one.
        case certificate
        /// A key in the verified chain must be the key of a pinned certificate.
        case publicKey
    }

    /// The pinning mode.
    public var pinningMode: PinningMode
    private var pinnedCertificateList: [Certificate]
    /// Whether to accept an untrusted or invalid chain (expired, self-signed, unknown issuer).
    /// Default false. Pinning still applies.
    public var allowInvalidCertificates: Bool = false
    /// Whether the certificate must match the host name (subjectAltName only). Default true.
    public var validatesDomainName: Bool = true
    /// curl's `--pinnedpubkey`: when not empty, the LEAF certificate's key must match one of these,
    /// whatever the pinning mode.
    public var pinnedPublicKeys: [PublicKeyPin] = []

    /// Creates a policy.
    /// - Parameters:
    ///   - pinningMode: the pinning mode. Default `.none`.
    ///   - pinnedCertificates: the certificates to pin (duplicates removed, order kept).
    public init(pinningMode: PinningMode = .none, pinnedCertificates: [Certificate] = []) {
        self.pinningMode = pinningMode
        self.pinnedCertificateList = []
        self.pinnedCertificates = pinnedCertificates
    }

    /// The default policy: no pinning, valid chain required, host name validated.
    public static var `default`: SecurityPolicy { SecurityPolicy() }

    /// The pinned certificates, without duplicates, in the order first given (AFNetworking keeps an
    /// ordered set).
    public var pinnedCertificates: [Certificate] {
        get { pinnedCertificateList }
        set {
            var seen = Set<Certificate>()
            pinnedCertificateList = newValue.filter { seen.insert($0).inserted }
        }
    }

    /// The handshake verification a context needs so that this policy, not the handshake, makes
    /// the decisions the policy relaxes.
    public var requiredVerification: CertificateVerification {
        if allowInvalidCertificates { return .none }
        if !validatesDomainName { return .noHostnameVerification }
        return .fullVerification
    }

    /// Whether anything at all is pinned.
    var pinsSomething: Bool {
        (pinningMode != .none && !pinnedCertificateList.isEmpty) || !pinnedPublicKeys.isEmpty
    }
}

// MARK: - Evaluation

/// What the evaluation needs to know about the peer, captured from a connection after its
/// handshake. The owners keep the certificates alive for the duration.
struct PeerTrust {
    /// The domain the evaluation checks, nil when none is known (no host name check, no rule 1).
    let host: String?
    let hostIsIPAddress: Bool
    /// As sent, leaf first.
    let presented: [X509Owner]
    /// The chain built against the context's roots when it verified; may need a rebuild after a
    /// resumed handshake (OpenSSL keeps no built chain then).
    let built: [X509Owner]
    /// X.509 result for the chain against the context's roots (X509_V_OK when trusted).
    let verifyCode: Int32
    /// The context's trust store, borrowed from the SSL_CTX for the evaluation.
    let contextStore: OpaquePointer?
}

extension SecurityPolicy {
    /// Runs the evaluation order described at the top of this file.
    func evaluate(_ peer: PeerTrust) throws(TLSError) {
        guard let leaf = peer.presented.first else {
            throw TLSError(code: .certificateRejected, message: "the server presented no certificate")
        }

        // The host to check, if any: none without a domain, whatever validatesDomainName says.
        let checkedHost: (String, Bool)? = validatesDomainName ? peer.host.map { ($0, peer.hostIsIPAddress) } : nil

        // 1. AFNetworking: allowing invalid certificates while validating the domain needs a pin;
        //    without a domain there is nothing to validate, so nothing to refuse.
        if peer.host != nil && allowInvalidCertificates && validatesDomainName && !pinsSomething {
            throw TLSError(
                code: .insecurePolicy,
                message: "a policy that allows invalid certificates and validates the domain name must pin a certificate or key")
        }

        // 2. Trust under the policy.
        let chainTrusted = peer.verifyCode == TrustVerifier.ok
        var trustFailure: TLSError? = nil
        if !chainTrusted {
            trustFailure = .verificationFailure(code: peer.verifyCode, depth: nil, host: peer.host ?? "")
        } else if let (host, isIP) = checkedHost, !TrustVerifier.certificate(leaf, matches: host, isIPAddress: isIP) {
            trustFailure = hostnameMismatch(peer)
        }
        if let trustFailure, !allowInvalidCertificates { throw trustFailure }

        // 3. Pinning.
        switch pinningMode {
        case .none:
            break
        case .certificate:
            guard !pinnedCertificateList.isEmpty else {
                throw TLSError(code: .pinningFailed, message: "certificate pinning with no pinned certificates")
            }
            let verification = TrustVerifier.verify(
                leaf: leaf, untrusted: peer.presented, anchors: pinnedCertificateList.map(\.owner),
                host: checkedHost)
            if verification.code != TrustVerifier.ok {
                var error = TLSError.verificationFailure(code: verification.code, depth: verification.depth, host: peer.host ?? "")
                if error.code == .untrustedIssuer {
                    error.code = .pinningFailed
                    error.message = "the server's chain does not lead to a pinned certificate"
                }
                throw error
            }
            let pinned = Set(pinnedCertificateList.map(\.derBytes))
            guard verification.chain.contains(where: { pinned.contains($0.der) }) else {
                throw TLSError(code: .pinningFailed, message: "no pinned certificate is in the server's chain")
            }
        case .publicKey:
            // Courier change 1: the host name holds even when invalid certificates are allowed.
            if let (host, isIP) = checkedHost, !TrustVerifier.certificate(leaf, matches: host, isIPAddress: isIP) {
                throw hostnameMismatch(peer)
            }
            // Courier change 2: only keys of a verified chain count; otherwise only the leaf's.
            let candidates = chainTrusted ? trustedChain(peer, leaf: leaf) : [leaf]
            let pinnedKeys = Set(pinnedCertificateList.map(\.subjectPublicKeyInfo))
            guard candidates.contains(where: { pinnedKeys.contains($0.subjectPublicKeyInfo) }) else {
                throw TLSError(code: .pinningFailed, message: "no key in the server's chain is a pinned key")
            }
        }

        // 4. curl's leaf public-key pins.
        if !pinnedPublicKeys.isEmpty {
            let leafKey = leaf.subjectPublicKeyInfo
            guard pinnedPublicKeys.contains(where: { $0.matches(subjectPublicKeyInfo: leafKey) }) else {
                throw TLSError(
                    code: .pinningFailed,
                    message: "the server's public key (\(PublicKeyPin(certificate: Certificate(owner: leaf)))) matches no pinned key")
            }
        }
    }

    private func hostnameMismatch(_ peer: PeerTrust) -> TLSError {
        TLSError(
            code: .hostnameMismatch, message: "no subjectAltName of the certificate matches \(peer.host ?? "")",
            verifyResult: .init(
                code: peer.hostIsIPAddress ? TrustVerifier.ipAddressMismatch : TrustVerifier.hostnameMismatch,
                reason: verifyReason(peer.hostIsIPAddress ? TrustVerifier.ipAddressMismatch : TrustVerifier.hostnameMismatch)))
    }

    /// The chain the context's roots vouch for, leaf to anchor.
    private func trustedChain(_ peer: PeerTrust, leaf: X509Owner) -> [X509Owner] {
        if !peer.built.isEmpty { return peer.built }
        // Resumed session: OpenSSL kept the presented chain but not the built one; build it again.
        guard let store = peer.contextStore else { return [leaf] }
        let rebuilt = TrustVerifier.verify(leaf: leaf, untrusted: peer.presented, store: store, partialChain: false, host: nil)
        return rebuilt.code == TrustVerifier.ok ? rebuilt.chain : [leaf]
    }
}

extension TLSConnection {
    /// Evaluates a security policy on the completed handshake (client side), for the host the
    /// connection was made to (AFNetworking's `evaluateServerTrust:forDomain:` with the
    /// challenge's host, as its session manager calls it).
    ///
    /// On failure the connection enters its failed state (it must not be used) and the host's
    /// cached session is forgotten, so the next connection does a full handshake.
    /// - Parameter policy: the policy.
    /// - Throws: `TLSError`: `.insecurePolicy`, a certificate code (`.certificateExpired`,
    ///   `.certificateNotYetValid`, `.hostnameMismatch`, `.untrustedIssuer`,
    ///   `.certificateRejected`), or `.pinningFailed`.
    public func evaluate(_ policy: SecurityPolicy) throws(TLSError) {
        try evaluate(policy, forDomain: host)
    }

    /// Evaluates a security policy on the completed handshake for `domain`, or for no domain at all
    /// (AFNetworking's `evaluateServerTrust:forDomain:`, and `evaluateServerTrust:` when `domain` is
    /// nil).
    ///
    /// Without a domain, `validatesDomainName` checks no name and a policy that allows invalid
    /// certificates and validates the domain name without pins is not refused for that (there is no
    /// name to validate); the chain, its validity period and the pins are judged as always. The
    /// allow/deny table is in docs/tls.md. When the domain is not the connection's host, make the
    /// context with `.noHostnameVerification` or `.none` so that the handshake does not refuse the
    /// connection's host first; a host name failure it recorded is ignored here (the chain is
    /// verified again without a name).
    /// - Parameters:
    ///   - policy: the policy.
    ///   - domain: the DNS name or IP address literal the certificate must name when the policy
    ///     validates domain names; nil for none.
    /// - Throws: as ``evaluate(_:)``.
    public func evaluate(_ policy: SecurityPolicy, forDomain domain: String?) throws(TLSError) {
        precondition(role == .client, "security policies are evaluated by clients")
        precondition(isHandshakeComplete, "evaluate(_:) before the handshake completed")
        let name = domain.map(normalizedHostName)
        var verifyCode = verifyResult.code
        let store = contextTrustStore()
        var built = builtChain()
        let presented = presentedChain()
        if name != host, verifyCode == TrustVerifier.hostnameMismatch || verifyCode == TrustVerifier.ipAddressMismatch,
           let store, let leaf = presented.first {
            // The handshake checked the connection's host; the evaluation is for another name or none.
            let chainOnly = TrustVerifier.verify(leaf: leaf, untrusted: presented, store: store, partialChain: false, host: nil)
            verifyCode = chainOnly.code
            built = chainOnly.code == TrustVerifier.ok ? chainOnly.chain : []
        }
        let peer = PeerTrust(
            host: name, hostIsIPAddress: name.map(isIPAddressLiteral) ?? false, presented: presented, built: built,
            verifyCode: verifyCode, contextStore: store)
        do {
            try policy.evaluate(peer)
        } catch {
            if let key = sessionKey { clientContext?.removeSession(for: key) }
            throw fail(error)
        }
    }
}
