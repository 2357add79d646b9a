// RouteMonitor: the I/O shell around `RouteSync` — a NETLINK_ROUTE socket registered on an
// `EventLoop`, reading datagrams as they come, parsing them (NetlinkParser), feeding the machine
// and sending the dump requests it returns. It reports the synced `InterfaceTable` after every
// change, on the loop thread.
//
// Rules it keeps:
// - The socket joins RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE |
//   RTMGRP_IPV6_ROUTE at bind, before the first dump is sent (see RouteSync).
// - Only the kernel's datagrams are read (sender port 0): another process can address a unicast
//   message to this socket's port, and it must not be able to fake the network's state.
// - ENOBUFS from recv (the kernel dropped notifications) and a datagram cut short (MSG_TRUNC) both
//   mean the table may be wrong: the machine starts a full resynchronisation.
// - At most `datagramsPerWake` datagrams are read per readiness event (the loop is
//   level-triggered, so the rest wait for the next turn and other descriptors get theirs).
// - Any other failure (a recv or send error, a malformed datagram, a dump refused three times)
//   stops the monitor and is reported once.
//
// Threading: every method runs on the event loop's thread (checked in debug builds); the object is
// `@unchecked Sendable` only so it can be created elsewhere and handed to the loop.

/// Watches the kernel's interfaces, addresses and routes through rtnetlink.
public final class RouteMonitor: @unchecked Sendable {
    /// What the monitor reports.
    public enum Event: Sendable {
        /// The synced table, after the first full dump and after every change since.
        case table(InterfaceTable)
        /// The monitor has stopped on an error.
        case failed(RouteMonitorError)
    }

    /// The receive buffer: larger than the 32 KiB the kernel fills a dump datagram up to.
    static let datagramCapacity = 64 * 1024
    /// The socket receive buffer asked for.
    static let socketReceiveBuffer: CInt = 1 << 20
    /// Datagrams read per readiness event.
    static let datagramsPerWake = 16

    private let loop: EventLoop
    private let onEvent: (Event) -> Void
    private let reportsEveryChange: Bool
    private var fd: CInt = -1
    private var registration: EventLoop.Registration?
    private var sync = RouteSync()
    private let buffer: UnsafeMutableRawBufferPointer

    /// Creates a monitor; nothing happens until `start()`.
    /// - Parameters:
    ///   - eventLoop: the loop whose thread runs the monitor.
    ///   - reportsEveryChange: also report the table after a link, address or route message that
    ///     left it unchanged (a route to some other network): for watchers of one destination,
    ///     whose route any route change may move. False (the default) reports table changes only.
    ///   - onEvent: called on the loop thread with each table and with a failure.
    public init(eventLoop: EventLoop, reportsEveryChange: Bool = false, onEvent: @escaping (Event) -> Void) {
        self.loop = eventLoop
        self.onEvent = onEvent
        self.reportsEveryChange = reportsEveryChange
        self.buffer = .allocate(byteCount: RouteMonitor.datagramCapacity, alignment: 8)
    }

    deinit {
        // Normally stopped on the loop thread first. If the loop shut down before `stop()` could
        // run there, the descriptor is still ours to close (closing also takes it out of epoll).
        if fd >= 0 { try? Sys.close(fd) }
        buffer.deallocate()
    }

    /// Whether the socket is open.
    public var isRunning: Bool {
        loop.assertInEventLoop()
        return fd >= 0
    }

    /// Opens the socket, registers it and sends the first dump request. Call on the loop thread.
    /// - Throws: `RouteMonitorError` when the socket cannot be opened, bound or registered.
    public func start() throws(RouteMonitorError) {
        loop.assertInEventLoop()
        precondition(fd < 0, "start() called on a running monitor")
        do {
            fd = try Sys.netlinkRouteSocket(groups: Netlink.routeMonitorGroups,
                                            receiveBuffer: RouteMonitor.socketReceiveBuffer)
            registration = try loop.register(fd, interest: .readable) { [weak self] events in
                self?.handle(events)
            }
        } catch {
            closeSocket()
            throw RouteMonitorError(kind: .system(error))
        }
        sync = RouteSync()
        if let failure = perform(sync.start()) {
            closeSocket()
            throw failure
        }
    }

    /// Deregisters and closes the socket. Call on the loop thread; stopping twice is allowed.
    public func stop() {
        loop.assertInEventLoop()
        closeSocket()
    }

    /// Whether `name` is a wireless interface: /sys/class/net/NAME/wireless (wireless extensions)
    /// or /sys/class/net/NAME/phy80211 (cfg80211) exists. sysfs lookups do not block on a device.
    /// - Parameter name: an interface name as the kernel reports it.
    /// - Returns: true for a Wi-Fi (or other 802.11) interface.
    public static func isWirelessInterface(named name: String) -> Bool {
        // Kernel names never contain "/" and are never "." or ".." (dev_valid_name); refuse
        // anything else rather than build a path out of it.
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else { return false }
        for entry in ["wireless", "phy80211"] {
            if let file = try? File.open("/sys/class/net/\(name)/\(entry)") {
                try? file.close()
                return true
            }
        }
        return false
    }

    // MARK: The loop side

    private func handle(_ events: EventLoop.Events) {
        for _ in 0..<RouteMonitor.datagramsPerWake where fd >= 0 {
            let received: IOResult<(count: Int, sender: UInt32, truncated: Bool)>
            do {
                received = try Sys.netlinkReceive(fd, into: buffer)
            } catch let error where error == .noBufferSpace {
                if let failure = perform(sync.overrun()) { fail(failure) }
                continue
            } catch {
                fail(RouteMonitorError(kind: .system(error)))
                return
            }
            guard case .processed(let datagram) = received else { return }
            guard datagram.sender == 0 else { continue }
            if datagram.truncated {
                if let failure = perform(sync.overrun()) { fail(failure) }
                continue
            }
            let messages: [NetlinkMessage]
            do {
                messages = try NetlinkParser.parse(UnsafeRawBufferPointer(rebasing: buffer[..<datagram.count]))
            } catch {
                fail(RouteMonitorError(kind: .malformed(error)))
                return
            }
            let output = sync.received(messages)
            if let errno = output.failure {
                fail(RouteMonitorError(kind: .dumpRefused(errno: errno)))
                return
            }
            if let failure = perform(output) { fail(failure); return }
            let touched = reportsEveryChange && sync.isSynced && messages.contains { message in
                switch message.body {
                case .link, .address, .route: return true
                default: return false
                }
            }
            if output.tableChanged || touched { onEvent(.table(sync.table)) }
        }
    }

    /// Sends the machine's requests; returns the error that stops the monitor, if any.
    private func perform(_ output: RouteSync.Output) -> RouteMonitorError? {
        for request in output.requests {
            var sent: Result<IOResult<Int>, Errno> = .success(.wouldBlock)
            request.withUnsafeBytes { bytes in sent = Result { () throws(Errno) in try Sys.send(fd, bytes) } }
            switch sent {
            case .failure(let error):
                return RouteMonitorError(kind: .system(error))
            case .success(.processed(let n)) where n == request.count:
                continue
            case .success:
                // The kernel takes a request whole or fails; a would-block or short send would
                // mean a kernel out of memory.
                return RouteMonitorError(kind: .system(.noBufferSpace))
            }
        }
        return nil
    }

    private func fail(_ error: RouteMonitorError) {
        closeSocket()
        onEvent(.failed(error))
    }

    private func closeSocket() {
        if let registration {
            loop.deregister(registration)
            self.registration = nil
        }
        if fd >= 0 {
            try? Sys.close(fd)
            fd = -1
        }
    }
}

/// Why a `RouteMonitor` stopped or could not start.
public struct RouteMonitorError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Hashable, Sendable {
        /// A system call failed (socket, bind, recv, send): EPERM or EAFNOSUPPORT in a sandbox
        /// without netlink, EMFILE, ...
        case system(Errno)
        /// The kernel sent a datagram the parser could not read.
        case malformed(NetlinkParseError)
        /// The kernel refused a dump request every time it was tried (the positive errno).
        case dumpRefused(errno: Int32)
    }

    /// What went wrong.
    public let kind: Kind

    /// Creates an error.
    /// - Parameter kind: what went wrong.
    public init(kind: Kind) { self.kind = kind }

    /// A short text for people; not API.
    public var description: String {
        switch kind {
        case .system(let errno): return "route monitor: \(errno)"
        case .malformed(let error): return "route monitor: malformed netlink datagram (\(error))"
        case .dumpRefused(let errno): return "route monitor: dump refused (\(Errno(rawValue: errno)))"
        }
    }
}
