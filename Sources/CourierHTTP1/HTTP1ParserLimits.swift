// HTTP1ParserLimits: every bound the HTTP/1.1 parsing side enforces, in one value (design §5).
//
// A limit exists so that a hostile or broken peer cannot make the parser hold or scan unbounded
// memory. Each default follows a precedent from a widely deployed implementation; docs/http1.md
// keeps the table.

/// The bounds the head parsers, the chunked decoder and the client connection enforce.
///
/// | limit | default | precedent |
/// | --- | --- | --- |
/// | `maxHeadSize` | 256 KiB | Chrome 256 KiB; curl 300 KiB |
/// | `maxFieldCount` | 5,000 | curl (`MAX_HTTP_RESP_HEADER_COUNT`); Chrome and Go count none |
/// | `maxInterimResponses` | 16 | Go net/http, ruby net/http |
/// | `maxChunkSizeDigits` | 16 | httparse (16 hex digits = 64 bits) |
/// | `maxChunkExtensionsSize` | 16 KiB | hyper |
/// | `maxTrailerSize` | 16 KiB | hyper |
public struct HTTP1ParserLimits: Sendable, Hashable {
    /// The most bytes of a response head (status line, field lines and the final empty line),
    /// counting every interim (1xx) head of the same response; for a request, the request head.
    /// Default 256 KiB (Chrome's limit; curl allows 300 KiB). A head of exactly this size is
    /// accepted; one byte more is `headTooLarge`.
    public var maxHeadSize: Int
    /// The most field lines in one head or one trailer section (a folded continuation line is
    /// part of its field). Default 5,000, curl's count (browsers and curl accept responses of
    /// hundreds of fields; the head size bounds the memory anyway).
    public var maxFieldCount: Int
    /// The most interim (1xx other than 101) responses before the final response. Default 16.
    public var maxInterimResponses: Int
    /// The most hex digits in a chunk-size, leading zeros included. Default 16; values above 16
    /// are treated as 16 so that the size always fits in 64 bits.
    public var maxChunkSizeDigits: Int
    /// The most bytes of chunk extensions (everything between a chunk-size and its CRLF) over a
    /// whole message. Default 16 KiB.
    public var maxChunkExtensionsSize: Int
    /// The most bytes of the trailer section, final CRLF included. Default 16 KiB.
    public var maxTrailerSize: Int

    /// Creates limits; every argument defaults to the documented value.
    /// - Parameters:
    ///   - maxHeadSize: bytes per head (interim heads included), at least 1.
    ///   - maxFieldCount: field lines per head or trailer section.
    ///   - maxInterimResponses: 1xx responses before the final one.
    ///   - maxChunkSizeDigits: hex digits per chunk-size (1...16).
    ///   - maxChunkExtensionsSize: extension bytes per message.
    ///   - maxTrailerSize: trailer-section bytes per message.
    public init(
        maxHeadSize: Int = 256 * 1024,
        maxFieldCount: Int = 5_000,
        maxInterimResponses: Int = 16,
        maxChunkSizeDigits: Int = 16,
        maxChunkExtensionsSize: Int = 16 * 1024,
        maxTrailerSize: Int = 16 * 1024
    ) {
        precondition(maxHeadSize > 0 && maxFieldCount >= 0 && maxInterimResponses >= 0, "limits must not be negative")
        precondition(maxChunkSizeDigits > 0 && maxChunkExtensionsSize >= 0 && maxTrailerSize > 0, "limits must be positive")
        self.maxHeadSize = maxHeadSize
        self.maxFieldCount = maxFieldCount
        self.maxInterimResponses = maxInterimResponses
        self.maxChunkSizeDigits = maxChunkSizeDigits
        self.maxChunkExtensionsSize = maxChunkExtensionsSize
        self.maxTrailerSize = maxTrailerSize
    }

    /// The documented defaults.
    public static let `default` = HTTP1ParserLimits()

    /// Field offsets are stored as 32-bit values, so a head is never allowed to exceed 4 GiB.
    var effectiveMaxHeadSize: Int { min(maxHeadSize, Int(UInt32.max)) }
    var effectiveMaxTrailerSize: Int { min(maxTrailerSize, Int(UInt32.max)) }
    var effectiveMaxChunkSizeDigits: Int { min(max(maxChunkSizeDigits, 1), 16) }
}
