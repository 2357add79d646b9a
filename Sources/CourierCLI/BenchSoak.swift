// The soak workload (`courier bench soak`, and a row of `courier bench`): many sequential
// keep-alive GETs through one `Session`, each response dropped at once, with the resident set
// sampled as it goes. A session used for weeks must hold the same memory after a million requests
// as after a thousand (design §3: ownership ends), so the figure that matters is the growth after
// the first 1,000 requests (target: under 2 MiB over 100,000).

import Courier
import CourierBytes
import CourierPosix
import CourierURL

enum BenchSoak {
    /// What a soak run measured.
    struct Result {
        var requests: Int
        var seconds: Double
        /// (requests done, RSS in bytes) every `sampleEvery` requests, starting at 1,000.
        var samples: [(requests: Int, rss: Int)]

        /// RSS after 1,000 requests.
        var baseline: Int { samples.first?.rss ?? 0 }
        /// The largest RSS seen after the first 1,000 requests, minus the RSS at 1,000.
        var growth: Int { (samples.map(\.rss).max() ?? 0) - baseline }

        var line: String {
            "requests=\(requests) seconds=\(fixed(seconds, 3)) rss_at_1000=\(baseline) growth=\(growth) samples="
                + samples.map { "\($0.requests):\($0.rss)" }.joined(separator: ",")
        }
    }

    /// Body sizes the GETs cycle through (0.2–30 KB, as an API's responses vary).
    static let sizes = [200, 1_500, 4_000, 12_000, 30_000]

    /// Runs `requests` sequential GETs on one session; `path(i)` names the i-th resource.
    static func run(base: URI, requests: Int, sampleEvery: Int = 10_000,
                    path: (Int) -> String = { "/bytes/\(BenchSoak.sizes[$0 % BenchSoak.sizes.count])" }) async throws -> Result {
        var configuration = SessionConfiguration()
        configuration.maximumConnectionsPerHost = 1
        let session = Session(configuration: configuration)
        var samples: [(Int, Int)] = []
        let start = ContinuousClock.now
        for i in 1...requests {
            let uri = try base.resolving(path(i))
            let task = session.dataTask(with: HTTPRequest(method: .get, uri: uri))
            do {
                _ = try await task.value
            } catch {
                throw BenchError.failed("soak request \(i) failed: \(error)")
            }
            if i == 1_000 || (i % sampleEvery == 0 && i > 1_000) || i == requests {
                samples.append((i, ProcessUsage.residentBytes() ?? 0))
            }
        }
        let seconds = BenchClient.seconds(since: start)
        await session.invalidateAndCancel()
        return Result(requests: requests, seconds: seconds, samples: samples)
    }
}
