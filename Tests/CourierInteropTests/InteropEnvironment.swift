// Where scripts/interop/run started the servers nobody here wrote. Without that script the suites
// are skipped visibly (a condition trait), so `swift test` alone stays self-contained.
import Testing
import Glibc
import Courier
import CourierTLS

enum Interop {
    static func value(_ name: String) -> String? { getenv(name).map { String(cString: $0) } }
    static func port(_ name: String) -> UInt16? { value(name).flatMap(UInt16.init) }

    static var isAvailable: Bool { value("COURIER_INTEROP") == "1" }
    /// tinyproxy was started (scripts/interop/run skips it, saying so, only when it is absent).
    static var proxiesAvailable: Bool { isAvailable && value("COURIER_INTEROP_PROXY") == "1" }
    static func proxyPort(_ name: String) -> UInt16 { port("COURIER_INTEROP_PROXY_\(name)_PORT")! }
    static var nginxPort: UInt16 { port("COURIER_INTEROP_NGINX_PORT")! }
    static var nginxLog: String { value("COURIER_INTEROP_NGINX_LOG")! }
    static var scriptedPort: UInt16 { port("COURIER_INTEROP_SCRIPTED_PORT")! }
    static func tlsPort(_ name: String) -> UInt16 { port("COURIER_INTEROP_TLS_\(name)_PORT")! }
    static var certificates: String { value("COURIER_INTEROP_CERTIFICATES")! }
    /// nginx's document root (the files it serves, for content checks).
    static var www: String { value("COURIER_INTEROP_WWW")! }

    /// Trusts the test CA only, verifies the host name.
    static func tls(clientCertificate: Bool = false) throws -> TLSConfiguration {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .pemFile(path: certificates + "/ca.pem")
        if clientCertificate {
            configuration.clientIdentity = try TLSIdentity(
                certificateChainPEM: readFile(certificates + "/client.pem"),
                privateKeyPEM: readFile(certificates + "/client.key"))
        }
        return configuration
    }

    static func readFile(_ path: String) -> [UInt8] {
        guard let file = fopen(path, "rb") else { return [] }
        defer { fclose(file) }
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, 65536, file) }
            if n == 0 { break }
            out += chunk[0..<n]
        }
        return out
    }

    static func readLines(_ path: String) -> [String] {
        String(decoding: readFile(path), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    static func options(idle: Duration = .seconds(30)) -> HTTP1ConnectionOptions {
        var options = HTTP1ConnectionOptions()
        options.connectTimeout = .seconds(5)
        options.tlsHandshakeTimeout = .seconds(5)
        options.idleTimeout = idle
        return options
    }
}

/// The error a call threw, as a `ConnectionError`.
func connectionError(_ body: () async throws -> Void) async -> ConnectionError? {
    do {
        try await body()
        return nil
    } catch let error as ConnectionError {
        return error
    } catch {
        Issue.record("not a ConnectionError: \(error)")
        return nil
    }
}
