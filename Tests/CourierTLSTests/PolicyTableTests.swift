// SecurityPolicy's allow/deny table (issue 16), every row against a real TLS server: three
// `openssl s_server` processes on 127.0.0.1, one per leaf (self-signed, CA-signed, expired and
// CA-signed), with certificates the test makes with the openssl CLI. Each row connects, runs the
// handshake over a blocking loopback socket and evaluates the policy for no domain (AFNetworking's
// `evaluateServerTrust:`), for the host the certificates name, and for a host they do not name.
//
// The client context trusts the table's CA and verifies nothing during the handshake (`.none`), so
// the policy alone decides; the pinned certificates, when present, are the CA and the self-signed
// leaf. The expected cells are AFNetworking's `evaluateServerTrust:forDomain:` (AFSecurityPolicy.m
// and AFSecurityPolicyTests.m) except where marked `*`, Courier's two documented changes
// (SecurityPolicy.swift, docs/tls.md):
//   - public-key pinning with invalid certificates allowed takes only the leaf's key from a chain
//     that does not verify (AFNetworking takes every key of the unverified chain, so it allows the
//     expired leaf through the CA's pinned key);
//   - public-key pinning checks the domain name when `validatesDomainName` is on, even with invalid
//     certificates allowed (AFNetworking allows all three leaves for a host they do not name).

import CourierBytes
import CourierTestSupport
@testable import CourierTLS
import Glibc
import Testing

extension TLS {
    @Suite("Security policy: the allow/deny table against openssl s_server", .timeLimit(.minutes(2)))
    struct PolicyTable {
        /// mode, allowInvalidCertificates, validatesDomainName, pins present | for no domain |
        /// for "localhost" | for "wrong.example"; each cell is self-signed, CA-signed, expired.
        static let table = """
            none        no  no  no  | D A D | D A D | D A D
            none        no  no  yes | D A D | D A D | D A D
            none        no  yes no  | D A D | D A D | D D D
            none        no  yes yes | D A D | D A D | D D D
            none        yes no  no  | A A A | A A A | A A A
            none        yes no  yes | A A A | A A A | A A A
            none        yes yes no  | A A A | D D D | D D D
            none        yes yes yes | A A A | D D D | D D D
            certificate no  no  no  | D D D | D D D | D D D
            certificate no  no  yes | D A D | D A D | D A D
            certificate no  yes no  | D D D | D D D | D D D
            certificate no  yes yes | D A D | D A D | D D D
            certificate yes no  no  | D D D | D D D | D D D
            certificate yes no  yes | A A D | A A D | A A D
            certificate yes yes no  | D D D | D D D | D D D
            certificate yes yes yes | A A D | A A D | D D D
            publicKey   no  no  no  | D D D | D D D | D D D
            publicKey   no  no  yes | D A D | D A D | D A D
            publicKey   no  yes no  | D D D | D D D | D D D
            publicKey   no  yes yes | D A D | D A D | D D D
            publicKey   yes no  no  | D D D | D D D | D D D
            publicKey   yes no  yes | A A D* | A A D* | A A D*
            publicKey   yes yes no  | D D D | D D D | D D D
            publicKey   yes yes yes | A A D* | A A D* | D* D* D*
            """

        struct Row: CustomStringConvertible {
            var policy: SecurityPolicy
            /// [domain column][leaf]: true = allow.
            var expected: [[Bool]]
            var line: String
            var description: String { line }
        }

        static let domains: [String?] = [nil, "localhost", "wrong.example"]
        static let leaves = ["selfsigned", "casigned", "expired"]

        static func rows(pins: [Certificate]) -> [Row] {
            table.split(separator: "\n").map { line in
                let halves = line.split(separator: "|")
                let switches = halves[0].split(separator: " ")
                let mode: SecurityPolicy.PinningMode = switches[0] == "none" ? .none : switches[0] == "certificate" ? .certificate : .publicKey
                var policy = SecurityPolicy(pinningMode: mode, pinnedCertificates: switches[3] == "yes" ? pins : [])
                policy.allowInvalidCertificates = switches[1] == "yes"
                policy.validatesDomainName = switches[2] == "yes"
                let expected = halves.dropFirst().map { cells in cells.split(separator: " ").map { $0.hasPrefix("A") } }
                return Row(policy: policy, expected: expected, line: String(line.trimmingPrefixSpaces))
            }
        }

        @Test("every row: pinning mode × allowInvalidCertificates × validatesDomainName × pins × leaf × domain")
        func table() throws {
            let directory = try makeCertificates()
            defer { removeDirectory(directory) }
            let ca = try certificate(directory + "/ca.pem")
            let selfSigned = try certificate(directory + "/selfsigned.pem")
            let rows = Self.rows(pins: [ca, selfSigned])
            #expect(rows.count == 24)

            var configuration = TLSConfiguration()
            configuration.trustRoots = .certificates([ca])
            configuration.certificateVerification = .none
            configuration.sessionCacheCapacity = 0
            let context = try TLSClientContext(configuration: configuration)

            var servers: [SServer] = []
            defer { for server in servers { server.stop() } }
            for leaf in Self.leaves { servers.append(try SServer(directory: directory, leaf: leaf)) }

            var checked = 0
            for row in rows {
                for (column, domain) in Self.domains.enumerated() {
                    for (index, server) in servers.enumerated() {
                        let allowed = try evaluate(row.policy, domain: domain, port: server.port, context: context)
                        let expected = row.expected[column][index]
                        #expect(allowed.isAllowed == expected,
                                "\(row) — domain \(domain ?? "nil"), \(Self.leaves[index]) leaf: \(allowed)")
                        checked += 1
                    }
                }
            }
            #expect(checked == 24 * 3 * 3)
        }

        @Test("without a domain the host name checks nothing; with one, a name the certificate lacks is refused by name")
        func denialsSayWhy() throws {
            let directory = try makeCertificates()
            defer { removeDirectory(directory) }
            let ca = try certificate(directory + "/ca.pem")
            var configuration = TLSConfiguration()
            configuration.trustRoots = .certificates([ca])
            configuration.sessionCacheCapacity = 0
            // The handshake verifies the chain and the connection's host ("localhost") itself here:
            // evaluating for another name must not be refused for the host the handshake checked.
            let context = try TLSClientContext(configuration: configuration)
            let server = try SServer(directory: directory, leaf: "casigned")
            defer { server.stop() }
            let policy = SecurityPolicy.default
            #expect(try evaluate(policy, domain: nil, port: server.port, context: context).isAllowed)
            let wrong = try evaluate(policy, domain: "wrong.example", port: server.port, context: context)
            #expect(wrong.code == .hostnameMismatch, "\(wrong)")
            #expect(try evaluate(policy, domain: "127.0.0.1", port: server.port, context: context).isAllowed)
            #expect(try evaluate(policy, domain: "127.0.0.2", port: server.port, context: context).code == .hostnameMismatch)

            var insecure = SecurityPolicy()
            insecure.allowInvalidCertificates = true
            #expect(try evaluate(insecure, domain: "localhost", port: server.port, context: context).code == .insecurePolicy)
            #expect(try evaluate(insecure, domain: nil, port: server.port, context: context).isAllowed)
        }

        // MARK: - One evaluation

        enum Outcome: CustomStringConvertible {
            case allowed
            case denied(TLSError)
            var isAllowed: Bool { if case .allowed = self { true } else { false } }
            var code: TLSError.Code? { if case .denied(let error) = self { error.code } else { nil } }
            var description: String {
                switch self {
                case .allowed: "allowed"
                case .denied(let error): "denied: \(error.code) \(error.message)"
                }
            }
        }

        /// Connects to 127.0.0.1:`port` (SNI "localhost"), completes the handshake and evaluates.
        func evaluate(_ policy: SecurityPolicy, domain: String?, port: UInt16, context: TLSClientContext) throws -> Outcome {
            let socket = try LoopbackSocket(port: port)
            defer { socket.close() }
            let tls = try TLSConnection(context: context, host: "localhost", port: Int(port), securityPolicy: policy)
            var rounds = 0
            while true {
                rounds += 1
                try #require(rounds < 100, "handshake did not finish")
                switch try tls.handshake() {
                case .needsWrite:
                    try socket.send(tls.pendingCiphertext())
                case .needsMoreData:
                    let bytes = try socket.receive()
                    if bytes.isEmpty { tls.receivedEOF() } else { tls.receivedCiphertext(ByteBuffer(bytes: bytes)) }
                case .complete:
                    do {
                        try tls.evaluate(policy, forDomain: domain)
                        return .allowed
                    } catch {
                        return .denied(error)
                    }
                }
            }
        }

        func certificate(_ path: String) throws -> Certificate {
            try Certificate.certificates(fromPEM: readWholeFile(path))[0]
        }
    }
}

// MARK: - Certificates made by openssl for this test

/// A CA (valid two days), a leaf it signs for localhost and 127.0.0.1, an expired leaf it signed
/// (2000–2001, with `openssl ca`, as the committed fixtures are made), and a self-signed leaf for the
/// same names. ECDSA P-256 for fast handshakes.
private func makeCertificates() throws -> String {
    var template = Array("/tmp/courier-policy-table-XXXXXX".utf8CString)
    let directory = try template.withUnsafeMutableBufferPointer { buffer -> String in
        guard let made = mkdtemp(buffer.baseAddress!) else { throw PolicyTableFailure("mkdtemp failed: errno \(errno)") }
        return String(cString: made)
    }
    let script = """
        set -eu
        cd '\(directory)'
        printf '[req]\\ndistinguished_name = dn\\n[dn]\\n' > req.cnf
        cat > ca.cnf <<CNF
        [ca]
        default_ca = table
        [table]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = anything
        unique_subject = no
        copy_extensions = none
        x509_extensions = leaf
        [anything]
        commonName = supplied
        [leaf]
        basicConstraints = critical, CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        CNF
        : > index.txt
        echo 01 > serial
        key() { openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1.key"; }
        key ca; key casigned; key expired; key selfsigned
        openssl req -x509 -new -config req.cnf -key ca.key -subj '/CN=Courier Policy Table CA' -days 2 \\
          -addext 'basicConstraints = critical, CA:TRUE' -addext 'keyUsage = critical, keyCertSign' -out ca.pem
        openssl req -x509 -new -config req.cnf -key selfsigned.key -subj '/CN=Courier Policy Table Self-Signed' -days 2 \\
          -addext 'basicConstraints = critical, CA:FALSE' -addext 'keyUsage = critical, digitalSignature' \\
          -addext 'extendedKeyUsage = serverAuth' -addext 'subjectAltName = DNS:localhost, IP:127.0.0.1' -out selfsigned.pem
        for leaf in casigned expired; do
          openssl req -new -config req.cnf -key "$leaf.key" -subj "/CN=Courier Policy Table $leaf" -out "$leaf.csr"
        done
        openssl ca -batch -notext -config ca.cnf -cert ca.pem -keyfile ca.key -in casigned.csr -out casigned.pem -days 2
        openssl ca -batch -notext -config ca.cnf -cert ca.pem -keyfile ca.key -in expired.csr -out expired.pem \\
          -startdate 20000101000000Z -enddate 20010101000000Z
        """
    let status = runProcess(["/bin/sh", "-c", script], output: directory + "/openssl.log")
    guard status == 0 else {
        throw PolicyTableFailure("openssl failed (\(status)): \(String(decoding: readWholeFile(directory + "/openssl.log"), as: UTF8.self))")
    }
    return directory
}

/// `openssl s_server -www` for one leaf on an ephemeral loopback port, stopped by its process id.
private final class SServer {
    let pid: pid_t
    let port: UInt16

    init(directory: String, leaf: String) throws {
        let log = directory + "/s_server-\(leaf).log"
        pid = spawnProcess(["/usr/bin/openssl", "s_server", "-accept", "127.0.0.1:0", "-cert", directory + "/\(leaf).pem",
                            "-key", directory + "/\(leaf).key", "-www"], output: log)
        // s_server prints "ACCEPT 127.0.0.1:PORT" once it listens; wait for it, at most 10 s.
        var found: UInt16? = nil
        for _ in 0..<1000 where found == nil {
            let text = String(decoding: readWholeFile(log), as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("ACCEPT ") }),
               let colon = line.lastIndex(of: ":") {
                found = UInt16(line[line.index(after: colon)...])
            }
            if found == nil { usleep(10_000) }
        }
        guard let found else {
            kill(pid, SIGKILL)
            _ = ChildProcess.wait(pid)
            throw PolicyTableFailure("openssl s_server for \(leaf) did not start: \(String(decoding: readWholeFile(log), as: UTF8.self))")
        }
        port = found
    }

    func stop() {
        kill(pid, SIGKILL)
        _ = ChildProcess.wait(pid)
    }
}

/// A blocking TCP connection to 127.0.0.1 with 5 s send and receive time limits.
private struct LoopbackSocket {
    let fd: Int32

    init(port: UInt16) throws {
        fd = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw PolicyTableFailure("socket: errno \(errno)") }
        var limit = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            Glibc.close(fd)
            throw PolicyTableFailure("connect to port \(port): errno \(error)")
        }
    }

    func send(_ buffer: ByteBuffer) throws {
        var bytes = buffer.readableBytesArray
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw PolicyTableFailure("send: errno \(errno)") }
            offset += sent
        }
    }

    func receive() throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw PolicyTableFailure("recv: errno \(errno) (timed out after 5 s if EAGAIN)") }
            return Array(bytes.prefix(count))
        }
    }

    func close() { Glibc.close(fd) }
}

private struct PolicyTableFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Starts `argv` with standard output and error into `output` (ChildProcess: nothing of this
/// process, such as a build lock or a pipe, is inherited, so even a server left behind by a
/// crashed test holds none of it).
private func spawnProcess(_ argv: [String], output: String) -> pid_t {
    ChildProcess.spawn(argv, stdout: .path(output, O_WRONLY | O_CREAT | O_TRUNC), stderr: .standardOutput)
}

private func runProcess(_ argv: [String], output: String) -> Int32 {
    ChildProcess.wait(spawnProcess(argv, output: output))
}

private func readWholeFile(_ path: String) -> [UInt8] {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return [] }
    defer { Glibc.close(fd) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        if count <= 0 { return bytes }
        bytes += chunk.prefix(count)
    }
}

private func removeDirectory(_ path: String) {
    _ = runProcess(["/bin/rm", "-rf", path], output: "/dev/null")
}

extension Substring {
    fileprivate var trimmingPrefixSpaces: Substring { drop(while: { $0 == " " }) }
}
