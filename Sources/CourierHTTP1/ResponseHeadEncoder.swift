// ResponseHeadEncoder: the server's response head (RFC 9112 §4, §5, §6), for Courier's embedded
// test servers and for anyone driving the low-level API as a server.
//
// What this file owns: the status line, default reason phrases, and the framing decision for a
// response, which depends on the status, the request method and the peer's version.
//
// Invariants: as for RequestHeadEncoder — all validation first, then one pass into one buffer of
// a size counted beforehand; caller fields in order with duplicates; caller framing fields kept
// when they agree with the body length, `.conflictingFraming` when they do not; the added framing
// field last.
//
// Framing rules (RFC 9110 §6.4.1, §8.6; RFC 9112 §6.1, §6.3):
// - 1xx, 204, and 2xx to CONNECT never have a body nor framing fields: the body must be `.none`
//   (or `.known(0)`), and a caller Content-Length or Transfer-Encoding is refused.
// - 304 has no body. `body` then describes the representation a 200 would carry; nothing is added
//   (a caller Content-Length that agrees with it is kept, RFC 9110 §8.6 allows it).
// - A response to HEAD gets the same fields a GET would (RFC 9110 §9.3.2) — Content-Length for a
//   known length, chunked for an unknown one — but no body follows (framing `.noBody`).
// - Otherwise: `.none` → `Content-Length: 0` (without it the body would run to the close,
//   RFC 9112 §6.3 rule 8); `.known(n)` → `Content-Length: n`; `.unknown` → chunked when both ends
//   speak HTTP/1.1, else the body is delimited by closing the connection and `Connection: close`
//   is added unless the caller already listed "close" (RFC 9112 §6.1: chunked must not be sent to
//   an HTTP/1.0 recipient).

import CourierBytes

/// Encodes HTTP/1.1 (or HTTP/1.0) response heads for a server.
public struct ResponseHeadEncoder: Sendable {
    /// The version written in the status line: HTTP/1.1 (default) or HTTP/1.0.
    public var version: HTTPVersion

    /// Creates an encoder.
    /// - Parameter version: the status-line version; only 1.1 and 1.0 are accepted by `encode`.
    public init(version: HTTPVersion = .http1_1) {
        self.version = version
    }

    /// Encodes a response head into a new buffer.
    /// - Parameters:
    ///   - status: the status code, 100–599.
    ///   - reason: the reason phrase; nil for the standard phrase of `status` (empty if unknown).
    ///   - headers: the caller's fields, sent in order with duplicates kept.
    ///   - body: the length of the body that will follow (for HEAD and 304: the length a GET / 200
    ///     would have).
    ///   - requestMethod: the method of the request being answered (HEAD and CONNECT matter).
    ///   - peerVersion: the version of the request being answered; chunked coding is used only
    ///     when it is HTTP/1.1 or later.
    /// - Returns: the head as one buffer piece, and the framing the body must use.
    /// - Throws: `HTTPEncodingError` (`.invalidStatus`, `.invalidReasonPhrase`, `.invalidFieldName`,
    ///   `.invalidFieldValue`, `.conflictingFraming`, `.unsupportedVersion`); nothing is produced.
    public func encode(status: Int, reason: String? = nil, headers: HTTPHeaders, body: BodyLength,
                       requestMethod: HTTPMethod = .get, peerVersion: HTTPVersion = .http1_1) throws(HTTPEncodingError) -> EncodedHead {
        let plan = try makePlan(status: status, reason: reason, headers: headers, body: body,
                                requestMethod: requestMethod, peerVersion: peerVersion)
        var buffer = ByteBuffer(capacity: plan.totalCount)
        write(plan, headers: headers, into: &buffer)
        return EncodedHead(bytes: GatherList([.buffer(buffer)]), framing: plan.framing)
    }

    /// Appends a response head to `buffer`.
    /// - Parameters:
    ///   - status: the status code, 100–599.
    ///   - reason: the reason phrase; nil for the standard phrase of `status`.
    ///   - headers: the caller's fields.
    ///   - body: the length of the body that will follow.
    ///   - requestMethod: the method of the request being answered.
    ///   - peerVersion: the version of the request being answered.
    ///   - buffer: the buffer to append to; left untouched when this throws.
    /// - Returns: the framing the body must use.
    /// - Throws: `HTTPEncodingError`; `buffer` is unchanged.
    public func encode(status: Int, reason: String? = nil, headers: HTTPHeaders, body: BodyLength,
                       requestMethod: HTTPMethod = .get, peerVersion: HTTPVersion = .http1_1,
                       into buffer: inout ByteBuffer) throws(HTTPEncodingError) -> EncodedHead.Framing {
        let plan = try makePlan(status: status, reason: reason, headers: headers, body: body,
                                requestMethod: requestMethod, peerVersion: peerVersion)
        write(plan, headers: headers, into: &buffer)
        return plan.framing
    }

    /// The standard reason phrase of a status code (RFC 9110 §15), or "" when there is none.
    /// - Parameter status: the status code.
    /// - Returns: the phrase.
    public static func standardReasonPhrase(for status: Int) -> String {
        switch status {
        case 100: return "Continue"
        case 101: return "Switching Protocols"
        case 103: return "Early Hints"
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 203: return "Non-Authoritative Information"
        case 204: return "No Content"
        case 205: return "Reset Content"
        case 206: return "Partial Content"
        case 300: return "Multiple Choices"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 410: return "Gone"
        case 411: return "Length Required"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 414: return "URI Too Long"
        case 415: return "Unsupported Media Type"
        case 416: return "Range Not Satisfiable"
        case 417: return "Expectation Failed"
        case 421: return "Misdirected Request"
        case 422: return "Unprocessable Content"
        case 426: return "Upgrade Required"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        case 505: return "HTTP Version Not Supported"
        default: return ""
        }
    }

    // MARK: Internals

    private struct Plan {
        var status: Int
        var reason: String
        var added: AddedFramingField
        var addsConnectionClose: Bool
        var framing: EncodedHead.Framing
        var totalCount: Int
    }

    private func makePlan(status: Int, reason: String?, headers: HTTPHeaders, body: BodyLength,
                          requestMethod: HTTPMethod, peerVersion: HTTPVersion) throws(HTTPEncodingError) -> Plan {
        guard version == .http1_1 || version == .http1_0 else { throw HTTPEncodingError(.unsupportedVersion) }
        // RFC 9110 §15: a status code is three digits, 1xx–5xx.
        guard (100...599).contains(status) else { throw HTTPEncodingError(.invalidStatus) }
        let reason = reason ?? ResponseHeadEncoder.standardReasonPhrase(for: status)
        if let bad = withUTF8(reason, HTTPFieldValidation.firstInvalidReasonPhraseByte) {
            throw HTTPEncodingError(.invalidReasonPhrase, offset: bad)
        }
        let summary = try HTTPFieldValidation.summarize(headers, role: .response)
        // RFC 9112 §6.1: chunked only when both ends speak HTTP/1.1 (or a later 1.x).
        let chunkedAllowed = version == .http1_1 && peerVersion.major == 1 && peerVersion.minor >= 1
        let isHead = requestMethod == .head
        var added = AddedFramingField.nothing
        var addsConnectionClose = false
        let framing: EncodedHead.Framing

        if status < 200 || status == 204 || (requestMethod == .connect && status < 300) {
            // RFC 9110 §8.6, RFC 9112 §6.1: no Content-Length nor Transfer-Encoding, no body.
            try summary.requireNoFramingFields()
            switch body {
            case .none, .known(0): break
            case .known, .unknown: throw HTTPEncodingError(.conflictingFraming)
            }
            framing = .noBody
        } else if status == 304 {
            // RFC 9110 §15.4.5: no body; the caller's fields are checked against `body` only.
            _ = try summary.framingField(for: body, chunkedAllowed: chunkedAllowed, zeroLengthNeedsField: false)
            framing = .noBody
        } else {
            added = try summary.framingField(for: body, chunkedAllowed: chunkedAllowed, zeroLengthNeedsField: true)
            switch body {
            case _ where isHead: framing = .noBody
            case .none: framing = .noBody
            case .known(let n): framing = .contentLength(n)
            case .unknown where chunkedAllowed: framing = .chunked
            case .unknown:
                // RFC 9112 §6.3 rule 8: the body ends when the connection closes.
                framing = .untilClose
                addsConnectionClose = !summary.hasConnectionClose
            }
        }
        // "HTTP/1.1 SP 3DIGIT SP reason CRLF" ... fields ... CRLF
        let statusLine = 8 + 1 + 3 + 1 + reason.utf8.count + 2
        let total = statusLine + summary.encodedCount + added.encodedCount
            + (addsConnectionClose ? FramingLines.connectionClose.utf8CodeUnitCount : 0) + 2
        return Plan(status: status, reason: reason, added: added, addsConnectionClose: addsConnectionClose,
                    framing: framing, totalCount: total)
    }

    private func write(_ plan: Plan, headers: HTTPHeaders, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: plan.totalCount) { region in
            var out = HeadWriter(region)
            out.writeVersion(version)
            out.write(UInt8(ascii: " "))
            // RFC 9112 §4: status-code = 3DIGIT (100–599 checked in makePlan).
            out.write(UInt8(ascii: "0") &+ UInt8(plan.status / 100))
            out.write(UInt8(ascii: "0") &+ UInt8(plan.status / 10 % 10))
            out.write(UInt8(ascii: "0") &+ UInt8(plan.status % 10))
            out.write(UInt8(ascii: " "))
            out.write(plan.reason)
            out.write("\r\n" as StaticString)
            for field in headers.fields {
                out.writeField(name: field.name, value: field.value)
            }
            out.write(plan.added)
            if plan.addsConnectionClose { out.write(FramingLines.connectionClose) }
            out.write("\r\n" as StaticString)
            precondition(out.position == plan.totalCount, "response head size was miscounted")
            return out.position
        }
    }
}
