// MultipartParser: a strict, incremental multipart/form-data parser (RFC 7578 over RFC 2046 §5.1),
// for tests, the embedded server and round-trip fuzzing.
//
// Every transition lives in this file; header-line and Content-Disposition syntax live in
// MultipartParser+Head.swift. Theory of operation (h11's): `receive(_:)` only buffers;
// `nextEvent()` parses one event or answers nil for "need more data"; `receiveEndOfInput()` says no
// more bytes will come. The events do not depend on how the input was cut, except that a body may
// arrive as more or fewer `bodyChunk`s, each a slice of the receive buffer (zero copy).
//
//   start ──"--B"──▶ afterDelimiter ──CRLF──▶ headers ──empty line──▶ body ──CRLF--B──▶ afterDelimiter
//     │                  │  ▲                 (partHead)               (bodyChunk…)   (partEnd)
//     └─preamble─CRLF--B─┘  └──────────────────────────────────────────────────────────────┘
//   afterDelimiter ──"--"──▶ afterClose ──[padding] CRLF or end of input──▶ done (end; the rest is
//   the epilogue, left in `remainingBytes`)
//
// Grammar (RFC 2046 §5.1.1, with RFC 7578's constraints):
//   multipart-body := [preamble CRLF] dash-boundary transport-padding CRLF body-part
//                     *encapsulation close-delimiter transport-padding [CRLF epilogue]
//   encapsulation  := delimiter transport-padding CRLF body-part
//   delimiter      := CRLF dash-boundary ; dash-boundary := "--" boundary
//   body-part      := MIME-part-headers [CRLF *OCTET]
//
// Strictness: at least one part; a delimiter followed by anything but `--`, LWSP or CRLF is an error
// (the boundary must not occur inside a part); header lines are RFC 9110 fields with CRLF endings,
// no folding; every part has exactly one `Content-Disposition: form-data` with a `name`. Errors are
// sticky. Every limit is a field of `Limits`.

import CourierBytes

/// An incremental multipart/form-data parser.
public struct MultipartParser: Sendable {
    /// The parser's limits.
    public struct Limits: Sendable, Hashable {
        /// The most parts in one body. Default 1,000: Go's net/http `multipartmaxparts`.
        public var maxPartCount: Int = 1000
        /// The most bytes of one part's header block, empty line included. Default 16 KiB: h11's
        /// limit for a whole HTTP head; a form part's head is a line or two.
        public var maxHeaderBytesPerPart: Int = 16 * 1024
        /// The most header fields in one part. Default 100: hyper's header count.
        public var maxHeaderFieldsPerPart: Int = 100
        /// The most bytes before the first delimiter (RFC 2046 preamble). Default 1 KiB: form-data
        /// senders never write one; Go accepts any length, Courier bounds it. 0 refuses preambles.
        public var maxPreambleBytes: Int = 1024
        /// The most transport-padding bytes (SP/HTAB) after a delimiter. Default 64: RFC 2046 says
        /// composers must not pad and receivers must accept padding, without a bound.
        public var maxDelimiterPadding: Int = 64

        /// The default limits.
        public init() {}
    }

    /// What the parser found.
    public enum Event: Sendable, Hashable {
        /// A part's header block.
        case partHead(MultipartPartHead)
        /// Bytes of the current part's body, a slice of the receive buffer; never empty.
        case bodyChunk(ByteBuffer)
        /// The current part's body is complete.
        case partEnd
        /// The close delimiter line: the body is complete. Bytes after it are the epilogue.
        case end
    }

    enum State: Sendable {
        case start
        case preamble(discarded: Int)
        case afterDelimiter(first: Bool, padding: Int)
        case headers(fields: [MultipartHeader], bytes: Int, scanned: Int)
        case body
        case afterClose(padding: Int)
        case done
        case failed(MultipartParseError)
    }

    /// The limits in force.
    public let limits: Limits
    /// The boundary searched for.
    public let boundary: MultipartBoundary
    /// "\r\n--B": the delimiter (RFC 2046 §5.1.1).
    let delimiter: [UInt8]
    var state: State = .start
    var buffer = ByteBuffer()
    /// Input bytes before `buffer.readerIndex`.
    var consumed = 0
    var endOfInput = false
    var partCount = 0

    /// Creates a parser.
    /// - Parameters:
    ///   - boundary: the boundary from the request's Content-Type
    ///     (`MultipartBoundary(contentType:)`).
    ///   - limits: the limits.
    public init(boundary: MultipartBoundary, limits: Limits = Limits()) {
        self.boundary = boundary
        self.limits = limits
        self.delimiter = Array("\r\n--".utf8) + boundary.bytes
    }

    /// The number of parts whose head has been parsed.
    public var partsSeen: Int { partCount }

    /// Bytes received but not parsed; after `.end`, the epilogue received so far.
    public var remainingBytes: ByteBuffer { buffer }

    /// Buffers `bytes` (kept by reference when nothing else is buffered).
    /// - Parameter bytes: the next input bytes.
    public mutating func receive(_ bytes: ByteBuffer) {
        precondition(!endOfInput, "bytes received after the end of input")
        if buffer.readableBytes == 0 {
            buffer = bytes
            return
        }
        if buffer.readerIndex > 0 { buffer.discardReadBytes() }
        buffer.writeBuffer(bytes)
    }

    /// Buffers a copy of `bytes`.
    /// - Parameter bytes: the next input bytes.
    public mutating func receive(_ bytes: some Sequence<UInt8>) {
        receive(ByteBuffer(bytes: bytes))
    }

    /// Says that no more bytes will come; `nextEvent()` then finishes or reports `.truncated`.
    public mutating func receiveEndOfInput() {
        endOfInput = true
    }

    /// Parses the next event.
    /// - Returns: the event, or nil when more input is needed (or after `.end`).
    /// - Throws: `MultipartParseError`; the parser then stays failed.
    public mutating func nextEvent() throws(MultipartParseError) -> Event? {
        do {
            return try step()
        } catch {
            state = .failed(error)
            throw error
        }
    }

    enum Step {
        case emit(Event)
        case next
        case needMoreData
    }

    private mutating func step() throws(MultipartParseError) -> Event? {
        while true {
            let result: Step
            switch state {
            case .failed(let error): throw error
            case .done: return nil
            case .start: result = try parseStart()
            case .preamble(let discarded): result = try parsePreamble(discarded: discarded)
            case .afterDelimiter(let first, let padding): result = try parseAfterDelimiter(first: first, padding: padding)
            case .headers(let fields, let bytes, let scanned): result = try parseHeaderLine(fields: fields, bytes: bytes, scanned: scanned)
            case .body: result = parseBody()
            case .afterClose(let padding): result = try parseAfterClose(padding: padding)
            }
            switch result {
            case .emit(let event): return event
            case .next: continue
            case .needMoreData:
                if endOfInput { throw MultipartParseError(.truncated, offset: consumed + buffer.readableBytes, partIndex: currentPart) }
                return nil
            }
        }
    }

    /// The part being parsed, for error reports.
    var currentPart: Int? { partCount > 0 ? partCount - 1 : nil }

    mutating func advance(_ count: Int) {
        buffer.moveReaderIndex(forwardBy: count)
        consumed += count
    }

    func error(_ code: MultipartParseError.Code, at index: Int = 0) -> MultipartParseError {
        MultipartParseError(code, offset: consumed + index, partIndex: currentPart)
    }

    // MARK: Delimiters

    /// The body starts with the dash-boundary, or a preamble (RFC 2046 §5.1.1).
    private mutating func parseStart() throws(MultipartParseError) -> Step {
        let dashBoundary = delimiter[2...]
        let available = buffer.readableBytes
        let compare = min(available, dashBoundary.count)
        let matches = buffer.withUnsafeReadableBytes { $0.prefix(compare).elementsEqual(dashBoundary.prefix(compare)) }
        if matches {
            if compare < dashBoundary.count { return .needMoreData }
            advance(dashBoundary.count)
            state = .afterDelimiter(first: true, padding: 0)
            return .next
        }
        guard limits.maxPreambleBytes > 0 else { throw error(.missingInitialBoundary) }
        state = .preamble(discarded: 0)
        return .next
    }

    private mutating func parsePreamble(discarded: Int) throws(MultipartParseError) -> Step {
        let result = buffer.withUnsafeReadableBytes { DelimiterSearch.find(delimiter, in: $0, from: 0) }
        let preamble = result.found ?? result.safeEnd
        if discarded + preamble > limits.maxPreambleBytes {
            throw error(.preambleTooLong, at: limits.maxPreambleBytes - discarded)
        }
        advance(preamble)
        if result.found != nil {
            advance(delimiter.count)
            state = .afterDelimiter(first: true, padding: 0)
            return .next
        }
        state = .preamble(discarded: discarded + preamble)
        return .needMoreData
    }

    /// After a delimiter: `--` closes the body; otherwise transport padding, then CRLF.
    private mutating func parseAfterDelimiter(first: Bool, padding: Int) throws(MultipartParseError) -> Step {
        var padding = padding
        while true {
            guard let byte = buffer.getInteger(at: buffer.readerIndex) else { return .needMoreData }
            switch byte {
            case UInt8(ascii: "-") where padding == 0:
                guard let second = buffer.getInteger(at: buffer.readerIndex + 1) else { return .needMoreData }
                guard second == UInt8(ascii: "-") else { throw error(.malformedDelimiter, at: 1) }
                if first { throw error(.noParts) }
                advance(2)
                state = .afterClose(padding: 0)
                return .next
            case 0x20, 0x09:
                padding += 1
                if padding > limits.maxDelimiterPadding { throw error(.delimiterPaddingTooLong) }
                advance(1)
                state = .afterDelimiter(first: first, padding: padding)
            case 0x0D:
                guard let lf = buffer.getInteger(at: buffer.readerIndex + 1) else { return .needMoreData }
                guard lf == 0x0A else { throw error(.malformedDelimiter, at: 1) }
                if partCount >= limits.maxPartCount { throw error(.tooManyParts) }
                advance(2)
                partCount += 1
                state = .headers(fields: [], bytes: 0, scanned: 0)
                return .next
            default:
                throw error(.malformedDelimiter)
            }
        }
    }

    /// After the close delimiter: transport padding, then CRLF or the end of the input.
    private mutating func parseAfterClose(padding: Int) throws(MultipartParseError) -> Step {
        var padding = padding
        while true {
            guard let byte = buffer.getInteger(at: buffer.readerIndex) else {
                if endOfInput {
                    state = .done
                    return .emit(.end)
                }
                return .needMoreData
            }
            switch byte {
            case 0x20, 0x09:
                padding += 1
                if padding > limits.maxDelimiterPadding { throw error(.delimiterPaddingTooLong) }
                advance(1)
                state = .afterClose(padding: padding)
            case 0x0D:
                guard let lf = buffer.getInteger(at: buffer.readerIndex + 1) else { return .needMoreData }
                guard lf == 0x0A else { throw error(.malformedDelimiter, at: 1) }
                advance(2)
                state = .done
                return .emit(.end)
            default:
                throw error(.malformedDelimiter)
            }
        }
    }

    // MARK: Body

    /// Hands out body bytes up to the next delimiter, keeping back a tail that may start one.
    private mutating func parseBody() -> Step {
        let result = buffer.withUnsafeReadableBytes { DelimiterSearch.find(delimiter, in: $0, from: 0) }
        if let found = result.found {
            if found > 0 {
                let chunk = buffer.readSlice(length: found)!
                consumed += found
                return .emit(.bodyChunk(chunk))
            }
            advance(delimiter.count)
            state = .afterDelimiter(first: false, padding: 0)
            return .emit(.partEnd)
        }
        guard result.safeEnd > 0 else { return .needMoreData }
        let chunk = buffer.readSlice(length: result.safeEnd)!
        consumed += result.safeEnd
        return .emit(.bodyChunk(chunk))
    }
}

extension MultipartParser {
    /// Parses a whole body held in memory.
    /// - Parameters:
    ///   - bytes: the body.
    ///   - boundary: the boundary.
    ///   - limits: the limits.
    /// - Returns: the parts, each with its whole body (a slice of the input when it arrived in one
    ///   chunk).
    /// - Throws: `MultipartParseError`.
    public static func parse(_ bytes: ByteBuffer, boundary: MultipartBoundary, limits: Limits = Limits()) throws(MultipartParseError) -> [MultipartParsedPart] {
        var parser = MultipartParser(boundary: boundary, limits: limits)
        parser.receive(bytes)
        parser.receiveEndOfInput()
        var collector = MultipartPartCollector()
        while let event = try parser.nextEvent() {
            collector.consume(event)
        }
        return collector.parts
    }

    /// Parses a whole body held in memory.
    /// - Parameters:
    ///   - bytes: the body.
    ///   - boundary: the boundary.
    ///   - limits: the limits.
    /// - Returns: the parts.
    /// - Throws: `MultipartParseError`.
    public static func parse(_ bytes: [UInt8], boundary: MultipartBoundary, limits: Limits = Limits()) throws(MultipartParseError) -> [MultipartParsedPart] {
        try parse(ByteBuffer(bytes: bytes), boundary: boundary, limits: limits)
    }
}
