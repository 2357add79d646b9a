// -x, --noproxy, -U, -p, --proxy-header, -w %{http_connect}, the proxy environment (read by
// default, as curl; never HTTP_PROXY) and -v's CONNECT lines, against the loopback server scripted
// as a proxy (it sees absolute-form requests and CONNECTs by their targets; inside a plain tunnel
// it is the origin too). tinyproxy runs in the interop suite.

import CourierHTTP1
import CourierLoopbackServer
import CourierTestSupport
import Synchronization
import Testing

private final class Seen: Sendable {
    private let requests = Mutex<[LoopbackRequest]>([])
    func record(_ request: LoopbackRequest) { requests.withLock { $0.append(request) } }
    var all: [LoopbackRequest] { requests.withLock { $0 } }
}

private func proxyServer(_ seen: Seen) async throws -> LoopbackServer {
    try await LoopbackServer.start(.init(scripts: [
        "http://origin.test/x": { request in
            seen.record(request)
            return [.response(status: 200, headers: [], body: "proxied")]
        },
        "origin.test:80": { request in
            seen.record(request)
            return [.text("HTTP/1.1 200 Connection established\r\n\r\n")]
        },
        "origin.test:443": { request in
            seen.record(request)
            return [.response(status: 403, headers: [], body: "no")]
        },
        "/x": { request in
            seen.record(request)
            return [.response(status: 200, headers: [], body: "tunnelled")]
        },
    ]))
}

extension CLITests {
    @Suite("proxies: -x, --noproxy, -U, -p, --proxy-header, the environment")
    struct ProxyCLITests {
        @Test("-x with credentials: absolute form, Basic from -U over the URL's, --proxy-header to the proxy")
        func explicitProxy() async throws {
            let seen = Seen()
            let server = try await proxyServer(seen)
            let run = courier(["-x", "http://a:b@127.0.0.1:\(server.port)", "-U", "us:pw", "--proxy-header", "X-To-Proxy: 1",
                               "-w", "|%{http_connect}", "http://origin.test/x"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "proxied|000")
            let request = seen.all.first
            #expect(request?.target == "http://origin.test/x")
            #expect(request?.headers.first(name: "Proxy-Authorization") == "Basic dXM6cHc=")
            #expect(request?.headers.first(name: "X-To-Proxy") == "1")
            await server.shutdown()
        }

        @Test("the environment by default: http_proxy, never HTTP_PROXY; NO_PROXY and --noproxy")
        func environment() async throws {
            let seen = Seen()
            let server = try await proxyServer(seen)
            let proxy = "127.0.0.1:\(server.port)"
            #expect(courier(["http://origin.test/x"], environment: ["http_proxy": proxy]).stdoutText == "proxied")
            // HTTP_PROXY is not read: origin.test is then looked up, and does not resolve (6).
            #expect(courier(["http://origin.test/x"], environment: ["HTTP_PROXY": proxy]).status == 6)
            #expect(courier(["http://origin.test/x"], environment: ["ALL_PROXY": proxy]).stdoutText == "proxied")
            #expect(courier(["http://origin.test/x"], environment: ["http_proxy": proxy, "NO_PROXY": ".test"]).status == 6)
            #expect(courier(["--noproxy", "", "http://origin.test/x"], environment: ["http_proxy": proxy, "no_proxy": "*"]).stdoutText == "proxied")
            // -x "" turns the proxy off, the environment's too.
            #expect(courier(["-x", "", "http://origin.test/x"], environment: ["http_proxy": proxy]).status == 6)
            await server.shutdown()
        }

        @Test("-p tunnels http: -v shows the CONNECT exchange, -w %{http_connect} its status; a refused CONNECT is 56")
        func tunnel() async throws {
            let seen = Seen()
            let server = try await proxyServer(seen)
            let run = courier(["-v", "-p", "-x", "127.0.0.1:\(server.port)", "-w", "|%{http_connect}", "http://origin.test/x"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "tunnelled|200")
            #expect(run.stderr.contains("> CONNECT origin.test:80 HTTP/1.1\r\n> Host: origin.test:80\r\n"))
            #expect(run.stderr.contains("< HTTP/1.1 200 Connection established\r\n"))
            #expect(seen.all.map(\.method) == ["CONNECT", "GET"])

            let refused = courier(["-x", "127.0.0.1:\(server.port)", "-w", "%{http_connect}", "https://origin.test/"])
            #expect(refused.status == 56)
            #expect(refused.stdoutText == "403")
            #expect(refused.stderr.contains("courier: (56) CONNECT tunnel failed, response 403"))
            await server.shutdown()
        }

        @Test("a proxy that does not resolve is 5; an unsupported proxy scheme is 7")
        func badProxies() {
            let unresolved = courier(["-x", "proxy.invalid", "http://origin.test/x"])
            #expect(unresolved.status == 5)
            #expect(unresolved.stderr.contains("Could not resolve proxy: proxy.invalid"))
            #expect(courier(["-x", "socks5://127.0.0.1:1", "http://origin.test/x"]).status == 7)
            #expect(courier(["-x", "http://[bad", "http://origin.test/x"]).status == 5)
        }
    }
}
