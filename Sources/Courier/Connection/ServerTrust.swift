// ServerTrust: AFNetworking's authentication challenges, reduced to what HTTP/1.1 over OpenSSL has:
// the server-trust challenge after each TLS handshake and the HTTP 401 challenge. The dispositions
// are AFNetworking's (NSURLSessionAuthChallengeDisposition): use a credential, default handling,
// cancel, reject the protection space.

import CourierBytes
import CourierTLS

/// A user name and password for HTTP Basic (RFC 7617) or Digest (RFC 7616) authentication.
public struct Credential: Sendable, Hashable {
    /// The user name (must not contain ":", RFC 7617 §2).
    public var user: String
    /// The password.
    public var password: String

    /// Creates a credential.
    /// - Parameters:
    ///   - user: the user name.
    ///   - password: the password.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` field value: `Basic base64(user:password)` (UTF-8, RFC 7617 §2.1).
    public var basicAuthorization: String {
        "Basic " + Base64.encode(Array((user + ":" + password).utf8))
    }
}

/// What a challenge handler decides (AFNetworking's `NSURLSessionAuthChallengeDisposition`).
public enum ChallengeDisposition: Sendable, Hashable {
    /// Fail the task with this error (kept as the task error's `underlying`). Server trust: the
    /// connection is refused before any request is sent. HTTP 401: the response is not delivered.
    case fail(any Error)
    /// Server trust: trust this server whatever the default evaluation would say. HTTP 401: retry
    /// once with this credential, in the strongest scheme the server offers that
    /// `SessionConfiguration.authenticationSchemes` allows (Digest, then Basic; a Digest
    /// stale=true is answered once more without asking); nil: treated as default handling.
    case useCredential(Credential?)
    /// Server trust: evaluate the security policy (or the handshake's verification). HTTP 401:
    /// deliver the 401 response as it is.
    case performDefaultHandling
    /// Fail the task as cancelled (-999).
    case cancelAuthenticationChallenge
    /// Server trust: fail as an untrusted server. HTTP 401: deliver the 401 response as it is.
    case rejectProtectionSpace

    /// Equal when both are the same case with equal credentials; two `.fail` are equal when their
    /// errors are of the same type and describe themselves the same way (`any Error` has no `==`).
    public static func == (a: ChallengeDisposition, b: ChallengeDisposition) -> Bool {
        switch (a, b) {
        case (.useCredential(let x), .useCredential(let y)): return x == y
        case (.performDefaultHandling, .performDefaultHandling), (.cancelAuthenticationChallenge, .cancelAuthenticationChallenge),
             (.rejectProtectionSpace, .rejectProtectionSpace):
            return true
        case (.fail(let x), .fail(let y)): return Self.identity(x) == Self.identity(y)
        default: return false
        }
    }

    /// Hashes what `==` compares.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .useCredential(let credential): hasher.combine(0); hasher.combine(credential)
        case .performDefaultHandling: hasher.combine(1)
        case .cancelAuthenticationChallenge: hasher.combine(2)
        case .rejectProtectionSpace: hasher.combine(3)
        case .fail(let error): hasher.combine(4); hasher.combine(Self.identity(error))
        }
    }

    private static func identity(_ error: any Error) -> String { "\(type(of: error)):\(error)" }
}

/// The server-trust challenge asked after a TLS handshake, before any request is sent.
public struct ServerTrustChallenge: Sendable {
    /// The host name the connection was made to.
    public var host: String
    /// The port.
    public var port: UInt16
    /// The certificates the server presented, leaf first.
    public var peerCertificates: [Certificate]
    /// OpenSSL's verification of the chain against the trust roots (recorded even when the
    /// handshake did not enforce it).
    public var verifyResult: TLSError.VerifyResult
}
