// Checks for content decoding (CourierCompression): arbitrary bodies never crash, decode the same
// whole and cut, respect the limits; encode → decode is the identity for every framing.
import CourierBytes
import CourierCompression

extension FuzzChecks {
    /// What a decoder made of a body, compactly (the output can be large).
    struct InflateTranscript: Equatable, CustomStringConvertible {
        var count: UInt64 = 0
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a over the decoded bytes
        var error: ContentDecodingError.Code?

        mutating func add(_ piece: ByteBuffer) {
            count += UInt64(piece.readableBytes)
            piece.withUnsafeReadableBytes { bytes in
                for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            }
        }

        var description: String { "\(count) bytes, hash \(hash), error \(error.map { "\($0)" } ?? "none")" }
    }

    static let inflateCodings = ["gzip", "deflate", "deflate, gzip", "gzip, gzip", "x-gzip, identity"]

    /// Feeds `chunks` and checks the limits after every call.
    static func inflateTranscript(_ chunks: [[UInt8]], coding: String, limits: DecompressionLimits) -> InflateTranscript {
        var transcript = InflateTranscript()
        guard var decoder = try? ContentDecoder(contentEncoding: coding, limits: limits) else {
            fatalError("\(coding) must be accepted")
        }
        func check(_ piece: ByteBuffer) {
            require(piece.readableBytes <= limits.pieceSize, "a piece of \(piece.readableBytes) bytes, over \(limits.pieceSize)")
            require(decoder.decodedByteCount == transcript.count, "decodedByteCount \(decoder.decodedByteCount) is not what was handed out (\(transcript.count))")
            if let maximum = limits.maximumDecodedSize {
                require(transcript.count <= maximum, "\(transcript.count) bytes handed out past the limit \(maximum)")
            }
            if let ratio = limits.maximumRatio {
                let allowed = max(limits.ratioGraceSize, decoder.consumedByteCount.multipliedReportingOverflow(by: ratio).partialValue)
                require(transcript.count <= allowed, "\(transcript.count) bytes from \(decoder.consumedByteCount): past the ratio limit")
            }
        }
        do {
            for chunk in chunks {
                var piece = try decoder.decode(ByteBuffer(bytes: chunk))
                while true {
                    transcript.add(piece)
                    check(piece)
                    if decoder.isAwaitingInput { break }
                    piece = try decoder.decode(ByteBuffer())
                }
            }
            try decoder.finish()
        } catch {
            transcript.error = error.code
            require(error.inputOffset <= UInt64(chunks.reduce(0) { $0 + $1.count }), "error offset \(error.inputOffset) outside the input")
            // Sticky.
            do {
                _ = try decoder.decode(ByteBuffer())
                require(false, "a failed decoder decoded again")
            } catch let again {
                require(again == error, "the error changed: \(again) after \(error)")
            }
        }
        return transcript
    }

    /// Byte 0 chooses the coding, the piece size and the level; the rest is the body.
    public static func inflate(_ input: UnsafeRawBufferPointer) {
        guard let mode = input.first else { return }
        let body = Array(input.dropFirst())
        let coding = inflateCodings[Int(mode) % inflateCodings.count]
        let pieceSize = 1 + Int(mode >> 3) * 613
        // 1. Arbitrary bodies, without size or ratio limit (those fire at piece boundaries): the
        //    same transcript whole, byte by byte and at a split point chosen by the input. A cap of
        //    64 MiB keeps one input's work bounded; a transcript that hits it is not compared.
        let open = DecompressionLimits(maximumDecodedSize: 64 << 20, maximumRatio: nil, pieceSize: pieceSize)
        let whole = inflateTranscript([body], coding: coding, limits: open)
        if whole.error != .decodedSizeExceeded {
            var cuts: [[[UInt8]]] = []
            if body.count <= 2048 && whole.count <= 1 << 20 { cuts.append(body.map { [$0] }) }
            if body.count > 1 {
                let at = splitPoint(for: input) % body.count
                cuts.append([Array(body[..<at]), Array(body[at...])])
            }
            for cut in cuts {
                let other = inflateTranscript(cut, coding: coding, limits: open)
                if other.error == .decodedSizeExceeded { continue }
                // A failure hands out however much came before it in earlier pieces, which
                // depends on the cut; its code does not.
                if whole.error != nil {
                    require(other.error == whole.error, "\(coding) error depends on the cut: \(other) vs whole \(whole)")
                } else {
                    require(other == whole, "\(coding) transcript depends on the cut: \(other) vs whole \(whole)")
                }
            }
        }
        // 2. The limits hold for any input (inflateTranscript checks them on every piece).
        let tight = DecompressionLimits(maximumDecodedSize: UInt64(mode) * 4099, maximumRatio: 1 + UInt64(mode & 7) * 50,
                                        ratioGraceSize: UInt64(mode) * 17, pieceSize: pieceSize)
        _ = inflateTranscript([body], coding: coding, limits: tight)

        // 3. Round trip: the body as plaintext, in every framing, at a level chosen by the input.
        let level = Int(mode) % 10
        for format in [ContentEncoder.Format.gzip, .zlib, .rawDeflate] {
            var encoder = ContentEncoder(format, level: level)
            var encoded = ByteBuffer()
            let at = body.count > 1 ? splitPoint(for: input) % body.count : 0
            encoded.writeBuffer(encoder.encode(ByteBuffer(bytes: body[..<at])))
            encoded.writeBuffer(encoder.finish(ByteBuffer(bytes: body[at...])))
            let decoded: ByteBuffer
            do {
                decoded = try ContentDecoder.decode(encoded, contentEncoding: format == .gzip ? "gzip" : "deflate",
                                                    limits: DecompressionLimits(maximumRatio: nil, pieceSize: pieceSize))
            } catch {
                fatalError("\(format) of \(body.count) bytes failed to decode: \(error)")
            }
            require(decoded.readableBytesArray == body, "\(format) round trip changed \(body.count) bytes")
        }
    }
}
