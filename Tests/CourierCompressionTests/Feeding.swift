// How the tests drive a decoder: the protocol a client follows (decode, drain while not awaiting
// input, finish), with the piece-size bound checked on every call.

import CourierBytes
import CourierCompression
import Testing

/// What a decoder made of a whole body.
enum Outcome: Equatable, CustomStringConvertible {
    case decoded([UInt8])
    case failed(ContentDecodingError.Code)

    var description: String {
        switch self {
        case .decoded(let bytes): return "decoded \(bytes.count) bytes"
        case .failed(let code): return "failed \(code)"
        }
    }
}

/// Feeds `chunks` to a fresh decoder for `contentEncoding`, draining after each, then finishes.
/// Records an issue if a call hands out more than `limits.pieceSize` bytes.
func decodeChunks(_ chunks: [[UInt8]], contentEncoding: String, limits: DecompressionLimits = .default) -> Outcome {
    var output: [UInt8] = []
    do {
        var decoder = try ContentDecoder(contentEncoding: contentEncoding, limits: limits)
        for chunk in chunks {
            var piece = try decoder.decode(ByteBuffer(bytes: chunk))
            while true {
                if !decoder.isIdentity && piece.readableBytes > limits.pieceSize {
                    Issue.record("a piece of \(piece.readableBytes) bytes, more than \(limits.pieceSize)")
                }
                output += piece.readableBytesArray
                if decoder.isAwaitingInput { break }
                piece = try decoder.decode(ByteBuffer())
            }
        }
        try decoder.finish()
        return .decoded(output)
    } catch {
        return .failed(error.code)
    }
}

/// The error a whole body fails with, or nil.
func decodingError(_ body: [UInt8], contentEncoding: String, limits: DecompressionLimits = .default) -> ContentDecodingError? {
    do {
        _ = try ContentDecoder.decode(ByteBuffer(bytes: body), contentEncoding: contentEncoding, limits: limits)
        return nil
    } catch {
        return error
    }
}

func encode(_ bytes: [UInt8], _ format: ContentEncoder.Format, level: Int = 6) -> [UInt8] {
    ContentEncoder.encode(ByteBuffer(bytes: bytes), format: format, level: level).readableBytesArray
}

/// Deterministic text that compresses about 3:1, like real pages (an LCG over a small vocabulary).
func sampleText(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
    let words: [String] = ["alpha", "courier", "zlib", "stream", "gzip", "bytes", "header", "window", "of", "the",
                           "deflate", "member", "piece", "limit", "ratio", "bomb", "json", "{\"a\":1}", "42", "\n"]
    var state = seed
    var out: [UInt8] = []
    out.reserveCapacity(count + 16)
    while out.count < count {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        out += Array(words[Int(state >> 33) % words.count].utf8)
        out.append(0x20)
    }
    return Array(out.prefix(count))
}

/// Random-looking bytes that do not compress.
func noise(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}
