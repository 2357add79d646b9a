// RequestHeadEncoder: the client's request head (RFC 9112 §3, §5, §6), written into one buffer.
//
// What this file owns: the request line, the placement of Host, and the choice of framing field
// (Content-Length or Transfer-Encoding: chunked) from the caller's `BodyLength`.
//
// Invariants:
// - Validation is complete before the first byte is written: an encoder that throws leaves the
//   caller's buffer exactly as it was. Nothing is trimmed or rewritten: what was validated is sent.
// - The head is built in one pass into one buffer whose size is computed beforehand, so encoding
//   costs one allocation (none when `encode(…into:)` is given a buffer with room).
// - Exactly one Host field, first after the request line: the caller's Host (with the caller's
//   spelling of the name) replaces the default one (RFC 9112 §3.2, §3.2.1).
// - Caller fields keep their order and duplicates. The framing field the encoder adds comes last.
// - A caller Content-Length / Transfer-Encoding that agrees with the body length is kept and no
//   second one is added; one that disagrees is `.conflictingFraming` (RFC 9112 §6.1–§6.3).
//
// Framing rules (RFC 9112 §6, and curl's / AFNetworking's habits):
// - `.known(n)`    → `Content-Length: n`.
// - `.unknown`     → `Transfer-Encoding: chunked` (HTTP/1.1 only: HTTP/1.0 has no chunked coding
//                    and a request body cannot be delimited by closing, so 1.0 refuses it).
// - `.none`        → `Content-Length: 0` for POST, PUT and PATCH (whose servers may otherwise
//                    answer 411 Length Required); nothing for other methods (RFC 9110 §8.6: a
//                    user agent should not send Content-Length when there is no body and the
//                    method gives no meaning to one).

import CourierBytes

/// Encodes HTTP/1.1 (or HTTP/1.0) request heads for a client.
///
/// ```swift
/// let encoder = RequestHeadEncoder()
/// let head = try encoder.encode(method: .post, target: "/upload?x=1", host: "example.com",
///                               headers: ["Content-Type": "text/plain"], body: .known(5))
/// // head.bytes: "POST /upload?x=1 HTTP/1.1\r\nHost: example.com\r\nContent-Type: text/plain\r\n
/// //              Content-Length: 5\r\n\r\n"; head.framing == .contentLength(5)
/// ```
public struct RequestHeadEncoder: Sendable {
    /// The version written in the request line: HTTP/1.1 (default) or HTTP/1.0.
    public var version: HTTPVersion

    /// Creates an encoder.
    /// - Parameter version: the request-line version; only 1.1 and 1.0 are accepted by `encode`.
    public init(version: HTTPVersion = .http1_1) {
        self.version = version
    }

    /// Encodes a request head into a new buffer.
    /// - Parameters:
    ///   - method: the method, sent as given.
    ///   - target: the request-target, already percent-encoded (origin-form `/path?query`,
    ///     absolute-form for proxies, authority-form for CONNECT, `*` for OPTIONS).
    ///   - host: the default Host value (`host[:port]`); used and validated only when `headers`
    ///     has no Host field.
    ///   - headers: the caller's fields, sent in order with duplicates kept.
    ///   - body: the length of the body that will follow.
    /// - Returns: the head as one buffer piece, and the framing the body must use.
    /// - Throws: `HTTPEncodingError` (`.invalidRequestTarget`, `.invalidHost`, `.invalidFieldName`,
    ///   `.invalidFieldValue`, `.conflictingFraming`, `.unsupportedVersion`); nothing is produced.
    public func encode(method: HTTPMethod, target: String, host: String, headers: HTTPHeaders, body: BodyLength) throws(HTTPEncodingError) -> EncodedHead {
        let result = withUTF8(target) { targetBytes in
            encodeResult(method: method, target: targetBytes, host: host, headers: headers, body: body)
        }
        return try result.get()
    }

    /// Encodes a request head whose target is given as bytes.
    /// - Parameters:
    ///   - method: the method, sent as given.
    ///   - target: the request-target bytes, already percent-encoded.
    ///   - host: the default Host value; used and validated only when `headers` has no Host field.
    ///   - headers: the caller's fields, sent in order with duplicates kept.
    ///   - body: the length of the body that will follow.
    /// - Returns: the head as one buffer piece, and the framing the body must use.
    /// - Throws: `HTTPEncodingError`; nothing is produced.
    public func encode(method: HTTPMethod, target: some Collection<UInt8>, host: String, headers: HTTPHeaders, body: BodyLength) throws(HTTPEncodingError) -> EncodedHead {
        let encode = { (bytes: UnsafeRawBufferPointer) in
            encodeResult(method: method, target: bytes, host: host, headers: headers, body: body)
        }
        if let result = target.withContiguousStorageIfAvailable({ encode(UnsafeRawBufferPointer($0)) }) {
            return try result.get()
        }
        return try Array(target).withUnsafeBytes(encode).get()
    }

    /// Appends a request head to `buffer`, reusing its room (the connection's send buffer).
    /// - Parameters:
    ///   - method: the method, sent as given.
    ///   - target: the request-target, already percent-encoded.
    ///   - host: the default Host value; used and validated only when `headers` has no Host field.
    ///   - headers: the caller's fields, sent in order with duplicates kept.
    ///   - body: the length of the body that will follow.
    ///   - buffer: the buffer to append to; left untouched when this throws.
    /// - Returns: the framing the body must use.
    /// - Throws: `HTTPEncodingError`; `buffer` is unchanged.
    public func encode(method: HTTPMethod, target: String, host: String, headers: HTTPHeaders, body: BodyLength, into buffer: inout ByteBuffer) throws(HTTPEncodingError) -> EncodedHead.Framing {
        let plan = try withUTF8(target) { targetBytes in
            Result { () throws(HTTPEncodingError) in
                try makePlan(method: method, target: targetBytes, host: host, headers: headers, body: body)
            }
        }.get()
        withUTF8(target) { targetBytes in
            write(plan, method: method, target: targetBytes, host: host, headers: headers, into: &buffer)
        }
        return plan.framing
    }

    // MARK: Internals

    private func encodeResult(method: HTTPMethod, target: UnsafeRawBufferPointer, host: String, headers: HTTPHeaders, body: BodyLength) -> Result<EncodedHead, HTTPEncodingError> {
        let plan: Plan
        do {
            plan = try makePlan(method: method, target: target, host: host, headers: headers, body: body)
        } catch {
            return .failure(error)
        }
        var buffer = ByteBuffer(capacity: plan.totalCount)
        write(plan, method: method, target: target, host: host, headers: headers, into: &buffer)
        return .success(EncodedHead(bytes: GatherList([.buffer(buffer)]), framing: plan.framing))
    }

    /// Everything decided before writing: validation results, sizes and the framing.
    private struct Plan {
        var summary: FieldSummary
        var added: AddedFramingField
        var framing: EncodedHead.Framing
        var totalCount: Int
    }

    private func makePlan(method: HTTPMethod, target: UnsafeRawBufferPointer, host: String, headers: HTTPHeaders, body: BodyLength) throws(HTTPEncodingError) -> Plan {
        guard version == .http1_1 || version == .http1_0 else { throw HTTPEncodingError(.unsupportedVersion) }
        // HTTPMethod's initialiser already guarantees a token; the target is checked against it.
        if let bad = HTTPFieldValidation.firstInvalidRequestTargetByte(target, method: method) {
            throw HTTPEncodingError(.invalidRequestTarget, offset: bad)
        }
        let summary = try HTTPFieldValidation.summarize(headers, role: .request)
        let hostCount: Int
        if let callerHost = summary.host {
            hostCount = callerHost.encodedCount
        } else {
            let hostBytes = host.utf8.count
            if let bad = withUTF8(host, HTTPFieldValidation.firstInvalidHostByte) {
                throw HTTPEncodingError(.invalidHost, offset: bad)
            }
            hostCount = FramingLines.hostPrefix.utf8CodeUnitCount + hostBytes + 2
        }
        let raw = method.rawValue
        let zeroLengthNeedsField = raw == "POST" || raw == "PUT" || raw == "PATCH"
        let added = try summary.framingField(for: body, chunkedAllowed: version == .http1_1, zeroLengthNeedsField: zeroLengthNeedsField)
        if case .unknown = body, version != .http1_1 {
            // RFC 9112 §6.3 rule 7 and §6.1: an HTTP/1.0 request body needs a Content-Length.
            throw HTTPEncodingError(.conflictingFraming)
        }
        let framing: EncodedHead.Framing
        switch body {
        case .none: framing = .noBody
        case .known(let n): framing = .contentLength(n)
        case .unknown: framing = .chunked
        }
        // "METHOD SP target SP HTTP/1.x CRLF" ... fields ... CRLF
        let requestLine = raw.utf8.count + 1 + target.count + 1 + 8 + 2
        let total = requestLine + hostCount + summary.encodedCount + added.encodedCount + 2
        return Plan(summary: summary, added: added, framing: framing, totalCount: total)
    }

    private func write(_ plan: Plan, method: HTTPMethod, target: UnsafeRawBufferPointer, host: String, headers: HTTPHeaders, into buffer: inout ByteBuffer) {
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: plan.totalCount) { region in
            var out = HeadWriter(region)
            out.write(method.rawValue)
            out.write(UInt8(ascii: " "))
            out.write(target)
            out.write(UInt8(ascii: " "))
            out.writeVersion(version)
            out.write("\r\n" as StaticString)
            let fields = headers.fields
            let hostIndex = plan.summary.host?.index
            if let hostIndex {
                out.writeField(name: fields[hostIndex].name, value: fields[hostIndex].value)
            } else {
                out.write(FramingLines.hostPrefix)
                out.write(host)
                out.write("\r\n" as StaticString)
            }
            for index in fields.indices where index != hostIndex {
                out.writeField(name: fields[index].name, value: fields[index].value)
            }
            out.write(plan.added)
            out.write("\r\n" as StaticString)
            precondition(out.position == plan.totalCount, "request head size was miscounted")
            return out.position
        }
    }
}

/// Writes head bytes into a region sized beforehand. Every write is in bounds because the encoders
/// count the exact size first; the final position is checked against that count.
struct HeadWriter {
    private let region: UnsafeMutableRawBufferPointer
    private(set) var position = 0

    init(_ region: UnsafeMutableRawBufferPointer) { self.region = region }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        let count = bytes.count
        guard count > 0 else { return }
        precondition(position + count <= region.count, "head writer overflow")
        // SAFETY: checked above that [position, position + count) lies inside `region`.
        (region.baseAddress! + position).copyMemory(from: bytes.baseAddress!, byteCount: count)
        position += count
    }

    mutating func write(_ byte: UInt8) {
        precondition(position < region.count, "head writer overflow")
        region[position] = byte
        position += 1
    }

    mutating func write(_ text: StaticString) {
        write(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func write(_ text: String) {
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }

    mutating func write(_ bytes: InlineBytes) {
        bytes.withUnsafeBytes { write($0) }
    }

    /// `HTTP/1.1` — RFC 9112 §2.3.
    mutating func writeVersion(_ version: HTTPVersion) {
        write("HTTP/" as StaticString)
        write(UInt8(ascii: "0") &+ version.major)
        write(UInt8(ascii: "."))
        write(UInt8(ascii: "0") &+ version.minor)
    }

    /// `name ": " value CRLF` — RFC 9112 §5 (one SP after the colon, the conventional form).
    mutating func writeField(name: String, value: String) {
        write(name)
        write(": " as StaticString)
        write(value)
        write("\r\n" as StaticString)
    }

    mutating func write(_ field: AddedFramingField) {
        switch field {
        case .nothing:
            break
        case .contentLength(let length):
            write(FramingLines.contentLengthPrefix)
            write(ASCIIInteger.decimal(length))
            write("\r\n" as StaticString)
        case .chunked:
            write(FramingLines.chunked)
        }
    }
}
