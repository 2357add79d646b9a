// LiveObjects: how many objects of each kind whose lifetime matters are alive in this process, so
// tests can prove that ownership ends (design §3: a finished task is owned by its caller alone; a
// body never pins a receive buffer larger than itself).
//
// Counting is compiled into debug builds only (what `swift test` builds): release builds, which
// the benchmarks and users run, pay nothing. The counts are process-wide, so a test that compares
// them with a baseline must run where nothing else creates such objects (a child process, see
// Tests/CourierTestSupport/QuietProcess.swift); per-object checks (weak references, a buffer's
// storage size) are the parallel-safe complement.

import Synchronization

/// Live-object counters for tests (debug builds only).
package enum LiveObjects {
    /// The kinds counted.
    package enum Kind: Int, CaseIterable, Sendable, CustomStringConvertible {
        /// `ByteBuffer` storage blocks (receive buffers included).
        case bufferStorage
        /// Task handles (`DataTask`, `StreamTask`, `DownloadTask`).
        case task
        /// The shared machinery behind each task handle.
        case taskLifecycle
        /// `HTTP1Connection` handles.
        case connection
        /// The loop-side half of each connection.
        case loopConnection
        /// Session state (one per `Session`).
        case session
        /// Connection pools.
        case pool
        /// Event loops.
        case eventLoop

        /// The kind's name, for messages.
        package var description: String {
            switch self {
            case .bufferStorage: "buffer storage"
            case .task: "tasks"
            case .taskLifecycle: "task lifecycles"
            case .connection: "connections"
            case .loopConnection: "loop connections"
            case .session: "sessions"
            case .pool: "pools"
            case .eventLoop: "event loops"
            }
        }
    }

    /// Whether this build counts (debug builds); when false every count reads 0.
    package static var isCounting: Bool {
        #if DEBUG
        true
        #else
        false
        #endif
    }

    /// The number of live objects of `kind`.
    package static func count(_ kind: Kind) -> Int { add(0, to: kind) }

    /// Every count, by kind.
    package static func snapshot() -> [Kind: Int] {
        var all: [Kind: Int] = [:]
        for kind in Kind.allCases { all[kind] = count(kind) }
        return all
    }

    /// Records that an object of `kind` was made.
    @inline(__always)
    package static func created(_ kind: Kind) {
        #if DEBUG
        add(1, to: kind)
        #endif
    }

    /// Records that an object of `kind` was freed.
    @inline(__always)
    package static func destroyed(_ kind: Kind) {
        #if DEBUG
        add(-1, to: kind)
        #endif
    }

    /// Adds `delta` to the counter of `kind` and returns the new value. Atomics cannot be stored in
    /// an array (they are not copyable), so each kind has its own global.
    @discardableResult
    private static func add(_ delta: Int, to kind: Kind) -> Int {
        switch kind {
        case .bufferStorage: bufferStorageCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .task: taskCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .taskLifecycle: taskLifecycleCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .connection: connectionCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .loopConnection: loopConnectionCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .session: sessionCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .pool: poolCount.add(delta, ordering: .acquiringAndReleasing).newValue
        case .eventLoop: eventLoopCount.add(delta, ordering: .acquiringAndReleasing).newValue
        }
    }
}

private let bufferStorageCount = Atomic<Int>(0)
private let taskCount = Atomic<Int>(0)
private let taskLifecycleCount = Atomic<Int>(0)
private let connectionCount = Atomic<Int>(0)
private let loopConnectionCount = Atomic<Int>(0)
private let sessionCount = Atomic<Int>(0)
private let poolCount = Atomic<Int>(0)
private let eventLoopCount = Atomic<Int>(0)
