// TrustVerifier: X.509 checks run by CourierTLS itself, after the handshake, for SecurityPolicy.
//
// - Host name and IP address matching against subjectAltName only (X509_check_host with
//   NEVER_CHECK_SUBJECT, X509_check_ip_asc): RFC 6125 §6.4.4, the common name is never used.
// - Chain verification with a chosen set of anchors (AFNetworking's SecTrustSetAnchorCertificates):
//   the pinned certificates become the only trust anchors, with X509_V_FLAG_PARTIAL_CHAIN so that a
//   pinned leaf or intermediate anchors the chain as it does on Apple platforms. The purpose is
//   "TLS server" and the current time is used, as in the handshake.

internal import CCourierOpenSSL

enum TrustVerifier {
    static let ok: Int32 = X509_V_OK
    static let hostnameMismatch: Int32 = X509_V_ERR_HOSTNAME_MISMATCH
    static let ipAddressMismatch: Int32 = X509_V_ERR_IP_ADDRESS_MISMATCH

    struct Verification {
        /// X509_V_OK or the first error.
        var code: Int32
        /// The chain depth of the error.
        var depth: Int32?
        /// The chain built, leaf to anchor (possibly partial when verification failed).
        var chain: [X509Owner]
    }

    /// Whether the certificate's subjectAltName names `host` (a DNS name or an IP literal).
    static func certificate(_ certificate: X509Owner, matches host: String, isIPAddress: Bool) -> Bool {
        OpenSSLErrorQueue.clear()
        let result = isIPAddress
            ? X509_check_ip_asc(certificate.pointer, host, 0)
            : X509_check_host(certificate.pointer, host, host.utf8.count, hostCheckFlags, nil)
        OpenSSLErrorQueue.clear()
        return result == 1
    }

    /// Verifies `leaf` with exactly `anchors` as trust anchors.
    static func verify(
        leaf: X509Owner, untrusted: [X509Owner], anchors: [X509Owner], host: (String, Bool)?
    ) -> Verification {
        guard let store = TrustStoreOwner() else { return Verification(code: X509_V_ERR_OUT_OF_MEM, chain: []) }
        for anchor in anchors where !store.add(anchor) {
            return Verification(code: X509_V_ERR_OUT_OF_MEM, chain: [])
        }
        return verify(leaf: leaf, untrusted: untrusted, store: store.pointer, partialChain: true, host: host)
    }

    /// Verifies `leaf` against a store (borrowed for the call).
    static func verify(
        leaf: X509Owner, untrusted: [X509Owner], store: OpaquePointer, partialChain: Bool, host: (String, Bool)?
    ) -> Verification {
        guard let context = StoreContextOwner(), let stack = CertificateStackOwner(untrusted) else {
            return Verification(code: X509_V_ERR_OUT_OF_MEM, chain: [])
        }
        // SAFETY: the X509_STORE_CTX borrows the stack (and the leaf) until it is freed, so both
        // must outlive the context, whatever Swift's last-use analysis would allow.
        return withExtendedLifetime((stack, leaf)) {
            run(context, leaf: leaf, stack: stack, store: store, partialChain: partialChain, host: host)
        }
    }

    private static func run(
        _ context: StoreContextOwner, leaf: X509Owner, stack: CertificateStackOwner, store: OpaquePointer,
        partialChain: Bool, host: (String, Bool)?
    ) -> Verification {
        OpenSSLErrorQueue.clear()
        defer { OpenSSLErrorQueue.clear() }
        guard X509_STORE_CTX_init(context.pointer, store, leaf.pointer, stack.pointer) == 1 else {
            return Verification(code: X509_V_ERR_UNSPECIFIED, chain: [])
        }
        // The "ssl_server" defaults: TLS server purpose and trust settings, as in the handshake.
        _ = X509_STORE_CTX_set_default(context.pointer, "ssl_server")
        if partialChain { X509_STORE_CTX_set_flags(context.pointer, UInt(X509_V_FLAG_PARTIAL_CHAIN)) }
        if let (name, isIP) = host {
            let parameters = X509_STORE_CTX_get0_param(context.pointer)
            X509_VERIFY_PARAM_set_hostflags(parameters, hostCheckFlags)
            let accepted = isIP ? X509_VERIFY_PARAM_set1_ip_asc(parameters, name) : X509_VERIFY_PARAM_set1_host(parameters, name, 0)
            if accepted != 1 { return Verification(code: isIP ? ipAddressMismatch : hostnameMismatch, chain: []) }
        }
        let verified = X509_verify_cert(context.pointer) == 1
        let chain = certificateOwners(of: X509_STORE_CTX_get0_chain(context.pointer))
        if verified { return Verification(code: ok, depth: nil, chain: chain) }
        let code = X509_STORE_CTX_get_error(context.pointer)
        return Verification(
            code: code == ok ? X509_V_ERR_UNSPECIFIED : code,
            depth: X509_STORE_CTX_get_error_depth(context.pointer), chain: chain)
    }
}

/// Owns an `X509_STORE_CTX` for one verification.
final class StoreContextOwner {
    let pointer: OpaquePointer

    init?() {
        guard let context = X509_STORE_CTX_new() else { return nil }
        pointer = context
        countObjectCreated()
    }

    deinit {
        X509_STORE_CTX_free(pointer)
        countObjectFreed()
    }
}
