// The limits that turn a compression bomb into a typed error: the decoded size, the expansion
// ratio past its grace size, and the bound on what one call hands out.

import CourierBytes
import CourierCompression
import Testing

@Suite struct Limits {
    /// 1 GiB of zeros as 1024 gzip members of 1 MiB each: about 1 MB on the wire, built in
    /// milliseconds (one member compressed, then repeated).
    static let gibibyteBomb: [UInt8] = {
        let member = encode([UInt8](repeating: 0, count: 1 << 20), .gzip, level: 9)
        var body: [UInt8] = []
        body.reserveCapacity(member.count * 1024)
        for _ in 0..<1024 { body += member }
        return body
    }()

    /// Feeds the whole body at once and takes pieces until the decoder fails or finishes, never
    /// holding more than one piece.
    func run(_ body: [UInt8], _ contentEncoding: String, _ limits: DecompressionLimits) throws
        -> (error: ContentDecodingError?, decoded: UInt64, consumed: UInt64, largestPiece: Int) {
        var decoder = try ContentDecoder(contentEncoding: contentEncoding, limits: limits)
        var decoded: UInt64 = 0
        var largest = 0
        do {
            var piece = try decoder.decode(ByteBuffer(bytes: body))
            while true {
                decoded += UInt64(piece.readableBytes)
                largest = max(largest, piece.readableBytes)
                if decoder.isAwaitingInput { break }
                piece = try decoder.decode(ByteBuffer())
            }
            try decoder.finish()
            return (nil, decoded, decoder.consumedByteCount, largest)
        } catch {
            return (error, decoded, decoder.consumedByteCount, largest)
        }
    }

    @Test func gibibyteBombStopsAtTheRatioLimit() throws {
        #expect(Limits.gibibyteBomb.count < 2_000_000)
        let limits = DecompressionLimits.default
        let result = try run(Limits.gibibyteBomb, "gzip", limits)
        let error = try #require(result.error)
        #expect(error.code == .ratioExceeded)
        // Nothing past the grace size plus one piece was decoded, from a few KB of the body.
        #expect(result.decoded <= limits.ratioGraceSize + UInt64(limits.pieceSize))
        #expect(result.decoded >= limits.ratioGraceSize - UInt64(limits.pieceSize))
        #expect(result.consumed < 10_000)
        #expect(result.largestPiece <= limits.pieceSize)
        #expect(error.decodedOffset == result.decoded)
    }

    @Test func gibibyteBombStopsAtTheSizeLimit() throws {
        let limits = DecompressionLimits(maximumDecodedSize: 32 << 20, maximumRatio: nil)
        let result = try run(Limits.gibibyteBomb, "gzip", limits)
        let error = try #require(result.error)
        #expect(error.code == .decodedSizeExceeded)
        #expect(result.decoded <= 32 << 20)
        #expect(result.decoded > (32 << 20) - UInt64(limits.pieceSize))
        #expect(result.largestPiece <= limits.pieceSize)
    }

    @Test func singleStreamBombStopsAtTheRatioLimit() throws {
        // 256 MiB of zeros in one deflate stream, compressed a megabyte at a time (the encoder
        // never holds the plaintext).
        var encoder = ContentEncoder(.zlib, level: 9)
        let zeros = ByteBuffer(bytes: [UInt8](repeating: 0, count: 1 << 20))
        var body: [UInt8] = []
        for _ in 0..<256 { body += encoder.encode(zeros).readableBytesArray }
        body += encoder.finish().readableBytesArray
        #expect(body.count < 300_000)
        let result = try run(body, "deflate", .default)
        #expect(result.error?.code == .ratioExceeded)
        #expect(result.decoded <= DecompressionLimits.default.ratioGraceSize + UInt64(DecompressionLimits.default.pieceSize))
    }

    @Test func aBombInsideABombIsCaughtAtTheFirstStageThatExpandsTooFar() throws {
        let outer = encode(Limits.gibibyteBomb, .gzip, level: 9)
        let result = try run(outer, "gzip, gzip", .default)
        #expect(result.error?.code == .ratioExceeded)
        #expect(result.decoded <= DecompressionLimits.default.ratioGraceSize + UInt64(DecompressionLimits.default.pieceSize))
    }

    @Test func unlimitedStillHandsOutBoundedPieces() throws {
        let body = Array(Limits.gibibyteBomb.prefix(Limits.gibibyteBomb.count / 8))  // 128 members: 128 MiB
        let result = try run(body, "gzip", .unlimited)
        #expect(result.error == nil)
        #expect(result.decoded == 128 << 20)
        #expect(result.largestPiece == DecompressionLimits.default.pieceSize)
    }

    @Test func theRatioIsNotCheckedBelowTheGraceSize() throws {
        let body = encode([UInt8](repeating: 0, count: 1 << 20), .gzip, level: 9)  // 1000:1, exactly the grace size
        #expect(decodeChunks([body], contentEncoding: "gzip") == .decoded([UInt8](repeating: 0, count: 1 << 20)))
        let tight = DecompressionLimits(maximumRatio: 200, ratioGraceSize: 100_000)
        #expect(decodeChunks([body], contentEncoding: "gzip", limits: tight) == .failed(.ratioExceeded))
    }

    @Test func ordinaryTextPassesTheDefaultRatio() throws {
        let payload = sampleText(5 << 20)
        #expect(decodeChunks([encode(payload, .gzip, level: 9)], contentEncoding: "gzip") == .decoded(payload))
    }

    @Test func decodedSizeLimitIsExact() throws {
        let payload = sampleText(100_000)
        let body = encode(payload, .gzip)
        let exact = DecompressionLimits(maximumDecodedSize: 100_000)
        #expect(decodeChunks([body], contentEncoding: "gzip", limits: exact) == .decoded(payload))
        let under = DecompressionLimits(maximumDecodedSize: 99_999)
        #expect(decodeChunks([body], contentEncoding: "gzip", limits: under) == .failed(.decodedSizeExceeded))
        #expect(decodeChunks(body.map { [$0] }, contentEncoding: "gzip", limits: under) == .failed(.decodedSizeExceeded))
        // Identity counts too: the limit is on the body handed out.
        #expect(decodeChunks([noise(11)], contentEncoding: "identity", limits: DecompressionLimits(maximumDecodedSize: 10))
                == .failed(.decodedSizeExceeded))
        #expect(decodeChunks([noise(10)], contentEncoding: "", limits: DecompressionLimits(maximumDecodedSize: 10)) == .decoded(noise(10)))
    }

    @Test func defaultsAreTheDocumentedOnes() {
        let limits = DecompressionLimits()
        #expect(limits.maximumDecodedSize == nil)
        #expect(limits.maximumRatio == 200)
        #expect(limits.ratioGraceSize == 1 << 20)
        #expect(limits.maximumCodings == 5)
        #expect(limits.pieceSize == 64 * 1024)
    }
}
