// Model-based random testing: thousands of seeded random event sequences run against the machine
// and the reference model (PoolSimulation), which predicts each event's outcome and checks the
// invariants after every step, then settles every connection and checks that each request ended
// exactly once. A failure prints its seed; add the seed to `regressionSeeds` to replay it.
// Also: the fuzz driver on random bytes, and proof that the oracle catches a broken machine.

@_spi(Fuzzing) @testable import CourierPool
import Testing

@Suite struct ModelBasedTests {
    /// Seeds that once failed, replayed first.
    static let regressionSeeds: [UInt64] = []

    static func limits(from rng: inout SplitMix64) -> PoolStateMachine.Limits {
        .init(
            maxConnectionsPerOrigin: 1 + rng.next(below: 3)!,
            idleTimeout: .nanoseconds(1 + rng.next(below: 200)!),
            waitTimeout: .nanoseconds(1 + rng.next(below: 300)!),
            maxWaitersPerOrigin: 1 + rng.next(below: 4)!
        )
    }

    /// Runs one seed; returns the failure description, if any.
    static func run(seed: UInt64, steps: Int) -> String? {
        var rng = SplitMix64(seed: seed)
        let limits = limits(from: &rng)
        var simulation = PoolSimulation(limits: limits, keyCount: 1 + Int(seed % 3))
        do {
            try simulation.run(source: &rng, maxSteps: steps)
            return nil
        } catch {
            return "seed \(seed) (limits \(limits)): \(error)"
        }
    }

    @Test func thousandsOfRandomSequencesAgreeWithTheModel() {
        for seed in Self.regressionSeeds + Array(0..<2_500) {
            if let failure = Self.run(seed: seed, steps: 120) {
                Issue.record("\(failure)")
                return
            }
        }
    }

    @Test func longRandomSequencesAgreeWithTheModel() {
        for seed: UInt64 in 1_000_000..<1_000_020 {
            if let failure = Self.run(seed: seed, steps: 4_000) {
                Issue.record("\(failure)")
                return
            }
        }
    }

    @Test func randomRunsExerciseEveryRule() {
        // Guards against a generator that silently stops reaching parts of the machine.
        var executed = 0, retried = 0, failedCodes: Set<PoolError.Code> = [], idleClosed = 0
        for seed: UInt64 in 0..<300 {
            var rng = SplitMix64(seed: seed)
            var simulation = PoolSimulation(limits: Self.limits(from: &rng), keyCount: 2)
            while let event = simulation.nextEvent(from: &rng), simulation.history.count < 150 {
                let idleBefore = simulation.connections.filter { $0.value.idleSince != nil }.count
                let requestsBefore = simulation.requests.merging(simulation.finished) { live, _ in live }
                do {
                    try simulation.perform(event)
                } catch {
                    Issue.record("seed \(seed): \(error)")
                    return
                }
                if case .timer = event,
                   simulation.connections.filter({ $0.value.idleSince != nil }).count < idleBefore { idleClosed += 1 }
                for (id, request) in simulation.requests.merging(simulation.finished, uniquingKeysWith: { live, _ in live }) {
                    if request.sends > (requestsBefore[id]?.sends ?? 0) { executed += 1 }
                    if request.sends == 2 && requestsBefore[id]?.sends == 1 { retried += 1 }
                    if case .failed(let code) = request.outcome, requestsBefore[id]?.outcome == nil {
                        failedCodes.insert(code)
                    }
                }
            }
        }
        #expect(executed > 1_000)
        #expect(retried > 10)
        #expect(idleClosed > 10)
        #expect(failedCodes == Set(PoolError.Code.all), "codes reached: \(failedCodes.map(\.rawValue).sorted())")
    }

    @Test func theOracleCatchesAMisarmedTimer() {
        var simulation = PoolSimulation(limits: .init(maxConnectionsPerOrigin: 1), keyCount: 1)
        #expect(throws: Never.self) { try simulation.perform(.execute(req(1), key: 0, idempotent: true, replayable: true, deadline: nil)) }
        simulation.machine.armedTimer = nil
        #expect(throws: PoolSimulationFailure.self) { try simulation.checkGlobalInvariants() }
    }

    @Test func theOracleCatchesAMiscountedConnection() {
        var simulation = PoolSimulation(limits: .init(maxConnectionsPerOrigin: 2), keyCount: 1)
        #expect(throws: Never.self) { try simulation.perform(.execute(req(1), key: 0, idempotent: true, replayable: true, deadline: nil)) }
        simulation.machine.origins[simulation.keys[0]]?.connectionCount += 1
        #expect(throws: PoolSimulationFailure.self) { try simulation.checkGlobalInvariants() }
    }

    @Test func theOracleCatchesASecondSendOfAPost() {
        var simulation = PoolSimulation(limits: .init(), keyCount: 1)
        #expect(throws: Never.self) {
            try simulation.perform(.execute(req(1), key: 0, idempotent: false, replayable: true, deadline: nil))
            try simulation.perform(.established(conn(1)))
        }
        // Pretend the machine sent R1 again on a second connection.
        simulation.connections[conn(2)] = .init(key: simulation.keys[0], established: true)
        simulation.requests[req(1)]?.executingOn = nil
        #expect(throws: PoolSimulationFailure.self) { _ = try simulation.apply([.executeRequest(req(1), on: conn(2))]) }
    }

    @Test func theFuzzDriverAcceptsRandomInput() {
        var rng = SplitMix64(seed: 0xF0F0)
        for round in 0..<400 {
            let length = rng.next(below: 700)!
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.nextRaw()) }
            let failure = bytes.withUnsafeBytes { PoolFuzzDriver.check(bytes: $0) }
            #expect(failure == nil, "round \(round): \(failure ?? "")")
            if failure != nil { return }
        }
        PoolFuzzDriver.run(bytes: [])
        PoolFuzzDriver.run(bytes: [0, 0, 0])
        PoolFuzzDriver.run(bytes: Array(repeating: 0xFF, count: 512))
    }
}
