// Framing: the exact bytes AFNetworking writes, compared with hand-written expectations.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct FramingTests {
    @Test func oneField() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "field", value: "value")
        let expected = "--\(fixedBoundaryText)\r\n"
            + "Content-Disposition: form-data; name=\"field\"\r\n"
            + "\r\n"
            + "value"
            + "\r\n--\(fixedBoundaryText)--\r\n"
        #expect(try form.renderedBytes() == bytes(expected))
        #expect(form.contentLength == UInt64(expected.utf8.count))
        #expect(form.contentType == "multipart/form-data; boundary=\(fixedBoundaryText)")
    }

    @Test func fieldFileDataAndStream() throws {
        let fs = MultipartMemoryFileSystem(contents: ["/srv/upload/report.pdf": bytes("%PDF-1.7")])
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "title", value: "Q3")
        try form.appendFile(atPath: "/srv/upload/report.pdf", name: "document", fileSystem: fs)
        try form.appendData(ByteBuffer(string: "{\"a\":1}"), name: "meta", fileName: "meta.json", mimeType: "application/json")
        try form.appendStream(ScriptedStream(contents: bytes("streamed")), name: "log", fileName: "log.txt",
                              length: 8, mimeType: "text/plain")
        let b = fixedBoundaryText
        let expected = "--\(b)\r\n"
            + "Content-Disposition: form-data; name=\"title\"\r\n\r\n"
            + "Q3"
            + "\r\n--\(b)\r\n"
            + "Content-Disposition: form-data; name=\"document\"; filename=\"report.pdf\"\r\n"
            + "Content-Type: application/pdf\r\n\r\n"
            + "%PDF-1.7"
            + "\r\n--\(b)\r\n"
            + "Content-Disposition: form-data; name=\"meta\"; filename=\"meta.json\"\r\n"
            + "Content-Type: application/json\r\n\r\n"
            + "{\"a\":1}"
            + "\r\n--\(b)\r\n"
            + "Content-Disposition: form-data; name=\"log\"; filename=\"log.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n"
            + "streamed"
            + "\r\n--\(b)--\r\n"
        #expect(try form.renderedBytes(fileSystem: fs) == bytes(expected))
        #expect(form.contentLength == UInt64(expected.utf8.count))
    }

    @Test func customHeadersInOrder() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendPart(headers: [
            MultipartHeader(name: "Content-Disposition", value: "form-data; name=\"raw\""),
            MultipartHeader(name: "Content-Type", value: "text/csv; charset=utf-8"),
            MultipartHeader(name: "X-Trace", value: "a b\tc"),
        ], body: ByteBuffer(string: "1,2\n"))
        let expected = "--\(fixedBoundaryText)\r\n"
            + "Content-Disposition: form-data; name=\"raw\"\r\n"
            + "Content-Type: text/csv; charset=utf-8\r\n"
            + "X-Trace: a b\tc\r\n"
            + "\r\n"
            + "1,2\n"
            + "\r\n--\(fixedBoundaryText)--\r\n"
        #expect(try form.renderedBytes() == bytes(expected))
        #expect(form.parts[0].headers.map(\.name) == ["Content-Disposition", "Content-Type", "X-Trace"])
    }

    @Test func namesAreEscapedAsBrowsersDo() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(ByteBuffer(string: "x"), name: "a\"b\r\nc", fileName: "q\"\n.txt", mimeType: "text/plain")
        let expected = "--\(fixedBoundaryText)\r\n"
            + "Content-Disposition: form-data; name=\"a%22b%0D%0Ac\"; filename=\"q%22%0A.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n"
            + "x"
            + "\r\n--\(fixedBoundaryText)--\r\n"
        #expect(try form.renderedBytes() == bytes(expected))
        // `%` itself is not escaped (browsers leave it), and other bytes pass untouched.
        #expect(MultipartEscaping.escape("100% é\\") == "100% é\\")
        #expect(MultipartEscaping.unescape("a%22b%0d%0Ac") == "a\"b\r\nc")
    }

    @Test func emptyFormHasNoBody() throws {
        let form = MultipartForm(boundary: fixedBoundary)
        #expect(form.isEmpty)
        #expect(form.contentLength == 0)
        #expect(try form.renderedBytes().isEmpty)
        var stream = form.makeBodyStream()
        #expect(stream.isFinished)
        #expect(try stream.nextSegment(maxBytes: 10) == nil)
    }

    @Test func boundaryFormatMatchesAFNetworking() {
        // AFNetworking: [NSString stringWithFormat:@"Boundary+%08X%08X", arc4random(), arc4random()].
        let high: UInt32 = 0x00AB_CDEF, low: UInt32 = 0x0000_0001
        let boundary = MultipartBoundary(randomBits: UInt64(high) << 32 | UInt64(low))
        #expect(boundary.value == "Boundary+00ABCDEF00000001")
        #expect(MultipartBoundary(randomBits: 0).value == "Boundary+0000000000000000")
        #expect(MultipartBoundary(randomBits: .max).value == "Boundary+FFFFFFFFFFFFFFFF")
        var rng = SeededGenerator(seed: 7)
        var copy = rng
        #expect(MultipartBoundary(using: &rng) == MultipartBoundary(randomBits: copy.next()))
    }

    @Test func framingBytesArePrecomputedPerPart() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "a", value: "1")
        try form.appendField(name: "b", value: "2")
        #expect(form.framingBytes(ofPart: 0).readableString
            == "--\(fixedBoundaryText)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n")
        #expect(form.framingBytes(ofPart: 1).readableString
            == "\r\n--\(fixedBoundaryText)\r\nContent-Disposition: form-data; name=\"b\"\r\n\r\n")
    }
}
