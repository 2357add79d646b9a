// ContentCoding: the content codings Courier decodes, and the parse of a Content-Encoding field.
//
// RFC 9110 §8.4: Content-Encoding = #content-coding; content-coding = token; names are
// case-insensitive; the codings are listed in the order they were applied, so a recipient undoes
// them from the last to the first. §8.4.1.3: x-gzip is gzip. §5.6.1: a recipient accepts and
// ignores empty list elements. `identity` (§12.5.3) and curl's alias `none` are accepted and do
// nothing.

import CourierBytes

/// A content coding (RFC 9110 §8.4.1) this module encodes and decodes.
public enum ContentCoding: String, Sendable, Hashable, CaseIterable {
    /// RFC 1952 gzip (`gzip`, `x-gzip`).
    case gzip
    /// RFC 1950 zlib-wrapped deflate (`deflate`); a raw RFC 1951 stream is accepted when decoding.
    case deflate
    /// No coding (`identity`, `none`).
    case identity

    /// The coding a name denotes, ASCII case-insensitively; nil for a coding not implemented here.
    /// - Parameter name: a content-coding token.
    public init?(name: some StringProtocol) {
        switch name.lowercased() {
        case "gzip", "x-gzip": self = .gzip
        case "deflate": self = .deflate
        case "identity", "none": self = .identity
        default: return nil
        }
    }

    /// The codings a `Content-Encoding` field value lists, in the order they were applied (the
    /// order written; decoding runs them backwards). Empty elements are skipped, so an empty value
    /// lists nothing.
    /// - Parameter fieldValue: the field value (several field lines joined with ", ").
    /// - Returns: the codings, identity included.
    /// - Throws: `.unsupportedCoding` for an element that is not a token or names an unknown coding.
    public static func codings(inFieldValue fieldValue: String) throws(ContentDecodingError) -> [ContentCoding] {
        var result: [ContentCoding] = []
        let table = ByteClass.table
        for element in fieldValue.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            // RFC 9110 §5.6.1, §5.6.3: OWS around list elements.
            let trimmed = element.drop { $0 == 0x20 || $0 == 0x09 }.reversed().drop { $0 == 0x20 || $0 == 0x09 }.reversed()
            if trimmed.isEmpty { continue }
            let name = String(decoding: trimmed, as: UTF8.self)
            guard trimmed.allSatisfy({ table[$0].contains(.token) }) else {
                throw ContentDecodingError(.unsupportedCoding, message: "content coding \"\(name)\" is not a token")
            }
            guard let coding = ContentCoding(name: name) else {
                throw ContentDecodingError(.unsupportedCoding,
                                           message: "unsupported content coding \"\(name)\" (supported: gzip, deflate, identity)")
            }
            result.append(coding)
        }
        return result
    }
}
