// ResponseHeadParser: the client side's incremental, zero-copy parser of response heads.
//
// What it owns: the resumable scan position of the head in progress (through the shared
// `FieldBlockScanner`), the reusable field-range storage of the connection, and the count and
// size of the interim (1xx) heads already seen for the current response.
//
// Usage: give it the connection's receive buffer each time bytes arrive, without moving the
// reader index until it answers `.complete(head, consumed:)`; then move the reader index by
// `consumed`. It never copies: the head is a view over a slice of the buffer plus index pairs.
// Steady state allocates nothing, provided the previous head was dropped before the next parse
// (its range array is then reused in place).
//
// Invariants:
//   - after an error, every call throws the same error (sticky);
//   - `interimBytes` counts the bytes of interim heads of the current response; the head in
//     progress may use at most `maxHeadSize - interimBytes` bytes (design §5: the head limit
//     covers 1xx heads too);
//   - a final head (status >= 200, or 101) resets the interim count and size.
//
// RFC 9112 §4 (status line), §2.2–§2.3 (message format, version), §5 (field lines, via the
// scanner); RFC 9110 §15.2 (1xx: a client must parse any number of them before the final one —
// bounded here by `maxInterimResponses`).
//
// Strictness: the status line is `HTTP/1.d SP 3DIGIT SP reason CRLF` with exactly one SP after
// the version; the status is 100–999 (RFC 9110 §15: three digits; a client treats an unknown code
// as the x00 of its class — which, for 600–999, does not exist, so such a response is delivered as
// it is, a final response); an empty reason may omit the second SP (as h11, httparse and curl
// accept: real servers send `HTTP/1.1 200\r\n`). HTTP versions other than 1.x are
// `unsupportedVersion`. The head is read leniently, as a user agent may (FieldBlockScanner): bare
// LF line ends are accepted and obs-fold is unfolded.
//
// Not HTTP at all: the first eight bytes must be `HTTP/` DIGIT `.` DIGIT, and they are checked as
// they arrive, so a reply that cannot be a status line (a TLS record or alert on an http:// URL,
// NUL bytes, a lone space) fails at its first wrong byte instead of waiting for a line end that
// may never come. The check only looks at bytes the scanner would accept too (within the size
// limit), so the outcome does not depend on where the input was cut.

import CourierBytes

/// A parsed response head: status, version, reason phrase and fields, all views of the bytes
/// received (no copy until a `String` is asked for).
public struct ResponseHead: Sendable, CustomStringConvertible {
    /// The protocol version of the status line.
    public let version: HTTPVersion
    /// The status code, 100–999.
    public let status: Int
    /// The field lines, in order; `headers.bytes` is the whole head as received.
    public let headers: ParsedFields
    let reasonStart: Int
    let reasonLength: Int

    /// The reason phrase (possibly empty), a slice of the received bytes. Clients should ignore it
    /// (RFC 9112 §4).
    public var reasonPhrase: ByteBuffer { headers.bytes.getSlice(at: reasonStart, length: reasonLength)! }

    /// The whole head as received, status line to the final CRLF.
    public var bytes: ByteBuffer { headers.bytes }

    /// Whether this is an interim response (1xx other than 101), to be followed by another head.
    public var isInterim: Bool { status < 200 && status != 101 }

    /// `HTTP/1.1 200 [fields]` (copies, for diagnostics).
    public var description: String { "\(version) \(status) \(headers)" }
}

/// An incremental, zero-copy parser of HTTP/1.1 response heads (client side).
public struct ResponseHeadParser: Sendable {
    /// What a call to `parse` produced.
    public enum Result: Sendable {
        /// The head is not complete yet; call again when more bytes have arrived.
        case needMoreData
        /// A head is complete; it used the first `consumed` readable bytes.
        case complete(ResponseHead, consumed: Int)
    }

    private let limits: HTTP1ParserLimits
    private var scanner = FieldBlockScanner(expectsStartLine: true, lenient: true)
    private var needsReset = false
    private var failure: HTTPParserError?
    private var interimCount = 0
    private var interimBytes = 0
    // The status line of the head in progress.
    private var version = HTTPVersion.http1_1
    private var status = 0
    private var reasonStart = 0
    private var reasonLength = 0

    /// Creates a parser.
    /// - Parameter limits: the head size, field count and interim response limits.
    public init(limits: HTTP1ParserLimits = .default) {
        self.limits = limits
    }

    /// Forgets any head in progress and the interim responses seen, to parse a new response.
    /// (Not needed between responses that completed normally.) A failed parser stays failed.
    public mutating func reset() {
        scanner.reset(expectsStartLine: true)
        needsReset = false
        interimCount = 0
        interimBytes = 0
    }

    /// Parses the head at the start of `buffer`'s readable bytes.
    ///
    /// Pass the same readable bytes again, with more appended, until the result is `.complete`;
    /// work already done is not repeated.
    ///
    /// - Parameter buffer: the receive buffer; it is not modified.
    /// - Returns: `.needMoreData`, or the head and the number of bytes it used.
    /// - Throws: `HTTPParserError` for a malformed head or an exceeded limit; the same error again
    ///   on every later call.
    public mutating func parse(_ buffer: ByteBuffer) throws(HTTPParserError) -> Result {
        if let failure { throw failure }
        if needsReset {
            scanner.reset(expectsStartLine: true)
            needsReset = false
        }
        do throws(HTTPParserError) {
            return try buffer.withUnsafeReadableBytes { (raw) throws(HTTPParserError) -> Result in
                try parseReadable(raw, buffer)
            }
        } catch {
            failure = error
            throw error
        }
    }

    private mutating func parseReadable(_ raw: UnsafeRawBufferPointer, _ buffer: ByteBuffer) throws(HTTPParserError) -> Result {
        let limit = limits.effectiveMaxHeadSize - interimBytes
        if scanner.expectsStartLine { try checkVersionPrefix(raw, limit: limit) }
        while true {
            switch try scanner.scan(raw, limit: limit, maxFields: limits.maxFieldCount, tooLarge: .headTooLarge, errorBase: interimBytes) {
            case .needMoreData:
                return .needMoreData
            case .startLine(let start, let end):
                try parseStatusLine(raw.baseAddress!, start: start, end: end)
                // RFC 9110 §15.2; design §5: at most `maxInterimResponses` 1xx before the final one.
                if status < 200 && status != 101 && interimCount >= limits.maxInterimResponses {
                    throw HTTPParserError(.tooManyInterimResponses, offset: interimBytes + start)
                }
            case .complete(let end):
                let head = ResponseHead(
                    version: version, status: status,
                    headers: ParsedFields(bytes: buffer.getSlice(at: buffer.readerIndex, length: end)!, ranges: scanner.ranges,
                                          hasFoldedValues: scanner.hasFoldedValues),
                    reasonStart: reasonStart, reasonLength: reasonLength)
                // The range array is shared with the head now; it is emptied at the next parse,
                // when the caller has (normally) dropped the head, so no copy is made.
                needsReset = true
                if head.isInterim {
                    interimCount += 1
                    interimBytes += end
                } else {
                    interimCount = 0
                    interimBytes = 0
                }
                return .complete(head, consumed: end)
            }
        }
    }

    /// The first bytes of a status line, checked as soon as they arrive: `HTTP/` DIGIT `.` DIGIT.
    /// Only bytes below `limit` are looked at (beyond it the scanner reports `headTooLarge` first,
    /// whatever the cut).
    private func checkVersionPrefix(_ raw: UnsafeRawBufferPointer, limit: Int) throws(HTTPParserError) {
        let count = min(raw.count, 8, max(limit, 0))
        var i = 0
        while i < count {
            let byte = raw[i]
            let fits: Bool
            switch i {
            case 0: fits = byte == UInt8(ascii: "H")
            case 1, 2: fits = byte == UInt8(ascii: "T")
            case 3: fits = byte == UInt8(ascii: "P")
            case 4: fits = byte == UInt8(ascii: "/")
            case 6: fits = byte == UInt8(ascii: ".")
            default: fits = byte &- UInt8(ascii: "0") < 10
            }
            if !fits { throw HTTPParserError(.invalidStatusLine, offset: interimBytes + i) }
            i += 1
        }
    }

    /// RFC 9112 §4: `status-line = HTTP-version SP status-code SP [ reason-phrase ]`.
    private mutating func parseStatusLine(_ base: UnsafeRawPointer, start: Int, end: Int) throws(HTTPParserError) {
        let errorBase = interimBytes
        // "HTTP/1.1 200" is the shortest acceptable line.
        guard end - start >= 12 else {
            if end - start >= 8, let version = FieldBlockScanner.parseVersion(base + start), version.major != 1 {
                throw HTTPParserError(.unsupportedVersion, offset: errorBase + start)
            }
            throw HTTPParserError(.invalidStatusLine, offset: errorBase + start)
        }
        guard let version = FieldBlockScanner.parseVersion(base + start) else {
            throw HTTPParserError(.invalidStatusLine, offset: errorBase + start)
        }
        guard version.major == 1 else { throw HTTPParserError(.unsupportedVersion, offset: errorBase + start) }
        // SAFETY: start + 12 <= end, inside the line.
        guard base.load(fromByteOffset: start + 8, as: UInt8.self) == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidStatusLine, offset: errorBase + start + 8)
        }
        let d0 = base.load(fromByteOffset: start + 9, as: UInt8.self) &- UInt8(ascii: "0")
        let d1 = base.load(fromByteOffset: start + 10, as: UInt8.self) &- UInt8(ascii: "0")
        let d2 = base.load(fromByteOffset: start + 11, as: UInt8.self) &- UInt8(ascii: "0")
        // RFC 9110 §15: three digits; 100–999 are taken (the first digit is the class where one
        // exists; 600–999 are delivered as they are), 000–099 are not status codes.
        guard d0 >= 1 && d0 <= 9 && d1 < 10 && d2 < 10 else {
            throw HTTPParserError(.invalidStatusLine, offset: errorBase + start + 9)
        }
        self.version = version
        status = Int(d0) * 100 + Int(d1) * 10 + Int(d2)
        if end - start == 12 {
            reasonStart = end
            reasonLength = 0
            return
        }
        guard base.load(fromByteOffset: start + 12, as: UInt8.self) == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidStatusLine, offset: errorBase + start + 12)
        }
        // reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ): the field-value alphabet.
        do throws(HTTPParserError) {
            try FieldBlockScanner.validateFieldValue(base, start: start + 13, end: end, errorBase: errorBase, ByteClasses())
        } catch {
            throw error.code == .invalidFieldValue ? HTTPParserError(.invalidStatusLine, offset: error.offset) : error
        }
        reasonStart = start + 13
        reasonLength = end - reasonStart
    }
}
