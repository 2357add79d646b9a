// International host names on the command line: `courier http://bücher.example/` connects to the
// ASCII form (UTS #46, docs/url.md), sends it in Host, matches the TLS certificate against it, and
// -v says which name it converted to.
// The loopback server stands in for the host through --resolve, which, as in curl, names the
// host as it is looked up: in its ASCII form.

import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Testing

/// Runs `/usr/bin/openssl` with `arguments`, output discarded; its exit status.
private func openssl(_ arguments: [String]) -> Int32 {
    let pid = ChildProcess.spawn(["/usr/bin/openssl"] + arguments, stdout: .path("/dev/null", O_WRONLY),
                                 stderr: .path("/dev/null", O_WRONLY), environment: nil)
    return ChildProcess.wait(pid)
}

extension CLITests {
    @Suite("international host names")
    struct InternationalHostTests {
        @Test("a Unicode host is converted to its ASCII form for DNS and Host; -v shows the conversion")
        func convertedHost() async throws {
            let server = try await LoopbackServer.start()
            let run = courier(["-v", "--resolve", "xn--bcher-kva.example:\(server.port):127.0.0.1",
                               "http://Bücher.example:\(server.port)/echo"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderrLines.contains("* International host name bücher.example converted to xn--bcher-kva.example"))
            #expect(run.stderr.contains("> Host: xn--bcher-kva.example:\(server.port)\r\n"))
            #expect(run.stderrLines.contains { $0.hasPrefix("* Connected to xn--bcher-kva.example (127.0.0.1)") })
            // What the server received: the ASCII form in Host.
            #expect(run.stdoutText.contains("[\"Host\",\"xn--bcher-kva.example:\(server.port)\"]"))
            await server.shutdown()
        }

        @Test("percent-encoded UTF-8 in the host is decoded first")
        func percentEncodedHost() async throws {
            let server = try await LoopbackServer.start()
            let run = courier(["--resolve", "xn--bcher-kva.example:\(server.port):127.0.0.1",
                               "http://b%C3%BCcher.example:\(server.port)/bytes/3"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "abc")
            await server.shutdown()
        }

        @Test("over TLS the certificate is matched against the ASCII form")
        func certificateMatchesTheASCIIForm() async throws {
            // A certificate for DNS:xn--bcher-kva.example only, made by openssl for this test.
            let scratch = makeScratchDirectory()
            defer { removeScratchDirectory(scratch) }
            let certificate = scratch + "/idn.pem", key = scratch + "/idn.key"
            #expect(openssl(["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                             "-subj", "/CN=idn test", "-addext", "subjectAltName=DNS:xn--bcher-kva.example",
                             "-days", "2", "-keyout", key, "-out", certificate]) == 0)
            let pem = { (path: String) in String(decoding: readFile(path) ?? [], as: UTF8.self) }
            let tls = try LoopbackServer.Configuration.tls(certificateChainPEM: pem(certificate), privateKeyPEM: pem(key))
            let server = try await LoopbackServer.start(.init(tls: tls))
            let run = courier(["--cacert", certificate, "--resolve", "xn--bcher-kva.example:\(server.port):127.0.0.1",
                               "https://bücher.example:\(server.port)/bytes/3"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "abc")
            // Another name that resolves to the same server does not match the certificate.
            let other = courier(["--cacert", certificate, "--resolve", "xn--bcher-x-n2a.example:\(server.port):127.0.0.1",
                                 "https://bücher-x.example:\(server.port)/bytes/3"])
            #expect(other.status == 60, "\(other.stderr)")
            await server.shutdown()
        }

        @Test("an invalid label is exit 3 before anything is sent, naming the label and the rule")
        func invalidLabel() {
            let run = courier(["http://a_b.bücher.example/"])
            #expect(run.status == 3)
            #expect(run.stderr.contains("Failed to convert host to ACE; label \"a_b\": P1"), "\(run.stderr)")
            let hyphen = courier(["http://-bücher.example/"])
            #expect(hyphen.status == 3)
            #expect(hyphen.stderr.contains("label \"-bücher\": V3"), "\(hyphen.stderr)")
        }
    }
}
