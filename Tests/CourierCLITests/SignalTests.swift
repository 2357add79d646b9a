// The edges of the process (issue 20 §1), with courier run as a child process against the
// in-process loopback server: SIGINT, SIGTERM, SIGHUP and SIGQUIT before the head, mid-body and
// around the commit, and SIGKILL; afterwards the directory holds exactly what the rules say (the
// old file untouched or the complete new one, a -C - partial file with what arrived) and never a
// `.courier-*` file. Then a standard output whose reader goes away at several points: 23 with
// curl's line (nothing with -s), the next URL still attempted.

import CourierLoopbackServer
import CourierTestSupport
import Glibc
import Synchronization
import Testing

/// When the server saw the requests of a route, for timing a signal.
final class Arrivals: Sendable {
    private let times = Mutex<[ContinuousClock.Instant]>([])

    func record() { times.withLock { $0.append(.now) } }
    var count: Int { times.withLock { $0.count } }
    var last: ContinuousClock.Instant? { times.withLock { $0.last } }
}

/// Polls `condition` every 2 ms for up to `limit`.
func eventually(_ limit: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return condition()
}

/// The size of a file under `directory` that process `pid` has open, if any — an unnamed
/// (O_TMPFILE) download shows as "DIRECTORY/#INODE (deleted)" in /proc/PID/fd.
func openFileSize(pid: pid_t, in directory: String) -> Int? {
    let fdDirectory = "/proc/\(pid)/fd"
    var largest: Int?
    for name in directoryEntries(fdDirectory) {
        var target = [CChar](repeating: 0, count: 512)
        let n = readlink(fdDirectory + "/" + name, &target, 511)
        guard n > 0 else { continue }
        let link = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard link.hasPrefix(directory + "/") else { continue }
        var info = stat()
        if stat(fdDirectory + "/" + name, &info) == 0 { largest = max(largest ?? 0, Int(info.st_size)) }
    }
    return largest
}

/// The names in `directory` that a download must never leave behind.
func litter(_ directory: String) -> [String] { directoryEntries(directory).filter { $0.hasPrefix(".courier-") } }

let terminationSignals: [(CInt, String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGQUIT, "SIGQUIT")]

/// A server with the routes the signal tests use, and when each was asked.
struct SignalServer {
    let server: LoopbackServer
    let arrivals: Arrivals
    static let pacedLength = 2_000

    static func start() async throws -> SignalServer {
        let arrivals = Arrivals()
        let full = pattern(300_000)
        let server = try await LoopbackServer.start(.init(scripts: [
            "/no-head": { _ in arrivals.record(); return [.stall] },
            "/half": { _ in
                arrivals.record()
                return [.text("HTTP/1.1 200 OK\r\nContent-Length: 1000000\r\n\r\n"), .writePattern(count: 300_000), .stall]
            },
            "/paced": { _ in
                arrivals.record()
                let last = pattern(pacedLength).last!
                return [.text("HTTP/1.1 200 OK\r\nContent-Length: \(pacedLength)\r\n\r\n"), .writePattern(count: pacedLength - 1),
                        .pause(.milliseconds(150)), .write([last])]
            },
            "/resume": { _ in
                arrivals.record()
                return [.text("HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 100000-999999/1000000\r\nContent-Length: 900000\r\n\r\n"),
                        .write(Array(full[100_000...])), .stall]
            },
        ]))
        return SignalServer(server: server, arrivals: arrivals)
    }

    init(server: LoopbackServer, arrivals: Arrivals) {
        self.server = server
        self.arrivals = arrivals
    }

    func url(_ path: String) -> String { "http://127.0.0.1:\(server.port)\(path)" }
}

/// courier started in the background, its stdout and stderr in files of `scratch`.
struct BackgroundCourier {
    let pid: pid_t
    let scratch: String

    init(_ arguments: [String]) {
        scratch = makeScratchDirectory()
        pid = startProcess(commandLine(arguments, as: .invoker, umask: nil),
                           stdout: .path(scratch + "/stdout", O_WRONLY | O_CREAT | O_TRUNC),
                           stderr: .path(scratch + "/stderr", O_WRONLY | O_CREAT | O_TRUNC))
    }

    /// Waits for the exit; the status (128 + N for signal N) and stderr.
    func finish() -> (status: Int32, stderr: String) {
        let status = waitForExit(pid)
        let stderr = String(decoding: readFile(scratch + "/stderr") ?? [], as: UTF8.self)
        removeScratchDirectory(scratch)
        return (status, stderr)
    }
}

extension CLITests {
    @Suite("signals and closed pipes")
    struct SignalTests {
        @Test("SIGINT, SIGTERM, SIGHUP, SIGQUIT before the head and mid-body: 128+N, the old file untouched, no temporary file")
        func signalsBeforeHeadAndMidBody() async throws {
            let s = try await SignalServer.start()
            for (signal, name) in terminationSignals {
                for (path, existing) in [("/no-head", true), ("/half", true), ("/half", false)] {
                    let dir = makeScratchDirectory()
                    defer { removeScratchDirectory(dir) }
                    if existing { writeFile(dir + "/out", "old") }
                    let seen = s.arrivals.count
                    let child = BackgroundCourier(["-o", dir + "/out", s.url(path)])
                    #expect(await eventually { s.arrivals.count > seen }, "\(name) \(path)")
                    if path == "/half" {
                        #expect(await eventually { (openFileSize(pid: child.pid, in: dir) ?? 0) >= 300_000 }, "\(name): the body is arriving")
                        #expect(directoryEntries(dir) == (existing ? ["out"] : []), "\(name): the temporary file has no name")
                    }
                    kill(child.pid, signal)
                    let (status, stderr) = child.finish()
                    #expect(status == 128 + signal, "\(name) \(path)")
                    #expect(stderr.isEmpty, "\(name) \(path): \(stderr)")
                    #expect(directoryEntries(dir) == (existing ? ["out"] : []), "\(name) \(path)")
                    if existing { #expect(readFile(dir + "/out") == Array("old".utf8), "\(name) \(path)") }
                }
            }
            await s.server.shutdown()
        }

        @Test("signals swept across the last byte and the commit: the old file or the complete new one, never litter")
        func signalsAroundTheCommit() async throws {
            let s = try await SignalServer.start()
            let full = pattern(SignalServer.pacedLength)
            var outcomes: [String: Int] = [:]
            for (signal, name) in terminationSignals {
                for delay in [0, 1, 2, 3, 4, 5, 6, 8, 10, 15] {
                    let dir = makeScratchDirectory()
                    defer { removeScratchDirectory(dir) }
                    writeFile(dir + "/out", "old")
                    let seen = s.arrivals.count
                    let child = BackgroundCourier(["-o", dir + "/out", s.url("/paced")])
                    #expect(await eventually { s.arrivals.count > seen })
                    let at = s.arrivals.last! + .milliseconds(150 + delay)
                    try await Task.sleep(until: at, clock: .continuous)
                    kill(child.pid, signal)
                    let (status, _) = child.finish()
                    #expect(status == 128 + signal || status == 0, "\(name) +\(delay) ms: \(status)")
                    #expect(directoryEntries(dir) == ["out"], "\(name) +\(delay) ms")
                    let bytes = readFile(dir + "/out")
                    #expect(bytes == Array("old".utf8) || bytes == full, "\(name) +\(delay) ms: \(bytes?.count ?? -1) bytes")
                    if status == 0 { #expect(bytes == full) }
                    outcomes["\(status == 0 ? "exit 0" : "signal") with the \(bytes == full ? "new" : "old") file", default: 0] += 1
                }
            }
            print("signals around the commit, outcomes: \(outcomes.sorted { $0.key < $1.key })")
            await s.server.shutdown()
        }

        @Test("-C -: a signal mid-body keeps exactly what arrived in the partial file")
        func resumeKeepsWhatArrived() async throws {
            let s = try await SignalServer.start()
            for (signal, name) in terminationSignals {
                let dir = makeScratchDirectory()
                defer { removeScratchDirectory(dir) }
                let file = dir + "/out"
                writeFile(file, pattern(100_000))
                let child = BackgroundCourier(["-C", "-", "-o", file, s.url("/resume")])
                #expect(await eventually { (try? fileSize(file)) == 300_000 }, "\(name)")
                kill(child.pid, signal)
                let (status, _) = child.finish()
                #expect(status == 128 + signal, "\(name)")
                #expect(readFile(file) == pattern(300_000), "\(name): the 200,000 bytes that arrived are kept")
                #expect(litter(dir).isEmpty)
            }
            await s.server.shutdown()
        }

        @Test("SIGKILL mid-body and around the commit: nothing but the old file, the complete new one, or a -C - partial file")
        func sigkill() async throws {
            let s = try await SignalServer.start()
            // Mid-body, over an existing file and a new one: the unnamed temporary file dies with the process.
            for existing in [true, false] {
                let dir = makeScratchDirectory()
                defer { removeScratchDirectory(dir) }
                if existing { writeFile(dir + "/out", "old") }
                let child = BackgroundCourier(["-o", dir + "/out", s.url("/half")])
                #expect(await eventually { (openFileSize(pid: child.pid, in: dir) ?? 0) >= 300_000 })
                kill(child.pid, SIGKILL)
                #expect(child.finish().status == 128 + SIGKILL)
                #expect(directoryEntries(dir) == (existing ? ["out"] : []))
                if existing { #expect(readFile(dir + "/out") == Array("old".utf8)) }
            }
            // A new file around the commit: it is linked to its name in one step.
            for delay in [0, 1, 2, 4, 8] {
                let dir = makeScratchDirectory()
                defer { removeScratchDirectory(dir) }
                let seen = s.arrivals.count
                let child = BackgroundCourier(["-o", dir + "/out", s.url("/paced")])
                #expect(await eventually { s.arrivals.count > seen })
                try await Task.sleep(until: s.arrivals.last! + .milliseconds(150 + delay), clock: .continuous)
                kill(child.pid, SIGKILL)
                _ = child.finish()
                let names = directoryEntries(dir)
                #expect(names == [] || names == ["out"], "+\(delay) ms: \(names)")
                if names == ["out"] { #expect(readFile(dir + "/out") == pattern(SignalServer.pacedLength)) }
            }
            // -C -: the partial file keeps what was written before the kill (a prefix of the body).
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/out"
            writeFile(file, pattern(100_000))
            let child = BackgroundCourier(["-C", "-", "-o", file, s.url("/resume")])
            #expect(await eventually { ((try? fileSize(file)) ?? 0) >= 200_000 })
            kill(child.pid, SIGKILL)
            _ = child.finish()
            let kept = readFile(file) ?? []
            #expect(kept.count >= 200_000)
            #expect(kept == pattern(kept.count))
            #expect(directoryEntries(dir) == ["out"])
            await s.server.shutdown()
        }

        @Test("courier URL | head -c 10 of a 20 MB body: 23 with curl's line; -s prints nothing")
        func headClosesThePipe() async throws {
            let server = try await LoopbackServer.start()
            for silent in [false, true] {
                let scratch = makeScratchDirectory()
                defer { removeScratchDirectory(scratch) }
                let (r, w) = makePipe()
                let child = startProcess(commandLine((silent ? ["-s"] : []) + ["http://127.0.0.1:\(server.port)/bytes/20000000"],
                                                     as: .invoker, umask: nil),
                                         stdout: .descriptor(w), stderr: .path(scratch + "/stderr", O_WRONLY | O_CREAT | O_TRUNC))
                let head = startProcess(["/usr/bin/head", "-c", "10"], stdin: .descriptor(r),
                                        stdout: .path(scratch + "/head", O_WRONLY | O_CREAT | O_TRUNC), stderr: .path("/dev/null", O_WRONLY))
                close(r)
                close(w)
                #expect(waitForExit(head) == 0)
                #expect(waitForExit(child) == 23)
                #expect(readFile(scratch + "/head") == pattern(10))
                let stderr = String(decoding: readFile(scratch + "/stderr") ?? [], as: UTF8.self)
                #expect(stderr == (silent ? "" : "courier: (23) Failure writing output to destination\n"))
            }
            await server.shutdown()
        }

        @Test("the reader goes away before the first byte, after 1 MB, and for -o /dev/stdout: 23; the next URL is still attempted",
              arguments: ["before", "after 1 MB", "-o /dev/stdout", "small body"])
        func readerGoesAway(point: String) async throws {
            let server = try await LoopbackServer.start()
            let scratch = makeScratchDirectory()
            defer { removeScratchDirectory(scratch) }
            let size = point == "small body" ? 100 : 5_000_000
            let url = "http://127.0.0.1:\(server.port)/bytes/\(size)"
            var arguments = [url, url]
            if point == "-o /dev/stdout" { arguments = ["-o", "/dev/stdout", url, "-o", "/dev/stdout", url] }
            let (r, w) = makePipe()
            if point != "after 1 MB" { close(r) }
            let before = server.requestCount
            let child = startProcess(commandLine(arguments, as: .invoker, umask: nil),
                                     stdout: .descriptor(w), stderr: .path(scratch + "/stderr", O_WRONLY | O_CREAT | O_TRUNC))
            close(w)
            if point == "after 1 MB" {
                var taken = 0
                var chunk = [UInt8](repeating: 0, count: 65536)
                while taken < 1 << 20 {
                    let n = chunk.withUnsafeMutableBytes { read(r, $0.baseAddress, min($0.count, (1 << 20) - taken)) }
                    if n <= 0 { break }
                    taken += n
                }
                #expect(taken == 1 << 20)
                close(r)
            }
            #expect(waitForExit(child) == 23, "\(point)")
            #expect(server.requestCount - before == 2, "\(point): both URLs were attempted")
            let stderr = String(decoding: readFile(scratch + "/stderr") ?? [], as: UTF8.self)
            #expect(stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("courier: (23) Failure writing output to destination") }, "\(point): \(stderr)")
            #expect(stderr.split(separator: "\n").count == 2, "\(point): \(stderr)")
            await server.shutdown()
        }
    }
}

/// stat(2)'s size of `path`.
func fileSize(_ path: String) throws -> Int {
    var info = stat()
    guard stat(path, &info) == 0 else { throw CLITestError.missing(path) }
    return Int(info.st_size)
}

enum CLITestError: Error { case missing(String) }
