// DecompressionLimits: what stops a compression bomb (design §5, docs/limits.md).
//
// A decoder hands out decoded bytes one bounded piece at a time, so the decoder itself never holds
// more than one piece per coding whatever the input. These limits stop the *stream*: a body whose
// decoded size or expansion ratio says it is a bomb ends with a typed error after at most the
// limit plus one piece, however much the caller feeds it.

/// Limits a ``ContentDecoder`` enforces while it decodes, each checked per output piece before the
/// piece is handed out.
///
/// | field | default | precedent |
/// | --- | --- | --- |
/// | `maximumDecodedSize` | nil (unlimited) | curl `--max-filesize` applies to decoded bytes; the client sets it from its body limits |
/// | `maximumRatio` | 200 | Apache mod_deflate `DeflateInflateRatioLimit` 200 |
/// | `ratioGraceSize` | 1 MiB | Apache MINA `decompressRatioMinSize` 1 MiB; mod_deflate's `DeflateInflateRatioBurst` plays the same role |
/// | `maximumCodings` | 5 | curl `MAX_ENCODE_STACK` 5 |
/// | `pieceSize` | 64 KiB | curl decodes into 16 KiB, zlib's own examples 16–256 KiB |
public struct DecompressionLimits: Sendable, Hashable {
    /// The most decoded bytes a body may have; nil for no limit. Exceeding it throws
    /// `.decodedSizeExceeded` before the piece that crosses it is handed out.
    public var maximumDecodedSize: UInt64?
    /// The most decoded bytes per encoded byte consumed, checked once more than `ratioGraceSize`
    /// bytes have been decoded; nil for no limit. Exceeding it throws `.ratioExceeded`.
    ///
    /// Deflate's largest ratio is about 1032:1 (a run of one byte); text and JSON compress 3–20:1,
    /// very repetitive logs or sparse data reach a few hundred. The check applies to the output of
    /// every coding in a chain, against the bytes of the body consumed, so `gzip, gzip` (a bomb
    /// inside a bomb) is caught at the first stage that expands too far.
    public var maximumRatio: UInt64?
    /// The decoded bytes below which the ratio is not checked: a small body may compress very well
    /// (a page of zeros) without being a bomb, and cannot exhaust memory.
    public var ratioGraceSize: UInt64
    /// The most codings a `Content-Encoding` may list (identity included); more throws
    /// `.tooManyCodings` when the decoder is created.
    public var maximumCodings: Int
    /// The most decoded bytes one call hands out (and the size of each coding's output buffer).
    public var pieceSize: Int

    /// Creates limits; every argument has the documented default.
    /// - Parameters:
    ///   - maximumDecodedSize: decoded bytes allowed in total, nil for no limit.
    ///   - maximumRatio: decoded bytes allowed per encoded byte, nil for no limit.
    ///   - ratioGraceSize: decoded bytes before the ratio is checked.
    ///   - maximumCodings: codings allowed in one `Content-Encoding`.
    ///   - pieceSize: decoded bytes per call, at least 1.
    public init(maximumDecodedSize: UInt64? = nil, maximumRatio: UInt64? = 200, ratioGraceSize: UInt64 = 1 << 20,
                maximumCodings: Int = 5, pieceSize: Int = 64 * 1024) {
        precondition(pieceSize >= 1, "pieceSize must be at least 1")
        precondition(maximumCodings >= 0, "maximumCodings must not be negative")
        self.maximumDecodedSize = maximumDecodedSize
        self.maximumRatio = maximumRatio
        self.ratioGraceSize = ratioGraceSize
        self.maximumCodings = maximumCodings
        self.pieceSize = pieceSize
    }

    /// The defaults.
    public static let `default` = DecompressionLimits()

    /// No size or ratio limit (codings and piece size keep their defaults). For tests and for
    /// callers that bound the decoded body themselves.
    public static let unlimited = DecompressionLimits(maximumDecodedSize: nil, maximumRatio: nil)
}
