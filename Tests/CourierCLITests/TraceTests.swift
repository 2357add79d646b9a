// Issue 14 §4: --trace, --trace-ascii and --trace-time as curl 7.88 writes them. Scripted replies,
// so the wire bytes are known: records and their byte counts, the hex and text dumps (the crafted
// body's dumps are curl 7.88's own output for the same bytes), one record per received head line
// (a line cut between reads too), chunk-size lines in Recv data, request bodies as Send data (a
// file body too: no sendfile while tracing), the -v/--trace precedence and the time stamps. When
// curl is installed, its dumps of the same reply are compared as well.

import CourierLoopbackServer
import Glibc
import Testing

extension CLITests {
    @Suite("--trace, --trace-ascii, --trace-time")
    struct TraceTests {
        /// Bytes that put CRLFs at the text dump's line width, a bare CR and LF, DEL and bytes above
        /// 0x7F.
        static let crafted: [UInt8] = Array(String(repeating: "A", count: 62).utf8) + [13, 10]
            + Array(String(repeating: "B", count: 63).utf8) + [13, 10]
            + Array(String(repeating: "C", count: 10).utf8) + [13, 0x78, 10, 0x7F, 0x80, 0xFF, 0x00, 0x7E, 0x20]
            + Array(String(repeating: "D", count: 64).utf8) + [13, 10, 13, 10, 0x45, 0x45, 0x45]

        /// curl 7.88's --trace-ascii of `crafted` as one read.
        static let craftedASCII = [
            "<= Recv data, 219 bytes (0xdb)",
            "0000: AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
            "0040: BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB",
            "0081: CCCCCCCCCC.x.....~ DDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDDD",
            "00c1: DDDDDDDDDDDDDDDDDDD",
            "00d6: ",
            "00d8: EEE",
        ]

        /// curl 7.88's --trace of `crafted` as one read.
        static let craftedHex = [
            "<= Recv data, 219 bytes (0xdb)",
            "0000: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 AAAAAAAAAAAAAAAA",
            "0010: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 AAAAAAAAAAAAAAAA",
            "0020: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 41 AAAAAAAAAAAAAAAA",
            "0030: 41 41 41 41 41 41 41 41 41 41 41 41 41 41 0d 0a AAAAAAAAAAAAAA..",
            "0040: 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 BBBBBBBBBBBBBBBB",
            "0050: 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 BBBBBBBBBBBBBBBB",
            "0060: 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 BBBBBBBBBBBBBBBB",
            "0070: 42 42 42 42 42 42 42 42 42 42 42 42 42 42 42 0d BBBBBBBBBBBBBBB.",
            "0080: 0a 43 43 43 43 43 43 43 43 43 43 0d 78 0a 7f 80 .CCCCCCCCCC.x...",
            "0090: ff 00 7e 20 44 44 44 44 44 44 44 44 44 44 44 44 ..~ DDDDDDDDDDDD",
            "00a0: 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 DDDDDDDDDDDDDDDD",
            "00b0: 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 DDDDDDDDDDDDDDDD",
            "00c0: 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 44 DDDDDDDDDDDDDDDD",
            "00d0: 44 44 44 44 0d 0a 0d 0a 45 45 45                DDDD....EEE",
        ]

        func server() async throws -> LoopbackServer {
            try await LoopbackServer.start(.init(scripts: [
                // The head, then (after a pause, so it is a read of its own) the crafted body.
                "/crafted": { _ in
                    [.text("HTTP/1.1 200 OK\r\nContent-Length: 219\r\n\r\n"), .pause(.milliseconds(200)), .write(TraceTests.crafted)]
                },
                // A head line cut between two reads, and chunk-size lines in two more reads.
                "/split": { _ in
                    [.text("HTTP/1.1 200 OK\r\nTransfer-Enc"), .pause(.milliseconds(150)),
                     .text("oding: chunked\r\n\r\n4\r\nwiki\r\n"), .pause(.milliseconds(150)),
                     .text("5\r\npedia\r\n0\r\n\r\n")]
                },
            ]))
        }

        /// One trace record: its title line and its dump lines.
        struct Record {
            var title: String
            var lines: [String]
            /// The bytes of a --trace dump, read back from its hex columns.
            var hexBytes: [UInt8] {
                lines.flatMap { line -> [UInt8] in
                    let columns = line.dropFirst(6).prefix(48)
                    return columns.split(separator: " ").compactMap { UInt8($0, radix: 16) }
                }
            }
            /// The count in "N bytes (0xN)", checked against the hex form.
            var count: Int? {
                guard let comma = title.firstRange(of: ", "), let space = title[comma.upperBound...].firstIndex(of: " ") else { return nil }
                let decimal = Int(title[comma.upperBound..<space])
                guard let open = title.firstRange(of: "(0x"), let close = title.lastIndex(of: ")") else { return nil }
                return decimal == Int(title[open.upperBound..<close], radix: 16) ? decimal : nil
            }
        }

        /// The lines of `text`, cut at each LF (a CR before it dropped).
        static func lines(_ text: String) -> [String] {
            var lines = Array(text.utf8).split(separator: 0x0A, omittingEmptySubsequences: false).map { line -> String in
                String(decoding: line.last == 0x0D ? line.dropLast() : line, as: UTF8.self)
            }
            if lines.last == "" { lines.removeLast() }
            return lines
        }

        /// The records of a trace file (a stamp before a title is dropped when `stamped`).
        static func records(_ text: String, stamped: Bool = false) -> [Record] {
            var out: [Record] = []
            for raw in lines(text) {
                var line = raw
                if stamped, line.count > 16, line.dropFirst(15).first == " ",
                   line.prefix(15).wholeMatch(of: #/\d\d:\d\d:\d\d\.\d{6}/#) != nil {
                    line = String(line.dropFirst(16))
                }
                if line.hasPrefix("== Info: ") || line.hasPrefix("=> ") || line.hasPrefix("<= ") {
                    out.append(Record(title: line, lines: []))
                } else if !out.isEmpty {
                    out[out.count - 1].lines.append(line)
                }
            }
            return out
        }

        static func traceFile(_ directory: String) -> String {
            String(decoding: readFile(directory + "/trace") ?? [], as: UTF8.self)
        }

        @Test("--trace: one Recv header per line (a line cut between reads too), chunk-size lines in Recv data, counts as the hex")
        func hexRecords() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let run = courier(["--trace", directory + "/trace", "http://127.0.0.1:\(server.port)/split"])
            #expect(run.status == 0, "\(run.stderr)")
            #expect(run.stdoutText == "wikipedia")
            let records = Self.records(Self.traceFile(directory))
            let titles = records.map { String($0.title.prefix { $0 != "," }) }
            #expect(titles.prefix(2) == ["== Info:   Trying 127.0.0.1:\(server.port)...", "== Info: Connected to 127.0.0.1 (127.0.0.1) port \(server.port)"])
            let wire = records.filter { !$0.title.hasPrefix("== ") }
            #expect(wire.map { String($0.title.prefix { $0 != "," }) }.prefix(4)
                    == ["=> Send header", "<= Recv header", "<= Recv header", "<= Recv header"])
            for record in wire { #expect(record.count == record.hexBytes.count, "\(record.title)") }
            let head = wire[0].hexBytes
            #expect(head.starts(with: Array("GET /split HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n".utf8)))
            #expect(head.suffix(4) == [13, 10, 13, 10])
            #expect(wire[0].lines.first == "0000: 47 45 54 20 2f 73 70 6c 69 74 20 48 54 54 50 2f GET /split HTTP/")
            #expect(wire[1...3].map { String(decoding: $0.hexBytes, as: UTF8.self) }
                    == ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "\r\n"])
            let data = wire.dropFirst(4)
            #expect(data.allSatisfy { $0.title.hasPrefix("<= Recv data, ") })
            #expect(data.flatMap(\.hexBytes) == Array("4\r\nwiki\r\n5\r\npedia\r\n0\r\n\r\n".utf8))
            #expect(records.last?.title == "== Info: Connection to host 127.0.0.1 left intact")
        }

        @Test("--trace and --trace-ascii dump bytes as curl 7.88 does (CRLF at the width, DEL, high bytes); curl agrees when installed")
        func dumpsMatchCurl() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let url = "http://127.0.0.1:\(server.port)/crafted"
            for (option, expected) in [("--trace-ascii", Self.craftedASCII), ("--trace", Self.craftedHex)] {
                let run = courier([option, directory + "/trace", "-o", directory + "/body", url])
                #expect(run.status == 0, "\(run.stderr)")
                #expect(readFile(directory + "/body") == Self.crafted)
                let records = Self.records(Self.traceFile(directory))
                let data = records.filter { $0.title.hasPrefix("<= Recv data") }
                #expect(data.count == 1)
                #expect(data.first.map { [$0.title] + $0.lines } == expected, "\(option)")
                let heads = records.filter { $0.title.hasPrefix("<= Recv header") }
                #expect(heads.map(\.title) == ["<= Recv header, 17 bytes (0x11)", "<= Recv header, 21 bytes (0x15)", "<= Recv header, 2 bytes (0x2)"])
                if option == "--trace-ascii" {
                    #expect(heads.map(\.lines) == [["0000: HTTP/1.1 200 OK"], ["0000: Content-Length: 219"], ["0000: "]])
                }
                guard access("/usr/bin/curl", X_OK) == 0 else { continue }
                _ = runProgram(["/usr/bin/curl", "-s", option, directory + "/curl-trace", "-o", "/dev/null", url])
                let curlRecords = Self.records(String(decoding: readFile(directory + "/curl-trace") ?? [], as: UTF8.self))
                let curlReceived = curlRecords.filter { $0.title.hasPrefix("<= ") }
                #expect(curlReceived.map { [$0.title] + $0.lines } == (heads + data).map { [$0.title] + $0.lines }, "curl \(option)")
            }
        }

        @Test("request bodies are Send data: -d, a -T file (no sendfile while tracing), chunked -T - with its framing")
        func sendData() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let base = "http://127.0.0.1:\(server.port)"
            let posted = courier(["--trace-ascii", directory + "/trace", "-d", "a=b", base + "/upload"])
            #expect(posted.status == 0, "\(posted.stderr)")
            let sent = Self.records(Self.traceFile(directory)).filter { $0.title.hasPrefix("=> Send data") }
            #expect(sent.map { [$0.title] + $0.lines } == [["=> Send data, 3 bytes (0x3)", "0000: a=b"]])

            var file = [UInt8]()
            for i in 0..<300_000 { file.append(UInt8(truncatingIfNeeded: i &* 31)) }
            writeFile(directory + "/upload.bin", file)
            let uploaded = courier(["--trace", directory + "/trace", "-T", directory + "/upload.bin", base + "/upload"])
            #expect(uploaded.status == 0, "\(uploaded.stderr)")
            let pieces = Self.records(Self.traceFile(directory)).filter { $0.title.hasPrefix("=> Send data") }
            #expect(pieces.flatMap(\.hexBytes) == file)
            #expect(pieces.allSatisfy { $0.count == $0.hexBytes.count })

            let streamed = courier(["--trace", directory + "/trace", "-T", "-", base + "/upload"], stdin: Array("abc".utf8))
            #expect(streamed.status == 0, "\(streamed.stderr)")
            let chunks = Self.records(Self.traceFile(directory)).filter { $0.title.hasPrefix("=> Send data") }
            #expect(String(decoding: chunks.flatMap(\.hexBytes), as: UTF8.self) == "3\r\nabc\r\n0\r\n\r\n")
        }

        @Test("a download to a file is traced byte for byte (no splice while tracing); - is stdout, % stderr")
        func downloadAndStreams() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let base = "http://127.0.0.1:\(server.port)"
            let run = courier(["--trace", directory + "/trace", "-o", directory + "/body", base + "/bytes/200000"])
            #expect(run.status == 0, "\(run.stderr)")
            let data = Self.records(Self.traceFile(directory)).filter { $0.title.hasPrefix("<= Recv data") }
            #expect(data.flatMap(\.hexBytes) == readFile(directory + "/body"))
            #expect(data.reduce(0) { $0 + ($1.count ?? 0) } == 200_000)

            let stdout = courier(["--trace-ascii", "-", base + "/crafted"])
            #expect(stdout.status == 0 && stdout.stderr.isEmpty, "\(stdout.stderr)")
            #expect(stdout.stdoutText.contains("=> Send header, "))
            #expect(stdout.stdoutText.contains(Self.craftedASCII.joined(separator: "\n") + "\n"))
            let stderr = courier(["--trace-ascii", "%", base + "/crafted"])
            #expect(stderr.status == 0 && stderr.stdout == Self.crafted)
            #expect(stderr.stderr.contains("<= Recv header, 17 bytes (0x11)\n0000: HTTP/1.1 200 OK\n"))
        }

        @Test("-v and --trace/--trace-ascii: the last one given wins, with curl's warning")
        func precedence() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let url = "http://127.0.0.1:\(server.port)/crafted"
            let verboseLast = courier(["--trace-ascii", directory + "/trace", "-v", "-o", "/dev/null", url])
            #expect(verboseLast.status == 0)
            #expect(verboseLast.stderr.hasPrefix("Warning: -v, --verbose overrides an earlier trace/verbose option\n"))
            #expect(verboseLast.stderr.contains("> GET /crafted HTTP/1.1\r\n"))
            #expect(!fileExists(directory + "/trace"))
            let traceLast = courier(["-v", "--trace-ascii", "%", "-o", "/dev/null", url])
            #expect(traceLast.stderr.hasPrefix("Warning: --trace-ascii overrides an earlier trace/verbose option\n"))
            #expect(traceLast.stderr.contains("=> Send header, ") && !traceLast.stderr.contains("> GET"))
            let silent = courier(["-s", "-v", "--trace", "%", "-o", "/dev/null", url])
            #expect(!silent.stderr.contains("Warning"))
            #expect(silent.stderr.contains("0000: 47 45 54 20 2f 63 72 61 66 74 65 64 20 48 54 54 GET /crafted HTT\n"))
        }

        @Test("--trace-time: HH:MM:SS.uuuuuu before each record's title and each -v line, none on dump lines")
        func traceTime() async throws {
            let server = try await server()
            defer { Task { await server.shutdown() } }
            let directory = makeScratchDirectory()
            defer { removeScratchDirectory(directory) }
            let url = "http://127.0.0.1:\(server.port)/split"
            let run = courier(["--trace-time", "--trace-ascii", directory + "/trace", url], environment: ["TZ": "UTC"])
            #expect(run.status == 0, "\(run.stderr)")
            let text = Self.traceFile(directory)
            let lines = Self.lines(text)
            let stamp = #/([01]\d|2[0-3]):[0-5]\d:[0-6]\d\.\d{6} (== Info: |=> |<= ).*/#
            let dump = #/[0-9a-f]{4}: .*/#
            #expect(!lines.isEmpty)
            for line in lines {
                #expect(line.wholeMatch(of: stamp) != nil || line.wholeMatch(of: dump) != nil, "\(line)")
            }
            #expect(Self.records(text, stamped: true).count == lines.filter { $0.wholeMatch(of: stamp) != nil }.count)
            #expect(Self.records(text, stamped: true).filter { $0.title.hasPrefix("<= Recv header") }.count == 3)
            // The stamp is the local time (TZ=UTC here): the hour of the wall clock now, or the
            // next one when the test straddles it.
            var now = time(nil)
            var parts = tm()
            gmtime_r(&now, &parts)
            let hour = Int(lines.first?.prefix(2) ?? "") ?? -1
            #expect(hour == Int(parts.tm_hour) || hour == (Int(parts.tm_hour) + 23) % 24)

            let verbose = courier(["--trace-time", "-v", url])
            #expect(verbose.status == 0)
            let verboseLines = Self.lines(verbose.stderr)
            let verboseStamp = #/\d\d:\d\d:\d\d\.\d{6} [*<>] .*/#
            #expect(!verboseLines.isEmpty)
            for line in verboseLines { #expect(line.wholeMatch(of: verboseStamp) != nil, "\(line)") }
        }
    }
}
