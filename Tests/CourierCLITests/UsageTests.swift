// Usage errors (2), invalid input before anything is sent (43), URLs (3, 1), --help and --version.

import Testing

extension CLITests {
    @Suite("usage and input errors")
    struct UsageTests {
        @Test("no URL is a usage error")
        func noURL() {
            let run = courier([])
            #expect(run.status == 2)
            #expect(run.stdout.isEmpty)
            #expect(run.stderrLines == ["courier: (2) no URL specified!"])
        }

        @Test("the parser's own errors come out as curl's line with 2")
        func unknownOption() {
            for arguments in [["--bogus", "http://x/"], ["-H"], ["--max-redirs"]] {
                let run = courier(arguments)
                #expect(run.status == 2, "\(arguments)")
                #expect(run.stderrLines.count == 1, "\(arguments)")
                #expect(run.stderr.hasPrefix("courier: (2) "), "\(arguments)")
            }
        }

        @Test("-s hides the error line, -S brings it back; the code is kept")
        func silentAndShowError() {
            #expect(courier(["-s", "--offline", "ftp://x/"]).stderr.isEmpty)
            #expect(courier(["-s", "--offline", "ftp://x/"]).status == 1)
            #expect(courier(["-sS", "--offline", "ftp://x/"]).stderrLines == ["courier: (1) Protocol \"ftp\" not supported or disabled in libcurl"])
        }

        @Test("flag conflicts of design §9 are usage errors")
        func conflicts() {
            let cases: [[String]] = [
                ["--params", "{\"a\":1}", "--json", "{}", "http://x/"],
                ["--params", "[1,2]", "http://x/"],
                ["--params", "{not json", "http://x/"],
                ["-F", "a=b", "-G", "http://x/"],
                ["-F", "a=b", "-X", "head", "http://x/"],
                ["-F", "a=b", "-d", "c", "http://x/"],
                ["-I", "-d", "a", "http://x/"],
                ["--pinnedpubkey", "sha256//AAAA", "http://x/"],
                ["--pinnedcert", "/nonexistent", "http://x/"],
                ["-C", "-", "http://x/"],
                ["--max-redirs", "many", "http://x/"],
                ["-m", "soon", "http://x/"],
            ]
            for arguments in cases {
                let run = courier(arguments)
                #expect(run.status == 2, "\(arguments): \(run.stderr)")
                #expect(run.stdout.isEmpty, "\(arguments)")
                #expect(run.stderr.hasPrefix("courier: (2) "), "\(arguments)")
            }
        }

        @Test("a method that is not a token is 43, before anything is sent")
        func invalidMethod() {
            for method in ["G T", "GET\r\n", "", "(x)"] {
                let run = courier(["-X", method, "http://127.0.0.1:1/"])
                #expect(run.status == 43, "\(method)")
                #expect(run.stderr.hasPrefix("courier: (43) "))
            }
        }

        @Test("a header with CR, LF or a bad name is 43, before anything is sent")
        func invalidHeader() {
            for field in ["X-A: a\r\nInjected: 1", "X-A: a\nb", "Bad Name: x", "X-A: a\u{7F}"] {
                let run = courier(["-H", field, "http://127.0.0.1:1/"])
                #expect(run.status == 43, "\(field)")
                #expect(run.stderrLines.count == 1)
            }
        }

        @Test("URLs: malformed is 3, an unsupported scheme 1, and the last URL's code wins")
        func urls() {
            #expect(courier(["--offline", "http://a b/"]).status == 3)
            #expect(courier(["--offline", "http://[::1/"]).status == 3)
            #expect(courier(["--offline", "http://"]).status == 3)
            #expect(courier(["--offline", "ftp://example.com/"]).status == 1)
            let run = courier(["--offline", "ftp://x/", "http://x/"])
            #expect(run.status == 0)
            #expect(run.stderrLines == ["courier: (1) Protocol \"ftp\" not supported or disabled in libcurl"])
            #expect(courier(["--offline", "http://x/", "http://a b/"]).status == 3)
        }

        @Test("--help prints to stdout and exits 0; so does --version")
        func helpAndVersion() {
            let help = courier(["--help"])
            #expect(help.status == 0)
            #expect(help.stdoutText.contains("--write-out"))
            #expect(help.stdoutText.contains("--pinnedpubkey"))
            let version = courier(["--version"])
            #expect(version.status == 0)
            #expect(version.stdoutText.hasPrefix("courier "))
        }

        @Test("an unreadable data file is 26")
        func unreadableFile() {
            for arguments in [["-d", "@/nonexistent/file"], ["--data-binary", "@/nonexistent"], ["--data-urlencode", "a@/nonexistent"],
                              ["-F", "f=@/nonexistent"], ["--json", "@/nonexistent"]] {
                let run = courier(arguments + ["--offline", "http://x/"])
                #expect(run.status == 26, "\(arguments)")
                #expect(run.stdout.isEmpty)
            }
        }
    }
}
