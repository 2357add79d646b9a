// Resolver: host names to addresses without blocking the cooperative pool (design §4).
// getaddrinfo blocks (it may wait for DNS), so it runs on a dedicated resolver thread that
// sleeps on a blocking eventfd; async callers suspend on a continuation.
//
// Order of answers for `resolve(host:port:)`:
//   1. an override (curl's --resolve) for host and port — "*" matches any host;
//   2. an IP literal ("192.0.2.1", "::1", "[::1]") — no lookup at all;
//   3. a ".invalid" name — EAI_NONAME at once (RFC 6761 §6.4: such names never resolve);
//   4. the TTL cache;
//   5. getaddrinfo on the resolver thread (AF_UNSPEC, SOCK_STREAM; the C library's RFC 6724
//      order is kept; Happy Eyeballs interleaves families afterwards). Its answer is cached.
// Lookups are not coalesced: two concurrent misses for one name make two getaddrinfo calls.

import Synchronization

/// Resolves host names on a thread of its own, with overrides and a small TTL cache.
public final class Resolver: Sendable {
    /// Resolver settings.
    public struct Configuration: Sendable {
        /// How long an answer is reused. curl's DNS cache keeps entries 60 s; 0 disables caching.
        public var cacheTTL: Duration
        /// The most names cached at once.
        public var maxCacheEntries: Int
        /// Fixed answers that win over everything else (curl's --resolve).
        public var overrides: [ResolveOverride]
        /// The clock the cache reads (injectable for tests).
        public var now: @Sendable () -> Instant
        /// Whether names under ".invalid" fail without a lookup (RFC 6761 §6.4). On by default.
        public var rejectsInvalidNames: Bool
        /// Only addresses of this family are answered (curl's -4 and -6); nil: both.
        public var addressFamily: IPAddress.Family? = nil
        /// Where connections for a host and port go instead (curl's --connect-to); the first
        /// entry that matches applies, then the overrides, the cache and the lookup, for the new
        /// host and port.
        public var connectTo: [ConnectToOverride] = []

        /// Creates settings.
        /// - Parameters:
        ///   - cacheTTL: answer lifetime; 60 s by default (curl's default).
        ///   - maxCacheEntries: cache capacity; 256 by default.
        ///   - overrides: --resolve entries.
        ///   - now: the clock; CLOCK_MONOTONIC by default.
        ///   - rejectsInvalidNames: RFC 6761 short cut for ".invalid"; on by default.
        public init(cacheTTL: Duration = .seconds(60), maxCacheEntries: Int = 256,
                    overrides: [ResolveOverride] = [], now: @escaping @Sendable () -> Instant = { Instant.now() },
                    rejectsInvalidNames: Bool = true) {
            self.cacheTTL = cacheTTL
            self.maxCacheEntries = maxCacheEntries
            self.overrides = overrides
            self.now = now
            self.rejectsInvalidNames = rejectsInvalidNames
        }
    }

    private let configuration: Configuration
    private let worker: ResolverWorker

    /// Creates a resolver and starts its thread. Call `shutdown()` when done.
    /// - Parameter configuration: cache, overrides, clock.
    /// - Throws: `Errno` when the wake-up eventfd cannot be created.
    public init(configuration: Configuration = Configuration()) throws(Errno) {
        self.configuration = configuration
        worker = try ResolverWorker(cache: ResolverCache(ttl: configuration.cacheTTL,
                                                         maxEntries: configuration.maxCacheEntries),
                                    now: configuration.now)
    }

    deinit { worker.stop(join: false) }

    /// Resolves `host` for a TCP connection to `port` (after `connectTo`, filtered by
    /// `addressFamily`).
    /// - Parameters:
    ///   - host: a name or an IP literal (brackets allowed for IPv6).
    ///   - port: the port the addresses are for.
    /// - Returns: at least one address, in the C library's preference order.
    /// - Throws: `ResolutionError` (EAI_NONAME for unknown names, `.cancelled`, `.shutDown`, ...).
    public func resolve(host: String, port: UInt16) async throws(ResolutionError) -> [SocketAddress] {
        var host = host, port = port
        let key = ResolverCache.Key(host: host, port: port)
        if let entry = configuration.connectTo.first(where: { $0.matches(host: key.host, port: port) }) {
            host = entry.targetHost ?? host
            port = entry.targetPort ?? port
        }
        let answer = try await lookUp(host: host, port: port)
        guard let family = configuration.addressFamily else { return answer }
        let kept = answer.filter { $0.family == family }
        // curl: a name without an address of the family asked for does not resolve; an address
        // literal of the other family resolves to nothing to connect to.
        if kept.isEmpty && IPAddress(host) == nil { throw ResolutionError(code: .addressFamily, host: host) }
        return kept
    }

    private func lookUp(host: String, port: UInt16) async throws(ResolutionError) -> [SocketAddress] {
        if let answer = try immediateAnswer(host: host, port: port) { return answer }
        let job = ResolverJob(host: host, port: port)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[SocketAddress], ResolutionError>, Never>) in
                job.attach(continuation)
                if !worker.enqueue(job) { job.finish(.failure(ResolutionError(code: .shutDown, host: host))) }
            }
        } onCancel: {
            job.finish(.failure(ResolutionError(code: .cancelled, host: host)))
        }
        return try result.get()
    }

    /// The answer when no lookup is needed (override, literal, .invalid, cache), else nil.
    func immediateAnswer(host: String, port: UInt16) throws(ResolutionError) -> [SocketAddress]? {
        let key = ResolverCache.Key(host: host, port: port)
        for entry in configuration.overrides where entry.port == port && (entry.host == key.host || entry.host == "*") {
            return entry.addresses.map { SocketAddress(ip: $0, port: port) }
        }
        if let ip = IPAddress(host) { return [SocketAddress(ip: ip, port: port)] }
        if host.isEmpty || host.utf8.contains(0) { throw ResolutionError(code: .noName, host: host) }
        if configuration.rejectsInvalidNames && (key.host == "invalid" || key.host.hasSuffix(".invalid")) {
            throw ResolutionError(code: .noName, host: host)
        }
        return worker.cached(key)
    }

    /// Calls getaddrinfo on the current thread (blocking; the resolver thread's work).
    static func lookup(host: String, port: UInt16) -> Result<[SocketAddress], ResolutionError> {
        let (code, errno, addresses) = Sys.getAddressInfo(host: host, port: port, numericHostOnly: false)
        if code != 0 {
            return .failure(ResolutionError(code: .init(addressInfoValue: code), host: host,
                                            errno: errno == 0 ? nil : Errno(rawValue: errno)))
        }
        if addresses.isEmpty { return .failure(ResolutionError(code: .noData, host: host)) }
        return .success(addresses)
    }

    /// Stops the resolver thread after the lookups already queued, and waits for it (suspended,
    /// never blocking a thread of the pool: the stopped thread is detached, not joined). Later
    /// `resolve` calls that need a lookup fail with `.shutDown`.
    public func shutdown() async {
        await worker.stopAndWait()
        worker.stop(join: false)
    }

    /// The number of cached names (for tests and diagnostics).
    public var cachedNameCount: Int { worker.cacheCount }
}

/// One queued lookup; resumed exactly once, by the worker or by cancellation.
final class ResolverJob: Sendable {
    let host: String
    let port: UInt16
    private typealias Answer = Result<[SocketAddress], ResolutionError>
    private struct State {
        var continuation: CheckedContinuation<Answer, Never>?
        var result: Answer?
    }
    private let state = Mutex(State())

    init(host: String, port: UInt16) {
        self.host = host
        self.port = port
    }

    /// Whether the job was already answered (cancelled before the worker reached it).
    var isFinished: Bool { state.withLock { $0.result != nil } }

    func attach(_ continuation: CheckedContinuation<Result<[SocketAddress], ResolutionError>, Never>) {
        // A cancellation may have answered the job before the continuation existed.
        let early = state.withLock { s -> Answer? in
            if let r = s.result { return r }
            s.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func finish(_ result: Result<[SocketAddress], ResolutionError>) {
        let continuation = state.withLock { s -> CheckedContinuation<Answer, Never>? in
            guard s.result == nil else { return nil }
            s.result = result
            return s.continuation.take()
        }
        continuation?.resume(returning: result)
    }
}

/// The resolver thread and the state it shares with callers.
final class ResolverWorker: Sendable {
    private enum State { case running, stopping, stopped }
    private struct Shared {
        var jobs: [ResolverJob] = []
        var state = State.running
        var cache: ResolverCache
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let wakeFD: CInt
    private let shared: Mutex<Shared>
    private let now: @Sendable () -> Instant
    private let thread = Mutex<UInt?>(nil)

    init(cache: ResolverCache, now: @escaping @Sendable () -> Instant) throws(Errno) {
        wakeFD = try Sys.eventFD(blocking: true)
        shared = Mutex(Shared(cache: cache))
        self.now = now
        let id = Sys.spawnThread(name: "courier-resolve") { [self] in run() }
        thread.withLock { $0 = id }
    }

    var cacheCount: Int { shared.withLock { $0.cache.count } }

    func cached(_ key: ResolverCache.Key) -> [SocketAddress]? {
        let t = now()
        return shared.withLock { $0.cache.lookup(key, now: t) }
    }

    func enqueue(_ job: ResolverJob) -> Bool {
        shared.withLock { s in
            guard s.state == .running else { return false }
            s.jobs.append(job)
            signal()
            return true
        }
    }

    /// Asks the thread to stop and suspends until it has.
    func stopAndWait() async {
        await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
            let done = shared.withLock { s -> Bool in
                if s.state == .stopped { return true }
                if s.state == .running { s.state = .stopping; signal() }
                s.waiters.append(c)
                return false
            }
            if done { c.resume() }
        }
    }

    /// Asks the thread to stop; joins it (once) when `join`, else lets it end on its own.
    func stop(join: Bool) {
        shared.withLock { s in
            if s.state == .running { s.state = .stopping; signal() }
        }
        guard let id = thread.withLock({ $0.take() }) else { return }
        if join { Sys.joinThread(id) } else { Sys.detachThread(id) }
    }

    /// Wakes the thread; called with the lock held, so wakeFD is still open (it is closed under
    /// the same lock once stopped).
    private func signal() {
        do { try Sys.eventFDSignal(wakeFD) } catch { preconditionFailure("waking the resolver failed: \(error)") }
    }

    private func run() {
        while true {
            let (jobs, stopping) = shared.withLock { s -> ([ResolverJob], Bool) in
                let jobs = s.jobs
                s.jobs.removeAll()
                return (jobs, s.state != .running)
            }
            if jobs.isEmpty {
                if stopping { break }
                _ = try? Sys.eventFDDrain(wakeFD)  // blocks this thread (ours) until signalled
                continue
            }
            for job in jobs where !job.isFinished {
                let result = Resolver.lookup(host: job.host, port: job.port)
                if case .success(let addresses) = result {
                    let t = now()
                    shared.withLock { $0.cache.insert(addresses, for: ResolverCache.Key(host: job.host, port: job.port), now: t) }
                }
                job.finish(result)
            }
        }
        let waiters = shared.withLock { s -> [CheckedContinuation<Void, Never>] in
            s.state = .stopped
            try? Sys.close(wakeFD)
            let w = s.waiters
            s.waiters = []
            return w
        }
        for w in waiters { w.resume() }
    }
}
