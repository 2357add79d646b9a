// swift-tools-version:6.2
// Courier: a Foundation-free HTTP/1.1 networking stack for Linux. The library products have no
// package dependencies by default; fuzzing (Fuzz/) and benchmarks (Benchmarks/) are packages of
// their own. Integrations with other packages are traits, off by default (docs/integrations.md):
//   HTTPTypes  conversions to and from swift-http-types (CourierHTTPTypes; still no Foundation)
//   OpenAPI    CourierTransport for swift-openapi-runtime (CourierOpenAPI; FoundationEssentials)
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    // A file sees the members of a module only if it imports that module itself (SE-0444), not
    // because another file or a dependency did; scripts/check-sources then holds each target's
    // imports to its declared dependencies, so an undeclared dependency fails CI (issue 15 §1).
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Courier",
    products: [
        .library(name: "CourierBytes", targets: ["CourierBytes"]),
        .library(name: "CourierURL", targets: ["CourierURL"]),
        .library(name: "CourierHTTP1", targets: ["CourierHTTP1"]),
        .library(name: "CourierJSON", targets: ["CourierJSON"]),
        .library(name: "CourierPool", targets: ["CourierPool"]),
        .library(name: "CourierMultipart", targets: ["CourierMultipart"]),
        .library(name: "CourierCookies", targets: ["CourierCookies"]),
        .library(name: "CourierCache", targets: ["CourierCache"]),
        .library(name: "CourierTLS", targets: ["CourierTLS"]),
        .library(name: "CourierCompression", targets: ["CourierCompression"]),
        .library(name: "CourierPosix", targets: ["CourierPosix"]),
        .library(name: "CourierLoopbackServer", targets: ["CourierLoopbackServer"]),
        .library(name: "Courier", targets: ["Courier"]),
        // Empty modules unless their trait is on (their sources are inside `#if TRAIT`).
        .library(name: "CourierHTTPTypes", targets: ["CourierHTTPTypes"]),
        .library(name: "CourierOpenAPI", targets: ["CourierOpenAPI"]),
        .executable(name: "courier", targets: ["CourierCLI"]),
    ],
    traits: [
        .trait(name: "HTTPTypes", description: "CourierHTTPTypes: conversions to and from swift-http-types' HTTPRequest, HTTPResponse and HTTPFields, and Session/HTTPClient entry points taking them (no Foundation)"),
        .trait(name: "OpenAPI", description: "CourierOpenAPI: CourierTransport, a ClientTransport for swift-openapi-runtime (links FoundationEssentials)", enabledTraits: ["HTTPTypes"]),
        .default(enabledTraits: []),
    ],
    // Only the traits' modules use these, and only when their trait is on; the default build
    // uses none (the command-line tool parses curl's grammar itself). swift-http-types without
    // its default FoundationURL trait, which would import FoundationEssentials.
    dependencies: [
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0", traits: []),
        .package(url: "https://github.com/apple/swift-openapi-runtime", from: "1.13.4", traits: []),
    ],
    targets: [
        // Pure modules: no I/O, no clock, no randomness (design §1).
        .target(name: "CourierBytes", swiftSettings: strict),
        // IDNA/IDNATables*.swift are generated from Unicode's data by the script beside them.
        .target(name: "CourierURL", dependencies: ["CourierBytes"], exclude: ["IDNA/generate_tables.py"],
                swiftSettings: strict),
        .target(name: "CourierHTTP1", dependencies: ["CourierBytes"], swiftSettings: strict),
        .target(name: "CourierJSON", dependencies: ["CourierBytes"], swiftSettings: strict),
        .target(name: "CourierPool", swiftSettings: strict),
        .target(name: "CourierMultipart", dependencies: ["CourierBytes"], swiftSettings: strict),
        // The cookie store (RFC 6265, layered-cookies), Set-Cookie, cookie dates, public suffixes,
        // the Netscape cookie file: pure; CookieJar in Courier is its thread-safe shell.
        .target(name: "CourierCookies", dependencies: ["CourierBytes", "CourierURL"], swiftSettings: strict),
        // The private HTTP cache's rules (RFC 9111): Cache-Control, HTTP dates, freshness and age,
        // Vary matching, 304 updates, the LRU index and the entry format: pure; HTTPCache in
        // Courier is its I/O shell (memory and disk tiers, docs/cache.md).
        .target(name: "CourierCache", dependencies: ["CourierBytes", "CourierHTTP1"], swiftSettings: strict),

        // The system OpenSSL, imported only by CourierTLS (design §7).
        .systemLibrary(name: "CCourierOpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .target(name: "CourierTLS", dependencies: ["CourierBytes", "CCourierOpenSSL"], swiftSettings: strict),

        // The system zlib, imported only by CourierCompression: gzip/deflate content coding
        // (docs/compression.md). No I/O, no clock; zlib is the only thing it calls.
        .systemLibrary(name: "CCourierZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(name: "CourierCompression", dependencies: ["CourierBytes", "CCourierZlib"], swiftSettings: strict),

        // The one door to the kernel (design §7): the only module that imports Glibc.
        .target(name: "CCourierLinux"),
        .target(name: "CourierPosix", dependencies: ["CourierBytes", "CCourierLinux"], swiftSettings: strict),

        // The embedded HTTP/1.1 test server (plain and TLS) on 127.0.0.1.
        .target(name: "CourierLoopbackServer", dependencies: ["CourierBytes", "CourierHTTP1", "CourierPosix", "CourierTLS",
                                                              "CourierCompression"],
                swiftSettings: strict),
        // The public client: the low-level connection API (Connection/) and AFNetworking's request
        // and response serializers (Serialization/); the session joins later.
        .target(name: "Courier", dependencies: ["CourierBytes", "CourierURL", "CourierHTTP1", "CourierJSON", "CourierMultipart",
                                                "CourierPosix", "CourierTLS", "CourierPool", "CourierCompression", "CourierCookies",
                                                "CourierCache"],
                swiftSettings: strict),

        // Trait HTTPTypes: Courier's requests, responses and fields as swift-http-types' values.
        .target(name: "CourierHTTPTypes", dependencies: [
            "Courier", "CourierBytes", "CourierHTTP1", "CourierURL",
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
        ], swiftSettings: strict),
        // Trait OpenAPI: a swift-openapi-runtime ClientTransport over a Courier Session.
        .target(name: "CourierOpenAPI", dependencies: [
            "Courier", "CourierBytes", "CourierHTTP1", "CourierURL", "CourierHTTPTypes",
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
        ], swiftSettings: strict),

        // A small program that links what each trait adds: scripts/check-foundation-free reads
        // the libraries it needs with each trait on.
        .executableTarget(name: "CourierTraitsSample", dependencies: [
            "Courier", "CourierHTTP1", "CourierURL", "CourierHTTPTypes", "CourierOpenAPI",
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
        ], swiftSettings: strict),

        // `courier`: the command-line tool (design §9), with `courier bench`.
        // Counts the process's allocation calls for `courier bench` by defining malloc & co.: only
        // the executable may link it (a library must never replace its program's allocator).
        .target(name: "CCourierAllocationCounter"),

        // curl's exit code for each of Courier's typed errors (docs/cli.md's table): the tool's
        // vocabulary, kept out of the library (issue 15 §4) and out of the executable, so the tests
        // that assert exit codes can import it (they cannot import the executable). No product.
        .target(name: "CourierCurlExitCodes", dependencies: ["Courier", "CourierCompression", "CourierHTTP1", "CourierTLS"],
                swiftSettings: strict),

        .executableTarget(name: "CourierCLI", dependencies: [
            "CCourierAllocationCounter",
            "Courier", "CourierCurlExitCodes", "CourierBytes", "CourierHTTP1", "CourierJSON", "CourierLoopbackServer", "CourierMultipart", "CourierPosix",
            "CourierTLS", "CourierURL", "CourierCookies",
        ], swiftSettings: strict,
        // Release builds link the Swift runtime statically: most of the tool's resident set is the
        // pages of shared libraries it touches (libswiftCore alone was 4.7 MB of a 15 MB process),
        // and a static runtime touches a third less (docs/benchmarks.md). Debug builds keep the
        // shared runtime (faster links while iterating).
        linkerSettings: [.unsafeFlags(["-static-stdlib"], .when(configuration: .release))]),

        // Shared test helpers (the split harness every parser test goes through).
        .target(name: "CourierTestSupport", dependencies: ["CourierBytes", "CCourierTestSpawn"],
                path: "Tests/CourierTestSupport", swiftSettings: strict),
        // posix_spawn's closefrom action for ChildProcess (not exported by Swift's Glibc module).
        .target(name: "CCourierTestSpawn", path: "Tests/CCourierTestSpawn"),
        .testTarget(name: "CourierBytesTests", dependencies: ["CourierBytes", "CourierTestSupport"],
                    swiftSettings: strict),
        // Unicode/IdnaTestV2.txt.gz: Unicode's IDNA conformance vectors, read by the tests.
        .testTarget(name: "CourierURLTests", dependencies: ["CourierURL", "CourierTestSupport", "CourierCompression"],
                    exclude: ["Unicode"], swiftSettings: strict),
        .testTarget(name: "CourierHTTP1Tests", dependencies: ["CourierHTTP1", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierJSONTests", dependencies: ["CourierJSON", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierCompressionTests", dependencies: ["CourierCompression", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierPoolTests", dependencies: ["CourierPool"], swiftSettings: strict),
        // Go's cookiejar tables, the http-state parser and date cases, test_psl.txt, file format.
        .testTarget(name: "CourierCookiesTests", dependencies: ["CourierCookies", "CourierURL", "CourierHTTP1", "CourierBytes", "CourierTestSupport"],
                    swiftSettings: strict),
        // The cache's pure rules, and http-tests/cache-tests' suites run against a Session.
        .testTarget(name: "CourierCacheTests", dependencies: ["CourierCache", "CourierHTTP1", "Courier", "CourierLoopbackServer",
                                                           "CourierPosix", "CourierTestSupport", "CourierURL", "CourierBytes"],
                    exclude: ["CacheTests"], swiftSettings: strict),
        .testTarget(name: "CourierMultipartTests", dependencies: ["CourierMultipart", "CourierTestSupport"],
                    swiftSettings: strict),
        // The PEM files are embedded in TestCertificates.swift by Certificates/generate.sh.
        .testTarget(name: "CourierTLSTests", dependencies: ["CourierTLS", "CourierTestSupport"],
                    exclude: ["Certificates"], swiftSettings: strict),
        .testTarget(name: "CourierSerializationTests", dependencies: ["Courier", "CourierCurlExitCodes", "CourierTestSupport"],
                    swiftSettings: strict),
        // The front door (issue 15): the README's examples and the migration guide's code blocks,
        // compiled with `import Courier` alone — this target may depend on Courier and nothing else.
        .testTarget(name: "CourierDoorTests", dependencies: ["Courier"], swiftSettings: strict),
        .testTarget(name: "CourierPosixTests", dependencies: ["CourierPosix", "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierLoopbackServerTests", dependencies: ["CourierLoopbackServer", "CourierCompression", "CourierPosix",
                                                                   "CourierTestSupport"],
                    swiftSettings: strict),
        .testTarget(name: "CourierConnectionTests", dependencies: ["Courier", "CourierCurlExitCodes", "CourierHTTP1", "CourierLoopbackServer", "CourierMultipart", "CourierPool", "CourierPosix", "CourierTestSupport"],
                    swiftSettings: strict),
        // Runs the built `courier` binary ($COURIER_BIN, else .build/debug/courier): usage errors,
        // --offline bytes, -w, and transfers against an in-process loopback server.
        .testTarget(name: "CourierCLITests", dependencies: ["CourierHTTP1", "CourierLoopbackServer", "CourierPosix", "CourierTestSupport"],
                    swiftSettings: strict),
        // Session: every task kind against the embedded loopback server.
        .testTarget(name: "CourierSessionTests", dependencies: ["Courier", "CourierCurlExitCodes", "CourierCompression", "CourierCookies", "CourierLoopbackServer", "CourierTestSupport", "CourierPosix", "CourierURL"],
                    swiftSettings: strict),
        // The traits' tests (empty unless the trait is on): conversions, and calls through the
        // session against the loopback server; OpenAPI's through a generated client
        // (Tests/CourierOpenAPITests/Generated, regenerated as docs/integrations.md says).
        .testTarget(name: "CourierHTTPTypesTests", dependencies: [
            "Courier", "CourierHTTPTypes", "CourierBytes", "CourierHTTP1", "CourierLoopbackServer", "CourierURL",
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["HTTPTypes"])),
        ], swiftSettings: strict),
        .testTarget(name: "CourierOpenAPITests", dependencies: [
            "Courier", "CourierCurlExitCodes", "CourierOpenAPI", "CourierBytes", "CourierLoopbackServer", "CourierTLS",
            .product(name: "HTTPTypes", package: "swift-http-types", condition: .when(traits: ["OpenAPI"])),
            .product(name: "OpenAPIRuntime", package: "swift-openapi-runtime", condition: .when(traits: ["OpenAPI"])),
        ], exclude: ["openapi.yaml", "openapi-generator-config.yaml"], swiftSettings: strict),
        // Session against httpbin started by scripts/httpbin/run; skipped (visibly) without it.
        .testTarget(name: "CourierHTTPBinTests", dependencies: ["Courier", "CourierCurlExitCodes", "CourierTestSupport"],
                    swiftSettings: strict),
        // Against nginx, openssl s_server and scripted servers started by scripts/interop/run;
        // skipped (visibly) when run without them.
        .testTarget(name: "CourierInteropTests", dependencies: ["Courier", "CourierCurlExitCodes", "CourierBytes", "CourierHTTP1", "CourierMultipart", "CourierTestSupport", "CourierURL"],
                    swiftSettings: strict),
    ]
)
