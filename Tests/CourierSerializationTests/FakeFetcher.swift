// A fetch closure for ResourceDownloader tests that the test drives by hand: every fetch parks
// until the test releases it (with a value or an error), and every start and cancellation is
// reported on an event stream the test awaits — so no test sleeps or races.

import Synchronization
import CourierURL
@testable import Courier

/// A stand-in for the network: fetches wait for `release`/`fail`.
final class FakeFetcher: Sendable {
    /// What happened to a fetch.
    enum Event: Sendable, Equatable {
        case started(String)
        case cancelled(String)
    }

    struct FetchFailure: Error, Equatable {}

    private struct Parked {
        let url: String
        let continuation: CheckedContinuation<String, any Error>
    }

    private struct State {
        var parked: [Int: Parked] = [:]
        var cancelledEarly: Set<Int> = []
        var nextToken = 0
        var fetches: [String] = []
        var running = 0
        var maxRunning = 0
        var cancellations = 0
    }

    /// Whether a fetch goes on when its task is cancelled (a fetch slow to notice).
    let ignoresCancellation: Bool
    let events: AsyncStream<Event>
    private let eventSink: AsyncStream<Event>.Continuation
    private let state = Mutex(State())

    init(ignoresCancellation: Bool = false) {
        self.ignoresCancellation = ignoresCancellation
        (events, eventSink) = AsyncStream.makeStream(of: Event.self)
    }

    /// Every fetch started so far, by URL, in order.
    var fetches: [String] { state.withLock { $0.fetches } }
    /// The most fetches that were running at the same moment.
    var maxRunning: Int { state.withLock { $0.maxRunning } }
    /// How many fetches saw their task cancelled.
    var cancellations: Int { state.withLock { $0.cancellations } }

    /// The fetch closure.
    func fetch(_ request: HTTPRequest) async throws -> String {
        let url = request.uri.description
        let token = state.withLock { s in
            s.nextToken += 1
            s.fetches.append(url)
            s.running += 1
            s.maxRunning = max(s.maxRunning, s.running)
            return s.nextToken
        }
        defer { state.withLock { $0.running -= 1 } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<String, any Error>) in
                let cancelledFirst = state.withLock { s in
                    if s.cancelledEarly.remove(token) != nil { return true }
                    s.parked[token] = Parked(url: url, continuation: continuation)
                    return false
                }
                if cancelledFirst { continuation.resume(throwing: CancellationError()) }
                eventSink.yield(.started(url))
            }
        } onCancel: {
            let parked = state.withLock { s -> Parked? in
                s.cancellations += 1
                if ignoresCancellation { return nil }
                guard let parked = s.parked.removeValue(forKey: token) else {
                    s.cancelledEarly.insert(token)
                    return nil
                }
                return parked
            }
            // Reported before the fetch resumes, so the event precedes whatever the end of this
            // fetch sets off (the next queued start).
            eventSink.yield(.cancelled(url))
            parked?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Completes the oldest parked fetch of `url` with `value`.
    func release(_ url: String, with value: String) {
        take(url).continuation.resume(returning: value)
    }

    /// Fails the oldest parked fetch of `url`.
    func fail(_ url: String) {
        take(url).continuation.resume(throwing: FetchFailure())
    }

    private func take(_ url: String) -> Parked {
        state.withLock { s in
            guard let token = s.parked.filter({ $0.value.url == url }).keys.min() else {
                preconditionFailure("no parked fetch for \(url)")
            }
            return s.parked.removeValue(forKey: token)!
        }
    }
}

/// Collects completion results, labelled, and lets a test await them one at a time.
final class CompletionLog: Sendable {
    let results: AsyncStream<(String, Result<String, ResourceDownloaderError>)>
    private let sink: AsyncStream<(String, Result<String, ResourceDownloaderError>)>.Continuation
    private let all = Mutex<[(String, Result<String, ResourceDownloaderError>)]>([])

    init() {
        (results, sink) = AsyncStream.makeStream(of: (String, Result<String, ResourceDownloaderError>).self)
    }

    /// A completion handler that records under `label`.
    func handler(_ label: String) -> ResourceDownloader<String>.Completion {
        { result in
            self.all.withLock { $0.append((label, result)) }
            self.sink.yield((label, result))
        }
    }

    /// The number of results recorded under `label` so far.
    func count(_ label: String) -> Int { all.withLock { $0.filter { $0.0 == label }.count } }
}

/// A GET request for `url`.
func getRequest(_ url: String) -> HTTPRequest {
    HTTPRequest(method: .get, uri: try! URI(parsing: url))
}

extension AsyncStream {
    /// The next element; the stream never ends in these tests.
    func next() async -> Element {
        var iterator = makeAsyncIterator()
        return await iterator.next()!
    }
}
