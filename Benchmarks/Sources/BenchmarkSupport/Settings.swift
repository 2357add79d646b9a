import Benchmark
#if canImport(Glibc)
import Glibc
#endif

/// Whether the run is the short CI pass (`Benchmarks/run.sh --short`).
public let isShortRun: Bool = getenv("COURIER_BENCH_SHORT") != nil

/// The configuration every Courier benchmark uses: wall clock, throughput and malloc counts; a
/// short pass takes a few iterations only.
public func courierConfiguration(maxIterations: Int = 1_000_000, seconds: Int = 3) -> Benchmark.Configuration {
    Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: isShortRun ? 1 : 3,
        maxDuration: isShortRun ? .milliseconds(500) : .seconds(seconds),
        maxIterations: isShortRun ? min(maxIterations, 5) : maxIterations
    )
}

/// `courierConfiguration` plus the bytes allocated per iteration (the malloc interposer's gross
/// count), for the memory targets.
public func courierMemoryConfiguration(maxIterations: Int = 1_000_000, seconds: Int = 3) -> Benchmark.Configuration {
    var configuration = courierConfiguration(maxIterations: maxIterations, seconds: seconds)
    configuration.metrics.append(.mallocBytesCount)
    return configuration
}

/// Stops the run with a message when a benchmark's two implementations disagree: a fast wrong
/// answer is not a result.
public func requireAgreement(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition {
        print("benchmark failed: \(message())")
        exit(1)
    }
}
