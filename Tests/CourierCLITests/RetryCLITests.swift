// --retry (issue 13 §2): curl's warning line, only the final body in the -o file, -s silencing
// the warning, a POST sent once. Retry-After: 0 keeps the runs fast (courier waits 0 s there;
// the schedule itself is checked with an injected clock in the session tests and against curl in
// scripts/cli-differential).

import CourierLoopbackServer
import Synchronization
import Testing

extension CLITests {
    @Suite("--retry")
    struct RetryCLITests {
        @Test("a 503 is retried with curl's warning, -o holds only the final body, -s hides the warning, a POST goes once")
        func retriesA503() async throws {
            let hits = Atomic<Int>(0)
            let server = try await LoopbackServer.start(.init(scripts: [
                "/flaky": { _ in
                    let n = hits.add(1, ordering: .relaxed).newValue
                    return n % 2 == 1 ? [.response(status: 503, headers: ["Retry-After: 0"], body: "busy")] : [.response(body: "fine")]
                },
            ]))
            let url = "http://127.0.0.1:\(server.port)/flaky"
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }

            let run = courier(["--retry", "2", "-o", dir + "/out", url])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stderr == "Warning: Problem : HTTP error. Will retry in 0 seconds. 2 retries left.\n")
            #expect(readFile(dir + "/out") == Array("fine".utf8), "the 503's body is not in the file")
            #expect(hits.load(ordering: .relaxed) == 2)

            let silent = courier(["-s", "--retry", "2", url])
            #expect(silent.stderr.isEmpty)
            #expect(silent.stdoutText == "fine")

            let post = courier(["-s", "--retry", "2", "-d", "x=1", url])
            #expect(post.stdoutText == "busy", "a POST without Idempotency-Key is not sent again")
            #expect(hits.load(ordering: .relaxed) == 5)

            let usage = courier(["--retry", "two", url])
            #expect(usage.status == 2)
            await server.shutdown()
        }
    }
}
