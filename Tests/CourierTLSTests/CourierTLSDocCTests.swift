// Sources/CourierTLS/CourierTLS.docc/CourierTLS.md, compiled: each block between `// doc: Sources/CourierTLS/CourierTLS.docc/CourierTLS.md N` and `// end doc` is the
// catalog page's Nth swift block, line for line (scripts/check-doc-examples compares them).
// The block runs: it needs no network.

import CourierTLS
import Testing

@Suite struct CourierTLSDocCTests {
    @Test("the CourierTLS catalog's example 1 compiles and runs")
    func example1() throws {
        // doc: Sources/CourierTLS/CourierTLS.docc/CourierTLS.md 1

        var configuration = TLSConfiguration()
        configuration.minimumVersion = .v1_3
        configuration.trustRoots = .pemFile(path: "/etc/myapp/ca.pem")   // curl --cacert

        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        print(policy.requiredVerification, configuration.minimumVersion)
        // end doc
    }
}
