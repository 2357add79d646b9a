// Errors, not silent corruption: files that change, vanish or fail, and streams whose real length
// differs from the declared one, fail the body with the right code, part and offset.

import CourierBytes
import CourierMultipart
import Testing

@Suite struct ChangedSourceTests {
    /// A form: a field (part 0), then the file under test (part 1), then another field (part 2).
    func makeForm(file: some MultipartFileSystem, path: String = "/up/f.txt") throws -> (MultipartForm, bodyStart: UInt64) {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "before", value: "0123456789")
        try form.appendFile(atPath: path, name: "file", fileSystem: file)
        try form.appendField(name: "after", value: "z")
        let start = UInt64(form.framingBytes(ofPart: 0).readableBytes + 10 + form.framingBytes(ofPart: 1).readableBytes)
        return (form, start)
    }

    func expectFailure(_ form: MultipartForm, fileSystem: some MultipartFileSystem, _ expected: MultipartError,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        // By copy, with several read sizes; and by segments through the sink.
        for size in [1, 5, 4096] {
            var stream = form.makeBodyStream(fileSystem: fileSystem)
            #expect(throws: expected, sourceLocation: sourceLocation) { try readAll(&stream, sizes: [size]) }
            // Sticky.
            #expect(throws: expected, sourceLocation: sourceLocation) { try readAll(&stream, sizes: [size]) }
            #expect(stream.phase == .failed, sourceLocation: sourceLocation)
        }
    }

    @Test func fileGrewBeforeTheBodyWasSent() throws {
        let original = MultipartMemoryFileSystem(contents: ["/up/f.txt": bytes("hello")])
        let (form, start) = try makeForm(file: original)
        let grown = MultipartMemoryFileSystem(contents: ["/up/f.txt": bytes("hello!")])
        expectFailure(form, fileSystem: grown, MultipartError(.fileSizeChanged, partIndex: 1, offset: start))
    }

    @Test func fileVanished() throws {
        let original = MultipartMemoryFileSystem(contents: ["/up/f.txt": bytes("hello")])
        let (form, start) = try makeForm(file: original)
        expectFailure(form, fileSystem: MultipartMemoryFileSystem(), MultipartError(.fileUnavailable, partIndex: 1, offset: start))
        var stream = form.makeBodyStream(fileSystem: MultipartMemoryFileSystem())
        #expect(throws: MultipartError.self) { try readAll(&stream, sizes: [64]) }
        #expect(stream.error?.underlying is MultipartMemoryFileSystem.NoSuchFile)
    }

    @Test func fileReplacedBySameSizedFile() throws {
        let identity = MultipartFileIdentity(device: 1, inode: 100, modificationSeconds: 10, modificationNanoseconds: 0)
        let original = MultipartMemoryFileSystem(files: ["/up/f.txt": .init(contents: "hello", identity: identity)])
        let (form, start) = try makeForm(file: original)
        var replaced = identity
        replaced.inode = 101
        let other = MultipartMemoryFileSystem(files: ["/up/f.txt": .init(contents: "HELLO", identity: replaced)])
        expectFailure(form, fileSystem: other, MultipartError(.fileIdentityChanged, partIndex: 1, offset: start))
        var touched = identity
        touched.modificationNanoseconds = 5
        let modified = MultipartMemoryFileSystem(files: ["/up/f.txt": .init(contents: "HELLO", identity: touched)])
        expectFailure(form, fileSystem: modified, MultipartError(.fileIdentityChanged, partIndex: 1, offset: start))
        // Same identity: fine.
        #expect(try form.renderedBytes(fileSystem: original).count == Int(form.contentLength))
    }

    @Test func fileShrankWhileBeingRead() throws {
        let contents = bytes("0123456789abcdef")
        let fs = ScriptedFileSystem(.init(endOfFileAfter: 6, contents: contents))
        let (form, start) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        #expect(throws: MultipartError(.fileSizeChanged, partIndex: 1, offset: start + 6)) { try readAll(&stream, sizes: [4]) }
        #expect(fs.finishedPaths == ["/up/f.txt"])
    }

    @Test func fileSystemHearsWhenAFileIsDone() throws {
        let fs = ScriptedFileSystem(.init(contents: bytes("0123456789")))
        let (form, _) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        _ = try readAll(&stream, sizes: [7])
        #expect(fs.finishedPaths == ["/up/f.txt"])
        stream.restart()
        _ = try readSegments(&stream, maxBytes: 4, fileSystem: fs)
        #expect(fs.finishedPaths == ["/up/f.txt", "/up/f.txt"])
    }

    @Test func fileGrewWhileBeingRead() throws {
        // Right size when the body starts, bigger when its last byte has been read.
        let contents = bytes("0123456789")
        let fs = ScriptedFileSystem(.init(attributeSizes: [10, 10, 12], contents: contents))
        let (form, start) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        #expect(throws: MultipartError(.fileSizeChanged, partIndex: 1, offset: start + 10)) { try readAll(&stream, sizes: [3]) }
    }

    @Test func fileGrewWhileBeingSentBySegments() throws {
        let fs = ScriptedFileSystem(.init(attributeSizes: [10, 10, 12], contents: bytes("0123456789")))
        let (form, start) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        var segments: [MultipartSegment] = []
        #expect(throws: MultipartError(.fileSizeChanged, partIndex: 1, offset: start + 10)) {
            while let segment = try stream.nextSegment(maxBytes: 1 << 20) { segments.append(segment) }
        }
        // Framing, field, framing, then the whole file range; the check after it fails.
        #expect(segments.count == 4)
        #expect(segments.last.map { if case .file = $0 { return true } else { return false } } == true)
    }

    @Test func fileReadFails() throws {
        let fs = ScriptedFileSystem(.init(failAfter: 4, contents: bytes("0123456789")))
        let (form, start) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        #expect(throws: MultipartError(.fileReadFailed, partIndex: 1, offset: start + 4)) { try readAll(&stream, sizes: [2]) }
        #expect(stream.error?.underlying is ScriptedFileSystem.ReadFailure)
        // Through a sink as well.
        let fs2 = ScriptedFileSystem(.init(failAfter: 4, contents: bytes("0123456789")))
        let (form2, start2) = try makeForm(file: fs2)
        var sink = MultipartCollectingSink()
        #expect(throws: MultipartError(.fileReadFailed, partIndex: 1, offset: start2 + 4)) {
            try form2.writeBody(to: &sink, fileSystem: fs2, chunkSize: 4)
        }
    }

    @Test func fileChangeFailsTheSinkToo() throws {
        let original = MultipartMemoryFileSystem(contents: ["/up/f.txt": bytes("hello")])
        let (form, start) = try makeForm(file: original)
        let shorter = MultipartMemoryFileSystem(contents: ["/up/f.txt": bytes("hell")])
        var sink = MultipartCollectingSink()
        #expect(throws: MultipartError(.fileSizeChanged, partIndex: 1, offset: start)) {
            try form.writeBody(to: &sink, fileSystem: shorter)
        }
        #expect(UInt64(sink.bytes.readableBytes) == start)
    }

    // MARK: Streams

    func streamForm(actual: [UInt8], declared: UInt64, chunk: Int = 3, failToStart: Bool = false) throws -> (MultipartForm, UInt64) {
        var form = MultipartForm(boundary: fixedBoundary)
        try form.appendField(name: "a", value: "1")
        try form.appendStream(ScriptedStream(contents: actual, chunk: chunk, failToStart: failToStart),
                              name: "s", fileName: "s.bin", length: declared, mimeType: "application/octet-stream")
        let start = UInt64(form.framingBytes(ofPart: 0).readableBytes + 1 + form.framingBytes(ofPart: 1).readableBytes)
        return (form, start)
    }

    @Test func streamEndsEarly() throws {
        let (form, start) = try streamForm(actual: bytes("short"), declared: 9)
        expectFailure(form, fileSystem: MultipartMemoryFileSystem(), MultipartError(.streamEndedEarly, partIndex: 1, offset: start + 5))
        var stream = form.makeBodyStream()
        #expect(throws: MultipartError(.streamEndedEarly, partIndex: 1, offset: start + 5)) {
            while try stream.nextSegment(maxBytes: 2) != nil {}
        }
    }

    @Test func streamIsLongerThanDeclared() throws {
        let (form, start) = try streamForm(actual: bytes("longer!"), declared: 6)
        expectFailure(form, fileSystem: MultipartMemoryFileSystem(), MultipartError(.streamTooLong, partIndex: 1, offset: start + 6))
        let (exact, _) = try streamForm(actual: bytes("exact!"), declared: 6)
        #expect(try exact.renderedBytes().count == Int(exact.contentLength))
    }

    @Test func streamCannotStart() throws {
        let (form, start) = try streamForm(actual: [], declared: 0, failToStart: true)
        expectFailure(form, fileSystem: MultipartMemoryFileSystem(), MultipartError(.streamFailed, partIndex: 1, offset: start))
    }

    @Test func emptyStreamMustBeEmpty() throws {
        let (ok, _) = try streamForm(actual: [], declared: 0)
        #expect(try ok.renderedBytes().count == Int(ok.contentLength))
        let (tooLong, start) = try streamForm(actual: [1], declared: 0)
        expectFailure(tooLong, fileSystem: MultipartMemoryFileSystem(), MultipartError(.streamTooLong, partIndex: 1, offset: start))
    }

    @Test func restartAfterFailureStartsAFreshCheckedPass() throws {
        // Bigger at the first check, right afterwards: the first pass fails, a restarted one works.
        let fs = ScriptedFileSystem(.init(attributeSizes: [5, 6, 5], contents: bytes("hello")))
        let (form, start) = try makeForm(file: fs)
        var stream = form.makeBodyStream(fileSystem: fs)
        #expect(throws: MultipartError(.fileSizeChanged, partIndex: 1, offset: start)) { try readAll(&stream, sizes: [8]) }
        stream.restart()
        #expect(try readAll(&stream, sizes: [8]).count == Int(form.contentLength))
    }
}
