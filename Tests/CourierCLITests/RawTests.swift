// Issue 19 §3: --raw (no transfer or content decoding: a chunked body is written with its framing,
// a compressed one as it came, as curl does) and --ignore-content-length (the body runs to the
// close). Scripted replies, so the exact wire bytes are known.

import CourierLoopbackServer
import Glibc
import Testing

extension CLITests {
    @Suite("--raw and --ignore-content-length")
    struct RawTests {
        static let chunkedBody = "4;name=value\r\nwiki\r\n5\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n"

        func server() async throws -> LoopbackServer {
            try await LoopbackServer.start(.init(scripts: [
                "/chunked": { _ in [.write(Array(("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + RawTests.chunkedBody).utf8))] },
                "/longer": { _ in [.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef".utf8)), .close] },
                "/shorter": { _ in [.write(Array("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort".utf8)), .close] },
            ]))
        }

        @Test("--raw writes a chunked body with its framing, extensions and trailers; the connection is still reused")
        func rawChunked() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let url = "http://127.0.0.1:\(server.port)/chunked"
            let run = courier(["--raw", "-w", "|%{num_connects}\n", url, url])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == Self.chunkedBody + "|1\n" + Self.chunkedBody + "|0\n")
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let file = courier(["--raw", "-o", directory + "/raw", url])
            #expect(file.status == 0, "\(file.stderr)")
            #expect(readFile(directory + "/raw") == Array(Self.chunkedBody.utf8))
            let decoded = courier([url])
            #expect(decoded.stdoutText == "wikipedia")
        }

        @Test("--raw --compressed: the gzip bytes as they came; --compressed alone decodes them")
        func rawCompressed() async throws {
            let server = try await LoopbackServer.start()
            defer { Task { await server.shutdown() } }
            let url = "http://127.0.0.1:\(server.port)/gzip/5000"
            let raw = courier(["--raw", "--compressed", url])
            #expect(raw.status == 0, "\(raw.stderr)")
            #expect(raw.stdout.prefix(2) == [0x1f, 0x8b], "gzip's magic: the body is not decoded")
            #expect(raw.stdout.count < 5000)
            let decoded = courier(["--compressed", url])
            #expect(decoded.status == 0 && decoded.stdout.count == 5000, "\(decoded.stderr)")
        }

        @Test("--ignore-content-length reads to the close, longer or shorter than announced; without it: the announced bytes, or 18")
        func ignoreContentLength() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let base = "http://127.0.0.1:\(server.port)"
            let longer = courier(["--ignore-content-length", base + "/longer"])
            #expect(longer.status == 0 && longer.stdoutText == "abcdef", "\(longer.stderr)")
            let shorter = courier(["--ignore-content-length", base + "/shorter"])
            #expect(shorter.status == 0 && shorter.stdoutText == "short", "\(shorter.stderr)")
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let file = courier(["--ignore-content-length", "-o", directory + "/body", base + "/shorter"])
            #expect(file.status == 0, "\(file.stderr)")
            #expect(readFile(directory + "/body") == Array("short".utf8))
            #expect(courier([base + "/longer"]).stdoutText == "abc")
            #expect(courier([base + "/shorter"]).status == 18)
            // A chunked body is still decoded.
            #expect(courier(["--ignore-content-length", base + "/chunked"]).stdoutText == "wikipedia")
        }
    }
}
