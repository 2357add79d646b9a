// Garbage TLS records fed to a client engine mid-handshake: only typed errors, never a trap, and
// no OpenSSL object outlives its engine.
@_spi(Fuzzing) import CourierTLS

extension FuzzChecks {
    /// The fuzz client context is made once, on first use; it is not a leak.
    static let tlsWarmUp: Void = { _ = TLSFuzzing.feedClientHandshake([]) }()

    public static func tlsHandshake(_ input: UnsafeRawBufferPointer) {
        _ = tlsWarmUp
        let before = TLSDebugCounters.liveObjects
        _ = TLSFuzzing.feedClientHandshake(Array(input))
        require(TLSDebugCounters.liveObjects == before, "OpenSSL objects leaked: \(TLSDebugCounters.liveObjects - before)")
    }
}
