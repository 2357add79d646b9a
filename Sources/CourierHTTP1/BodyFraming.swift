// BodyFraming: how the body of a message is delimited, decided from its head in the order of
// RFC 9112 §6.3.
//
// What it owns: the framing rules only. It reads Transfer-Encoding and Content-Length from a
// parsed head without allocating, and throws for every framing that could let two parties
// disagree about where a message ends (request smuggling, response splitting).
//
// Responses (RFC 9112 §6.3):
//   1. a response to HEAD, and any 1xx, 204 or 304 response: no body, whatever the fields say;
//   2. a 2xx response to CONNECT: no body (the connection becomes a tunnel);
//   3. Transfer-Encoding and Content-Length together: an error (`contentLengthWithTransferEncoding`;
//      RFC 9112 §6.3 rule 3 says such a message "ought to be handled as an error");
//      Transfer-Encoding in HTTP/1.0: an error (`transferEncodingInHTTP10`, RFC 9112 §6.1: the
//      framing is faulty);
//   4. Transfer-Encoding: the codings must be exactly `chunked` (chunked is final, applied once,
//      and no other coding is supported): anything else is `unsupportedTransferCoding`;
//   5. Content-Length: every value of every Content-Length field is 1*DIGIT within 64 bits
//      (`invalidContentLength`) and all are equal (`conflictingContentLength`; RFC 9110 §8.6
//      allows accepting a list of identical values);
//   6. otherwise the body runs until the connection closes (rule 8).
// Requests: rules 3–5 alike; with neither field there is no body (rule 7).
//
// Empty list elements in Transfer-Encoding are ignored (RFC 9110 §5.6.1); in Content-Length they
// are invalid.

import CourierBytes

/// How a message body is delimited (RFC 9112 §6.3).
public enum BodyFraming: Sendable, Hashable {
    /// There is no body.
    case noBody
    /// The body is exactly this many bytes.
    case contentLength(UInt64)
    /// The body uses the chunked transfer coding (RFC 9112 §7.1).
    case chunked
    /// The body runs until the connection closes (responses only).
    case untilClose

    /// Decides the framing of a response body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - requestMethod: the method of the request it answers.
    /// - Returns: the framing.
    /// - Throws: `HTTPParserError` (offsets from the start of `head`) for conflicting or invalid
    ///   framing fields.
    public static func forResponse(_ head: ResponseHead, requestMethod: HTTPMethod) throws(HTTPParserError) -> BodyFraming {
        // Rule 1.
        if requestMethod.rawValue == "HEAD" || head.status < 200 || head.status == 204 || head.status == 304 {
            return .noBody
        }
        // Rule 2.
        if requestMethod.rawValue == "CONNECT" && head.status < 300 { return .noBody }
        return try fromFields(head.headers, version: head.version) ?? .untilClose
    }

    /// Decides the framing of a request body (server side).
    /// - Parameter head: the request head.
    /// - Returns: the framing (`.noBody` when neither Transfer-Encoding nor Content-Length is
    ///   present, RFC 9112 §6.3 rule 7).
    /// - Throws: `HTTPParserError` (offsets from the start of `head`) for conflicting or invalid
    ///   framing fields; `unsupportedTransferCoding` deserves a 501 answer.
    public static func forRequest(_ head: RequestHead) throws(HTTPParserError) -> BodyFraming {
        try fromFields(head.headers, version: head.version) ?? .noBody
    }

    /// Rules 3–5; nil when neither field is present.
    static func fromFields(_ fields: ParsedFields, version: HTTPVersion) throws(HTTPParserError) -> BodyFraming? {
        let transferEncoding: StaticString = "transfer-encoding"
        let contentLength: StaticString = "content-length"
        var teOffset = -1
        var clOffset = -1
        for position in fields.indices {
            let range = fields.ranges[position]
            if teOffset < 0 && fields.matches(range, transferEncoding.rawBytes) { teOffset = Int(range.nameStart) }
            if clOffset < 0 && fields.matches(range, contentLength.rawBytes) { clOffset = Int(range.nameStart) }
        }
        if teOffset >= 0 {
            // RFC 9112 §6.1: Transfer-Encoding did not exist in HTTP/1.0.
            if version.major == 1 && version.minor == 0 { throw HTTPParserError(.transferEncodingInHTTP10, offset: teOffset) }
            // RFC 9112 §6.3 rule 3.
            if clOffset >= 0 { throw HTTPParserError(.contentLengthWithTransferEncoding, offset: max(teOffset, clOffset)) }
            try checkOnlyChunked(fields, fieldOffset: teOffset)
            return .chunked
        }
        if clOffset >= 0 { return .contentLength(try parseContentLength(fields)) }
        return nil
    }

    /// RFC 9112 §6.1, §7: the codings, over all Transfer-Encoding fields, must be exactly one
    /// `chunked` (case-insensitive), the only coding Courier supports.
    private static func checkOnlyChunked(_ fields: ParsedFields, fieldOffset: Int) throws(HTTPParserError) {
        let name: StaticString = "transfer-encoding"
        let chunked: StaticString = "chunked"
        var chunkedCount = 0
        var badOffset = -1
        fields.forEachValue(named: name.rawBytes) { value, valueOffset in
            ASCII.forEachListElement(value.baseAddress!, count: value.count) { start, end in
                if start == end { return true }
                if end - start == chunked.utf8CodeUnitCount
                    && ASCII.equalsIgnoringCase(value.baseAddress! + start, chunked.utf8Start, end - start) {
                    chunkedCount += 1
                    if chunkedCount == 1 { return true }
                }
                if badOffset < 0 { badOffset = valueOffset + start }
                return false
            }
        }
        if badOffset >= 0 { throw HTTPParserError(.unsupportedTransferCoding, offset: badOffset) }
        // Only empty elements: no coding at all.
        if chunkedCount != 1 {
            throw HTTPParserError(.unsupportedTransferCoding, offset: fieldOffset)
        }
    }

    /// RFC 9110 §8.6, RFC 9112 §6.3 rule 5: every element of every Content-Length field is
    /// 1*DIGIT within 64 bits and all are equal.
    private static func parseContentLength(_ fields: ParsedFields) throws(HTTPParserError) -> UInt64 {
        let name: StaticString = "content-length"
        var length: UInt64?
        try fields.forEachValue(named: name.rawBytes) { (value, valueOffset) throws(HTTPParserError) in
            try ASCII.forEachListElement(value.baseAddress!, count: value.count) { (start, end) throws(HTTPParserError) -> Bool in
                let digits = UnsafeRawBufferPointer(start: value.baseAddress! + start, count: end - start)
                let parsed: UInt64
                do throws(IntegerParseError) {
                    parsed = try ASCIIInteger.parseDecimal(digits)
                } catch {
                    throw HTTPParserError(.invalidContentLength, offset: valueOffset + start)
                }
                if let length, length != parsed {
                    throw HTTPParserError(.conflictingContentLength, offset: valueOffset + start)
                }
                length = parsed
                return true
            }
        }
        // The field exists, so the closure ran at least once and either set `length` or threw.
        return length!
    }
}
