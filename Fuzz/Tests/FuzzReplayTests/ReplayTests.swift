// Replays every committed corpus and regression input through the checks the fuzz targets run, so
// `swift test` here catches a regression without libFuzzer.
import Testing
import FuzzChecks

let fuzzRoot: String = {
    // #filePath is …/Fuzz/Tests/FuzzReplayTests/ReplayTests.swift
    var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

struct Target: CustomStringConvertible, Sendable {
    let name: String
    let check: @Sendable (UnsafeRawBufferPointer) -> Void
    var description: String { name }
}

let targets: [Target] = [
    Target(name: "fuzz-uri", check: FuzzChecks.uri),
    Target(name: "fuzz-percent", check: FuzzChecks.percentEncoding),
    Target(name: "fuzz-query", check: FuzzChecks.queryString),
    Target(name: "fuzz-response", check: FuzzChecks.responseParsing),
    Target(name: "fuzz-chunked", check: FuzzChecks.chunkedRoundTrip),
    Target(name: "fuzz-request", check: FuzzChecks.requestParsing),
    Target(name: "fuzz-json", check: FuzzChecks.json),
    Target(name: "fuzz-pool", check: FuzzChecks.pool),
    Target(name: "fuzz-multipart", check: FuzzChecks.multipart),
    Target(name: "fuzz-tls", check: FuzzChecks.tlsHandshake),
    Target(name: "fuzz-serialization", check: FuzzChecks.serialization),
    Target(name: "fuzz-inflate", check: FuzzChecks.inflate),
    Target(name: "fuzz-idna", check: FuzzChecks.idna),
    Target(name: "fuzz-cookies", check: FuzzChecks.cookies),
    Target(name: "fuzz-auth", check: FuzzChecks.authenticationChallenges),
]

@Test(arguments: targets)
func replayCorpusAndRegressions(_ target: Target) {
    let inputs = FuzzChecks.files(in: "\(fuzzRoot)/Corpus/\(target.name)")
        + FuzzChecks.files(in: "\(fuzzRoot)/Regressions/\(target.name)")
    #expect(!inputs.isEmpty, "\(target.name) has no committed corpus")
    for path in inputs {
        guard let bytes = FuzzChecks.readFile(path) else {
            Issue.record("cannot read \(path)")
            continue
        }
        bytes.withUnsafeBytes { target.check($0) }
    }
}
