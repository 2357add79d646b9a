// MessageDigest and SecureRandom: the hash functions HTTP Digest authentication names (RFC 7616
// §3.2: MD5, SHA-256, SHA-512/256) and a CSPRNG for its client nonce, both from the system
// OpenSSL (EVP_Digest, RAND_bytes) — no hash is written by hand here.
//
// MD5 is broken for collision resistance and is offered only because RFC 7616 keeps it for
// backward compatibility; it is fetched from OpenSSL's default provider, which still has it.

internal import CCourierOpenSSL

/// A hash function for HTTP Digest authentication.
public enum MessageDigest: String, Sendable, Hashable, CaseIterable {
    /// MD5 (RFC 1321), 16 bytes.
    case md5 = "MD5"
    /// SHA-256 (FIPS 180-4), 32 bytes.
    case sha256 = "SHA-256"
    /// SHA-512/256 (FIPS 180-4 §5.3.6.2: SHA-512 with its own initial values, cut to 32 bytes).
    case sha512_256 = "SHA-512-256"

    /// The length of a digest, in bytes.
    public var length: Int { self == .md5 ? 16 : 32 }

    /// The digest of `bytes`.
    /// - Parameter bytes: the input.
    /// - Returns: `length` bytes.
    public func hash(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var written: UInt32 = 0
        let algorithm: OpaquePointer? = switch self {
        case .md5: EVP_md5()
        case .sha256: EVP_sha256()
        case .sha512_256: EVP_sha512_256()
        }
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &written, algorithm, nil)
            }
        }
        // Only an OpenSSL built without the algorithm fails here; nothing a caller can recover.
        precondition(ok == 1 && Int(written) == length, "EVP_Digest(\(rawValue)) failed")
        return Array(digest[..<length])
    }

    /// The digest of `bytes` as lower-case hex, as RFC 7616 writes every hash.
    public func hexHash(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(length * 2)
        for byte in hash(bytes) {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

/// Random bytes from OpenSSL's CSPRNG (RAND_bytes, seeded from the kernel).
public enum SecureRandom {
    /// `count` unpredictable bytes.
    /// - Parameter count: how many.
    /// - Returns: the bytes.
    public static func bytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let ok = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        // RAND_bytes fails only when the generator cannot be seeded: never hand out a guessable nonce.
        precondition(ok == 1, "RAND_bytes failed: OpenSSL's random generator is not seeded")
        return bytes
    }
}
