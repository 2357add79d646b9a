// RequestHeadParser: the server side's incremental, zero-copy parser of request heads (used by
// the embedded test server).
//
// What it owns: the resumable scan position of the head in progress (the same
// `FieldBlockScanner` as responses: one implementation of field lines, not two), the reusable
// field-range storage, and the request line of the head in progress.
//
// Usage and invariants are those of `ResponseHeadParser`: same readable bytes plus more until
// `.complete(head, consumed:)`; errors are sticky; steady state allocates nothing.
//
// RFC 9112 §3 (request line: `method SP request-target SP HTTP-version CRLF`), §3.2 (the
// request-target has no whitespace), §2.2 (CRLF, bare CR/LF), §5 (field lines).
//
// Strictness: exactly one SP between the three parts; the method is a token; the target is a
// non-empty run of `ByteClass.requestTarget` bytes (visible ASCII); the version is `HTTP/1.d`.
// Empty lines before the request line are not skipped (RFC 9112 §2.2 says a server SHOULD ignore
// at least one; this parser serves tests and prefers to see them).

import CourierBytes

/// A parsed request head: method, target, version and fields, all views of the bytes received.
public struct RequestHead: Sendable, CustomStringConvertible {
    /// The protocol version of the request line.
    public let version: HTTPVersion
    /// The field lines, in order; `headers.bytes` is the whole head as received.
    public let headers: ParsedFields
    let methodLength: Int
    let targetStart: Int
    let targetLength: Int

    /// The method token exactly as received (case-sensitive, RFC 9110 §9.1).
    public var methodBytes: ByteBuffer { headers.bytes.getSlice(at: 0, length: methodLength)! }

    /// The method as an `HTTPMethod` (copies the token into a string).
    public var method: HTTPMethod {
        // The parser accepted only a non-empty token, which is exactly what HTTPMethod requires.
        try! HTTPMethod(methodBytes.readableString)
    }

    /// The request-target exactly as received (RFC 9112 §3.2).
    public var target: ByteBuffer { headers.bytes.getSlice(at: targetStart, length: targetLength)! }

    /// The whole head as received, request line to the final CRLF.
    public var bytes: ByteBuffer { headers.bytes }

    /// `GET /path HTTP/1.1 [fields]` (copies, for diagnostics).
    public var description: String { "\(methodBytes.readableString) \(target.readableString) \(version) \(headers)" }
}

/// An incremental, zero-copy parser of HTTP/1.1 request heads (server side).
public struct RequestHeadParser: Sendable {
    /// What a call to `parse` produced.
    public enum Result: Sendable {
        /// The head is not complete yet; call again when more bytes have arrived.
        case needMoreData
        /// A head is complete; it used the first `consumed` readable bytes.
        case complete(RequestHead, consumed: Int)
    }

    private let limits: HTTP1ParserLimits
    private var scanner = FieldBlockScanner(expectsStartLine: true)
    private var needsReset = false
    private var failure: HTTPParserError?
    private var version = HTTPVersion.http1_1
    private var methodLength = 0
    private var targetStart = 0
    private var targetLength = 0

    /// Creates a parser.
    /// - Parameter limits: the head size and field count limits.
    public init(limits: HTTP1ParserLimits = .default) {
        self.limits = limits
    }

    /// Parses the head at the start of `buffer`'s readable bytes.
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
                while true {
                    switch try scanner.scan(raw, limit: limits.effectiveMaxHeadSize, maxFields: limits.maxFieldCount,
                                            tooLarge: .headTooLarge, errorBase: 0) {
                    case .needMoreData:
                        return .needMoreData
                    case .startLine(let start, let end):
                        try parseRequestLine(raw.baseAddress!, start: start, end: end)
                    case .complete(let end):
                        let head = RequestHead(
                            version: version,
                            headers: ParsedFields(bytes: buffer.getSlice(at: buffer.readerIndex, length: end)!, ranges: scanner.ranges),
                            methodLength: methodLength, targetStart: targetStart, targetLength: targetLength)
                        needsReset = true
                        return .complete(head, consumed: end)
                    }
                }
            }
        } catch {
            failure = error
            throw error
        }
    }

    /// RFC 9112 §3: `request-line = method SP request-target SP HTTP-version`.
    private mutating func parseRequestLine(_ base: UnsafeRawPointer, start: Int, end: Int) throws(HTTPParserError) {
        let classes = ByteClasses()
        // SAFETY (whole function): loads are at offsets in start..<end, inside the line.
        var i = start
        while i < end && classes.isToken(base.load(fromByteOffset: i, as: UInt8.self)) { i += 1 }
        guard i > start, i < end, base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidRequestLine, offset: i)
        }
        let method = i - start
        i += 1
        let target = i
        while i < end && classes.isRequestTarget(base.load(fromByteOffset: i, as: UInt8.self)) { i += 1 }
        guard i > target, i < end, base.load(fromByteOffset: i, as: UInt8.self) == UInt8(ascii: " ") else {
            throw HTTPParserError(.invalidRequestTarget, offset: i)
        }
        let targetEnd = i
        i += 1
        guard end - i == 8, let version = FieldBlockScanner.parseVersion(base + i) else {
            throw HTTPParserError(.invalidRequestLine, offset: i)
        }
        guard version.major == 1 else { throw HTTPParserError(.unsupportedVersion, offset: i) }
        self.version = version
        methodLength = method
        targetStart = target
        targetLength = targetEnd - target
    }
}
