// OutputTarget and OutputFile: the -o rules below the CLI — symbolic links followed, the
// process's own descriptors recognised, special files written as they are, regular files replaced
// atomically with their mode kept, in-place writes, appends, and nothing left behind.

import Testing
import Glibc
@testable @_spi(KernelMocking) import CourierPosix
import CourierBytes

private func scratchDirectory() -> String {
    var template = Array("/tmp/courier-output-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil)
    return String(cString: made!)
}

private func entries(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

private func removeAll(_ path: String) {
    for name in entries(path) { unlink(path + "/" + name) }
    rmdir(path)
}

private func contents(_ path: String) -> String? {
    guard let file = try? File.open(path) else { return nil }
    defer { try? file.close() }
    var buffer = ByteBuffer()
    while (try? file.read(into: &buffer, maxBytes: 65536, at: Int64(buffer.readableBytes))) ?? 0 > 0 {}
    return buffer.readableString
}

private func create(_ path: String, _ text: String, mode: mode_t = 0o644) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)
    precondition(fd >= 0)
    _ = text.withCString { write(fd, $0, strlen($0)) }
    fchmod(fd, mode)
    close(fd)
}

private func writeAll(_ output: OutputFile, _ text: String) throws {
    #expect(try output.write(ByteBuffer(string: text)) == text.utf8.count)
}

extension PosixTests {
    @Suite("OutputTarget and OutputFile")
    struct OutputFileTests {
        @Test("resolve: links are followed (relative and absolute, chains), a dangling link names the file to create")
        func resolveLinks() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            create(dir + "/file", "x")
            symlink("file", dir + "/relative")
            symlink(dir + "/relative", dir + "/chain")
            symlink("missing", dir + "/dangling")
            mkfifo(dir + "/fifo", 0o600)
            symlink("fifo", dir + "/fifo-link")

            let chain = try OutputTarget.resolve(dir + "/chain")
            #expect(chain.resolvedPath == dir + "/file")
            guard case .regularFile(let status) = chain.kind else { Issue.record("\(chain.kind)"); return }
            #expect(status.permissions == 0o644)
            #expect(!chain.isWrittenDirectly)
            let dangling = try OutputTarget.resolve(dir + "/dangling")
            #expect(dangling.kind == .newFile)
            #expect(dangling.resolvedPath == dir + "/missing")
            #expect(try OutputTarget.resolve(dir + "/fifo-link").kind == .special(.fifo))
            #expect(try OutputTarget.resolve(dir).kind == .directory)
            #expect(try OutputTarget.resolve("/dev/null").kind == .special(.characterDevice))
            #expect(try OutputTarget.resolve(dir + "/nothing").kind == .newFile)
        }

        @Test("resolve: a loop of links is ELOOP after 40")
        func resolveLoop() {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            symlink("b", dir + "/a")
            symlink("a", dir + "/b")
            #expect(throws: Errno(rawValue: ELOOP)) { _ = try OutputTarget.resolve(dir + "/a") }
        }

        @Test("resolve: /dev/stdout, /dev/stderr, /dev/fd/N and /proc/self/fd/N are this process's descriptors")
        func resolveDescriptors() throws {
            #expect(try OutputTarget.resolve("/dev/stdout").kind == .descriptor(1))
            #expect(try OutputTarget.resolve("/dev/stderr").kind == .descriptor(2))
            #expect(try OutputTarget.resolve("/dev/fd/1").kind == .descriptor(1))
            #expect(try OutputTarget.resolve("/proc/self/fd/2").kind == .descriptor(2))
            #expect(try OutputTarget.resolve("/proc/\(getpid())/fd/1").kind == .descriptor(1))
            #expect(try OutputTarget.resolve("/proc/thread-self/fd/1").kind == .descriptor(1))
            #expect(try OutputTarget.resolve("/proc/1/fd/0").kind != .descriptor(0), "another process's descriptor is not ours")
        }

        @Test("a new file: an unnamed temporary file (nothing in the directory), the mode less the umask, linked at commit; discard leaves nothing")
        func newFile() async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/out"), mode: 0o640)
                #expect(output.strategy == .replace)
                #expect(output.isUnnamed)
                #expect(output.temporaryPath == nil)
                try writeAll(output, "hello")
                #expect(entries(dir).isEmpty, "no name at all before commit")
                try output.commit()
                #expect(entries(dir) == ["out"])
                #expect(contents(dir + "/out") == "hello")
                var info = stat()
                stat(dir + "/out", &info)
                let mask = umask(0)
                umask(mask)
                #expect(info.st_mode & 0o777 == 0o640 & ~mask)

                let abandoned = try OutputFile.create(for: try OutputTarget.resolve(dir + "/gone"))
                try writeAll(abandoned, "partial")
                abandoned.discard()
                #expect(entries(dir) == ["out"])
            }
        }

        @Test("an existing file keeps its mode (setgid included) and is replaced atomically")
        func existingFile() async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                create(dir + "/out", "old", mode: 0o2640)
                var before = stat()
                stat(dir + "/out", &before)
                let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/out"))
                try writeAll(output, "new")
                #expect(contents(dir + "/out") == "old")
                #expect(entries(dir) == ["out"])
                try output.commit()
                var after = stat()
                stat(dir + "/out", &after)
                #expect(contents(dir + "/out") == "new")
                #expect(after.st_mode & 0o7777 == 0o2640)
                #expect(after.st_ino != before.st_ino)
                #expect(entries(dir) == ["out"])
            }
        }

        @Test("keepPartial keeps the temporary file; append cuts a longer file back and moves it to its destination")
        func partialAndAppend() async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                create(dir + "/dest", "previous", mode: 0o604)
                let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/dest"))
                try writeAll(output, "abcdef")
                let partial = try #require(output.keepPartial())
                #expect(partial.hasPrefix(dir + "/.courier-"), "the unnamed file got a name to be resumed from")
                #expect(contents(partial) == "abcdef")
                #expect(contents(dir + "/dest") == "previous")

                let resumed = try OutputFile.append(to: try OutputTarget.resolve(partial), at: 4,
                                                    movingTo: try OutputTarget.resolve(dir + "/dest"))
                #expect(resumed.offset == 4)
                try writeAll(resumed, "EF!")
                try resumed.commit()
                #expect(contents(dir + "/dest") == "abcdEF!")
                var info = stat()
                stat(dir + "/dest", &info)
                #expect(info.st_mode & 0o7777 == 0o604, "the replaced file's mode")
                #expect(entries(dir) == ["dest"])

                #expect(throws: Errno.invalidArgument) {
                    _ = try OutputFile.append(to: try OutputTarget.resolve(dir + "/dest"), at: 100)
                }
                #expect(throws: Errno.invalidArgument) {
                    _ = try OutputFile.append(to: try OutputTarget.resolve("/dev/null"), at: 0)
                }
            }
        }

        @Test("where O_TMPFILE is refused (EOPNOTSUPP, EISDIR), a named temporary file is used and renamed", arguments: [Errno.notSupported, .isDirectory])
        func namedFallback(refusal: Errno) async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                create(dir + "/out", "old", mode: 0o640)
                for path in [dir + "/out", dir + "/new"] {
                    let mock = KernelMock(replies: [.error(refusal)], matching: { $0 == .other(name: "open(O_TMPFILE)", fd: -1) })
                    let output = try KernelMock.$current.withValue(mock) { try OutputFile.create(for: try OutputTarget.resolve(path)) }
                    #expect(mock.calls.contains(.other(name: "open(O_TMPFILE)", fd: -1)))
                    #expect(!output.isUnnamed)
                    let temporary = try #require(output.temporaryPath)
                    #expect(temporary.hasPrefix(dir + "/.courier-"))
                    try writeAll(output, "new")
                    try output.commit()
                    #expect(contents(path) == "new")
                }
                #expect(entries(dir) == ["new", "out"])
                var info = stat()
                stat(dir + "/out", &info)
                #expect(info.st_mode & 0o7777 == 0o640)
                let mock = KernelMock(replies: [.error(.notSupported)], matching: { $0 == .other(name: "open(O_TMPFILE)", fd: -1) })
                let abandoned = try KernelMock.$current.withValue(mock) { try OutputFile.create(for: try OutputTarget.resolve(dir + "/gone")) }
                #expect(entries(dir).count == 3)
                abandoned.discard()
                #expect(entries(dir) == ["new", "out"], "the named temporary file is removed")
            }
        }

        @Test("a FIFO: ENXIO without a reader; with one, short writes when it is full, and it stays a FIFO")
        func fifo() async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                let path = dir + "/fifo"
                mkfifo(path, 0o600)
                let target = try OutputTarget.resolve(path)
                #expect(target.isWrittenDirectly)
                #expect(!target.isResumable)
                #expect(throws: Errno.noSuchDeviceOrAddress) { _ = try OutputFile.create(for: target) }
                let reader = open(path, O_RDONLY | O_NONBLOCK)
                #expect(reader >= 0)
                defer { close(reader) }
                let output = try OutputFile.create(for: target)
                #expect(output.strategy == .direct)
                let big = ByteBuffer(bytes: [UInt8](repeating: 7, count: 1 << 20))
                let taken = try output.write(big)
                #expect(taken > 0 && taken < 1 << 20, "the pipe holds less than 1 MiB: a short write, not a blocked thread")
                #expect(!output.waitUntilWritable(milliseconds: 10), "still full")
                var sink = [UInt8](repeating: 0, count: 1 << 16)
                #expect(read(reader, &sink, sink.count) > 0)
                #expect(output.waitUntilWritable(milliseconds: 1000))
                try output.commit()
                var info = stat()
                lstat(path, &info)
                #expect(info.st_mode & S_IFMT == S_IFIFO)
                #expect(entries(dir) == ["fifo"])
            }
        }

        @Test("a FIFO whose reader went away: EPIPE, and no SIGPIPE reaches the process")
        func brokenFIFO() async throws {
            try await expectNoDescriptorLeak {
                let dir = scratchDirectory()
                defer { removeAll(dir) }
                let path = dir + "/fifo"
                mkfifo(path, 0o600)
                let reader = open(path, O_RDONLY | O_NONBLOCK)
                let output = try OutputFile.create(for: try OutputTarget.resolve(path))
                close(reader)
                // The test process keeps SIGPIPE's default action: a raised SIGPIPE would end it.
                #expect(throws: Errno.brokenPipe) { _ = try output.write(ByteBuffer(string: "x")) }
                output.discard()
                #expect(entries(dir) == ["fifo"])
            }
        }

        @Test("a directory target is EISDIR; standard output is duplicated, not reopened")
        func directoryAndDescriptor() async throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            #expect(throws: Errno.isDirectory) { _ = try OutputFile.create(for: try OutputTarget.resolve(dir)) }
            let output = try OutputFile.create(for: try OutputTarget.resolve("/dev/stderr"))
            #expect(output.strategy == .direct)
            try writeAll(output, "")
            try output.commit()
        }

        @Test("ExistingFilePolicy.keep: an existing file is refused at once (EEXIST) and left as it is")
        func keepRefusesAnExistingFile() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            create(dir + "/taken", "old")
            #expect(throws: Errno.fileExists) { _ = try OutputFile.create(for: try OutputTarget.resolve(dir + "/taken"), existing: .keep) }
            #expect(contents(dir + "/taken") == "old")
            #expect(entries(dir) == ["taken"])
        }

        @Test("ExistingFilePolicy.keep: a file that appears while the body arrives is not replaced (the link is exclusive)")
        func keepAtCommit() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/name"), mode: 0o640, existing: .keep)
            try writeAll(output, "new")
            create(dir + "/name", "someone else's")
            #expect(throws: Errno.fileExists) { try output.commit() }
            #expect(contents(dir + "/name") == "someone else's")
            #expect(entries(dir) == ["name"], "no temporary file is left")
        }

        @Test("ExistingFilePolicy.keep on a new name: created with the mode asked (less the umask), committedPath is the name")
        func keepNewFile() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            let old = umask(0o022)
            defer { umask(old) }
            let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/fresh"), mode: 0o666, existing: .keep)
            try writeAll(output, "body")
            try output.commit()
            #expect(output.committedPath == dir + "/fresh")
            #expect(contents(dir + "/fresh") == "body")
            var info = stat()
            stat(dir + "/fresh", &info)
            #expect(info.st_mode & 0o777 == 0o644)
        }

        @Test("ExistingFilePolicy.numbered: NAME.1, NAME.2 ... the first free name; EEXIST when all are taken")
        func numbered() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            create(dir + "/n", "0")
            create(dir + "/n.1", "1")
            let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/n"), existing: .numbered(limit: 3))
            try writeAll(output, "2")
            try output.commit()
            #expect(output.committedPath == dir + "/n.2")
            #expect(contents(dir + "/n") == "0" && contents(dir + "/n.1") == "1" && contents(dir + "/n.2") == "2")
            create(dir + "/n.3", "3")
            let full = try OutputFile.create(for: try OutputTarget.resolve(dir + "/n"), existing: .numbered(limit: 3))
            try writeAll(full, "4")
            #expect(throws: Errno.fileExists) { try full.commit() }
            #expect(entries(dir) == ["n", "n.1", "n.2", "n.3"])
        }

        @Test("ExistingFilePolicy: a symbolic link at the name counts as taken (as curl's O_EXCL open sees it)")
        func linkIsTaken() throws {
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            symlink(dir + "/nowhere", dir + "/dangling")
            let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/dangling"), existing: .numbered(limit: 5))
            try writeAll(output, "x")
            try output.commit()
            #expect(output.committedPath == dir + "/dangling.1")
            #expect(entries(dir) == ["dangling", "dangling.1"])
        }

        @Test("ExistingFilePolicy: a device is written as it is whatever the policy")
        func policyLeavesDevices() throws {
            let output = try OutputFile.create(for: try OutputTarget.resolve("/dev/null"), existing: .keep)
            #expect(output.strategy == .direct)
            try writeAll(output, "x")
            try output.commit()
        }

        @Test("neverBlocks: /dev/null, /dev/zero and a null device made with mknod are written without a file thread; files, FIFOs and other devices are not")
        func neverBlockingDevices() throws {
            // A device number as glibc's makedev encodes it (sys/sysmacros.h; a macro, not imported).
            func makedev(_ major: UInt32, _ minor: UInt32) -> dev_t {
                let major = UInt64(major), minor = UInt64(minor)
                let high: UInt64 = (major & 0xFFFF_F000) << 32
                let middle: UInt64 = (major & 0xFFF) << 8
                let low: UInt64 = (minor & 0xFFFF_FF00) << 12
                return dev_t(high | middle | low | (minor & 0xFF))
            }
            // Major 1 is Linux's memory devices.
            func status(_ mode: UInt32, major: UInt32, minor: UInt32) -> FileStatus {
                var info = stat()
                info.st_mode = mode
                info.st_rdev = makedev(major, minor)
                return FileStatus(info)
            }
            #expect(status(S_IFCHR, major: 1, minor: 3).isNeverBlockingDevice)
            #expect(status(S_IFCHR, major: 1, minor: 5).isNeverBlockingDevice)
            #expect(status(S_IFCHR, major: 1, minor: 7).isNeverBlockingDevice)
            #expect(!status(S_IFCHR, major: 1, minor: 8).isNeverBlockingDevice, "/dev/random: left to the file thread")
            #expect(!status(S_IFCHR, major: 1 + 4096, minor: 3).isNeverBlockingDevice, "the high bits of the major count")
            #expect(!status(S_IFCHR, major: 1, minor: 3 + 256).isNeverBlockingDevice, "the high bits of the minor count")
            #expect(!status(S_IFBLK, major: 1, minor: 3).isNeverBlockingDevice, "a block device")
            #expect(!status(S_IFCHR, major: 5, minor: 0).isNeverBlockingDevice, "/dev/tty")

            for path in ["/dev/null", "/dev/zero"] {
                let output = try OutputFile.create(for: try OutputTarget.resolve(path))
                #expect(output.neverBlocks, "\(path)")
                try writeAll(output, "x")
                try output.commit()
            }
            let dir = scratchDirectory()
            defer { removeAll(dir) }
            create(dir + "/file", "old")
            mkfifo(dir + "/fifo", 0o600)
            let reader = open(dir + "/fifo", O_RDONLY | O_NONBLOCK)
            defer { close(reader) }
            for name in ["file", "new", "fifo"] {
                let output = try OutputFile.create(for: try OutputTarget.resolve(dir + "/" + name))
                #expect(!output.neverBlocks, "\(name)")
                output.discard()
            }
            // mknod needs CAP_MKNOD: as root only.
            if getuid() == 0 {
                #expect(mknod(dir + "/null", S_IFCHR | 0o666, makedev(1, 3)) == 0)
                #expect(mknod(dir + "/random", S_IFCHR | 0o666, makedev(1, 8)) == 0)
                let null = try OutputFile.create(for: try OutputTarget.resolve(dir + "/null"))
                #expect(null.neverBlocks)
                try null.commit()
                let random = try OutputFile.create(for: try OutputTarget.resolve(dir + "/random"))
                #expect(!random.neverBlocks)
                random.discard()
            }
        }

        @Test("makeDirectories creates the missing parents with the mode asked; setTimes sets both times")
        func directoriesAndTimes() throws {
            let dir = scratchDirectory()
            defer {
                unlink(dir + "/a/b/f")
                rmdir(dir + "/a/b")
                rmdir(dir + "/a")
                removeAll(dir)
            }
            let old = umask(0o022)
            defer { umask(old) }
            try File.makeDirectories(dir + "/a/b", mode: 0o750)
            try File.makeDirectories(dir + "/a/b", mode: 0o750)  // already there: nothing to do
            var info = stat()
            stat(dir + "/a", &info)
            #expect(info.st_mode & 0o777 == 0o750)
            create(dir + "/a/b/f", "x")
            try File.setTimes(atPath: dir + "/a/b/f", to: 1_445_412_480)
            stat(dir + "/a/b/f", &info)
            #expect(info.st_mtim.tv_sec == 1_445_412_480 && info.st_atim.tv_sec == 1_445_412_480)
            #expect(try File.status(atPath: dir + "/a/b/f")?.modificationTime == 1_445_412_480)
            #expect(throws: Errno.notDirectory) { try File.makeDirectories(dir + "/a/b/f/g", mode: 0o750) }
        }
    }
}
