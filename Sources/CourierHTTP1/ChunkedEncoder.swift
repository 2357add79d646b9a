// ChunkedEncoder: the chunked transfer coding for an outgoing body (RFC 9112 §7.1).
//
// What this file owns: chunk framing and the last-chunk / trailer section.
//
// Invariants:
// - A chunk is three gather pieces: the size line (hex digits and CRLF, built inline with no
//   allocation), the caller's buffer untouched (shared, never copied), and a static CRLF (the shape
//   of hyper's encode.rs). The encoder never copies body bytes.
// - An empty buffer produces no bytes: a zero-size chunk is the last-chunk and would end the body.
// - State is `open` until `end(trailers:)` succeeds, then `ended` for good. Writing a chunk or
//   ending again after that is a programmer error and traps (precondition), since the bytes would
//   land after the message on a connection that may already carry the next one.
// - A trailer section that fails validation produces nothing and leaves the encoder open, so the
//   caller can end the body with valid trailers (or none).
//
// Wire form (RFC 9112 §7.1):
//   chunk      = chunk-size CRLF chunk-data CRLF        chunk-size in lower-case hex, no zeros
//   last-chunk = "0" CRLF                               no chunk extensions are generated
//   trailer-section = *( field-line CRLF ), then CRLF   (RFC 9112 §7.1.2)

import CourierBytes

/// Frames an outgoing body in chunked transfer coding, chunk by chunk, without copying it.
///
/// ```swift
/// var chunked = ChunkedEncoder()
/// var out = GatherList()
/// chunked.encodeChunk(part1, into: &out)      // [size line][part1][CRLF]
/// chunked.encodeChunk(part2, into: &out)
/// try chunked.end(trailers: ["Digest": "..."], into: &out)
/// ```
public struct ChunkedEncoder: Sendable {
    private enum State: Sendable {
        case open
        case ended
    }

    private var state: State = .open

    /// Creates an encoder for one body.
    public init() {}

    /// Whether the last chunk has been written; no more writes are allowed.
    public var isEnded: Bool { state == .ended }

    /// Appends one chunk's pieces to `list`: size line, `chunk` by reference, CRLF.
    /// An empty `chunk` appends nothing.
    /// - Parameters:
    ///   - chunk: the body bytes (its readable bytes); shared with the list, not copied.
    ///   - list: the gather list to append to.
    /// - Precondition: `end(trailers:)` has not succeeded yet.
    public mutating func encodeChunk(_ chunk: ByteBuffer, into list: inout GatherList) {
        precondition(state == .open, "ChunkedEncoder: chunk written after the last chunk")
        let size = chunk.readableBytes
        guard size > 0 else { return }
        list.append(.inline(ChunkedEncoder.sizeLine(UInt64(size))))
        list.append(.buffer(chunk))
        list.append(.staticBytes("\r\n"))
    }

    /// Encodes one chunk as a new gather list of three pieces (none for an empty `chunk`).
    /// - Parameter chunk: the body bytes; shared with the list, not copied.
    /// - Returns: the chunk's pieces.
    /// - Precondition: `end(trailers:)` has not succeeded yet.
    public mutating func encodeChunk(_ chunk: ByteBuffer) -> GatherList {
        var list = GatherList(capacity: 3)
        encodeChunk(chunk, into: &list)
        return list
    }

    /// Appends the last chunk, the trailer fields and the final CRLF to `list`, and ends the body.
    /// - Parameters:
    ///   - trailers: trailer fields (RFC 9110 §6.5), validated like header fields;
    ///     Content-Length, Transfer-Encoding, Host and Trailer are refused.
    ///   - list: the gather list to append to; untouched when this throws.
    /// - Throws: `.invalidFieldName`, `.invalidFieldValue` or `.forbiddenTrailerField`; the
    ///   encoder then stays open.
    /// - Precondition: `end(trailers:)` has not succeeded yet.
    public mutating func end(trailers: HTTPHeaders = HTTPHeaders(), into list: inout GatherList) throws(HTTPEncodingError) {
        precondition(state == .open, "ChunkedEncoder: body ended twice")
        if trailers.count == 0 {
            list.append(.staticBytes("0\r\n\r\n"))
        } else {
            let summary = try HTTPFieldValidation.summarize(trailers, role: .trailer)
            let total = summary.encodedCount + 2
            var section = ByteBuffer(capacity: total)
            section.writeWithUnsafeMutableBytes(minimumWritableBytes: total) { region in
                var out = HeadWriter(region)
                for field in trailers.fields { out.writeField(name: field.name, value: field.value) }
                out.write("\r\n" as StaticString)
                precondition(out.position == total, "trailer section size was miscounted")
                return out.position
            }
            list.append(.staticBytes("0\r\n"))
            list.append(.buffer(section))
        }
        state = .ended
    }

    /// Encodes the last chunk and the trailer section as a new gather list, and ends the body.
    /// - Parameter trailers: trailer fields, validated; framing and routing fields are refused.
    /// - Returns: the pieces: `0\r\n`, the trailer fields, the final CRLF.
    /// - Throws: `HTTPEncodingError`; the encoder then stays open.
    /// - Precondition: `end(trailers:)` has not succeeded yet.
    public mutating func end(trailers: HTTPHeaders = HTTPHeaders()) throws(HTTPEncodingError) -> GatherList {
        var list = GatherList(capacity: 2)
        try end(trailers: trailers, into: &list)
        return list
    }

    /// Encodes a whole body given as a sequence of buffers: each non-empty buffer becomes one
    /// chunk, then the last chunk and trailers. For tests and fuzzing (encode, then parse back).
    /// - Parameters:
    ///   - chunks: the body, in order; empty buffers are skipped.
    ///   - trailers: trailer fields.
    /// - Returns: the body in chunked coding.
    /// - Throws: `HTTPEncodingError` when a trailer field is invalid.
    public static func encodeBody<Chunks: Sequence>(_ chunks: Chunks, trailers: HTTPHeaders = HTTPHeaders()) throws(HTTPEncodingError) -> GatherList
    where Chunks.Element == ByteBuffer {
        var encoder = ChunkedEncoder()
        var list = GatherList(capacity: chunks.underestimatedCount * 3 + 2)
        for chunk in chunks { encoder.encodeChunk(chunk, into: &list) }
        try encoder.end(trailers: trailers, into: &list)
        return list
    }

    /// The chunk-size line: lower-case hex digits without leading zeros, then CRLF
    /// (at most 16 + 2 bytes, so it always fits inline).
    /// - Parameter size: the chunk's size, greater than zero.
    /// - Returns: the line's bytes.
    public static func sizeLine(_ size: UInt64) -> InlineBytes {
        var line = ASCIIInteger.hex(size)
        line.append(UInt8(ascii: "\r"))
        line.append(UInt8(ascii: "\n"))
        return line
    }
}
