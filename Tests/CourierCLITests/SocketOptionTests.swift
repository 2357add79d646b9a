// Issue 19 §4: where a connection goes and how its socket is set up — --unix-socket and
// --abstract-unix-socket (an origin served over AF_UNIX, the Docker API case), --interface and
// --local-port (the local end, curl's exit 45 when it cannot be bound), --keepalive-time and
// --no-keepalive (TCP keep-alive probes). The server is a Python script (software nobody here
// wrote), which reports in each response body what it saw of the request and of the client's
// socket: the kernel's own view of the keep-alive timer (/proc/net/tcp) and the client's port.

import CourierTestSupport
import Glibc
import Testing

/// A Python HTTP/1.1 server on a unix socket (a path or an abstract name) or on 127.0.0.1. Every
/// response body is one line: "CONNECTION# REQUEST-LINE host=HOST peer=PORT timer=TR:WHEN", where
/// TR:WHEN is the client socket's timer in /proc/net/tcp (2: keep-alive, WHEN in 1/100 s).
/// It writes "PORT BLOCKED" to its state file: its TCP port (0 on a unix socket) and a port it
/// holds bound on 127.0.0.1 without accepting on it, for --local-port. Stopped by PID.
private struct ReportingServer {
    static let script = #"""
import os, socket, sys, threading, time
mode, where, state = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "tcp":
    s = socket.socket(); s.bind(("127.0.0.1", 0))
else:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind("\0" + where if mode == "abstract" else where)
s.listen(16)
blocker = socket.socket(); blocker.bind(("127.0.0.1", 0)); blocker.listen(1)
port = s.getsockname()[1] if mode == "tcp" else 0
open(state + ".tmp", "w").write("%d %d" % (port, blocker.getsockname()[1])); os.rename(state + ".tmp", state)
serial = [0]
def timer(peer_port):
    # The client's socket: local port = peer_port, remote = our port (hex in /proc/net/tcp).
    for line in open("/proc/net/tcp").read().splitlines()[1:]:
        f = line.split()
        if int(f[1].split(":")[1], 16) == peer_port and int(f[2].split(":")[1], 16) == port:
            tr, when = f[5].split(":")
            return "%d:%d" % (int(tr, 16), int(when, 16))
    return "none"
def serve(c, n):
    peer = c.getpeername()[1] if mode == "tcp" else 0
    buf = b""
    while True:
        while b"\r\n\r\n" not in buf:
            d = c.recv(65536)
            if not d: return
            buf += d
        head, buf = buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        host = [l.split(":", 1)[1].strip() for l in lines[1:] if l.lower().startswith("host:")]
        body = ("%d %s host=%s peer=%d timer=%s\n" % (n, lines[0], host[0] if host else "-", peer,
                timer(peer) if mode == "tcp" else "-")).encode()
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body)
deadline = time.time() + 60
while time.time() < deadline:
    c, _ = s.accept(); serial[0] += 1
    threading.Thread(target=serve, args=(c, serial[0]), daemon=True).start()
"""#

    let pid: pid_t
    let scratch: String
    let port: Int
    let blockedPort: Int

    /// mode: "tcp", "unix" (at `where`) or "abstract" (the name `where`).
    init(mode: String, where location: String = "-") throws {
        scratch = makeScratchDirectory()
        writeFile(scratch + "/server.py", ReportingServer.script)
        pid = startProcess(["/usr/bin/python3", scratch + "/server.py", mode, location, scratch + "/state"],
                           stdout: .path("/dev/null", O_WRONLY), stderr: .path("/dev/null", O_WRONLY))
        var numbers: [Int]?
        for _ in 0..<100 where numbers == nil {  // bounded: 10 s
            if let text = readFile(scratch + "/state") {
                numbers = String(decoding: text, as: UTF8.self).split(separator: " ").compactMap { Int($0) }
            } else {
                usleep(100_000)
            }
        }
        guard let numbers, numbers.count == 2 else { kill(pid, SIGKILL); throw ReportingServerError.didNotStart }
        port = numbers[0]
        blockedPort = numbers[1]
    }

    func stop() {
        kill(pid, SIGKILL)
        _ = waitForExit(pid)
        for name in ["server.py", "state"] { unlink(scratch + "/" + name) }
        removeScratchDirectory(scratch)
    }
}

private enum ReportingServerError: Error { case didNotStart }

/// One report line, split into its fields.
private struct Report {
    var connection: Int
    var requestLine: String
    var fields: [String: String]

    init?(_ line: Substring) {
        let words = line.split(separator: " ")
        guard words.count >= 7, let n = Int(words[0]) else { return nil }
        connection = n
        requestLine = words[1...3].joined(separator: " ")
        fields = [:]
        for word in words[4...] {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { fields[String(parts[0])] = String(parts[1]) }
        }
    }

    static func all(_ run: CourierRun) -> [Report] { run.stdoutText.split(separator: "\n").compactMap(Report.init) }
}

extension CLITests {
    @Suite("where the connection goes and how its socket is set up")
    struct SocketOptionTests {
        @Test("--unix-socket: the origin is served over AF_UNIX, Host still names the URL's host, one connection for two URLs")
        func unixSocket() throws {
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let path = directory + "/api.sock"
            let server = try ReportingServer(mode: "unix", where: path)
            defer { server.stop() }
            let run = courier(["--unix-socket", path, "http://docker.example/v1.43/info", "http://docker.example:8080/_ping?x=1"])
            #expect(run.status == 0, "\(run.stderr)")
            let reports = Report.all(run)
            #expect(reports.map(\.requestLine) == ["GET /v1.43/info HTTP/1.1", "GET /_ping?x=1 HTTP/1.1"])
            #expect(reports.map { $0.fields["host"] } == ["docker.example", "docker.example:8080"])
            // Two origins of one session, both on the one socket: each its own pooled connection.
            #expect(reports.map(\.connection) == [1, 2], "\(run.stdoutText)")
            let same = courier(["--unix-socket", path, "http://docker.example/a", "http://docker.example/b"])
            #expect(Report.all(same).map(\.connection) == [3, 3], "one origin: the connection is reused: \(same.stdoutText)")
        }

        @Test("--abstract-unix-socket: a socket in the abstract namespace; the last of the two options wins")
        func abstractUnixSocket() throws {
            let name = "courier-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let server = try ReportingServer(mode: "abstract", where: name)
            defer { server.stop() }
            let run = courier(["--unix-socket", "/nonexistent/x.sock", "--abstract-unix-socket", name, "http://localhost/containers/json"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Report.all(run).map(\.requestLine) == ["GET /containers/json HTTP/1.1"])
            let other = courier(["--abstract-unix-socket", name, "--unix-socket", "/nonexistent/x.sock", "http://localhost/"])
            #expect(other.status == 7, "the later --unix-socket is used: \(other.stderr)")
        }

        @Test("--unix-socket to nothing: 7, as curl, and nothing goes over TCP")
        func unixSocketMissing() {
            let run = courier(["--unix-socket", "/nonexistent/courier.sock", "-w", "%{num_connects}", "http://127.0.0.1:9/"])
            #expect(run.status == 7, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: (7) Failed to connect"), "\(run.stderr)")
            #expect(run.stderr.contains("/nonexistent/courier.sock"), "the message names the socket: \(run.stderr)")
        }

        @Test("--local-port N-M: the first free port of the range; a taken port alone: 45 with curl's words")
        func localPort() throws {
            let server = try ReportingServer(mode: "tcp")
            defer { server.stop() }
            let url = "http://127.0.0.1:\(server.port)/"
            let blocked = server.blockedPort
            let range = courier(["--local-port", "\(blocked)-\(blocked + 40)", url])
            #expect(range.status == 0, "\(range.stderr)")
            let peer = Int(Report.all(range).first?.fields["peer"] ?? "") ?? -1
            #expect(peer > blocked && peer <= blocked + 40, "port \(peer) for the range \(blocked)-\(blocked + 40)")
            let taken = courier(["--local-port", "\(blocked)", url])
            #expect(taken.status == 45, "\(taken.stderr)")
            #expect(taken.stderr == "courier: (45) bind failed with errno 98: Address already in use\n", "\(taken.stderr)")
            for bad in ["5-3", "abc", "70000", "1-", "-1"] {
                let run = courier(["--local-port", bad, url])
                #expect(run.status == 2, "--local-port \(bad): \(run.stderr)")
            }
        }

        @Test("--interface: an address, an interface name, if!NAME and host!NAME bind the local end; what cannot be bound is 45")
        func interface() throws {
            let server = try ReportingServer(mode: "tcp")
            defer { server.stop() }
            let url = "http://127.0.0.1:\(server.port)/"
            for given in ["127.0.0.1", "lo", "if!lo", "host!localhost", "host!127.0.0.1"] {
                let run = courier(["--interface", given, url])
                #expect(run.status == 0, "--interface \(given): \(run.stderr)")
                #expect(Report.all(run).count == 1, "--interface \(given)")
            }
            let cases: [(String, String)] = [
                ("if!courier-no-such-if", "courier: (45) Couldn't bind to interface 'courier-no-such-if'\n"),
                ("host!no-such-host.invalid", "courier: (45) Couldn't bind to 'no-such-host.invalid'\n"),
                ("no-such-host.invalid", "courier: (45) Couldn't bind to 'no-such-host.invalid'\n"),
                // TEST-NET-1: an address no interface here has.
                ("192.0.2.254", "courier: (45) bind failed with errno 99: Cannot assign requested address\n"),
            ]
            for (given, message) in cases {
                let run = courier(["--interface", given, url])
                #expect(run.status == 45, "--interface \(given): \(run.stderr)")
                #expect(run.stderr == message, "--interface \(given)")
            }
        }

        @Test("--interface if!lo without the privilege for SO_BINDTODEVICE still binds lo's address, as curl does")
        func interfaceUnprivileged() throws {
            let server = try ReportingServer(mode: "tcp")
            defer { server.stop() }
            let run = courier(["--interface", "if!lo", "http://127.0.0.1:\(server.port)/"], as: .nobody)
            #expect(run.status == 0, "\(run.stderr)")
            #expect(Report.all(run).count == 1)
        }

        @Test("keep-alive probes: after 60 s by default (curl's), --keepalive-time N, none with --no-keepalive")
        func keepAlive() throws {
            let server = try ReportingServer(mode: "tcp")
            defer { server.stop() }
            let url = "http://127.0.0.1:\(server.port)/"
            /// The client socket's timer in /proc/net/tcp: (kind, seconds left).
            func timer(_ arguments: [String]) -> (kind: Int, seconds: Double)? {
                let run = courier(arguments + [url])
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
                guard let text = Report.all(run).first?.fields["timer"] else { return nil }
                let parts = text.split(separator: ":")
                guard parts.count == 2, let kind = Int(parts[0]), let when = Double(parts[1]) else { return nil }
                return (kind, when / 100)
            }
            let byDefault = timer([])
            #expect(byDefault?.kind == 2, "the keep-alive timer runs: \(String(describing: byDefault))")
            #expect((byDefault?.seconds ?? 0) > 50 && (byDefault?.seconds ?? 99) <= 60)
            let seven = timer(["--keepalive-time", "7"])
            #expect(seven?.kind == 2)
            #expect((seven?.seconds ?? 0) > 1 && (seven?.seconds ?? 99) <= 7, "\(String(describing: seven))")
            let none = timer(["--keepalive-time", "7", "--no-keepalive"])
            #expect(none?.kind == 0, "no timer at all: \(String(describing: none))")
            let bad = courier(["--keepalive-time", "soon", url])
            #expect(bad.status == 2, "\(bad.stderr)")
        }
    }
}
