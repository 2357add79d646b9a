// -Z/--parallel (issue 14 §4): transfers at once on one session, the exit code of the last
// failure, --fail-early's 42 for the others, --parallel-max, and curl 7.88's parallel meter on
// stderr (-#: shown although stderr is not a terminal). Byte-for-byte comparisons with curl itself
// are in scripts/cli-differential (the "-Z" cases).

import CourierLoopbackServer
import Synchronization
import Testing

extension CLITests {
    @Suite("-Z/--parallel")
    struct ParallelCLITests {
        static func server() async throws -> LoopbackServer {
            try await LoopbackServer.start(.init(scripts: [
                "/slow": { _ in [.pause(.milliseconds(400)), .response(body: "slow\n")] },
                "/fast": { _ in [.response(body: "fast\n")] },
                "/missing": { _ in [.response(status: 404, body: "no\n")] },
            ]))
        }

        @Test("transfers run at once: the fast body first, one run shorter than the two pauses")
        func runsAtOnce() async throws {
            let server = try await Self.server()
            let base = "http://127.0.0.1:\(server.port)"
            let start = ContinuousClock.now
            let run = courier(["-s", "-Z", "--parallel-immediate", base + "/slow", base + "/slow", base + "/fast"])
            let elapsed = ContinuousClock.now - start
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "fast\nslow\nslow\n")
            #expect(elapsed < .milliseconds(800), "two 400 ms pauses overlapped")

            // Without --parallel-immediate the second transfer to the origin waits for the first's head.
            let waited = courier(["-s", "-Z", base + "/slow", base + "/fast"])
            #expect(waited.stdoutText == "slow\nfast\n")

            // --parallel-max 1: one at a time, in command-line order.
            let serial = courier(["-s", "-Z", "--parallel-max", "1", "--parallel-immediate", base + "/slow", base + "/fast"])
            #expect(serial.stdoutText == "slow\nfast\n")
            #expect(courier(["-s", "-Z", "--parallel-max", "many", base + "/fast"]).status == 2)
            await server.shutdown()
        }

        @Test("the exit code is the last failure's; --fail-early ends the others with 42")
        func exitCodes() async throws {
            let server = try await Self.server()
            let base = "http://127.0.0.1:\(server.port)"
            let last = courier(["-s", "-Z", "--parallel-immediate", "-m", "0.2", "-o", "/dev/null", "-o", "/dev/null",
                                "http://127.0.0.1:1/", base + "/slow"])
            #expect(last.status == 28, "7 first, then the timeout: \(last.stderr)")

            let early = courier(["-sS", "-Z", "--fail-early", "--parallel-immediate", "-f", "-w", "%{http_code}\\n",
                                 base + "/slow", base + "/missing"])
            #expect(early.status == 22)
            #expect(early.stdoutText == "404\n000\n")
            #expect(early.stderr == "courier: (22) The requested URL returned error: 404\n"
                + "courier: (42) Transfer aborted due to critical error in another transfer\n")
            await server.shutdown()
        }

        @Test("-# -Z draws curl's parallel meter: the header, then lines ending in the final one")
        func meter() async throws {
            let server = try await Self.server()
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["-#", "-Z", "-o", "/dev/null", "-o", "/dev/null", base + "/fast", base + "/slow"])
            #expect(run.status == 0)
            let header = "DL% UL%  Dled  Uled  Xfers  Live Total     Current  Left    Speed\n"
            #expect(run.stderr.hasPrefix(header + "\r--  --      0     0     2     2  --:--:-- --:--:-- --:--:--     0      "),
                    "\(run.stderr.debugDescription)")
            let final = run.stderr.split(separator: "\r").last.map(String.init) ?? ""
            #expect(final.hasPrefix("100 --     10     0     2     0  --:--:-- --:--:-- --:--:-- "), "\(final.debugDescription)")
            #expect(final.hasSuffix("     \n") && final.utf8.count == 71, "\(final.debugDescription)")
            #expect(courier(["-s", "-#", "-Z", base + "/fast"]).stderr.isEmpty, "-s silences the meter")
            await server.shutdown()
        }
    }
}
