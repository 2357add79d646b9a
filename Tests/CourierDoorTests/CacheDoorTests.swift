// The HTTP cache's API with `import Courier` alone (docs/cache.md's example): the cache, a
// request's policy, the events and metrics, the typed miss.

import Courier
import Testing

@Suite("the HTTP cache through import Courier")
struct CacheDoorTests {
    @Test func cacheShape() async throws {
        var configuration = SessionConfiguration()
        configuration.cache = HTTPCache(memoryCapacity: 1 << 20)
        let session = Session(configuration: configuration)
        var request = HTTPRequest(method: .get, uri: try URI(parsing: "http://127.0.0.1:9/never"))
        request.cachePolicy = .returnCacheDataDontLoad
        let response = await session.dataTask(with: request).response
        // Nothing stored and the request may not go out: a typed miss, nothing sent.
        guard case .failure(let error) = response.result else { Issue.record("served"); return }
        #expect(error.code == .cacheMiss)
        #expect(response.metrics.cacheEvents == [CacheEvent.miss])
        await session.invalidateAndCancel()
    }
}
