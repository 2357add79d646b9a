// PoolFuzzDriver: the public entry point a libFuzzer target calls. It reads the fuzzer's bytes as a
// configuration and a sequence of events, runs them against a `PoolStateMachine` and the reference
// model in PoolSimulation.swift, settles the run, and traps with the violated invariant and the
// last events when anything is off. Deterministic: the same bytes give the same run.
//
// Byte layout: byte 0 picks the per-key connection limit (1–3) and the queue bound (1–4); byte 1
// the idle timeout and byte 2 the default wait timeout (in nanoseconds, small so that timers
// matter); every later choice takes one byte (`byte % bound`). Running out of bytes ends the run.

/// Runs fuzzer input through the pool state machine and a reference model, trapping on any
/// violated invariant.
@_spi(Fuzzing) public enum PoolFuzzDriver {
    /// Interprets `bytes` as a pool configuration and an event sequence, checks every step, then
    /// settles every connection and checks that every request got exactly one outcome.
    /// Traps (`preconditionFailure`) with a description when an invariant does not hold.
    /// - Parameter bytes: the fuzzer's input.
    public static func run(bytes: UnsafeRawBufferPointer) {
        if let failure = check(bytes: bytes) {
            preconditionFailure("pool invariant violated: \(failure)")
        }
    }

    /// Like ``run(bytes:)``, for an array.
    /// - Parameter bytes: the fuzzer's input.
    public static func run(bytes: [UInt8]) {
        bytes.withUnsafeBytes { run(bytes: $0) }
    }

    /// Runs the input and describes the first violated invariant instead of trapping.
    /// - Parameter bytes: the input.
    /// - Returns: `nil` when every check held, otherwise the violation and the last events.
    static func check(bytes: UnsafeRawBufferPointer) -> String? {
        var source = ByteChoiceSource(bytes: bytes)
        guard let shape = source.next(below: 256), let idle = source.next(below: 256),
              let wait = source.next(below: 256) else { return nil }
        let limits = PoolStateMachine.Limits(
            maxConnectionsPerOrigin: 1 + shape % 3,
            idleTimeout: .nanoseconds(1 + idle),
            waitTimeout: .nanoseconds(1 + wait),
            maxWaitersPerOrigin: 1 + (shape / 3) % 4
        )
        var simulation = PoolSimulation(limits: limits, keyCount: 2)
        do {
            try simulation.run(source: &source, maxSteps: 4096)
            return nil
        } catch {
            return error.description
        }
    }
}

/// Choices read from bytes, one byte per choice.
struct ByteChoiceSource: PoolChoiceSource {
    private let bytes: UnsafeRawBufferPointer
    private var offset = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func next(below bound: Int) -> Int? {
        guard offset < bytes.count else { return nil }
        // SAFETY: `offset < bytes.count` was checked just above.
        let byte = bytes[offset]
        offset += 1
        return Int(byte) % max(1, bound)
    }
}
