// swift-tools-version:6.2
// Courier's benchmarks: a package of its own (it may use Foundation, as the peer to beat; the
// library never does). One executable per area, run with `swift package benchmark`.
// Results and how to read them: ../docs/benchmarks.md.
import PackageDescription
import class Foundation.ProcessInfo
import struct Foundation.URL

// The parent package's identity is its directory name, whatever the checkout was called.
let courier = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

func benchmark(_ name: String, _ products: [String], peers: [Target.Dependency] = []) -> Target {
    .executableTarget(
        name: name,
        dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"]
            + products.map { .product(name: $0, package: courier) } + peers,
        path: "Benchmarks/\(name)",
        swiftSettings: [.swiftLanguageMode(.v6)],
        plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
    )
}

let package = Package(
    name: "CourierBenchmarks",
    dependencies: [
        .package(path: ".."),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        // The multipart peer; only MultipartBenchmarks depends on it.
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    ],
    targets: [
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        benchmark("URLBenchmarks", ["CourierURL"]),
        benchmark("HTTP1Benchmarks", ["CourierBytes", "CourierHTTP1"]),
        benchmark("JSONBenchmarks", ["CourierJSON"]),
        benchmark("SessionBenchmarks", ["Courier", "CourierURL"]),
        benchmark("MultipartBenchmarks", ["CourierBytes", "CourierMultipart"],
                  peers: [.product(name: "MultipartKit", package: "multipart-kit")]),
    ]
)
