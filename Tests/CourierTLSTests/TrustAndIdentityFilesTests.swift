// What curl's --capath, --key and --pass map to: trust roots from an OpenSSL hashed directory
// (HASH.0 files, looked up lazily during verification) and a client identity whose private key is
// encrypted (Certificates/client-encrypted.key, pass phrase "s3cret", made by generate.sh with
// `openssl pkey -aes-256-cbc`).

import CourierBytes
@testable import CourierTLS
import Glibc
import Testing

extension TLS {
    @Suite("Trust directories and encrypted client keys")
    struct TrustAndIdentityFiles {
        static let certificates: String = {
            var path = #filePath
            while let last = path.last, last != "/" { path.removeLast() }
            return path + "Certificates"
        }()

        static func read(_ path: String) -> [UInt8] {
            guard let file = fopen(path, "rb") else { return [] }
            defer { fclose(file) }
            var out: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = fread(&chunk, 1, chunk.count, file)
                if n <= 0 { break }
                out += chunk[..<n]
            }
            return out
        }

        static func write(_ bytes: [UInt8], to path: String) {
            let file = fopen(path, "wb")!
            _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
            fclose(file)
        }

        /// A fresh temporary directory, removed (with its files) by the returned closure.
        static func temporaryDirectory() -> (String, () -> Void) {
            var template = Array("/tmp/courier-capath-XXXXXX".utf8CString)
            let path = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
            return (path, {
                if let dir = opendir(path) {
                    while let entry = readdir(dir) {
                        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
                        if name != "." && name != ".." { unlink(path + "/" + name) }
                    }
                    closedir(dir)
                }
                rmdir(path)
            })
        }

        static func client(trust roots: TrustRoots) -> TLSConfiguration {
            var configuration = Fixtures.clientConfiguration()
            configuration.trustRoots = roots
            return configuration
        }

        @Test("a hashed directory holding the CA as c280266b.0 (openssl x509 -hash) verifies the server")
        func hashedDirectory() throws {
            let (directory, remove) = Self.temporaryDirectory()
            defer { remove() }
            Self.write(Self.read(Self.certificates + "/ca.pem"), to: directory + "/c280266b.0")
            let pair = try TLSPair(client: Self.client(trust: .hashedDirectory(path: directory, pemFile: nil)),
                                   server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
        }

        @Test("an empty or missing directory holds no issuer: untrustedIssuer at the handshake, not an error before it")
        func noIssuer() throws {
            let (directory, remove) = Self.temporaryDirectory()
            defer { remove() }
            for path in [directory, directory + "/missing"] {
                let pair = try TLSPair(client: Self.client(trust: .hashedDirectory(path: path, pemFile: Self.certificates + "/other-ca.pem")),
                                       server: Fixtures.serverConfiguration())
                #expect(pair.handshake().clientError?.code == .untrustedIssuer)
            }
            // With the right PEM file beside the directory, the file's CA is enough.
            let pair = try TLSPair(client: Self.client(trust: .hashedDirectory(path: directory, pemFile: Self.certificates + "/ca.pem")),
                                   server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
        }

        @Test("an unreadable PEM file beside the directory is refused when the context is made")
        func unreadableFile() {
            #expect(throws: TLSError.self) {
                _ = try TLSClientContext(configuration: Self.client(trust: .hashedDirectory(path: "/tmp", pemFile: "/nonexistent/ca.pem")))
            }
        }

        @Test("an encrypted key with its pass phrase makes the identity; mutual TLS then succeeds")
        func encryptedKey() throws {
            let key = Self.read(Self.certificates + "/client-encrypted.key")
            #expect(key.starts(with: Array("-----BEGIN ENCRYPTED PRIVATE KEY-----".utf8)))
            let identity = try TLSIdentity(certificateChainPEM: Array(TestCertificates.clientCertificate.utf8), privateKeyPEM: key,
                                           passphrase: "s3cret")
            #expect(identity.certificateChain == [Fixtures.client])
            var client = Fixtures.clientConfiguration()
            client.clientIdentity = identity
            var server = Fixtures.serverConfiguration()
            server.clientAuthentication = .required(.certificates([Fixtures.ca]))
            let pair = try TLSPair(client: client, server: server)
            #expect(pair.handshake().succeeded)
            #expect(pair.server.peerCertificates.first == Fixtures.client)
        }

        @Test("a wrong or missing pass phrase is invalidKey; a pass phrase for a plain key is ignored")
        func passPhrases() throws {
            let encrypted = Self.read(Self.certificates + "/client-encrypted.key")
            let certificate = Array(TestCertificates.clientCertificate.utf8)
            let wrong = #expect(throws: TLSError.self) {
                _ = try TLSIdentity(certificateChainPEM: certificate, privateKeyPEM: encrypted, passphrase: "wrong")
            }
            #expect(wrong?.code == .invalidKey)
            let missing = #expect(throws: TLSError.self) {
                _ = try TLSIdentity(certificateChainPEM: certificate, privateKeyPEM: encrypted, passphrase: nil)
            }
            #expect(missing?.code == .invalidKey)
            let plain = try TLSIdentity(certificateChainPEM: certificate, privateKeyPEM: Array(TestCertificates.clientKey.utf8), passphrase: "unused")
            #expect(plain.certificateChain == [Fixtures.client])
            // The key of another certificate: refused even with the right pass phrase.
            #expect(throws: TLSError.self) {
                _ = try TLSIdentity(certificateChainPEM: Array(TestCertificates.serverCertificate.utf8), privateKeyPEM: encrypted, passphrase: "s3cret")
            }
        }
    }
}
