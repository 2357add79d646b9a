// HappyEyeballs: TCP connection establishment over several candidate addresses, RFC 8305.
//
// - Ordering (RFC 8305 §4): the resolver's order within each family is kept; families are
//   interleaved starting with IPv6 ("First Address Family Count" of 1): v6, v4, v6, v4, ...
// - Racing (§5): the first attempt starts at once; the next starts when the "Connection Attempt
//   Delay" (250 ms, the RFC's recommended value) passes with no success, or immediately when an
//   attempt fails. Attempts already started keep running. The first to connect wins; every
//   other socket is deregistered and closed.
// - One overall deadline bounds the whole race (design §5: 10 s by default, curl's
//   --connect-timeout). When everything fails, a typed `ConnectError` lists each attempt.
//
// The connector lives on the loop thread (it is driven by I/O handlers and timers there) and
// reaches async callers through `EventLoop.submit(deferred:)`.

import CourierBytes

/// How `EventLoop.connect(to:configuration:)` races its attempts.
public struct ConnectConfiguration: Sendable {
    /// The wait before starting the next attempt while earlier ones are pending (RFC 8305 §5
    /// recommends 250 ms; at least 100 ms).
    public var attemptDelay: Duration
    /// The deadline for the whole connection phase, all attempts included.
    public var timeout: Duration
    /// Whether to set TCP_NODELAY on the connected socket.
    public var noDelay: Bool
    /// The local binding and keep-alive options of every attempt's socket, applied before its
    /// connect (curl --interface, --local-port, --keepalive-time). Default: none.
    public var setup = SocketSetup()

    /// Creates a configuration.
    /// - Parameters:
    ///   - attemptDelay: RFC 8305's Connection Attempt Delay; 250 ms by default.
    ///   - timeout: the overall deadline; 10 s by default (design §5).
    ///   - noDelay: TCP_NODELAY; on by default.
    public init(attemptDelay: Duration = .milliseconds(250), timeout: Duration = .seconds(10), noDelay: Bool = true) {
        self.attemptDelay = attemptDelay
        self.timeout = timeout
        self.noDelay = noDelay
    }
}

/// Every connection attempt failed, or the deadline passed first.
public struct ConnectError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure, for mapping to exit codes (curl: 7 cannot connect, 28 timeout).
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .connectionRefused, .timedOut, .unreachable, .noAddresses, .failed, .localBindFailed
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every attempt was refused (ECONNREFUSED: nothing listens there).
        public static let connectionRefused = Code("connectionRefused")
        /// The deadline passed, or an attempt timed out (ETIMEDOUT).
        public static let timedOut = Code("timedOut")
        /// Every attempt failed with no route (ENETUNREACH, EHOSTUNREACH, EADDRNOTAVAIL,
        /// EAFNOSUPPORT).
        public static let unreachable = Code("unreachable")
        /// There were no addresses to try.
        public static let noAddresses = Code("noAddresses")
        /// Attempts failed for other or mixed reasons; see `attempts`.
        public static let failed = Code("failed")
        /// Binding a socket to its local address or port failed before it could connect
        /// (`SocketSetup`: no port of the range free, an address that is not local; curl's 45).
        public static let localBindFailed = Code("localBindFailed")
    }

    /// One attempt and how it ended.
    public struct Attempt: Sendable, CustomStringConvertible {
        /// The address tried.
        public let address: SocketAddress
        /// The error; nil when the attempt was still pending at the deadline.
        public let error: Errno?
        /// Whether the attempt failed while binding its local end, before connecting.
        public var failedToBind = false

        /// "[::1]:80: ECONNREFUSED (Connection refused)".
        public var description: String {
            guard let error else { return "\(address): timed out" }
            return failedToBind ? "\(address): bind failed with errno \(error.rawValue): \(error.message)" : "\(address): \(error)"
        }
    }

    /// The kind of failure.
    public let code: Code
    /// Every attempt made, in the order they started.
    public let attempts: [Attempt]

    /// A one-line summary listing the attempts.
    public var description: String {
        "connect failed (\(code)): " + attempts.map(\.description).joined(separator: "; ")
    }

    static func summarizing(_ attempts: [Attempt], deadlinePassed: Bool) -> ConnectError {
        if attempts.isEmpty && !deadlinePassed { return ConnectError(code: .noAddresses, attempts: []) }
        // A local end that could not be bound is the caller's setting at fault (curl 45), whatever
        // the other attempts did.
        if !deadlinePassed && attempts.contains(where: \.failedToBind) {
            return ConnectError(code: .localBindFailed, attempts: attempts)
        }
        if deadlinePassed || attempts.contains(where: { $0.error == .timedOut }) {
            return ConnectError(code: .timedOut, attempts: attempts)
        }
        let unreachable: Set<Errno> = [.networkUnreachable, .hostUnreachable, .addressNotAvailable,
                                       .addressFamilyNotSupported, .networkDown, .hostDown]
        if attempts.allSatisfy({ $0.error == .connectionRefused }) {
            return ConnectError(code: .connectionRefused, attempts: attempts)
        }
        if attempts.allSatisfy({ $0.error.map(unreachable.contains) ?? false }) {
            return ConnectError(code: .unreachable, attempts: attempts)
        }
        return ConnectError(code: .failed, attempts: attempts)
    }
}

/// RFC 8305 address ordering.
public enum HappyEyeballs {
    /// Interleaves address families, IPv6 first, keeping the order within each family
    /// (RFC 8305 §4, First Address Family Count 1). Duplicates are dropped.
    /// - Parameter addresses: the resolver's answer.
    /// - Returns: the order to try them in.
    public static func order(_ addresses: [SocketAddress]) -> [SocketAddress] {
        var seen = Set<SocketAddress>()
        let unique = addresses.filter { seen.insert($0).inserted }
        let v6 = unique.filter { $0.family == .v6 }
        let v4 = unique.filter { $0.family == .v4 }
        var out: [SocketAddress] = []
        out.reserveCapacity(unique.count)
        for i in 0..<max(v6.count, v4.count) {
            if i < v6.count { out.append(v6[i]) }
            if i < v4.count { out.append(v4[i]) }
        }
        return out
    }
}

extension EventLoop {
    /// Connects to the first of `addresses` that answers, racing them as RFC 8305 describes.
    /// - Parameters:
    ///   - addresses: the candidates (for example a resolver's answer); they are reordered by
    ///     `HappyEyeballs.order(_:)`.
    ///   - configuration: attempt delay, overall timeout, TCP_NODELAY.
    /// - Returns: the connected socket, not registered with the loop.
    /// - Throws: `ConnectError`, `CancellationError` when the task is cancelled, or
    ///   `EventLoopError.shutDown`.
    public func connect(to addresses: [SocketAddress],
                        configuration: ConnectConfiguration = ConnectConfiguration()) async throws -> Socket {
        let ordered = HappyEyeballs.order(addresses)
        return try await submit(deferred: { (promise: LoopPromise<Socket>) in
            HappyEyeballsConnector(promise: promise, addresses: ordered, configuration: configuration).start()
        })
    }
}

/// One race, on the loop thread. Kept alive by the loop's handler and timer tables until it ends.
final class HappyEyeballsConnector {
    private struct Pending {
        let socket: Socket
        let address: SocketAddress
        let registration: EventLoop.Registration
    }

    private let promise: LoopPromise<Socket>
    private let loop: EventLoop
    private let addresses: [SocketAddress]
    private let configuration: ConnectConfiguration
    private var next = 0
    private var pending: [Int: Pending] = [:]
    private var attempts: [(index: Int, address: SocketAddress, error: Errno?, failedToBind: Bool)] = []
    private var delayTimer: EventLoop.Timer?
    private var deadlineTimer: EventLoop.Timer?

    init(promise: LoopPromise<Socket>, addresses: [SocketAddress], configuration: ConnectConfiguration) {
        self.promise = promise
        self.loop = promise.eventLoop
        self.addresses = addresses
        self.configuration = configuration
    }

    func start() {
        guard !addresses.isEmpty else {
            promise.fail(ConnectError.summarizing([], deadlinePassed: false))
            return
        }
        promise.onCancel { [self] in closeEverything() }
        deadlineTimer = loop.scheduleTimer(after: configuration.timeout) { [self] in
            deadlineTimer = nil
            let error = failure(deadlinePassed: true)
            closeEverything()
            promise.fail(error)
        }
        startNextAttempt()
    }

    private func startNextAttempt() {
        if let timer = delayTimer { loop.cancelTimer(timer); delayTimer = nil }
        while next < addresses.count {
            let index = next
            let address = addresses[index]
            next += 1
            attempts.append((index, address, nil, false))
            do {
                let socket = try Socket.makeTCP(family: address.family, noDelay: configuration.noDelay)
                do {
                    try configuration.setup.apply(to: socket, family: address.family)
                } catch {
                    try? socket.close()
                    record(index, error.errno, failedToBind: error.stage == .bind)
                    continue
                }
                if try socket.connect(to: address) {
                    win(socket)
                    return
                }
                let registration = try loop.register(socket, interest: .writable) { [self] _ in attemptReady(index) }
                pending[index] = Pending(socket: socket, address: address, registration: registration)
                if next < addresses.count {
                    delayTimer = loop.scheduleTimer(after: configuration.attemptDelay) { [self] in
                        delayTimer = nil
                        startNextAttempt()
                    }
                }
                return
            } catch {
                // Failed at once (ENETUNREACH, EAFNOSUPPORT, ...): RFC 8305 §5, move on now.
                record(index, error)
            }
        }
        if pending.isEmpty { finishWithFailure() }
    }

    private func attemptReady(_ index: Int) {
        guard let attempt = pending.removeValue(forKey: index) else { return }
        loop.deregister(attempt.registration)
        do {
            try attempt.socket.finishConnect()
            win(attempt.socket)
        } catch {
            record(index, error)
            try? attempt.socket.close()
            startNextAttempt()
        }
    }

    private func record(_ index: Int, _ error: Errno, failedToBind: Bool = false) {
        if let i = attempts.lastIndex(where: { $0.index == index }) {
            attempts[i].error = error
            attempts[i].failedToBind = failedToBind
        }
    }

    private func win(_ socket: Socket) {
        closeEverything()
        promise.succeed(socket)
    }

    private func finishWithFailure() {
        let error = failure(deadlinePassed: false)
        closeEverything()
        promise.fail(error)
    }

    private func failure(deadlinePassed: Bool) -> ConnectError {
        ConnectError.summarizing(attempts.map { ConnectError.Attempt(address: $0.address, error: $0.error, failedToBind: $0.failedToBind) },
                                 deadlinePassed: deadlinePassed)
    }

    /// Cancels the timers and closes every attempt still pending (the winner is not among them).
    private func closeEverything() {
        if let timer = delayTimer { loop.cancelTimer(timer); delayTimer = nil }
        if let timer = deadlineTimer { loop.cancelTimer(timer); deadlineTimer = nil }
        for (_, attempt) in pending {
            loop.deregister(attempt.registration)
            try? attempt.socket.close()
        }
        pending.removeAll()
    }
}

extension EventLoop {
    /// Connects to an AF_UNIX stream socket (curl --unix-socket). A full backlog (EAGAIN: the
    /// listener is not accepting fast enough) is retried every 10 ms until `timeout`.
    /// - Parameters:
    ///   - address: the socket's path or abstract name.
    ///   - timeout: the deadline for the connect.
    /// - Returns: the connected socket, not registered with the loop.
    /// - Throws: `Errno` (ENOENT: no such socket file, ECONNREFUSED: nobody listens, EACCES,
    ///   ENAMETOOLONG, ETIMEDOUT when the backlog stayed full until the deadline),
    ///   `CancellationError`, or `EventLoopError.shutDown`.
    public func connect(toUnixSocket address: UnixSocketAddress, timeout: Duration) async throws -> Socket {
        let deadline = Instant.now() + timeout
        return try await submit(deferred: { (promise: LoopPromise<Socket>) in
            UnixSocketConnector(promise: promise, address: address, deadline: deadline).attempt()
        })
    }
}

/// One AF_UNIX connect, on the loop thread: a connect either succeeds or fails at once, or finds
/// the backlog full and is made again after a pause.
final class UnixSocketConnector {
    private let promise: LoopPromise<Socket>
    private let address: UnixSocketAddress
    private let deadline: Instant
    private var retryTimer: EventLoop.Timer?

    init(promise: LoopPromise<Socket>, address: UnixSocketAddress, deadline: Instant) {
        self.promise = promise
        self.address = address
        self.deadline = deadline
    }

    func attempt() {
        retryTimer = nil
        guard !promise.isCompleted else { return }
        do {
            let socket = Socket(adopting: try Sys.unixStreamSocket())
            switch try Sys.connect(socket.fileDescriptor, toUnix: address) {
            case .processed:
                promise.succeed(socket)
            case .wouldBlock:
                try? socket.close()
                guard Instant.now() < deadline else {
                    promise.fail(Errno.timedOut)
                    return
                }
                let loop = promise.eventLoop
                retryTimer = loop.scheduleTimer(after: .milliseconds(10)) { [self] in attempt() }
                promise.onCancel { [self] in
                    if let timer = retryTimer { loop.cancelTimer(timer) }
                    retryTimer = nil
                }
            }
        } catch {
            promise.fail(error)
        }
    }
}
