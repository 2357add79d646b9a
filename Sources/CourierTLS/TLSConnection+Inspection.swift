// What a TLSConnection tells about itself (negotiated parameters, the peer's certificates), and
// how a failed OpenSSL call becomes a TLSError.
//
// Classification order, first match wins (each step looks at the drained error queue):
//   1. certificate verification failed → the X.509 result decides: expired, not yet valid, host
//      name mismatch, untrusted issuer, or "rejected" for the rest;
//   2. a fatal alert received from the peer (reason 1000 + AlertDescription) → protocol_version,
//      certificate_required (and TLS 1.2's handshake_failure after a certificate request we could
//      not answer) get their own codes, the rest `.alertReceived` with the alert attached;
//   3. OpenSSL's own reasons: no client certificate sent, no common protocol version, EOF;
//   4. otherwise `.handshakeFailed` during the handshake, `.protocolError` after it.

internal import CCourierOpenSSL

extension TLSConnection {
    // MARK: Negotiated parameters

    /// The negotiated protocol version, once the handshake is complete.
    public var negotiatedVersion: TLSVersion? {
        guard isHandshakeComplete else { return nil }
        return TLSVersion(rawValue: Int(SSL_version(ssl)))
    }

    /// The protocol chosen by ALPN (RFC 7301), e.g. `http/1.1`; nil when none was negotiated.
    public var negotiatedApplicationProtocol: String? {
        var data: UnsafePointer<UInt8>? = nil
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// Whether the handshake resumed an earlier session (no full certificate exchange).
    public var isSessionResumed: Bool { courier_SSL_session_reused(ssl) == 1 }

    /// The server name the client asked for with SNI (server side), or sent (client side).
    public var serverNameIndication: String? {
        guard let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name) else { return nil }
        return String(cString: name)
    }

    /// The negotiated cipher suite's OpenSSL name, once the handshake is complete.
    public var cipherSuite: String? {
        guard isHandshakeComplete, let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_get_name(cipher) else {
            return nil
        }
        return String(cString: name)
    }

    /// The certificates the peer presented, leaf first (as sent, not necessarily verified). For a
    /// resumed session these are the ones of the original handshake.
    public var peerCertificates: [Certificate] { presentedChain().map { Certificate(owner: $0) } }

    /// The X.509 verification result OpenSSL recorded for the peer's chain. It is recorded even
    /// when the context does not enforce verification (`.none`), which is what lets a
    /// `SecurityPolicy` decide after the handshake.
    public var verifyResult: TLSError.VerifyResult {
        let code = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
        return TLSError.VerifyResult(code: code, reason: verifyReason(code))
    }

    /// The peer's certificates as sent, leaf first, each with a reference of its own.
    func presentedChain() -> [X509Owner] {
        switch role {
        case .client:
            // Client side: the stack includes the leaf (SSL_get_peer_cert_chain(3)).
            return certificateOwners(of: SSL_get_peer_cert_chain(ssl))
        case .server:
            // Server side: the stack omits the leaf.
            guard let leaf = SSL_get1_peer_certificate(ssl) else { return [] }
            return [X509Owner(taking: leaf)] + certificateOwners(of: SSL_get_peer_cert_chain(ssl))
        }
    }

    /// The chain OpenSSL built while verifying, leaf to anchor; empty on a resumed session.
    func builtChain() -> [X509Owner] { certificateOwners(of: SSL_get0_verified_chain(ssl)) }

    /// The trust store of this connection's context (for rebuilding a chain).
    func contextTrustStore() -> OpaquePointer? {
        SSL_CTX_get_cert_store(SSL_get_SSL_CTX(ssl))
    }

    // MARK: Failure classification

    /// Turns the failure of the SSL call that just returned `sslErrorCode` into a TLSError.
    func classifyFailure(_ sslErrorCode: Int32, duringHandshake: Bool) -> TLSError {
        let entries = OpenSSLErrorQueue.drain()
        let texts = entries.map(\.text)
        let sslEntries = entries.filter { $0.library == ERR_LIB_SSL }

        // 1. Certificate verification.
        if sslEntries.contains(where: { $0.reason == SSL_R_CERTIFICATE_VERIFY_FAILED }) {
            let code = Int32(truncatingIfNeeded: SSL_get_verify_result(ssl))
            if code != X509_V_OK {
                var error = TLSError.verificationFailure(code: code, depth: nil, host: host)
                error.openSSLErrors = texts
                return error
            }
        }

        // 2. An alert from the peer.
        let alertRange = SSL_AD_REASON_OFFSET..<(SSL_AD_REASON_OFFSET + 256)
        if let entry = sslEntries.first(where: { alertRange.contains($0.reason) }) {
            let number = UInt8(entry.reason - SSL_AD_REASON_OFFSET)
            let alert = TLSError.Alert(alertDescription: number, name: alertName(number))
            let code: TLSError.Code
            let message: String
            switch Int32(number) {
            case SSL_AD_CERTIFICATE_REQUIRED:
                code = .clientCertificateRequired
                message = "the server requires a client certificate"
            case SSL_AD_HANDSHAKE_FAILURE where serverRequestedCertificate:
                code = .clientCertificateRequired
                message = "the server asked for a client certificate, none was configured, and it ended the handshake"
            case SSL_AD_PROTOCOL_VERSION:
                code = .protocolVersion
                message = "the peer supports no TLS version in the configured range"
            default:
                code = .alertReceived
                message = "the peer sent the fatal alert \(alert)"
            }
            return TLSError(code: code, message: message, openSSLErrors: texts, alert: alert)
        }

        // 3. OpenSSL's reasons.
        for entry in sslEntries {
            switch entry.reason {
            case SSL_R_PEER_DID_NOT_RETURN_A_CERTIFICATE:
                return TLSError(code: .clientCertificateRequired, message: "the client sent no certificate", openSSLErrors: texts)
            case SSL_R_UNSUPPORTED_PROTOCOL, SSL_R_NO_PROTOCOLS_AVAILABLE, SSL_R_VERSION_TOO_LOW,
                 SSL_R_VERSION_TOO_HIGH, SSL_R_UNSUPPORTED_SSL_VERSION:
                return TLSError(code: .protocolVersion, message: "no TLS version in the configured range", openSSLErrors: texts)
            case SSL_R_UNEXPECTED_EOF_WHILE_READING:
                return duringHandshake
                    ? TLSError(code: .unexpectedEOF, message: "the connection closed during the TLS handshake", openSSLErrors: texts)
                    : TLSError(code: .closedWithoutCloseNotify, message: "the connection closed without a TLS close_notify", openSSLErrors: texts)
            default:
                continue
            }
        }

        // 4. Everything else.
        if sslErrorCode == SSL_ERROR_ZERO_RETURN && duringHandshake {
            return TLSError(code: .handshakeFailed, message: "the peer closed the TLS session during the handshake", openSSLErrors: texts)
        }
        if sslErrorCode != SSL_ERROR_SSL && sslErrorCode != SSL_ERROR_SYSCALL {
            return TLSError(code: .internalError, message: "unexpected SSL_get_error result \(sslErrorCode)", openSSLErrors: texts)
        }
        return duringHandshake
            ? TLSError(code: .handshakeFailed, message: "the TLS handshake failed", openSSLErrors: texts)
            : TLSError(code: .protocolError, message: "a TLS record could not be processed", openSSLErrors: texts)
    }
}

// MARK: - X.509 results

extension TLSError {
    /// The error for an X.509 verification failure, by its `X509_V_ERR_*` value.
    static func verificationFailure(code: Int32, depth: Int32?, host: String?) -> TLSError {
        let result = VerifyResult(code: code, reason: verifyReason(code), depth: depth)
        let errorCode: Code
        let message: String
        switch code {
        case X509_V_ERR_CERT_HAS_EXPIRED:
            errorCode = .certificateExpired
            message = "the server certificate (or one in its chain) has expired"
        case X509_V_ERR_CERT_NOT_YET_VALID:
            errorCode = .certificateNotYetValid
            message = "the server certificate (or one in its chain) is not yet valid"
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            errorCode = .hostnameMismatch
            message = "no subjectAltName of the certificate matches \(host ?? "the host")"
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN,
             X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE, X509_V_ERR_CERT_UNTRUSTED, X509_V_ERR_CERT_REJECTED:
            errorCode = .untrustedIssuer
            message = "the certificate chain does not lead to a trusted root"
        default:
            errorCode = .certificateRejected
            message = "the certificate chain failed verification"
        }
        return TLSError(code: errorCode, message: message, verifyResult: result)
    }
}

/// OpenSSL's text for an `X509_V_ERR_*` value.
func verifyReason(_ code: Int32) -> String {
    guard let text = X509_verify_cert_error_string(Int(code)) else { return "unknown" }
    return String(cString: text)
}

/// OpenSSL's long name for an alert description ("handshake failure"); OpenSSL 3.0 has no names
/// for the alerts TLS 1.3 added (RFC 8446 §6), so those come from here.
func alertName(_ description: UInt8) -> String {
    switch description {
    case 109: return "missing extension"
    case 116: return "certificate required"
    case 120: return "no application protocol"
    default: break
    }
    guard let text = SSL_alert_desc_string_long(Int32(description)) else { return "unknown" }
    return String(cString: text)
}
