// Session handlers settable at any time (AFURLSessionManager's blocks): each is set on a session
// that already exists and has run a task, and changes what the next task does.

import Courier
import CourierBytes
import CourierLoopbackServer
import CourierPosix
import CourierTestSupport
import CourierTLS
import Glibc
import Testing

/// An error of the caller's own, to check that it reaches the caller as itself.
enum HookTestError: Error, Equatable { case refusedByTheHandler }

extension SessionTests {
    @Suite struct Hooks {
        static let scripts: [String: LoopbackScript] = [
            "/found": { _ in [.response(status: 302, headers: ["Location: /landed"], body: "moved")] },
            "/landed": { _ in [.response(body: "landed")] },
            "/private": { request in
                if request.headers.first(name: "Authorization") == Credential(user: "u", password: "p").basicAuthorization {
                    return [.response(body: "welcome")]
                }
                return [.response(status: 401, headers: ["WWW-Authenticate: Basic realm=\"r\""], body: "who are you")]
            },
        ]

        @Test func aRedirectHandlerSetLaterDecidesTheNextRedirects() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                let got1 = try await session.dataTask(with: server.request("/found")).value
                #expect(got1.readableString == "landed")
                let asked = Recorder<Int>()
                session.setRedirectHandler { redirect in
                    asked.append(redirect.status)
                    return .refuse
                }
                let refused = await session.dataTask(with: server.request("/found")).response
                #expect(refused.head?.status == 302, "a refused redirect delivers the 3xx itself")
                #expect(refused.body?.readableString == "moved")
                #expect(asked.all == [302])
                session.setRedirectHandler(nil)
                let got2 = try await session.dataTask(with: server.request("/found")).value
                #expect(got2.readableString == "landed")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aChallengeHandlerSetLaterAnswersThe401() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession()
                #expect(await session.dataTask(with: server.request("/private")).response.head?.status == 401)
                session.setChallengeHandler { _ in .useCredential(Credential(user: "u", password: "p")) }
                let got3 = try await session.dataTask(with: server.request("/private")).value
                #expect(got3.readableString == "welcome")
                session.setChallengeHandler(nil)
                #expect(await session.dataTask(with: server.request("/private")).response.head?.status == 401)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aChallengeHandlerFailsTheTaskWithItsOwnError() async throws {
            try await withServer(scripted(Self.scripts)) { server in
                let session = makeSession { $0.challengeHandler = { _ in .fail(HookTestError.refusedByTheHandler) } }
                let error = failure(await session.dataTask(with: server.request("/private")).valueResult())
                #expect(error?.underlying as? HookTestError == .refusedByTheHandler)
                #expect(error?.message.contains("the challenge handler failed the task") == true)
                // The connection the 401 came on is not reused half-read: the next task works.
                session.setChallengeHandler(nil)
                #expect(await session.dataTask(with: server.request("/private")).response.head?.status == 401)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aServerTrustHandlerSetLaterAppliesToNewConnections() async throws {
            try await withServer(.init(tls: TestTLS.server)) { server in
                let session = makeSession { $0.tls = TestTLS.client }
                let got4 = try await session.dataTask(with: server.request("/bytes/10")).value
                #expect(got4.readableBytes == 10)
                let asked = Recorder<String>()
                session.setChallengeHandler { challenge in
                    guard case .serverTrust(let trust) = challenge else { return .performDefaultHandling }
                    asked.append(trust.host)
                    return .fail(HookTestError.refusedByTheHandler)
                }
                // A new session-less connection is needed: a fresh session with the same handler
                // set after creation, so that no pooled connection is reused.
                let fresh = makeSession { $0.tls = TestTLS.client }
                fresh.setChallengeHandler { _ in .fail(HookTestError.refusedByTheHandler) }
                let error = failure(await fresh.dataTask(with: server.request("/bytes/10")).valueResult())
                #expect(error?.underlying as? HookTestError == .refusedByTheHandler)
                #expect(error?.code == .connection)
                // The first session's pooled connection was trusted before: it is reused as it is.
                let got5 = try await session.dataTask(with: server.request("/bytes/10")).value
                #expect(got5.readableBytes == 10)
                #expect(asked.all.isEmpty)
                await session.finishTasksAndInvalidate()
                await fresh.finishTasksAndInvalidate()
            }
        }

        @Test func theSessionsDownloadDestinationServesTasksWithoutOne() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            try await withServer { server in
                let session = makeSession()
                session.setDownloadDestination { _, uri in DownloadDestination(path: directory + "/session-" + (uri.path.split(separator: "/").last.map(String.init) ?? "x")) }
                let fromSession = await session.downloadTask(with: server.request("/bytes/1000")).response
                #expect(fromSession.result.successValue == directory + "/session-1000")
                #expect(readFile(directory + "/session-1000") == pattern(1000))
                // A task's own destination wins.
                let own = await session.downloadTask(with: server.request("/bytes/20")) { _, _ in directory + "/own" }.response
                #expect(own.result.successValue == directory + "/own")
                #expect(readFile(directory + "/own") == pattern(20))
                #expect(!listDirectory(directory).contains("session-20"))
                // Neither: a new file in the temporary directory, named in the result.
                session.setDownloadDestination(nil)
                let loose = await session.downloadTask(with: server.request("/bytes/30")).response
                let path = try #require(loose.result.successValue)
                let temporary = ProcessEnvironment.value("TMPDIR").flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
                #expect(path.hasPrefix(temporary.hasSuffix("/") ? temporary : temporary + "/"))
                #expect(path.contains("courier-download-"))
                #expect(readFile(path) == pattern(30))
                unlink(path)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theResponseHandlerMayCancelADataTaskBeforeItsBody() async throws {
            try await withServer { server in
                let session = makeSession()
                let seen = Recorder<Int>()
                session.setResponseHandler { received in
                    seen.append(received.head.status)
                    return received.url.path == "/bytes/400000" ? .cancel : .allow
                }
                let refused = failure(await session.dataTask(with: server.request("/bytes/400000")).valueResult())
                #expect(refused?.code == .cancelled)
                #expect(refused?.afNetworkingCode == -999)
                let got6 = try await session.dataTask(with: server.request("/bytes/10")).value
                #expect(got6.readableBytes == 10)
                #expect(seen.all == [200, 200])
                session.setResponseHandler(nil)
                let got7 = try await session.dataTask(with: server.request("/bytes/400000")).value
                #expect(got7.readableBytes == 400_000)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func theCompletionHandlerSeesEveryTask() async throws {
            try await withServer { server in
                let session = makeSession()
                let completions = Recorder<(Int, SessionError.Code?)>()
                session.setTaskCompletionHandler { completion in completions.append((completion.identifier, completion.error?.code)) }
                let good = session.dataTask(with: server.request("/bytes/10"))
                _ = try await good.value
                let bad = session.dataTask(with: server.request("/status/404"))
                _ = await bad.response
                let download = session.downloadTask(with: server.request("/bytes/5")) { _, _ in "/dev/null" }
                _ = await download.response
                let ids = completions.all.map(\.0)
                #expect(ids == [good.identifier, bad.identifier, download.identifier])
                let badResult = (await bad.response).result
                let badError: SessionError.Code? = { if case .failure(let error) = badResult { return error.code } else { return nil } }()
                #expect(completions.all.map(\.1) == [nil, badError, nil], "each completion carries its task's error")
                session.setTaskCompletionHandler(nil)
                _ = try await session.dataTask(with: server.request("/bytes/1")).value
                #expect(completions.all.count == 3)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}

extension SessionTests {
    @Suite struct Smells {
        /// A resume record whose URL does not parse fails its task at once; nothing is requested
        /// from a placeholder host.
        @Test func aResumeRecordWithABadURLFailsTheTask() async throws {
            try await withServer { server in
                let session = makeSession()
                let record = ResumeData(url: "http://[not a host/x", bytesOnDisk: 5, partialPath: "/nonexistent/partial")
                let result = await session.downloadTask(resumingWith: record) { _, _ in "/dev/null" }.response
                let error = failure(result.result)
                #expect(error?.code == .invalidURL)
                #expect(error?.message.contains("http://[not a host/x") == true)
                #expect(result.resumeData == record, "the record is handed back for the caller to inspect")
                #expect(server.requestCount == 0)
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
