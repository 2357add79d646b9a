// Cookies on the command line (-b, -c, -j) against the in-process loopback server, with curl
// itself as the other side of the cookie file: curl reads what courier writes and sends the same
// cookies, courier reads what curl writes. Host names are mapped to 127.0.0.1 with --resolve (both
// tools), so domain cookies and a redirect chain across subdomains can be tested on one server.

import CourierHTTP1
import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Synchronization
import Testing

private let curlPath = "/usr/bin/curl"
private let hasCurl = access(curlPath, X_OK) == 0

/// Runs curl; its exit status, stdout and stderr.
private func curl(_ arguments: [String]) -> (status: Int32, stdout: String, stderr: String) {
    let scratch = makeScratchDirectory()
    defer { removeScratchDirectory(scratch) }
    let pid = startProcess([curlPath] + arguments, stdout: .path(scratch + "/out", O_WRONLY | O_CREAT | O_TRUNC),
                           stderr: .path(scratch + "/err", O_WRONLY | O_CREAT | O_TRUNC))
    let status = waitForExit(pid)
    return (status, String(decoding: readFile(scratch + "/out") ?? [], as: UTF8.self),
            String(decoding: readFile(scratch + "/err") ?? [], as: UTF8.self))
}

/// The cookies of a Cookie field as a set: curl orders cookies of equal path length by domain and
/// name length before creation time, Courier by creation time (RFC 6265 §5.4), so only the
/// membership is compared between the two.
private func pairs(_ field: String) -> [String] { field.split(separator: ";").map { String($0.drop { $0 == " " }) }.sorted() }

/// The routes: /set and /set-secure send cookies, /see answers with the Cookie fields it got
/// ("|" between fields, "(none)" without), /hop/N redirects across a.example.test and
/// b.example.test, setting a cookie at each step.
private func cookieServer() async throws -> LoopbackServer {
    @Sendable func see(_ request: LoopbackRequest) -> [LoopbackAction] {
        let fields = request.headers["Cookie"]
        return [.response(status: 200, headers: ["Content-Type: text/plain"], body: fields.isEmpty ? "(none)" : fields.joined(separator: "|"))]
    }
    @Sendable func port(_ request: LoopbackRequest) -> Substring { request.headers.first(name: "Host")!.split(separator: ":").last! }
    return try await LoopbackServer.start(.init(scripts: [
        "/set": { _ in
            [.response(status: 200, headers: [
                "Set-Cookie: host=h1", "Set-Cookie: dom=d1; Domain=example.test", "Set-Cookie: deep=p1; Path=/see/deep",
                "Set-Cookie: persistent=x1; Max-Age=86400", "Set-Cookie: ho=only; HttpOnly", "Set-Cookie: spaced=\"a b\"",
            ], body: "set")]
        },
        "/set-secure": { _ in [.response(status: 200, headers: ["Set-Cookie: sec=s1; Secure", "Set-Cookie: plain=p"], body: "set")] },
        "/see": see,
        "/see/deep": see,
        "/hop/1": { request in
            [.response(status: 302, headers: ["Set-Cookie: one=1; Path=/", "Set-Cookie: shared=1; Domain=example.test; Path=/",
                                              "Location: http://b.example.test:\(port(request))/hop/2"], body: "")]
        },
        "/hop/2": { request in
            let got = request.headers["Cookie"].joined(separator: "|")
            return [.response(status: 301, headers: ["Set-Cookie: two=2; Path=/", "X-Seen: \(got)", "Location: http://a.example.test:\(port(request))/see"],
                              body: "")]
        },
        "/fail": { _ in [.response(status: 500, headers: ["Set-Cookie: failed=1"], body: "no")] },
    ]))
}

extension CLITests {
    @Suite("cookies: -b, -c, -j, and curl's cookie files")
    struct CookieCLITests {
        @Test("several URLs share the jar; -c writes it after the last one")
        func sharedJar() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let base = "http://www.example.test:\(server.port)"
            let run = courier(["--resolve", "www.example.test:\(server.port):127.0.0.1", "-c", dir + "/jar.txt",
                               base + "/set", base + "/see", base + "/see/deep"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "set" + "host=h1; dom=d1; persistent=x1; ho=only; spaced=\"a b\""
                + "deep=p1; host=h1; dom=d1; persistent=x1; ho=only; spaced=\"a b\"")
            let file = String(decoding: readFile(dir + "/jar.txt") ?? [], as: UTF8.self)
            #expect(file.hasPrefix("# Netscape HTTP Cookie File\n"))
            let lines = file.split(separator: "\n").filter { !$0.hasPrefix("# ") }
            #expect(lines.count == 6)
            #expect(lines.contains("www.example.test\tFALSE\t/\tFALSE\t0\thost\th1"))
            #expect(lines.contains(".example.test\tTRUE\t/\tFALSE\t0\tdom\td1"))
            #expect(lines.contains("#HttpOnly_www.example.test\tFALSE\t/\tFALSE\t0\tho\tonly"))
            await server.shutdown()
        }

        @Test("curl -b reads the file courier wrote and sends what courier sends", .enabled(if: hasCurl, "needs curl"))
        func curlReadsCourierFile() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let resolve = ["--resolve", "www.example.test:\(server.port):127.0.0.1", "--resolve", "localhost:\(server.port):127.0.0.1"]
            let base = "http://www.example.test:\(server.port)"
            let local = "http://localhost:\(server.port)"
            let write = courier(resolve + ["-c", dir + "/jar.txt", base + "/set", local + "/set-secure"])
            #expect(write.status == 0, "\(write.stderr)")
            for url in [base + "/see", base + "/see/deep", "http://sub.www.example.test:\(server.port)/see", local + "/see"] {
                let sub = ["--resolve", "sub.www.example.test:\(server.port):127.0.0.1"]
                let byCurl = curl(["-s"] + resolve + sub + ["-b", dir + "/jar.txt", url])
                let byCourier = courier(resolve + sub + ["-b", dir + "/jar.txt", url])
                #expect(byCurl.status == 0)
                #expect(pairs(byCurl.stdout) == pairs(byCourier.stdoutText), "\(url)")
            }
            // Secure over http://localhost: both count it as a secure channel.
            #expect(pairs(curl(["-s"] + resolve + ["-b", dir + "/jar.txt", local + "/see"]).stdout) == ["plain=p", "sec=s1"])
            #expect(curl(["-s"] + resolve + ["-b", dir + "/jar.txt", "http://sub.www.example.test:\(server.port)/see",
                          "--resolve", "sub.www.example.test:\(server.port):127.0.0.1"]).stdout == "dom=d1")
            await server.shutdown()
        }

        @Test("courier -b reads the file curl -c wrote, and writes it back line for line", .enabled(if: hasCurl, "needs curl"))
        func courierReadsCurlFile() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let resolve = ["--resolve", "www.example.test:\(server.port):127.0.0.1"]
            let base = "http://www.example.test:\(server.port)"
            let byCurl = curl(["-s"] + resolve + ["-c", dir + "/curl.txt", base + "/set"])
            #expect(byCurl.status == 0)
            let curlFile = String(decoding: readFile(dir + "/curl.txt") ?? [], as: UTF8.self)
            #expect(curlFile.contains("#HttpOnly_www.example.test"))
            for path in ["/see", "/see/deep"] {
                let expected = curl(["-s"] + resolve + ["-b", dir + "/curl.txt", base + path]).stdout
                let run = courier(resolve + ["-b", dir + "/curl.txt", base + path])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(pairs(run.stdoutText) == pairs(expected), "\(path)")
                #expect(expected.contains("dom=d1"))
            }
            // Written back: the same cookies, fields and values (curl lists them newest first).
            let again = courier(resolve + ["-b", dir + "/curl.txt", "-c", dir + "/courier.txt", base + "/see"])
            #expect(again.status == 0)
            func cookieLines(_ text: String) -> [String] { text.split(separator: "\n").filter { !$0.hasPrefix("# ") }.map(String.init).sorted() }
            #expect(cookieLines(String(decoding: readFile(dir + "/courier.txt") ?? [], as: UTF8.self)) == cookieLines(curlFile))
            await server.shutdown()
        }

        @Test("-L: a redirect chain across subdomains stores each hop's cookies and sends each hop its own")
        func redirectChain() async throws {
            let server = try await cookieServer()
            let resolve = ["a.example.test", "b.example.test"].flatMap { ["--resolve", "\($0):\(server.port):127.0.0.1"] }
            let start = "http://a.example.test:\(server.port)/hop/1"
            let run = courier(resolve + ["-L", "-b", "", "-b", "given=1", "-i", start])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText.contains("X-Seen: shared=1\r\n"))  // at b: the domain cookie only; -b given=1 stayed on a
            #expect(run.stdoutText.hasSuffix("\r\n\r\none=1; shared=1"))  // back at a: a's cookies, not b's "two"
            // Without the engine, nothing is stored: only the literal goes to the first origin.
            let off = courier(resolve + ["-L", "-b", "given=1", "-i", start])
            #expect(off.stdoutText.contains("X-Seen: \r\n") && off.stdoutText.hasSuffix("(none)"))
            await server.shutdown()
        }

        @Test("-b NAME=VALUE is sent as given, joined with \";\" (curl 7.88); it does not turn cookies on; -H Cookie wins over it")
        func literal() async throws {
            let server = try await cookieServer()
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["-b", "a=1; b=2", "-b", "c=3", base + "/set", base + "/see"])
            #expect(run.stdoutText == "set" + "a=1; b=2;c=3")  // nothing stored from /set
            let header = courier(["-b", "a=1", "-H", "Cookie: mine=1", base + "/see"])
            #expect(header.stdoutText == "mine=1")
            // With the engine on, the jar's cookies and -H's field make one field, the jar's first.
            let merged = courier(["-b", "", "-H", "Cookie: mine=1", base + "/set", base + "/see"])
            #expect(merged.stdoutText.hasSuffix("set" + "host=h1; persistent=x1; ho=only; spaced=\"a b\"; mine=1"))
            await server.shutdown()
        }

        @Test("-c is written after a failed transfer too; -c - writes to stdout after the bodies")
        func jarAfterFailure() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["-f", "-c", dir + "/jar.txt", base + "/set", base + "/fail"])
            #expect(run.status == 22)
            let file = String(decoding: readFile(dir + "/jar.txt") ?? [], as: UTF8.self)
            #expect(file.contains("\thost\th1\n") && file.contains("\tfailed\t1\n"))
            let stdout = courier(["-s", "-c", "-", base + "/set-secure"])
            #expect(stdout.stdoutText.hasPrefix("set# Netscape HTTP Cookie File\n"))
            #expect(stdout.stdoutText.hasSuffix("127.0.0.1\tFALSE\t/\tTRUE\t0\tsec\ts1\n127.0.0.1\tFALSE\t/\tFALSE\t0\tplain\tp\n"))
            #expect(directoryEntries(dir) == ["jar.txt"])
            await server.shutdown()
        }

        @Test("-j drops the file's session cookies; a missing -b file is skipped (a warning with -v); an unwritable -c is a warning")
        func junkAndMissing() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let base = "http://127.0.0.1:\(server.port)"
            writeFile(dir + "/in.txt", "127.0.0.1\tFALSE\t/\tFALSE\t0\tsession\t1\n127.0.0.1\tFALSE\t/\tFALSE\t4102444800\tkept\t2\n")
            #expect(courier(["-b", dir + "/in.txt", base + "/see"]).stdoutText == "session=1; kept=2")
            #expect(courier(["-j", "-b", dir + "/in.txt", base + "/see"]).stdoutText == "kept=2")
            let missing = courier(["-v", "-b", dir + "/absent.txt", base + "/see"])
            #expect(missing.status == 0 && missing.stdoutText == "(none)")
            #expect(missing.stderr.contains("* WARNING: failed to open cookie file \"\(dir)/absent.txt\""))
            let unwritable = courier(["-c", dir + "/no/such/dir/jar.txt", base + "/set"])
            #expect(unwritable.status == 0)
            #expect(unwritable.stderrLines.contains { $0.hasPrefix("courier: warning: failed to save cookies in \(dir)/no/such/dir/jar.txt") })
            #expect(courier(["-c", "", base + "/set"]).status == 2)
            await server.shutdown()
        }

        @Test("-: groups share the run's jar; a group without -b FILE or -c neither sends nor stores; each -c is written when its group ends")
        func groups() async throws {
            let server = try await cookieServer()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let base = "http://127.0.0.1:\(server.port)"
            // As curl 7.88: group 2 (engine off) sends nothing and stores nothing from /set-secure;
            // group 3 (engine on) sends group 1's cookies and adds its own; group 1's file holds
            // only what the jar had when group 1 ended.
            let run = courier(["-c", dir + "/one.txt", base + "/set", "-:", base + "/see", base + "/fail",
                               "-:", "-c", dir + "/three.txt", base + "/see", base + "/set-secure"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "set" + "(none)" + "no" + "host=h1; persistent=x1; ho=only; spaced=\"a b\"" + "set")
            func names(_ path: String) -> [String] {
                String(decoding: readFile(path) ?? [], as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("# ") }
                    .map { String($0.split(separator: "\t")[5]) }.sorted()
            }
            #expect(names(dir + "/one.txt") == ["deep", "ho", "host", "persistent", "spaced"])
            #expect(names(dir + "/three.txt") == ["deep", "ho", "host", "persistent", "plain", "sec", "spaced"])
            // --fail-early ends the run in group 1: its -c file is still written.
            let early = courier(["--fail-early", "-f", "-c", dir + "/early.txt", base + "/fail", base + "/set", "-:", base + "/see"])
            #expect(early.status == 22)
            #expect(names(dir + "/early.txt") == ["failed"])
            await server.shutdown()
        }

        @Test("the jar's Cookie field goes where curl writes it: after Referer, before the -H fields and the body's")
        func fieldPlace() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/in.txt", "www.example.com\tFALSE\t/\tFALSE\t0\thost\t1\n")
            let run = courier(["--offline", "-b", dir + "/in.txt", "-H", "X-A: 1", "-e", "http://r/", "-d", "x", "http://www.example.com/"])
            #expect(run.stdout == crlfText("POST / HTTP/1.1\nHost: www.example.com\nUser-Agent: courier/0.1\nAccept: */*\nReferer: http://r/\n"
                + "Cookie: host=1\nX-A: 1\nContent-Length: 1\nContent-Type: application/x-www-form-urlencoded\n\nx"))
            // No cookie for this URL: no Cookie field at all (the mark is never sent).
            let none = courier(["--offline", "-b", dir + "/in.txt", "-H", "X-A: 1", "http://other.example.com/"])
            #expect(none.stdout == crlfText("GET / HTTP/1.1\nHost: other.example.com\nUser-Agent: courier/0.1\nAccept: */*\nX-A: 1\n\n"))
        }

        @Test("-v prints curl's Added and Replaced cookie lines, the same lines curl prints", .enabled(if: hasCurl, "needs curl"))
        func verboseLines() async throws {
            let server = try await cookieServer()
            let resolve = ["--resolve", "www.example.test:\(server.port):127.0.0.1"]
            let base = "http://www.example.test:\(server.port)"
            // Expiry seconds depend on when each tool ran: compared without them for persistent cookies.
            func cookieLines(_ stderr: String) -> [String] {
                // Split at CRLF too: "\r\n" is one Character, not a "\n".
                stderr.split(whereSeparator: \.isNewline).filter { $0.hasPrefix("* Added cookie") || $0.hasPrefix("* Replaced cookie") }
                    .map { line in
                        line.hasSuffix(", expire 0") ? String(line) : line.split(separator: ",").dropLast().joined(separator: ",") + ", expire N"
                    }
            }
            let run = courier(resolve + ["-v", "-b", "", base + "/set", base + "/set"])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = cookieLines(run.stderr)
            #expect(lines.contains("* Added cookie host=\"h1\" for domain www.example.test, path /, expire 0"))
            #expect(lines.contains("* Added cookie dom=\"d1\" for domain example.test, path /, expire 0"))
            #expect(lines.contains("* Replaced cookie deep=\"p1\" for domain www.example.test, path /see/deep, expire 0"))
            #expect(lines.contains("* Replaced cookie persistent=\"x1\" for domain www.example.test, path /, expire N"))
            #expect(lines.count == 12, "\(run.stderr)")
            let byCurl = curl(["-sv", "-b", ""] + resolve + [base + "/set", base + "/set"])
            #expect(byCurl.status == 0)
            #expect(lines.sorted() == cookieLines(byCurl.stderr).sorted(), "\(byCurl.stderr)")
            await server.shutdown()
        }

        @Test("--offline shows the Cookie field the jar and -b give")
        func offline() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/in.txt", ".example.com\tTRUE\t/p\tFALSE\t0\tdom\t2\nwww.example.com\tFALSE\t/\tFALSE\t0\thost\t1\n")
            let run = courier(["--offline", "-b", dir + "/in.txt", "-b", "lit=3", "http://www.example.com/p/x"])
            #expect(run.stdout == crlfText("GET /p/x HTTP/1.1\nHost: www.example.com\nUser-Agent: courier/0.1\nAccept: */*\nCookie: dom=2; host=1; lit=3\n\n"))
        }
    }
}
