// Zero copy: segments describe framing and in-memory parts by reference and file parts as ranges;
// writing a whole form to a sink.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct SegmentTests {
    func address(_ buffer: ByteBuffer) -> UnsafeRawPointer? { buffer.withUnsafeReadableBytes { $0.baseAddress } }

    @Test func segmentsDescribeFileRangesAndShareInMemoryStorage() throws {
        let fileBytes = [UInt8](repeating: 7, count: 10_000)
        let fs = MultipartMemoryFileSystem(contents: ["/data/big.bin": fileBytes])
        let data = ByteBuffer(bytes: [UInt8](repeating: 9, count: 5000))
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(data, name: "blob", fileName: "blob.bin", mimeType: "application/octet-stream")
        try form.appendFile(atPath: "/data/big.bin", name: "file", fileSystem: fs)

        var stream = form.makeBodyStream(fileSystem: fs)
        var segments: [MultipartSegment] = []
        while let segment = try stream.nextSegment(maxBytes: 4096) { segments.append(segment) }

        // Framing of part 0, blob in two slices, framing of part 1, file in three ranges, close.
        #expect(segments.map(\.count) == [
            form.framingBytes(ofPart: 0).readableBytes, 4096, 904, form.framingBytes(ofPart: 1).readableBytes,
            4096, 4096, 1808, 2 + 2 + fixedBoundaryText.utf8.count + 4,
        ])
        guard case .bytes(let framing0) = segments[0], case .bytes(let blob0) = segments[1],
              case .bytes(let blob1) = segments[2], case .file(let f0) = segments[4],
              case .file(let f2) = segments[6] else {
            Issue.record("unexpected segment kinds: \(segments)")
            return
        }
        // The same storage, not a copy.
        #expect(address(framing0) == address(form.framingBytes(ofPart: 0)))
        #expect(address(blob0) == address(data))
        #expect(address(blob1) == address(data)! + 4096)
        // File ranges carry the path, file offset, length and body offset.
        let bodyStart = UInt64(form.framingBytes(ofPart: 0).readableBytes + 5000 + form.framingBytes(ofPart: 1).readableBytes)
        #expect(f0 == MultipartFileSegment(partIndex: 1, path: "/data/big.bin", offset: 0, length: 4096, bodyOffset: bodyStart))
        #expect(f2 == MultipartFileSegment(partIndex: 1, path: "/data/big.bin", offset: 8192, length: 1808, bodyOffset: bodyStart + 8192))
        #expect(segments.reduce(0) { $0 + $1.count } == Int(form.contentLength))
        #expect(stream.isFinished)
    }

    @Test func segmentsAndReadsAgree() throws {
        for seed in 0..<30 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed, maxParts: 8, maxBody: 200)
            let reference = try form.renderedBytes(fileSystem: fs)
            for maxBytes in [1, 7, 64, 1 << 20] {
                var stream = form.makeBodyStream(fileSystem: fs)
                #expect(try readSegments(&stream, maxBytes: maxBytes, fileSystem: fs) == reference)
            }
        }
    }

    @Test func writeWholeFormToASink() throws {
        for seed in 0..<30 as Range<UInt64> {
            let (form, fs) = try randomForm(seed: seed, maxParts: 8, maxBody: 300)
            var sink = MultipartCollectingSink()
            let written = try form.writeBody(to: &sink, fileSystem: fs, chunkSize: 37)
            #expect(written == form.contentLength)
            #expect(sink.bytes.readableBytesArray == (try form.renderedBytes(fileSystem: fs)))
        }
    }

    @Test func sinkGetsInMemoryPartsByReference() throws {
        struct RecordingSink: MultipartSink {
            var buffers: [ByteBuffer] = []
            mutating func write(_ bytes: ByteBuffer) { buffers.append(bytes) }
        }
        let data = ByteBuffer(bytes: [UInt8](repeating: 1, count: 1000))
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(data, name: "d", fileName: "d", mimeType: "a/b")
        var sink = RecordingSink()
        try form.writeBody(to: &sink)
        #expect(sink.buffers.count == 3)
        #expect(address(sink.buffers[1]) == address(data))
    }

    @Test func sinkFailureFailsTheBody() throws {
        struct FailingSink: MultipartSink {
            struct Full: Error {}
            var accepted = 0
            mutating func write(_ bytes: ByteBuffer) throws {
                if accepted + bytes.readableBytes > 200 { throw Full() }
                accepted += bytes.readableBytes
            }
        }
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendData(ByteBuffer(bytes: [UInt8](repeating: 1, count: 500)), name: "d", fileName: "d", mimeType: "a/b")
        var stream = form.makeBodyStream()
        var sink = FailingSink()
        let framing = UInt64(form.framingBytes(ofPart: 0).readableBytes)
        #expect(throws: MultipartError(.sinkFailed, offset: framing)) { try stream.write(to: &sink, chunkSize: 1 << 20) }
        #expect(stream.phase == .failed)
        #expect(stream.error?.code == .sinkFailed)
    }

    @Test func transportReportsAShortSendfile() throws {
        let fs = MultipartMemoryFileSystem(contents: ["/f": [UInt8](repeating: 0, count: 100)])
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendFile(atPath: "/f", name: "f", fileSystem: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        _ = try stream.nextSegment(maxBytes: 1000)
        guard case .file(let segment) = try stream.nextSegment(maxBytes: 1000) else {
            Issue.record("expected a file segment")
            return
        }
        let error = stream.fileSegmentFailed(segment, bytesTransferred: 40, underlying: nil)
        #expect(error == MultipartError(.fileSizeChanged, partIndex: 0, offset: segment.bodyOffset + 40))
        #expect(throws: error) { try stream.nextSegment(maxBytes: 10) }
        #expect(throws: error) { try stream.read(into: UnsafeMutableRawBufferPointer(start: nil, count: 0)) }
    }
}
