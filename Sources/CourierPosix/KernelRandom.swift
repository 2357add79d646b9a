// KernelRandom: random numbers from the kernel's CSPRNG through getrandom(2), the one door to the
// kernel (design §7). The pure modules take randomness as an argument (design §1); this is what
// the I/O layers pass them — for example a fresh multipart boundary for every request, as
// AFNetworking draws one from arc4random() for every form.

/// A `RandomNumberGenerator` reading getrandom(2).
public struct KernelRandom: RandomNumberGenerator, Sendable {
    /// Creates a generator (it holds no state; every call asks the kernel).
    public init() {}

    /// 64 random bits from the kernel.
    /// - Returns: the bits.
    public mutating func next() -> UInt64 {
        var value: UInt64 = 0
        withUnsafeMutableBytes(of: &value) { buffer in
            // getrandom(2) with no flags only fails for bad arguments (EFAULT, EINVAL) or on a
            // kernel without it (ENOSYS, before 3.17): nothing a caller could recover from.
            do throws(Errno) { try Sys.random(into: buffer) } catch {
                preconditionFailure("getrandom failed: \(error)")
            }
        }
        return value
    }
}
