// ChunkedDecoder: the chunked transfer coding (RFC 9112 §7.1) as a byte-level state machine with
// one function per state (the shape of hyper's decode.rs), returning the chunk data as slices of
// the input buffer — never a copy.
//
// What it owns: the position inside the chunked framing, the size of the chunk in progress, the
// running totals checked against the limits, and the trailer-section scan.
//
//     chunked-body   = *chunk last-chunk trailer-section CRLF
//     chunk          = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
//     chunk-size     = 1*HEXDIG                      (at most 16 digits: 64 bits, httparse's cap)
//     last-chunk     = 1*("0") [ chunk-ext ] CRLF
//     chunk-ext      = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )   (§7.1.1)
//     chunk-ext-val  = token / quoted-string
//     trailer-section = *( field-line CRLF )        (§7.1.2, validated like header fields)
//
// States and transitions (every transition is in `step`):
//
//     size ──hex──▶ size ──CR──▶ sizeLF ──LF──▶ data (size > 0) ──n bytes──▶ dataCR ─CR─▶ dataLF ─LF─▶ size
//       │ ';' / WS                      └──LF──▶ trailers (size = 0) ──empty line──▶ done
//       ▼
//     extension states (BWS, name, "=", token or quoted value) ──CR──▶ sizeLF
//
// Invariants: `consumed` counts the body bytes taken from the input so far (framing and data), so
// error offsets do not depend on how the input was split; framing bytes are consumed as soon as
// they are seen, data as soon as it is returned, the trailer section only once it is complete;
// after an error every call throws it again.
//
// Strictness: CRLF exactly after the size line and after the data (bare LF: `bareLineFeed`, any
// other byte: `invalidChunkFraming`); whitespace after the size is only allowed before a ";"
// (BWS, §7.1.1) — hyper also accepts "5 \r\n", this decoder does not; extensions are
// syntax-checked and capped per message; trailer lines follow the header rules.

import CourierBytes

/// One step of a decoded body.
public enum BodyEvent: Sendable {
    /// Body bytes: a slice sharing the input buffer's storage.
    case data(ByteBuffer)
    /// The body is complete; `trailers` holds the trailer fields of a chunked body (empty
    /// otherwise).
    case end(trailers: ParsedFields)
}

/// An incremental decoder of the chunked transfer coding that returns data as zero-copy slices.
public struct ChunkedDecoder: Sendable {
    private enum State: UInt8, Sendable {
        case size, sizeLF
        case beforeSemicolon, beforeExtensionName, extensionName, afterExtensionName
        case beforeExtensionValue, extensionToken, extensionQuoted, extensionQuotedPair, afterQuotedValue
        case data, dataCR, dataLF
        case trailers, done
    }

    private let limits: HTTP1ParserLimits
    private let maxDigits: Int
    private let classes = ByteClasses()
    private var state = State.size
    private var size: UInt64 = 0
    private var sizeDigits = 0
    private var remaining: UInt64 = 0
    private var extensionBytes = 0
    private var trailerScanner = FieldBlockScanner(expectsStartLine: false)
    private var failure: HTTPParserError?
    /// Body bytes taken from the input so far (framing, data, trailers).
    public private(set) var consumed = 0

    /// Creates a decoder positioned at the first chunk-size.
    /// - Parameter limits: the chunk-size digit, extension and trailer limits.
    public init(limits: HTTP1ParserLimits = .default) {
        self.limits = limits
        self.maxDigits = limits.effectiveMaxChunkSizeDigits
    }

    /// Whether the last chunk and the trailer section have been decoded.
    public var isComplete: Bool { state == .done }

    /// Decodes from the readable bytes of `buffer`, moving its reader index past what it used.
    ///
    /// - Parameter buffer: the receive buffer. Framing bytes are consumed as they are read; chunk
    ///   data is cut off as a slice; the trailer section is left in place until it is complete.
    /// - Returns: the next event, or nil when more bytes are needed (or the body already ended).
    /// - Throws: `HTTPParserError` (offsets from the start of the body); the same error again on
    ///   every later call.
    public mutating func next(from buffer: inout ByteBuffer) throws(HTTPParserError) -> BodyEvent? {
        if let failure { throw failure }
        do throws(HTTPParserError) {
            while true {
                switch state {
                case .data:
                    let available = buffer.readableBytes
                    if available == 0 { return nil }
                    let count = remaining < UInt64(available) ? Int(remaining) : available
                    let slice = buffer.readSlice(length: count)!
                    remaining -= UInt64(count)
                    consumed += count
                    if remaining == 0 { state = .dataCR }
                    return .data(slice)
                case .trailers:
                    return try readTrailers(&buffer)
                case .done:
                    return nil
                default:
                    let used = try buffer.withUnsafeReadableBytes { (raw) throws(HTTPParserError) -> Int in
                        try readFraming(raw)
                    }
                    buffer.moveReaderIndex(forwardBy: used)
                    consumed += used
                    if state != .data && state != .trailers { return nil }
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// Reports that the connection closed: an error unless the body is complete.
    /// - Throws: `incompleteChunkedBody` when the last chunk and trailers were not all received.
    public mutating func connectionClosed() throws(HTTPParserError) {
        if let failure { throw failure }
        guard state == .done else {
            let error = HTTPParserError(.incompleteChunkedBody, offset: consumed)
            failure = error
            throw error
        }
    }

    // MARK: Framing bytes

    /// Runs framing bytes through `step` until the data or trailers begin or the bytes run out.
    /// - Returns: how many bytes were used.
    private mutating func readFraming(_ raw: UnsafeRawBufferPointer) throws(HTTPParserError) -> Int {
        guard let base = raw.baseAddress else { return 0 }
        var i = 0
        while i < raw.count {
            // SAFETY: i < raw.count.
            try step(base.load(fromByteOffset: i, as: UInt8.self), offset: consumed + i)
            i += 1
            if state == .data || state == .trailers { break }
        }
        return i
    }

    /// The one place where framing transitions happen.
    @inline(__always)
    private mutating func step(_ byte: UInt8, offset: Int) throws(HTTPParserError) {
        switch state {
        case .size: try readSize(byte, offset)
        case .sizeLF: try readSizeLF(byte, offset)
        case .beforeSemicolon, .beforeExtensionName, .extensionName, .afterExtensionName,
             .beforeExtensionValue, .extensionToken, .extensionQuoted, .extensionQuotedPair, .afterQuotedValue:
            try readExtension(byte, offset)
        case .dataCR: try readDataCR(byte, offset)
        case .dataLF: try readDataLF(byte, offset)
        case .data, .trailers, .done: preconditionFailure("not a framing state")
        }
    }

    private mutating func readSize(_ byte: UInt8, _ offset: Int) throws(HTTPParserError) {
        if let digit = ASCIIInteger.hexValue(byte) {
            // Checked arithmetic: with at most 16 digits the value always fits in 64 bits.
            guard sizeDigits < maxDigits else { throw HTTPParserError(.chunkSizeTooLarge, offset: offset) }
            size = size &<< 4 | UInt64(digit)
            sizeDigits += 1
            return
        }
        guard sizeDigits > 0 else { throw HTTPParserError(.invalidChunkSize, offset: offset) }
        switch byte {
        case UInt8(ascii: "\r"): state = .sizeLF
        case UInt8(ascii: ";"): try countExtensionByte(offset); state = .beforeExtensionName
        case UInt8(ascii: " "), UInt8(ascii: "\t"): try countExtensionByte(offset); state = .beforeSemicolon
        case UInt8(ascii: "\n"): throw HTTPParserError(.bareLineFeed, offset: offset)
        default: throw HTTPParserError(.invalidChunkSize, offset: offset)
        }
    }

    private mutating func readSizeLF(_ byte: UInt8, _ offset: Int) throws(HTTPParserError) {
        guard byte == UInt8(ascii: "\n") else { throw HTTPParserError(.invalidChunkFraming, offset: offset) }
        if size == 0 {
            state = .trailers
        } else {
            remaining = size
            state = .data
        }
    }

    /// RFC 9112 §7.1.1: `*( BWS ";" BWS name [ BWS "=" BWS ( token / quoted-string ) ] )`.
    private mutating func readExtension(_ byte: UInt8, _ offset: Int) throws(HTTPParserError) {
        if byte == UInt8(ascii: "\r") {
            switch state {
            // A line may end after a name or a value, not after BWS, ";" or "=".
            case .extensionName, .extensionToken, .afterQuotedValue: state = .sizeLF; return
            default: throw invalidExtension(offset)
            }
        }
        if byte == UInt8(ascii: "\n") { throw HTTPParserError(.bareLineFeed, offset: offset) }
        try countExtensionByte(offset)
        let isToken = classes.isToken(byte)
        let isSpace = ASCII.isWhitespace(byte)
        let semicolon = byte == UInt8(ascii: ";")
        let equals = byte == UInt8(ascii: "=")
        switch state {
        case .beforeSemicolon:
            if semicolon { state = .beforeExtensionName } else if !isSpace { throw invalidExtension(offset) }
        case .beforeExtensionName:
            if isToken { state = .extensionName } else if !isSpace { throw invalidExtension(offset) }
        case .extensionName:
            if equals { state = .beforeExtensionValue }
            else if semicolon { state = .beforeExtensionName }
            else if isSpace { state = .afterExtensionName }
            else if !isToken { throw invalidExtension(offset) }
        case .afterExtensionName:
            if equals { state = .beforeExtensionValue }
            else if semicolon { state = .beforeExtensionName }
            else if !isSpace { throw invalidExtension(offset) }
        case .beforeExtensionValue:
            if byte == UInt8(ascii: "\"") { state = .extensionQuoted }
            else if isToken { state = .extensionToken }
            else if !isSpace { throw invalidExtension(offset) }
        case .extensionToken:
            if semicolon { state = .beforeExtensionName }
            else if isSpace { state = .beforeSemicolon }
            else if !isToken { throw invalidExtension(offset) }
        case .extensionQuoted:
            // qdtext = HTAB / SP / %x21 / %x23-5B / %x5D-7E / obs-text (RFC 9110 §5.6.4)
            if byte == UInt8(ascii: "\"") { state = .afterQuotedValue }
            else if byte == UInt8(ascii: "\\") { state = .extensionQuotedPair }
            else if !classes.isFieldValue(byte) { throw invalidExtension(offset) }
        case .extensionQuotedPair:
            // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
            guard classes.isFieldValue(byte) else { throw invalidExtension(offset) }
            state = .extensionQuoted
        case .afterQuotedValue:
            if semicolon { state = .beforeExtensionName }
            else if isSpace { state = .beforeSemicolon }
            else { throw invalidExtension(offset) }
        default:
            preconditionFailure("not an extension state")
        }
    }

    private func invalidExtension(_ offset: Int) -> HTTPParserError {
        HTTPParserError(.invalidChunkExtension, offset: offset)
    }

    private mutating func countExtensionByte(_ offset: Int) throws(HTTPParserError) {
        extensionBytes += 1
        if extensionBytes > limits.maxChunkExtensionsSize {
            throw HTTPParserError(.chunkExtensionsTooLarge, offset: offset)
        }
    }

    private mutating func readDataCR(_ byte: UInt8, _ offset: Int) throws(HTTPParserError) {
        switch byte {
        case UInt8(ascii: "\r"): state = .dataLF
        case UInt8(ascii: "\n"): throw HTTPParserError(.bareLineFeed, offset: offset)
        default: throw HTTPParserError(.invalidChunkFraming, offset: offset)
        }
    }

    private mutating func readDataLF(_ byte: UInt8, _ offset: Int) throws(HTTPParserError) {
        guard byte == UInt8(ascii: "\n") else { throw HTTPParserError(.invalidChunkFraming, offset: offset) }
        size = 0
        sizeDigits = 0
        state = .size
    }

    // MARK: Trailer section

    /// RFC 9112 §7.1.2: field lines, then CRLF; kept in the buffer until complete, then cut off as
    /// one slice the trailer fields point into.
    private mutating func readTrailers(_ buffer: inout ByteBuffer) throws(HTTPParserError) -> BodyEvent? {
        let step = try buffer.withUnsafeReadableBytes { (raw) throws(HTTPParserError) -> FieldBlockScanner.Step in
            try trailerScanner.scan(raw, limit: limits.effectiveMaxTrailerSize, maxFields: limits.maxFieldCount,
                                    tooLarge: .trailersTooLarge, errorBase: consumed)
        }
        guard case .complete(let end) = step else { return nil }
        let bytes = buffer.readSlice(length: end)!
        consumed += end
        state = .done
        return .end(trailers: ParsedFields(bytes: bytes, ranges: trailerScanner.ranges))
    }
}
