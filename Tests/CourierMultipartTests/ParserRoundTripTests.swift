// Parser round trip: parse(render(form)) == form, whatever the cuts of the input (SplitHarness).

import CourierBytes
import CourierMultipart
import CourierTestSupport
import Testing

@Suite struct ParserRoundTripTests {
    /// What the parser must give back for `form`, built independently of `expectedParsedParts`:
    /// the headers as written, names unescaped, bodies cut out of the rendered bytes.
    func expectedParts(_ form: MultipartForm, fileSystem: MultipartMemoryFileSystem) throws -> [MultipartParsedPart] {
        let rendered = try form.renderedBytes(fileSystem: fileSystem)
        var parts: [MultipartParsedPart] = []
        var offset = 0
        for (i, part) in form.parts.enumerated() {
            offset += form.framingBytes(ofPart: i).readableBytes
            let body = ByteBuffer(bytes: rendered[offset..<offset + Int(part.bodyLength)])
            offset += Int(part.bodyLength)
            let name = part.name.map { MultipartEscaping.unescape(MultipartEscaping.escape($0)) }
            let fileName = part.fileName.map { MultipartEscaping.unescape(MultipartEscaping.escape($0)) }
            // Custom-header parts name themselves in their Content-Disposition.
            let head = MultipartPartHead(headers: part.headers, name: name ?? "custom\(i)", fileName: fileName,
                                         contentType: part.contentType)
            parts.append(MultipartParsedPart(head: head, body: body))
        }
        #expect(try form.expectedParsedParts(fileSystem: fileSystem) == parts)
        return parts
    }

    @Test func roundTripThroughEveryCut() throws {
        for seed in 0..<12 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed, maxParts: 3, maxBody: 24)
            let input = try form.renderedBytes(fileSystem: fs)
            let expected = ParseOutcome(parts: try expectedParts(form, fileSystem: fs), complete: true, error: nil)
            let (outcome, mismatches) = SplitHarness.run(input, trailing: bytes("epilogue\r\n"),
                                                         expectedWithTrailing: expected) { chunks in
                parse(chunks: chunks, boundary: form.boundary)
            }
            #expect(mismatches.isEmpty, "seed \(seed): \(mismatches.prefix(3))")
            #expect(outcome == expected, "seed \(seed)")
        }
    }

    @Test func roundTripOfLargerFormsWhole() throws {
        for seed in 100..<300 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed, maxParts: 12, maxBody: 2000)
            let input = try form.renderedBytes(fileSystem: fs)
            let outcome = parse(chunks: [input], boundary: form.boundary)
            #expect(outcome == ParseOutcome(parts: try expectedParts(form, fileSystem: fs), complete: true, error: nil), "seed \(seed)")
            // Random chunkings agree with the whole.
            var rng = SeededGenerator(seed: seed)
            var chunks: [[UInt8]] = []
            var i = 0
            while i < input.count {
                let n = min(input.count - i, Int.random(in: 1...64, using: &rng))
                chunks.append(Array(input[i..<i + n]))
                i += n
            }
            #expect(parse(chunks: chunks, boundary: form.boundary) == outcome, "seed \(seed)")
        }
    }

    @Test func formsWithoutARoundTripSayNil() throws {
        #expect(try MultipartForm(boundary: fixedBoundary).expectedParsedParts() == nil)
        var custom = MultipartForm(boundary: fixedBoundary)
        try custom.appendPart(headers: [MultipartHeader(name: "X-Only", value: "1")], body: ByteBuffer(string: "b"))
        #expect(try custom.expectedParsedParts() == nil)
        #expect(parse(chunks: [try custom.renderedBytes()], boundary: fixedBoundary).error?.code == .missingContentDisposition)
        var collision = MultipartForm(boundary: fixedBoundary)
        try collision.appendField(name: "a", value: "--\(fixedBoundaryText)--\r\n")
        #expect(try collision.expectedParsedParts() == nil)
        var inside = MultipartForm(boundary: fixedBoundary)
        try inside.appendField(name: "a", value: "x\r\n--\(fixedBoundaryText)\r\n")
        #expect(try inside.expectedParsedParts() == nil)
        // A literal "%22" in a name comes back as a quote, exactly as from a browser.
        var percent = MultipartForm(boundary: fixedBoundary)
        try percent.appendField(name: "100%22", value: "v")
        let expected = try #require(try percent.expectedParsedParts())
        #expect(expected[0].head.name == "100\"")
        #expect(try MultipartParser.parse(try percent.renderedBytes(), boundary: fixedBoundary) == expected)
    }

    @Test func escapedNamesComeBackUnescaped() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(ByteBuffer(string: "v"), name: "a\"b\r\nc", fileName: "dir\\x\".txt", mimeType: "text/plain")
        let input = try form.renderedBytes()
        let (outcome, mismatches) = SplitHarness.run(input) { parse(chunks: $0, boundary: fixedBoundary) }
        #expect(mismatches.isEmpty)
        #expect(outcome.parts.first?.head.name == "a\"b\r\nc")
        #expect(outcome.parts.first?.head.fileName == "dir\\x\".txt")
        #expect(outcome.parts.first?.head.contentType == "text/plain")
        #expect(outcome.parts.first?.head.headers == form.parts[0].headers)
    }

    @Test func bodyChunksAreSlicesOfTheReceiveBuffer() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "f", value: String(repeating: "x", count: 1000))
        let input = ByteBuffer(bytes: try form.renderedBytes())
        var parser = MultipartParser(boundary: fixedBoundary)
        parser.receive(input)
        var chunks: [ByteBuffer] = []
        while let event = try parser.nextEvent() {
            if case .bodyChunk(let chunk) = event { chunks.append(chunk) }
        }
        #expect(chunks.count == 1)
        let inputBase = input.withUnsafeReadableBytes { $0.baseAddress! }
        let chunkBase = chunks[0].withUnsafeReadableBytes { $0.baseAddress! }
        #expect(chunkBase == inputBase + form.framingBytes(ofPart: 0).readableBytes)
    }

    @Test func eventsInOrder() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "a", value: "1")
        try form.appendField(name: "b", value: "")
        var parser = MultipartParser(boundary: fixedBoundary)
        parser.receive(try form.renderedBytes())
        var kinds: [String] = []
        while let event = try parser.nextEvent() {
            switch event {
            case .partHead(let head): kinds.append("head \(head.name)")
            case .bodyChunk(let chunk): kinds.append("body \(chunk.readableString)")
            case .partEnd: kinds.append("end of part")
            case .end: kinds.append("end")
            }
        }
        #expect(kinds == ["head a", "body 1", "end of part", "head b", "end of part", "end"])
        #expect(parser.partsSeen == 2)
        #expect(try parser.nextEvent() == nil)
    }
}
