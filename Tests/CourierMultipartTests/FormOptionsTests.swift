// What the CLI's -F needs of the builder: extra header lines after the generated ones (replacing a
// generated line of the same name), a type and a file name on a text field, the same form under a
// fresh boundary, and a mime.types database read from its text.

import CourierBytes
@testable import CourierMultipart
import Testing

@Suite struct FormOptionsTests {
    static let boundary = MultipartBoundary("Boundary+0000000000000001")!

    func rendered(_ form: MultipartForm, fileSystem: some MultipartFileSystem = MultipartMemoryFileSystem()) throws -> String {
        var sink = MultipartCollectingSink()
        var stream = form.makeBodyStream(fileSystem: fileSystem)
        _ = try stream.write(to: &sink)
        return sink.bytes.readableString
    }

    @Test func extraHeadersFollowTheGeneratedOnesAndReplaceThoseOfTheSameName() throws {
        var form = MultipartForm(boundary: FormOptionsTests.boundary)
        try form.appendField(name: "a", value: ByteBuffer(string: "1"), contentType: "text/plain", fileName: "a.txt",
                             headers: [MultipartHeader(name: "X-One", value: "1")])
        try form.appendField(name: "b", value: ByteBuffer(string: "2"), contentType: "text/plain", fileName: nil,
                             headers: [MultipartHeader(name: "content-type", value: "application/x-b")])
        try form.appendField(name: "c", value: ByteBuffer(string: "3"), contentType: nil, fileName: nil,
                             headers: [MultipartHeader(name: "Content-Disposition", value: "form-data; name=\"other\"")])
        let text = try rendered(form)
        #expect(text == """
            --Boundary+0000000000000001\r
            Content-Disposition: form-data; name="a"; filename="a.txt"\r
            Content-Type: text/plain\r
            X-One: 1\r
            \r
            1\r
            --Boundary+0000000000000001\r
            Content-Disposition: form-data; name="b"\r
            content-type: application/x-b\r
            \r
            2\r
            --Boundary+0000000000000001\r
            Content-Disposition: form-data; name="other"\r
            \r
            3\r
            --Boundary+0000000000000001--\r

            """)
        #expect(form.contentLength == UInt64(text.utf8.count))
        #expect(form.parts[0].headers.map(\.name) == ["Content-Disposition", "Content-Type", "X-One"])
        // The parser reads back what the builder wrote (the third part's name is its header's).
        let parts = try #require(try form.expectedParsedParts(fileSystem: MultipartMemoryFileSystem()))
        #expect(parts.map(\.head.name) == ["a", "b", "other"])
        #expect(parts.map(\.head.contentType) == ["text/plain", "application/x-b", nil])
    }

    @Test func invalidExtraHeadersAreRefusedBeforeAnythingIsWritten() {
        var form = MultipartForm(boundary: FormOptionsTests.boundary)
        #expect(throws: MultipartError.self) {
            try form.appendField(name: "a", value: ByteBuffer(string: "1"), contentType: nil, fileName: nil,
                                 headers: [MultipartHeader(name: "Bad Name", value: "v")])
        }
        #expect(throws: MultipartError.self) {
            try form.appendField(name: "a", value: ByteBuffer(string: "1"), contentType: nil, fileName: nil,
                                 headers: [MultipartHeader(name: "X", value: "a\r\nInjected: 1")])
        }
        #expect(form.isEmpty)
        #expect(form.contentLength == 0)
    }

    @Test func replacingTheBoundaryKeepsEveryPart() throws {
        let fs = MultipartMemoryFileSystem(contents: ["/f.bin": [1, 2, 3, 4]])
        var form = MultipartForm(boundary: FormOptionsTests.boundary)
        try form.appendField(name: "a", value: "x")
        try form.appendFile(atPath: "/f.bin", name: "f", fileName: "f.bin", mimeType: "application/x-f",
                            headers: [MultipartHeader(name: "X-F", value: "1")], fileSystem: fs)
        try form.appendPart(headers: [MultipartHeader(name: "Content-Disposition", value: "form-data; name=\"raw\"")],
                            body: ByteBuffer(string: "raw"))
        let fresh = MultipartBoundary("Boundary+FFFFFFFFFFFFFFFF")!
        let other = form.replacingBoundary(fresh)
        #expect(other.boundary == fresh)
        #expect(other.contentType == "multipart/form-data; boundary=Boundary+FFFFFFFFFFFFFFFF")
        let before = try rendered(form, fileSystem: fs)
        let after = try rendered(other, fileSystem: fs)
        #expect(after == before.replacingOccurrences(of: "Boundary+0000000000000001", with: "Boundary+FFFFFFFFFFFFFFFF"))
        #expect(other.contentLength == UInt64(after.utf8.count))
        // A boundary of another length changes the length by the same amount for every delimiter.
        let short = form.replacingBoundary(MultipartBoundary("B")!)
        #expect(short.contentLength == form.contentLength - 4 * 24)
    }

    @Test func aMimeTypesFileIsParsedAsMimeTypes5Says() {
        let text = """
            # mime.types
            application/json\t\t\t\t\tjson
            text/plain\t\t\t\t\ttxt text conf
            image/x-first PNG
            image/png png
            no-slash ext1
            application/x-empty
              text/indented   ind   # trailing comment words
            """
        let table = MIMETypeTable(parsing: Array(text.utf8))
        #expect(table.type(forExtension: "json") == "application/json")
        #expect(table.type(forExtension: "CONF") == "text/plain")
        #expect(table.type(forExtension: "png") == "image/x-first")  // the first listing wins
        #expect(table.type(forExtension: "ext1") == nil)
        #expect(table.type(forExtension: "ind") == "text/indented")
        #expect(table.type(forExtension: "trailing") == nil)
        #expect(table.type(forFileName: "a.TXT") == "text/plain")
        #expect(table.type(forFileName: "a.unknown") == "application/octet-stream")
        #expect(table.type(forFileName: ".json") == "application/octet-stream")
        #expect(table.count == 6)
    }
}

extension String {
    func replacingOccurrences(of old: String, with new: String) -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: old) {
            out += rest[..<range.lowerBound]
            out += new
            rest = rest[range.upperBound...]
        }
        return out + rest
    }
}
