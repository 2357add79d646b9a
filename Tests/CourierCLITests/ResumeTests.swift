// Resuming downloads (issue 10 §5): a 206 whose total is not the one the resume record knows is a
// mismatch (33) that leaves the partial file and its record as they were; a 416 whose
// `Content-Range: bytes */N` names exactly the bytes on disk means the file is complete (0, kept),
// as curl takes a 416 to a resume; any other 416 stays 33.

import CourierHTTP1
import CourierLoopbackServer
import CourierPosix
import Glibc
import Synchronization
import Testing

private let attribute = "user.courier.validator"

private func extendedAttribute(_ path: String) -> String? {
    guard let bytes = try? File.extendedAttribute(attribute, atPath: path) else { return nil }
    return String(decoding: bytes, as: UTF8.self)
}

private func setExtendedAttribute(_ path: String, _ value: String) {
    #expect(throws: Never.self) { try File.setExtendedAttribute(attribute, value: Array(value.utf8), atPath: path) }
}

/// Counts requests and remembers their Range fields.
private final class Ranges: Sendable {
    private let list = Mutex<[String?]>([])
    var all: [String?] { list.withLock { $0 } }
    func add(_ range: String?) { list.withLock { $0.append(range) } }
}

extension CLITests {
    @Suite("resuming downloads")
    struct ResumeTests {
        static let full = pattern(100)

        fileprivate static func scripts(_ ranges: Ranges) -> [String: LoopbackScript] {
            let full = ResumeTests.full
            return [
                // The resource as it now is: 120 bytes long.
                "/grown": { request in
                    ranges.add(request.headers.first(name: "Range"))
                    return [.response(status: 206, headers: ["Content-Range: bytes 40-119/120"], body: String(decoding: full[..<80], as: UTF8.self))]
                },
                "/complete": { request in
                    ranges.add(request.headers.first(name: "Range"))
                    return [.response(status: 416, headers: ["Content-Range: bytes */100"], body: "<html>not satisfiable</html>")]
                },
                "/other-size": { request in
                    ranges.add(request.headers.first(name: "Range"))
                    return [.response(status: 416, headers: ["Content-Range: bytes */90"], body: "no")]
                },
                "/no-range": { request in
                    ranges.add(request.headers.first(name: "Range"))
                    return [.response(status: 416, body: "no")]
                },
                "/no-validator": { request in
                    ranges.add(request.headers.first(name: "Range"))
                    return [.response(status: 206, headers: ["Content-Range: bytes 40-99/100"], body: String(decoding: full[40...], as: UTF8.self))]
                },
            ]
        }

        @Test("a 206 whose total differs from the recorded one is 33; the partial file and its record are untouched")
        func totalMismatch() async throws {
            let ranges = Ranges()
            let server = try await LoopbackServer.start(.init(scripts: ResumeTests.scripts(ranges)))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/part"
            writeFile(file, Array(ResumeTests.full[..<40]))
            setExtendedAttribute(file, "\"v1\"\n100")
            let run = courier(["-C", "-", "-o", file, "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/grown"])
            #expect(run.status == 33)
            #expect(run.stdoutText == "206")
            #expect(run.stderrLines == ["courier: (33) the resource's length changed from 100 to 120 bytes"])
            #expect(readFile(file) == Array(ResumeTests.full[..<40]))
            #expect(extendedAttribute(file) == "\"v1\"\n100")
            #expect(directoryEntries(dir) == ["part"])
            #expect(ranges.all == ["bytes=40-"])
            await server.shutdown()
        }

        @Test("without a validator the total is still recorded, so a later 206 of another total is caught")
        func totalWithoutValidator() async throws {
            let ranges = Ranges()
            let server = try await LoopbackServer.start(.init(scripts: ResumeTests.scripts(ranges)))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/part"
            writeFile(file, Array(ResumeTests.full[..<40]))
            let first = courier(["-C", "-", "-o", file, "http://127.0.0.1:\(server.port)/no-validator"])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(readFile(file) == ResumeTests.full)
            #expect(extendedAttribute(file) == "\n100")
            // The file is truncated back to 40 bytes: the record still says 100 in all.
            writeFile(file, Array(ResumeTests.full[..<40]))
            setExtendedAttribute(file, "\n100")
            let second = courier(["-C", "-", "-o", file, "http://127.0.0.1:\(server.port)/grown"])
            #expect(second.status == 33)
            #expect(readFile(file) == Array(ResumeTests.full[..<40]))
            #expect(ranges.all == ["bytes=40-", "bytes=40-"])
            await server.shutdown()
        }

        @Test("a 416 naming exactly the size on disk means the file is complete: 0, kept, its body not written (-f too)")
        func completeFile() async throws {
            let ranges = Ranges()
            let server = try await LoopbackServer.start(.init(scripts: ResumeTests.scripts(ranges)))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/whole"
            for extra in [[], ["-f"]] as [[String]] {
                writeFile(file, ResumeTests.full)
                setExtendedAttribute(file, "\"v1\"\n100")
                let run = courier(extra + ["-C", "-", "-o", file, "-w", "%{http_code}", "http://127.0.0.1:\(server.port)/complete"])
                #expect(run.status == 0, "\(extra): \(run.stderr)")
                #expect(run.stdoutText == "416")
                #expect(run.stderr.isEmpty)
                #expect(readFile(file) == ResumeTests.full)
                #expect(extendedAttribute(file) == "\"v1\"\n100")
                #expect(directoryEntries(dir) == ["whole"])
            }
            #expect(ranges.all == ["bytes=100-", "bytes=100-"])
            await server.shutdown()
        }

        @Test("any other 416 is 33 with the file untouched")
        func otherRangeNotSatisfiable() async throws {
            let ranges = Ranges()
            let server = try await LoopbackServer.start(.init(scripts: ResumeTests.scripts(ranges)))
            let dir = makeScratchDirectory()
            defer { removeScratchDirectory(dir) }
            let file = dir + "/part"
            for (path, message) in [("/other-size", "the server cannot resume at byte 100 (416, the resource has 90 bytes)"),
                                    ("/no-range", "the server cannot resume at byte 100 (416)")] {
                writeFile(file, ResumeTests.full)
                setExtendedAttribute(file, "\"v1\"\n")
                let run = courier(["-C", "-", "-o", file, "http://127.0.0.1:\(server.port)" + path])
                #expect(run.status == 33, "\(path): \(run.stderr)")
                #expect(run.stderrLines == ["courier: (33) \(message)"], "\(path)")
                #expect(readFile(file) == ResumeTests.full)
                #expect(extendedAttribute(file) == "\"v1\"\n")
            }
            // A recorded total that disagrees with a 416's (otherwise matching) length is no proof of
            // completeness either.
            writeFile(file, ResumeTests.full)
            setExtendedAttribute(file, "\"v1\"\n150")
            let recorded = courier(["-C", "-", "-o", file, "http://127.0.0.1:\(server.port)/complete"])
            #expect(recorded.status == 33, "\(recorded.stderr)")
            #expect(readFile(file) == ResumeTests.full)
            #expect(ranges.all.count == 3)
            await server.shutdown()
        }
    }
}
