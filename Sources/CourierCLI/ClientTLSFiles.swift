// ClientTLSFiles: the TLS options that name files — --cacert, --capath, -E/--cert FILE[:PASS],
// --key, --key-type, --pass — turned into the session's TLSConfiguration, with curl's exit codes
// and messages (curl's lib/vtls/openssl.c):
//   --cacert unreadable             77 "error setting certificate file: FILE"
//   --capath refused by OpenSSL     77 "error setting certificate path: DIR" (a directory that
//                                      does not exist is not refused: it holds no issuer, and
//                                      verification fails with 60, as in curl)
//   -E unreadable or not PEM        58 "could not load PEM client certificate from FILE, …"
//   --key unreadable, wrong pass    58 "unable to set private key file: 'FILE' type PEM"
//   --key-type other than PEM       58 "not supported key type 'TYPE'"
// curl reads these files when it makes its first TLS connection; courier reads them before
// anything is sent, and only when the group has an https URL (an http-only run never needs
// them, and curl ignores them there too).

import CourierBytes
import Courier
import CourierTLS

enum ClientTLSFiles {
    /// Sets trust roots and the client identity on `tls` from the options.
    static func apply(_ options: TransferOptions, to tls: inout TLSConfiguration) throws(CLIError) {
        switch (options.caCertificate, options.caPath) {
        case (let file?, nil): tls.trustRoots = .pemFile(path: file)
        case (let file, let directory?): tls.trustRoots = .hashedDirectory(path: directory, pemFile: file)
        case (nil, nil): break
        }
        let usesTLS = options.urls.contains { ASCIICase.lowercased($0).hasPrefix("https://") }
            || (options.protoDefault.map { ASCIICase.lowercased($0) == "https" } ?? false)
        if usesTLS, tls.trustRoots != .system {
            var probe = TLSConfiguration()
            probe.trustRoots = tls.trustRoots
            probe.sessionCacheCapacity = 0
            do { _ = try TLSClientContext(configuration: probe) } catch {
                // The file is read first; a failure naming it is the file's.
                if let file = options.caCertificate, error.message.contains(file) || options.caPath == nil {
                    throw CLIError(77, "error setting certificate file: \(file)")
                }
                throw CLIError(77, "error setting certificate path: \(options.caPath ?? "")")
            }
        }
        guard let certificate = options.clientCertificate else { return }
        guard usesTLS else { return }
        let (certificatePath, certificatePass) = splitCertificateParameter(certificate)
        if let type = options.keyType, ASCIICase.lowercased(type) != "pem" {
            throw CLIError(58, "not supported key type '\(type)'")
        }
        let keyPath = options.privateKey ?? certificatePath
        let passphrase = options.passphrase ?? certificatePass
        let certificateBytes: [UInt8]
        do {
            certificateBytes = try readWholeFile(certificatePath).readableBytesArray
            _ = try Certificate.certificates(fromPEM: certificateBytes)
        } catch {
            throw CLIError(58, "could not load PEM client certificate from \(certificatePath), OpenSSL error \(describe(error)), "
                           + "(no key found, wrong pass phrase, or wrong file format?)")
        }
        do {
            let keyBytes = keyPath == certificatePath ? certificateBytes : try readWholeFile(keyPath).readableBytesArray
            tls.clientIdentity = try TLSIdentity(certificateChainPEM: certificateBytes, privateKeyPEM: keyBytes, passphrase: passphrase)
        } catch {
            throw CLIError(58, "unable to set private key file: '\(keyPath)' type PEM")
        }
    }

    /// curl's -E FILE[:PASS]: the first ":" not escaped as "\:" ends the file name; "\\" is a
    /// backslash; any other backslash stays as it is.
    static func splitCertificateParameter(_ text: String) -> (path: String, passphrase: String?) {
        var path = ""
        var characters = Substring(text)
        while let first = characters.first {
            characters = characters.dropFirst()
            switch first {
            case "\\":
                guard let next = characters.first else {
                    path.append("\\")
                    continue
                }
                characters = characters.dropFirst()
                if next == "\\" || next == ":" { path.append(next) } else { path.append("\\"); path.append(next) }
            case ":":
                return (path, characters.isEmpty ? nil : String(characters))
            default:
                path.append(first)
            }
        }
        return (path, nil)
    }

    private static func describe(_ error: any Error) -> String {
        if let error = error as? TLSError { return error.message }
        return "\(error)"
    }
}
