import CourierBytes
import CourierHTTP1
import Testing
@testable import Courier

private func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
private func le32(_ v: Int) -> [UInt8] { le16(v & 0xFFFF) + le16(v >> 16 & 0xFFFF) }
private func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
private func be32(_ v: Int) -> [UInt8] { be16(v >> 16 & 0xFFFF) + be16(v & 0xFFFF) }

/// Minimal headers, just long enough to carry the size.
enum ImageFixtures {
    /// Signature, IHDR length 13, "IHDR", width 640, height 480.
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(640) + be32(480)
    /// "GIF89a", width 300, height 200 (little-endian).
    static let gif: [UInt8] = Array("GIF89a".utf8) + le16(300) + le16(200)
    /// "BM", file size, reserved, pixel offset, BITMAPINFOHEADER (40) with width 123 and height -45 (top-down).
    static let bmp: [UInt8] = Array("BM".utf8) + le32(0) + le32(0) + le32(54) + le32(40) + le32(123) + le32(-45 & 0xFFFF_FFFF)
    /// "BM" with an OS/2 BITMAPCOREHEADER (12): u16 width 17, height 9.
    static let bmpCore: [UInt8] = Array("BM".utf8) + le32(0) + le32(0) + le32(26) + le32(12) + le16(17) + le16(9)
    /// ICO with two entries: 16×16 and 0×0 (= 256×256).
    static let ico: [UInt8] = [0, 0, 1, 0] + le16(2) + [16, 16] + Array(repeating: 0, count: 14) + [0, 0] + Array(repeating: 0, count: 14)
    /// Little-endian TIFF: IFD at 8 with 3 entries (a NewSubfileType, ImageWidth SHORT 800, ImageLength LONG 600).
    static let tiffLE: [UInt8] = Array("II*\0".utf8) + le32(8) + le16(3)
        + le16(254) + le16(4) + le32(1) + le32(0)
        + le16(256) + le16(3) + le32(1) + le16(800) + le16(0)
        + le16(257) + le16(4) + le32(1) + le32(600)
    /// Big-endian TIFF: IFD at 8 with ImageWidth LONG 70000, ImageLength SHORT 5.
    static let tiffBE: [UInt8] = Array("MM\0*".utf8) + be32(8) + be16(2)
        + be16(256) + be16(4) + be32(1) + be32(70000)
        + be16(257) + be16(3) + be32(1) + be16(5) + be16(0)
    /// SOI, APP0 (length 16, "JFIF"...), a fill byte, SOF2 (progressive): precision 8, height 1080, width 1920.
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + be16(16) + Array("JFIF\0".utf8) + Array(repeating: 0, count: 9)
        + [0xFF, 0xFF, 0xC2] + be16(17) + [8] + be16(1080) + be16(1920)
    /// RIFF/WEBP with a lossy "VP8 " chunk: frame tag, start code, width 400, height 300.
    static let webpLossy: [UInt8] = Array("RIFF".utf8) + le32(0) + Array("WEBPVP8 ".utf8) + le32(0) + [0, 0, 0, 0x9D, 0x01, 0x2A] + le16(400) + le16(300)
    /// A "VP8L" chunk: signature 0x2F, 14-bit width-1 (99), 14-bit height-1 (49).
    static let webpLossless: [UInt8] = Array("RIFF".utf8) + le32(0) + Array("WEBPVP8L".utf8) + le32(0) + [0x2F] + le32(99 | 49 << 14)
    /// A "VP8X" chunk: flags, reserved, 24-bit canvas width-1 (4999), height-1 (2).
    static let webpExtended: [UInt8] = Array("RIFF".utf8) + le32(0) + Array("WEBPVP8X".utf8) + le32(10) + [0, 0, 0, 0]
        + [UInt8(4999 & 0xFF), UInt8(4999 >> 8 & 0xFF), 0] + [2, 0, 0]

    static let all: [([UInt8], ImageInfo)] = [
        (png, ImageInfo(format: .png, width: 640, height: 480)),
        (gif, ImageInfo(format: .gif, width: 300, height: 200)),
        (bmp, ImageInfo(format: .bmp, width: 123, height: 45)),
        (bmpCore, ImageInfo(format: .bmp, width: 17, height: 9)),
        (ico, ImageInfo(format: .ico, width: 256, height: 256)),
        (tiffLE, ImageInfo(format: .tiff, width: 800, height: 600)),
        (tiffBE, ImageInfo(format: .tiff, width: 70000, height: 5)),
        (jpeg, ImageInfo(format: .jpeg, width: 1920, height: 1080)),
        (webpLossy, ImageInfo(format: .webp, width: 400, height: 300)),
        (webpLossless, ImageInfo(format: .webp, width: 100, height: 50)),
        (webpExtended, ImageInfo(format: .webp, width: 5000, height: 3)),
    ]
}

private func sniffError(_ bytes: [UInt8]) -> ImageSniffError? {
    do { _ = try ImageSniffer.sniff(bytes); return nil } catch { return error }
}

@Suite struct ImageSnifferTests {
    @Test func sizesFromMinimalHeaders() throws {
        for (bytes, expected) in ImageFixtures.all {
            #expect(try ImageSniffer.sniff(bytes) == expected)
            #expect(try ImageSniffer.sniff(bytes + [1, 2, 3]) == expected, "trailing bytes do not matter")
        }
    }

    @Test func everyTruncationIsATypedError() {
        for (bytes, expected) in ImageFixtures.all {
            for length in 0..<bytes.count {
                let error = sniffError(Array(bytes[0..<length]))
                #expect(error?.code == .truncated, "\(expected.format) cut at \(length): \(String(describing: error))")
                if length > 0 { #expect(error?.format == expected.format, "\(expected.format) cut at \(length)") }
            }
        }
    }

    @Test func unknownAndMalformed() {
        #expect(sniffError(Array("hello world".utf8))?.code == .unrecognized)
        #expect(sniffError([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IDAT".utf8) + be32(1) + be32(1))?.code == .malformed)
        #expect(sniffError([0xFF, 0xD8, 0xFF, 0xDA] + be16(2))?.code == .malformed, "SOS before SOF")
        #expect(sniffError([0xFF, 0xD8, 0xFF, 0xD9])?.code == .malformed, "EOI before SOF")
        #expect(sniffError([0xFF, 0xD8, 0x00])?.code == .malformed, "not a marker")
        #expect(sniffError([0xFF, 0xD8, 0xFF, 0xE1, 0x00, 0x01])?.code == .malformed, "segment length below 2")
        #expect(sniffError(Array("II*\0".utf8) + le32(8) + le16(0))?.code == .malformed, "IFD without the size tags")
        #expect(sniffError(Array("II*\0".utf8) + le32(4))?.code == .malformed, "IFD inside the header")
        #expect(sniffError(Array("RIFF".utf8) + le32(0) + Array("WEBPABCD".utf8))?.code == .malformed)
        #expect(sniffError([0, 0, 1, 0, 0, 0])?.code == .malformed, "icon without entries")
        #expect(sniffError(Array("II*\0".utf8) + le32(0x7FFF_FFFF))?.code == .truncated, "IFD offset past the end")
    }

    @Test func corruptionsNeverTrap() {
        for (bytes, _) in ImageFixtures.all {
            for index in 0..<bytes.count {
                for value: UInt8 in [0x00, 0x01, 0x7F, 0xFF] {
                    var corrupt = bytes
                    corrupt[index] = value
                    _ = try? ImageSniffer.sniff(corrupt)
                }
            }
        }
    }

    @Test func responseSerializer() throws {
        let serializer = ImageResponseSerializer()
        for type in ["image/png", "image/x-icon", "image/webp", "image/x-win-bitmap"] {
            let head = HTTPResponseHead(status: 200, headers: ["Content-Type": type])
            #expect(try serializer.serialize(head: head, body: ByteBuffer(bytes: ImageFixtures.png)) == ImageInfo(format: .png, width: 640, height: 480))
        }
        let head = HTTPResponseHead(status: 200, headers: ["Content-Type": "image/png"])
        #expect { try serializer.serialize(head: head, body: ByteBuffer(bytes: ImageFixtures.png.prefix(10))) } throws: {
            let error = $0 as? ResponseSerializationError
            return error?.code == .invalidImage && (error?.detail as? ImageSniffError)?.code == .truncated
        }
        #expect { try serializer.serialize(head: HTTPResponseHead(status: 200, headers: ["Content-Type": "image/svg+xml"]), body: ByteBuffer(bytes: ImageFixtures.png)) } throws: {
            ($0 as? ResponseSerializationError)?.code == .unacceptableContentType
        }
    }
}
