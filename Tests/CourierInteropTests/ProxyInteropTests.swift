// tinyproxy (Debian's), started by scripts/interop/run: http through a proxy (to nginx), CONNECT
// tunnels to openssl s_server with TLS verified against the origin, Basic authentication (407),
// a proxy refusing CONNECT, NO_PROXY, and a body cut short inside a tunnel.
import Testing
import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierURL

@Suite(.enabled(if: Interop.proxiesAvailable, "needs scripts/interop/run with tinyproxy installed"), .serialized, .timeLimit(.minutes(2)))
struct ProxyInteropTests {
    private func session(_ proxy: String, _ configure: (inout ProxyConfiguration) -> Void = { _ in }) throws -> Session {
        var configuration = SessionConfiguration()
        configuration.connectTimeout = .seconds(5)
        configuration.idleTimeout = .seconds(20)
        configuration.tls = try Interop.tls()
        var settings = ProxyConfiguration.url(proxy)
        settings.noProxy = ""
        configure(&settings)
        configuration.proxy = settings
        return Session(configuration: configuration)
    }

    private func get(_ session: Session, _ url: String) async throws -> TaskResponse<ByteBuffer> {
        let task = session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: url)))
        task.resume()
        return await task.response
    }

    @Test func httpThroughTheProxy() async throws {
        let session = try session("127.0.0.1:\(Interop.proxyPort("OPEN"))")
        for i in 0..<3 {
            let response = try await get(session, "http://127.0.0.1:\(Interop.nginxPort)/small.txt?proxied=\(i)")
            #expect(response.head?.status == 200)
            #expect(response.body?.readableString == "hello, nginx\n")
            // tinyproxy answers in HTTP/1.0 and closes: each request opens its own connection
            // (reuse through a proxy is checked against the scripted proxy in the session tests).
            #expect(response.metrics.connectCount == 1, "request \(i)")
        }
        await session.invalidateAndCancel()
    }

    @Test func httpsThroughATunnelVerifiesTheOrigin() async throws {
        let session = try session("http://127.0.0.1:\(Interop.proxyPort("OPEN"))")
        for _ in 0..<2 {
            let response = try await get(session, "https://localhost:\(Interop.tlsPort("TLS13"))/")
            #expect(response.head?.status == 200)
            #expect(response.metrics.proxyConnectStatus == 200)
        }
        // The origin's certificate is checked against the origin's name, through the tunnel.
        let wrong = try await get(session, "https://localhost:\(Interop.tlsPort("WRONGHOST"))/")
        #expect(wrong.result.failureCode == 60)
        await session.invalidateAndCancel()
    }

    @Test func basicAuthentication() async throws {
        let port = Interop.proxyPort("AUTH")
        let tlsURL = "https://localhost:\(Interop.tlsPort("TLS12"))/"
        // No credentials: the tunnel is refused with the proxy's 407 (curl 56).
        let anonymous = try session("127.0.0.1:\(port)")
        let refused = try await get(anonymous, tlsURL)
        #expect(refused.result.failureCode == 56)
        #expect(refused.metrics.proxyConnectStatus == 407)
        // http in absolute form: the 407 is the response.
        let plain = try await get(anonymous, "http://127.0.0.1:\(Interop.nginxPort)/small.txt")
        #expect(plain.head?.status == 407)
        await anonymous.invalidateAndCancel()

        // Credentials from the URL (percent-decoded), sent with the first request.
        let preemptive = try session("http://user:s3%63ret@127.0.0.1:\(port)")
        #expect(try await get(preemptive, tlsURL).head?.status == 200)
        #expect(try await get(preemptive, "http://127.0.0.1:\(Interop.nginxPort)/small.txt").body?.readableString == "hello, nginx\n")
        await preemptive.invalidateAndCancel()

        // Credentials given separately and sent only in answer to the 407 (once).
        let answering = try session("127.0.0.1:\(port)") {
            $0.credential = Credential(user: "user", password: "s3cret")
            $0.authenticatesPreemptively = false
        }
        let tunnelled = try await get(answering, tlsURL)
        #expect(tunnelled.head?.status == 200)
        #expect(try await get(answering, "http://127.0.0.1:\(Interop.nginxPort)/small.txt").head?.status == 200)
        await answering.invalidateAndCancel()

        // Wrong credentials: answered once, then the proxy's refusal.
        let wrong = try session("http://user:nope@127.0.0.1:\(port)")
        #expect(try await get(wrong, tlsURL).result.failureCode == 56)
        await wrong.invalidateAndCancel()
    }

    @Test func aProxyRefusingConnect() async throws {
        let session = try session("127.0.0.1:\(Interop.proxyPort("STRICT"))")
        let response = try await get(session, "https://localhost:\(Interop.tlsPort("TLS13"))/")
        guard case .failure(let error) = response.result else {
            Issue.record("the tunnel opened")
            return
        }
        #expect(error.connectionError?.code == .proxyTunnelFailed)
        #expect(error.connectionError?.proxyStatus == 403)
        #expect(error.message == "CONNECT tunnel failed, response 403")
        #expect(error.curlExitCode == 56)
        await session.invalidateAndCancel()
    }

    @Test func noProxyGoesDirect() async throws {
        // Nothing listens on port 1: only a direct connection can succeed.
        let session = try session("127.0.0.1:1") { $0.noProxy = "localhost,127.0.0.0/8" }
        let response = try await get(session, "http://127.0.0.1:\(Interop.nginxPort)/small.txt")
        #expect(response.body?.readableString == "hello, nginx\n")
        await session.invalidateAndCancel()
    }

    @Test func aBodyCutShortInsideATunnel() async throws {
        let session = try session("127.0.0.1:\(Interop.proxyPort("OPEN"))") { $0.tunnelsHTTP = true }
        let response = try await get(session, "http://127.0.0.1:\(Interop.scriptedPort)/truncated")
        #expect(response.result.failureCode == 18)
        #expect(response.metrics.proxyConnectStatus == 200)
        await session.invalidateAndCancel()
    }
}

private extension Result where Failure == SessionError {
    /// curl's exit code of the failure; 0 for a success.
    var failureCode: Int {
        if case .failure(let error) = self { return error.curlExitCode }
        return 0
    }
}
