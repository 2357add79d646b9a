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
// - Per host or address (managerForDomain:, managerForAddress:): SCNetworkReachability's
//   "would a packet to this host be routed" becomes the kernel's own answer to RTM_GETROUTE for
//   the destination (RouteLookup, what `ip route get` prints), asked again after every link,
//   address or route change the monitor sees. A host name is resolved first, once per `start()`,
//   by the Resolver (its own thread, not the cooperative pool); a name that does not resolve is
//   `.notReachable` with `resolutionError` set. The status of a destination on this machine
//   (localhost, 127.0.0.0/8, ::1, an own address) is `.reachable(.loopback)`. Of several
//   addresses, the first one routed gives the status.
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

    /// What is watched.
    public enum Target: Hashable, Sendable {
        /// The network as a whole: the default route's interface (AFNetworking's sharedManager
        /// and `manager`, which watch the "any" address).
        case defaultRoute
        /// One address (managerForAddress:).
        case address(IPAddress)
        /// A host name, resolved at each `start()` (managerForDomain:).
        case host(String)
    }

    private struct State {
        var status = ReachabilityStatus.unknown
        var addresses: [IPAddress]?
        var resolutionError: ResolutionError?
        var lastTable: InterfaceTable?
        var interfaceName: String?
        var error: RouteMonitorError?
        var generation: UInt64 = 0
        var running: Running?
        var subscribers: [UInt64: AsyncStream<ReachabilityStatus>.Continuation] = [:]
        var nextSubscriber: UInt64 = 0
        var handler: (@Sendable (ReachabilityStatus) -> Void)?
    }

    private let eventLoop: EventLoop?
    private let resolver: Resolver?
    private let state = Mutex(State())

    /// What this instance watches.
    public let target: Target

    /// Creates a stopped monitor of the network as a whole (the default route).
    /// - Parameter eventLoop: the loop to watch the netlink socket on; nil (the default) starts a
    ///   loop of its own at `start()` and shuts it down at `stop()`.
    public init(eventLoop: EventLoop? = nil) {
        self.eventLoop = eventLoop
        self.resolver = nil
        self.target = .defaultRoute
    }

    /// Creates a stopped monitor of one address (managerForAddress:): reachable when the kernel
    /// has a route to it.
    /// - Parameters:
    ///   - address: the destination.
    ///   - eventLoop: as for `init(eventLoop:)`.
    public init(address: IPAddress, eventLoop: EventLoop? = nil) {
        self.eventLoop = eventLoop
        self.resolver = nil
        self.target = .address(address)
        state.withLock { $0.addresses = [address] }
    }

    /// Creates a stopped monitor of a host (managerForDomain:). An IP literal is watched as an
    /// address; a name is resolved at each `start()`.
    /// - Parameters:
    ///   - host: a host name or IP literal.
    ///   - resolver: the resolver to use; nil makes one for each resolution and shuts it down after.
    ///   - eventLoop: as for `init(eventLoop:)`.
    public init(host: String, resolver: Resolver? = nil, eventLoop: EventLoop? = nil) {
        self.eventLoop = eventLoop
        self.resolver = resolver
        if let literal = IPAddress(host) {
            self.target = .address(literal)
            state.withLock { $0.addresses = [literal] }
        } else {
            self.target = .host(host)
        }
    }

    /// The addresses whose routes decide the status: the watched address, or the host's
    /// addresses once resolved (nil before).
    public var addresses: [IPAddress]? { state.withLock { $0.addresses } }

    /// Why the host name did not resolve at the last `start()`, if it did not.
    public var resolutionError: ResolutionError? { state.withLock { $0.resolutionError } }

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
            if case .host = target {
                s.addresses = nil
                s.resolutionError = nil
            }
            s.lastTable = nil
            let monitor = RouteMonitor(eventLoop: loop, reportsEveryChange: target != .defaultRoute) { [weak self] event in
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
        if case .host(let name) = target { resolve(name, loop: running.loop, generation: generation) }
    }

    /// Resolves the watched name, then evaluates the last table on the loop (if the monitor has
    /// produced one already; otherwise its first table will be evaluated with the addresses).
    private func resolve(_ name: String, loop: EventLoop, generation: UInt64) {
        let resolver = self.resolver
        Task.detached { [weak self] in
            var addresses: [IPAddress] = []
            var failure: ResolutionError? = nil
            do throws(ResolutionError) {
                let own = resolver == nil ? try? Resolver() : nil
                guard let using = resolver ?? own else {
                    throw ResolutionError(code: .system, host: name)
                }
                defer { if let own { Task { await own.shutdown() } } }
                var seen = Set<IPAddress>()
                for endpoint in try await using.resolve(host: name, port: 0) where seen.insert(endpoint.ip).inserted {
                    addresses.append(endpoint.ip)
                }
            } catch {
                failure = error
            }
            guard let self else { return }
            let table = self.state.withLock { s -> InterfaceTable?? in
                guard s.generation == generation else { return .none }
                s.addresses = addresses
                s.resolutionError = failure
                return .some(s.lastTable)
            }
            guard case .some(let last) = table else { return }
            if let last {
                loop.execute { [weak self] in self?.received(.table(last), generation: generation) }
            } else if failure != nil {
                // No table yet, but a name that does not resolve is not reachable whatever the
                // routes say.
                loop.execute { [weak self] in self?.received(.table(InterfaceTable()), generation: generation) }
            }
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
        case .table(let table) where target == .defaultRoute:
            let path = table.primaryPath()
            interfaceName = path?.interface.name
            next = path.map { .reachable(ReachabilityStatus.kind(of: $0.interface, isWireless: RouteMonitor.isWirelessInterface)) }
                ?? .notReachable
        case .table(let table):
            let (addresses, resolutionFailed) = state.withLock { s in
                if s.generation == generation { s.lastTable = table }
                return (s.addresses, s.resolutionError != nil)
            }
            // Still resolving: the status stays unknown until the name's addresses are known.
            guard let addresses else { return }
            if resolutionFailed {
                next = .notReachable
                break
            }
            var routed: (ReachabilityStatus, String?)? = nil
            do throws(RouteLookupError) {
                for address in addresses {
                    let answer = try RouteLookup.lookUp(address)
                    guard answer.isRouted else { continue }
                    let interface = answer.outputInterface.flatMap { table.interfaces[$0] }
                    let kind: ReachabilityStatus.InterfaceKind = answer.isLocal ? .loopback
                        : interface.map { ReachabilityStatus.kind(of: $0, isWireless: RouteMonitor.isWirelessInterface) } ?? .other
                    routed = (.reachable(kind), interface?.name)
                    break
                }
                next = routed?.0 ?? .notReachable
                interfaceName = routed?.1
            } catch {
                failure = RouteMonitorError(kind: .system(error.errno))
                next = .unknown
            }
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
