// swift-tools-version:6.2
// Courier: a Foundation-free HTTP/1.1 networking stack for Linux. The library products have no
// package dependencies; fuzzing (Fuzz/) and benchmarks (Benchmarks/) are packages of their own.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "CourierBytes", targets: ["CourierBytes"]),
        .library(name: "CourierURL", targets: ["CourierURL"]),
        .library(name: "CourierHTTP1", targets: ["CourierHTTP1"]),
        .library(name: "CourierPosix", targets: ["CourierPosix"]),
    ],
    targets: [
        // Pure modules: no I/O, no clock, no randomness (design §1).
        .target(name: "CourierBytes", swiftSettings: strict),
        .target(name: "CourierURL", dependencies: ["CourierBytes"], swiftSettings: strict),
        .target(name: "CourierHTTP1", dependencies: ["CourierBytes"], swiftSettings: strict),

        // The one door to the kernel (design §7): the only module that imports Glibc.
        .target(name: "CCourierLinux"),
        .target(name: "CourierPosix", dependencies: ["CourierBytes", "CCourierLinux"], swiftSettings: strict),

        // Shared test helpers (the split harness every parser test goes through).
        .target(name: "CourierTestSupport", dependencies: ["CourierBytes"],
                path: "Tests/CourierTestSupport", swiftSettings: strict),
        .testTarget(name: "CourierBytesTests", dependencies: ["CourierBytes", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierURLTests", dependencies: ["CourierURL", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierHTTP1Tests", dependencies: ["CourierHTTP1", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierPosixTests", dependencies: ["CourierPosix", "CourierTestSupport"],
                    swiftSettings: strict),
    ]
)
