// swift-tools-version:6.2
// Courier's fuzz targets: a package of its own, depending on the library. One libFuzzer executable
// per pure entry point (`fuzz-*`), each a few lines calling a check in FuzzChecks; `swift test` here
// replays the committed corpora and regressions through the same checks.
// Build and run one: Fuzz/run.sh TARGET SECONDS (docs/fuzzing.md).
import PackageDescription
import struct Foundation.URL

// The parent package's identity is its directory name, whatever the checkout was called.
let courier = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent
let v6: [SwiftSetting] = [.swiftLanguageMode(.v6)]

let fuzzTargets = [
    "fuzz-uri", "fuzz-percent", "fuzz-query", "fuzz-response", "fuzz-chunked", "fuzz-request", "fuzz-json", "fuzz-pool", "fuzz-multipart", "fuzz-tls", "fuzz-serialization", "fuzz-inflate", "fuzz-idna", "fuzz-cookies",
    "fuzz-auth",
]

let package = Package(
    name: "CourierFuzz",
    dependencies: [.package(path: "..")],
    targets: [
        .target(
            name: "FuzzChecks",
            dependencies: ["CourierBytes", "CourierURL", "CourierHTTP1", "CourierJSON", "CourierPool", "CourierMultipart", "CourierTLS", "CourierCompression", "CourierCookies", "Courier"].map {
                .product(name: $0, package: courier)
            },
            swiftSettings: v6
        ),
        .testTarget(name: "FuzzReplayTests", dependencies: ["FuzzChecks"], swiftSettings: v6),
    ] + fuzzTargets.map { .executableTarget(name: $0, dependencies: ["FuzzChecks"], swiftSettings: v6) }
)
