// Cookies through a Session: a redirect chain across subdomains (names mapped to 127.0.0.1 as
// curl's --resolve does), Set-Cookie stored from redirect responses, cookies recomputed per hop,
// the caller's Cookie field merged into one field and dropped on a change of origin, sessions
// sharing a jar only when given the same one, --offline bytes, the injected clock, concurrent use,
// and cookie files written through a temporary file.

import Courier
import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierLoopbackServer
import CourierPosix
import CourierURL
import Glibc
import Synchronization
import Testing

/// What each scripted route saw: (path, Host, every Cookie field).
private final class CookieLog: Sendable {
    private let entries = Mutex<[(path: String, host: String, cookies: [String])]>([])
    func record(_ request: LoopbackRequest) {
        entries.withLock { $0.append((request.path, request.headers.first(name: "Host") ?? "", request.headers["Cookie"])) }
    }
    var all: [(path: String, host: String, cookies: [String])] { entries.withLock { $0 } }
    func cookies(at path: String) -> [[String]] { all.filter { $0.path == path }.map(\.cookies) }
}

private func reply(_ status: Int, _ headers: [String], _ body: String = "") -> [LoopbackAction] {
    [.response(status: status, headers: headers, body: body)]
}

/// A stepping clock for the jar.
private final class TestClock: Sendable {
    let time = Atomic<Int64>(1_700_000_000)
    var clock: CookieJar.Clock { CookieJar.Clock { [self] in time.load(ordering: .relaxed) } }
    func advance(_ seconds: Int64) { time.add(seconds, ordering: .relaxed) }
}

extension SessionTests {
    @Suite("cookies through a session")
    struct CookieSessionTests {
        @Test("a redirect chain across subdomains: cookies stored from each 3xx, recomputed for each hop, the caller's field dropped across origins")
        func redirectChain() async throws {
            let log = CookieLog()
            try await withServer(scripted([
                "/start": { request in
                    log.record(request)
                    let port = request.headers.first(name: "Host")!.split(separator: ":").last!
                    return reply(302, ["Set-Cookie: host=a", "Set-Cookie: dom=1; Domain=example.test", "Set-Cookie: bad=1; Domain=other.test",
                                       "Location: http://b.example.test:\(port)/next"])
                },
                "/next": { request in
                    log.record(request)
                    let port = request.headers.first(name: "Host")!.split(separator: ":").last!
                    return reply(307, ["Set-Cookie: b=2", "Set-Cookie: dom=2; Domain=EXAMPLE.test",
                                       "Location: http://a.example.test:\(port)/final"])
                },
                "/final": { request in
                    log.record(request)
                    return reply(200, [], request.headers["Cookie"].joined(separator: "|"))
                },
            ])) { server in
                let jar = CookieJar(publicSuffixList: PublicSuffixList(parsing: "test\n"))
                let session = makeSession {
                    $0.cookieJar = jar
                    $0.resolveOverrides = ["a.example.test", "b.example.test"].map {
                        ResolveOverride(host: $0, port: server.port, addresses: [IPAddress("127.0.0.1")!])
                    }
                }
                let start = try URI(parsing: "http://a.example.test:\(server.port)/start")
                let task = session.dataTask(with: HTTPRequest(method: .get, uri: start, headers: ["Cookie": "given=1"]))
                task.resume()
                let body = try await task.value
                #expect(body.readableString == "host=a; dom=2")
                #expect(log.cookies(at: "/start") == [["given=1"]])
                #expect(log.cookies(at: "/next") == [["dom=1"]])  // host-only "host=a" stays on a; "given" dropped
                #expect(log.cookies(at: "/final") == [["host=a; dom=2"]])  // "b=2" is b's; dom replaced in place
                #expect(jar.allCookies.map(\.description) == [
                    "host=a; Host=a.example.test; Path=/", "dom=2; Domain=example.test; Path=/", "b=2; Host=b.example.test; Path=/",
                ])
                await session.invalidateAndCancel()
            }
        }

        @Test("the caller's Cookie fields and the jar's cookies go out as one field, the jar's first")
        func oneField() async throws {
            let log = CookieLog()
            try await withServer(scripted([
                "/set": { _ in reply(200, ["Set-Cookie: j=2; Path=/"]) },
                "/see": { request in
                    log.record(request)
                    return reply(200, [])
                },
            ])) { server in
                let session = makeSession { $0.cookieJar = CookieJar() }
                _ = try await session.dataTask(with: server.request("/set")).resumed.value
                var headers = HTTPHeaders()
                headers.add(name: "Cookie", value: "given=1")
                headers.add(name: "X-Other", value: "x")
                headers.add(name: "cookie", value: "more=3")
                _ = try await session.dataTask(with: server.request("/see", headers: headers)).resumed.value
                #expect(log.cookies(at: "/see") == [["j=2; given=1; more=3"]])
                // --offline shows the same field.
                let bytes = try await session.renderedRequest(for: server.request("/see", headers: headers)).readableString
                #expect(bytes.contains("\r\nCookie: j=2; given=1; more=3\r\nX-Other: x\r\n"))
                // An empty Cookie field marks the place of the jar's field and is never sent alone.
                var marked = HTTPHeaders()
                marked.add(name: "X-First", value: "1")
                marked.add(name: "Cookie", value: "")
                marked.add(name: "X-Last", value: "2")
                _ = try await session.dataTask(with: server.request("/see", headers: marked)).resumed.value
                #expect(log.cookies(at: "/see").last == ["j=2"])
                let placed = try await session.renderedRequest(for: server.request("/see", headers: marked)).readableString
                #expect(placed.contains("\r\nX-First: 1\r\nCookie: j=2\r\nX-Last: 2\r\n"))
                let elsewhere = try await session.renderedRequest(for: HTTPRequest(method: .get, uri: try URI(parsing: "http://other.test/"),
                                                                          headers: marked)).readableString
                #expect(!elsewhere.contains("Cookie") && elsewhere.contains("\r\nX-First: 1\r\nX-Last: 2\r\n"))
                await session.invalidateAndCancel()
            }
        }

        @Test("sessions share cookies only when given the same jar; without a jar nothing is stored or sent")
        func sharing() async throws {
            let log = CookieLog()
            try await withServer(scripted([
                "/set": { _ in reply(200, ["Set-Cookie: s=1"]) },
                "/see": { request in
                    log.record(request)
                    return reply(200, [])
                },
            ])) { server in
                let shared = CookieJar()
                var configuration = SessionConfiguration()
                configuration.cookieJar = shared
                let a = Session(configuration: configuration)
                let b = Session(configuration: configuration)  // a copy of the configuration: the same jar
                let c = makeSession { $0.cookieJar = CookieJar() }
                let none = makeSession()
                _ = try await a.dataTask(with: server.request("/set")).resumed.value
                _ = try await none.dataTask(with: server.request("/set")).resumed.value
                for session in [b, c, none] { _ = try await session.dataTask(with: server.request("/see")).resumed.value }
                #expect(log.cookies(at: "/see") == [["s=1"], [], []])
                #expect(shared.allCookies.count == 1)
                for session in [a, b, c, none] { await session.invalidateAndCancel() }
            }
        }

        @Test("the task's observer sees each cookie stored or replaced, after its response head; refused and deleting fields make no event")
        func cookieEvents() async throws {
            try await withServer(scripted([
                "/one": { _ in reply(200, ["Set-Cookie: a=1", "Set-Cookie: nameless"]) },
                "/two": { _ in reply(200, ["Set-Cookie: a=2; Path=/", "Set-Cookie: a=x; Path=/other; Max-Age=0"]) },
            ])) { server in
                let session = makeSession { $0.cookieJar = CookieJar() }
                let events = Mutex<[String]>([])
                for path in ["/one", "/two"] {
                    let task = session.dataTask(with: server.request(path))
                    task.setObserver { event in
                        switch event {
                        case .responseHead(let info): events.withLock { $0.append("head \(info.status)") }
                        case .cookieStored(let cookie, let replaced):
                            events.withLock { $0.append("\(replaced ? "replaced" : "added") \(cookie.name)=\(cookie.value) \(cookie.path)") }
                        default: break
                        }
                    }
                    _ = try await task.resumed.value
                }
                #expect(events.withLock { $0 } == ["head 200", "added a=1 /", "head 200", "replaced a=2 /"])
                await session.invalidateAndCancel()
            }
        }

        @Test("the jar's clock decides expiry: a Max-Age=5 cookie is sent at +4 s and not at +5 s")
        func injectedClock() async throws {
            let log = CookieLog()
            try await withServer(scripted([
                "/set": { _ in reply(200, ["Set-Cookie: short=1; Max-Age=5", "Set-Cookie: long=1; Max-Age=3600"]) },
                "/see": { request in
                    log.record(request)
                    return reply(200, [])
                },
            ])) { server in
                let clock = TestClock()
                let session = makeSession { $0.cookieJar = CookieJar(clock: clock.clock) }
                _ = try await session.dataTask(with: server.request("/set")).resumed.value
                clock.advance(4)
                _ = try await session.dataTask(with: server.request("/see")).resumed.value
                clock.advance(1)
                _ = try await session.dataTask(with: server.request("/see")).resumed.value
                #expect(log.cookies(at: "/see") == [["short=1; long=1"], ["long=1"]])
                await session.invalidateAndCancel()
            }
        }

        @Test("a jar used from many tasks at once stays consistent")
        func concurrentUse() async {
            let jar = CookieJar(limits: CookieLimits(maximumCookiesPerDomain: 10_000, maximumCookies: 10_000))
            await withTaskGroup(of: Void.self) { group in
                for worker in 0..<8 {
                    group.addTask {
                        let uri = try! URI(parsing: "http://w\(worker).example.test/")
                        for i in 0..<250 {
                            jar.receive(setCookie: "c\(i)=\(worker)", for: uri)
                            _ = jar.cookieFieldValue(for: uri)
                        }
                    }
                }
            }
            #expect(jar.allCookies.count == 2000)
            #expect(jar.cookieFieldValue(for: try! URI(parsing: "http://w3.example.test/"))?.hasPrefix("c0=3; c1=3; ") == true)
        }

        @Test("save writes a Netscape file through a temporary file, keeps the old file's mode, and reads back")
        func saveAndLoad() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let path = directory + "/cookies.txt"
            writeFile(path, Array("old contents\n".utf8))
            chmod(path, 0o600)
            let jar = CookieJar()
            jar.receive(setCookie: "a=1; Max-Age=600; HttpOnly", for: try URI(parsing: "https://example.com/p/x"))
            jar.receive(setCookie: "b=2; Domain=example.com; Secure", for: try URI(parsing: "https://www.example.com/"))
            try await jar.save(to: path)
            let text = String(decoding: readFile(path) ?? [], as: UTF8.self)
            #expect(text.hasPrefix(NetscapeCookieFile.header))
            #expect(text.contains("#HttpOnly_example.com\tFALSE\t/p\tFALSE\t"))
            #expect(text.hasSuffix(".example.com\tTRUE\t/\tTRUE\t0\tb\t2\n"))
            var status = stat()
            stat(path, &status)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(listDirectory(directory) == ["cookies.txt"])  // no temporary file left

            let again = CookieJar()
            #expect(try await again.load(contentsOf: path) == 2)
            #expect(again.netscapeFile() == jar.netscapeFile())

            // A failure leaves the file as it was and says what happened.
            await #expect(throws: CookieFileError.self) { try await jar.save(to: directory + "/missing/cookies.txt") }
            do {
                _ = try await again.load(contentsOf: directory + "/absent.txt")
                Issue.record("loading a missing file must throw")
            } catch {
                #expect(error.operation == .read && error.errno.rawValue == ENOENT)
            }
        }
    }
}

private extension DataTask {
    /// The task, resumed.
    var resumed: DataTask {
        resume()
        return self
    }
}
