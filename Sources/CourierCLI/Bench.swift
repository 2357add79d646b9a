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
        subcommands: [Standard.self, Get.self, Download.self, Upload.self],
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
            let contents = try readWholeFile(file)
            if multipart {
                var random = SystemRandomNumberGenerator()
                var form = MultipartForm(boundary: MultipartBoundary(using: &random))
                let name = file.split(separator: "/").last.map(String.init) ?? "file"
                try form.appendData(contents, name: "file", fileName: name, mimeType: MultipartMIMEType.forFileName(name))
                var body = ByteBuffer(capacity: Int(form.contentLength))
                try form.render(into: &body)
                print(try await BenchClient.upload(try options.target(), body: body, contentType: form.contentType).line)
            } else {
                print(try await BenchClient.upload(try options.target(), body: contents, contentType: "application/octet-stream").line)
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

            let requests = quick ? 2_000 : 20_000
            let large = quick ? 16 << 20 : 256 << 20
            let upload = ByteBuffer(bytes: [UInt8](repeating: 0x61, count: quick ? 16 << 20 : 64 << 20))
            print("courier \(CourierVersion.version) bench — loopback server on 127.0.0.1 (plain :\(plain.port), TLS :\(tlsServer.port))")
            print(pad("workload", 36, right: true) + pad("transport", 10, right: true) + pad("requests", 10) + pad("bytes", 12)
                  + pad("seconds", 10) + pad("req/s", 11) + pad("MB/s", 10))
            for (name, server, tls) in [("plain", plain, nil as TLSConfiguration?), ("TLS", tlsServer, trust)] {
                let host = "localhost"
                func target(_ path: String) -> BenchTarget { BenchTarget(host: host, port: server.port, tls: tls, target: path) }
                let rows: [(String, BenchResult)] = [
                    ("GET 1 KiB, 1 connection", try await BenchClient.get(target("/bytes/1024"), requests: requests, connections: 1)),
                    ("GET 1 KiB, 8 connections", try await BenchClient.get(target("/bytes/1024"), requests: requests, connections: 8)),
                    ("download \(large >> 20) MiB (Content-Length)", try await BenchClient.download(target("/bytes/\(large)"))),
                    ("download \(large >> 20) MiB (chunked, 16 KiB)", try await BenchClient.download(target("/chunked/\(large)?chunk=16384"))),
                    ("upload \(upload.readableBytes >> 20) MiB", try await BenchClient.upload(target("/upload"), body: upload, contentType: "application/octet-stream")),
                ]
                for (workload, result) in rows {
                    print(pad(workload, 36, right: true) + pad(name, 10, right: true) + pad(String(result.requests), 10)
                          + pad(String(result.bytes), 12) + pad(fixed(result.seconds, 3), 10)
                          + pad(fixed(Double(result.requests) / result.seconds, 0), 11)
                          + pad(fixed(Double(result.bytes) / result.seconds / 1e6, 1), 10))
                }
            }
            await plain.shutdown()
            await tlsServer.shutdown()
        }
    }
}
