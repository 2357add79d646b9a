// --generate-completion-script and --generate-man-page: generated from the option table, so every
// option of --help is in them; the scripts are valid for their shells (bash -n, and zsh -n and
// fish -n where those shells are installed) and bash's completes options and values.

import Glibc
import Testing

extension CLITests {
    @Suite("shell completions and the man page")
    struct CompletionTests {
        private func longNames() -> [String] {
            courier(["--help"]).stdoutText.split(separator: "\n").compactMap { line -> String? in
                let text = String(line)
                guard let range = text.firstRange(of: "--") else { return nil }
                let tail: Substring = text[range.lowerBound...]
                return String(tail.prefix { $0 != " " })
            }
        }

        private func check(_ shell: String, syntax: [String]) {
            let run = courier(["--generate-completion-script", shell])
            #expect(run.status == 0, "\(run.stderr)")
            for name in longNames() {
                let bare = String(name.dropFirst(2))
                #expect(run.stdoutText.contains(shell == "fish" ? "-l \(bare) " : name), "\(shell) lacks \(name)")
            }
            guard access(syntax[0], X_OK) == 0 else { return }
            let dir = makeScratchDirectory()
            writeFile(dir + "/script", run.stdout)
            #expect(runProgram(syntax + [dir + "/script"]) == 0, "\(shell) refuses the script")
            unlink(dir + "/script")
            removeScratchDirectory(dir)
        }

        @Test("bash, zsh and fish scripts name every option and parse in their shells")
        func scripts() {
            check("bash", syntax: ["/bin/bash", "-n"])
            check("zsh", syntax: ["/usr/bin/zsh", "-n"])
            check("fish", syntax: ["/usr/bin/fish", "-n"])
            let other = courier(["--generate-completion-script", "tcsh"])
            #expect(other.status == 2)
        }

        @Test("bash completes option names, -X methods and file names for -K")
        func bashCompletes() {
            let script = courier(["--generate-completion-script", "bash"]).stdoutText
            let dir = makeScratchDirectory()
            writeFile(dir + "/c.bash", script)
            writeFile(dir + "/out", "")
            let probe = "source \(dir)/c.bash; cd \(dir); "
                + "COMP_WORDS=(courier --netr); COMP_CWORD=1; _courier; echo \"${COMPREPLY[*]}\" > \(dir)/out; "
                + "COMP_WORDS=(courier -X P); COMP_CWORD=2; _courier; echo \"${COMPREPLY[*]}\" >> \(dir)/out; "
                + "COMP_WORDS=(courier -K c.b); COMP_CWORD=2; _courier; echo \"${COMPREPLY[*]}\" >> \(dir)/out"
            #expect(runProgram(["/bin/bash", "-c", probe]) == 0)
            let lines = String(decoding: readFile(dir + "/out") ?? [], as: UTF8.self).split(separator: "\n")
            #expect(lines == ["--netrc --netrc-file --netrc-optional", "POST PUT PATCH", "c.bash"])
            for name in ["c.bash", "out"] { unlink(dir + "/" + name) }
            removeScratchDirectory(dir)
        }

        @Test("the man page lists every option; docs/courier.1 is current")
        func manPage() {
            let run = courier(["--generate-man-page"])
            #expect(run.status == 0)
            #expect(run.stdoutText.hasPrefix(".\\\" courier(1)"))
            for name in longNames() {
                var escaped = ""
                for c in name { escaped += c == "-" ? "\\-" : String(c) }
                #expect(run.stdoutText.contains("\\fB" + escaped + "\\fR"), "the man page lacks \(name)")
            }
            var docsPath = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            docsPath.removeLast(3)
            let committed = readFile(docsPath.joined(separator: "/") + "/docs/courier.1") ?? []
            #expect(committed == run.stdout, "docs/courier.1 is not current: run scripts/man")
        }
    }
}
