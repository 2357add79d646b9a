// `courier bench`: the standard workloads against an embedded loopback server (plain and TLS), and
// one workload at a time against any server with the peer harness's interface (../shared/perf).
// Each subcommand's options are an `OptionTable`, parsed by the same curl-grammar parser as the
// transfer command.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL

/// What each option of a bench subcommand is.
enum BenchKey: Hashable, Sendable {
    case requests, connections, noKeepAlive, caCertificate, file, multipart, quick, sampleEvery, help
}

/// `courier bench [standard|get|download|upload|soak] ...`.
enum Bench {
    private static let options = "Options"

    private static let help = OptionSpec(BenchKey.help, short: "h", long: "help", section: options, help: "Print this help and exit.")
    private static let caCertificate = OptionSpec(BenchKey.caCertificate, long: "cacert", value: "PEM", section: options,
                                                  help: "Trust this PEM file's certificates instead of the system store.")

    /// The subcommands: name, usage line, one line of description, and the option table.
    static let subcommands: [(name: String, usage: String, abstract: String, table: OptionTable<BenchKey>)] = [
        ("standard", "courier bench [standard] [--quick]", "Run the standard workloads on loopback and print a table.",
         OptionTable([OptionSpec(.quick, long: "quick", section: options, help: "Fewer requests and smaller bodies (a quick check)."), help])),
        ("get", "courier bench get URL [--requests N] [--connections C] [--no-keepalive] [--cacert PEM]",
         "GET a URL N times over C connections; prints requests=N bytes=B seconds=S.",
         OptionTable([OptionSpec(.requests, long: "requests", value: "N", section: options, help: "How many requests (default 1000)."),
                      OptionSpec(.connections, long: "connections", value: "C", section: options, help: "How many connections at once (default 1)."),
                      OptionSpec(.noKeepAlive, long: "no-keepalive", section: options, help: "A new connection for every request."),
                      caCertificate, help])),
        ("download", "courier bench download URL [--cacert PEM]", "GET a URL once, streaming the body; prints requests=1 bytes=B seconds=S.",
         OptionTable([caCertificate, help])),
        ("upload", "courier bench upload URL --file PATH [--multipart] [--cacert PEM]", "POST a file to a URL; prints requests=1 bytes=B seconds=S.",
         OptionTable([OptionSpec(.file, long: "file", value: "PATH", section: options, help: "The file to send."),
                      OptionSpec(.multipart, long: "multipart", section: options, help: "Send it as a multipart/form-data file part."),
                      caCertificate, help])),
        ("soak", "courier bench soak [URL] [--requests N] [--sample-every N]",
         "Sequential keep-alive GETs on one Session, RSS sampled; prints requests=N seconds=S rss_at_1000=B growth=B samples=... "
         + "Without a URL, against the embedded loopback server (bodies of 0.2-30 KB); with one, that URL every time.",
         OptionTable([OptionSpec(.requests, long: "requests", value: "N", section: options, help: "How many requests (default 100000)."),
                      OptionSpec(.sampleEvery, long: "sample-every", value: "N", section: options, help: "Sample RSS every N requests (default 10000)."),
                      help])),
    ]

    static var helpText: String {
        var text = "Usage: courier bench [standard|get|download|upload|soak] ...\n\n"
        text += "Measure throughput: the standard workloads on loopback, or one workload against a URL.\n\n"
        for command in subcommands { text += "  " + command.usage + "\n      " + command.abstract + "\n" }
        return text
    }

    /// Runs `courier bench ARGUMENTS` and ends the process: 0, 2 for usage, 3 for a malformed
    /// URL, 1 when a workload fails.
    static func main(_ arguments: [String]) async -> Never {
        var arguments = arguments[...]
        if arguments.first == "-h" || arguments.first == "--help" {
            try? StandardStreams.writeOutput(helpText)
            ProcessControl.exit(0)
        }
        var name = "standard"
        if let first = arguments.first, !first.hasPrefix("-") {
            name = first
            arguments = arguments.dropFirst()
        }
        guard let command = subcommands.first(where: { $0.name == name }) else {
            printError("courier: (2) bench: unknown workload '\(name)'; try 'courier bench --help'")
            ProcessControl.exit(2)
        }
        let values: OptionValues<BenchKey>
        do { values = OptionValues(try command.table.parse(Array(arguments)), table: command.table) } catch {
            printError("courier: (2) \(error.message); try 'courier bench \(name) --help'")
            ProcessControl.exit(2)
        }
        if values.flag(.help) {
            try? StandardStreams.writeOutput("Usage: " + command.usage + "\n\n" + command.abstract + "\n\n" + command.table.helpText())
            ProcessControl.exit(0)
        }
        do {
            try await run(name, values)
            ProcessControl.exit(0)
        } catch let error as BenchError {
            switch error {
            case .usage(let line):
                printError(line)
                ProcessControl.exit(line.hasPrefix("courier: (3)") ? 3 : 2)
            case .status, .failed:
                printError("courier: bench: \(error)")
                ProcessControl.exit(1)
            }
        } catch {
            printError("courier: bench: \(error)")
            ProcessControl.exit(1)
        }
    }

    private static func run(_ name: String, _ values: OptionValues<BenchKey>) async throws {
        func number(_ key: BenchKey, _ spelling: String, default value: Int) throws -> Int {
            guard let text = values.value(key) else { return value }
            guard let n = Int(text), n > 0 else { throw BenchError.usage("courier: (2) \(spelling) expects a positive number, not \"\(text)\"") }
            return n
        }
        func target() throws -> BenchTarget {
            guard values.positionals.count == 1 else {
                throw BenchError.usage("courier: (2) bench \(name) expects one URL; try 'courier bench \(name) --help'")
            }
            return try BenchTarget(url: values.positionals[0], caCertificate: values.value(.caCertificate))
        }
        func measured(_ body: () async throws -> BenchResult) async throws -> String {
            var (result, cost) = try await BenchCost.measure(body)
            result.cost = cost
            return result.line
        }
        switch name {
        case "get":
            let benchTarget = try target()
            let requests = try number(.requests, "--requests", default: 1000)
            let connections = try number(.connections, "--connections", default: 1)
            let keepAlive = !values.flag(.noKeepAlive)
            print(try await measured { try await BenchClient.get(benchTarget, requests: requests, connections: connections, keepAlive: keepAlive) })
        case "download":
            let benchTarget = try target()
            print(try await measured { try await BenchClient.download(benchTarget) })
        case "upload":
            guard let file = values.value(.file) else { throw BenchError.usage("courier: (2) bench upload needs --file PATH") }
            // Streamed from the file (sendfile on plain connections): memory stays flat whatever
            // the file's size.
            let benchTarget = try target()
            let multipart = values.flag(.multipart)
            print(try await measured { try await BenchClient.upload(benchTarget, file: file, multipart: multipart) })
        case "soak":
            guard values.positionals.count <= 1 else {
                throw BenchError.usage("courier: (2) bench soak takes at most one URL; try 'courier bench soak --help'")
            }
            try await soak(url: values.positionals.first, requests: try number(.requests, "--requests", default: 100_000),
                           sampleEvery: try number(.sampleEvery, "--sample-every", default: 10_000))
        default:
            guard values.positionals.isEmpty else {
                throw BenchError.usage("courier: (2) bench standard takes no URL; try 'courier bench --help'")
            }
            try await standard(quick: values.flag(.quick))
        }
    }
}

extension BenchTarget {
    /// The target of a one-workload subcommand: an http or https URL (3 otherwise).
    init(url: String, caCertificate: String?) throws {
        let uri: URI
        do { uri = try URI(parsing: url) } catch { throw BenchError.usage("courier: (3) malformed URL: \(error)") }
        do { try uri.validateForHTTP() } catch { throw BenchError.usage("courier: (3) not an http(s) URL: \(url)") }
        var tls: TLSConfiguration?
        if uri.scheme == "https" {
            var configuration = TLSConfiguration()
            if let caCertificate { configuration.trustRoots = .pemFile(path: caCertificate) }
            tls = configuration
        }
        self.init(host: uri.host!.text, port: uri.effectivePort ?? 80, tls: tls, target: uri.requestTarget)
    }
}

extension Bench {
    /// Sequential keep-alive GETs on one Session with RSS sampled: against `url`, or the embedded
    /// loopback server (bodies of 0.2-30 KB) without one.
    static func soak(url: String?, requests: Int, sampleEvery: Int) async throws {
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
    static func standard(quick: Bool) async throws {
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
              + pad("rate", 14) + pad("CPU", 16) + pad("peak RSS", 10) + pad("mallocs", 14) + pad("switches", 16))
        for (name, transport, isBulk, body) in workloads {
            ProcessUsage.resetPeakMemory()
            let before = ProcessUsage.cpuSeconds()
            let (result, spent) = try await BenchCost.measure(body)
            let cpu = ProcessUsage.cpuSeconds() - before
            let peak = ProcessUsage.peakMemoryBytes()
            let rate = isBulk ? fixed(Double(result.bytes) / result.seconds / 1e6, 0) + " MB/s"
                              : fixed(Double(result.requests) / result.seconds, 0) + " req/s"
            let cost = isBulk ? fixed(cpu / (Double(result.bytes) / 1e9), 2) + " s/GB"
                              : fixed(cpu / Double(result.requests) * 1e6, 1) + " µs/req"
            // Allocations and context switches per request, or per MB for bulk transfers.
            let unit = isBulk ? Double(result.bytes) / 1e6 : Double(result.requests)
            let suffix = isBulk ? "/MB" : "/req"
            let mallocs = fixed(Double(spent.allocations) / unit, 1) + suffix
            let switches = fixed(Double(spent.voluntarySwitches) / unit, 2) + "+" + fixed(Double(spent.involuntarySwitches) / unit, 2) + suffix
            print(pad(name, 38, right: true) + pad(transport, 10, right: true) + pad(String(result.requests), 9)
                  + pad(fixed(result.seconds, 2), 9) + pad(rate, 14) + pad(cost, 16)
                  + pad(peak.map { fixed(Double($0) / 1048576, 1) + " MiB" } ?? "?", 10)
                  + pad(mallocs, 14) + pad(switches, 16))
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
        print("mallocs: allocation calls; switches: voluntary+involuntary context switches of every thread — per request, or")
        print("per MB for bulk transfers, the embedded server's included (`courier bench get|download URL` against an outside")
        print("server prints the client's alone).")
        print("The soak row shows the RSS growth after the first 1,000 requests (target: under 2 MiB) and the RSS at 1,000.")
        await plain.shutdown()
        await tlsServer.shutdown()
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
