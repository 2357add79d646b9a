// TLS session resumption against openssl s_server: stateless tickets (TLS12, TLS13), session IDs
// and stateful TLS 1.3 tickets (`-no_ticket`). `-www` prints "New, TLSv1.x" or "Reused, TLSv1.x"
// for each connection, so the server confirms what the client's counts say.
import Testing
import Courier
import CourierTLS

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(2)))
struct TLSResumptionInteropTests {
    static let servers = ["TLS12", "TLS13", "TLS12_NOTICKET", "TLS13_NOTICKET"]

    /// A configuration of its own (its cache capacity), so the shared context is this test's.
    func isolated(_ capacity: Int, extraRoot: Bool = false) throws -> TLSConfiguration {
        var configuration = try Interop.tls()
        configuration.sessionCacheCapacity = capacity
        if extraRoot {
            // Other trust roots: the test CA from the certificate list instead of the file.
            let pem = Interop.readFile(Interop.certificates + "/ca.pem")
            configuration.trustRoots = .certificates(try Certificate.certificates(fromPEM: pem))
        }
        return configuration
    }

    /// One GET on a new connection: what s_server said about the session, and whether the client
    /// counted a resumed handshake.
    func fetch(_ portName: String, host: String = "localhost", tls: TLSConfiguration) async throws -> (server: String, resumed: Bool) {
        let context = try TLSClientContext.shared(for: tls)
        let before = context.handshakeStatistics
        let connection = try await HTTP1Connection.connect(host: host, port: Interop.tlsPort(portName), tls: tls, options: Interop.options())
        try await connection.send(method: .get, target: "/")
        let response = try await connection.receiveResponse()
        let body = try await response.body.collect(upTo: 1 << 20).readableString
        await connection.close()
        #expect(response.head.status == 200)
        let line = body.split(separator: "\n").first { $0.hasPrefix("New, ") || $0.hasPrefix("Reused, ") }
        let after = context.handshakeStatistics
        return (line.map { String($0.prefix { $0 != "," }) } ?? "?", after.resumed == before.resumed + 1)
    }

    @Test(arguments: zip(servers, 300..<304))
    func theSecondConnectionResumes(_ port: String, _ capacity: Int) async throws {
        let tls = try isolated(capacity)
        let first = try await fetch(port, tls: tls)
        #expect(first.server == "New" && !first.resumed)
        for _ in 0..<3 {
            let next = try await fetch(port, tls: tls)
            #expect(next.server == "Reused" && next.resumed, "\(next)")
        }
    }

    @Test(arguments: zip(servers, 310..<314))
    func anotherNameDoesNotResume(_ port: String, _ capacity: Int) async throws {
        let tls = try isolated(capacity)
        _ = try await fetch(port, host: "localhost", tls: tls)
        // The certificate names 127.0.0.1 too; an address sends no SNI.
        let byAddress = try await fetch(port, host: "127.0.0.1", tls: tls)
        #expect(byAddress.server == "New" && !byAddress.resumed)
        let again = try await fetch(port, host: "localhost", tls: tls)
        #expect(again.server == "Reused" && again.resumed)
    }

    @Test(arguments: zip(servers, 320..<324))
    func otherTrustDoesNotResume(_ port: String, _ capacity: Int) async throws {
        _ = try await fetch(port, tls: try isolated(capacity))
        let other = try await fetch(port, tls: try isolated(capacity, extraRoot: true))
        #expect(other.server == "New" && !other.resumed)
    }
}
