// http-tests/cache-tests under the private-cache interpretation: every suite issue 13 names, run
// against a Session with an HTTPCache (CacheTestsRunner.swift). The private-cache interpretation
// is the one cache-tests applies to browsers: tests marked browser_skip (shared caches only:
// s-maxage, proxy-revalidate, answering a client's own conditional request) are not run, tests
// marked browser_only (private caches only) are.
// Every `required` test passes except the deliberate differences below (docs/cache.md lists them
// with their reasons); `optimal` and `check` tests are counted and printed, not asserted, but
// their pass count may not fall below what docs/cache.md reports.

import CourierLoopbackServer
import Testing

@Suite("http-tests/cache-tests", .serialized)
struct CacheTestsSuiteTests {
    /// Required tests Courier fails on purpose (docs/cache.md, "Differences from cache-tests").
    /// Both ask for an error response (a 504) when the origin cannot be reached and the stale
    /// entry may not be served; a client library reports the transport error instead.
    static let deliberateDifferences: Set<String> = ["stale-close-must-revalidate", "stale-close-no-cache"]

    /// Passes per kind as docs/cache.md reports them: fewer is a regression.
    static let expectedPasses: [CTKind: Int] = [.required: 81, .optimal: 53, .check: 36]

    @Test("the suites, private-cache interpretation")
    func suites() async throws {
        let clock = ManualCacheClock()
        let origin = CacheTestOrigin(clock: clock)
        let server = try await LoopbackServer.start(LoopbackServer.Configuration(scripts: ["/test/*": { origin.respond($0) }]))
        var counts: [CTKind: (pass: Int, fail: Int, setup: Int)] = [:]
        var failures: [String] = []
        var serial = 0
        for suite in CacheTestSuite.all {
            for test in suite.tests where !test.browserSkip {
                serial += 1
                // 36 characters, as their UUIDs (a test declares Content-Length: 36 for its default body).
                let digits = String(serial)
                let uuid = "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - digits.count) + digits
                let outcome = await runCacheTest(test, uuid: uuid, server: server, origin: origin)
                var c = counts[test.kind] ?? (0, 0, 0)
                switch outcome {
                case .pass: c.pass += 1
                case .fail(let message):
                    c.fail += 1
                    failures.append("FAIL \(test.kind.rawValue) \(suite.id)/\(test.id): \(message)")
                    if test.kind == .required && !Self.deliberateDifferences.contains(test.id) {
                        Issue.record("\(suite.id)/\(test.id): \(message)")
                    }
                case .setupFail(let message):
                    c.setup += 1
                    failures.append("SETUP \(test.kind.rawValue) \(suite.id)/\(test.id): \(message)")
                }
                counts[test.kind] = c
            }
        }
        await server.shutdown()
        for line in failures { print(line) }
        for kind in [CTKind.required, .optimal, .check] {
            let c = counts[kind] ?? (0, 0, 0)
            print("cache-tests \(kind.rawValue): \(c.pass) pass, \(c.fail) fail, \(c.setup) setup failures")
            #expect(c.pass >= Self.expectedPasses[kind] ?? 0, "\(kind.rawValue): \(c.pass) pass")
        }
    }
}
