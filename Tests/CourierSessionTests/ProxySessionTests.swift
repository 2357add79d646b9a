// Requests through scripted proxies: the loopback server plays the proxy (its scripts see the
// absolute-form requests and the CONNECT requests, keyed by their targets) and, inside a plain
// tunnel (`tunnelsHTTP`, curl -p), the origin too — the tunnelled request arrives on the same
// server connection in origin form. The origin's name (`origin.test`) never resolves: a request
// that tried to reach it directly would fail. TLS through a tunnel, and a proxy nobody here
// wrote, are in the interop suite (tinyproxy).

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import Synchronization
import Testing

/// What the scripted proxy saw.
private final class ProxyLog: Sendable {
    private let entries = Mutex<[LoopbackRequest]>([])
    func record(_ request: LoopbackRequest) { entries.withLock { $0.append(request) } }
    var all: [LoopbackRequest] { entries.withLock { $0 } }
}

private func proxied(_ server: LoopbackServer, _ configure: (inout ProxyConfiguration) -> Void = { _ in }) -> Session {
    makeSession { configuration in
        var proxy = ProxyConfiguration.url("http://us%3Aer:p%40ss@127.0.0.1:\(server.port)")
        proxy.noProxy = ""
        configure(&proxy)
        configuration.proxy = proxy
    }
}

private let basic = Credential(user: "us:er", password: "p@ss").basicAuthorization

extension SessionTests {
    @Suite("proxies (scripted)")
    struct ProxySessionTests {
        @Test("http through a proxy: absolute-form target, the origin's Host, Basic from the URL's percent-decoded userinfo, one pooled connection")
        func absoluteForm() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "http://origin.test/hello": { request in
                    log.record(request)
                    return [.response(status: 200, headers: [], body: "via proxy")]
                },
            ])) { server in
                let session = proxied(server)
                let uri = try URI(parsing: "http://origin.test/hello#fragment")
                for _ in 0..<2 {
                    let body = try await session.dataTask(with: HTTPRequest(method: .get, uri: uri)).started.value
                    #expect(body.readableString == "via proxy")
                }
                let seen = log.all
                #expect(seen.count == 2)
                #expect(seen.map(\.target) == ["http://origin.test/hello", "http://origin.test/hello"])
                #expect(seen.first?.headers.first(name: "Host") == "origin.test")
                #expect(seen.first?.headers.first(name: "Proxy-Authorization") == basic)
                #expect(seen.first?.headers.first(name: "Proxy-Connection") == "Keep-Alive")
                // The second request reused the proxy connection.
                #expect(seen.map(\.indexOnConnection) == [1, 2])
                await session.invalidateAndCancel()
            }
        }

        @Test("a 407 with a chunked body asking for Basic is answered once, on the same connection; a second 407 is the response")
        func answer407() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "http://origin.test/auth": { request in
                    log.record(request)
                    if request.headers.first(name: "Proxy-Authorization") == basic {
                        return [.response(status: 200, headers: [], body: "in")]
                    }
                    return [.text("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"
                                  + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")]
                },
                "http://origin.test/never": { request in
                    log.record(request)
                    return [.response(status: 407, headers: ["Proxy-Authenticate: Basic realm=\"p\""], body: "no")]
                },
            ])) { server in
                let session = proxied(server) { $0.authenticatesPreemptively = false }
                let body = try await session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: "http://origin.test/auth"))).started.value
                #expect(body.readableString == "in")
                #expect(log.all.map { $0.headers.first(name: "Proxy-Authorization") } == [nil, basic])
                #expect(log.all.map(\.indexOnConnection) == [1, 2])

                let response = await session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: "http://origin.test/never"))).started.response
                #expect(response.head?.status == 407)
                #expect(log.all.count == 4)
                await session.invalidateAndCancel()
            }
        }

        @Test("a tunnel (curl -p): CONNECT host:port with Host, a 2xx's Content-Length ignored, no Proxy-Authorization inside, pooled per target")
        func plainTunnel() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "origin.test:80": { request in
                    log.record(request)
                    // A body length on a 2xx to CONNECT means nothing (RFC 9110 §9.3.6): were it
                    // taken, the tunnelled response's first 5 bytes would be lost.
                    return [.text("HTTP/1.1 200 Connection established\r\nContent-Length: 5\r\n\r\n")]
                },
                "/inside": { request in
                    log.record(request)
                    return [.response(status: 200, headers: [], body: "inside")]
                },
            ])) { server in
                let session = proxied(server) { $0.tunnelsHTTP = true }
                for _ in 0..<2 {
                    let task = try session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: "http://origin.test/inside"),
                                                                  headers: ["Proxy-Authorization": "Basic c2VjcmV0"]))
                    let response = await task.started.response
                    #expect(response.body?.readableString == "inside")
                    #expect(response.metrics.proxyConnectStatus == 200 || response.metrics.connectCount == 0)
                }
                let seen = log.all
                #expect(seen.map(\.method) == ["CONNECT", "GET", "GET"])
                #expect(seen.first?.target == "origin.test:80")
                #expect(seen.first?.headers.first(name: "Host") == "origin.test:80")
                #expect(seen.first?.headers.first(name: "Proxy-Authorization") == basic)
                // Inside the tunnel: origin form, the origin's Host, no proxy credentials (not even
                // the caller's own field).
                #expect(seen[1].target == "/inside")
                #expect(seen[1].headers.first(name: "Host") == "origin.test")
                #expect(seen[1].headers["Proxy-Authorization"].isEmpty)
                #expect(seen.map(\.indexOnConnection) == [1, 2, 3])
                await session.invalidateAndCancel()
            }
        }

        @Test("a 407 to CONNECT with a chunked body is answered once on the same connection, then the tunnel opens")
        func connect407() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "origin.test:80": { request in
                    log.record(request)
                    if request.headers.first(name: "Proxy-Authorization") == basic {
                        return [.text("HTTP/1.1 200 OK\r\n\r\n")]
                    }
                    return [.text("HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"p\"\r\n"
                                  + "Transfer-Encoding: chunked\r\n\r\n4\r\ndeny\r\n0\r\n\r\n")]
                },
                "/inside": { _ in [.response(status: 200, headers: [], body: "inside")] },
            ])) { server in
                let session = proxied(server) {
                    $0.tunnelsHTTP = true
                    $0.authenticatesPreemptively = false
                }
                let body = try await session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: "http://origin.test/inside"))).started.value
                #expect(body.readableString == "inside")
                #expect(log.all.map { $0.headers.first(name: "Proxy-Authorization") } == [nil, basic])
                #expect(log.all.map(\.indexOnConnection) == [1, 2])
                await session.invalidateAndCancel()
            }
        }

        @Test("a proxy refusing CONNECT: a typed error with its status, curl 56 'CONNECT tunnel failed, response 403'")
        func refused() async throws {
            try await withServer(scripted([
                "origin.test:443": { _ in [.response(status: 403, headers: [], body: "forbidden")] },
            ])) { server in
                let session = proxied(server)
                let result = await session.dataTask(with: HTTPRequest(method: .get, uri: try URI(parsing: "https://origin.test/"))).started.response
                let error = failure(result.result)
                #expect(error?.connectionError?.code == .proxyTunnelFailed)
                #expect(error?.connectionError?.proxyStatus == 403)
                #expect(error?.curlExitCode == 56)
                #expect(error?.message == "CONNECT tunnel failed, response 403")
                #expect(result.metrics.proxyConnectStatus == 403)
                await session.invalidateAndCancel()
            }
        }

        @Test("a proxy closing mid-tunnel: the body is cut short (curl 18), nothing is retried")
        func closedMidTunnel() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "origin.test:80": { request in
                    log.record(request)
                    return [.text("HTTP/1.1 200 Connection established\r\n\r\n")]
                },
                "/cut": { request in
                    log.record(request)
                    return [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"), .close]
                },
            ])) { server in
                let session = proxied(server) { $0.tunnelsHTTP = true }
                let result = await session.dataTask(with: HTTPRequest(method: .post, uri: try URI(parsing: "http://origin.test/cut"))).started.response
                let error = failure(result.result)
                #expect(error?.curlExitCode == 18)
                #expect(log.all.map(\.method) == ["CONNECT", "POST"])
                await session.invalidateAndCancel()
            }
        }

        @Test("NO_PROXY bypass: a direct request, and a Proxy-Authorization field set by the caller is never sent to the origin")
        func bypass() async throws {
            let log = ProxyLog()
            try await withServer(scripted([
                "/direct": { request in
                    log.record(request)
                    return [.response(status: 200, headers: [], body: "direct")]
                },
            ])) { server in
                let session = makeSession { configuration in
                    var proxy = ProxyConfiguration.url("http://127.0.0.1:9")  // nothing listens there
                    proxy.noProxy = "localhost, 127.0.0.0/8"
                    configuration.proxy = proxy
                }
                let body = try await session.dataTask(with: server.request("/direct", headers: ["Proxy-Authorization": "Basic eDp5"])).started.value
                #expect(body.readableString == "direct")
                #expect(log.all.first?.target == "/direct")
                #expect(log.all.first?.headers["Proxy-Authorization"].isEmpty == true)
                await session.invalidateAndCancel()
            }
        }

        @Test("a proxy that does not resolve is curl 5; one that refuses the connection is curl 7, naming the proxy")
        func unreachable() async throws {
            let session = makeSession { $0.proxy = .url("http://proxy.invalid:3128") }
            let uri = try URI(parsing: "http://origin.test/")
            let error = failure(await session.dataTask(with: HTTPRequest(method: .get, uri: uri)).started.response.result)
            #expect(error?.curlExitCode == 5)
            #expect(error?.message == "Could not resolve proxy: proxy.invalid")
            let refused = makeSession { $0.proxy = .url("127.0.0.1:9") }
            let second = failure(await refused.dataTask(with: HTTPRequest(method: .get, uri: uri)).started.response.result)
            #expect(second?.curlExitCode == 7)
            #expect(second?.connectionError?.proxy == "http://127.0.0.1:9")
            await session.invalidateAndCancel()
            await refused.invalidateAndCancel()
        }
    }
}

private extension DataTask {
    /// The task, resumed.
    var started: DataTask {
        resume()
        return self
    }
}
