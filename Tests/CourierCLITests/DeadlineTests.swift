// Issue 10 §1: every deadline ends a transfer as "timed out" (28), never "cancelled" (42), in
// every phase — no reply, a trickling head, a stalled body, a body that never ends, a peer that
// stops reading an upload — at its setting, with no partial file left; a body cut short by a
// close is 18.

import CourierLoopbackServer
import Glibc
import Testing

/// A TCP listener on 127.0.0.1 that never accepts: the kernel completes the handshake and queues
/// what the client sends until its buffers are full, then the client's writes block — a server
/// that never answers and never reads.
private final class SilentListener {
    let fd: Int32
    let port: UInt16

    init() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        precondition(fd >= 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                guard bind(fd, pointer, length) == 0, listen(fd, 4) == 0 else { return -1 }
                return getsockname(fd, pointer, &length)
            }
        }
        precondition(bound == 0)
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(fd) }
}

extension CLITests {
    @Suite("deadlines say timed out (28)")
    struct DeadlineTests {
        /// The -m setting of these tests, in seconds.
        static let deadline = 0.6

        /// The run ended by the deadline: 28 with curl's words, `-w %{time_total}` at the
        /// deadline, and nothing left in `directory`.
        func expectTimedOut(_ run: CourierRun, directory: String?, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(run.status == 28, "\(run.stderr)", sourceLocation: sourceLocation)
            #expect(run.stderr.hasPrefix("courier: (28) Operation timed out"), "\(run.stderr)", sourceLocation: sourceLocation)
            let total = Double(run.stdoutText.split(separator: "|").last.map(String.init) ?? "") ?? -1
            // The figure is courier's own clock from the task's start (process start-up is not in
            // it): the deadline fires at its setting; the margin above absorbs a loaded machine.
            #expect(total >= Self.deadline - 0.01 && total <= Self.deadline + 0.25,
                    "time_total \(total) for a deadline of \(Self.deadline)", sourceLocation: sourceLocation)
            if let directory {
                #expect(directoryEntries(directory).isEmpty, "no partial file is left", sourceLocation: sourceLocation)
            }
        }

        func scripted(_ actions: [LoopbackAction]) async throws -> LoopbackServer {
            try await LoopbackServer.start(.init(scripts: ["/s": { _ in actions }]))
        }

        @Test("no reply at all: to stdout and to -o")
        func noReply() async throws {
            let listener = SilentListener()
            let url = "http://127.0.0.1:\(listener.port)/"
            // To stdout the body streams: the total deadline used to report "cancelled" (42) there.
            expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", url]), directory: nil)
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "-o", dir + "/out", url]), directory: dir)
        }

        @Test("a head that trickles one byte every 50 ms")
        func tricklingHead() async throws {
            let head = Array("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Padding: abcdefghijklmnopqrstuvwxyz\r\n\r\nhello".utf8)
            let server = try await scripted(head.flatMap { [.write([$0]), .pause(.milliseconds(50))] })
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let url = "http://127.0.0.1:\(server.port)/s"
            expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", url]), directory: nil)
            expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "-o", dir + "/out", url]), directory: dir)
            await server.shutdown()
        }

        @Test("a body that stalls, shorter than its Content-Length, held open")
        func stalledBody() async throws {
            let server = try await scripted([.text("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n"), .writePattern(count: 3000), .stall])
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let url = "http://127.0.0.1:\(server.port)/s"
            let toStdout = courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", url])
            expectTimedOut(toStdout, directory: nil)
            #expect(toStdout.stdout.starts(with: pattern(3000)), "what arrived was written, as curl writes it")
            expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "-o", dir + "/out", url]), directory: dir)
            await server.shutdown()
        }

        @Test("bodies that never end: close-delimited, and chunked without its last chunk")
        func endlessBodies() async throws {
            let dribble: [LoopbackAction] = (0..<100).flatMap { _ in [LoopbackAction.writePattern(count: 10), .pause(.milliseconds(40))] }
            let closeDelimited = [LoopbackAction.text("HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")] + dribble + [.close]
            let chunked: [LoopbackAction] = [.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")]
                + (0..<100).flatMap { _ in [LoopbackAction.text("3\r\nabc\r\n"), .pause(.milliseconds(40))] } + [.stall]
            let server = try await LoopbackServer.start(.init(scripts: ["/close": { _ in closeDelimited }, "/chunked": { _ in chunked }]))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            for path in ["/close", "/chunked"] {
                let url = "http://127.0.0.1:\(server.port)" + path
                expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "-o", dir + "/out", url]), directory: dir)
                expectTimedOut(courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", url]), directory: nil)
            }
            await server.shutdown()
        }

        @Test("an upload to a peer that stops reading")
        func uploadToAPeerThatStopsReading() async throws {
            let listener = SilentListener()
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            // More than the loopback socket buffers hold on both sides, so the writes block.
            writeFile(dir + "/upload", [UInt8](repeating: 0x61, count: 48 << 20))
            let url = "http://127.0.0.1:\(listener.port)/up"
            let run = courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "-T", dir + "/upload", url])
            expectTimedOut(run, directory: nil)
            let posted = courier(["-m", "\(Self.deadline)", "-w", "|%{time_total}", "--data-binary", "@" + dir + "/upload", url])
            expectTimedOut(posted, directory: nil)
        }

        @Test("the idle timeout is timed out too")
        func idleTimeout() async throws {
            let server = try await scripted([.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), .stall])
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let run = courier(["--idle-timeout", "\(Self.deadline)", "-w", "|%{time_total}", "-o", dir + "/out", "http://127.0.0.1:\(server.port)/s"])
            #expect(run.status == 28, "\(run.stderr)")
            #expect(run.stderr.hasPrefix("courier: (28) "), "\(run.stderr)")
            #expect(directoryEntries(dir).isEmpty)
            await server.shutdown()
        }

        @Test("a body cut short by a close is 18, and no partial file is left")
        func shortBodyClosed() async throws {
            let server = try await scripted([.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), .close])
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let run = courier(["-m", "5", "-o", dir + "/out", "http://127.0.0.1:\(server.port)/s"])
            #expect(run.status == 18, "\(run.stderr)")
            #expect(directoryEntries(dir).isEmpty)
            let toStdout = courier(["-m", "5", "http://127.0.0.1:\(server.port)/s"])
            #expect(toStdout.status == 18, "\(toStdout.stderr)")
            #expect(toStdout.stdoutText == "abc")
            await server.shutdown()
        }
    }
}
