// -F as curl reads it, and multipart uploads that never lie (issue 10 §6): `;type=`, `;filename=`,
// `;headers=` (and `;headers=@FILE`) on values, `@file` and `<file` parts; file part types from the
// system's MIME database with the built-in table as the fallback; a fresh boundary from getrandom
// for every request; a directory, FIFO, socket or device as a file part refused (26) before
// connecting; a file that shrinks while it is sent ends the transfer with 26 and a closed
// connection, so the server never sees a complete-looking body.

import CourierHTTP1
import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Synchronization
import Testing

private let boundary = "Boundary+0123456789ABCDEF"

/// curl 7.88's built-in type table (lib/mime.c ContentTypeForFilename), as a mime.types file.
private let curlTypes = """
    image/gif gif
    image/jpeg jpg jpeg
    image/png png
    image/svg+xml svg
    text/plain txt
    text/html htm html
    application/pdf pdf
    application/xml xml

    """

/// The body of `courier --offline` output (what follows the head).
private func body(of run: CourierRun) -> String {
    let text = run.stdoutText
    guard let range = text.firstRange(of: "\r\n\r\n") else { return "" }
    return String(text[range.upperBound...])
}

/// A body part as `--offline` prints it: the head lines (CRLF added) and the value.
private func part(_ lines: [String], _ value: String) -> String {
    "--\(boundary)\r\n" + lines.map { $0 + "\r\n" }.joined() + "\r\n" + value + "\r\n"
}

/// Records the Content-Type and body of each request.
private final class Uploads: Sendable {
    private let list = Mutex<[(type: String, body: [UInt8])]>([])
    var all: [(type: String, body: [UInt8])] { list.withLock { $0 } }
    func add(_ type: String, _ body: [UInt8]) { list.withLock { $0.append((type, body)) } }
}

extension CLITests {
    @Suite("-F and multipart uploads")
    struct FormTests {
        @Test("curl's -F grammar: ;type= ;filename= ;headers= on values, files and <files, quoted words")
        func grammar() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/doc.txt", "doc")
            writeFile(dir + "/headers", "# a comment line\nX-From-File: 1\nX-Folded: a\n  b\r\n\nX-Last: z  \n")
            writeFile(dir + "/mime.types", curlTypes)
            let run = courier(["--offline",
                               "-F", "a=value;type=text/plain",
                               "-F", "b=value;filename=v.txt",
                               "-F", "c=value;headers=X-One: 1;headers=\"X-Two: a;b\"",
                               "-F", "d=@" + dir + "/doc.txt;type=image/png;headers=@" + dir + "/headers",
                               "-F", "e=<" + dir + "/doc.txt;type=text/x-e",
                               "-F", "f=\"quoted;value\";type=text/plain;charset=utf-8",
                               "-F", "g= spaced value ;unknown=1",
                               "-F", "h=v;type=text/plain;headers=Content-Type: application/x-mine",
                               "-F", "i=@" + dir + "/doc.txt;filename=\"a \\\"b\\\".bin\"",
                               "http://h/up"], environment: ["COURIER_MULTIPART_BOUNDARY": boundary, "COURIER_MIME_TYPES": dir + "/mime.types"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderrLines == ["Warning: skip unknown form field: unknown=1"])
            let expected = part(["Content-Disposition: form-data; name=\"a\"", "Content-Type: text/plain"], "value")
                + part(["Content-Disposition: form-data; name=\"b\"; filename=\"v.txt\"", "Content-Type: text/plain"], "value")
                + part(["Content-Disposition: form-data; name=\"c\"", "X-One: 1", "X-Two: a;b"], "value")
                + part(["Content-Disposition: form-data; name=\"d\"; filename=\"doc.txt\"", "Content-Type: image/png",
                        "X-From-File: 1", "X-Folded: a  b", "X-Last: z"], "doc")
                + part(["Content-Disposition: form-data; name=\"e\"", "Content-Type: text/x-e"], "doc")
                + part(["Content-Disposition: form-data; name=\"f\"", "Content-Type: text/plain;charset=utf-8"], "quoted;value")
                + part(["Content-Disposition: form-data; name=\"g\""], "spaced value")
                + part(["Content-Disposition: form-data; name=\"h\"", "Content-Type: text/plain"], "v")
                + part(["Content-Disposition: form-data; name=\"i\"; filename=\"a %22b%22.bin\"", "Content-Type: text/plain"], "doc")
                + "--\(boundary)--\r\n"
            #expect(body(of: run) == expected)
        }

        @Test("the bodies curl 7.88 sends for the same -F arguments, boundary aside",
              .enabled(if: access("/usr/bin/curl", X_OK) == 0, "needs /usr/bin/curl"))
        func sameBodiesAsCurl() async throws {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            writeFile(dir + "/doc.txt", "doc")
            writeFile(dir + "/photo.png", [0x89, 0x50, 0x4E, 0x47])
            writeFile(dir + "/hdrs", "# c\nX-From-File: 1\nX-Folded: a\n  b\n\nX-Last: z  \n")
            writeFile(dir + "/mime.types", curlTypes)
            let uploads = Uploads()
            let server = try await LoopbackServer.start(.init(scripts: ["/up": { request in
                uploads.add(request.headers.first(name: "Content-Type") ?? "", request.body)
                return [.response(body: "")]
            }]))
            let arguments = [
                "a=value;type=text/plain", "b=value;filename=v.txt", "b2=value;filename=v.zzz",
                "c=value;headers=X-One: 1;headers=\"X-Two: a;b\"", "c2=value;headers=Content-Type: app/x",
                "d=@\(dir)/doc.txt;type=image/png;headers=@\(dir)/hdrs", "d2=@\(dir)/doc.txt;headers=Content-Type: app/y",
                "e=<\(dir)/doc.txt;type=text/x-e", "e2=<\(dir)/doc.txt;headers=Content-Disposition: attachment; name=\"zz\"",
                "f=\"quoted;value\";type=text/plain;charset=utf-8", "g= spaced value ", "h=v;type=text/plain;headers=Content-Type: app/z",
                "i=@\(dir)/doc.txt;filename=\"a \\\"b\\\".bin\"", "j=@\(dir)/doc.txt;filename=x.png", "k=@\(dir)/photo.png",
            ]
            let url = "http://127.0.0.1:\(server.port)/up"
            let curl = runProgram(["/usr/bin/curl", "-s", "-H", "Expect:"] + arguments.flatMap { ["-F", $0] } + [url])
            #expect(curl == 0)
            let run = courier(arguments.flatMap { ["-F", $0] } + [url], environment: ["COURIER_MIME_TYPES": dir + "/mime.types"])
            #expect(run.status == 0, "\(run.stderr)")
            let seen = uploads.all
            #expect(seen.count == 2)
            guard seen.count == 2 else { return }
            func normalized(_ upload: (type: String, body: [UInt8])) -> String {
                let value = upload.type.components("boundary=").last ?? ""
                return String(decoding: upload.body, as: UTF8.self).replacingOccurrences(value, "BOUNDARY")
            }
            #expect(normalized(seen[1]) == normalized(seen[0]))
            await server.shutdown()
        }

        @Test("-F arguments curl refuses are 2 before anything is sent", arguments: [
            "noequals", "x=v;type=bad", "x=v;type=/plain", "x=@a,b", "x=v;encoder=base64",
        ])
        func refused(argument: String) {
            let run = courier(["--offline", "-F", argument, "http://h/"])
            #expect(run.status == 2, "\(run.stderr)")
            #expect(run.stdout.isEmpty)
        }

        @Test("file part types come from the MIME database; the built-in table when it is absent")
        func mimeTypes() {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            for name in ["a.ctest", "b.png", "c.json", "d"] { writeFile(dir + "/" + name, "x") }
            writeFile(dir + "/mime.types", "# test database\napplication/x-courier-test\tctest  cte\nimage/x-mine png\n")
            func types(_ environment: [String: String]) -> [String] {
                var arguments = ["--offline"]
                for name in ["a.ctest", "b.png", "c.json", "d"] { arguments += ["-F", "f=@" + dir + "/" + name] }
                let run = courier(arguments + ["http://h/"], environment: environment)
                #expect(run.status == 0, "\(run.stderr)")
                let lines: [String] = run.stdoutText.components("\r\n")
                return lines.filter { $0.hasPrefix("Content-Type: ") && !$0.contains("multipart") }.map { String($0.dropFirst(14)) }
            }
            #expect(types(["COURIER_MIME_TYPES": dir + "/mime.types"])
                == ["application/x-courier-test", "image/x-mine", "application/octet-stream", "application/octet-stream"])
            #expect(types(["COURIER_MIME_TYPES": dir + "/absent"])
                == ["application/octet-stream", "image/png", "application/json", "application/octet-stream"])
            // The system's /etc/mime.types (Debian's media-types) or, without it, the built-in table:
            // the common types agree.
            #expect(Array(types([:]).dropFirst()) == ["image/png", "application/json", "application/octet-stream"])
        }

        @Test("every request gets a fresh boundary from the kernel, in AFNetworking's format")
        func freshBoundaries() async throws {
            let uploads = Uploads()
            let server = try await LoopbackServer.start(.init(scripts: ["/up": { request in
                uploads.add(request.headers.first(name: "Content-Type") ?? "", request.body)
                return [.response(body: "ok")]
            }]))
            let url = "http://127.0.0.1:\(server.port)/up"
            let first = courier(["-F", "a=b", url, url])
            let second = courier(["-F", "a=b", url])
            #expect(first.status == 0 && second.status == 0, "\(first.stderr) \(second.stderr)")
            #expect(first.stdoutText == "okok")
            let seen = uploads.all
            #expect(seen.count == 3)
            var boundaries: Set<String> = []
            for upload in seen {
                guard let range = upload.type.firstRange(of: "multipart/form-data; boundary=") else {
                    Issue.record("no boundary in \(upload.type)")
                    continue
                }
                let value = String(upload.type[range.upperBound...])
                #expect(value.hasPrefix("Boundary+") && value.count == 25)
                #expect(value.dropFirst(9).allSatisfy { $0.isHexDigit && !$0.isLowercase })
                // The body is framed with the boundary its Content-Type names.
                let text = String(decoding: upload.body, as: UTF8.self)
                #expect(text.hasPrefix("--\(value)\r\n") && text.hasSuffix("\r\n--\(value)--\r\n"))
                boundaries.insert(value)
            }
            #expect(boundaries.count == 3, "\(boundaries)")
            await server.shutdown()
        }

        @Test("a directory, a FIFO, a socket or a device as a file part is 26 at once, before connecting")
        func notRegularFiles() async throws {
            let server = try await LoopbackServer.start()
            let dir = makeScratchDirectory()
            defer {
                rmdir(dir + "/sub")
                removeScratchDirectory(dir)
            }
            mkdir(dir + "/sub", 0o755)
            #expect(mkfifo(dir + "/fifo", 0o644) == 0)
            let socketPath = dir + "/socket"
            let listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(listener) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in socketPath.utf8.enumerated() { raw[i] = byte }
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            #expect(bound == 0)
            var paths = [("sub", "a directory"), ("fifo", "a FIFO"), ("socket", "a socket")]
            if getuid() == 0 {
                // CAP_MKNOD: a null device of our own (no test touches /dev).
                #expect(runProgram(["/usr/bin/mknod", "-m", "666", dir + "/null", "c", "1", "3"]) == 0)
                paths.append(("null", "a character device"))
            }
            for (name, kind) in paths {
                let path = dir + "/" + name
                let start = ContinuousClock.now
                let run = courier(["-F", "f=@" + path, "http://127.0.0.1:\(server.port)/echo"])
                #expect(run.status == 26, "\(name): \(run.stderr)")
                #expect(run.stderrLines == ["courier: (26) Failed to open/read local data from file/application: \(path): \(path) is \(kind), not a regular file"])
                #expect(ContinuousClock.now - start < .seconds(10))
            }
            #expect(server.acceptedConnections == 0)
            unlink(socketPath)
            await server.shutdown()
        }

        @Test("a file that shrinks while it is sent: 26, the connection closed, the body never complete")
        func shrinkingFile() async throws {
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let big = dir + "/big.bin"
            let size = 48 << 20
            let fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            #expect(ftruncate(fd, off_t(size)) == 0)
            close(fd)
            // A server that reads the head, waits for the test's word, then reads to the end.
            writeFile(dir + "/server.py", """
                import os, socket, sys, time
                d = sys.argv[1]
                s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(1)
                open(d + "/port.tmp", "w").write(str(s.getsockname()[1])); os.rename(d + "/port.tmp", d + "/port")
                s.settimeout(60); c, _ = s.accept(); c.settimeout(60)
                data = b""
                while b"\\r\\n\\r\\n" not in data:
                    chunk = c.recv(65536)
                    if not chunk: break
                    data += chunk
                head, _, body = data.partition(b"\\r\\n\\r\\n")
                length = int([l.split(b":")[1] for l in head.split(b"\\r\\n") if l.lower().startswith(b"content-length:")][0])
                open(d + "/head", "w").close()
                deadline = time.time() + 60
                while not os.path.exists(d + "/go") and time.time() < deadline: time.sleep(0.01)
                received, tail = len(body), body[-64:]
                while True:
                    chunk = c.recv(1 << 20)
                    if not chunk: break
                    received += len(chunk); tail = (tail + chunk)[-64:]
                open(d + "/result", "w").write("%d %d %r" % (received, length, tail))
                """)
            let python = startProcess(["/usr/bin/python3", dir + "/server.py", dir], stdout: .path("/dev/null", O_WRONLY),
                                      stderr: .path(dir + "/server.err", O_WRONLY | O_CREAT | O_TRUNC))
            defer { kill(python, SIGKILL); _ = waitForExit(python) }
            #expect(await eventually(.seconds(20)) { fileExists(dir + "/port") })
            let port = String(decoding: readFile(dir + "/port") ?? [], as: UTF8.self)
            let courierPID = startProcess([CourierBinary.path, "-s", "-S", "-m", "60", "-F", "f=@" + big, "http://127.0.0.1:\(port)/up"],
                                          stdout: .path(dir + "/out", O_WRONLY | O_CREAT | O_TRUNC),
                                          stderr: .path(dir + "/err", O_WRONLY | O_CREAT | O_TRUNC))
            #expect(await eventually(.seconds(20)) { fileExists(dir + "/head") })
            // Courier is now blocked in the middle of the body (the server is not reading).
            #expect(truncate(big, off_t(1 << 20)) == 0)
            writeFile(dir + "/go", "")
            let status = waitForExit(courierPID)
            #expect(status == 26)
            let stderr = String(decoding: readFile(dir + "/err") ?? [], as: UTF8.self)
            #expect(stderr.hasPrefix("courier: (26) "), "\(stderr)")
            #expect(stderr.contains("big.bin"), "\(stderr)")
            #expect(await eventually(.seconds(20)) { fileExists(dir + "/result") })
            let result = String(decoding: readFile(dir + "/result") ?? [], as: UTF8.self).split(separator: " ", maxSplits: 2)
            #expect(result.count == 3)
            if result.count == 3, let received = Int(result[0]), let length = Int(result[1]) {
                #expect(length > size)
                #expect(received < length, "the server got \(received) of \(length) bytes")
                #expect(!result[2].contains("--\\r\\n"), "the body ended with a close delimiter: \(result[2])")
            }
        }
    }
}

extension String {
    /// The pieces between occurrences of `separator`.
    func components(_ separator: String) -> [String] {
        var out: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            out.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        out.append(String(rest))
        return out
    }

    func replacingOccurrences(_ old: String, _ new: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: old) {
            out += rest[..<range.lowerBound]
            out += new
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
