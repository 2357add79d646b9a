// -K/--config and -n/--netrc seen from outside through --offline (the request that would be
// sent): curl's config syntax (dashes or none, = : and space, quotes and escapes, comments, nested
// files, standard input, warnings) and curl's .netrc parser (machine, default, login, password,
// macdef, quoting, the URL's user name). The same behaviours are checked against curl 7.88 itself
// by scripts/cli-differential.

import Glibc
import Testing

extension CLITests {
    @Suite("-K config files and -n netrc files")
    struct ConfigNetrcTests {
        private func withFiles(_ files: [String: String], _ body: (String) -> Void) {
            let dir = makeScratchDirectory()
            for (name, text) in files { writeFile(dir + "/" + name, text) }
            body(dir)
            for name in files.keys { unlink(dir + "/" + name) }
            removeScratchDirectory(dir)
        }

        @Test("-K: every separator, quotes with escapes, comments; the line's options apply in place")
        func configSyntax() {
            let config = "# comment\n  silent\nheader = \"X-A: a\\tb\\\"c\" rest\n--header \"X-B: 2\"\n-H X-C:3\nuser-agent: \"a b\"\n/ c\n* c\ndata=a=1\n"
            withFiles(["cfg": config]) { dir in
                let run = courier(["--offline", "-K", dir + "/cfg", "http://h/"])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdout == crlfText("POST / HTTP/1.1\nHost: h\nUser-Agent: a b\nAccept: */*\nX-A: a\tb\"c\nX-B: 2\nX-C: 3\n"
                                               + "Content-Length: 3\nContent-Type: application/x-www-form-urlencoded\n\n") + Array("a=1".utf8))
                #expect(run.stderr.isEmpty)
            }
        }

        @Test("-K - reads standard input; -K nests; url lines are URLs")
        func configStdinNestedURL() {
            withFiles(["b.cfg": "url = \"http://h/b\"\n"]) { dir in
                let run = courier(["--offline", "-K", "-"], stdin: Array("-K \(dir)/b.cfg\nrequest PUT\n".utf8))
                #expect(run.status == 0, "\(run.stderr)")
                #expect(run.stdoutText.hasPrefix("PUT /b HTTP/1.1\r\n"))
            }
        }

        @Test("-K: problems are curl's warnings with file and line, wrapped at 79 columns; the rest is read")
        func configWarnings() {
            let run = courier(["--offline", "-K", "-", "http://h/"], stdin: Array("bogus\ninclude yes\nheader\nheader X-Y: a b\n".utf8))
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "Warning: <stdin>:1: warning: 'bogus' is unknown\n"
                    + "Warning: <stdin>:2: warning: 'include' had unsupported trailing garbage\n"
                    + "Warning: <stdin>:3: warning: 'header' requires parameter\n"
                    + "Warning: <stdin>:4: warning: 'header' uses unquoted whitespace in the line \n"
                    + "Warning: that may cause side-effects!\n")
            #expect(run.stdoutText.hasPrefix("GET / HTTP/1.1\r\nHost: h\r\n"), "include applied; X-Y: with no value removes nothing")
            let silent = courier(["--offline", "-s", "-K", "-", "http://h/"], stdin: Array("bogus\n".utf8))
            #expect(silent.stderr.isEmpty, "-s before -K mutes the warnings, as in curl")
        }

        @Test("-K: a file that cannot be read is 26")
        func configMissing() {
            let run = courier(["--offline", "-K", "/nonexistent/cfg", "http://h/"])
            #expect(run.status == 26)
            #expect(run.stderr.contains("cannot read config from '/nonexistent/cfg'"))
        }

        private func authorization(_ netrc: String, _ arguments: [String]) -> String? {
            var result: String?
            withFiles([".netrc": netrc]) { dir in
                let run = courier(["--offline"] + arguments, environment: ["HOME": dir])
                #expect(run.status == 0, "\(run.stderr)")
                for line in run.stdoutText.split(separator: "\r\n") where line.hasPrefix("Authorization: Basic ") {
                    let encoded = String(line.dropFirst("Authorization: Basic ".count))
                    result = base64Decoded(encoded)
                }
            }
            return result
        }

        @Test("-n: curl's parser — entries, default, quoting, macdef, comments, the URL's user name")
        func netrc() {
            #expect(authorization("machine h login ann password secret\n", ["-n", "http://h/"]) == "ann:secret")
            #expect(authorization("machine H\n login ann\n password secret\n", ["-n", "http://h/"]) == "ann:secret")
            #expect(authorization("machine x login a password b\ndefault login d password dp\n", ["-n", "http://h/"]) == "d:dp")
            #expect(authorization("machine h login \"a b\" password \"p\\\"w\\tx\"\n", ["-n", "http://h/"]) == "a b:p\"w\tx")
            #expect(authorization("macdef m\nmachine h login evil password e\n\nmachine h login ann password pw\n", ["-n", "http://h/"]) == "ann:pw")
            #expect(authorization("# machine h login no password no\nmachine h login ann password pw#x\n", ["-n", "http://h/"]) == "ann:pw#x")
            #expect(authorization("machine h login ann password a\nmachine h login bob password b\n", ["-n", "http://bob@h/"]) == "bob:b")
            #expect(authorization("machine h login ann password a\nmachine h login bob password b\n", ["-n", "http://carl@h/"]) == "carl:b")
            #expect(authorization("machine h login ann password secret\n", ["-n", "http://bob:url@h/"]) == "bob:secret")
            #expect(authorization("machine h login ann password secret\n", ["--netrc-optional", "http://bob:url@h/"]) == "bob:url")
            #expect(authorization("machine h login ann\n", ["-n", "http://h/"]) == "ann:")
            #expect(authorization("machine x login ann password secret\n", ["-n", "http://h/"]) == nil)
            #expect(authorization("machine h login ann password secret\n", ["-n", "-u", "me:mine", "http://h/"]) == "me:mine")
            withFiles([".netrc": "machine h login \"ann\n"]) { dir in
                let run = courier(["--offline", "-n", "http://h/"], environment: ["HOME": dir])
                #expect(run.status == 26)
                #expect(run.stderr.contains(".netrc parser error"))
            }
        }
    }
}

/// Standard base64 decoded to text (test helper).
private func base64Decoded(_ text: String) -> String {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    var bits = 0, count = 0
    var out: [UInt8] = []
    for byte in text.utf8 where byte != UInt8(ascii: "=") {
        guard let value = alphabet.firstIndex(of: byte) else { continue }
        bits = ((bits << 6) | value) & 0xFFFF
        count += 6
        if count >= 8 {
            count -= 8
            out.append(UInt8((bits >> count) & 0xFF))
        }
    }
    return String(decoding: out, as: UTF8.self)
}
