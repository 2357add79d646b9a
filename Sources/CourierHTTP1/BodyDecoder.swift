// BodyDecoder: one decoder for every body framing — none, Content-Length, chunked, until close —
// each returning the body as slices of the input buffer (zero copy).
//
// What it owns: the framing chosen by `BodyFraming` and the progress through it.
//
// Invariants: `consumed` counts body bytes taken from the input (offsets in errors are from the
// start of the body); `.end` is returned exactly once, after which `next` returns nil; after an
// error every call throws it again.
//
// RFC 9112 §6.3 (framing), §8 (incomplete messages: a Content-Length body cut by a close is an
// error, `bodyShorterThanAnnounced`; a chunked body cut by a close is `incompleteChunkedBody`; a
// body delimited by the close ends normally).
//
// Raw chunked bodies (`passesChunkedFramingThrough`, curl --raw): the chunked decoder still runs,
// so the end of the body is found and malformed framing still fails, but what is handed out is
// every byte it consumed — size lines, extensions, CRLFs, the last chunk and the trailers — as it
// arrived; `.end` follows the raw bytes of the last chunk. The concatenated slices are the wire
// bytes of the body, wherever the input was split.

import CourierBytes

/// Decodes a message body of any framing into zero-copy slices.
public struct BodyDecoder: Sendable {
    private enum Mode: UInt8, Sendable {
        case noBody, contentLength, chunked, untilClose, ended
    }

    private var mode: Mode
    private var remaining: UInt64 = 0
    private var chunked: ChunkedDecoder
    private var failure: HTTPParserError?
    private var lengthConsumed = 0
    /// Raw mode: the trailers of a chunked body whose framing bytes were handed out, `.end` to
    /// follow.
    private var pendingEnd: ParsedFields?
    /// Raw mode: framing bytes consumed and not yet handed out.
    private var heldFraming = ByteBuffer()

    /// Hand out a chunked body's bytes with their framing instead of decoded (curl `--raw`).
    public var passesChunkedFramingThrough = false

    /// Creates a decoder for a body framed as `framing`.
    /// - Parameters:
    ///   - framing: how the body is delimited.
    ///   - limits: the chunked-coding limits.
    public init(framing: BodyFraming, limits: HTTP1ParserLimits = .default) {
        chunked = ChunkedDecoder(limits: limits)
        switch framing {
        case .noBody: mode = .noBody
        case .contentLength(let length): mode = .contentLength; remaining = length
        case .chunked: mode = .chunked
        case .untilClose: mode = .untilClose
        }
    }

    /// Whether `.end` has been returned.
    public var isComplete: Bool { mode == .ended }

    /// The body bytes still to come of a Content-Length body (nil for other framings).
    public var remainingLength: UInt64? { mode == .contentLength ? remaining : nil }

    /// Accounts for `count` body bytes the caller took from the connection itself (spliced into
    /// a file) instead of handing them to `next`.
    /// - Parameter count: the bytes taken.
    /// - Precondition: a Content-Length body with at least `count` bytes still to come, or a body
    ///   delimited by the close.
    public mutating func skip(_ count: UInt64) {
        switch mode {
        case .contentLength:
            precondition(count <= remaining, "skipped past the end of the body")
            remaining -= count
            lengthConsumed += Int(count)
        case .untilClose:
            lengthConsumed += Int(count)
        default:
            preconditionFailure("skip on a \(mode) body")
        }
    }

    /// Body bytes taken from the input so far.
    public var consumed: Int { mode == .chunked ? chunked.consumed : lengthConsumed }

    /// Decodes from the readable bytes of `buffer`, moving its reader index past what it used.
    /// - Parameter buffer: the receive buffer.
    /// - Returns: the next event, or nil when more bytes are needed (or the body already ended).
    /// - Throws: `HTTPParserError` for malformed chunked framing; the same error on later calls.
    public mutating func next(from buffer: inout ByteBuffer) throws(HTTPParserError) -> BodyEvent? {
        if let failure { throw failure }
        switch mode {
        case .noBody:
            mode = .ended
            return .end(trailers: ParsedFields())
        case .contentLength:
            if remaining == 0 {
                mode = .ended
                return .end(trailers: ParsedFields())
            }
            let available = buffer.readableBytes
            if available == 0 { return nil }
            let count = remaining < UInt64(available) ? Int(remaining) : available
            remaining -= UInt64(count)
            lengthConsumed += count
            return .data(buffer.readSlice(length: count)!)
        case .chunked:
            do throws(HTTPParserError) {
                if passesChunkedFramingThrough { return try nextRaw(from: &buffer) }
                let event = try chunked.next(from: &buffer)
                if case .end = event { mode = .ended }
                return event
            } catch {
                failure = error
                throw error
            }
        case .untilClose:
            let available = buffer.readableBytes
            if available == 0 { return nil }
            lengthConsumed += available
            return .data(buffer.readSlice(length: available)!)
        case .ended:
            return nil
        }
    }

    /// Raw chunked mode: the bytes the decoder consumed, as they were. Framing bytes consumed
    /// without a data byte after them (a size line or CRLF on its own) are held and handed out
    /// with the next data or the end, so what is handed out — also before an error — never
    /// depends on how the input was split.
    private mutating func nextRaw(from buffer: inout ByteBuffer) throws(HTTPParserError) -> BodyEvent? {
        if let trailers = pendingEnd {
            pendingEnd = nil
            mode = .ended
            return .end(trailers: trailers)
        }
        // A copy shares the storage: the raw slice below is zero copy.
        var before = buffer
        let event = try chunked.next(from: &buffer)
        let consumed = before.readableBytes - buffer.readableBytes
        let raw = before.readSlice(length: consumed)!
        var out: ByteBuffer
        if heldFraming.readableBytes == 0 {
            out = raw
        } else {
            out = heldFraming
            out.writeBuffer(raw)
        }
        switch event {
        case nil:
            heldFraming = out
            return nil
        case .data?:
            heldFraming = ByteBuffer()
            return .data(out)
        case .end(let trailers)?:
            heldFraming = ByteBuffer()
            guard out.readableBytes > 0 else {
                mode = .ended
                return event
            }
            pendingEnd = trailers
            return .data(out)
        }
    }

    /// Reports that the connection closed. Call it after `next` returned nil for the bytes
    /// already received.
    /// - Returns: `.end` when the close completes the body (a body delimited by the close, or a
    ///   complete body whose end was not yet returned); nil when `.end` was already returned.
    /// - Throws: `bodyShorterThanAnnounced` or `incompleteChunkedBody` when the body was cut short.
    public mutating func connectionClosed() throws(HTTPParserError) -> BodyEvent? {
        if let failure { throw failure }
        switch mode {
        case .ended:
            return nil
        case .noBody, .untilClose:
            mode = .ended
            return .end(trailers: ParsedFields())
        case .contentLength:
            guard remaining == 0 else {
                let error = HTTPParserError(.bodyShorterThanAnnounced, offset: lengthConsumed)
                failure = error
                throw error
            }
            mode = .ended
            return .end(trailers: ParsedFields())
        case .chunked:
            do throws(HTTPParserError) {
                try chunked.connectionClosed()
            } catch {
                failure = error
                throw error
            }
            // A complete chunked body already returned `.end` from `next`.
            mode = .ended
            return nil
        }
    }
}
