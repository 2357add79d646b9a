// Limits and timeouts (total, idle, maximumDownloadSize, maximumBodySize), redirect rules against
// scripted servers (loops, the limit, disabled redirects, 303 and 307 after a POST), and the 401
// challenge.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierLoopbackServer
import CourierURL
import Testing

extension SessionTests {
    @Suite struct Limits {
        @Test func totalTimeout() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 100_000, sent: 10)])) { server in
                let session = makeSession { $0.totalTimeout = .milliseconds(400) }
                let started = ContinuousClock.now
                let error = failure(await session.dataTask(with: server.request("/slow")).valueResult())
                let elapsed = ContinuousClock.now - started
                #expect(error?.code == .connection)
                #expect(error?.connectionError?.code == .totalTimeout)
                #expect(error?.curlExitCode == 28)
                #expect(error?.afNetworkingCode == -1001)
                let lowerBound: Duration = .milliseconds(390)
                let upperBound: Duration = .seconds(3)
                #expect(elapsed >= lowerBound, "\(elapsed)")
                #expect(elapsed < upperBound, "\(elapsed)")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aRequestTimeoutBoundsItsTask() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 100_000, sent: 10)])) { server in
                let session = makeSession()
                var request = server.request("/slow")
                request.timeout = .milliseconds(300)
                let error = failure(await session.dataTask(with: request).valueResult())
                #expect(error?.connectionError?.code == .totalTimeout)
                #expect(error?.curlExitCode == 28)
                // Other requests of the session are not bound by it.
                let other = await session.dataTask(with: server.request("/bytes/10")).response
                #expect(other.body?.readableBytes == 10)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func totalTimeoutOfADownloadRemovesTheTemporaryFile() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer(scripted(["/slow": { _ in [.text("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"), .writePattern(count: 10), .stall] }])) { server in
                let session = makeSession { $0.totalTimeout = .milliseconds(300) }
                let result = await session.downloadTask(with: server.request("/slow")) { _, _ in directory + "/out" }.response
                #expect(failure(result.result)?.connectionError?.code == .totalTimeout)
                #expect(listDirectory(directory).isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func idleTimeout() async throws {
            try await withServer(scripted(["/slow": stallingBody(length: 100_000, sent: 10)])) { server in
                let session = makeSession { $0.idleTimeout = .milliseconds(300) }
                let error = failure(await session.dataTask(with: server.request("/slow")).valueResult())
                #expect(error?.connectionError?.code == .idleTimeout)
                #expect(error?.curlExitCode == 28)
                await session.finishTasksAndInvalidate()
            }
        }

        static let downloadPaths: [String] = ["/bytes/100000", "/chunked/100000"]
        static let bodyPaths: [String] = ["/bytes/200000", "/chunked/200000"]

        @Test(arguments: downloadPaths)
        func maximumDownloadSize(path: String) async throws {
            try await withServer { server in
                let session = makeSession { $0.maximumDownloadSize = 50_000 }
                let response = await session.dataTask(with: server.request(path)).onlyResponse()
                let error = failure(response.result)
                #expect(error?.code == .fileTooLarge)
                #expect(error?.curlExitCode == 63)
                #expect(error?.afNetworkingCode == -1103)
                // Exactly at the limit is fine.
                let fits = try await session.dataTask(with: server.request(path.replacingOccurrences("100000", "50000"))).value
                #expect(fits.readableBytes == 50_000)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func maximumDownloadSizeOfADownloadTask() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession { $0.maximumDownloadSize = 1000 }
                let result = await session.downloadTask(with: server.request("/chunked/5000?chunk=100")) { _, _ in directory + "/x" }.response
                #expect(failure(result.result)?.curlExitCode == 63)
                #expect(listDirectory(directory).isEmpty)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test(arguments: bodyPaths)
        func maximumBodySize(path: String) async throws {
            try await withServer { server in
                let session = makeSession { $0.maximumBodySize = 100_000 }
                let error = failure(await session.dataTask(with: server.request(path)).valueResult())
                #expect(error?.code == .bodyTooLarge)
                #expect(error?.curlExitCode == 63)
                // A stream task is not bound by the in-memory limit.
                let stream = try await session.streamTask(with: server.request(path)).value.body.collect(upTo: 1 << 20)
                #expect(stream.readableBytes == 200_000)
                await session.finishTasksAndInvalidate()
            }
        }
    }

    @Suite struct Redirects {
        static let scripts: [String: LoopbackScript] = [
            "/self": { _ in [.response(status: 302, headers: ["Location: /self"])] },
            "/ping": { _ in [.response(status: 302, headers: ["Location: /pong"])] },
            "/pong": { _ in [.response(status: 302, headers: ["Location: /ping"])] },
            "/hop": { request in
                // /hop?n=K redirects to /hop?n=K-1 … /hop?n=0 answers.
                let n = Int(request.target.split(separator: "=").last ?? "0") ?? 0
                return n == 0 ? [.response(body: "landed")] : [.response(status: 302, headers: ["Location: /hop?n=\(n - 1)"])]
            },
            "/see-other": { _ in [.response(status: 303, headers: ["Location: /echo"])] },
            "/found": { _ in [.response(status: 302, headers: ["Location: /echo"])] },
            "/temporary": { _ in [.response(status: 307, headers: ["Location: /echo"])] },
            "/permanent": { _ in [.response(status: 308, headers: ["Location: /echo"])] },
            "/ftp": { _ in [.response(status: 302, headers: ["Location: ftp://127.0.0.1/x"])] },
        ]

        @Test func aRedirectToItselfIsALoop() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                for path in ["/self", "/ping"] {
                    let error = failure(await session.dataTask(with: server.request(path)).valueResult())
                    #expect(error?.code == .redirectLoop)
                    #expect(error?.curlExitCode == 47)
                    #expect(error?.afNetworkingCode == -1007)
                }
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theLimit() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.redirectLimit = 10 }
                let ok = await session.dataTask(with: server.request("/hop?n=10")).onlyResponse()
                #expect(ok.result.successValue?.readableString == "landed")
                #expect(ok.metrics.redirectCount == 10)
                let error = failure(await session.dataTask(with: server.request("/hop?n=11")).valueResult())
                #expect(error?.code == .tooManyRedirects)
                #expect(error?.curlExitCode == 47)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func disabledRedirectsDeliverThe3xx() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.followsRedirects = false }
                var serializer = DataResponseSerializer()
                serializer.acceptableStatusCodes = nil
                let response = await session.dataTask(with: server.request("/found"), serializer: serializer).onlyResponse()
                #expect(response.head?.status == 302)
                #expect(response.head?.headers.first(name: "Location") == "/echo")
                #expect(response.metrics.redirectCount == 0)
                #expect(server.requestCount == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aRefusingRedirectHandlerDeliversThe3xx() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.redirectHandler = { _ in .refuse } }
                var serializer = DataResponseSerializer()
                serializer.acceptableStatusCodes = nil
                let response = await session.dataTask(with: server.request("/found"), serializer: serializer).onlyResponse()
                #expect(response.head?.status == 302)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aRedirectToAnotherSchemeIsRefused() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                #expect(failure(await session.dataTask(with: server.request("/ftp")).valueResult())?.code == .unsupportedScheme)
                await session.finishTasksAndInvalidate()
            }
        }

        static let postCases: [(String, String, Bool)] = [
            ("/see-other", "GET", false), ("/found", "GET", false), ("/temporary", "POST", true), ("/permanent", "POST", true),
        ]

        @Test(arguments: postCases)
        func afterAPOST(path: String, method: String, keepsBody: Bool) async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                let request = try FormRequestSerializer().request(method: .post, uri: server.url(path), parameters: ["k": "v"])
                let json = try await session.dataTask(with: request, serializer: JSONResponseSerializer()).value
                #expect(json?["method"]?.stringValue == method)
                let expectedBody: String = keepsBody ? "k=v" : ""
                let hasType: Bool = echoedHeader(json, "Content-Type") != nil
                let hasLength: Bool = echoedHeader(json, "Content-Length") != nil
                #expect(json?["body"]?.stringValue == expectedBody)
                #expect(hasType == keepsBody)
                #expect(hasLength == keepsBody)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func a307ReplaysAStreamBodyFromItsStart() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                let stream = PatternStream(count: 20_000)
                let task = session.uploadTask(with: server.request(.put, "/temporary"), from: .stream(length: 20_000, stream),
                                              serializer: JSONResponseSerializer())
                let json = try await task.value
                #expect(json?["method"]?.stringValue == "PUT")
                #expect(json?["bodyLength"]?.numberValue?.description == "20000")
                #expect(json?["body"]?.stringValue.map { Array($0.utf8) } == pattern(20_000))
                #expect(stream.readers.count == 2)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func credentialsStayOnTheirOrigin() async throws {
            // 127.0.0.1 and localhost on the same port are two origins.
            let port = Recorder<UInt16>()
            let scripts: [String: LoopbackScript] = [
                "/away": { _ in [.response(status: 302, headers: ["Location: http://localhost:\(port.all[0])/echo"])] },
                "/home": { _ in [.response(status: 302, headers: ["Location: /echo"])] },
            ]
            try await withServer(scripted(scripts)) { server in
                port.append(server.port)
                let session = makeSession { $0.credential = Credential(user: "user", password: "secret") }
                let home = try await session.dataTask(with: server.request("/home", headers: ["Cookie": "a=1"]), serializer: JSONResponseSerializer()).value
                #expect(echoedHeader(home, "Authorization") == Credential(user: "user", password: "secret").basicAuthorization)
                #expect(echoedHeader(home, "Cookie") == "a=1")
                let away = try await session.dataTask(with: server.request("/away", headers: ["Cookie": "a=1"]), serializer: JSONResponseSerializer()).value
                #expect(echoedHeader(away, "Authorization") == nil)
                #expect(echoedHeader(away, "Cookie") == nil)
                #expect(echoedHeader(away, "Host") == "localhost:\(server.port)")
                await session.finishTasksAndInvalidate()
            }
        }
    }

    @Suite struct Authentication {
        static let scripts: [String: LoopbackScript] = [
            "/private": { request in
                if request.headers.first(name: "Authorization") == Credential(user: "u", password: "p").basicAuthorization {
                    return [.response(body: "welcome")]
                }
                return [.response(status: 401, headers: ["WWW-Authenticate: Basic realm=\"r\""], body: "who are you")]
            },
        ]

        @Test func thePreemptiveCredential() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.credential = Credential(user: "u", password: "p") }
                let got = try await session.dataTask(with: server.request("/private")).value
                #expect(got.readableString == "welcome")
                #expect(server.requestCount == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theChallengeHandlerAnswersA401() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let asked = Recorder<Int>()
                let session = makeSession {
                    $0.challengeHandler = { challenge in
                        guard case .httpAuthentication(let response, _, let failures) = challenge else { return .performDefaultHandling }
                        asked.append(response.status * 10 + failures)
                        return .useCredential(Credential(user: "u", password: "p"))
                    }
                }
                let response = await session.dataTask(with: server.request("/private")).onlyResponse()
                #expect(response.result.successValue?.readableString == "welcome")
                #expect(asked.all == [4010])
                #expect(response.metrics.transactions.count == 2)
                #expect(response.metrics.connectCount == 1)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aWrongCredentialDeliversTheSecond401() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.challengeHandler = { _ in .useCredential(Credential(user: "u", password: "wrong")) } }
                let response = await session.dataTask(with: server.request("/private")).onlyResponse()
                #expect(response.head?.status == 401)
                #expect(response.body?.readableString == "who are you")
                #expect(server.requestCount == 2)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func cancellingTheChallenge() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.challengeHandler = { _ in .cancelAuthenticationChallenge } }
                let error = failure(await session.dataTask(with: server.request("/private")).valueResult())
                #expect(error?.code == .cancelled)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}

extension String {
    func replacingOccurrences(_ target: String, _ replacement: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: target) {
            out += rest[..<range.lowerBound] + replacement
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
