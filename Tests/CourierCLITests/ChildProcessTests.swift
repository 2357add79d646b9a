// The test harness itself: a program a test starts (courier, curl, openssl s_server, a shell)
// inherits none of the test process's descriptors above 2. A server left behind by a crashed test
// must not hold a pipe, a socket or the build lock `swift test` runs under.

import CourierTestSupport
import Glibc
import Testing

extension CLITests {
    @Suite("child processes")
    struct ChildProcessTests {
        @Test("a child inherits its three standard streams and nothing else, even a descriptor open without close-on-exec")
        func onlyStandardStreams() throws {
            let scratch = makeScratchDirectory()
            defer { rmdir(scratch) }
            // Open without O_CLOEXEC: posix_spawn alone would hand it to the child.
            let leaky = open("/dev/null", O_RDONLY)
            #expect(leaky > 2)
            defer { close(leaky) }
            // The glob reads the directory through a descriptor of its own, listed but closed by the
            // time the loop runs: only descriptors still open are printed.
            let listing = scratch + "/fds"
            defer { unlink(listing) }
            let pid = ChildProcess.spawn(["/bin/sh", "-c", "for f in /proc/$$/fd/*; do [ -e \"$f\" ] && echo ${f##*/}; done; true"],
                                         stdout: .path(listing, O_WRONLY | O_CREAT | O_TRUNC), stderr: .path("/dev/null", O_WRONLY))
            #expect(ChildProcess.wait(pid) == 0)
            let names = String(decoding: readFile(listing) ?? [], as: UTF8.self).split(separator: "\n").map(String.init).sorted()
            #expect(names == ["0", "1", "2"])
        }

        @Test("a descriptor given as a stream is dup2'd into place before the rest are closed")
        func descriptorRedirect() throws {
            let scratch = makeScratchDirectory()
            defer { rmdir(scratch) }
            let path = scratch + "/out"
            defer { unlink(path) }
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
            #expect(fd > 2)
            let pid = ChildProcess.spawn(["/bin/sh", "-c", "echo out; echo err >&2"], stdout: .descriptor(fd), stderr: .standardOutput)
            close(fd)
            #expect(ChildProcess.wait(pid) == 0)
            #expect(String(decoding: readFile(path) ?? [], as: UTF8.self) == "out\nerr\n")
        }
    }
}
