// HTTPFieldValidation: the one place where outgoing protocol elements are checked before an
// encoder writes a byte — field names and values, the request-target, the Host value and the
// reason phrase. Both head encoders and the chunked encoder's trailer section go through here.
//
// Invariants:
// - Every check reports the offset of the FIRST bad byte inside the element it checks, so an
//   error points at one byte the caller can find. An element that ends too early (a missing
//   ":" or port) reports its length as the offset.
// - Checks only read; nothing is trimmed, folded or rewritten. What is validated is what is sent.
//
// RFC sections implemented:
// - RFC 9110 §5.1, §5.6.2 field-name = token (1*tchar).
// - RFC 9110 §5.5 field-value = *field-content: field-vchar (VCHAR / obs-text), SP, HTAB. CR, LF,
//   NUL and every other CTL are refused (§5.5: "a sender MUST NOT generate" them).
//   Choice: values are sent exactly as given, and a value that starts or ends with SP or HTAB is
//   refused rather than trimmed — a recipient strips that whitespace (RFC 9112 §5.1), so a caller
//   who wrote it would otherwise believe bytes were sent that the peer never sees.
//   obs-text (0x80–0xFF, e.g. UTF-8 text) is allowed in values, as RFC 9110 §5.5 allows it.
// - RFC 9112 §3.2 request-target forms: origin-form ("/" ...), absolute-form (scheme ":" ...),
//   authority-form (CONNECT only, host ":" port), asterisk-form ("*", OPTIONS only). Every byte is
//   visible ASCII; "#" is refused (a fragment is never sent, RFC 9110 §7.1). Percent-encoding is
//   the caller's job and is not re-checked.
// - RFC 9112 §3.2 / RFC 3986 §3.2.2–§3.2.3 Host = uri-host [ ":" port ].
// - RFC 9112 §4 reason-phrase = 1*( HTAB / SP / VCHAR / obs-text ).

import CourierBytes

/// Checks for outgoing field names, field values, request-targets, Host values and reason phrases.
///
/// The `firstInvalid…` functions return the offset of the first bad byte, or nil when the element
/// is valid; the `validate…` functions throw an `HTTPEncodingError` carrying that offset.
public enum HTTPFieldValidation {
    // MARK: Byte-level checks

    /// Finds the first byte that makes `name` an invalid field name (RFC 9110 §5.1: a `token`).
    /// - Parameter name: the name's bytes.
    /// - Returns: the offset of the first byte that is not a `tchar` (0 for an empty name), or nil.
    public static func firstInvalidNameByte(_ name: UnsafeRawBufferPointer) -> Int? {
        guard name.count > 0 else { return 0 }
        let table = ByteClass.table
        for offset in 0..<name.count where !table.isAny(name[offset], of: .token) { return offset }
        return nil
    }

    /// Finds the first byte that makes `value` an invalid field value (RFC 9110 §5.5).
    ///
    /// Allowed: VCHAR, obs-text (0x80–0xFF), and SP / HTAB between other bytes. Refused: CR, LF,
    /// NUL, every other control byte, DEL, and SP / HTAB as the first or last byte.
    /// - Parameter value: the value's bytes; an empty value is valid.
    /// - Returns: the offset of the first bad byte, or nil.
    public static func firstInvalidValueByte(_ value: UnsafeRawBufferPointer) -> Int? {
        let count = value.count
        guard count > 0 else { return nil }
        let table = ByteClass.table
        if table.isAny(value[0], of: .whitespace) { return 0 }
        for offset in 0..<count where !table.isAny(value[offset], of: .fieldValue) { return offset }
        if table.isAny(value[count - 1], of: .whitespace) { return count - 1 }
        return nil
    }

    /// Finds the first byte that makes `reason` an invalid reason phrase (RFC 9112 §4:
    /// HTAB / SP / VCHAR / obs-text; an empty phrase is allowed).
    /// - Parameter reason: the phrase's bytes.
    /// - Returns: the offset of the first bad byte, or nil.
    public static func firstInvalidReasonPhraseByte(_ reason: UnsafeRawBufferPointer) -> Int? {
        let table = ByteClass.table
        for offset in 0..<reason.count where !table.isAny(reason[offset], of: .fieldValue) { return offset }
        return nil
    }

    /// Finds the first byte that makes `host` an invalid Host value: `uri-host [ ":" port ]`
    /// (RFC 9112 §3.2, RFC 3986 §3.2.2): an IP-literal in brackets, or a non-empty reg-name /
    /// IPv4 address (unreserved, sub-delims, "%"), then optionally ":" and digits. So CR, LF, NUL,
    /// SP, "/", "?", "#", "@" and non-ASCII bytes are all refused.
    /// - Parameter host: the value's bytes.
    /// - Returns: the offset of the first bad byte (0 for an empty value or an unclosed "["), or nil.
    public static func firstInvalidHostByte(_ host: UnsafeRawBufferPointer) -> Int? {
        scanHost(host).badOffset
    }

    /// Finds the first byte that makes `target` an invalid request-target for `method`
    /// (RFC 9112 §3.2).
    ///
    /// - CONNECT: authority-form only, `uri-host ":" port` with at least one port digit (§3.2.3).
    /// - `*`: asterisk-form, OPTIONS only (§3.2.4).
    /// - starting with "/": origin-form (§3.2.1).
    /// - otherwise absolute-form: `scheme ":" ...` (§3.2.2).
    ///
    /// Every byte must be visible ASCII other than "#"; SP, CTL and non-ASCII are refused.
    /// - Parameters:
    ///   - target: the request-target's bytes, already percent-encoded.
    ///   - method: the request method, which decides the forms allowed.
    /// - Returns: the offset of the first bad byte (the length when the target ends too early),
    ///   or nil.
    public static func firstInvalidRequestTargetByte(_ target: UnsafeRawBufferPointer, method: HTTPMethod) -> Int? {
        let count = target.count
        guard count > 0 else { return 0 }
        let table = ByteClass.table
        for offset in 0..<count {
            let byte = target[offset]
            // RFC 9110 §7.1: the fragment is not part of the target; a "#" means a caller bug.
            if !table.isAny(byte, of: .requestTarget) || byte == UInt8(ascii: "#") { return offset }
        }
        if method == .connect {
            // RFC 9112 §3.2.3 authority-form; RFC 9110 §9.3.6: the port is required.
            let scan = scanHost(target)
            if let bad = scan.badOffset { return bad }
            guard let digits = scan.portDigits, digits > 0 else { return count }
            return nil
        }
        let first = target[0]
        if first == UInt8(ascii: "/") { return nil }
        if first == UInt8(ascii: "*") && count == 1 { return method == .options ? nil : 0 }
        // RFC 3986 §3.1 scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), then ":".
        guard table.isAny(first, of: .alpha) else { return 0 }
        var offset = 1
        while offset < count && table.isAny(target[offset], of: .schemeChar) { offset += 1 }
        guard offset < count else { return count }
        return target[offset] == UInt8(ascii: ":") ? nil : offset
    }

    // MARK: Throwing checks on text

    /// Checks one field.
    /// - Parameters:
    ///   - name: the field name.
    ///   - value: the field value.
    ///   - index: the field's index in its list, carried in the error.
    /// - Throws: `.invalidFieldName` or `.invalidFieldValue` with the offset of the first bad byte.
    public static func validateField(name: String, value: String, index: Int = 0) throws(HTTPEncodingError) {
        if let bad = withUTF8(name, firstInvalidNameByte) {
            throw HTTPEncodingError(.invalidFieldName, fieldIndex: index, fieldName: name, offset: bad)
        }
        if let bad = withUTF8(value, firstInvalidValueByte) {
            throw HTTPEncodingError(.invalidFieldValue, fieldIndex: index, fieldName: name, offset: bad)
        }
    }

    /// Checks every field of a list, in order, stopping at the first bad one.
    /// - Parameter fields: the fields.
    /// - Throws: `.invalidFieldName` or `.invalidFieldValue` for the first bad field.
    public static func validateFields(_ fields: HTTPHeaders) throws(HTTPEncodingError) {
        for (index, field) in fields.fields.enumerated() {
            try validateField(name: field.name, value: field.value, index: index)
        }
    }

    /// Checks a Host value (`uri-host [ ":" port ]`).
    /// - Parameter host: the value, e.g. `example.com:8080` or `[::1]`.
    /// - Throws: `.invalidHost` with the offset of the first bad byte.
    public static func validateHost(_ host: String) throws(HTTPEncodingError) {
        if let bad = withUTF8(host, firstInvalidHostByte) { throw HTTPEncodingError(.invalidHost, offset: bad) }
    }

    /// Checks a request-target for a method.
    /// - Parameters:
    ///   - target: the request-target, already percent-encoded.
    ///   - method: the method.
    /// - Throws: `.invalidRequestTarget` with the offset of the first bad byte.
    public static func validateRequestTarget(_ target: String, method: HTTPMethod) throws(HTTPEncodingError) {
        if let bad = withUTF8(target, { firstInvalidRequestTargetByte($0, method: method) }) {
            throw HTTPEncodingError(.invalidRequestTarget, offset: bad)
        }
    }

    /// Checks a reason phrase.
    /// - Parameter reason: the phrase.
    /// - Throws: `.invalidReasonPhrase` with the offset of the first bad byte.
    public static func validateReasonPhrase(_ reason: String) throws(HTTPEncodingError) {
        if let bad = withUTF8(reason, firstInvalidReasonPhraseByte) {
            throw HTTPEncodingError(.invalidReasonPhrase, offset: bad)
        }
    }

    // MARK: Internals shared by the encoders

    /// Scans `uri-host [ ":" port ]`: the first bad byte, and the number of port digits (nil
    /// when there is no ":").
    static func scanHost(_ host: UnsafeRawBufferPointer) -> (badOffset: Int?, portDigits: Int?) {
        let count = host.count
        guard count > 0 else { return (0, nil) }
        let table = ByteClass.table
        var offset = 0
        if host[0] == UInt8(ascii: "[") {
            // RFC 3986 §3.2.2 IP-literal: IPv6address / IPvFuture, all unreserved, sub-delims, ":".
            offset = 1
            while offset < count && host[offset] != UInt8(ascii: "]") {
                let byte = host[offset]
                guard table.isAny(byte, of: [.unreserved, .subDelimiter]) || byte == UInt8(ascii: ":") else { return (offset, nil) }
                offset += 1
            }
            guard offset < count, offset > 1 else { return (offset < count ? offset : 0, nil) }
            offset += 1
        } else {
            // reg-name / IPv4address: unreserved / pct-encoded / sub-delims; must not be empty here.
            while offset < count && host[offset] != UInt8(ascii: ":") {
                let byte = host[offset]
                guard table.isAny(byte, of: [.unreserved, .subDelimiter]) || byte == UInt8(ascii: "%") else { return (offset, nil) }
                offset += 1
            }
            guard offset > 0 else { return (0, nil) }
        }
        guard offset < count else { return (nil, nil) }
        guard host[offset] == UInt8(ascii: ":") else { return (offset, nil) }
        offset += 1
        let portStart = offset
        while offset < count {
            guard table.isAny(host[offset], of: .digit) else { return (offset, nil) }
            offset += 1
        }
        return (nil, count - portStart)
    }

    /// Validates every field of `fields` for `role` and records what the encoders need to know
    /// about framing and routing fields. Fields are checked in order; the first bad one throws.
    static func summarize(_ fields: HTTPHeaders, role: FieldRole) throws(HTTPEncodingError) -> FieldSummary {
        var summary = FieldSummary()
        for (index, field) in fields.fields.enumerated() {
            let check = withUTF8(field.name) { name in
                withUTF8(field.value) { value in checkField(name: name, value: value, role: role) }
            }
            switch check {
            case .badName(let offset):
                throw HTTPEncodingError(.invalidFieldName, fieldIndex: index, fieldName: field.name, offset: offset)
            case .badValue(let offset):
                throw HTTPEncodingError(.invalidFieldValue, fieldIndex: index, fieldName: field.name, offset: offset)
            case .forbiddenInTrailer:
                throw HTTPEncodingError(.forbiddenTrailerField, fieldIndex: index, fieldName: field.name)
            case .badHost(let offset):
                throw HTTPEncodingError(.invalidHost, fieldIndex: index, fieldName: field.name, offset: offset)
            case .badContentLength(let offset):
                throw HTTPEncodingError(.invalidFieldValue, fieldIndex: index, fieldName: field.name, offset: offset)
            case .valid(let kind, let encodedCount):
                switch kind {
                case .other:
                    summary.encodedCount += encodedCount
                case .host:
                    // RFC 9112 §3.2: exactly one Host field.
                    guard summary.host == nil else {
                        throw HTTPEncodingError(.invalidHost, fieldIndex: index, fieldName: field.name)
                    }
                    summary.host = FieldSummary.Host(index: index, encodedCount: encodedCount)
                case .contentLength(let value):
                    // One Content-Length only: duplicates invite request smuggling (RFC 9110 §8.6).
                    guard summary.contentLength == nil else {
                        throw HTTPEncodingError(.conflictingFraming, fieldIndex: index, fieldName: field.name)
                    }
                    summary.contentLength = FieldSummary.ContentLength(index: index, name: field.name, value: value)
                    summary.encodedCount += encodedCount
                case .transferEncoding(let chunkedCount, let endsWithChunked):
                    // Several Transfer-Encoding fields form one list (RFC 9110 §5.3); the last
                    // field holds the final coding.
                    let earlier = summary.transferEncoding?.chunkedCount ?? 0
                    summary.transferEncoding = FieldSummary.TransferEncoding(
                        index: index, name: field.name, chunkedCount: earlier + chunkedCount, endsWithChunked: endsWithChunked)
                    summary.encodedCount += encodedCount
                case .connection(let hasClose):
                    summary.hasConnectionClose = summary.hasConnectionClose || hasClose
                    summary.encodedCount += encodedCount
                }
            }
        }
        return summary
    }

    private enum FieldCheck {
        case valid(FieldKind, encodedCount: Int)
        case badName(Int)
        case badValue(Int)
        case badHost(Int)
        case badContentLength(Int?)
        case forbiddenInTrailer
    }

    private enum FieldKind {
        case other
        case host
        case contentLength(UInt64)
        case transferEncoding(chunkedCount: Int, endsWithChunked: Bool)
        case connection(hasClose: Bool)
    }

    private static func checkField(name: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, role: FieldRole) -> FieldCheck {
        if let bad = firstInvalidNameByte(name) { return .badName(bad) }
        if let bad = firstInvalidValueByte(value) { return .badValue(bad) }
        let encodedCount = name.count + 2 + value.count + 2
        let kind: FieldKind
        switch name.count {
        case 4 where equalsLowercased(name, "host"):
            if role == .trailer { return .forbiddenInTrailer }
            guard role == .request else { kind = .other; break }
            if let bad = scanHost(value).badOffset { return .badHost(bad) }
            kind = .host
        case 14 where equalsLowercased(name, "content-length"):
            if role == .trailer { return .forbiddenInTrailer }
            // RFC 9110 §8.6: Content-Length = 1*DIGIT.
            do {
                kind = .contentLength(try ASCIIInteger.parseDecimal(value))
            } catch {
                if error.code == .invalidDigit, let offset = error.offset { return .badContentLength(offset) }
                return .badContentLength(error.code == .empty ? 0 : nil)
            }
        case 17 where equalsLowercased(name, "transfer-encoding"):
            if role == .trailer { return .forbiddenInTrailer }
            var chunked = 0
            var last = false
            forEachListElement(value) { element in
                // A transfer-coding may carry parameters after ";" (RFC 9112 §7).
                last = equalsLowercased(element, "chunked")
                if last { chunked += 1 }
            }
            kind = .transferEncoding(chunkedCount: chunked, endsWithChunked: last)
        case 10 where equalsLowercased(name, "connection"):
            var hasClose = false
            forEachListElement(value) { element in
                if equalsLowercased(element, "close") { hasClose = true }
            }
            kind = .connection(hasClose: hasClose)
        case 7 where role == .trailer && equalsLowercased(name, "trailer"):
            return .forbiddenInTrailer
        default:
            kind = .other
        }
        return .valid(kind, encodedCount: encodedCount)
    }

    /// Calls `body` with each element of a comma-separated list (RFC 9110 §5.6.1), without OWS
    /// and without any ";" parameters. Empty elements are skipped.
    static func forEachListElement(_ list: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> Void) {
        let table = ByteClass.table
        var start = 0
        let count = list.count
        while start < count {
            var end = start
            while end < count && list[end] != UInt8(ascii: ",") { end += 1 }
            var stop = start
            while stop < end && list[stop] != UInt8(ascii: ";") { stop += 1 }
            var lo = start, hi = stop
            while lo < hi && table.isAny(list[lo], of: .whitespace) { lo += 1 }
            while hi > lo && table.isAny(list[hi - 1], of: .whitespace) { hi -= 1 }
            if hi > lo { body(UnsafeRawBufferPointer(rebasing: list[lo..<hi])) }
            start = end + 1
        }
    }

    /// Whether `bytes` equal `lowercase` ignoring ASCII case; `lowercase` must be lower case.
    static func equalsLowercased(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = lowercase.utf8Start
        for offset in 0..<bytes.count where ASCIICase.lowercased(bytes[offset]) != expected[offset] { return false }
        return true
    }
}

/// Which part of a message a field list belongs to; it decides which fields are special.
enum FieldRole: Equatable {
    /// Request header fields: Host is routing, Content-Length and Transfer-Encoding are framing.
    case request
    /// Response header fields: Content-Length, Transfer-Encoding and Connection matter.
    case response
    /// Trailer fields: framing and routing fields are forbidden (RFC 9110 §6.5.1).
    case trailer
}

/// What the encoders learned about a validated field list.
struct FieldSummary {
    struct Host { var index: Int; var encodedCount: Int }
    struct ContentLength { var index: Int; var name: String; var value: UInt64 }
    struct TransferEncoding { var index: Int; var name: String; var chunkedCount: Int; var endsWithChunked: Bool }

    /// The caller's Host field (requests only).
    var host: Host?
    /// The caller's Content-Length field.
    var contentLength: ContentLength?
    /// The caller's Transfer-Encoding fields, as one list (the index of the last one).
    var transferEncoding: TransferEncoding?
    /// Whether a Connection field lists "close".
    var hasConnectionClose = false
    /// The bytes of every field except a request's Host: `name ": " value CRLF` each.
    var encodedCount = 0
}

/// Calls `body` with the UTF-8 bytes of `string`, without copying a native string.
@inline(__always)
func withUTF8<R>(_ string: String, _ body: (UnsafeRawBufferPointer) -> R) -> R {
    var string = string
    return string.withUTF8 { body(UnsafeRawBufferPointer($0)) }
}
