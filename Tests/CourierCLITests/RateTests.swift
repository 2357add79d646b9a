// Issue 19 §4: --limit-rate (a token bucket on reads and writes, curl's suffixes) and -Y/-y
// (curl's low-speed check, exit 28 in curl's words). Rates are asserted with a lower bound on the
// elapsed time only — a capped transfer can be slowed by a loaded machine, never sped up — so
// these tests cannot be flaky in the direction that would hide a broken cap.

import CourierLoopbackServer
import Glibc
import Testing

extension CLITests {
    @Suite("--limit-rate, -Y and -y")
    struct RateTests {
        /// 300,000 bytes at 100 KiB/s: the bucket lets at most 20 KiB go beyond the rate (its
        /// burst and one grant), so the transfer takes at least (300000 − 20480) / 102400 = 2.7 s.
        static let size = 300_000
        static let minimumSeconds = 2.0

        func seconds(_ run: CourierRun) -> Double {
            Double(run.stdoutText.split(separator: "|").last.map(String.init) ?? "") ?? -1
        }

        @Test("--limit-rate caps a download, to a file and to stdout; the bytes are all there")
        func download() async throws {
            let server = try await LoopbackServer.start()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let url = "http://127.0.0.1:\(server.port)/bytes/\(Self.size)"
            let toFile = courier(["--limit-rate", "100k", "-o", directory + "/body", "-w", "|%{size_download}|%{time_total}", url])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            #expect(toFile.stdoutText.hasPrefix("|\(Self.size)|"), "\(toFile.stdoutText)")
            #expect(readFile(directory + "/body")?.count == Self.size)
            #expect(seconds(toFile) >= Self.minimumSeconds, "took \(seconds(toFile)) s")
            let toStdout = courier(["--limit-rate", "100K", "-w", "|%{time_total}", url])
            #expect(toStdout.status == 0, "\(toStdout.stderr)")
            #expect(toStdout.stdout.count > Self.size)
            #expect(seconds(toStdout) >= Self.minimumSeconds, "took \(seconds(toStdout)) s")
            // Without the cap the same transfer is far quicker (the cap is what made it slow).
            let free = courier(["-o", directory + "/free", "-w", "|%{time_total}", url])
            #expect(seconds(free) < Self.minimumSeconds, "uncapped: \(seconds(free)) s")
        }

        @Test("--limit-rate caps an upload: -d @FILE (written by the process) and -T FILE (sendfile)")
        func upload() async throws {
            let server = try await LoopbackServer.start()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            writeFile(directory + "/up.bin", [UInt8](repeating: 0x61, count: Self.size))
            let url = "http://127.0.0.1:\(server.port)/upload"
            for arguments in [["--data-binary", "@" + directory + "/up.bin"], ["-T", directory + "/up.bin"]] {
                let run = courier(["--limit-rate", "100k", "-w", "|%{time_total}"] + arguments + [url])
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
                #expect(run.stdoutText.hasPrefix("{\"received\":\(Self.size)}"), "\(run.stdoutText)")
                #expect(seconds(run) >= Self.minimumSeconds, "\(arguments): took \(seconds(run)) s")
            }
        }

        @Test("--limit-rate reads curl's numbers: k, m, g in either case (powers of 1024), b, 0 for none; anything else is 2")
        func rateSyntax() async throws {
            let server = try await LoopbackServer.start()
            defer { Task { await server.shutdown() } }
            let url = "http://127.0.0.1:\(server.port)/bytes/3"
            for good in ["0", "1G", "5m", "100b", "2048B", "64k"] {
                let run = courier(["--limit-rate", good, url])
                #expect(run.status == 0 && run.stdoutText == "abc", "--limit-rate \(good): \(run.stderr)")
            }
            for bad in ["abc", "1.5k", "10x", "k", "-5", "99999999999999g"] {
                let run = courier(["--limit-rate", bad, url])
                #expect(run.status == 2, "--limit-rate \(bad): \(run.stderr)")
                #expect(run.stderr.hasPrefix("courier: (2) option --limit-rate: is badly used here"), "\(run.stderr)")
            }
        }

        @Test("-Y/-y: a body trickling below the limit ends with 28 in curl's words, after the -y time")
        func tooSlow() async throws {
            // A byte every 300 ms (3 bytes/s) for 30 s: well below 1000 bytes/s.
            let server = try await LoopbackServer.start(.init(scripts: ["/trickle": { _ in
                [.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8))]
                    + Array(repeating: [LoopbackAction.write([0x78]), .pause(.milliseconds(300))], count: 100).flatMap { $0 }
            }]))
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let run = courier(["-Y", "1000", "-y", "2", "-o", directory + "/slow", "-w", "|%{time_total}",
                               "http://127.0.0.1:\(server.port)/trickle"])
            #expect(run.status == 28, "\(run.stderr)")
            #expect(run.stderr == "courier: (28) Operation too slow. Less than 1000 bytes/sec transferred the last 2 seconds\n")
            // The check samples once a second: it fires at 2 s, never before; 10 s is the bound
            // that tells it from the 30 s the trickle would take.
            #expect(seconds(run) >= 1.9 && seconds(run) < 10, "after \(seconds(run)) s")
            #expect(directoryEntries(directory).isEmpty, "no partial file")
            // -y alone: at least 1 byte per second, which the trickle keeps (ended by -m instead).
            let lenient = courier(["-y", "2", "-m", "3", "-o", "/dev/stdout", "http://127.0.0.1:\(server.port)/trickle"])
            #expect(lenient.status == 28, "\(lenient.stderr)")
            #expect(lenient.stderr.hasPrefix("courier: (28) Operation timed out"), "-m ended it: \(lenient.stderr)")
        }

        @Test("-Y on a quick transfer changes nothing; malformed -Y and -y are 2")
        func quickAndMalformed() async throws {
            let server = try await LoopbackServer.start()
            defer { Task { await server.shutdown() } }
            let url = "http://127.0.0.1:\(server.port)/bytes/1000000"
            let run = courier(["-Y", "1000", "-y", "1", "-o", "/dev/stdout", url])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdout.count == 1_000_000)
            for (option, value) in [("-Y", "fast"), ("-y", "-1"), ("-y", "soon")] {
                let bad = courier([option, value, url])
                #expect(bad.status == 2, "\(option) \(value): \(bad.stderr)")
            }
        }
    }
}
