// Session downloads and resume against nginx, which honours Range and If-Range (RFC 9110 §13.1.5,
// §14): a matching strong ETag gets a 206 that is appended, a stale one a 200 that restarts the
// file, a range past the end a 416 that leaves the partial file as it was.
import Courier
import CourierCurlExitCodes
import CourierBytes
import CourierHTTP1
import CourierURL
import Glibc
import Testing

@Suite(.enabled(if: Interop.isAvailable, "needs scripts/interop/run"), .serialized, .timeLimit(.minutes(5)))
struct SessionResumeInteropTests {
    static func url(_ path: String) -> String { "http://127.0.0.1:\(Interop.nginxPort)\(path)" }

    static func scratch() -> String {
        var template = Array("/tmp/courier-resume-interop.XXXXXX".utf8CString)
        return template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
    }

    static func write(_ path: String, _ bytes: ArraySlice<UInt8>) {
        let file = fopen(path, "wb")!
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, bytes.count, file) }
        fclose(file)
    }

    static func entries(_ directory: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    static func remove(_ directory: String) {
        for name in entries(directory) { unlink(directory + "/" + name) }
        rmdir(directory)
    }

    /// nginx's ETag for `path` (from a HEAD).
    static func entityTag(_ session: Session, _ path: String) async throws -> String {
        let head = await session.dataTask(with: HTTPRequest(method: .head, uri: try URI(parsing: url(path)))).response
        return try #require(head.head?.headers.first(name: "ETag"))
    }

    @Test func aMatchingETagAppendsThe206() async throws {
        let dir = Self.scratch()
        defer { Self.remove(dir) }
        let original = Interop.readFile(Interop.www + "/random-1m.bin")
        let session = Session()
        let tag = try await Self.entityTag(session, "/random-1m.bin")
        Self.write(dir + "/partial", original[..<300_000])
        let resume = ResumeData(url: Self.url("/random-1m.bin"), entityTag: tag, bytesOnDisk: 300_000,
                                partialPath: dir + "/partial", totalLength: UInt64(original.count))
        let result = await session.downloadTask(resumingWith: resume) { _, _ in dir + "/final" }.response
        #expect(result.head?.status == 206)
        #expect(result.head?.headers.first(name: "Content-Range") == "bytes 300000-1048575/1048576")
        #expect(try result.result.get() == dir + "/final")
        #expect(Interop.readFile(dir + "/final") == original)
        #expect(Self.entries(dir) == ["final"], "the partial file became the final file")
        await session.finishTasksAndInvalidate()
    }

    @Test func aStaleETagRestartsCleanlyOnThe200() async throws {
        let dir = Self.scratch()
        defer { Self.remove(dir) }
        let original = Interop.readFile(Interop.www + "/random-1m.bin")
        Self.write(dir + "/partial", ArraySlice(repeating: 0x55, count: 300_000))
        let resume = ResumeData(url: Self.url("/random-1m.bin"), entityTag: "\"stale-0\"", bytesOnDisk: 300_000,
                                partialPath: dir + "/partial", totalLength: UInt64(original.count))
        let session = Session()
        let result = await session.downloadTask(resumingWith: resume) { _, _ in dir + "/final" }.response
        #expect(result.head?.status == 200)
        #expect(Interop.readFile(dir + "/final") == original)
        #expect(Self.entries(dir) == ["final"], "the superseded partial file is removed")
        await session.finishTasksAndInvalidate()
    }

    @Test func aRangePastTheEndIs416AndLeavesThePartialFile() async throws {
        let dir = Self.scratch()
        defer { Self.remove(dir) }
        let original = Interop.readFile(Interop.www + "/random-1m.bin")
        let session = Session()
        let tag = try await Self.entityTag(session, "/random-1m.bin")
        let partial = original + [1, 2, 3]
        Self.write(dir + "/partial", partial[...])
        let resume = ResumeData(url: Self.url("/random-1m.bin"), entityTag: tag, bytesOnDisk: UInt64(partial.count),
                                partialPath: dir + "/partial")
        let result = await session.downloadTask(resumingWith: resume) { _, _ in dir + "/final" }.response
        #expect(result.head?.status == 416)
        guard case .failure(let error) = result.result else {
            Issue.record("a 416 was taken as success")
            return
        }
        #expect(error.code == .rangeNotSatisfiable)
        #expect(error.curlExitCode == 33)
        #expect(Interop.readFile(dir + "/partial") == partial)
        #expect(Self.entries(dir) == ["partial"])
        await session.finishTasksAndInvalidate()
    }

    @Test func a64MiBDownloadArrivesWhole() async throws {
        let dir = Self.scratch()
        defer { Self.remove(dir) }
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: Self.url("/random-64m.bin")))
        let result = await session.downloadTask(with: request) { _, _ in dir + "/big" }.response
        #expect(try result.result.get() == dir + "/big")
        #expect(result.metrics.bytesReceived == 64 << 20)
        #expect(Interop.readFile(dir + "/big") == Interop.readFile(Interop.www + "/random-64m.bin"))
        #expect(Self.entries(dir) == ["big"])
        await session.finishTasksAndInvalidate()
    }
}
