// International host names on the command line: `courier http://bücher.example/` connects to the
// ASCII form (UTS #46, docs/url.md), sends it in Host, and -v says which name it converted to.
// The loopback server stands in for the host through --resolve, which, as in curl, names the
// host as it is looked up: in its ASCII form.

import CourierLoopbackServer
import Testing

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
