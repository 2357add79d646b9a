// `courier bench`: the standard workloads against an embedded loopback server (plain and TLS), and
// one workload at a time against any server with the peer harness's interface (../shared/perf).

import ArgumentParser
import Courier
import CourierBytes
import CourierLoopbackServer
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL

struct Bench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure throughput: the standard workloads on loopback, or one workload against a URL.",
        subcommands: [Standard.self, Get.self, Download.self, Upload.self, Soak.self],
        defaultSubcommand: Standard.self
    )
}

/// Options naming the server for the one-workload subcommands.
struct TargetOptions: ParsableArguments {
    @Argument(help: "The URL (http or https).")
    var url: String

    @Option(name: .customLong("cacert"), help: "Trust this PEM file's certificates instead of the system store.")
    var caCertificate: String?

    func target() throws -> BenchTarget {
        let uri: URI
        do { uri = try URI(parsing: url) } catch { throw BenchError.usage("courier: (3) malformed URL: \(error)") }
        do { try uri.validateForHTTP() } catch { throw BenchError.usage("courier: (3) not an http(s) URL: \(url)") }
        var tls: TLSConfiguration?
        if uri.scheme == "https" {
            var configuration = TLSConfiguration()
            if let caCertificate { configuration.trustRoots = .pemFile(path: caCertificate) }
            tls = configuration
        }
        return BenchTarget(host: uri.host!.text, port: uri.effectivePort ?? 80, tls: tls, target: uri.requestTarget)
    }
}

extension Bench {
    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET a URL N times over C connections; prints requests=N bytes=B seconds=S.")
        @OptionGroup var options: TargetOptions
        @Option(help: "How many requests.") var requests: Int = 1000
        @Option(help: "How many connections at once.") var connections: Int = 1
        @Flag(name: .customLong("no-keepalive"), help: "A new connection for every request.") var noKeepAlive = false

        func run() async throws {
            let result = try await BenchClient.get(try options.target(), requests: requests, connections: connections, keepAlive: !noKeepAlive)
            print(result.line)
        }
    }

    struct Download: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "GET a URL once, streaming the body; prints requests=1 bytes=B seconds=S.")
        @OptionGroup var options: TargetOptions

        func run() async throws {
            print(try await BenchClient.download(try options.target()).line)
        }
    }

    struct Upload: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "POST a file to a URL; prints requests=1 bytes=B seconds=S.")
        @OptionGroup var options: TargetOptions
        @Option(help: "The file to send.") var file: String
        @Flag(help: "Send it as a multipart/form-data file part.") var multipart = false

        func run() async throws {
            // Streamed from the file (sendfile on plain connections): memory stays flat whatever
            // the file's size.
            print(try await BenchClient.upload(try options.target(), file: file, multipart: multipart).line)
        }
    }
}

extension Bench {
    struct Soak: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sequential keep-alive GETs on one Session, RSS sampled; prints requests=N seconds=S rss_at_1000=B growth=B samples=...",
            discussion: "Without a URL, against the embedded loopback server (bodies of 0.2-30 KB); with one, that URL every time.")
        @Argument(help: "The URL to GET (default: the embedded loopback server).") var url: String?
        @Option(help: "How many requests.") var requests: Int = 100_000
        @Option(name: .customLong("sample-every"), help: "Sample RSS every N requests.") var sampleEvery: Int = 10_000

        func run() async throws {
            guard requests >= 1_000 else { throw BenchError.usage("courier: (2) --requests must be at least 1000") }
            if let url {
                let uri: URI
                do { uri = try URI(parsing: url) } catch { throw BenchError.usage("courier: (3) malformed URL: \(error)") }
                let target = uri.requestTarget
                print(try await BenchSoak.run(base: uri, requests: requests, sampleEvery: sampleEvery) { _ in target }.line)
            } else {
                let server = try await LoopbackServer.start()
                let base = try URI(parsing: "http://127.0.0.1:\(server.port)/")
                print(try await BenchSoak.run(base: base, requests: requests, sampleEvery: sampleEvery).line)
                await server.shutdown()
            }
        }
    }
}

func readWholeFile(_ path: String) throws -> ByteBuffer {
    let file = try File.open(path)
    defer { try? file.close() }
    let size = Int(try file.size())
    var buffer = ByteBuffer(capacity: size)
    var offset: Int64 = 0
    while offset < Int64(size) {
        let n = try file.read(into: &buffer, maxBytes: size - Int(offset), at: offset)
        if n == 0 { break }
        offset += Int64(n)
    }
    return buffer
}

extension Bench {
    /// The standard workloads on an embedded loopback server, plain and TLS.
    struct Standard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(commandName: "standard", abstract: "Run the standard workloads on loopback and print a table.")
        @Flag(help: "Fewer requests and smaller bodies (a quick check).") var quick = false

        func run() async throws {
            let plain = try await LoopbackServer.start()
            let tlsServer = try await LoopbackServer.start(LoopbackServer.Configuration(
                tls: try LoopbackServer.Configuration.tls(certificateChainPEM: LoopbackIdentity.serverCertificatePEM,
                                                          privateKeyPEM: LoopbackIdentity.serverKeyPEM)))
            var trust = TLSConfiguration()
            trust.trustRoots = .certificates(try Certificate.certificates(fromPEM: Array(LoopbackIdentity.caCertificatePEM.utf8)))
            // The same trust without a session cache: every handshake in full, for comparison.
            var trustWithoutResumption = trust
            trustWithoutResumption.sessionCacheCapacity = 0

            let requests = quick ? 2_000 : 20_000
            let tlsRequests = quick ? 1_000 : 5_000
            let handshakes = quick ? 100 : 500
            let large = quick ? 16 << 20 : 256 << 20
            let uploadPath = try BenchFile.make(size: large)
            defer { try? File.remove(uploadPath) }

            func plainTarget(_ path: String) -> BenchTarget { BenchTarget(host: "localhost", port: plain.port, tls: nil, target: path) }
            func tlsTarget(_ path: String, resumption: Bool = true) -> BenchTarget {
                BenchTarget(host: "localhost", port: tlsServer.port, tls: resumption ? trust : trustWithoutResumption, target: path)
            }
            let mib = large >> 20
            let workloads: [(String, String, Bool, () async throws -> BenchResult)] = [
                ("GET 1 KiB, 1 connection", "plain", false, { try await BenchClient.get(plainTarget("/bytes/1024"), requests: requests, connections: 1) }),
                ("GET 1 KiB, 16 connections", "plain", false, { try await BenchClient.get(plainTarget("/bytes/1024"), requests: requests, connections: 16) }),
                ("download \(mib) MiB (Content-Length)", "plain", true, { try await BenchClient.download(plainTarget("/bytes/\(large)")) }),
                ("download \(mib) MiB (chunked, 16 KiB)", "plain", true, { try await BenchClient.download(plainTarget("/chunked/\(large)?chunk=16384")) }),
                ("multipart upload of a \(mib) MiB file", "plain", true, { try await BenchClient.upload(plainTarget("/upload"), file: uploadPath, multipart: true) }),
                ("download \(mib) MiB (Content-Length)", "TLS", true, { try await BenchClient.download(tlsTarget("/bytes/\(large)")) }),
                ("GET 1 KiB, 1 connection", "TLS", false, { try await BenchClient.get(tlsTarget("/bytes/1024"), requests: tlsRequests, connections: 1) }),
                ("GET 1 KiB, new connection each", "TLS", false, {
                    try await BenchClient.get(tlsTarget("/bytes/1024"), requests: handshakes, connections: 1, keepAlive: false) }),
                ("… the same, no session resumption", "TLS", false, {
                    try await BenchClient.get(tlsTarget("/bytes/1024", resumption: false), requests: handshakes, connections: 1, keepAlive: false) }),
            ]
            print("courier \(Courier.CourierVersion.version) bench — embedded loopback server on 127.0.0.1 (plain :\(plain.port), TLS :\(tlsServer.port))")
            print(pad("workload", 38, right: true) + pad("transport", 10, right: true) + pad("requests", 9) + pad("seconds", 9)
                  + pad("rate", 14) + pad("CPU", 16) + pad("peak RSS", 10))
            for (name, transport, isBulk, body) in workloads {
                ProcessUsage.resetPeakMemory()
                let before = ProcessUsage.cpuSeconds()
                let result = try await body()
                let cpu = ProcessUsage.cpuSeconds() - before
                let peak = ProcessUsage.peakMemoryBytes()
                let rate = isBulk ? fixed(Double(result.bytes) / result.seconds / 1e6, 0) + " MB/s"
                                  : fixed(Double(result.requests) / result.seconds, 0) + " req/s"
                let cost = isBulk ? fixed(cpu / (Double(result.bytes) / 1e9), 2) + " s/GB"
                                  : fixed(cpu / Double(result.requests) * 1e6, 1) + " µs/req"
                print(pad(name, 38, right: true) + pad(transport, 10, right: true) + pad(String(result.requests), 9)
                      + pad(fixed(result.seconds, 2), 9) + pad(rate, 14) + pad(cost, 16)
                      + pad(peak.map { fixed(Double($0) / 1048576, 1) + " MiB" } ?? "?", 10))
            }
            let soakRequests = quick ? 10_000 : 100_000
            let soak = try await BenchSoak.run(base: try URI(parsing: "http://127.0.0.1:\(plain.port)/"), requests: soakRequests)
            print(pad("soak: \(soakRequests) GETs on one Session", 38, right: true) + pad("plain", 10, right: true)
                  + pad(String(soak.requests), 9) + pad(fixed(soak.seconds, 2), 9)
                  + pad(fixed(Double(soak.requests) / soak.seconds, 0) + " req/s", 14)
                  + pad("RSS +" + fixed(Double(soak.growth) / 1048576, 2) + " MiB", 16)
                  + pad(fixed(Double(soak.baseline) / 1048576, 1) + " MiB", 10))
            let handshakeCounts = try TLSClientContext.shared(for: trust).handshakeStatistics
            print("TLS handshakes with resumption on: \(handshakeCounts.completed), of which \(handshakeCounts.resumed) resumed a session.")
            print("CPU is this process's user + system time (the embedded server's included); peak RSS is reset before each workload.")
            print("The soak row shows the RSS growth after the first 1,000 requests (target: under 2 MiB) and the RSS at 1,000.")
            await plain.shutdown()
            await tlsServer.shutdown()
        }
    }
}

/// A file of deterministic bytes for the upload workload, written in 1 MiB pieces.
enum BenchFile {
    static func make(size: Int) throws -> String {
        let file = try File.makeTemporary(in: "/tmp", prefix: "courier-bench-")
        var piece = ByteBuffer(capacity: 1 << 20)
        for i in 0..<(1 << 20) { piece.writeInteger(UInt8(truncatingIfNeeded: i &* 131 &+ 7)) }
        var offset = 0
        while offset < size {
            let n = min(size - offset, 1 << 20)
            try file.write(piece.getSlice(at: piece.readerIndex, length: n)!, at: Int64(offset))
            offset += n
        }
        try file.close()
        return file.path
    }
}

/// CPU time and peak memory of this process, from /proc (no Glibc outside CourierPosix).
enum ProcessUsage {
    /// User + system CPU seconds (/proc/self/stat fields 14 and 15, in clock ticks of 1/100 s).
    static func cpuSeconds() -> Double {
        guard let text = read("/proc/self/stat"), let close = text.lastIndex(of: ")") else { return 0 }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    /// VmHWM from /proc/self/status, in bytes.
    static func peakMemoryBytes() -> Int? {
        guard let text = read("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }

    /// VmRSS from /proc/self/status, in bytes.
    static func residentBytes() -> Int? {
        guard let text = read("/proc/self/status") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return digits.map { $0 * 1024 }
        }
        return nil
    }

    /// Resets VmHWM to the current RSS (proc(5): writing 5 to clear_refs).
    static func resetPeakMemory() {
        guard let file = try? File.open("/proc/self/clear_refs", access: .writeOnly) else { return }
        try? file.write(ByteBuffer(string: "5"), at: 0)
        try? file.close()
    }

    private static func read(_ path: String) -> String? {
        guard let file = try? File.open(path) else { return nil }
        defer { try? file.close() }
        var buffer = ByteBuffer()
        var offset: Int64 = 0
        while let n = try? file.read(into: &buffer, maxBytes: 4096, at: offset), n > 0 { offset += Int64(n) }
        return buffer.readableString
    }
}
