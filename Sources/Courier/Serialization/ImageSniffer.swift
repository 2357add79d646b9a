// ImageSniffer: the format and pixel size of an image, read from its first bytes — what
// AFImageResponseSerializer needed a decoder for, without one. No pixel is decoded.
//
// Formats and where the size lives (every read bounds-checked; a short input is `.truncated`
// with the number of bytes needed when known, never a trap):
//   PNG   8-byte signature, then the IHDR chunk: width, height as big-endian u32 at 16 and 20
//         (PNG spec §11.2.2; IHDR must be first).
//   GIF   "GIF87a" / "GIF89a", logical screen width, height as little-endian u16 at 6 and 8.
//   BMP   "BM"; DIB header size at 14: 12 (OS/2 BITMAPCOREHEADER) → u16 width, height at 18, 20;
//         otherwise i32 width, height at 18, 22 (negative height = top-down rows; the size is |h|).
//   ICO   reserved 0, type 1, count ≥ 1; 16-byte entries from 6 whose first two bytes are width,
//         height (0 means 256); the largest entry is reported.
//   TIFF  "II*\0" (little-endian) or "MM\0*" (big-endian), first IFD offset at 4; the IFD's
//         ImageWidth (256) and ImageLength (257) entries, SHORT or LONG (TIFF 6.0 §2, §8).
//   JPEG  SOI FF D8, then marker segments walked (fill bytes FF skipped, standalone markers
//         01 and D0–D7 without a length) until a SOFn (C0–CF except C4 DHT, C8 JPG, CC DAC):
//         height, width as big-endian u16 at segment offsets 3 and 5 (ITU T.81 §B.2.2). SOS or
//         EOI before a SOF is `.malformed`.
//   WebP  "RIFF" size "WEBP", then the first chunk: "VP8 " (lossy: start code 9D 01 2A, 14-bit
//         width, height), "VP8L" (lossless: signature 0x2F, 14-bit width-1, height-1), "VP8X"
//         (extended: 24-bit canvas width-1, height-1 at 24 and 27).

import CourierBytes

/// An image format Courier recognises.
public enum ImageFormat: String, Sendable, Hashable {
    /// PNG.
    case png
    /// JPEG (JFIF / Exif).
    case jpeg
    /// GIF 87a / 89a.
    case gif
    /// Windows / OS2 bitmap.
    case bmp
    /// Windows icon.
    case ico
    /// TIFF, either byte order.
    case tiff
    /// WebP (lossy, lossless or extended).
    case webp
}

/// What sniffing found.
public struct ImageInfo: Sendable, Hashable {
    /// The format.
    public var format: ImageFormat
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Creates a value.
    public init(format: ImageFormat, width: Int, height: Int) { self.format = format; self.width = width; self.height = height }
}

/// Why the bytes give no image size.
public struct ImageSniffError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The closed set of reasons.
    public struct Code: ClosedErrorCode {
        /// The name.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .unrecognized, .truncated, .malformed
        ]
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// No known signature.
        public static let unrecognized = Code("unrecognized")
        /// A known format, but the input ends before the size.
        public static let truncated = Code("truncated")
        /// A known format with a structure that cannot hold a size (bad IFD, SOS before SOF, ...).
        public static let malformed = Code("malformed")
    }
    /// The reason.
    public var code: Code
    /// The format, when the signature was recognised.
    public var format: ImageFormat?
    /// The offset where reading stopped.
    public var offset: Int
    /// Creates an error.
    public init(_ code: Code, format: ImageFormat?, offset: Int) { self.code = code; self.format = format; self.offset = offset }
    /// `image code (format) at byte N`.
    public var description: String { "image \(code)" + (format.map { " (\($0.rawValue))" } ?? "") + " at byte \(offset)" }
}

/// Detects image formats and sizes from bytes.
public enum ImageSniffer {
    /// Sniffs the format and size.
    /// - Parameter bytes: the image's bytes (the first few hundred are usually enough; JPEG may
    ///   need more, up to its first SOF marker).
    /// - Returns: the format and size.
    /// - Throws: `ImageSniffError` (`.unrecognized`, `.truncated`, `.malformed`).
    public static func sniff(_ bytes: [UInt8]) throws(ImageSniffError) -> ImageInfo {
        var reader = Reader(bytes: bytes, format: nil)
        if reader.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { reader.format = .png; return try png(reader) }
        if reader.matches(Array("GIF87a".utf8)) || reader.matches(Array("GIF89a".utf8)) { reader.format = .gif; return try gif(reader) }
        if reader.matches([0xFF, 0xD8]) { reader.format = .jpeg; return try jpeg(reader) }
        if reader.matches(Array("II*\0".utf8)) || reader.matches(Array("MM\0*".utf8)) { reader.format = .tiff; return try tiff(reader) }
        if reader.matches(Array("RIFF".utf8)), bytes.count >= 12, Array(bytes[8..<12]) == Array("WEBP".utf8) { reader.format = .webp; return try webp(reader) }
        if reader.matches(Array("RIFF".utf8)), bytes.count < 12, Array("WEBP".utf8).starts(with: bytes.dropFirst(8)) {
            throw ImageSniffError(.truncated, format: .webp, offset: bytes.count)
        }
        if reader.matches(Array("BM".utf8)) { reader.format = .bmp; return try bmp(reader) }
        if reader.matches([0, 0, 1, 0]) { reader.format = .ico; return try ico(reader) }
        // Signatures cut short are truncated images, not unknown ones.
        let prefixes: [(ImageFormat, [UInt8])] = [
            (.png, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]), (.gif, Array("GIF87a".utf8)), (.gif, Array("GIF89a".utf8)),
            (.jpeg, [0xFF, 0xD8]), (.tiff, Array("II*\0".utf8)), (.tiff, Array("MM\0*".utf8)), (.webp, Array("RIFF".utf8)),
            (.bmp, Array("BM".utf8)), (.ico, [0, 0, 1, 0]),
        ]
        if !bytes.isEmpty {
            for (format, signature) in prefixes where bytes.count < signature.count && signature.starts(with: bytes) {
                throw ImageSniffError(.truncated, format: format, offset: bytes.count)
            }
        }
        if bytes.isEmpty { throw ImageSniffError(.truncated, format: nil, offset: 0) }
        throw ImageSniffError(.unrecognized, format: nil, offset: 0)
    }

    struct Reader {
        let bytes: [UInt8]
        var format: ImageFormat?
        var bigEndian = true

        func matches(_ signature: [UInt8]) -> Bool { bytes.count >= signature.count && Array(bytes[0..<signature.count]) == signature }

        func need(_ end: Int) throws(ImageSniffError) {
            guard end >= 0, end <= bytes.count else { throw ImageSniffError(.truncated, format: format, offset: bytes.count) }
        }
        func malformed(_ offset: Int) -> ImageSniffError { ImageSniffError(.malformed, format: format, offset: offset) }

        func u8(_ at: Int) throws(ImageSniffError) -> Int { try need(at + 1); return Int(bytes[at]) }
        func u16(_ at: Int) throws(ImageSniffError) -> Int {
            try need(at + 2)
            let a = Int(bytes[at]), b = Int(bytes[at + 1])
            return bigEndian ? a << 8 | b : b << 8 | a
        }
        func u24le(_ at: Int) throws(ImageSniffError) -> Int {
            try need(at + 3)
            return Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16
        }
        func u32(_ at: Int) throws(ImageSniffError) -> Int {
            try need(at + 4)
            let a = Int(bytes[at]), b = Int(bytes[at + 1]), c = Int(bytes[at + 2]), d = Int(bytes[at + 3])
            return bigEndian ? a << 24 | b << 16 | c << 8 | d : d << 24 | c << 16 | b << 8 | a
        }
    }

    private static func png(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        try reader.need(16)
        guard Array(reader.bytes[12..<16]) == Array("IHDR".utf8) else { throw reader.malformed(12) }
        let width = try reader.u32(16), height = try reader.u32(20)
        return ImageInfo(format: .png, width: width, height: height)
    }

    private static func gif(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        var r = reader
        r.bigEndian = false
        return ImageInfo(format: .gif, width: try r.u16(6), height: try r.u16(8))
    }

    private static func bmp(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        var r = reader
        r.bigEndian = false
        let headerSize = try r.u32(14)
        if headerSize == 12 { return ImageInfo(format: .bmp, width: try r.u16(18), height: try r.u16(20)) }
        guard headerSize >= 16 else { throw r.malformed(14) }
        let width = Int(Int32(truncatingIfNeeded: try r.u32(18)))
        let height = Int(Int32(truncatingIfNeeded: try r.u32(22)))
        guard width >= 0 else { throw r.malformed(18) }
        return ImageInfo(format: .bmp, width: width, height: abs(height))
    }

    private static func ico(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        var r = reader
        r.bigEndian = false
        let count = try r.u16(4)
        guard count >= 1 else { throw r.malformed(4) }
        var best = (width: 0, height: 0)
        for index in 0..<count {
            let entry = 6 + index * 16
            try r.need(entry + 16)
            let rawWidth = try r.u8(entry), rawHeight = try r.u8(entry + 1)
            let width = rawWidth == 0 ? 256 : rawWidth
            let height = rawHeight == 0 ? 256 : rawHeight
            if width * height > best.width * best.height { best = (width, height) }
        }
        return ImageInfo(format: .ico, width: best.width, height: best.height)
    }

    private static func tiff(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        var r = reader
        r.bigEndian = reader.bytes[0] == UInt8(ascii: "M")
        let ifd = try r.u32(4)
        guard ifd >= 8 else { throw r.malformed(4) }
        let entries = try r.u16(ifd)
        var width: Int?, height: Int?
        for index in 0..<entries {
            let entry = ifd + 2 + index * 12
            try r.need(entry + 12)   // an entry is read only when all 12 bytes are there
            let tag = try r.u16(entry)
            guard tag == 256 || tag == 257 else { continue }
            let type = try r.u16(entry + 2)
            let value: Int
            switch type {
            case 3: value = try r.u16(entry + 8)   // SHORT, left-justified in the value field
            case 4: value = try r.u32(entry + 8)   // LONG
            default: throw r.malformed(entry + 2)
            }
            if tag == 256 { width = value } else { height = value }
            if let width, let height { return ImageInfo(format: .tiff, width: width, height: height) }
        }
        throw r.malformed(ifd)
    }

    private static func jpeg(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        var offset = 2
        while true {
            guard try reader.u8(offset) == 0xFF else { throw reader.malformed(offset) }
            var marker = try reader.u8(offset + 1)
            offset += 1
            while marker == 0xFF { offset += 1; marker = try reader.u8(offset) }   // fill bytes
            offset += 1
            switch marker {
            case 0x01, 0xD0...0xD7: continue                                        // no length
            case 0xD8, 0xD9, 0xDA, 0x00: throw reader.malformed(offset - 1)         // SOI again, EOI, SOS, stuffed
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                let length = try reader.u16(offset)
                guard length >= 7 else { throw reader.malformed(offset) }
                let height = try reader.u16(offset + 3)
                let width = try reader.u16(offset + 5)
                return ImageInfo(format: .jpeg, width: width, height: height)
            default:
                let length = try reader.u16(offset)
                guard length >= 2 else { throw reader.malformed(offset) }
                offset += length
            }
        }
    }

    private static func webp(_ reader: Reader) throws(ImageSniffError) -> ImageInfo {
        try reader.need(16)
        let chunk = Array(reader.bytes[12..<16])
        var r = reader
        r.bigEndian = false
        if chunk == Array("VP8X".utf8) {
            return ImageInfo(format: .webp, width: try r.u24le(24) + 1, height: try r.u24le(27) + 1)
        }
        if chunk == Array("VP8L".utf8) {
            guard try r.u8(20) == 0x2F else { throw r.malformed(20) }
            let bits = try r.u32(21)
            return ImageInfo(format: .webp, width: (bits & 0x3FFF) + 1, height: (bits >> 14 & 0x3FFF) + 1)
        }
        if chunk == Array("VP8 ".utf8) {
            try r.need(26)
            guard Array(r.bytes[23..<26]) == [0x9D, 0x01, 0x2A] else { throw r.malformed(23) }
            return ImageInfo(format: .webp, width: try r.u16(26) & 0x3FFF, height: try r.u16(28) & 0x3FFF)
        }
        throw r.malformed(12)
    }
}

/// AFImageResponseSerializer without a decoder: the image's format and size, sniffed from the
/// bytes (AFNetworking's content types plus image/webp).
public struct ImageResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types: AFNetworking's image types and image/webp.
    public var acceptableContentTypes: Set<String>? = [
        "image/tiff", "image/jpeg", "image/gif", "image/png", "image/ico", "image/x-icon", "image/bmp",
        "image/x-bmp", "image/x-xbitmap", "image/x-win-bitmap", "image/webp",
    ]

    /// Creates a serializer.
    public init() {}

    /// Sniffs the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: format and size, or nil for an empty body.
    /// - Throws: `.invalidImage` with the `ImageSniffError` in `detail`.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> ImageInfo? {
        if body.isEmpty { return nil }
        do { return try ImageSniffer.sniff(body.readableBytesArray) } catch {
            throw ResponseSerializationError(.invalidImage, head: head, body: body, offset: error.offset, detail: error)
        }
    }
}
