// Reachability: AFNetworkReachabilityManager on Linux. A `RouteMonitor` (CourierPosix) watches
// rtnetlink's links, addresses and routes on an event loop; each synced table is turned into a
// `ReachabilityStatus` (see ReachabilityStatus.evaluate and docs/reachability.md) and delivered
// when it changes: to `status`, to every `statusUpdates()` stream and to the change handler.
//
// Behaviour kept from AFNetworking:
// - `start()` / `stop()` (startMonitoring / stopMonitoring); both are idempotent and return at once.
// - The status is `.unknown` until the first evaluation after `start()`; `stop()` leaves the last
//   status in place (AFNetworking does not reset it either).
// - A change handler (setReachabilityStatusChangeBlock:) and the is-reachable accessors.
//
// Differences, on purpose:
// - Updates are delivered only when the status changes (AFNetworking called its block on every
//   SCNetworkReachability callback, even with an unchanged status).
// - The handler runs on the monitor's event-loop thread, not a main queue: it must not block.
// - If monitoring fails (netlink refused in a sandbox, a kernel error), the status returns to
//   `.unknown` and `monitoringError` says why; `stop()` then `start()` tries again.
// - No per-host reachability (managerForDomain:): Linux has no "would this host's address be
//   routed" callback; a route lookup per host is left for later.
//
// Threading: the state sits in one `Mutex`; deliveries happen on the loop thread, outside the lock,
// in the order the monitor produced them. The monitor and its socket live on the loop thread.

import CourierPosix
import Synchronization

/// Watches whether the network is reachable, and over what kind of interface
/// (AFNetworkReachabilityManager).
public final class Reachability: Sendable {
    /// A shared instance on a loop of its own (AFNetworkReachabilityManager's sharedManager).
    public static let shared = Reachability()

    private struct Running {
        let loop: EventLoop
        let ownsLoop: Bool
        let monitor: RouteMonitor
    }

    private struct State {
        var status = ReachabilityStatus.unknown
        var interfaceName: String?
        var error: RouteMonitorError?
        var generation: UInt64 = 0
        var running: Running?
        var subscribers: [UInt64: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var handler: (@Sendable (ReachabilityStatus) -> Void)?
    }

    private let eventLoop: EventLoop?
    private let state = Mutex(State())

    /// Creates a stopped monitor.
    /// - Parameter eventLoop: the loop to watch the netlink socket on; nil (the default) starts a
    ///   loop of its own at `start()` and shuts it down at `stop()`.
    public init(eventLoop: EventLoop? = nil) {
        self.eventLoop = eventLoop
    }

    deinit {
        let (running, subscribers) = state.withLock { s in (s.running, s.subscribers) }
        if let running { Reachability.retire(running) }
        for continuation in subscribers.values { continuation.finish() }
    }

    // MARK: Reading the status

    /// The current status (AFNetworking's networkReachabilityStatus).
    public var status: ReachabilityStatus { state.withLock { $0.status } }

    /// Whether the network is reachable.
    public var isReachable: Bool { status.isReachable }

    /// Whether it is reachable through an Ethernet interface.
    public var isReachableViaWired: Bool { status == .reachable(.wired) }

    /// Whether it is reachable through an 802.11 interface.
    public var isReachableViaWireless: Bool { status == .reachable(.wireless) }

    /// The name of the interface the status was derived from ("eth0"), when reachable.
    public var interfaceName: String? { state.withLock { $0.interfaceName } }

    /// Why monitoring stopped on its own, if it did (the status is then `.unknown`).
    public var monitoringError: RouteMonitorError? { state.withLock { $0.error } }

    /// A stream of statuses: the current one first, then each change, until the stream is
    /// dropped or this object goes away. It keeps the 16 newest statuses a slow reader has not
    /// taken. Each call makes a new, independent stream.
    /// - Returns: the stream.
    public func statusUpdates() -> AsyncStream<ReachabilityStatus> {
        let (stream, continuation) = AsyncStream.makeStream(of: ReachabilityStatus.self,
                                                            bufferingPolicy: .bufferingNewest(16))
        let id = state.withLock { s in
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = continuation
            // Under the lock, so no change can be delivered to this subscriber before the status
            // it was registered with.
            continuation.yield(s.status)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Sets the closure called with each new status (setReachabilityStatusChangeBlock:). It runs
    /// on the monitor's event-loop thread and must not block.
    /// - Parameter handler: the closure, or nil to remove it.
    public func setStatusChangeHandler(_ handler: (@Sendable (ReachabilityStatus) -> Void)?) {
        state.withLock { $0.handler = handler }
    }

    // MARK: Starting and stopping

    /// Starts monitoring (startMonitoring). Does nothing when already started. The first status
    /// arrives once the kernel's interfaces, addresses and routes have been read.
    public func start() {
        let started = state.withLock { s -> (Running, UInt64)? in
            guard s.running == nil else { return nil }
            let loop: EventLoop
            let ownsLoop: Bool
            if let eventLoop {
                loop = eventLoop
                ownsLoop = false
            } else {
                do throws(Errno) {
                    loop = try EventLoop(name: "courier-reach")
                } catch {
                    s.error = RouteMonitorError(kind: .system(error))
                    return nil
                }
                ownsLoop = true
            }
            s.generation += 1
            s.error = nil
            let generation = s.generation
            let monitor = RouteMonitor(eventLoop: loop) { [weak self] event in
                self?.received(event, generation: generation)
            }
            let running = Running(loop: loop, ownsLoop: ownsLoop, monitor: monitor)
            s.running = running
            return (running, generation)
        }
        guard let (running, generation) = started else { return }
        let monitor = running.monitor
        let accepted = running.loop.execute { [weak self] in
            do throws(RouteMonitorError) {
                try monitor.start()
            } catch {
                self?.received(.failed(error), generation: generation)
            }
        }
        if !accepted {
            received(.failed(RouteMonitorError(kind: .system(.notSupported))), generation: generation)
        }
    }

    /// Stops monitoring (stopMonitoring). The status keeps its last value. Does nothing when
    /// not started.
    public func stop() {
        let running = state.withLock { s -> Running? in
            s.generation += 1
            defer { s.running = nil }
            return s.running
        }
        if let running { Reachability.retire(running) }
    }

    /// Closes the monitor's socket on its loop, then shuts down the loop if it is ours.
    private static func retire(_ running: Running) {
        let monitor = running.monitor
        running.loop.execute { monitor.stop() }
        if running.ownsLoop {
            let loop = running.loop
            Task.detached { await loop.shutdown() }
        }
    }

    // MARK: Deliveries (loop thread)

    private func received(_ event: RouteMonitor.Event, generation: UInt64) {
        let next: ReachabilityStatus
        var interfaceName: String? = nil
        var failure: RouteMonitorError? = nil
        switch event {
        case .table(let table):
            let path = table.primaryPath()
            interfaceName = path?.interface.name
            next = path.map { .reachable(ReachabilityStatus.kind(of: $0.interface, isWireless: RouteMonitor.isWirelessInterface)) }
                ?? .notReachable
        case .failed(let error):
            failure = error
            next = .unknown
        }
        let delivery = state.withLock { s -> ([AsyncStream<ReachabilityStatus>.Continuation], (@Sendable (ReachabilityStatus) -> Void)?)? in
            guard s.generation == generation else { return nil }
            s.interfaceName = interfaceName
            if let failure { s.error = failure }
            guard s.status != next else { return nil }
            s.status = next
            return (Array(s.subscribers.values), s.handler)
        }
        guard let (subscribers, handler) = delivery else { return }
        // The handler first: once a stream's reader sees a status, the handler has seen it too.
        handler?(next)
        for continuation in subscribers { continuation.yield(next) }
    }
}
