// Certificate and key input: DER and PEM parsing through OpenSSL, behind Courier's own types.
//
// A `Certificate` is its DER bytes (identity, equality, hashing) plus a parsed X509 kept by its one
// owner, so a certificate is parsed once however often it is used. PEM is read with OpenSSL's PEM
// reader from a read-only memory BIO; private keys are read with a pass-phrase callback that always
// refuses, so an encrypted key is an `invalidKey` error and never a prompt on the terminal.

internal import CCourierOpenSSL

/// An X.509 certificate.
///
/// Two certificates are equal when their DER encodings are equal.
public struct Certificate: Sendable, Hashable, CustomStringConvertible {
    /// The DER encoding.
    public let derBytes: [UInt8]
    let owner: X509Owner

    /// Parses a DER-encoded certificate.
    /// - Parameter derBytes: exactly one DER certificate, nothing after it.
    /// - Throws: `TLSError` `.invalidCertificate` when the bytes are not a certificate.
    public init(derBytes: [UInt8]) throws(TLSError) {
        guard let owner = X509Owner.parse(der: derBytes) else {
            throw TLSError(code: .invalidCertificate, message: "not a DER certificate")
        }
        self.init(owner: owner, der: derBytes)
    }

    init(owner: X509Owner, der: [UInt8]? = nil) {
        self.owner = owner
        self.derBytes = der ?? owner.der
    }

    /// Reads every certificate of a PEM text, in order.
    /// - Parameter pemBytes: one or more `-----BEGIN CERTIFICATE-----` blocks; text around them is ignored.
    /// - Returns: the certificates, at least one.
    /// - Throws: `TLSError` `.invalidCertificate` when there is none or a block does not parse.
    public static func certificates(fromPEM pemBytes: [UInt8]) throws(TLSError) -> [Certificate] {
        guard let reader = PEMReader(pemBytes) else {
            throw OpenSSLErrorQueue.error(.internalError, "cannot create a memory BIO")
        }
        var certificates: [Certificate] = []
        while true {
            OpenSSLErrorQueue.clear()
            guard let x509 = PEM_read_bio_X509(reader.bio, nil, nil, nil) else {
                // The reader stops with "no start line" at the end of the input; anything else is a
                // block that did not parse.
                let entries = OpenSSLErrorQueue.drain()
                let atEnd = entries.allSatisfy { $0.library == ERR_LIB_PEM && $0.reason == PEM_R_NO_START_LINE }
                if atEnd && !certificates.isEmpty { return certificates }
                throw TLSError(
                    code: .invalidCertificate,
                    message: certificates.isEmpty ? "no PEM certificate found" : "PEM certificate \(certificates.count + 1) does not parse",
                    openSSLErrors: entries.map(\.text))
            }
            certificates.append(Certificate(owner: X509Owner(taking: x509)))
        }
    }

    /// Reads certificates given either as PEM text or as one DER certificate (AFNetworking's pinned
    /// certificates are DER `.cer` files; curl's are PEM).
    /// - Parameter bytes: PEM text or DER bytes.
    /// - Returns: the certificates.
    /// - Throws: `TLSError` `.invalidCertificate` when neither form parses.
    public static func certificates(fromPEMOrDER bytes: [UInt8]) throws(TLSError) -> [Certificate] {
        // DER starts with a SEQUENCE tag; PEM is text.
        if bytes.first == 0x30 { return [try Certificate(derBytes: bytes)] }
        return try certificates(fromPEM: bytes)
    }

    /// The DER SubjectPublicKeyInfo of the certificate's public key (what SPKI pins hash).
    public var subjectPublicKeyInfo: [UInt8] { owner.subjectPublicKeyInfo }

    /// The SHA-256 digest of ``subjectPublicKeyInfo`` (the value of a `sha256//` pin).
    public var publicKeySHA256: [UInt8] { SHA256.digest(subjectPublicKeyInfo) }

    /// The subject name in OpenSSL's one-line form, for messages (`/O=Courier/CN=…`).
    public var subjectName: String { X509Name.oneLine(X509_get_subject_name(owner.pointer)) }

    /// The issuer name in OpenSSL's one-line form, for messages.
    public var issuerName: String { X509Name.oneLine(X509_get_issuer_name(owner.pointer)) }

    /// The subject name.
    public var description: String { "Certificate(\(subjectName))" }

    /// Equal when the DER encodings are equal byte for byte (two parses of one certificate).
    /// - Parameters:
    ///   - lhs: a certificate.
    ///   - rhs: another.
    /// - Returns: whether they are the same certificate.
    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derBytes == rhs.derBytes }
    /// Hashes the DER encoding, as `==` compares it.
    /// - Parameter hasher: the hasher.
    public func hash(into hasher: inout Hasher) { hasher.combine(derBytes) }
}

// MARK: - Private keys

/// Parses a PEM (or DER) private key. Encrypted keys are refused, never prompted for.
func parsePrivateKey(_ bytes: [UInt8]) throws(TLSError) -> PrivateKeyOwner {
    if bytes.first == 0x30 {
        OpenSSLErrorQueue.clear()
        let key: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw OpenSSLErrorQueue.error(.invalidKey, "not a DER private key") }
        return PrivateKeyOwner(taking: key)
    }
    guard let reader = PEMReader(bytes) else {
        throw OpenSSLErrorQueue.error(.internalError, "cannot create a memory BIO")
    }
    OpenSSLErrorQueue.clear()
    // A pass-phrase callback that supplies nothing: OpenSSL's default would prompt on the terminal.
    let key = PEM_read_bio_PrivateKey(reader.bio, nil, { _, _, _, _ in -1 }, nil)
    guard let key else {
        throw OpenSSLErrorQueue.error(.invalidKey, "no unencrypted PEM private key found")
    }
    OpenSSLErrorQueue.clear()
    return PrivateKeyOwner(taking: key)
}

/// Decrypts a PEM private key with `passphrase` (an unencrypted one is read as it is) and returns
/// it as unencrypted DER (PKCS#8 or the key type's own form, i2d_PrivateKey).
func decryptPrivateKey(_ bytes: [UInt8], passphrase: String) throws(TLSError) -> [UInt8] {
    guard let reader = PEMReader(bytes) else {
        throw OpenSSLErrorQueue.error(.internalError, "cannot create a memory BIO")
    }
    OpenSSLErrorQueue.clear()
    var secret = Array(passphrase.utf8)
    defer { for i in secret.indices { secret[i] = 0 } }
    let key: OpaquePointer? = secret.withUnsafeMutableBufferPointer { buffer in
        // The callback copies the pass phrase into OpenSSL's buffer; `u` carries it (a C function
        // pointer captures nothing).
        var source = (buffer.baseAddress, buffer.count)
        return withUnsafeMutablePointer(to: &source) { pointer in
            PEM_read_bio_PrivateKey(reader.bio, nil, { output, size, _, context in
                guard let output, let context else { return -1 }
                let (base, count) = context.assumingMemoryBound(to: (UnsafeMutablePointer<UInt8>?, Int).self).pointee
                guard count <= Int(size) else { return -1 }
                if let base, count > 0 { UnsafeMutableRawPointer(output).copyMemory(from: base, byteCount: count) }
                return Int32(count)
            }, pointer)
        }
    }
    guard let key else { throw OpenSSLErrorQueue.error(.invalidKey, "no PEM private key found, or a wrong pass phrase") }
    let owner = PrivateKeyOwner(taking: key)
    OpenSSLErrorQueue.clear()
    var der: UnsafeMutablePointer<UInt8>?
    let length = i2d_PrivateKey(owner.pointer, &der)
    guard length > 0, let der else { throw OpenSSLErrorQueue.error(.invalidKey, "cannot encode the private key") }
    defer { courier_OPENSSL_clear_free(der, Int(length)) }
    return Array(UnsafeBufferPointer(start: der, count: Int(length)))
}

/// Parses a PEM or DER public key (SubjectPublicKeyInfo) and returns its DER form.
func parsePublicKeyInfo(_ bytes: [UInt8]) throws(TLSError) -> [UInt8] {
    OpenSSLErrorQueue.clear()
    let key: OpaquePointer?
    if bytes.first == 0x30 {
        key = bytes.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let parsed = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let parsed, cursor != buffer.baseAddress! + buffer.count { EVP_PKEY_free(parsed); return nil }
            return parsed
        }
    } else {
        guard let reader = PEMReader(bytes) else {
            throw OpenSSLErrorQueue.error(.internalError, "cannot create a memory BIO")
        }
        key = PEM_read_bio_PUBKEY(reader.bio, nil, nil, nil)
    }
    guard let key else { throw OpenSSLErrorQueue.error(.invalidKey, "not a PEM or DER public key") }
    let owner = PrivateKeyOwner(taking: key)
    let length = i2d_PUBKEY(owner.pointer, nil)
    guard length > 0 else { throw OpenSSLErrorQueue.error(.invalidKey, "cannot encode the public key") }
    OpenSSLErrorQueue.clear()
    return [UInt8](unsafeUninitializedCapacity: Int(length)) { buffer, count in
        var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
        count = Int(i2d_PUBKEY(owner.pointer, &cursor))
    }
}

// MARK: - Helpers

/// A read-only memory BIO over a private copy of some bytes; the one owner of both.
final class PEMReader {
    let bio: OpaquePointer
    private let bytes: UnsafeMutableRawBufferPointer

    init?(_ source: [UInt8]) {
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(source.count, 1), alignment: 1)
        source.withUnsafeBytes { copy.copyMemory(from: $0) }
        // SAFETY: the BIO reads `source.count` bytes from `copy`, which lives until deinit frees the
        // BIO first and the bytes after it.
        guard source.count <= Int(Int32.max), let bio = BIO_new_mem_buf(copy.baseAddress, Int32(source.count)) else {
            copy.deallocate()
            return nil
        }
        self.bytes = copy
        self.bio = bio
        countObjectCreated()
    }

    deinit {
        BIO_free(bio)
        bytes.deallocate()
        countObjectFreed()
    }
}

enum X509Name {
    static func oneLine(_ name: OpaquePointer?) -> String {
        guard let name else { return "" }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer in
            guard let text = X509_NAME_oneline(name, buffer.baseAddress, Int32(buffer.count)) else { return "" }
            return String(cString: text)
        }
    }
}

enum SHA256 {
    /// The SHA-256 digest of `bytes` (FIPS 180-4), through OpenSSL's EVP interface.
    static func digest(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, EVP_sha256(), nil)
            }
        }
        precondition(ok == 1 && length == 32, "EVP_Digest(SHA-256) failed")
        return digest
    }
}
