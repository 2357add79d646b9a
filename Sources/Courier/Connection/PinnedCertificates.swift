// PinnedCertificates: AFSecurityPolicy's `certificatesInBundle:` on Linux — every certificate
// file of a directory, read on the file thread (never on the cooperative pool), for a pinning
// `SecurityPolicy`.

import CourierBytes
import CourierPosix
import CourierTLS

/// Why the certificates of a directory could not be loaded.
public struct PinnedCertificatesError: Error, Sendable, CustomStringConvertible {
    /// The directory or file that failed.
    public var path: String
    /// The errno of a failed read, when the failure was one.
    public var errno: Errno?
    /// The parser's error, for a file that holds no certificate it can read.
    public var tlsError: TLSError?

    /// "cannot read /etc/pins/a.pem: EACCES", "/etc/pins/b.der is not a certificate: ...".
    public var description: String {
        if let tlsError { return "\(path) is not a certificate: \(tlsError)" }
        return "cannot read \(path): \(errno.map { "\($0)" } ?? "unknown error")"
    }
}

extension SecurityPolicy {
    /// The file name endings read as certificates, compared case-insensitively.
    public static let certificateFileExtensions = ["cer", "crt", "der", "pem"]

    /// The largest certificate file read (a certificate bundle is well under this).
    static let certificateFileLimit = 1 << 20

    /// Every certificate in the files of `directory` whose names end in .cer, .crt, .der or .pem
    /// (any case): PEM (every certificate of a bundle) or DER, in name order; other files and
    /// subdirectories are left alone. The Linux form of AFNetworking's
    /// `certificatesInBundle:` / `defaultPinnedCertificates`.
    ///
    /// ```swift
    /// let pins = try await SecurityPolicy.certificates(inDirectory: "/etc/myservice/pins")
    /// configuration.securityPolicy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: pins)
    /// ```
    /// - Parameter directory: the directory.
    /// - Returns: the certificates (duplicates are removed by `SecurityPolicy` itself).
    /// - Throws: `PinnedCertificatesError`: the directory or a file cannot be read, or a file with
    ///   one of the endings holds no certificate (a pin that silently vanished would fail open).
    public static func certificates(inDirectory directory: String) async throws(PinnedCertificatesError) -> [Certificate] {
        enum Outcome: Sendable {
            case files([(String, ByteBuffer)])
            case failed(String, Errno)
        }
        let outcome = await BlockingIOThread.shared.run { () -> Outcome in
            let names: [String]
            do throws(Errno) { names = try File.entries(inDirectory: directory) } catch { return .failed(directory, error) }
            var files: [(String, ByteBuffer)] = []
            for name in names {
                guard let dot = name.lastIndex(of: "."),
                      certificateFileExtensions.contains(String(name[name.index(after: dot)...]).lowercased()) else { continue }
                let path = directory.hasSuffix("/") ? directory + name : directory + "/" + name
                // Only regular files (following links): a directory named x.pem is not a file.
                guard (try? File.status(atPath: path))??.kind == .regular else { continue }
                do throws(Errno) { files.append((path, try File.contents(atPath: path, limit: certificateFileLimit))) } catch {
                    return .failed(path, error)
                }
            }
            return .files(files)
        }
        switch outcome {
        case .failed(let path, let error):
            throw PinnedCertificatesError(path: path, errno: error)
        case .files(let files):
            var certificates: [Certificate] = []
            for (path, bytes) in files {
                do throws(TLSError) { certificates += try Certificate.certificates(fromPEMOrDER: bytes.readableBytesArray) } catch {
                    throw PinnedCertificatesError(path: path, tlsError: error)
                }
            }
            return certificates
        }
    }
}
