// TLSError: the one error type CourierTLS throws (design §6).
//
// A struct with a stable `code` from a closed set of static constants, plus context: the OpenSSL
// error queue drained at the failing call, the X.509 verification result, the TLS alert received.
// Message text is not API; codes are. The certificate failures a person has to act on differently
// (expired, not yet valid, wrong host, untrusted issuer, protocol version) each have a code of
// their own, so the client can map them to curl's exit codes (35, 60, 90, 56) without string work.

import CourierBytes

/// An error from the TLS engine, its configuration, or trust evaluation.
///
/// Compare ``code`` against the static constants of ``TLSError/Code``; everything else is context
/// for people and logs.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable identity of a TLS failure.
    public struct Code: ClosedErrorCode {
        /// The code's stable name.
        public let rawValue: String

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .handshakeFailed, .protocolVersion, .alertReceived, .clientCertificateRequired, .protocolError,
            .closedWithoutCloseNotify, .unexpectedEOF, .certificateExpired, .certificateNotYetValid,
            .hostnameMismatch, .untrustedIssuer, .certificateRejected, .pinningFailed, .insecurePolicy,
            .invalidCertificate, .invalidKey, .invalidPin, .invalidConfiguration, .internalError
        ]

        // Handshake and protocol.

        /// The handshake failed for a reason without a more specific code (bad records, no shared
        /// cipher, an unparsable peer message, …). `openSSLErrors` says more.
        public static let handshakeFailed = Code("handshakeFailed")
        /// No TLS version both sides accept (a peer below the configured minimum, or the peer's
        /// `protocol_version` alert).
        public static let protocolVersion = Code("protocolVersion")
        /// The peer sent a fatal alert; `alert` names it.
        public static let alertReceived = Code("alertReceived")
        /// The server requires a client certificate and none (or none it accepts) was sent; on the
        /// server side, the client sent none.
        public static let clientCertificateRequired = Code("clientCertificateRequired")
        /// A record after the handshake could not be processed (bad MAC, garbage, unexpected message).
        public static let protocolError = Code("protocolError")

        // Closing.

        /// The transport closed after the handshake without the peer's close_notify: data may have
        /// been cut off (a truncation attack or a careless server). The client maps it to curl 56.
        public static let closedWithoutCloseNotify = Code("closedWithoutCloseNotify")
        /// The transport closed before the handshake finished.
        public static let unexpectedEOF = Code("unexpectedEOF")

        // Certificate verification (X.509 verification result, or trust evaluation afterwards).

        /// A certificate in the chain is past its notAfter date.
        public static let certificateExpired = Code("certificateExpired")
        /// A certificate in the chain is before its notBefore date.
        public static let certificateNotYetValid = Code("certificateNotYetValid")
        /// The leaf's subjectAltName does not match the host name or IP address (the common name is
        /// never consulted, RFC 6125 §6.4.4).
        public static let hostnameMismatch = Code("hostnameMismatch")
        /// The chain does not lead to a trusted root: self-signed, unknown issuer, untrusted root.
        public static let untrustedIssuer = Code("untrustedIssuer")
        /// The chain failed verification for another reason (bad signature, wrong purpose, revoked,
        /// path length, …); `verifyResult` says which.
        public static let certificateRejected = Code("certificateRejected")

        // Security policy.

        /// The chain verified, but no pinned certificate or public key matched.
        public static let pinningFailed = Code("pinningFailed")
        /// The security policy cannot be evaluated as configured: it allows invalid certificates and
        /// validates the domain name without pinning anything (AFNetworking's rule: a host name
        /// check means nothing on a certificate nobody vouches for).
        public static let insecurePolicy = Code("insecurePolicy")

        // Configuration input.

        /// A certificate could not be parsed (PEM or DER).
        public static let invalidCertificate = Code("invalidCertificate")
        /// A private or public key could not be parsed, or does not belong to the certificate.
        public static let invalidKey = Code("invalidKey")
        /// A pin string is malformed (not `sha256//` followed by 32 bytes of Base64).
        public static let invalidPin = Code("invalidPin")
        /// A configuration value OpenSSL refused (ALPN list, CA file, host name).
        public static let invalidConfiguration = Code("invalidConfiguration")
        /// OpenSSL failed in a way that is not the peer's doing (allocation failure, internal error).
        public static let internalError = Code("internalError")
    }

    /// An X.509 verification result (OpenSSL's `X509_V_ERR_*`).
    public struct VerifyResult: Sendable, Hashable, CustomStringConvertible {
        /// The numeric `X509_V_ERR_*` value (0 is success).
        public let code: Int32
        /// OpenSSL's description of `code`.
        public let reason: String
        /// The depth in the chain where it was found (0 is the leaf), when known.
        public let depth: Int32?

        /// Creates a verification result.
        /// - Parameters:
        ///   - code: the `X509_V_ERR_*` value.
        ///   - reason: its description.
        ///   - depth: the chain depth, when known.
        public init(code: Int32, reason: String, depth: Int32? = nil) {
            self.code = code
            self.reason = reason
            self.depth = depth
        }

        /// `"X509_V_ERR 10: certificate has expired"`.
        public var description: String { "X509 verify error \(code): \(reason)" }
    }

    /// A TLS alert (RFC 8446 §6, RFC 5246 §7.2).
    public struct Alert: Sendable, Hashable, CustomStringConvertible {
        /// The AlertDescription value, e.g. 40 handshake_failure, 116 certificate_required.
        public let alertDescription: UInt8
        /// OpenSSL's name for it.
        public let name: String

        /// Creates an alert value.
        /// - Parameters:
        ///   - alertDescription: the AlertDescription number.
        ///   - name: a readable name.
        public init(alertDescription: UInt8, name: String) {
            self.alertDescription = alertDescription
            self.name = name
        }

        /// `handshake failure (40)`.
        public var description: String { "\(name) (\(alertDescription))" }
    }

    /// What went wrong, stable across releases.
    public var code: Code
    /// A human-readable explanation; not API.
    public var message: String
    /// The OpenSSL error queue drained at the failing call, oldest first, as OpenSSL formats them.
    public var openSSLErrors: [String]
    /// The X.509 verification result, for certificate failures.
    public var verifyResult: VerifyResult?
    /// The fatal alert the peer sent, when one caused the failure.
    public var alert: Alert?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the stable code.
    ///   - message: an explanation for people.
    ///   - openSSLErrors: the drained OpenSSL error queue.
    ///   - verifyResult: the X.509 verification result, if any.
    ///   - alert: the alert received, if any.
    public init(
        code: Code, message: String, openSSLErrors: [String] = [],
        verifyResult: VerifyResult? = nil, alert: Alert? = nil
    ) {
        self.code = code
        self.message = message
        self.openSSLErrors = openSSLErrors
        self.verifyResult = verifyResult
        self.alert = alert
    }

    /// Whether the failure is about the peer's certificate (chain, validity, host name) rather than
    /// the protocol: the client reports these as curl's 60.
    public var isCertificateVerificationFailure: Bool {
        switch code {
        case .certificateExpired, .certificateNotYetValid, .hostnameMismatch, .untrustedIssuer,
             .certificateRejected, .insecurePolicy:
            return true
        default:
            return false
        }
    }

    /// One line: code, message, then the verify result, alert and OpenSSL errors when present.
    public var description: String {
        var text = "TLSError.\(code.rawValue): \(message)"
        if let verifyResult { text += " [\(verifyResult)]" }
        if let alert { text += " [alert \(alert)]" }
        if !openSSLErrors.isEmpty { text += " [" + openSSLErrors.joined(separator: "; ") + "]" }
        return text
    }
}
