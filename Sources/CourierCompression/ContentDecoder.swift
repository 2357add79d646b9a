// ContentDecoder: undoes a response's content codings (RFC 9110 §8.4) while the body streams in,
// through the system zlib, with limits that turn a compression bomb into a typed error.
//
// Shape (sans-IO, design §2): a value fed with body bytes as they arrive; it hands decoded bytes
// back one bounded piece at a time (pull), so the shell decides when to ask for more and
// back-pressure reaches the socket. No I/O, no clock.
//
// The protocol:
//     var piece = try decoder.decode(bodyBytes)        // queue input, get up to pieceSize bytes
//     deliver(piece)
//     while !decoder.isAwaitingInput {                 // more output from the same input
//         deliver(try decoder.decode(ByteBuffer()))
//     }
//     ... at the end of the body:
//     try decoder.finish()                             // .truncated if a stream was cut short
//
// Invariants:
// - One call hands out at most `limits.pieceSize` bytes, and the decoder holds at most one input
//   slice, one scratch piece and one zlib state (≈ 40 KiB) per coding, whatever the input: a 10 MB
//   body that expands to 10 GB costs the caller one piece per call and fails at the first limit.
// - Limits are checked per piece, before the piece is handed out; nothing past a limit is ever
//   returned.
// - Errors are sticky: after one throw every call throws the same error.
// - The outcome (bytes, error code and offsets) does not depend on how the body was cut.
// - Copies are independent (copy-on-write of the zlib state through inflateCopy).
//
// A list of codings is undone from the last to the first (RFC 9110 §8.4: listed in the order
// applied). `identity` entries do nothing. Stage i's output feeds stage i+1 one piece at a time;
// each stage's cumulative output is checked against the ratio limit, the final output against
// both limits.

import CourierBytes

/// A streaming decoder for the content codings of one response body (gzip, x-gzip, deflate,
/// identity), built on the system zlib.
///
/// Feed body bytes with ``decode(_:)``; each call returns at most ``DecompressionLimits/pieceSize``
/// decoded bytes (possibly none). While ``isAwaitingInput`` is false, more output is ready from
/// input already given: call `decode(ByteBuffer())` until it turns true. At the end of the body
/// call ``finish()``.
///
/// Choices (docs/compression.md): gzip members may follow one another (RFC 1952 §2.2), anything
/// else after a member is `.invalidData`; `deflate` is zlib-wrapped (RFC 1950) or, when its first
/// two bytes are not a zlib header, raw (RFC 1951), after which up to four bytes are tolerated; an
/// empty body decodes to nothing under any coding.
public struct ContentDecoder: Sendable {
    private enum State {
        case decoding
        case failed(ContentDecodingError)
        case finished
    }

    /// The codings as listed in the field (the order they were applied), identity included.
    public let codings: [ContentCoding]
    /// The limits in force.
    public let limits: DecompressionLimits
    private var state = State.decoding
    /// One stage per non-identity coding, in decoding order (the reverse of `codings`).
    private var stages: [InflateStage]
    private var identityConsumed: UInt64 = 0
    /// Decoded bytes handed out so far.
    public private(set) var decodedByteCount: UInt64 = 0
    /// True when every byte given has been used and no more output is ready without more input;
    /// false after a call that stopped because its piece was full.
    public private(set) var isAwaitingInput = true

    /// A decoder for the codings a `Content-Encoding` field value lists.
    /// - Parameters:
    ///   - contentEncoding: the field value (several field lines joined with ", "); empty or
    ///     absent means no coding.
    ///   - limits: the limits to enforce.
    /// - Throws: `.unsupportedCoding` for an unknown coding or a non-token element,
    ///   `.tooManyCodings` past `limits.maximumCodings`.
    public init(contentEncoding: String, limits: DecompressionLimits = .default) throws(ContentDecodingError) {
        try self.init(codings: ContentCoding.codings(inFieldValue: contentEncoding), limits: limits)
    }

    /// A decoder for codings listed in the order they were applied.
    /// - Parameters:
    ///   - codings: the codings, as a `Content-Encoding` lists them.
    ///   - limits: the limits to enforce.
    /// - Throws: `.tooManyCodings` past `limits.maximumCodings`.
    public init(codings: [ContentCoding], limits: DecompressionLimits = .default) throws(ContentDecodingError) {
        guard codings.count <= limits.maximumCodings else {
            throw ContentDecodingError(.tooManyCodings, message: "\(codings.count) content codings listed; at most \(limits.maximumCodings) are decoded")
        }
        self.codings = codings
        self.limits = limits
        stages = codings.reversed().compactMap { coding in
            switch coding {
            case .gzip: return InflateStage(.gzip)
            case .deflate: return InflateStage(.deflate)
            case .identity: return nil
            }
        }
    }

    /// Whether the decoder passes bytes through unchanged (no coding, or identity only).
    public var isIdentity: Bool { stages.isEmpty }

    /// Body bytes consumed so far (the input offset errors report).
    public var consumedByteCount: UInt64 { stages.first?.consumed ?? identityConsumed }

    /// Queues body bytes and returns the next piece of decoded output.
    ///
    /// With no coding the input comes back as is (zero copy, whatever its size). Otherwise the
    /// piece holds at most `limits.pieceSize` bytes; when ``isAwaitingInput`` is false afterwards,
    /// call again (with an empty buffer, or more input) for the rest.
    ///
    /// - Parameter input: the next body bytes (a slice of the receive buffer is kept, not copied,
    ///   until consumed); empty to take more output from input already given.
    /// - Returns: decoded bytes, possibly none.
    /// - Throws: `ContentDecodingError` for invalid data or an exceeded limit; after a throw every
    ///   call throws the same error.
    public mutating func decode(_ input: ByteBuffer) throws(ContentDecodingError) -> ByteBuffer {
        switch state {
        case .failed(let error): throw error
        case .finished: preconditionFailure("decode(_:) called after finish()")
        case .decoding: break
        }
        if stages.isEmpty {
            try checkDecodedSize(adding: input.readableBytes)
            identityConsumed += UInt64(input.readableBytes)
            decodedByteCount += UInt64(input.readableBytes)
            return input
        }
        stages[0].append(input)
        let piece: ByteBuffer
        do {
            piece = try pull(stages.count - 1)
        } catch {
            throw fail(error.code, error.message)
        }
        try checkDecodedSize(adding: piece.readableBytes)
        decodedByteCount += UInt64(piece.readableBytes)
        isAwaitingInput = stages.allSatisfy { $0.isDrained }
        return piece
    }

    /// Ends the body: checks that every coding's stream is complete.
    ///
    /// Call it once `isAwaitingInput` is true (all output taken). An empty body is complete under
    /// any coding.
    /// - Throws: `.truncated` when the body ended inside a stream; a sticky earlier error.
    public mutating func finish() throws(ContentDecodingError) {
        switch state {
        case .failed(let error): throw error
        case .finished: return
        case .decoding: break
        }
        precondition(isAwaitingInput, "finish() called with decoded output still to take: call decode(ByteBuffer()) until isAwaitingInput")
        for stage in stages {
            do {
                try stage.finish()
            } catch {
                throw fail(error.code, error.message)
            }
        }
        state = .finished
    }

    /// Decodes a whole body at once (for tests, fuzzing and small bodies).
    ///
    /// The result is held in memory: bound it with `limits.maximumDecodedSize`.
    /// - Parameters:
    ///   - body: the encoded body.
    ///   - contentEncoding: the `Content-Encoding` field value.
    ///   - limits: the limits to enforce.
    /// - Returns: the decoded body.
    /// - Throws: `ContentDecodingError`.
    public static func decode(_ body: ByteBuffer, contentEncoding: String,
                              limits: DecompressionLimits = .default) throws(ContentDecodingError) -> ByteBuffer {
        var decoder = try ContentDecoder(contentEncoding: contentEncoding, limits: limits)
        var result = ByteBuffer()
        var piece = try decoder.decode(body)
        result.writeBuffer(piece)
        while !decoder.isAwaitingInput {
            piece = try decoder.decode(ByteBuffer())
            result.writeBuffer(piece)
        }
        try decoder.finish()
        return result
    }

    // MARK: The chain

    /// The next piece from stage `index`, pulling from the stage before it as it starves.
    private mutating func pull(_ index: Int) throws(StageFailure) -> ByteBuffer {
        while true {
            let piece = try stages[index].produce(maxBytes: limits.pieceSize)
            try checkRatio(producedBy: stages[index])
            if piece.readableBytes > 0 || index == 0 { return piece }
            let upstream = try pull(index - 1)
            if upstream.readableBytes == 0 { return upstream }
            stages[index].append(upstream)
        }
    }

    private func checkRatio(producedBy stage: InflateStage) throws(StageFailure) {
        guard let ratio = limits.maximumRatio, stage.produced > limits.ratioGraceSize else { return }
        let consumed = stages[0].consumed
        let (allowed, overflow) = consumed.multipliedReportingOverflow(by: ratio)
        if !overflow && stage.produced > allowed {
            throw StageFailure(code: .ratioExceeded,
                               message: "\(stage.produced) bytes decoded from \(consumed): more than \(ratio) to 1")
        }
    }

    private mutating func checkDecodedSize(adding count: Int) throws(ContentDecodingError) {
        guard let maximum = limits.maximumDecodedSize else { return }
        if decodedByteCount + UInt64(count) > maximum {
            throw fail(.decodedSizeExceeded, "the decoded body exceeds \(maximum) bytes")
        }
    }

    private mutating func fail(_ code: ContentDecodingError.Code, _ message: String) -> ContentDecodingError {
        let error = ContentDecodingError(code, message: message, inputOffset: consumedByteCount, decodedOffset: decodedByteCount)
        state = .failed(error)
        return error
    }
}
