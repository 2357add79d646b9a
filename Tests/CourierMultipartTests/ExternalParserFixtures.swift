// Writes rendered multipart bodies for a parser nobody here wrote (werkzeug's form parser and
// Python's email package, scripts/multipart-crosscheck) to read back. Runs only when that script
// names a directory in COURIER_MULTIPART_FIXTURES; a plain `swift test` skips it visibly.
import Testing
import Glibc
import CourierBytes
import CourierMultipart

private let fixturesDirectory: String? = getenv("COURIER_MULTIPART_FIXTURES").map { String(cString: $0) }

@Suite(.enabled(if: fixturesDirectory != nil, "needs scripts/multipart-crosscheck"))
struct ExternalParserFixtures {
    struct Expected {
        var name: String
        var fileName: String?
        var contentType: String?
        var body: [UInt8]
    }

    func write(_ path: String, _ bytes: [UInt8]) throws {
        guard let file = fopen(path, "wb") else { throw Errno(errno) }
        defer { fclose(file) }
        _ = bytes.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    }

    struct Errno: Error { var code: Int32; init(_ code: Int32) { self.code = code } }

    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] })
    }

    /// One line per part, each field in hex: the name and file name as given (the checker applies
    /// the browser escaping itself: `"` → %22, CR → %0D, LF → %0A), content type, body. "-" for
    /// no file name or content type.
    func emit(_ label: String, form: MultipartForm, fileSystem: MultipartMemoryFileSystem, expected: [Expected]) throws {
        let directory = fixturesDirectory!
        try write("\(directory)/\(label).body", try form.renderedBytes(fileSystem: fileSystem))
        try write("\(directory)/\(label).content-type", Array(form.contentType.utf8))
        var lines = ""
        for part in expected {
            lines += hex(Array(part.name.utf8)) + "\t"
                + (part.fileName.map { hex(Array($0.utf8)) } ?? "-") + "\t"
                + (part.contentType ?? "-") + "\t" + hex(part.body) + "\n"
        }
        try write("\(directory)/\(label).expected", Array(lines.utf8))
    }

    @Test func formsForAnIndependentParser() throws {
        var random = SystemRandomNumberGenerator()
        let fileBytes: [UInt8] = (0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let files = MultipartMemoryFileSystem(contents: ["/data/report.csv": fileBytes, "/data/naïve résumé.pdf": [1, 2, 3]])

        // Fields, a file by path, in-memory data, a stream.
        var form = MultipartForm(boundary: MultipartBoundary(using: &random))
        try form.appendField(name: "title", value: "hello world")
        try form.appendFile(atPath: "/data/report.csv", name: "report", fileSystem: files)
        try form.appendData(ByteBuffer(bytes: [0, 255, 13, 10, 45, 45]), name: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        try form.appendStream(MultipartBytesStream(ByteBuffer(string: "streamed text")), name: "stream", fileName: "s.txt", length: 13, mimeType: "text/plain")
        try emit("mixed", form: form, fileSystem: files, expected: [
            Expected(name: "title", body: Array("hello world".utf8)),
            Expected(name: "report", fileName: "report.csv", contentType: "text/csv", body: fileBytes),
            Expected(name: "blob", fileName: "blob.bin", contentType: "application/octet-stream", body: [0, 255, 13, 10, 45, 45]),
            Expected(name: "stream", fileName: "s.txt", contentType: "text/plain", body: Array("streamed text".utf8)),
        ])

        // Unicode names and awkward file names: quotes, CR, LF, semicolons, backslashes.
        var awkward = MultipartForm(boundary: MultipartBoundary(using: &random))
        try awkward.appendField(name: "名前", value: "値 ✓")
        try awkward.appendField(name: "a\"b", value: "quoted")
        try awkward.appendData(ByteBuffer(string: "x"), name: "line\r\nbreak", fileName: "evil\"; name=\"other.txt", mimeType: "text/plain")
        try awkward.appendData(ByteBuffer(string: "y"), name: "semi;colon", fileName: "back\\slash;.txt", mimeType: "text/plain")
        try awkward.appendFile(atPath: "/data/naïve résumé.pdf", name: "pdf", fileSystem: files)
        try awkward.appendField(name: "empty", value: "")
        try emit("awkward", form: awkward, fileSystem: files, expected: [
            Expected(name: "名前", body: Array("値 ✓".utf8)),
            Expected(name: "a\"b", body: Array("quoted".utf8)),
            Expected(name: "line\r\nbreak", fileName: "evil\"; name=\"other.txt", contentType: "text/plain", body: Array("x".utf8)),
            Expected(name: "semi;colon", fileName: "back\\slash;.txt", contentType: "text/plain", body: Array("y".utf8)),
            Expected(name: "pdf", fileName: "naïve résumé.pdf", contentType: "application/pdf", body: [1, 2, 3]),
            Expected(name: "empty", body: []),
        ])
    }
}
