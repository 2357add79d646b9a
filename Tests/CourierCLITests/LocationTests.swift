// Redirects and URLs as browsers and curl take them (issue 10 §4): a Location with spaces or raw
// UTF-8 is percent-encoded and followed, an empty one makes the 3xx final, two different ones are
// refused before either is requested; `http:/host/path` is curl's reading; a percent-encoded
// control byte in a host is a malformed URL (3), never a resolver failure (6). Each case checks
// the exit code, the error line, the output and the requests the server saw.

import CourierLoopbackServer
import Glibc
import Synchronization
import Testing

/// The targets a server was asked for, in order.
private final class Targets: Sendable {
    private let list = Mutex<[String]>([])
    var all: [String] { list.withLock { $0 } }
    func add(_ target: String) { list.withLock { $0.append(target) } }
}

private func redirect(_ location: [UInt8], _ targets: Targets, body: String = "") -> LoopbackScript {
    { request in
        targets.add(request.target)
        var head = Array("HTTP/1.1 302 Found\r\nLocation: ".utf8) + location
        head += Array("\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)".utf8)
        return [.write(head)]
    }
}

private func target(_ targets: Targets) -> LoopbackScript {
    { request in
        targets.add(request.target)
        return [.response(body: "at " + request.target)]
    }
}

extension CLITests {
    @Suite("redirects and Location")
    struct LocationTests {
        @Test("a Location with spaces and raw UTF-8 is percent-encoded and followed")
        func encodedLocation() async throws {
            let targets = Targets()
            let server = try await LoopbackServer.start(.init(scripts: [
                "/space": redirect(Array("/a b/".utf8) + [0xC3, 0xA9] + Array("?q=x y\"z#frag ment".utf8), targets),
                "/a%20b/%C3%A9": target(targets),
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["-L", "-w", " %{http_code} %{num_redirects} %{url_effective}", base + "/space"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "at /a%20b/%C3%A9?q=x%20y%22z 200 1 \(base)/a%20b/%C3%A9?q=x%20y%22z")
            #expect(targets.all == ["/space", "/a%20b/%C3%A9?q=x%20y%22z"])
            await server.shutdown()
        }

        @Test("an empty Location makes the 3xx the final response")
        func emptyLocation() async throws {
            let targets = Targets()
            let server = try await LoopbackServer.start(.init(scripts: ["/empty": redirect([], targets, body: "moved nowhere")]))
            let run = courier(["-L", "-w", " %{http_code} %{num_redirects}", "http://127.0.0.1:\(server.port)/empty"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "moved nowhere 302 0")
            #expect(targets.all == ["/empty"])
            await server.shutdown()
        }

        @Test("two different Location fields: neither is requested, exit 8; the same one twice is followed")
        func twoLocations() async throws {
            let targets = Targets()
            let server = try await LoopbackServer.start(.init(scripts: [
                "/two": redirect(Array("/x\r\nLocation: /y".utf8), targets),
                "/same": redirect(Array("/x\r\nLocation: /x".utf8), targets),
                "/x": target(targets), "/y": target(targets),
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            let two = courier(["-L", base + "/two"])
            #expect(two.status == 8)
            #expect(two.stdout.isEmpty)
            #expect(two.stderrLines == ["courier: (8) Weird server reply: two different Location fields (/x, /y)"])
            #expect(targets.all == ["/two"])
            // Without -L the 3xx is the answer whatever its Location fields say.
            let plain = courier(["-w", "%{http_code}", base + "/two"])
            #expect(plain.status == 0)
            #expect(plain.stdoutText == "302")
            let same = courier(["-L", base + "/same"])
            #expect(same.status == 0, "\(same.stderr)")
            #expect(same.stdoutText == "at /x")
            #expect(targets.all == ["/two", "/two", "/same", "/x"])
            await server.shutdown()
        }

        @Test("a Location whose host holds a percent-encoded NUL or control byte is 3, and nothing is requested there")
        func controlByteInLocationHost() async throws {
            let targets = Targets()
            let server = try await LoopbackServer.start(.init(scripts: [
                "/nul": redirect(Array("http://exa%00mple.invalid/".utf8), targets),
                "/ctl": redirect(Array("http://exa%0Dmple.invalid/".utf8), targets),
            ]))
            for path in ["/nul", "/ctl"] {
                let run = courier(["-L", "http://127.0.0.1:\(server.port)" + path])
                #expect(run.status == 3, "\(path): \(run.stderr)")
                #expect(run.stderrLines.count == 1 && run.stderrLines[0].hasPrefix("courier: (3) the redirect location http://exa%"), "\(run.stderr)")
            }
            #expect(targets.all == ["/nul", "/ctl"])
            await server.shutdown()
        }

        @Test("http:/host/path and http:///host/path are read as curl reads them; four slashes are 3")
        func slashes() async throws {
            let targets = Targets()
            let server = try await LoopbackServer.start(.init(scripts: ["/p": target(targets)]))
            for url in ["http:/127.0.0.1:\(server.port)/p", "http:///127.0.0.1:\(server.port)/p", "HTTP:/127.0.0.1:\(server.port)/p"] {
                let run = courier(["-w", " %{url_effective}", url])
                #expect(run.status == 0, "\(url): \(run.stderr)")
                #expect(run.stdoutText == "at /p http://127.0.0.1:\(server.port)/p", "\(url)")
            }
            let four = courier(["http:////127.0.0.1:\(server.port)/p"])
            #expect(four.status == 3)
            #expect(four.stderrLines == ["courier: (3) URL using bad/illegal format or missing URL (too many slashes)"])
            // `host:port` without a scheme stays a host and a port (curl needs ":/" for a scheme).
            let bare = courier(["127.0.0.1:\(server.port)/p"])
            #expect(bare.status == 0, "\(bare.stderr)")
            #expect(targets.all.count == 4)
            await server.shutdown()
        }

        @Test("a percent-encoded control byte in a command-line host is 3, not a resolver failure; an encoded host is decoded")
        func encodedHosts() async throws {
            let server = try await LoopbackServer.start()
            for url in ["http://exa%00mple.invalid/", "http://exa%01mple.invalid/", "http://exa%7Fmple.invalid/",
                        "http://exa%20mple.invalid/", "http://exa%2Fmple.invalid/", "http://%C2%80.invalid/"] {
                let run = courier([url])
                #expect(run.status == 3, "\(url): \(run.stderr)")
            }
            // %31%32%37.0.0.1 is 127.0.0.1 once decoded: an IPv4 address, reached without DNS.
            let decoded = courier(["http://%31%32%37.0.0.1:\(server.port)/bytes/3"])
            #expect(decoded.status == 0, "\(decoded.stderr)")
            #expect(decoded.stdoutText == "abc")
            #expect(server.requestCount == 1)
            await server.shutdown()
        }
    }
}
