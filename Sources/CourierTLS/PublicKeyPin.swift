// Public-key pins in curl's --pinnedpubkey forms: `sha256//BASE64` digests of a SubjectPublicKeyInfo
// (several separated by `;`), or a PEM/DER public-key file. Either way the pin is compared with the
// LEAF certificate's key only (curl semantics; the leaf's key is the one the handshake proves).

import CourierBytes

/// A pinned public key: the SHA-256 of a DER SubjectPublicKeyInfo, or the SPKI itself.
public struct PublicKeyPin: Sendable, Hashable, CustomStringConvertible {
    private enum Form: Sendable, Hashable {
        case digest([UInt8])
        case subjectPublicKeyInfo([UInt8])
    }

    private let form: Form

    /// Pins a SHA-256 digest of a DER SubjectPublicKeyInfo.
    /// - Parameter sha256Digest: exactly 32 bytes.
    /// - Throws: `TLSError` `.invalidPin` for another length.
    public init(sha256Digest: [UInt8]) throws(TLSError) {
        guard sha256Digest.count == 32 else {
            throw TLSError(code: .invalidPin, message: "a SHA-256 pin is 32 bytes, got \(sha256Digest.count)")
        }
        form = .digest(sha256Digest)
    }

    /// Pins a public key given as a PEM (`-----BEGIN PUBLIC KEY-----`) or DER SubjectPublicKeyInfo,
    /// as in a curl `--pinnedpubkey FILE`.
    /// - Parameter publicKey: the file's bytes.
    /// - Throws: `TLSError` `.invalidKey` when the bytes are not a public key.
    public init(publicKey: [UInt8]) throws(TLSError) {
        form = .subjectPublicKeyInfo(try parsePublicKeyInfo(publicKey))
    }

    /// Pins the public key of a certificate.
    /// - Parameter certificate: the certificate whose key to pin.
    public init(certificate: Certificate) {
        form = .subjectPublicKeyInfo(certificate.subjectPublicKeyInfo)
    }

    /// Parses curl's hash form: `sha256//BASE64[;sha256//BASE64…]`.
    /// - Parameter text: the pin list.
    /// - Returns: the pins, at least one.
    /// - Throws: `TLSError` `.invalidPin` when an entry lacks the `sha256//` prefix or is not the
    ///   Base64 of 32 bytes.
    public static func parseHashes(_ text: String) throws(TLSError) -> [PublicKeyPin] {
        let prefix = "sha256//"
        var pins: [PublicKeyPin] = []
        for entry in text.split(separator: ";", omittingEmptySubsequences: false) {
            guard entry.hasPrefix(prefix) else {
                throw TLSError(code: .invalidPin, message: "a public-key pin must start with \(prefix)")
            }
            guard let digest = Base64.decode(entry.dropFirst(prefix.count)) else {
                throw TLSError(code: .invalidPin, message: "the public-key pin is not valid Base64")
            }
            pins.append(try PublicKeyPin(sha256Digest: digest))
        }
        return pins
    }

    /// The SHA-256 digest this pin matches.
    public var sha256Digest: [UInt8] {
        switch form {
        case .digest(let digest): return digest
        case .subjectPublicKeyInfo(let info): return SHA256.digest(info)
        }
    }

    /// `sha256//BASE64`, the form curl prints and accepts.
    public var description: String { "sha256//" + Base64.encode(sha256Digest) }

    /// The pin as it is encoded (Codable): `sha256//BASE64` for a digest, the key's PEM
    /// `PUBLIC KEY` block for a key, so that decoding gives back the same pin.
    var encodedText: String {
        switch form {
        case .digest: return description
        case .subjectPublicKeyInfo(let info): return pemBlock(label: "PUBLIC KEY", info)
        }
    }

    /// Whether a DER SubjectPublicKeyInfo is the pinned key.
    func matches(subjectPublicKeyInfo info: [UInt8]) -> Bool {
        switch form {
        case .digest(let digest): return SHA256.digest(info) == digest
        case .subjectPublicKeyInfo(let pinned): return pinned == info
        }
    }
}
