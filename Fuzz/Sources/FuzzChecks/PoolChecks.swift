// The connection-pool machine driven by byte-chosen event sequences; CourierPool's driver checks
// every invariant after every step against its reference model and traps on a violation.
@_spi(Fuzzing) import CourierPool

extension FuzzChecks {
    public static func pool(_ input: UnsafeRawBufferPointer) {
        PoolFuzzDriver.run(bytes: input)
    }
}
