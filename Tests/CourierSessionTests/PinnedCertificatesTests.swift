// SecurityPolicy.certificates(inDirectory:) — AFSecurityPolicy's certificatesInBundle: on Linux
// (issue 16): every certificate file of a directory, PEM or DER, and a pin built from it that
// passes or fails a real handshake.

import Courier
import CourierLoopbackServer
import CourierTestSupport
import CourierTLS
import Glibc
import Testing

extension SessionTests {
    @Suite struct PinnedCertificates {
        static let server = try! Certificate.certificates(fromPEM: Array(LoopbackIdentity.serverCertificatePEM.utf8))[0]

        @Test("PEM, DER and bundles, in name order; other files and directories left alone; an unreadable pin is an error")
        func loading() async throws {
            let directory = makeTemporaryDirectory()
            defer {
                rmdir(directory + "/sub.pem")
                removeTree(directory)
            }
            writeFile(directory + "/ca.pem", Array(LoopbackIdentity.caCertificatePEM.utf8))
            writeFile(directory + "/server.CER", Self.server.derBytes)
            writeFile(directory + "/bundle.crt", Array((LoopbackIdentity.caCertificatePEM + "\n" + LoopbackIdentity.serverCertificatePEM).utf8))
            writeFile(directory + "/notes.txt", Array("not a certificate".utf8))
            #expect(mkdir(directory + "/sub.pem", 0o700) == 0)
            let loaded = try await SecurityPolicy.certificates(inDirectory: directory)
            #expect(loaded == [TestTLS.ca, Self.server, TestTLS.ca, Self.server])
            #expect(SecurityPolicy(pinningMode: .certificate, pinnedCertificates: loaded).pinnedCertificates == [TestTLS.ca, Self.server])

            writeFile(directory + "/broken.der", [0x30, 0x03, 0x01])
            await #expect { _ = try await SecurityPolicy.certificates(inDirectory: directory) } throws: {
                let error = $0 as? PinnedCertificatesError
                return error?.path == directory + "/broken.der" && error?.tlsError != nil
            }
            await #expect { _ = try await SecurityPolicy.certificates(inDirectory: directory + "/missing") } throws: {
                ($0 as? PinnedCertificatesError)?.errno?.rawValue == ENOENT
            }
        }

        @Test("a policy pinned from a directory passes the right server and refuses a key it does not hold")
        func pinningFromADirectory() async throws {
            let right = makeTemporaryDirectory(), wrong = makeTemporaryDirectory()
            defer {
                removeTree(right)
                removeTree(wrong)
            }
            writeFile(right + "/server.pem", Array(LoopbackIdentity.serverCertificatePEM.utf8))
            writeFile(wrong + "/wronghost.pem", Array(TestPEM.wronghostCertificate.utf8))
            try await withServer(.init(tls: TestTLS.server)) { server in
                for (directory, passes) in [(right, true), (wrong, false)] {
                    let policy = SecurityPolicy(pinningMode: .publicKey,
                                                pinnedCertificates: try await SecurityPolicy.certificates(inDirectory: directory))
                    let session = makeSession {
                        $0.tls = TestTLS.client
                        $0.securityPolicy = policy
                    }
                    let response = await session.dataTask(with: server.request("/bytes/10")).response
                    if passes {
                        #expect(response.result.successValue != nil, "\(response.result)")
                    } else {
                        #expect(response.result.failureValue != nil, "the wrong key must be refused")
                    }
                    await session.finishTasksAndInvalidate()
                }
            }
        }
    }
}
