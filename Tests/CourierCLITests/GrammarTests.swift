// curl's command-line grammar as the hand-written parser reads it (CommandLineParser), seen from
// outside through --offline: short clusters and joined values, --name=value, a value that starts
// with "-", "--", options after URLs, --no-FLAG, unambiguous prefixes, and curl's usage errors.

import Testing

private let ua = "User-Agent: courier/0.1\n"

extension CLITests {
    @Suite("the command-line grammar")
    struct GrammarTests {
        @Test("short options cluster (-sSfL, -Gd) and take joined values (-XPUT, -HX-A:1, -sXPOST, -o-)")
        func shortClusters() {
            let run = courier(["--offline", "-sSfLGd", "a=1", "-XPUT", "-HX-A:1", "http://h/"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout == crlfText("PUT /?a=1 HTTP/1.1\nHost: h\n\(ua)Accept: */*\nX-A: 1\nContent-Length: 0\n\n"))
            let joined = courier(["--offline", "-sXPOST", "http://h/"])
            #expect(joined.stdoutText.hasPrefix("POST / HTTP/1.1\r\n"))
        }

        @Test("--name=value and --name value; a value is the next argument even when it starts with -")
        func longValues() {
            let run = courier(["--offline", "--request=DELETE", "--data", "-x", "--header", "--weird: y", "http://h/"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText.contains("\r\n--weird: y\r\n"), "a field named --weird (a token)")
            #expect(run.stdoutText.hasSuffix("\r\n\r\n-x"))
            let data = courier(["--offline", "--request=PATCH", "-d", "-x", "--data-raw=--y", "http://h/"])
            #expect(data.status == 0, "\(data.stderr)")
            #expect(data.stdoutText.hasPrefix("PATCH / HTTP/1.1\r\n"))
            #expect(data.stdoutText.hasSuffix("\r\n\r\n-x&--y"))
            let equalsInValue = courier(["--offline", "--data=a=b=c", "http://h/"])
            #expect(equalsInValue.stdoutText.hasSuffix("\r\n\r\na=b=c"))
        }

        @Test("-- ends the options; options may follow URLs; - alone is an operand")
        func endOfOptions() {
            let after = courier(["--offline", "http://h/a", "-X", "PUT", "http://h/b"])
            #expect(after.stdoutText.hasPrefix("PUT /a HTTP/1.1\r\n"), "options apply to every URL wherever they are")
            #expect(after.stdoutText.contains("PUT /b HTTP/1.1\r\n"))
            let ended = courier(["--offline", "--", "--data", "-"])
            #expect(ended.status == 0, "\(ended.stderr)")
            #expect(ended.stdoutText.hasPrefix("GET / HTTP/1.1\r\nHost: --data\r\n"), "'--data' after -- is a URL, not an option")
            #expect(ended.stdoutText.contains("GET / HTTP/1.1\r\nHost: -\r\n"), "'-' alone is a URL")
        }

        @Test("--no-FLAG switches a flag off (the last one wins); an unambiguous prefix names an option")
        func negationAndPrefixes() {
            let silenced = courier(["-s", "--no-silent", "--offline", "ftp://x/"])
            #expect(silenced.stderrLines == ["courier: (1) Protocol \"ftp\" not supported or disabled in libcurl"])
            let prefix = courier(["--offline", "--user-ag", "agent", "--verb", "http://h/"])
            #expect(prefix.status == 0, "\(prefix.stderr)")
            #expect(prefix.stdoutText.contains("\r\nUser-Agent: agent\r\n"))
            // As in curl: --reque is the start of both --request and --request-target.
            #expect(courier(["--offline", "--reque", "PUT", "http://h/"]).stderrLines == ["courier: (2) option --reque: is ambiguous; try 'courier --help'"])
        }

        @Test("usage errors are one line with curl's wording and 2", arguments: [
            (["--bogus", "http://x/"], "option --bogus: is unknown"),
            (["-W", "http://x/"], "option -W: is unknown"),
            (["--data-", "x", "http://x/"], "option --data-: is ambiguous"),
            (["http://x/", "-H"], "option -H: requires parameter"),
            (["http://x/", "-sX"], "option -sX: requires parameter"),
            (["--max-redirs"], "option --max-redirs: requires parameter"),
            (["--silent=yes", "http://x/"], "option --silent: takes no value"),
            (["--no-request", "GET", "http://x/"], "option --no-request: is unknown"),
        ])
        func usageErrors(arguments: [String], message: String) {
            let run = courier(arguments)
            #expect(run.status == 2)
            #expect(run.stdout.isEmpty)
            #expect(run.stderrLines == ["courier: (2) \(message); try 'courier --help'"])
        }

        @Test("-h and -V as --help and --version; --help lists every option of the table")
        func helpAndVersion() {
            let help = courier(["-h"])
            #expect(help.status == 0)
            for name in ["--request METHOD", "-H, --header FIELD", "--data-urlencode DATA", "--create-file-mode MODE", "-C, --continue-at -",
                         "--write-out FORMAT", "--max-filesize BYTES", "--resolve HOST:PORT:ADDRESS", "--pinnedcert FILE", "-V, --version"] {
                #expect(help.stdoutText.contains(name), "\(name)")
            }
            #expect(courier(["-V"]).stdoutText == "courier 0.1\nProtocols: http https\nFeatures: IDN IPv6 Largefile libz SSL\n")
            #expect(courier(["http://x/", "--help", "--bogus-after"]).status == 2, "every argument is read before --help acts")
        }

        @Test("--help and docs/cli.md list every option of the table, and every flag of issue 19 that courier has")
        func helpAndDocsListEveryOption() throws {
            let help = courier(["--help"]).stdoutText
            var docsPath = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            docsPath.removeLast(3)
            let docs = String(decoding: readFile(docsPath.joined(separator: "/") + "/docs/cli.md") ?? [], as: UTF8.self)
            #expect(!docs.isEmpty)
            let longNames = help.split(separator: "\n").compactMap { line -> String? in
                let text = String(line)
                guard let range = text.firstRange(of: "--") else { return nil }
                let tail: Substring = text[range.lowerBound...]
                return String(tail.prefix { $0 != " " })
            }
            #expect(longNames.count > 90)
            for name in longNames { #expect(docs.contains("`" + name) || docs.contains(", " + name), "docs/cli.md lacks \(name)") }
            let issue19 = ["-O", "--remote-name-all", "-J", "-R", "--output-dir", "--create-dirs", "--no-clobber", "--remove-on-error",
                           "-D", "--etag-save", "--etag-compare", "--fail-with-body", "-N", "--stderr", "--no-progress-meter", "-#", "-V",
                           "-A", "-e", "-r", "-z", "-T", "--url-query", "--form-string", "--data-ascii", "--request-target",
                           "--path-as-is", "--post301", "--post302", "--post303", "--location-trusted", "--url", "-:", "--next", "-g",
                           "--basic", "--anyauth", "--oauth2-bearer", "--disallow-username-in-url", "--tlsv1.2", "--tlsv1.3",
                           "--tls-max", "--ciphers", "--tls13-ciphers", "--no-sessionid", "-4", "-6", "--connect-to", "--no-keepalive",
                           "--tcp-nodelay", "--proto", "--proto-redir", "--proto-default", "--fail-early", "--happy-eyeballs-timeout-ms"]
            for flag in issue19 {
                let listed = flag.hasPrefix("--") ? help.contains(flag + " ") || help.contains(flag + "\n") : help.contains(" " + flag + ", ")
                #expect(listed, "--help lacks \(flag)")
            }
        }

        @Test("globs expand as curl's (the last pattern fastest), #N names -o files, -g turns it off")
        func globs() {
            let run = courier(["--offline", "http://h/{a,b}/[01-02]?s=[a-c:2]"])
            let lines = run.stdoutText.split(separator: "\r\n").filter { $0.hasPrefix("GET ") }
            #expect(lines == ["GET /a/01?s=a HTTP/1.1", "GET /a/01?s=c HTTP/1.1", "GET /a/02?s=a HTTP/1.1", "GET /a/02?s=c HTTP/1.1",
                              "GET /b/01?s=a HTTP/1.1", "GET /b/01?s=c HTTP/1.1", "GET /b/02?s=a HTTP/1.1", "GET /b/02?s=c HTTP/1.1"])
            let off = courier(["--offline", "-g", "http://h/{a,b}"])
            #expect(off.stdoutText.hasPrefix("GET /%7Ba,b%7D HTTP/1.1\r\n"))
            let bad = courier(["--offline", "http://h/[3-1]"])
            #expect(bad.status == 3)
            #expect(bad.stderr == "courier: (3) bad range in URL position 15:\nhttp://h/[3-1]\n              ^\n")
        }

        @Test("dot segments are removed unless --path-as-is; -T appends its file name to a URL ending in /")
        func pathsAndUploads() {
            #expect(courier(["--offline", "http://h/a/../b/./c/."]).stdoutText.hasPrefix("GET /b/c/ HTTP/1.1\r\n"))
            #expect(courier(["--offline", "--path-as-is", "http://h/a/../b"]).stdoutText.hasPrefix("GET /a/../b HTTP/1.1\r\n"))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/up load.txt", "data")
            let put = courier(["--offline", "-T", dir + "/up load.txt", "http://h/put/"])
            // A small upload does not ask Expect: 100-continue (curl's -T does: docs/cli.md).
            #expect(put.stdout == crlfText("PUT /put/up%20load.txt HTTP/1.1\nHost: h\nUser-Agent: courier/0.1\nAccept: */*\nContent-Length: 4\n\ndata"))
        }

        @Test("10,000 URLs on one command line are each requested, in order")
        func manyURLs() {
            let urls = (0..<10_000).map { "http://h/\($0)" }
            let run = courier(["--offline", "-H", "X: 1"] + urls)
            #expect(run.status == 0)
            let lines = run.stdoutText.split(separator: "\r\n").filter { $0.hasPrefix("GET ") }
            #expect(lines.count == 10_000)
            #expect(lines.first == "GET /0 HTTP/1.1")
            #expect(lines.last == "GET /9999 HTTP/1.1")
        }

        @Test("courier bench: usage errors are 2, a malformed URL 3")
        func bench() {
            #expect(courier(["bench", "--help"]).stdoutText.contains("courier bench get URL"))
            #expect(courier(["bench", "get"]).status == 2)
            #expect(courier(["bench", "get", "http://127.0.0.1:1/", "--requests", "many"]).status == 2)
            #expect(courier(["bench", "bogus"]).status == 2)
            #expect(courier(["bench", "download", "http://[::1/"]).status == 3)
            #expect(courier(["bench", "upload", "http://127.0.0.1:1/"]).status == 2, "--file is needed")
        }
    }
}
