// -w/--write-out: curl's escapes, variables, %% and unknown variables, once per URL.

import Testing

extension CLITests {
    @Suite("-w, --write-out")
    struct WriteOutTests {
        @Test("escapes, %%, %{ without }, and an unknown variable (warned on stderr, prints nothing)")
        func syntax() {
            let run = courier(["--offline", "-s", "-w", "[%{http_code}]\\t%%\\n\\r\\x%{nope}%z%{", "http://h/"])
            let head = crlfText("GET / HTTP/1.1\nHost: h\nUser-Agent: courier/0.1\nAccept: */*\n\n")
            #expect(run.stdout == head + Array("[000]\t%\n\r\\x%z%{".utf8))
            #expect(run.stderrLines == ["courier: unknown --write-out variable: 'nope'"])
        }

        @Test("the variables of design §9 for an offline request, once per URL")
        func variables() {
            let run = courier(["--offline", "-d", "abc", "-w", "%{http_code} %{num_connects} %{num_redirects} %{size_download} %{size_upload} %{time_total} %{url_effective}|",
                               "http://h/a", "http://u:p@h:81/b"])
            let text = run.stdoutText
            #expect(text.hasSuffix("abc000 0 0 0 3 0.000000 http://h:81/b|"))
            #expect(text.contains("abc000 0 0 0 3 0.000000 http://h/a|POST /b"))
        }

        @Test("-w is printed for a failed URL too, with exitcode and errormsg")
        func failedURL() {
            let run = courier(["--offline", "-s", "-w", "%{exitcode}:%{errormsg}\n", "ftp://x/"])
            #expect(run.status == 1)
            #expect(run.stdoutText == "1:Protocol \"ftp\" not supported or disabled in libcurl\n")
        }

        @Test("-w @FILE reads the format from a file; %{stderr} switches stream")
        func formatFile() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/fmt", "code=%{http_code}%{stderr}to-err\\n")
            let run = courier(["--offline", "-w", "@" + dir + "/fmt", "http://h/"])
            #expect(run.stdoutText.hasSuffix("\r\n\r\ncode=000"))
            #expect(run.stderr == "to-err\n")
        }
    }
}
