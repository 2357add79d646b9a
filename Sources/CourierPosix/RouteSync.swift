// RouteSync: the sans-IO state machine that brings an `InterfaceTable` in line with the kernel and
// keeps it there — the part of the route monitor that decides, with the socket left to its shell.
//
// Theory of operation
// - The socket joins the link, address and route multicast groups first, so no change can fall
//   between a dump and the notifications that follow it; then the machine dumps links, addresses
//   and routes, one at a time (the kernel runs one dump per socket: a second request while one is
//   running fails with EBUSY). Notifications that arrive meanwhile are applied as they come.
// - The table is "synced" after the route dump's NLMSG_DONE. Changes are reported only once
//   synced (a half-filled table would report "not reachable" on the way up).
// - NLM_F_DUMP_INTR on a dump's message (the kernel's tables changed under the dump) or an
//   NLMSG_ERROR for a dump request (EBUSY, EINTR, ENOBUFS) restarts that dump, at most
//   `maximumDumpAttempts` times in a row; then the machine fails for good (sticky).
// - An overrun (ENOBUFS from recv: the socket's buffer filled and notifications were lost) empties
//   the table and starts over from the link dump: only a full dump can repair a lost message.
//
// Transitions (all in this file):
//   idle --start--> dumping(links) --DONE--> dumping(addresses) --DONE--> dumping(routes) --DONE--> synced
//   dumping(x) --error / DUMP_INTR, attempts left--> dumping(x) (re-sent, new sequence)
//   dumping(x) --error, no attempts left--> failed
//   dumping(_) or synced --overrun--> dumping(links), table emptied

/// Keeps an `InterfaceTable` in line with the kernel through dumps and notifications.
public struct RouteSync: Sendable {
    /// What the shell must do after an input.
    public struct Output: Equatable, Sendable {
        /// Requests to send, in order.
        public var requests: [[UInt8]] = []
        /// Whether the synced table changed (report it).
        public var tableChanged = false
        /// Set when the machine has failed for good: the errno of the last dump error.
        public var failure: Int32? = nil
    }

    private enum State: Sendable, Equatable {
        case idle
        case dumping(NetlinkParser.Dump, sequence: UInt32, attempts: Int, interrupted: Bool)
        case synced
        case failed(Int32)
    }

    /// How many times one dump is tried before the machine gives up.
    public let maximumDumpAttempts: Int
    /// The table as known so far.
    public private(set) var table = InterfaceTable()
    private var state = State.idle
    private var nextSequence: UInt32

    /// A machine that has not started.
    /// - Parameters:
    ///   - firstSequence: the first request's sequence number (any; the shell may pass a
    ///     per-socket value so answers to another socket's requests can never match).
    ///   - maximumDumpAttempts: tries per dump (default 3).
    public init(firstSequence: UInt32 = 1, maximumDumpAttempts: Int = 3) {
        precondition(maximumDumpAttempts >= 1, "at least one attempt")
        self.nextSequence = firstSequence == 0 ? 1 : firstSequence
        self.maximumDumpAttempts = maximumDumpAttempts
    }

    /// Whether the table reflects a complete dump (and the notifications since).
    public var isSynced: Bool { state == .synced }

    /// Whether the machine gave up.
    public var hasFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Starts the first dump.
    /// - Returns: the request to send.
    public mutating func start() -> Output {
        precondition(state == .idle, "start() called twice")
        return Output(requests: [beginDump(.links, attempts: 1)])
    }

    /// Takes the messages of one datagram.
    /// - Parameter messages: the parsed messages.
    /// - Returns: what to send and whether to report the table.
    public mutating func received(_ messages: [NetlinkMessage]) -> Output {
        var output = Output()
        if case .failed = state { return output }
        let wasSynced = isSynced
        var changed = false
        for message in messages {
            if table.apply(message) { changed = true }
            guard case .dumping(let dump, let sequence, let attempts, let interrupted) = state,
                  message.header.sequence == sequence else { continue }
            if message.header.isDumpInterrupted && !interrupted {
                state = .dumping(dump, sequence: sequence, attempts: attempts, interrupted: true)
            }
            switch message.body {
            case .done:
                if case .dumping(_, _, _, true) = state {
                    output.requests.append(contentsOf: retry(dump, attempts: attempts, errno: 4, into: &output))
                } else {
                    switch dump {
                    case .links: output.requests.append(beginDump(.addresses, attempts: 1))
                    case .addresses: output.requests.append(beginDump(.routes, attempts: 1))
                    case .routes: state = .synced
                    }
                }
            case .error(let errno) where errno != 0:
                output.requests.append(contentsOf: retry(dump, attempts: attempts, errno: errno, into: &output))
            default:
                break
            }
        }
        // Report a change once synced, and the moment the sync completes.
        output.tableChanged = isSynced && (changed || !wasSynced)
        return output
    }

    /// The socket reported an overrun (recv failed with ENOBUFS): notifications were lost.
    /// - Returns: the request that starts a full resynchronisation.
    public mutating func overrun() -> Output {
        if case .failed = state { return Output() }
        table.removeAll()
        return Output(requests: [beginDump(.links, attempts: 1)])
    }

    private mutating func retry(_ dump: NetlinkParser.Dump, attempts: Int, errno: Int32,
                                into output: inout Output) -> [[UInt8]] {
        guard attempts < maximumDumpAttempts else {
            state = .failed(errno)
            output.failure = errno
            return []
        }
        return [beginDump(dump, attempts: attempts + 1)]
    }

    private mutating func beginDump(_ dump: NetlinkParser.Dump, attempts: Int) -> [UInt8] {
        let sequence = nextSequence
        nextSequence = nextSequence == UInt32.max ? 1 : nextSequence + 1
        state = .dumping(dump, sequence: sequence, attempts: attempts, interrupted: false)
        return NetlinkParser.dumpRequest(dump, sequence: sequence)
    }
}
