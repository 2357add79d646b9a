// Chunked encoding: the three-piece shape with the caller's storage shared, exact bytes for sizes
// around hex digit boundaries, trailers, the end state, and seeded round trips through a small
// reference decoder written here (independent of the module's own parser).

import CourierBytes
import CourierHTTP1
import Testing

/// A small deterministic generator (SplitMix64) so property loops are repeatable.
struct EncoderTestRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

private func bytes(of piece: GatherPiece) -> [UInt8] { piece.withUnsafeBytes { Array($0) } }

private func baseAddress(of buffer: ByteBuffer) -> UnsafeRawPointer? {
    buffer.withUnsafeReadableBytes { $0.baseAddress }
}

private func baseAddress(of piece: GatherPiece) -> UnsafeRawPointer? {
    guard case .buffer(let buffer) = piece else { return nil }
    return baseAddress(of: buffer)
}

private func pattern(_ count: Int) -> ByteBuffer {
    ByteBuffer(bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
}

/// Decodes a chunked body strictly (lower-case hex, no extensions) for the round-trip checks.
private func referenceDecode(_ wire: [UInt8]) -> (body: [UInt8], trailers: [String])? {
    var i = 0
    var body: [UInt8] = []
    func line() -> [UInt8]? {
        var j = i
        while j + 1 < wire.count && !(wire[j] == 0x0D && wire[j + 1] == 0x0A) { j += 1 }
        guard j + 1 < wire.count else { return nil }
        defer { i = j + 2 }
        return Array(wire[i..<j])
    }
    while true {
        guard let sizeLine = line(), !sizeLine.isEmpty, sizeLine.count <= 16 else { return nil }
        var size = 0
        for digit in sizeLine {
            guard let value = ASCIIInteger.hexValue(digit), !(digit >= 0x41 && digit <= 0x46) else { return nil }
            size = size << 4 | Int(value)
        }
        guard size > 0 || sizeLine == [0x30] else { return nil }
        guard sizeLine.first != 0x30 || sizeLine.count == 1 else { return nil }  // no leading zeros
        if size == 0 { break }
        guard i + size + 2 <= wire.count, wire[i + size] == 0x0D, wire[i + size + 1] == 0x0A else { return nil }
        body += wire[i..<(i + size)]
        i += size + 2
    }
    var trailers: [String] = []
    while let field = line() {
        if field.isEmpty { return i == wire.count ? (body, trailers) : nil }
        trailers.append(String(decoding: field, as: UTF8.self))
    }
    return nil
}

@Suite("Chunked encoder")
struct ChunkedEncoderTests {
    @Test("a chunk is [inline size line][the caller's buffer, same storage][static CRLF]")
    func threePieces() throws {
        var encoder = ChunkedEncoder()
        let chunk = pattern(300)
        let list = encoder.encodeChunk(chunk)
        #expect(list.pieces.count == 3)
        #expect(list.count == 3 + 2 + 300 + 2)
        guard list.pieces.count == 3 else { return }
        guard case .inline(let sizeLine) = list.pieces[0] else { Issue.record("size line is not inline"); return }
        #expect(sizeLine.array == Array("12c\r\n".utf8))
        guard case .buffer(let shared) = list.pieces[1] else { Issue.record("body is not a buffer piece"); return }
        #expect(baseAddress(of: shared) == baseAddress(of: chunk))
        #expect(shared.readableBytes == 300)
        guard case .staticBytes(let tail) = list.pieces[2] else { Issue.record("tail is not static"); return }
        #expect(tail.description == "\r\n")
    }

    @Test("a slice of a larger buffer goes out by reference, from its own reader index")
    func sliceIdentity() throws {
        var big = pattern(10_000)
        big.moveReaderIndex(forwardBy: 100)
        let slice = try #require(big.getSlice(at: 1_000, length: 4_096))
        var encoder = ChunkedEncoder()
        var list = GatherList()
        encoder.encodeChunk(slice, into: &list)
        let expectedStart = big.withUnsafeReadableBytes { $0.baseAddress! - 100 + 1_000 }
        #expect(baseAddress(of: list.pieces[1]) == expectedStart)
        let sameBytes = bytes(of: list.pieces[1]) == slice.readableBytesArray
        #expect(sameBytes)
        // The caller may keep mutating its own copy: the list still holds the bytes it was given.
        var mine = slice
        mine.writeBytes([1, 2, 3])
        #expect(list.pieces[1].count == 4_096)
        let unchanged = bytes(of: list.pieces[1]) == Array(big.readableBytesArray[900..<4_996])
        #expect(unchanged)
    }

    @Test("exact bytes for sizes at hex digit boundaries", arguments: [
        (1, "1"), (15, "f"), (16, "10"), (255, "ff"), (256, "100"), (4096, "1000"), (0xFFFFF, "fffff"),
    ])
    func exactBytes(size: Int, hex: String) throws {
        var encoder = ChunkedEncoder()
        let chunk = pattern(size)
        let list = encoder.encodeChunk(chunk)
        let joined = list.joined
        #expect(joined.count == hex.utf8.count + 2 + size + 2)
        #expect(Array(joined.prefix(hex.utf8.count + 2)) == Array("\(hex)\r\n".utf8))
        // Compared as one Bool so a failure does not print a megabyte of operands.
        let bodyAndTail = Array(joined.dropFirst(hex.utf8.count + 2)) == chunk.readableBytesArray + [0x0D, 0x0A]
        #expect(bodyAndTail)
        #expect(list.pieces.count == 3)
    }

    @Test("size lines up to 64 bits fit inline")
    func sizeLines() {
        #expect(ChunkedEncoder.sizeLine(1).array == Array("1\r\n".utf8))
        #expect(ChunkedEncoder.sizeLine(0xABCDEF).array == Array("abcdef\r\n".utf8))
        #expect(ChunkedEncoder.sizeLine(UInt64.max).array == Array("ffffffffffffffff\r\n".utf8))
    }

    @Test("an empty chunk produces nothing (it would end the body)")
    func emptyChunk() throws {
        var encoder = ChunkedEncoder()
        #expect(encoder.encodeChunk(ByteBuffer()).isEmpty)
        var consumed = pattern(8)
        consumed.moveReaderIndex(forwardBy: 8)
        var list = GatherList()
        encoder.encodeChunk(consumed, into: &list)
        #expect(list.isEmpty && list.pieces.isEmpty)
        #expect(!encoder.isEnded)
        #expect(try encoder.end().joined == Array("0\r\n\r\n".utf8))
    }

    @Test("the end: last chunk, validated trailers, final CRLF")
    func endWithTrailers() throws {
        var plain = ChunkedEncoder()
        let last = try plain.end()
        #expect(last.joined == Array("0\r\n\r\n".utf8))
        #expect(plain.isEnded)

        var encoder = ChunkedEncoder()
        var list = encoder.encodeChunk(ByteBuffer(string: "hello"))
        try encoder.end(trailers: ["X-Checksum": "abc", "Server-Timing": "db;dur=5", "X-Checksum": "def"], into: &list)
        #expect(String(decoding: list.joined, as: UTF8.self)
                == "5\r\nhello\r\n0\r\nX-Checksum: abc\r\nServer-Timing: db;dur=5\r\nX-Checksum: def\r\n\r\n")
    }

    @Test("bad trailers produce nothing and leave the encoder open")
    func badTrailers() throws {
        var encoder = ChunkedEncoder()
        var list = encoder.encodeChunk(ByteBuffer(string: "abc"))
        let before = list
        let cases: [(HTTPHeaders, HTTPEncodingError)] = [
            (["X-A": "1", "X B": "2"], HTTPEncodingError(.invalidFieldName, fieldIndex: 1, fieldName: "X B", offset: 1)),
            (["X-A": "1\r\n"], HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "X-A", offset: 1)),
            (["X-A": "1", "Content-Length": "3"], HTTPEncodingError(.forbiddenTrailerField, fieldIndex: 1, fieldName: "Content-Length")),
            (["transfer-encoding": "chunked"], HTTPEncodingError(.forbiddenTrailerField, fieldIndex: 0, fieldName: "transfer-encoding")),
            (["Host": "evil"], HTTPEncodingError(.forbiddenTrailerField, fieldIndex: 0, fieldName: "Host")),
            (["Trailer": "X"], HTTPEncodingError(.forbiddenTrailerField, fieldIndex: 0, fieldName: "Trailer")),
        ]
        for (trailers, error) in cases {
            #expect(throws: error) { try encoder.end(trailers: trailers, into: &list) }
            #expect(list.pieces.count == before.pieces.count && list == before)
            #expect(!encoder.isEnded)
        }
        try encoder.end(trailers: ["X-Done": "yes"], into: &list)
        #expect(String(decoding: list.joined, as: UTF8.self) == "3\r\nabc\r\n0\r\nX-Done: yes\r\n\r\n")
    }

    @Test("writing a chunk after the end is a programmer error")
    func chunkAfterEnd() async {
        await #expect(processExitsWith: .failure) {
            var encoder = ChunkedEncoder()
            _ = try? encoder.end()
            _ = encoder.encodeChunk(ByteBuffer(string: "late"))
        }
    }

    @Test("ending twice is a programmer error")
    func endTwice() async {
        await #expect(processExitsWith: .failure) {
            var encoder = ChunkedEncoder()
            _ = try? encoder.end()
            _ = try? encoder.end()
        }
    }

    @Test("seeded random bodies round-trip through a reference decoder")
    func randomRoundTrip() throws {
        var random = EncoderTestRandom(seed: 0xC0FFEE)
        for round in 0..<400 {
            var chunks: [ByteBuffer] = []
            var body: [UInt8] = []
            for _ in 0..<random.next(below: 8) {
                // Mostly small sizes, sometimes around hex boundaries, sometimes empty.
                let size: Int
                switch random.next(below: 4) {
                case 0: size = 0
                case 1: size = [1, 15, 16, 17, 255, 256, 4095, 4096, 4097][random.next(below: 9)]
                default: size = random.next(below: 2_000)
                }
                let data = (0..<size).map { _ in UInt8(truncatingIfNeeded: random.next()) }
                body += data
                chunks.append(ByteBuffer(bytes: data))
            }
            var trailers = HTTPHeaders()
            for t in 0..<random.next(below: 3) { trailers.add(name: "X-T\(t)", value: "v\(round)") }
            let list = try ChunkedEncoder.encodeBody(chunks, trailers: trailers)
            let nonEmpty = chunks.filter { !$0.isEmpty }.count
            #expect(list.pieces.count == nonEmpty * 3 + (trailers.count == 0 ? 1 : 2))
            let wire = list.joined
            let decoded = referenceDecode(wire)
            let decodes = decoded != nil
            try #require(decodes, "round \(round)")
            let sameBody = decoded?.body == body
            #expect(sameBody, "round \(round)")
            #expect(decoded?.trailers == trailers.fields.map { "\($0.name): \($0.value)" }, "round \(round)")
            // Partial writes: consuming in random steps leaves the right remainder.
            var remaining = list
            var sent: [UInt8] = []
            while !remaining.isEmpty {
                let step = min(remaining.count, 1 + random.next(below: 700))
                let snapshot = remaining.joined
                sent += snapshot[0..<step]
                remaining.consume(step)
            }
            let sentAll = sent == wire
            #expect(sentAll, "round \(round)")
        }
    }

    @Test("encodeBody refuses bad trailers")
    func encodeBodyBadTrailers() {
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "X", offset: 1)) {
            _ = try ChunkedEncoder.encodeBody([ByteBuffer(string: "a")], trailers: ["X": "a\u{0}"])
        }
    }
}
