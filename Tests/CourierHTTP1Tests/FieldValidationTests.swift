// Byte-level sweeps of the shared field validation: names, values, request-targets, Host values
// and reason phrases, each over all 256 byte values, with the offset of the first bad byte.

import CourierBytes
import CourierHTTP1
import Testing

private func nameOffset(_ bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBytes { HTTPFieldValidation.firstInvalidNameByte($0) }
}

private func valueOffset(_ bytes: [UInt8]) -> Int? {
    bytes.withUnsafeBytes { HTTPFieldValidation.firstInvalidValueByte($0) }
}

private func hostOffset(_ text: String) -> Int? {
    Array(text.utf8).withUnsafeBytes { HTTPFieldValidation.firstInvalidHostByte($0) }
}

private func targetOffset(_ bytes: [UInt8], _ method: HTTPMethod = .get) -> Int? {
    bytes.withUnsafeBytes { HTTPFieldValidation.firstInvalidRequestTargetByte($0, method: method) }
}

private func targetOffset(_ text: String, _ method: HTTPMethod = .get) -> Int? {
    targetOffset(Array(text.utf8), method)
}

/// RFC 9110 §5.6.2 tchar, spelled out independently of the byte table under test.
private func isTchar(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
        return true
    default:
        return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
    }
}

@Suite("Field validation")
struct FieldValidationTests {
    @Test("every byte in a field name: only tchar passes, offset is the byte's position")
    func nameByteSweep() {
        for byte in 0...255 as ClosedRange<UInt8> {
            let name: [UInt8] = Array("X-".utf8) + [byte] + Array("a".utf8)
            #expect(nameOffset(name) == (isTchar(byte) ? nil : 2), "byte \(byte)")
        }
    }

    @Test("empty names, SP, colon and non-ASCII in names are refused")
    func nameSpecialCases() {
        #expect(nameOffset([]) == 0)
        #expect(nameOffset(Array("Content Type".utf8)) == 7)
        #expect(nameOffset(Array("Host:".utf8)) == 4)
        #expect(nameOffset(Array(":authority".utf8)) == 0)
        #expect(nameOffset(Array("Naïve".utf8)) == 2)
        #expect(nameOffset(Array("X-Ok_1.2~".utf8)) == nil)
    }

    @Test("every byte inside a field value: CTLs except HTAB and DEL are refused")
    func valueByteSweep() {
        for byte in 0...255 as ClosedRange<UInt8> {
            let value: [UInt8] = Array("a".utf8) + [byte] + Array("b".utf8)
            let allowed = byte == 0x09 || byte == 0x20 || (byte >= 0x21 && byte != 0x7F)
            #expect(valueOffset(value) == (allowed ? nil : 1), "byte \(byte)")
        }
    }

    @Test("CR, LF and NUL are refused wherever they are in a value")
    func valueCRLFNUL() {
        for bad: UInt8 in [0x0D, 0x0A, 0x00] {
            for position in 0..<6 {
                var value = Array("abcdef".utf8)
                value[position] = bad
                #expect(valueOffset(value) == position, "byte \(bad) at \(position)")
            }
        }
        #expect(valueOffset(Array("a\r\nInjected: 1".utf8)) == 1)
    }

    @Test("values must not start or end with SP or HTAB; inner whitespace and obs-text are kept")
    func valueWhitespaceAndObsText() {
        #expect(valueOffset([]) == nil)
        #expect(valueOffset(Array(" a".utf8)) == 0)
        #expect(valueOffset(Array("\ta".utf8)) == 0)
        #expect(valueOffset(Array("a ".utf8)) == 1)
        #expect(valueOffset(Array("abc\t".utf8)) == 3)
        #expect(valueOffset(Array(" ".utf8)) == 0)
        #expect(valueOffset(Array("a \t b".utf8)) == nil)
        #expect(valueOffset(Array("héllo wörld".utf8)) == nil)
        #expect(valueOffset([0x80, 0xFF]) == nil)
        // The first bad byte wins: a CR before trailing whitespace.
        #expect(valueOffset(Array("a\r ".utf8)) == 1)
    }

    @Test("validateField carries the index, the name and the offset")
    func validateFieldError() {
        #expect(throws: HTTPEncodingError(.invalidFieldName, fieldIndex: 3, fieldName: "Bad Name", offset: 3)) {
            try HTTPFieldValidation.validateField(name: "Bad Name", value: "v", index: 3)
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 0, fieldName: "X", offset: 2)) {
            try HTTPFieldValidation.validateField(name: "X", value: "ab\ncd", index: 0)
        }
        #expect(throws: HTTPEncodingError(.invalidFieldValue, fieldIndex: 1, fieldName: "B", offset: 0)) {
            try HTTPFieldValidation.validateFields(["A": "1", "B": "\u{0}", "C": "\r"])
        }
        #expect(throws: Never.self) { try HTTPFieldValidation.validateFields(["A": "1", "B": "x y"]) }
    }

    @Test("Host values: uri-host [\":\" port]")
    func hostValues() throws {
        for good in ["example.com", "example.com:8080", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:443",
                     "[v1.fe80::a+en1]", "xn--bcher-kva.example", "a", "host:", "my_host.local", "%41b"] {
            #expect(hostOffset(good) == nil, "\(good)")
        }
        #expect(hostOffset("") == 0)
        #expect(hostOffset(":80") == 0)
        #expect(hostOffset("a b") == 1)
        #expect(hostOffset("a/b") == 1)
        #expect(hostOffset("user@host") == 4)
        #expect(hostOffset("host?x") == 4)
        #expect(hostOffset("host#x") == 4)
        #expect(hostOffset("host\r\nX: y") == 4)
        #expect(hostOffset("ho\u{0}st") == 2)
        #expect(hostOffset("bücher.de") == 1)
        #expect(hostOffset("host:8x") == 6)
        #expect(hostOffset("host:80:90") == 7)
        #expect(hostOffset("[::1") == 0)
        #expect(hostOffset("[]") == 1)
        #expect(hostOffset("[::1]x") == 5)
        #expect(hostOffset("[::1/]") == 4)
        #expect(throws: HTTPEncodingError(.invalidHost, offset: 4)) { try HTTPFieldValidation.validateHost("evil host") }
    }

    @Test("every byte in an origin-form target: only visible ASCII other than # passes")
    func targetByteSweep() {
        for byte in 0...255 as ClosedRange<UInt8> {
            let target: [UInt8] = Array("/a".utf8) + [byte] + Array("b".utf8)
            let allowed = byte >= 0x21 && byte <= 0x7E && byte != UInt8(ascii: "#")
            #expect(targetOffset(target) == (allowed ? nil : 2), "byte \(byte)")
        }
    }

    @Test("request-target forms per method (RFC 9112 §3.2)")
    func targetForms() {
        // origin-form
        #expect(targetOffset("/") == nil)
        #expect(targetOffset("/a/b?c=d&e=%20") == nil)
        #expect(targetOffset("//double") == nil)
        #expect(targetOffset("") == 0)
        #expect(targetOffset("/a b") == 2)
        #expect(targetOffset("/caf\u{e9}") == 4)
        #expect(targetOffset("/page#frag") == 5)
        // absolute-form
        #expect(targetOffset("http://example.com/x") == nil)
        #expect(targetOffset("coap+tcp://h/") == nil)
        #expect(targetOffset("http") == 4)
        #expect(targetOffset("1http://x") == 0)
        #expect(targetOffset("ht_tp://x") == 2)
        #expect(targetOffset("example.com") == 11)
        // asterisk-form: OPTIONS only
        #expect(targetOffset("*", .options) == nil)
        #expect(targetOffset("*", .get) == 0)
        #expect(targetOffset("**", .options) == 0)
        // authority-form: CONNECT only, port required
        #expect(targetOffset("example.com:443", .connect) == nil)
        #expect(targetOffset("[::1]:8443", .connect) == nil)
        #expect(targetOffset("example.com", .connect) == 11)
        #expect(targetOffset("example.com:", .connect) == 12)
        #expect(targetOffset("/path", .connect) == 0)
        #expect(targetOffset("http://example.com:443", .connect) == 5)
        #expect(targetOffset("user@example.com:443", .connect) == 4)
        // GET with an authority-looking target is absolute-form with scheme "example.com".
        #expect(targetOffset("example.com:443", .get) == nil)
    }

    @Test("reason phrases: HTAB / SP / VCHAR / obs-text")
    func reasonPhraseSweep() {
        for byte in 0...255 as ClosedRange<UInt8> {
            let reason: [UInt8] = Array("Not".utf8) + [byte] + Array("Found".utf8)
            let allowed = byte == 0x09 || byte == 0x20 || (byte >= 0x21 && byte != 0x7F)
            let offset = reason.withUnsafeBytes { HTTPFieldValidation.firstInvalidReasonPhraseByte($0) }
            #expect(offset == (allowed ? nil : 3), "byte \(byte)")
        }
        #expect(throws: Never.self) { try HTTPFieldValidation.validateReasonPhrase("") }
        #expect(throws: Never.self) { try HTTPFieldValidation.validateReasonPhrase(" leading and trailing ") }
        #expect(throws: HTTPEncodingError(.invalidReasonPhrase, offset: 2)) {
            try HTTPFieldValidation.validateReasonPhrase("OK\r\nX: y")
        }
    }

    @Test("method tokens typed by a user")
    func methodTokens() throws {
        #expect(try HTTPMethod.validated("PROPFIND").rawValue == "PROPFIND")
        #expect(try HTTPMethod.validated("get").rawValue == "get")
        #expect(throws: HTTPEncodingError(.invalidMethod, offset: 0)) { try HTTPMethod.validated("") }
        #expect(throws: HTTPEncodingError(.invalidMethod, offset: 2)) { try HTTPMethod.validated("GE T") }
        #expect(throws: HTTPEncodingError(.invalidMethod, offset: 3)) { try HTTPMethod.validated("GET\r\n") }
        #expect(throws: HTTPEncodingError(.invalidMethod, offset: 4)) { try HTTPMethod.validated("POST\u{0}") }
        #expect(throws: HTTPEncodingError(.invalidMethod, offset: 3)) { try HTTPMethod.validated("GET/") }
    }

    @Test("error codes are stable names and descriptions stay on one line")
    func errorCodes() {
        let codes: [HTTPEncodingError.Code] = [.invalidMethod, .invalidRequestTarget, .invalidFieldName,
                                               .invalidFieldValue, .invalidHost, .conflictingFraming,
                                               .invalidStatus, .invalidReasonPhrase, .unsupportedVersion,
                                               .forbiddenTrailerField]
        #expect(Set(codes.map(\.rawValue)).count == codes.count)
        #expect(HTTPEncodingError.Code.invalidFieldName.rawValue == "invalidFieldName")
        let error = HTTPEncodingError(.invalidFieldName, fieldIndex: 2, fieldName: "X\r\nY", offset: 1)
        #expect(error.description == "HTTPEncodingError(invalidFieldName, field #2 \"X\\x0D\\x0AY\", byte 1)")
    }
}
