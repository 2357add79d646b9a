// The body stream: exact content length, independence from read sizes, restart, phases.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct BodyStreamTests {
    @Test func contentLengthEqualsRenderedLengthForManyForms() throws {
        for seed in 0..<200 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed, maxParts: 8, maxBody: 300)
            let rendered = try form.renderedBytes(fileSystem: fs)
            #expect(UInt64(rendered.count) == form.contentLength, "seed \(seed)")
            var stream = form.makeBodyStream(fileSystem: fs)
            #expect(stream.contentLength == form.contentLength)
            #expect(stream.bytesProduced == 0)
            _ = try readAll(&stream, sizes: [17])
            #expect(stream.bytesProduced == form.contentLength)
            #expect(stream.isFinished)
        }
    }

    @Test func everyReadSizeGivesTheSameBytes() throws {
        let (form, fs) = try randomForm(seed: 42, maxParts: 8, maxBody: 120)
        let reference = try form.renderedBytes(fileSystem: fs)
        for size in 1...64 {
            var stream = form.makeBodyStream(fileSystem: fs)
            #expect(try readAll(&stream, sizes: [size]) == reference, "read size \(size)")
        }
    }

    @Test func seededRandomReadSequencesGiveTheSameBytes() throws {
        for seed in 0..<40 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed &* 7919, maxParts: 7, maxBody: 200)
            let reference = try form.renderedBytes(fileSystem: fs)
            var rng = SeededGenerator(seed: seed)
            let sizes = (0..<50).map { _ in Int.random(in: 1...97, using: &rng) }
            var stream = form.makeBodyStream(fileSystem: fs)
            #expect(try readAll(&stream, sizes: sizes) == reference, "seed \(seed)")
            // ByteBuffer reads with random maxBytes agree too.
            var again = form.makeBodyStream(fileSystem: fs)
            var buffer = ByteBuffer()
            while try again.read(into: &buffer, maxBytes: Int.random(in: 1...300, using: &rng)) > 0 {}
            #expect(buffer.readableBytesArray == reference, "seed \(seed)")
            // Segments of random sizes agree too.
            var segmented = form.makeBodyStream(fileSystem: fs)
            #expect(try readSegments(&segmented, maxBytes: Int.random(in: 1...50, using: &rng), fileSystem: fs) == reference)
        }
    }

    @Test func restartGivesIdenticalBytes() throws {
        let (form, fs) = try randomForm(seed: 3, maxParts: 8, maxBody: 100)
        let reference = try form.renderedBytes(fileSystem: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        // Stop halfway (inside a stream part, whatever is there), then start again.
        var half = [UInt8](repeating: 0, count: reference.count / 2)
        let got = try half.withUnsafeMutableBytes { try stream.read(into: $0) }
        #expect(got == half.count)
        #expect(stream.bytesProduced == UInt64(half.count))
        stream.restart()
        #expect(stream.bytesProduced == 0)
        #expect(try readAll(&stream, sizes: [13]) == reference)
        // And again after a complete pass.
        stream.restart()
        #expect(!stream.isFinished)
        #expect(try readAll(&stream, sizes: [4096]) == reference)
    }

    @Test func phasesFollowTheParts() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "a", value: "xy")
        try form.appendField(name: "b", value: "z")
        var stream = form.makeBodyStream()
        var phases: [MultipartBodyStream.Phase] = [stream.phase]
        var one: UInt8 = 0
        while try withUnsafeMutableBytes(of: &one, { try stream.read(into: $0) }) == 1 {
            if phases.last != stream.phase { phases.append(stream.phase) }
        }
        #expect(phases == [
            .boundary(part: 0), .headers(part: 0), .body(part: 0), .boundary(part: 1), .headers(part: 1),
            .body(part: 1), .finalBoundary, .done,
        ])
    }

    @Test func readIntoByteBufferAppendsAndStopsAtTheEnd() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "a", value: "1")
        var stream = form.makeBodyStream()
        var buffer = ByteBuffer(string: "prefix")
        let n = try stream.read(into: &buffer, maxBytes: 1 << 20)
        #expect(UInt64(n) == form.contentLength)
        #expect(buffer.readableBytes == 6 + n)
        #expect(try stream.read(into: &buffer, maxBytes: 100) == 0)
        #expect(stream.isFinished)
    }

    @Test func renderIntoAReusedBuffer() throws {
        var form = MultipartForm(boundary: fixedBoundary)
        for i in 0..<1000 { try form.appendField(name: "field\(i)", value: "value \(i)") }
        try form.appendData(ByteBuffer(bytes: [UInt8](repeating: 0xAB, count: 1 << 16)), name: "big", fileName: "big.bin",
                            mimeType: "application/octet-stream")
        var buffer = ByteBuffer()
        try form.render(into: &buffer)
        let first = buffer.readableBytesArray
        #expect(UInt64(first.count) == form.contentLength)
        buffer.clear()
        try form.render(into: &buffer)
        #expect(buffer.readableBytesArray == first)
        var limits = MultipartParser.Limits()
        limits.maxPartCount = 1001
        let parsed = try MultipartParser.parse(first, boundary: form.boundary, limits: limits)
        #expect(throws: MultipartParseError.self) { try MultipartParser.parse(first, boundary: form.boundary) }
        #expect(parsed.count == 1001)
        #expect(parsed[999].head.name == "field999")
        #expect(parsed[999].body.readableString == "value 999")
        #expect(parsed[1000].body.readableBytes == 1 << 16)
    }
}
