// Download destinations follow curl's -o rules (OutputFile): a FIFO or a device is written as
// it is and never replaced, a symbolic link stays a link, an existing file keeps its mode, a new
// one gets `downloadFileMode` less the umask, and what cannot be done is a typed error naming why.

import Courier
import CourierCurlExitCodes
import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Testing

private func fileMode(_ path: String, followingLinks: Bool = true) -> mode_t? {
    var info = stat()
    guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
    return info.st_mode
}

/// `sh -c 'sleep DELAY; exec cat FIFO' > OUTPUT`, as a child process (a reader nobody here wrote).
private func startReader(_ fifo: String, output: String, delay: String) -> pid_t {
    ChildProcess.spawn(["/bin/sh", "-c", "sleep \(delay); exec cat \"$0\"", fifo],
                       stdout: .path(output, O_WRONLY | O_CREAT | O_TRUNC), stderr: .descriptor(2), environment: nil)
}

/// The process's umask (read by setting it and putting it back).
private func umaskNow() -> mode_t {
    let mask = umask(0o022)
    umask(mask)
    return mask
}

extension SessionTests {
    @Suite struct DownloadDestinations {
        @Test func aFIFOIsWrittenIntoAndStaysAFIFO() async throws {
            let directory = makeTemporaryDirectory()
            let out = makeTemporaryDirectory()
            defer {
                removeTree(directory)
                removeTree(out)
            }
            let fifo = directory + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            try await withServer { server in
                let session = makeSession()
                // The reader comes 0.3 s after the head: the task waits for it without a thread.
                let reader = startReader(fifo, output: out + "/read", delay: "0.3")
                let result = await session.downloadTask(with: server.request("/bytes/300000")) { _, _ in fifo }.response
                _ = ChildProcess.wait(reader)
                #expect(result.result.successValue == fifo)
                #expect(readFile(out + "/read") == pattern(300000))
                #expect(fileMode(fifo, followingLinks: false).map { $0 & S_IFMT } == S_IFIFO)
                #expect(listDirectory(directory) == ["pipe"], "no temporary file, nothing renamed")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aFIFOWithoutAReaderCanBeCancelled() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let fifo = directory + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            try await withServer { server in
                let session = makeSession()
                let task = session.downloadTask(with: server.request("/bytes/10")) { _, _ in fifo }
                task.resume()
                try await Task.sleep(for: .milliseconds(200))
                task.cancel()
                let result = await task.response
                #expect(failure(result.result)?.code == .cancelled)
                #expect(result.resumeData == nil)
                #expect(listDirectory(directory) == ["pipe"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aCharacterDeviceIsWrittenAndNotReplaced() async throws {
            try await withServer { server in
                let session = makeSession()
                var before = stat()
                stat("/dev/null", &before)
                let result = await session.downloadTask(with: server.request("/bytes/100000")) { _, _ in "/dev/null" }.response
                #expect(result.result.successValue == "/dev/null")
                var after = stat()
                stat("/dev/null", &after)
                #expect(after.st_mode == before.st_mode)
                #expect(after.st_rdev == before.st_rdev)
                #expect(after.st_ino == before.st_ino)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aSymbolicLinkStaysALinkAndTheFileKeepsItsMode() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            writeFile(directory + "/file", Array("old".utf8))
            chmod(directory + "/file", 0o640)
            #expect(symlink("file", directory + "/link") == 0)
            try await withServer { server in
                let session = makeSession { $0.downloadFileMode = 0o600 }
                let result = await session.downloadTask(with: server.request("/bytes/1000")) { _, _ in directory + "/link" }.response
                #expect(result.result.successValue == directory + "/link")
                #expect(fileMode(directory + "/link", followingLinks: false).map { $0 & S_IFMT } == S_IFLNK)
                #expect(readFile(directory + "/file") == pattern(1000))
                #expect(fileMode(directory + "/file").map { $0 & 0o7777 } == 0o640, "an existing file keeps its mode")
                let fresh = await session.downloadTask(with: server.request("/bytes/10")) { _, _ in directory + "/new" }.response
                #expect(fresh.result.successValue == directory + "/new")
                #expect(fileMode(directory + "/new").map { $0 & 0o7777 } == 0o600, "downloadFileMode (less the umask)")
                #expect(listDirectory(directory) == ["file", "link", "new"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aDirectoryOrAResumeIntoAFIFOIsATypedError() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let fifo = directory + "/pipe"
            #expect(mkfifo(fifo, 0o600) == 0)
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-9/10\r\nContent-Length: 5\r\n\r\n"), .writePattern(count: 5)]
            }
            try await withServer(scripted(["/range": script])) { server in
                let session = makeSession()
                let toDirectory = await session.downloadTask(with: server.request("/bytes/10")) { _, _ in directory }.response
                let error = failure(toDirectory.result)
                #expect(error?.code == .invalidDestination)
                #expect(error?.curlExitCode == 23)
                #expect(error?.message.contains("directory") == true)

                let record = ResumeData(url: server.url("/range").description, bytesOnDisk: 5, partialPath: fifo)
                let resumed = await session.downloadTask(resumingWith: record) { _, _ in fifo }.response
                let resumeError = failure(resumed.result)
                #expect(resumeError?.code == .invalidDestination)
                #expect(resumeError?.message.contains("a FIFO") == true)
                #expect(listDirectory(directory) == ["pipe"])
                #expect(fileMode(fifo, followingLinks: false).map { $0 & S_IFMT } == S_IFIFO)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aDestinationThatKeepsAnExistingFileFailsWithEEXISTAndTouchesNothing() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            writeFile(directory + "/taken", Array("old".utf8))
            try await withServer { server in
                let session = makeSession()
                let result = await session.downloadTask(with: server.request("/bytes/100")) { _, _ in
                    DownloadDestination(path: directory + "/taken", existingFile: .keep)
                }.response
                let error = failure(result.result)
                #expect(error?.code == .fileWriteFailed)
                #expect(error?.errno?.rawValue == 17)
                #expect(error?.curlExitCode == 23)
                #expect(readFile(directory + "/taken") == Array("old".utf8))
                #expect(listDirectory(directory) == ["taken"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aNumberedDestinationTakesTheFirstFreeNameAndReportsIt() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            writeFile(directory + "/f", Array("0".utf8))
            writeFile(directory + "/f.1", Array("1".utf8))
            try await withServer { server in
                let session = makeSession()
                let result = await session.downloadTask(with: server.request("/bytes/10")) { _, _ in
                    DownloadDestination(path: directory + "/f", existingFile: .numbered(limit: 99))
                }.response
                #expect(result.result.successValue == directory + "/f.2")
                #expect(readFile(directory + "/f.2") == pattern(10))
                #expect(readFile(directory + "/f") == Array("0".utf8))
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func missingDirectoriesAreCreatedWhenTheResponseArrivesNotBefore() async throws {
            let directory = makeTemporaryDirectory()
            defer {
                unlink(directory + "/a/b/file")
                rmdir(directory + "/a/b")
                rmdir(directory + "/a")
                removeTree(directory)
            }
            try await withServer { server in
                let session = makeSession()
                let refused = await session.downloadTask(with: server.request("/bytes/10")) { _, _ in
                    DownloadDestination(path: directory + "/a/b/file")
                }.response
                #expect(failure(refused.result)?.code == .fileWriteFailed, "without createsDirectories: ENOENT")
                #expect(listDirectory(directory).isEmpty)
                let result = await session.downloadTask(with: server.request("/bytes/10")) { _, _ in
                    DownloadDestination(path: directory + "/a/b/file", createsDirectories: true)
                }.response
                #expect(result.result.successValue == directory + "/a/b/file")
                let mode = (fileMode(directory + "/a") ?? 0) & 0o777
                #expect(mode == 0o750 & ~umaskNow(), "0750 less the umask, as curl's --create-dirs")
                #expect(readFile(directory + "/a/b/file") == pattern(10))
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aFailedResumeRemovesItsFileOnlyWhenAsked() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in
                [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-99/100\r\nContent-Length: 95\r\n\r\n"),
                 .writePattern(count: 10), .close]
            }
            writeFile(directory + "/kept", pattern(5))
            writeFile(directory + "/removed", pattern(5))
            try await withServer(scripted(["/cut": script])) { server in
                let session = makeSession()
                let keptRecord = ResumeData(url: server.url("/cut").description, bytesOnDisk: 5, partialPath: directory + "/kept")
                let kept = await session.downloadTask(resumingWith: keptRecord, placement: { _, _ in
                    DownloadDestination(path: directory + "/kept")
                }).response
                #expect(failure(kept.result) != nil)
                #expect(readFile(directory + "/kept")?.count == 15, "the partial file keeps what arrived")
                let removedRecord = ResumeData(url: server.url("/cut").description, bytesOnDisk: 5, partialPath: directory + "/removed")
                let removed = await session.downloadTask(resumingWith: removedRecord, placement: { _, _ in
                    DownloadDestination(path: directory + "/removed", removesPartialFileOnFailure: true)
                }).response
                #expect(failure(removed.result) != nil)
                #expect(listDirectory(directory) == ["kept"])
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aRequestTargetIsSentAsGiven() async throws {
            try await withServer { server in
                let session = makeSession()
                var request = server.request(.options, "/ignored")
                request.requestTarget = "*"
                let task = session.dataTask(with: request)
                task.resume()
                let response = await task.response
                #expect(response.head?.status != nil)
                var echoed = server.request("/ignored")
                echoed.requestTarget = "/echo?from=target"
                let echo = session.dataTask(with: echoed)
                echo.resume()
                let body = try await echo.value
                #expect(body.readableString.contains("\"target\":\"/echo?from=target\""))
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
