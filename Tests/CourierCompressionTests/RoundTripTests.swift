// Encode → decode round trips for every format, at every cut of the encoded body, and the
// streaming protocol itself (pieces, isAwaitingInput, copies).

import CourierBytes
import CourierCompression
import CourierTestSupport
import Testing

@Suite struct RoundTrip {
    static let payloads: [[UInt8]] = [
        [],
        Array(ascii: "a"),
        Array(ascii: "hello, hello, hello"),
        sampleText(300),
        noise(200),
    ]

    @Test(arguments: ContentEncoder.Format.allCases)
    func everyCutDecodesToThePayload(_ format: ContentEncoder.Format) {
        let name = format == .gzip ? "gzip" : "deflate"
        for payload in RoundTrip.payloads {
            let body = encode(payload, format)
            let (outcome, mismatches) = SplitHarness.run(body) { decodeChunks($0, contentEncoding: name) }
            #expect(outcome == .decoded(payload), "\(format) of \(payload.count) bytes")
            #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
        }
    }

    @Test func xGzipAndCaseAreGzip() throws {
        let body = encode(sampleText(100), .gzip)
        for name in ["x-gzip", "GZIP", "Gzip", " gzip ", "gzip,", ", gzip", "identity, gzip", "gzip, identity", "gzip,none"] {
            #expect(decodeChunks([body], contentEncoding: name) == .decoded(sampleText(100)), "\(name)")
        }
    }

    @Test func identityAndNoCodingPassBytesThrough() throws {
        let body = noise(1000)
        for name in ["", "identity", " , identity ,", "none"] {
            var decoder = try ContentDecoder(contentEncoding: name)
            #expect(decoder.isIdentity)
            let out = try decoder.decode(ByteBuffer(bytes: body))
            #expect(out.readableBytesArray == body)
            #expect(decoder.isAwaitingInput)
            try decoder.finish()
            #expect(decoder.decodedByteCount == 1000)
        }
    }

    @Test func emptyBodyWithACodingIsEmpty() throws {
        // curl and Go hand over an empty body whatever its Content-Encoding (nginx sends them).
        for name in ["gzip", "deflate", "gzip, deflate"] {
            #expect(decodeChunks([], contentEncoding: name) == .decoded([]))
            #expect(decodeChunks([[]], contentEncoding: name) == .decoded([]))
        }
    }

    @Test func largeBodiesAtSeveralCuts() {
        let payload = sampleText(3 * 1024 * 1024 + 11)
        for format in ContentEncoder.Format.allCases {
            let body = encode(payload, format)
            let name = format == .gzip ? "gzip" : "deflate"
            for size in [1, 1000, 65536, body.count] {
                let chunks = stride(from: 0, to: body.count, by: size).map { Array(body[$0..<min($0 + size, body.count)]) }
                if size == 1 && body.count > 200_000 {
                    // Byte by byte over a megabyte is slow in a debug build; the first 200 KB suffice.
                    let prefix = Array(body.prefix(200_000))
                    let outcome = decodeChunks(prefix.map { [$0] }, contentEncoding: name)
                    #expect(outcome == .failed(.truncated))
                    continue
                }
                #expect(decodeChunks(chunks, contentEncoding: name) == .decoded(payload), "\(format) in chunks of \(size)")
            }
        }
    }

    @Test func stackedCodingsAreUndoneLastFirst() throws {
        // "gzip, deflate": gzip was applied first, then deflate.
        let payload = sampleText(50_000)
        let body = encode(encode(payload, .gzip), .zlib)
        #expect(decodeChunks([body], contentEncoding: "gzip, deflate") == .decoded(payload))
        #expect(decodeChunks([body], contentEncoding: "deflate, gzip") == .failed(.invalidData))
        let small = encode(encode(Array(ascii: "stacked"), .gzip), .gzip)
        let (outcome, mismatches) = SplitHarness.run(small) { decodeChunks($0, contentEncoding: "gzip, gzip") }
        #expect(outcome == .decoded(Array(ascii: "stacked")))
        #expect(mismatches.isEmpty)
    }

    @Test func piecesAreBoundedAndTheDecoderSaysWhenToFeed() throws {
        let payload = sampleText(1_000_000)
        let body = encode(payload, .gzip)
        let limits = DecompressionLimits(pieceSize: 4096)
        var decoder = try ContentDecoder(contentEncoding: "gzip", limits: limits)
        var out: [UInt8] = []
        var calls = 0
        var piece = try decoder.decode(ByteBuffer(bytes: body))
        while true {
            calls += 1
            #expect(piece.readableBytes <= 4096)
            out += piece.readableBytesArray
            if decoder.isAwaitingInput { break }
            piece = try decoder.decode(ByteBuffer())
        }
        try decoder.finish()
        #expect(out == payload)
        #expect(calls >= 1_000_000 / 4096)
        #expect(decoder.decodedByteCount == 1_000_000)
        #expect(decoder.consumedByteCount == UInt64(body.count))
    }

    @Test func aCopyDecodesIndependently() throws {
        let payload = sampleText(200_000)
        let body = encode(payload, .zlib)
        var first = try ContentDecoder(contentEncoding: "deflate", limits: DecompressionLimits(pieceSize: 1000))
        // Copy in the middle of the stream, with output still pending from input already given.
        let start = try first.decode(ByteBuffer(bytes: body.prefix(5000))).readableBytesArray
        #expect(!first.isAwaitingInput)
        var second = first
        let restOfFirst = try drain(&first, ByteBuffer(bytes: body.dropFirst(5000)))
        try first.finish()
        let restOfSecond = try drain(&second, ByteBuffer(bytes: body.dropFirst(5000)))
        try second.finish()
        #expect(start + restOfFirst == payload)
        #expect(start + restOfSecond == payload)
    }

    /// Takes all output from the pending input, then from `input`.
    func drain(_ decoder: inout ContentDecoder, _ input: ByteBuffer) throws(ContentDecodingError) -> [UInt8] {
        var out: [UInt8] = []
        while !decoder.isAwaitingInput { out += try decoder.decode(ByteBuffer()).readableBytesArray }
        out += try decoder.decode(input).readableBytesArray
        while !decoder.isAwaitingInput { out += try decoder.decode(ByteBuffer()).readableBytesArray }
        return out
    }

    @Test func streamingEncoderMatchesWholeBuffer() throws {
        let payload = sampleText(100_000)
        for format in ContentEncoder.Format.allCases {
            var encoder = ContentEncoder(format)
            var body: [UInt8] = []
            for start in stride(from: 0, to: payload.count, by: 7000) {
                body += encoder.encode(ByteBuffer(bytes: payload[start..<min(start + 7000, payload.count)])).readableBytesArray
            }
            body += encoder.finish().readableBytesArray
            let name = format == .gzip ? "gzip" : "deflate"
            #expect(decodeChunks([body], contentEncoding: name) == .decoded(payload), "\(format)")
        }
    }

    @Test func syncFlushMakesEverythingSoFarDecodable() throws {
        var encoder = ContentEncoder(.gzip)
        let part = encoder.flush(ByteBuffer(string: "first part")).readableBytesArray
        var decoder = try ContentDecoder(contentEncoding: "gzip")
        let out = try decoder.decode(ByteBuffer(bytes: part))
        #expect(out.readableString == "first part")
        let rest = encoder.finish(ByteBuffer(string: ", second")).readableBytesArray
        #expect(try decoder.decode(ByteBuffer(bytes: rest)).readableString == ", second")
        try decoder.finish()
    }

    @Test func everyLevelRoundTrips() {
        let payload = sampleText(20_000)
        for level in 0...9 {
            #expect(decodeChunks([encode(payload, .gzip, level: level)], contentEncoding: "gzip") == .decoded(payload))
        }
    }
}
