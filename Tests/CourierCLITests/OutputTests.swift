// Where -o writes (docs/cli.md "Where -o writes"): each case runs as root and as nobody (setpriv)
// when the tests run as root, against the in-process loopback server. Devices are made with
// mknod in a scratch directory; the real /dev/null is only opened for writing, as curl opens it,
// and must still be the same device afterwards.

import CourierLoopbackServer
import Glibc
import Testing

/// What stat(2) says about a path, for before/after comparisons.
struct PathStatus: Equatable {
    var type: mode_t
    var permissions: mode_t
    var owner: uid_t
    var group: gid_t
    var device: UInt
    var inode: UInt
    var links: UInt

    var isCharacterDevice: Bool { type == S_IFCHR }
    var isFIFO: Bool { type == S_IFIFO }
    var isRegular: Bool { type == S_IFREG }
    var isSymbolicLink: Bool { type == S_IFLNK }
}

/// lstat(2) of `path`, nil when nothing is there.
func pathStatus(_ path: String) -> PathStatus? {
    var info = stat()
    guard lstat(path, &info) == 0 else { return nil }
    return PathStatus(type: info.st_mode & S_IFMT, permissions: info.st_mode & 0o7777, owner: info.st_uid, group: info.st_gid,
                      device: UInt(info.st_rdev), inode: UInt(info.st_ino), links: UInt(info.st_nlink))
}

/// A scratch directory `user` may write into.
func makeDirectory(for user: RunAs) -> String {
    let dir = makeScratchDirectory()
    chown(dir, user.uid, user.gid)
    chmod(dir, 0o755)
    return dir
}

/// A FIFO reader: `cat FIFO > OUT`, started now or after `delay`.
struct FIFOReader {
    let pid: pid_t
    let output: String

    init(_ fifo: String, output: String, delay: String? = nil) {
        self.output = output
        let command = (delay.map { "sleep \($0); " } ?? "") + "exec cat \"$0\""
        pid = spawnProgram(["/bin/sh", "-c", command, fifo], stdoutPath: output)
    }

    /// Waits for the reader to see end of file; what it read.
    func finish() -> [UInt8]? {
        _ = waitForExit(pid)
        return readFile(output)
    }
}

extension CLITests {
    @Suite("where -o writes")
    struct OutputTests {
        @Test("-o /dev/null -w '%{http_code}': the idiom works, and /dev/null stays the same device", arguments: RunAs.all)
        func devNull(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let before = pathStatus("/dev/null")
            let run = courier(["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/bytes/70000"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "200")
            let after = pathStatus("/dev/null")
            #expect(after == before)
            #expect(after?.isCharacterDevice == true)
            await server.shutdown()
        }

        @Test("a character device made with mknod is written into and is still that device afterwards", arguments: RunAs.all)
        func characterDevice(user: RunAs) async throws {
            guard getuid() == 0 else { return }  // mknod needs CAP_MKNOD
            let server = try await LoopbackServer.start()
            let dir = makeDirectory(for: user)
            defer { removeScratchDirectory(dir) }
            let device = dir + "/null"
            #expect(runProgram(["/usr/bin/mknod", "-m", "666", device, "c", "1", "3"]) == 0)
            let before = pathStatus(device)
            let run = courier(["-o", device, "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/bytes/200000"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "200")
            #expect(pathStatus(device) == before)
            #expect(pathStatus(device)?.isCharacterDevice == true)
            #expect(directoryEntries(dir) == ["null"], "no temporary file beside the device")
            await server.shutdown()
        }

        @Test("a FIFO with a reader gets the whole body (more than the pipe holds) and stays a FIFO", arguments: RunAs.all)
        func fifoWithReader(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let dir = makeDirectory(for: user)
            let out = makeScratchDirectory()
            defer {
                removeScratchDirectory(dir)
                removeScratchDirectory(out)
            }
            let fifo = dir + "/pipe"
            #expect(mkfifo(fifo, 0o666) == 0)
            chmod(fifo, 0o666)
            let before = pathStatus(fifo)
            let reader = FIFOReader(fifo, output: out + "/read")
            let run = courier(["-o", fifo, "http://127.0.0.1:\(server.port)/bytes/300000"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(reader.finish() == pattern(300000))
            #expect(pathStatus(fifo) == before)
            #expect(directoryEntries(dir) == ["pipe"])

            // A reader that comes later: the open waits for it, as curl's does.
            let late = FIFOReader(fifo, output: out + "/late", delay: "0.4")
            let waited = courier(["-o", fifo, "http://127.0.0.1:\(server.port)/bytes/1000"], as: user)
            #expect(waited.status == 0, "\(waited.stderr)")
            #expect(late.finish() == pattern(1000))
            #expect(pathStatus(fifo)?.isFIFO == true)
            await server.shutdown()
        }

        @Test("a symbolic link is followed: the link stays a link, the file it names is replaced with its mode", arguments: RunAs.all)
        func symbolicLink(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let dir = makeDirectory(for: user)
            defer { removeScratchDirectory(dir) }
            let target = dir + "/target", link = dir + "/link"
            writeFile(target, "old")
            chown(target, user.uid, user.gid)
            chmod(target, 0o640)
            #expect(symlink("target", link) == 0)
            let run = courier(["-o", link, "http://127.0.0.1:\(server.port)/bytes/5000"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(pathStatus(link)?.isSymbolicLink == true)
            #expect(readFile(target) == pattern(5000))
            #expect(pathStatus(target)?.permissions == 0o640)
            #expect(directoryEntries(dir) == ["link", "target"])

            // A dangling link: the file it names is created; the link still names it.
            let dangling = dir + "/dangling"
            #expect(symlink("created", dangling) == 0)
            let created = courier(["-o", dangling, "http://127.0.0.1:\(server.port)/bytes/10"], as: user, umask: 0o022)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(pathStatus(dangling)?.isSymbolicLink == true)
            #expect(readFile(dir + "/created") == pattern(10))
            #expect(pathStatus(dir + "/created")?.permissions == 0o644)
            await server.shutdown()
        }

        @Test("a read-only directory with a writable file: the file is written in place; a new file there is 23", arguments: RunAs.all)
        func readOnlyDirectory(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let dir = makeScratchDirectory()
            defer {
                if user.isPrivileged { runProgram(["/usr/bin/chattr", "-i", dir]) }
                removeScratchDirectory(dir)
            }
            let file = dir + "/file"
            writeFile(file, "old contents, longer than the new body")
            chmod(file, 0o666)
            if user.isPrivileged {
                // Root writes any directory; an immutable one refuses new names to root too.
                guard runProgram(["/usr/bin/chattr", "+i", dir]) == 0 else {
                    Issue.record("chattr +i is not available here: the root case cannot be set up")
                    return
                }
            } else {
                chmod(dir, 0o755)  // owned by root: not writable for the user
            }
            let before = pathStatus(file)
            let run = courier(["-o", file, "http://127.0.0.1:\(server.port)/bytes/20"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(readFile(file) == pattern(20))
            #expect(pathStatus(file)?.inode == before?.inode, "the same file, written in place")
            #expect(pathStatus(file)?.permissions == 0o666)
            let refused = courier(["-o", dir + "/new", "http://127.0.0.1:\(server.port)/bytes/20"], as: user)
            #expect(refused.status == 23)
            #expect(refused.stderr.hasPrefix("courier: (23) Failure writing output to destination"))
            #expect(directoryEntries(dir) == ["file"])
            await server.shutdown()
        }

        @Test("umask 022 and 077: a new file is 0666 & ~umask (or --create-file-mode & ~umask); an existing file keeps its mode",
              arguments: RunAs.all)
        func umaskAndModes(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let url = "http://127.0.0.1:\(server.port)/bytes/100"
            for mask: mode_t in [0o022, 0o077] {
                let dir = makeDirectory(for: user)
                defer { removeScratchDirectory(dir) }
                #expect(courier(["-o", dir + "/new", url], as: user, umask: mask).status == 0)
                #expect(pathStatus(dir + "/new")?.permissions == 0o666 & ~mask)
                #expect(pathStatus(dir + "/new")?.owner == user.uid)
                #expect(readFile(dir + "/new") == pattern(100))
                #expect(courier(["--create-file-mode", "0751", "-o", dir + "/moded", url], as: user, umask: mask).status == 0)
                #expect(pathStatus(dir + "/moded")?.permissions == 0o751 & ~mask)
                writeFile(dir + "/old", "x")
                chown(dir + "/old", user.uid, user.gid)
                chmod(dir + "/old", 0o604)
                #expect(courier(["-o", dir + "/old", url], as: user, umask: mask).status == 0)
                #expect(pathStatus(dir + "/old")?.permissions == 0o604)
                #expect(readFile(dir + "/old") == pattern(100))
                #expect(directoryEntries(dir) == ["moded", "new", "old"])
            }
            for bad in ["0800", "1777", "rw", ""] {
                let run = courier(["--create-file-mode", bad, "-o", "/dev/null", url], as: user)
                #expect(run.status == 2, "\(bad)")
            }
            await server.shutdown()
        }

        @Test("an existing file is replaced by a new inode: its owner is kept where allowed, its other hard links keep the old bytes",
              arguments: RunAs.all)
        func ownerAndHardLinks(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let dir = makeDirectory(for: user)
            defer { removeScratchDirectory(dir) }
            let file = dir + "/file", other = dir + "/other-name"
            writeFile(file, "old")
            // As root, a file owned by someone else keeps that owner; as nobody, the file is
            // nobody's own.
            let owner: uid_t = user.isPrivileged ? 65534 : user.uid
            chown(file, owner, user.isPrivileged ? 65534 : user.gid)
            chmod(file, 0o664)
            #expect(link(file, other) == 0)
            let before = pathStatus(file)
            let run = courier(["-o", file, "http://127.0.0.1:\(server.port)/bytes/30"], as: user)
            #expect(run.status == 0, "\(run.stderr)")
            let after = pathStatus(file)
            #expect(readFile(file) == pattern(30))
            #expect(after?.inode != before?.inode, "atomic replace: a new file")
            #expect(after?.owner == owner)
            #expect(after?.permissions == 0o664)
            #expect(readFile(other) == Array("old".utf8), "the other hard link keeps the old contents")
            await server.shutdown()
        }

        @Test("-C - refuses a device, a FIFO and standard output with 2, touching nothing", arguments: RunAs.all)
        func resumeRefusesSpecialFiles(user: RunAs) async throws {
            let server = try await LoopbackServer.start()
            let dir = makeDirectory(for: user)
            defer { removeScratchDirectory(dir) }
            let fifo = dir + "/pipe"
            #expect(mkfifo(fifo, 0o666) == 0)
            chmod(fifo, 0o666)
            var targets = ["/dev/null", fifo, "/dev/stdout"]
            if getuid() == 0 {
                #expect(runProgram(["/usr/bin/mknod", "-m", "666", dir + "/null", "c", "1", "3"]) == 0)
                targets.append(dir + "/null")
            }
            for target in targets {
                let before = pathStatus(target)
                let run = courier(["-C", "-", "-o", target, "http://127.0.0.1:\(server.port)/bytes/10"], as: user)
                #expect(run.status == 2, "\(target): \(run.stderr)")
                #expect(run.stderr.hasPrefix("courier: (2) -C - cannot resume in \(target)"), "\(target)")
                #expect(run.stdout.isEmpty)
                #expect(pathStatus(target) == before, "\(target)")
            }
            await server.shutdown()
        }

        @Test("/dev/stdout and /dev/fd/1 are written through the process's own descriptor, in order with -w")
        func standardOutputAliases() async throws {
            let server = try await LoopbackServer.start()
            for alias in ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"] {
                let run = courier(["-o", alias, "-w", "|%{http_code}", "http://127.0.0.1:\(server.port)/bytes/70000"])
                #expect(run.status == 0, "\(alias): \(run.stderr)")
                #expect(run.stdout == pattern(70000) + Array("|200".utf8), "\(alias)")
            }
            let stderrRun = courier(["-o", "/dev/stderr", "http://127.0.0.1:\(server.port)/bytes/26"])
            #expect(stderrRun.stderr == String(decoding: pattern(26), as: UTF8.self))
            let closed = courier(["-o", "/dev/fd/987", "http://127.0.0.1:\(server.port)/bytes/26"])
            #expect(closed.status == 23, "a descriptor that is not open")
            await server.shutdown()
        }

        @Test("a directory is 23, and nothing is created in it")
        func directory() async throws {
            let server = try await LoopbackServer.start()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let run = courier(["-o", dir, "http://127.0.0.1:\(server.port)/bytes/10"])
            #expect(run.status == 23)
            #expect(run.stderrLines.count == 1)
            #expect(run.stderr.hasPrefix("courier: (23) Failure writing output to destination"))
            #expect(directoryEntries(dir).isEmpty)
            await server.shutdown()
        }
    }
}
