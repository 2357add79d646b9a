// The library side of issue 10 §3–§5: exceeded parser limits are SessionErrors that map to curl's
// 100 and name the limit, a cut head is 8, response heads are bounded over a redirect chain
// (`maximumTotalHeadSize`), Location rules (encoded, empty, conflicting), and a 416 that proves a
// partial download complete.

import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import Synchronization
import Testing

private func raw(_ text: String) -> LoopbackScript { { _ in [.text(text), .close] } }

extension SessionTests {
    @Suite struct Hardening {
        @Test(arguments: [
            ("/fields", HTTPParserError.Code.tooManyFields, "Too many header fields in the response: more than 3 (limit maxFieldCount)"),
            ("/head", .headTooLarge, "Too large response head: more than 200 bytes (limit maxHeadSize, 1xx heads included)"),
            ("/interim", .tooManyInterimResponses, "Too many interim (1xx) responses: more than 1 (limit maxInterimResponses)"),
            ("/trailers", .trailersTooLarge, "Too large response trailers: more than 64 bytes (limit maxTrailerSize)"),
        ])
        func limitsAre100AndNameTheirLimit(path: String, code: HTTPParserError.Code, message: String) async throws {
            let scripts: [String: LoopbackScript] = [
                "/fields": raw("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nContent-Length: 0\r\n\r\n"),
                "/head": raw("HTTP/1.1 200 OK\r\nX: " + String(repeating: "x", count: 300) + "\r\n\r\n"),
                "/interim": raw("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 204 No Content\r\n\r\n"),
                "/trailers": raw("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\nX: " + String(repeating: "t", count: 100) + "\r\n\r\n"),
            ]
            try await withServer(scripted(scripts)) { server in
                let session = makeSession {
                    $0.parserLimits = HTTP1ParserLimits(maxHeadSize: 200, maxFieldCount: 3, maxInterimResponses: 1, maxTrailerSize: 64)
                }
                let error = failure(await session.dataTask(with: server.request(path)).valueResult())
                #expect(error?.code == .connection)
                #expect(error?.connectionError?.parserError?.code == code)
                #expect(error?.curlExitCode == 100)
                #expect(error?.message == message)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func aHeadCutShortIs8AndNothingIs52() async throws {
            try await withServer(scripted(["/cut": raw("HTTP/1.1 200 OK\r\n"), "/none": { _ in [.close] }])) { server in
                let session = makeSession()
                let cut = failure(await session.dataTask(with: server.request("/cut")).valueResult())
                #expect(cut?.connectionError?.parserError?.code == .incompleteHead)
                #expect(cut?.curlExitCode == 8)
                let none = failure(await session.dataTask(with: server.request("/none")).valueResult())
                #expect(none?.curlExitCode == 52)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func responseHeadsAreBoundedOverARedirectChain() async throws {
            let requests = Atomic<Int>(0)
            let hop: LoopbackScript = { request in
                requests.add(1, ordering: .relaxed)
                let n = Int(request.target.split(separator: "=").last ?? "0") ?? 0
                return [.text("HTTP/1.1 302 Found\r\nX-Pad: " + String(repeating: "p", count: 300) + "\r\nLocation: /hop?n=\(n + 1)\r\nContent-Length: 0\r\n\r\n")]
            }
            try await withServer(scripted(["/hop": hop])) { server in
                let session = makeSession { $0.maximumTotalHeadSize = 1000 }
                let task = session.dataTask(with: server.request("/hop?n=0"))
                let error = failure(await task.valueResult())
                #expect(error?.code == .responseHeadsTooLarge)
                #expect(error?.curlExitCode == 100)
                #expect(error?.message.hasSuffix("more than 1000 (limit maximumTotalHeadSize)") == true, "\(String(describing: error?.message))")
                // Three heads of about 360 bytes exceed 1,000: the third response is the last one asked for.
                #expect(requests.load(ordering: .relaxed) == 3)
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func locationRules() async throws {
            let seen = Recorder<String>()
            let scripts: [String: LoopbackScript] = [
                "/encoded": { _ in [.write(Array("HTTP/1.1 301 Moved\r\nLocation: /t a?x=\u{E9}\r\nContent-Length: 0\r\n\r\n".utf8))] },
                "/empty": { _ in [.text("HTTP/1.1 302 Found\r\nLocation: \r\nContent-Length: 4\r\n\r\nhere")] },
                "/two": { _ in [.text("HTTP/1.1 302 Found\r\nLocation: /t\r\nLocation: /u\r\nContent-Length: 0\r\n\r\n")] },
                "/t%20a": { request in seen.append(request.target); return [.response(body: "t")] },
                "/t": { request in seen.append(request.target); return [.response(body: "t")] },
                "/u": { request in seen.append(request.target); return [.response(body: "u")] },
            ]
            try await withServer(scripted(scripts)) { server in
                let session = makeSession()
                let encoded = await session.dataTask(with: server.request("/encoded")).response
                #expect(encoded.head?.status == 200)
                #expect(seen.all == ["/t%20a?x=%C3%A9"])
                let empty = await session.dataTask(with: server.request("/empty")).response
                #expect(empty.head?.status == 302)
                #expect(empty.body?.readableString == "here")
                let two = failure(await session.dataTask(with: server.request("/two")).valueResult())
                #expect(two?.code == .conflictingLocations)
                #expect(two?.curlExitCode == 8)
                #expect(seen.all == ["/t%20a?x=%C3%A9"], "neither Location was requested")
                await session.finishTasksAndInvalidate()
            }
        }

        @Test func a416NamingTheSizeOnDiskCompletesTheDownload() async throws {
            let directory = makeTemporaryDirectory()
            defer { removeTree(directory) }
            let script: LoopbackScript = { _ in [.text("HTTP/1.1 416 Range Not Satisfiable\r\nContent-Range: bytes */100\r\nContent-Length: 9\r\n\r\nnot here!")] }
            try await withServer(scripted(["/file": script])) { server in
                let session = makeSession()
                // The kept partial file moves to the destination, as a completed resume would.
                let partial = directory + "/partial"
                writeFile(partial, pattern(100))
                let resume = ResumeData(url: server.url("/file").description, entityTag: "\"x\"", bytesOnDisk: 100, partialPath: partial)
                let destination = directory + "/out.bin"
                let result = await session.downloadTask(resumingWith: resume) { _, _ in destination }.response
                #expect(result.result.successValue == destination)
                #expect(result.head?.status == 416)
                #expect(readFile(destination) == pattern(100))
                #expect(listDirectory(directory) == ["out.bin"])
                // A partial file that is shorter than the resource is not complete: 33, untouched.
                writeFile(partial, pattern(60))
                let short = ResumeData(url: server.url("/file").description, bytesOnDisk: 60, partialPath: partial)
                let refused = await session.downloadTask(resumingWith: short) { _, _ in destination }.response
                #expect(failure(refused.result)?.code == .rangeNotSatisfiable)
                #expect(failure(refused.result)?.curlExitCode == 33)
                #expect(readFile(partial) == pattern(60))
                await session.finishTasksAndInvalidate()
            }
        }
    }
}
