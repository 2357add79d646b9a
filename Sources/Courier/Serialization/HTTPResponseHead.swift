// HTTPResponseHead: what a response serializer sees of a response besides its body — the status, the
// header fields, and the media type parsed from Content-Type (NSURLResponse's MIMEType and
// textEncodingName).
//
// Content-Type (RFC 9110 §8.3.1): `type "/" subtype *( OWS ";" OWS parameter )`, parameter
// `token "=" ( token / quoted-string )`. Type, subtype and parameter names are case-insensitive
// and folded to lower case here; the charset value is folded too (charset names are
// case-insensitive, RFC 9110 §8.3.2). A value that does not parse leaves `mimeType` nil, which no
// acceptable-content-type set contains.

import CourierHTTP1

/// A response's status, fields and media type.
public struct HTTPResponseHead: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields.
    public var headers: HTTPHeaders
    /// `type/subtype` from Content-Type, lower case, or nil when absent or malformed.
    public var mimeType: String?
    /// The `charset` parameter of Content-Type, lower case and unquoted, or nil.
    public var charset: String?

    /// Creates a head; the media type and charset are parsed from the first Content-Type field.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: the header fields.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.headers = headers
        if let value = headers.first(name: "Content-Type"), let parsed = HTTPResponseHead.parseContentType(value) {
            mimeType = parsed.mimeType
            charset = parsed.charset
        }
    }

    /// Creates a head from a parsed HTTP/1.1 response head (fields copied as text).
    /// - Parameter head: the head from `ResponseHeadParser`.
    public init(_ head: CourierHTTP1.ResponseHead) {
        var headers = HTTPHeaders()
        for field in head.headers { headers.add(name: field.name.readableString, value: field.value.readableString) }
        self.init(status: head.status, headers: headers)
    }

    /// Parses a Content-Type value.
    /// - Parameter value: the field value, e.g. `text/html; charset="UTF-8"`.
    /// - Returns: the lower-case `type/subtype` and charset, or nil when the media type is malformed.
    public static func parseContentType(_ value: String) -> (mimeType: String, charset: String?)? {
        let bytes = Array(value.utf8)
        var index = 0
        func skipSpace() { while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 } }
        func token() -> [UInt8] {
            let start = index
            while index < bytes.count, isTokenByte(bytes[index]) { index += 1 }
            return Array(bytes[start..<index])
        }
        skipSpace()
        let type = token()
        guard !type.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "/") else { return nil }
        index += 1
        let subtype = token()
        guard !subtype.isEmpty else { return nil }
        let mime = lower(type) + "/" + lower(subtype)
        var charset: String?
        skipSpace()
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: ";") else { return (mime, charset) }
            index += 1
            skipSpace()
            let name = token()
            guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
                skipSpace(); continue
            }
            index += 1
            var parameter: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                    parameter.append(bytes[index])
                    index += 1
                }
                if index < bytes.count { index += 1 }
            } else {
                parameter = token()
            }
            if lower(name) == "charset", charset == nil { charset = lower(parameter) }
            skipSpace()
        }
        return (mime, charset)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        // RFC 9110 §5.6.2 tchar.
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    private static func lower(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.map { $0 &- UInt8(ascii: "A") < 26 ? $0 + 32 : $0 }, as: UTF8.self)
    }
}
