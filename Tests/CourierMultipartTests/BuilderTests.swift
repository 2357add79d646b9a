// The builder: MIME inference, file names from paths, validation before anything is written,
// boundaries and Content-Type values.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct BuilderTests {
    @Test(arguments: [
        ("index.html", "text/html"), ("notes.TXT", "text/plain"), ("site.css", "text/css"),
        ("data.csv", "text/csv"), ("a.json", "application/json"), ("feed.xml", "application/xml"),
        ("app.js", "text/javascript"), ("p.png", "image/png"), ("p.jpg", "image/jpeg"),
        ("p.JPEG", "image/jpeg"), ("p.gif", "image/gif"), ("p.webp", "image/webp"), ("p.bmp", "image/bmp"),
        ("favicon.ico", "image/vnd.microsoft.icon"), ("scan.tiff", "image/tiff"), ("logo.svg", "image/svg+xml"),
        ("doc.pdf", "application/pdf"), ("a.zip", "application/zip"), ("a.tar.gz", "application/gzip"),
        ("a.tar", "application/x-tar"), ("song.mp3", "audio/mpeg"), ("clip.mp4", "video/mp4"),
        ("clip.mov", "video/quicktime"), ("s.wav", "audio/wav"), ("s.ogg", "audio/ogg"), ("v.webm", "video/webm"),
        ("f.woff", "font/woff"), ("f.woff2", "font/woff2"), ("m.wasm", "application/wasm"),
        ("README", "application/octet-stream"), (".profile", "application/octet-stream"),
        ("trailing.", "application/octet-stream"), ("x.unknownext", "application/octet-stream"),
    ])
    func mimeTypeFromExtension(fileName: String, expected: String) {
        #expect(MultipartMIMEType.forFileName(fileName) == expected)
    }

    @Test func fileNameAndTypeComeFromThePath() throws {
        let fs = MultipartMemoryFileSystem(contents: ["/home/u/photos/cat.JPG": [1, 2, 3], "/home/u/dir/": [9]])
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendFile(atPath: "/home/u/photos/cat.JPG", name: "photo", fileSystem: fs)
        #expect(form.parts[0].fileName == "cat.JPG")
        #expect(form.parts[0].contentType == "image/jpeg")
        #expect(form.parts[0].bodyLength == 3)
        try form.appendFile(atPath: "/home/u/dir/", name: "d", fileSystem: fs)
        #expect(form.parts[1].fileName == "dir")
        #expect(throws: MultipartError(.invalidFilePath, partIndex: 2)) {
            try form.appendFile(atPath: "", name: "x", fileSystem: fs)
        }
        #expect(throws: MultipartError(.fileUnavailable, partIndex: 2)) {
            try form.appendFile(atPath: "/missing.png", name: "x", fileSystem: fs)
        }
        #expect(form.parts.count == 2)
    }

    @Test func fileByteRange() throws {
        let fs = MultipartMemoryFileSystem(contents: ["/f.bin": Array(0..<10)])
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendFile(atPath: "/f.bin", name: "f", fileName: "f.bin", mimeType: "application/octet-stream",
                            byteRange: 2..<5, fileSystem: fs)
        let body = try form.renderedBytes(fileSystem: fs)
        let header = form.framingBytes(ofPart: 0).readableBytesArray
        #expect(Array(body[header.count..<header.count + 3]) == [2, 3, 4])
        #expect(throws: MultipartError(.invalidFileRange, partIndex: 1)) {
            try form.appendFile(atPath: "/f.bin", name: "f", fileName: "f.bin", mimeType: "a/b", byteRange: 5..<11, fileSystem: fs)
        }
    }

    @Test func invalidInputIsRefusedBeforeAnythingIsWritten() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "ok", value: "1")
        let before = try form.renderedBytes()
        #expect(throws: MultipartError(.invalidName, partIndex: 1)) { try form.appendField(name: "a\u{0}b", value: "") }
        #expect(throws: MultipartError(.invalidName, partIndex: 1)) { try form.appendField(name: "a\u{7F}", value: "") }
        #expect(throws: MultipartError(.invalidName, partIndex: 1)) {
            try form.appendData(ByteBuffer(), name: "n", fileName: "f\u{1B}", mimeType: "a/b")
        }
        #expect(throws: MultipartError(.invalidHeaderValue, partIndex: 1)) {
            try form.appendData(ByteBuffer(), name: "n", fileName: "f", mimeType: "text/plain\r\nX-Evil: 1")
        }
        #expect(throws: MultipartError(.invalidHeaderValue, partIndex: 1)) {
            try form.appendData(ByteBuffer(), name: "n", fileName: "f", mimeType: "")
        }
        #expect(throws: MultipartError(.invalidHeaderName, partIndex: 1)) {
            try form.appendPart(headers: [MultipartHeader(name: "Bad Name", value: "v")], body: ByteBuffer())
        }
        #expect(throws: MultipartError(.invalidHeaderName, partIndex: 1)) {
            try form.appendPart(headers: [MultipartHeader(name: "", value: "v")], body: ByteBuffer())
        }
        for value in ["a\rb", "a\nb", "a\u{0}b", " lead", "trail\t", "bell\u{7}"] {
            #expect(throws: MultipartError(.invalidHeaderValue, partIndex: 1)) {
                try form.appendPart(headers: [MultipartHeader(name: "X-A", value: value)], body: ByteBuffer())
            }
        }
        #expect(form.parts.count == 1)
        #expect(try form.renderedBytes() == before)
        // Tabs are legal inside names; CR and LF are escaped, not refused.
        try form.appendField(name: "tab\there", value: "")
        try form.appendField(name: "line\nbreak", value: "")
        #expect(form.parts.count == 3)
    }

    @Test func contentLengthOverflowIsCaught() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendStream(ScriptedStream(contents: []), name: "a", fileName: "a", length: UInt64(Int64.max) / 2, mimeType: "a/b")
        #expect(throws: MultipartError(.contentLengthOverflow, partIndex: 1)) {
            try form.appendStream(ScriptedStream(contents: []), name: "b", fileName: "b", length: UInt64(Int64.max) / 2 + 10, mimeType: "a/b")
        }
        #expect(throws: MultipartError(.contentLengthOverflow, partIndex: 1)) {
            try form.appendStream(ScriptedStream(contents: []), name: "b", fileName: "b", length: .max, mimeType: "a/b")
        }
        #expect(form.parts.count == 1)
        #expect(form.framingBytes(ofPart: 0).readableBytes > 0)
    }

    @Test func boundaryValidation() {
        #expect(MultipartBoundary("simple") != nil)
        #expect(MultipartBoundary("with space inside") != nil)
        #expect(MultipartBoundary("trailing space ") == nil)
        #expect(MultipartBoundary("") == nil)
        #expect(MultipartBoundary(String(repeating: "a", count: 70)) != nil)
        #expect(MultipartBoundary(String(repeating: "a", count: 71)) == nil)
        #expect(MultipartBoundary("semi;colon") == nil)
        #expect(MultipartBoundary("quote\"") == nil)
        #expect(MultipartBoundary("a:b")?.contentType == "multipart/form-data; boundary=\"a:b\"")
    }

    @Test func boundaryFromContentType() {
        #expect(MultipartBoundary(contentType: "multipart/form-data; boundary=\(fixedBoundaryText)") == fixedBoundary)
        #expect(MultipartBoundary(contentType: "Multipart/Form-Data;BOUNDARY=\"a b:c\"")?.value == "a b:c")
        #expect(MultipartBoundary(contentType: "multipart/form-data; charset=utf-8; boundary=xyz")?.value == "xyz")
        #expect(MultipartBoundary(contentType: "multipart/mixed; boundary=xyz") == nil)
        #expect(MultipartBoundary(contentType: "multipart/form-data") == nil)
        #expect(MultipartBoundary(contentType: "multipart/form-data; boundary=a; boundary=b") == nil)
        #expect(MultipartBoundary(contentType: "multipart/form-data; boundary=\"unterminated") == nil)
        #expect(MultipartBoundary(contentType: "multipart/form-data; boundary=") == nil)
        #expect(MultipartBoundary(contentType: "multipart/form-data; boundary=ok garbage") == nil)
    }

    @Test func delimiterOccurrence() {
        let b = fixedBoundary
        let inside = bytes("abc\r\n--\(fixedBoundaryText)xyz")
        let atStart = bytes("--\(fixedBoundaryText)")
        let harmless = bytes("abc\r\n--Boundary+0123")
        #expect(inside.withUnsafeBytes { b.occurs(in: $0) })
        #expect(atStart.withUnsafeBytes { b.occurs(in: $0) })
        #expect(!harmless.withUnsafeBytes { b.occurs(in: $0) })
    }

    @Test func partsDescribeThemselves() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(ByteBuffer(string: "x"), name: "n\"", fileName: "f", mimeType: "text/plain")
        #expect(form.parts[0].headers == [
            MultipartHeader(name: "Content-Disposition", value: "form-data; name=\"n%22\"; filename=\"f\""),
            MultipartHeader(name: "Content-Type", value: "text/plain"),
        ])
        #expect(form.parts[0].name == "n\"")
    }
}
