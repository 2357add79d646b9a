// Transfers against the embedded loopback server, started in this process: bodies on stdout,
// connection reuse across URLs, -f, -i/-I, -L, -o with its temporary file, -C - resume,
// --json-response validation, and curl's exit codes for transport failures.

import CourierHTTP1
import CourierLoopbackServer
import Glibc
import Testing

/// The loopback server's body pattern: byte i is "a" + i mod 26.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) } }

private func jsonReply(_ body: String, status: Int = 200, type: String = "application/json") -> LoopbackScript {
    { _ in [.response(status: status, headers: ["Content-Type: \(type)"], body: body)] }
}

extension CLITests {
    @Suite("transfers against the loopback server")
    struct TransferTests {
        @Test("the body goes to stdout byte for byte; -w once per URL; the second URL reuses the connection")
        func bodyAndReuse() async throws {
            let server = try await LoopbackServer.start()
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["-w", "|%{http_code} %{num_connects} %{size_download} %{url_effective}\n", base + "/bytes/1000", base + "/chunked/70000?chunk=1000"])
            #expect(run.status == 0, "\(run.stderr)")
            let expected = pattern(1000) + Array("|200 1 1000 \(base)/bytes/1000\n".utf8)
                + pattern(70000) + Array("|200 0 70000 \(base)/chunked/70000?chunk=1000\n".utf8)
            #expect(run.stdout == expected)
            #expect(server.acceptedConnections == 1)
            await server.shutdown()
        }

        @Test("-f: a status of 400 or more prints no body and exits 22; -w still runs")
        func failOnError() async throws {
            let server = try await LoopbackServer.start(.init(scripts: ["/missing": { _ in [.response(status: 404, body: "not here")] }]))
            let url = "http://127.0.0.1:\(server.port)/missing"
            let run = courier(["-f", "-w", "%{http_code}", url])
            #expect(run.status == 22)
            #expect(run.stdoutText == "404")
            #expect(run.stderrLines == ["courier: (22) The requested URL returned error: 404"])
            let plain = courier([url])
            #expect(plain.status == 0)
            #expect(plain.stdoutText == "not here")
            await server.shutdown()
        }

        @Test("-i writes the head before the body; -I sends HEAD and writes the head only")
        func includeAndHead() async throws {
            let server = try await LoopbackServer.start()
            let url = "http://127.0.0.1:\(server.port)/bytes/5"
            let include = courier(["-i", url])
            #expect(include.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(include.stdoutText.hasSuffix("\r\n\r\nabcde"))
            let head = courier(["-I", url])
            #expect(head.status == 0)
            #expect(head.stdoutText.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(head.stdoutText.contains("Content-Length: 5\r\n"))
            #expect(head.stdoutText.hasSuffix("\r\n\r\n"))
            await server.shutdown()
        }

        @Test("-v traces request and response heads on stderr as curl does")
        func verbose() async throws {
            let server = try await LoopbackServer.start()
            let run = courier(["-v", "http://127.0.0.1:\(server.port)/bytes/3"])
            #expect(run.stdoutText == "abc")
            #expect(run.stderr.contains("> GET /bytes/3 HTTP/1.1\r\n> Host: 127.0.0.1:\(server.port)\r\n"))
            #expect(run.stderr.contains("> \r\n< HTTP/1.1 200 OK\r\n"))
            #expect(run.stderrLines.contains { $0.hasPrefix("* Connected to 127.0.0.1") })
            await server.shutdown()
        }

        @Test("-L follows a redirect; without it the 3xx is the answer")
        func redirects() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/go": { _ in [.response(status: 302, headers: ["Location: /bytes/4"], body: "moved")] },
            ]))
            let url = "http://127.0.0.1:\(server.port)/go"
            let follow = courier(["-L", "-w", " %{http_code} %{num_redirects}", url])
            #expect(follow.stdoutText == "abcd 200 1")
            let stay = courier(["-w", " %{http_code} %{redirect_url}", url])
            #expect(stay.stdoutText == "moved 302 http://127.0.0.1:\(server.port)/bytes/4", "resolved against the URL, as curl's")
            await server.shutdown()
        }

        @Test("-d posts the data; the server sees the exact body")
        func post() async throws {
            let server = try await LoopbackServer.start()
            let run = courier(["-d", "a=1", "--data-urlencode", "b=x y", "http://127.0.0.1:\(server.port)/echo"])
            #expect(run.status == 0)
            #expect(run.stdoutText.contains("\"method\":\"POST\""))
            #expect(run.stdoutText.contains("\"body\":\"a=1&b=x+y\""))
            await server.shutdown()
        }

        @Test("-o writes FILE through a temporary file; a failure leaves FILE untouched and no temporary file")
        func output() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/cut": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"), .writePattern(count: 10), .close] },
            ]))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/out.bin"
            let ok = courier(["-o", file, "http://127.0.0.1:\(server.port)/bytes/50000"])
            #expect(ok.status == 0)
            #expect(ok.stdout.isEmpty)
            #expect(readFile(file) == pattern(50000))
            writeFile(file, "old contents")
            let cut = courier(["-o", file, "http://127.0.0.1:\(server.port)/cut"])
            #expect(cut.status == 18, "\(cut.stderr)")
            #expect(readFile(file) == Array("old contents".utf8))
            #expect(directoryEntries(dir) == ["out.bin"])
            await server.shutdown()
        }

        @Test("-C - resumes FILE with Range and appends a matching 206; a mismatch is 33 with FILE untouched")
        func resume() async throws {
            let full = pattern(100)
            let server = try await LoopbackServer.start(.init(scripts: [
                "/file": { request in
                    guard let range = request.headers.first(name: "Range") else {
                        return [.response(status: 200, headers: ["ETag: \"v1\""], body: String(decoding: full, as: UTF8.self))]
                    }
                    guard range == "bytes=40-" else { return [.response(status: 400, body: range)] }
                    return [.response(status: 206, headers: ["ETag: \"v1\"", "Content-Range: bytes 40-99/100"],
                                      body: String(decoding: full[40...], as: UTF8.self))]
                },
                "/wrong": { _ in
                    [.response(status: 206, headers: ["Content-Range: bytes 10-99/100"], body: String(decoding: full[10...], as: UTF8.self))]
                },
            ]))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/part"
            writeFile(file, Array(full[..<40]))
            let run = courier(["-C", "-", "-o", file, "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/file"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "206")
            #expect(readFile(file) == full)
            writeFile(file, Array(full[..<40]))
            let wrong = courier(["-C", "-", "-o", file, "http://127.0.0.1:\(server.port)/wrong"])
            #expect(wrong.status == 33)
            #expect(readFile(file) == Array(full[..<40]))
            await server.shutdown()
        }

        @Test("--json-response prints compact JSON and a newline; --sanitize-nulls removes nulls")
        func jsonResponse() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/j": jsonReply("{ \"b\" : [1, null, {\"c\": null}], \"a\": null, \"d\": \"x\" }"),
                "/space": jsonReply(" "),
                "/empty": jsonReply(""),
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            let plain = courier(["--json-response", base + "/j"])
            #expect(plain.status == 0)
            #expect(plain.stdoutText == "{\"b\":[1,null,{\"c\":null}],\"a\":null,\"d\":\"x\"}\n")
            let sanitized = courier(["--sanitize-nulls", base + "/j"])
            #expect(sanitized.stdoutText == "{\"b\":[1,{}],\"d\":\"x\"}\n")
            for path in ["/space", "/empty"] {
                let run = courier(["--json-response", base + path])
                #expect(run.status == 0)
                #expect(run.stdout.isEmpty)
            }
            await server.shutdown()
        }

        @Test("--json-response: any value at the top level, a byte order mark skipped, the last of a repeated name, large output in pieces")
        func jsonResponseTexts() async throws {
            let big = "[" + (0..<40_000).map { String($0 % 1000) }.joined(separator: ",") + "]"
            let server = try await LoopbackServer.start(.init(scripts: [
                "/null": jsonReply("null"),
                "/number": jsonReply(" 42 "),
                "/string": jsonReply("\"s\\u00e9\""),
                "/bom": jsonReply("\u{FEFF}{\"a\":1}"),
                "/repeat": jsonReply("{\"a\":1,\"b\":2,\"a\":3,\"c\":1,\"c\":null}"),
                "/big": jsonReply(big),
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            for (path, plain, sanitized) in [
                ("/null", "null", "null"), ("/number", "42", "42"), ("/string", "\"sé\"", "\"sé\""),
                ("/bom", "{\"a\":1}", "{\"a\":1}"), ("/repeat", "{\"b\":2,\"a\":3,\"c\":null}", "{\"b\":2,\"a\":3}"),
            ] {
                let run = courier(["--json-response", base + path])
                #expect(run.status == 0, "\(path): \(run.stderr)")
                #expect(run.stdoutText == plain + "\n", "\(path)")
                #expect(courier(["--sanitize-nulls", base + path]).stdoutText == sanitized + "\n", "\(path)")
            }
            let large = courier(["--json-response", base + "/big"])
            #expect(large.status == 0)
            #expect(large.stdoutText == big + "\n")
            await server.shutdown()
        }

        @Test("--json-response validation: status 22 wins over type 121 over parse 120; nothing on stdout")
        func jsonValidation() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/type": jsonReply("{}", type: "text/html"),
                "/both": jsonReply("<html>", status: 500, type: "text/html"),
                "/bad": jsonReply("{\"a\":", type: "text/json"),
                "/redirect": jsonReply("{}", status: 301, type: "application/json"),
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            for (path, code) in [("/type", 121), ("/both", 22), ("/bad", 120), ("/redirect", 22)] as [(String, Int32)] {
                let run = courier(["--json-response", base + path])
                #expect(run.status == code, "\(path): \(run.stderr)")
                #expect(run.stdout.isEmpty, "\(path)")
                #expect(run.stderr.hasPrefix("courier: (\(code)) "), "\(path)")
            }
            await server.shutdown()
        }

        @Test("transport failures: refused 7, empty reply 52, truncated body 18; each URL is still tried")
        func transportFailures() async throws {
            let server = try await LoopbackServer.start(.init(scripts: [
                "/empty": { _ in [.close] },
            ]))
            let base = "http://127.0.0.1:\(server.port)"
            #expect(courier(["-s", "http://127.0.0.1:1/"]).status == 7)
            let empty = courier([base + "/empty"])
            #expect(empty.status == 52, "\(empty.stderr)")
            #expect(empty.stderrLines == ["courier: (52) Empty reply from server"])
            let both = courier(["-s", "-w", "%{http_code};", "http://127.0.0.1:1/", base + "/bytes/2"])
            #expect(both.status == 0)
            #expect(both.stdoutText == "000;ab200;")
            await server.shutdown()
        }
    }
}
