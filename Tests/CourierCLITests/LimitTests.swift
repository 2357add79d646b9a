// Limits and leniency of response heads, end to end (issue 10 §2, §3): scripted replies from the
// loopback server; each case checks the exit code, the error line, the output bytes and how many
// requests the server saw.

import CourierLoopbackServer
import Glibc
import Testing

private func raw(_ text: String, then end: LoopbackAction = .close) -> LoopbackScript {
    { _ in [.write(Array(text.utf8)), end] }
}

private func rawBytes(_ bytes: [UInt8], then end: LoopbackAction) -> LoopbackScript {
    { _ in [.write(bytes), end] }
}

/// 5,000 or more field lines.
private func manyFields(_ count: Int) -> String {
    var text = "HTTP/1.1 200 OK\r\n"
    for i in 0..<count { text += "X-F\(i): v\r\n" }
    return text + "Content-Length: 2\r\n\r\nok"
}

extension CLITests {
    @Suite("limits and leniency of response heads")
    struct LimitTests {
        static let scripts: [String: LoopbackScript] = [
            "/fields-102": raw(manyFields(101), then: .stall),
            "/fields-5000": raw(manyFields(4_999), then: .stall),
            "/fields-5001": raw(manyFields(5_000)),
            "/endless-head": { _ in [.text("HTTP/1.1 200 OK\r\nX-Endless: "), .writePattern(count: 64 << 20), .close] },
            "/interim-17": raw(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 17) + "HTTP/1.1 204 No Content\r\n\r\n"),
            "/interim-16": raw(String(repeating: "HTTP/1.1 100 Continue\r\n\r\n", count: 16) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
                               then: .stall),
            "/trailers": { _ in
                [.text("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n"),
                 .text(String(repeating: "X-Trailer: " + String(repeating: "t", count: 1000) + "\r\n", count: 20)), .text("\r\n"), .close]
            },
            "/bare-lf": raw("HTTP/1.1 200 OK\nContent-Length: 2\nX-A: b\n\nok", then: .stall),
            "/bare-cr": raw("HTTP/1.1 200 OK\rContent-Length: 2\r\n\r\nok"),
            "/folded": raw("HTTP/1.1 200 OK\r\nX-Folded: a,\r\n b\r\n\tc\r\nContent-Length: 2\r\n\r\nok", then: .stall),
            "/folded-close": raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive,\r\n close\r\n\r\nok", then: .stall),
            "/folded-length": raw("HTTP/1.1 200 OK\r\nContent-Length:\r\n 2\r\n\r\nok"),
            "/status-999": raw("HTTP/1.1 999 Odd\r\nContent-Length: 4\r\n\r\nbody", then: .stall),
            "/status-600": raw("HTTP/1.1 600 Odd\r\nContent-Length: 4\r\n\r\nbody", then: .stall),
            "/status-099": raw("HTTP/1.1 099 Odd\r\nContent-Length: 4\r\n\r\nbody"),
            "/tls-record": rawBytes([0x16, 0x03, 0x01, 0x00, 0x2A, 0x02, 0x00, 0x00, 0x26, 0x03, 0x03], then: .stall),
            "/tls-alert": rawBytes([0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28], then: .stall),
            "/nul": rawBytes([0, 0, 0, 0], then: .stall),
            "/space": rawBytes([0x20], then: .stall),
            "/cut-status": raw("HTTP/1.1 20"),
            "/cut-after-status": raw("HTTP/1.1 200 OK\r\n"),
            "/cut-fields": raw("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"),
            "/nothing": { _ in [.close] },
        ]

        @Test("no field-count limit below 1,000: 102 and 5,000 fields are read; 5,001 is 100 naming maxFieldCount")
        func fieldCount() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            for path in ["/fields-102", "/fields-5000"] {
                let run = courier(["-m", "20", base + path])
                #expect(run.status == 0, "\(path): \(run.stderr)")
                #expect(run.stdoutText == "ok", "\(path)")
            }
            let refused = courier(["-w", "%{http_code}", base + "/fields-5001"])
            #expect(refused.status == 100)
            #expect(refused.stdoutText == "000")
            #expect(refused.stderrLines == ["courier: (100) Too many header fields in the response: more than 5000 (limit maxFieldCount)"])
            #expect(server.requestCount == 3)
            await server.shutdown()
        }

        @Test("an endless head is 100 naming maxHeadSize, with memory bounded while refusing")
        func endlessHead() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            let baseline = courier([base + "/bytes/10"])
            #expect(baseline.status == 0)
            let run = courier(["-m", "60", base + "/endless-head"])
            #expect(run.status == 100)
            #expect(run.stdout.isEmpty)
            #expect(run.stderrLines == ["courier: (100) Too large response head: more than 262144 bytes (limit maxHeadSize, 1xx heads included)"])
            // 64 MiB offered; the client keeps at most the head limit (and its buffers).
            let growth = run.peakResidentKiB - baseline.peakResidentKiB
            #expect(growth < 16 * 1024, "peak RSS \(run.peakResidentKiB) KiB against \(baseline.peakResidentKiB) KiB for a small GET")
            #expect(server.requestCount == 2)
            await server.shutdown()
        }

        @Test("too many interim responses and too large trailers are 100 naming their limits; 16 interim heads are fine")
        func interimAndTrailers() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            let ok = courier(["-m", "20", base + "/interim-16"])
            #expect(ok.status == 0, "\(ok.stderr)")
            #expect(ok.stdoutText == "ok")
            let interim = courier([base + "/interim-17"])
            #expect(interim.status == 100)
            #expect(interim.stderrLines == ["courier: (100) Too many interim (1xx) responses: more than 16 (limit maxInterimResponses)"])
            let trailers = courier([base + "/trailers"])
            #expect(trailers.status == 100)
            #expect(trailers.stderrLines == ["courier: (100) Too large response trailers: more than 16384 bytes (limit maxTrailerSize)"])
            #expect(server.requestCount == 3)
            await server.shutdown()
        }

        @Test("bare LF line ends are read as CRLF; a bare CR is 8")
        func lineEnds() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            let lf = courier(["-m", "20", "-w", " %{http_code} %header{x-a}", base + "/bare-lf"])
            #expect(lf.status == 0, "\(lf.stderr)")
            #expect(lf.stdoutText == "ok 200 b")
            let cr = courier([base + "/bare-cr"])
            #expect(cr.status == 8)
            #expect(cr.stdout.isEmpty)
            #expect(cr.stderrLines == ["courier: (8) Weird server reply: bareCarriageReturn at byte 15"])
            await server.shutdown()
        }

        @Test("obs-fold is one SP (and a folded Connection: close is honoured); folded Content-Length is 8")
        func folding() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            let folded = courier(["-m", "20", "-w", " %header{x-folded}", base + "/folded"])
            #expect(folded.status == 0, "\(folded.stderr)")
            #expect(folded.stdoutText == "ok a, b c")
            // The response said close (folded): the second URL needs a new connection.
            let twice = courier(["-m", "20", "-w", " %{num_connects}", base + "/folded-close", base + "/folded-close"])
            #expect(twice.status == 0, "\(twice.stderr)")
            #expect(twice.stdoutText == "ok 1ok 1")
            let length = courier([base + "/folded-length"])
            #expect(length.status == 8)
            #expect(length.stderrLines == ["courier: (8) Weird server reply: obsoleteLineFolding at byte 34"])
            await server.shutdown()
        }

        @Test("status codes 100–999: 600 and 999 are delivered; -f fails 999 with 22; 099 is 8")
        func statusCodes() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            for (path, code) in [("/status-600", "600"), ("/status-999", "999")] {
                let run = courier(["-m", "20", "-w", " %{http_code}", base + path])
                #expect(run.status == 0, "\(path): \(run.stderr)")
                #expect(run.stdoutText == "body \(code)")
            }
            let failed = courier(["-f", "-m", "20", base + "/status-999"])
            #expect(failed.status == 22)
            #expect(failed.stdout.isEmpty)
            #expect(failed.stderrLines == ["courier: (22) The requested URL returned error: 999"])
            let invalid = courier([base + "/status-099"])
            #expect(invalid.status == 8)
            #expect(invalid.stderrLines == ["courier: (8) Weird server reply: invalid status line at byte 9"])
            await server.shutdown()
        }

        @Test("not HTTP (a TLS record or alert, NUL bytes, a lone space) is 8 at once, not after a timeout")
        func notHTTP() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            for path in ["/tls-record", "/tls-alert", "/nul", "/space"] {
                let start = ContinuousClock.now
                // The server keeps the connection open: only the bytes can end the transfer.
                let run = courier(["-m", "30", base + path])
                let elapsed = ContinuousClock.now - start
                #expect(run.status == 8, "\(path): \(run.stderr)")
                #expect(run.stderrLines == ["courier: (8) Weird server reply: not an HTTP/1.x status line (byte 0)"], "\(path)")
                #expect(elapsed < .seconds(5), "\(path) took \(elapsed)")
            }
            #expect(server.requestCount == 4)
            await server.shutdown()
        }

        @Test("closed inside the status line, right after it or inside the fields: 8; before any byte: 52")
        func cutHeads() async throws {
            let server = try await LoopbackServer.start(.init(scripts: LimitTests.scripts))
            let base = "http://127.0.0.1:\(server.port)"
            for (path, bytes) in [("/cut-status", 11), ("/cut-after-status", 17), ("/cut-fields", 36)] {
                let run = courier([base + path])
                #expect(run.status == 8, "\(path): \(run.stderr)")
                #expect(run.stderrLines == ["courier: (8) Weird server reply: the connection closed inside the response head (after \(bytes) bytes)"],
                        "\(path)")
            }
            let nothing = courier([base + "/nothing"])
            #expect(nothing.status == 52)
            #expect(nothing.stderrLines == ["courier: (52) Empty reply from server"])
            #expect(server.requestCount == 4)
            await server.shutdown()
        }
    }
}
