// The CourierTLS catalog's landing page (Sources/CourierTLS/CourierTLS.docc/CourierTLS.md),
// compiled and run: the block between `// doc: FILE N` and `// end doc` is the page's Nth swift
// block, line for line (scripts/check-doc-examples); what follows it checks what it builds.

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
        #expect(policy.pinnedPublicKeys.count == 1 && configuration.minimumVersion == .v1_3)
    }
}
