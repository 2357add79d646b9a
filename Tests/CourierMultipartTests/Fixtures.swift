// Test fixtures: a seeded random generator, scripted file systems and streams that misbehave on
// cue, and helpers that drain a body stream or a parser.

import CourierBytes
import CourierMultipart
import Synchronization

/// SplitMix64: a small seeded generator, so every "random" test is reproducible.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The fixed boundary used by the exact-bytes tests.
let fixedBoundary = MultipartBoundary(randomBits: 0x0123_4567_89AB_CDEF)
let fixedBoundaryText = "Boundary+0123456789ABCDEF"

/// Bytes of a string, for expectations.
func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

/// Reads a whole body with reads of the given sizes, cycling through them.
func readAll(_ stream: inout MultipartBodyStream, sizes: [Int]) throws -> [UInt8] {
    var out: [UInt8] = []
    var i = 0
    var scratch = [UInt8](repeating: 0, count: sizes.max() ?? 1)
    while true {
        let size = sizes[i % sizes.count]
        i += 1
        let got = try scratch.withUnsafeMutableBytes { raw in
            try stream.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<size]))
        }
        if got == 0 { return out }
        out.append(contentsOf: scratch[0..<got])
    }
}

/// Reads a whole body as segments of at most `maxBytes`, reading file segments through `fileSystem`.
func readSegments(_ stream: inout MultipartBodyStream, maxBytes: Int, fileSystem: some MultipartFileSystem) throws -> [UInt8] {
    var out: [UInt8] = []
    while let segment = try stream.nextSegment(maxBytes: maxBytes) {
        switch segment {
        case .bytes(let buffer):
            out.append(contentsOf: buffer.readableBytesArray)
        case .file(let file):
            var chunk = [UInt8](repeating: 0, count: file.length)
            let got = try chunk.withUnsafeMutableBytes { try fileSystem.read(fileAt: file.path, offset: file.offset, into: $0) }
            out.append(contentsOf: chunk[0..<got])
        }
    }
    return out
}

/// A file system whose answers change with the number of calls made: for "the file changed while
/// the body was being sent".
final class ScriptedFileSystem: MultipartFileSystem, @unchecked Sendable {
    struct Script {
        /// The contents served at each attributes call (the last one repeats); nil: the file is gone.
        var attributeSizes: [UInt64?] = []
        /// After this many bytes have been read, reads return end of file.
        var endOfFileAfter: Int?
        /// After this many bytes have been read, reads throw.
        var failAfter: Int?
        var identity: MultipartFileIdentity?
        var contents: [UInt8]
    }
    struct ReadFailure: Error, Equatable {}
    struct Gone: Error, Equatable {}

    private let state: Mutex<(script: Script, attributeCalls: Int, bytesRead: Int, finished: [String])>

    init(_ script: Script) { state = Mutex((script, 0, 0, [])) }

    var finishedPaths: [String] { state.withLock { $0.finished } }

    func attributes(ofFileAt path: String) throws -> MultipartFileAttributes {
        try state.withLock { s in
            let sizes = s.script.attributeSizes
            let size: UInt64?
            if sizes.isEmpty {
                size = UInt64(s.script.contents.count)
            } else {
                size = sizes[min(s.attributeCalls, sizes.count - 1)]
            }
            s.attributeCalls += 1
            guard let size else { throw Gone() }
            return MultipartFileAttributes(size: size, identity: s.script.identity)
        }
    }

    func read(fileAt path: String, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        try state.withLock { s in
            if let failAfter = s.script.failAfter, s.bytesRead >= failAfter { throw ReadFailure() }
            var available = s.script.contents.count - Int(offset)
            if let end = s.script.endOfFileAfter { available = min(available, end - s.bytesRead) }
            let count = max(0, min(available, buffer.count))
            for i in 0..<count { buffer[i] = s.script.contents[Int(offset) + i] }
            s.bytesRead += count
            return count
        }
    }

    func finishedReading(fileAt path: String) {
        state.withLock { $0.finished.append(path) }
    }
}

/// A stream whose real length may differ from what the form was told.
struct ScriptedStream: MultipartStream {
    var contents: [UInt8]
    /// Bytes handed out per read call at most.
    var chunk: Int = 3
    var failToStart = false
    struct StartFailure: Error {}

    func makeReader() throws -> any MultipartStreamReader {
        if failToStart { throw StartFailure() }
        return Reader(contents: contents, chunk: chunk)
    }

    struct Reader: MultipartStreamReader {
        var contents: [UInt8]
        var chunk: Int
        var position = 0
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let count = min(chunk, buffer.count, contents.count - position)
            for i in 0..<count { buffer[i] = contents[position + i] }
            position += count
            return count
        }
    }
}

/// Feeds chunks to a fresh parser and describes everything it produced.
struct ParseOutcome: Equatable, CustomStringConvertible {
    var parts: [MultipartParsedPart]
    var complete: Bool
    var error: MultipartParseError?

    var description: String {
        "parts: \(parts.map { "\($0.head.name)=\($0.body.readableString.debugDescription)" }), complete: \(complete), error: \(error.map { "\($0)" } ?? "none")"
    }
}

func parse(chunks: [[UInt8]], boundary: MultipartBoundary, limits: MultipartParser.Limits = .init()) -> ParseOutcome {
    var parser = MultipartParser(boundary: boundary, limits: limits)
    var collector = MultipartPartCollector()
    do {
        for chunk in chunks {
            parser.receive(chunk)
            while let event = try parser.nextEvent() {
                if case .bodyChunk(let b) = event { precondition(b.readableBytes > 0, "empty body chunk") }
                collector.consume(event)
            }
        }
        parser.receiveEndOfInput()
        while let event = try parser.nextEvent() { collector.consume(event) }
        return ParseOutcome(parts: collector.parts, complete: collector.isComplete, error: nil)
    } catch {
        return ParseOutcome(parts: collector.parts, complete: collector.isComplete, error: error)
    }
}

/// A form with every kind of part, from a seed, small enough for the split harness when `small`.
func randomForm(seed: UInt64, maxParts: Int = 6, maxBody: Int = 40) throws -> (MultipartForm, MultipartMemoryFileSystem) {
    var rng = SeededGenerator(seed: seed)
    var form = MultipartForm(boundary: MultipartBoundary(using: &rng))
    var files: [String: [UInt8]] = [:]
    let alphabet: [UInt8] = Array("abcXYZ019 -_\"\r\n%.é".utf8)
    func text(_ max: Int) -> String {
        var out: [UInt8] = []
        for _ in 0..<Int.random(in: 1...max, using: &rng) {
            let b = alphabet[Int.random(in: 0..<alphabet.count, using: &rng)]
            if b >= 0x80 { out.append(contentsOf: Array("é".utf8)) } else { out.append(b) }
        }
        return String(decoding: out, as: UTF8.self)
    }
    func body() -> [UInt8] {
        (0..<Int.random(in: 0...maxBody, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
    }
    let count = Int.random(in: 1...maxParts, using: &rng)
    for i in 0..<count {
        switch Int.random(in: 0..<6, using: &rng) {
        case 0:
            try form.appendField(name: text(8), value: ByteBuffer(bytes: body()))
        case 1:
            try form.appendField(name: text(8), value: text(12))
        case 2:
            try form.appendData(ByteBuffer(bytes: body()), name: text(8), fileName: text(10), mimeType: "image/png")
        case 3:
            let path = "/tmp/f\(i).txt"
            files[path] = body()
            let fs = MultipartMemoryFileSystem(contents: files)
            try form.appendFile(atPath: path, name: text(6), fileSystem: fs)
        case 4:
            let contents = body()
            try form.appendStream(ScriptedStream(contents: contents, chunk: Int.random(in: 1...7, using: &rng)),
                                  name: text(6), fileName: text(6), length: UInt64(contents.count), mimeType: "application/octet-stream")
        default:
            try form.appendPart(headers: [MultipartHeader(name: "Content-Disposition", value: "form-data; name=\"custom\(i)\""),
                                          MultipartHeader(name: "X-Extra", value: "v\(i)")],
                                body: ByteBuffer(bytes: body()))
        }
    }
    return (form, MultipartMemoryFileSystem(contents: files))
}
