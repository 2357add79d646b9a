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
            #expect(silenced.stderrLines == ["courier: (1) Protocol \"ftp\" not supported"])
            let prefix = courier(["--offline", "--reque", "PUT", "--verb", "http://h/"])
            #expect(prefix.status == 0, "\(prefix.stderr)")
            #expect(prefix.stdoutText.hasPrefix("PUT / HTTP/1.1\r\n"))
        }

        @Test("usage errors are one line with curl's wording and 2", arguments: [
            (["--bogus", "http://x/"], "option --bogus: is unknown"),
            (["-Z", "http://x/"], "option -Z: is unknown"),
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
            #expect(courier(["-V"]).stdoutText == "courier 0.1\n")
            #expect(courier(["http://x/", "--help", "--bogus-after"]).status == 2, "every argument is read before --help acts")
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
