// Helpers for the pool tests: short names for keys, identifiers and instants, a driver that checks
// the machine's own invariants after every event, and a small seeded generator (SplitMix64).

@testable import CourierPool
import Testing

typealias Action = PoolStateMachine.Action

let keyA = PoolKey(scheme: "http", host: "a.test", port: 80)
let keyB = PoolKey(scheme: "https", host: "b.test", port: 443)

/// An instant `seconds` seconds after the clock's origin.
func at(_ seconds: UInt64) -> Instant { Instant(nanoseconds: seconds * 1_000_000_000) }
func conn(_ n: UInt64) -> ConnectionID { ConnectionID(n) }
func req(_ n: UInt64) -> RequestID { RequestID(n) }

/// Wraps a machine and checks its internal invariants after every event.
struct Pool {
    var machine: PoolStateMachine

    init(_ limits: PoolStateMachine.Limits = .init()) {
        machine = PoolStateMachine(limits: limits)
    }

    private func checked(_ actions: [Action], _ location: SourceLocation) -> [Action] {
        let problems = machine.invariantViolations()
        #expect(problems.isEmpty, "invariants: \(problems)", sourceLocation: location)
        return actions
    }

    mutating func execute(
        _ id: UInt64, _ key: PoolKey = keyA, idempotent: Bool = true, replayable: Bool = true,
        deadline: Instant? = nil, now: Instant = at(0), _ location: SourceLocation = #_sourceLocation
    ) -> [Action] {
        let actions = machine.executeRequest(req(id), to: key, isIdempotent: idempotent, isBodyReplayable: replayable,
                                             deadline: deadline, now: now)
        return checked(actions, location)
    }

    mutating func established(_ id: UInt64, now: Instant = at(0), _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.connectionEstablished(conn(id), now: now), location)
    }

    mutating func connectFailed(_ id: UInt64, code: Int? = 111, _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.connectionFailedToConnect(conn(id), underlying: code), location)
    }

    mutating func completed(_ id: UInt64, keepAlive: Bool = true, now: Instant = at(0),
                            _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.requestCompleted(on: conn(id), keepAlive: keepAlive, now: now), location)
    }

    mutating func failed(_ request: UInt64, on connection: UInt64, _ kind: FailureKind = .beforeAnyResponseByte,
                         _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.requestFailed(req(request), on: conn(connection), kind: kind), location)
    }

    mutating func closed(_ id: UInt64, _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.connectionClosed(conn(id)), location)
    }

    mutating func timer(_ now: Instant, _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.timerFired(now: now), location)
    }

    mutating func cancel(_ id: UInt64, _ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.cancelRequest(req(id)), location)
    }

    mutating func shutdown(_ location: SourceLocation = #_sourceLocation) -> [Action] {
        checked(machine.shutdown(), location)
    }

    /// Runs request `id` on a fresh connection `connection` and completes it with keep-alive, so the
    /// connection ends up idle and reused. Returns nothing; checks the expected actions.
    mutating func makeIdle(request id: UInt64, connection: UInt64, key: PoolKey = keyA, now: Instant = at(0),
                           _ location: SourceLocation = #_sourceLocation) {
        let opened = execute(id, key, now: now, location)
        #expect(opened.contains(.createConnection(conn(connection), key)), "\(opened)", sourceLocation: location)
        let started = established(connection, now: now, location)
        #expect(started.contains(.executeRequest(req(id), on: conn(connection))), "\(started)", sourceLocation: location)
        _ = completed(connection, now: now, location)
    }
}

/// SplitMix64 (Steele, Lea, Flood 2014): a tiny, fast, well-mixed seeded generator, so a failing
/// seed reproduces exactly.
struct SplitMix64: PoolChoiceSource {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func nextRaw() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int? {
        Int(nextRaw() % UInt64(max(1, bound)))
    }
}
