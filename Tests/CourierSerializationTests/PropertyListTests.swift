import CourierBytes
import CourierHTTP1
import CourierJSON
import Testing
@testable import Courier

/// Assembles a `bplist00` file from already-encoded objects (each starting with its marker byte):
/// header, the objects in order, an offset table of `offsetIntSize`-byte big-endian offsets, and
/// the 32-byte trailer (6 zero bytes, offsetIntSize, refSize, object count, top object, offset
/// table offset — the last three as 8-byte big-endian integers).
func bplist(_ objects: [[UInt8]], top: UInt64 = 0, refSize: UInt8 = 1, offsetIntSize: Int = 2) -> [UInt8] {
    var out = Array("bplist00".utf8)
    var offsets: [Int] = []
    for object in objects { offsets.append(out.count); out += object }
    let tableOffset = out.count
    for offset in offsets { out += bigEndian(UInt64(offset), size: offsetIntSize) }
    out += [0, 0, 0, 0, 0, 0, UInt8(offsetIntSize), refSize]
    out += bigEndian(UInt64(objects.count), size: 8) + bigEndian(top, size: 8) + bigEndian(UInt64(tableOffset), size: 8)
    return out
}

func bigEndian(_ value: UInt64, size: Int) -> [UInt8] { (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) } }

private func parseFailure(_ bytes: [UInt8], limits: PropertyListParser.Limits = PropertyListParser.Limits()) -> PropertyListError? {
    do { _ = try PropertyListParser(limits: limits).parse(bytes); return nil } catch { return error }
}

@Suite struct PropertyListXMLTests {
    let sample: PropertyListValue = .dictionary([
        ("string", .string("a <b> & \"c\" é 😀\n\tx")),
        ("int", .integer(Int64.min)), ("max", .integer(Int64.max)),
        ("real", .real(-1.25e-7)), ("whole", .real(3)), ("negzero", .real(-0.0)), ("inf", .real(.infinity)), ("nan", .real(.nan)),
        ("yes", .bool(true)), ("no", .bool(false)),
        ("date", .date(Timestamp(seconds: 1_700_000_000, nanoseconds: 500_000_000))),
        ("data", .data(Array(0...255))), ("empty", .data([])),
        ("array", .array([.array([]), .dictionary([]), .string("")])),
        ("dup", .integer(1)), ("dup", .integer(2)),
    ])

    @Test func roundTripThroughTheWriter() throws {
        let document = try PropertyListXMLWriter.write(sample)
        let parsed = try PropertyListParser().parse(document)
        #expect(parsed == sample)
        #expect(parsed["dup"] == .integer(2))
        #expect(parsed["date"] == .date(Timestamp(seconds: 1_700_000_000, nanoseconds: 500_000_000)))
    }

    @Test func appleStyleDocument() throws {
        let text = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleName</key>
        \t<string>Courier</string>
        \t<key>n</key>
        \t<integer> 0x1F </integer>
        \t<key>d</key>
        \t<date>2001-01-01T00:00:00Z</date>
        \t<key>blob</key>
        \t<data>
        \tAAEC
        \tAw==
        \t</data>
        </dict>
        </plist>
        """
        let value = try PropertyListParser().parse(Array(text.utf8))
        #expect(value["CFBundleName"] == .string("Courier"))
        #expect(value["n"] == .integer(31))
        #expect(value["d"] == .date(Timestamp(seconds: 978_307_200)))
        #expect(value["blob"] == .data([0, 1, 2, 3]))
    }

    @Test func structuralErrors() {
        let cases: [(String, PropertyListError.Code)] = [
            ("<dict/>", .invalidStructure),
            ("<plist></plist>", .invalidStructure),
            ("<plist><true/><true/></plist>", .invalidStructure),
            ("<plist><dict><string>a</string><true/></dict></plist>", .invalidStructure),
            ("<plist><dict><key>a</key></dict></plist>", .invalidStructure),
            ("<plist><foo/></plist>", .invalidStructure),
            ("<plist>x<true/></plist>", .invalidStructure),
            ("<plist><string><b/></string></plist>", .invalidStructure),
            ("<plist><integer>9223372036854775808</integer></plist>", .invalidScalar),
            ("<plist><integer>1.5</integer></plist>", .invalidScalar),
            ("<plist><real>0x1p3</real></plist>", .invalidScalar),
            ("<plist><real>1e400</real></plist>", .invalidScalar),
            ("<plist><date>yesterday</date></plist>", .invalidScalar),
            ("<plist><data>A===</data></plist>", .invalidScalar),
            ("<plist><true/>", .invalidXML),
        ]
        for (text, code) in cases { #expect(parseFailure(Array(text.utf8))?.code == code, "\(text)") }
        #expect(parseFailure(Array("<plist><integer>-9223372036854775808</integer></plist>".utf8)) == nil)
        let deep = "<plist>" + String(repeating: "<array>", count: 20) + String(repeating: "</array>", count: 20) + "</plist>"
        #expect(parseFailure(Array(deep.utf8), limits: PropertyListParser.Limits(maxDepth: 10))?.code == .limitExceeded)
        #expect(parseFailure(Array(deep.utf8), limits: PropertyListParser.Limits(maxDepth: 20)) == nil)
    }
}

@Suite struct PropertyListBinaryTests {
    /// `{"a": 1}` written out byte by byte:
    ///   0  62 70 6C 69 73 74 30 30    "bplist00"
    ///   8  D1 01 02                   dict, 1 entry: key = object 1, value = object 2
    ///  11  51 61                      ASCII string, length 1: "a"
    ///  13  10 01                      int, 1 byte: 1
    ///  15  08 0B 0D                   offset table (1-byte offsets of objects 0, 1, 2)
    ///  18  00×6 01 01                 trailer: offsetIntSize 1, objectRefSize 1
    ///      00×7 03                    3 objects
    ///      00×8                       top object 0
    ///      00×7 0F                    offset table at 15
    let handWritten: [UInt8] = [
        0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,
        0xD1, 0x01, 0x02, 0x51, 0x61, 0x10, 0x01,
        0x08, 0x0B, 0x0D,
        0, 0, 0, 0, 0, 0, 1, 1,
        0, 0, 0, 0, 0, 0, 0, 3,
        0, 0, 0, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0x0F,
    ]

    @Test func handWrittenFixture() throws {
        #expect(try PropertyListParser().parse(handWritten) == .dictionary([("a", .integer(1))]))
        #expect(bplist([[0xD1, 0x01, 0x02], [0x51, 0x61], [0x10, 0x01]], offsetIntSize: 1) == handWritten)
    }

    @Test func everyObjectKind() throws {
        let date = bigEndian((1.5 as Double).bitPattern, size: 8)               // 2001-01-01T00:00:01.5Z
        let objects: [[UInt8]] = [
            [0xAF, 0x10, 17] + (1...17).map { UInt8($0) },                       // 0: array of 17 (count as a following int)
            [0x00],                                                              // 1: null
            [0x08], [0x09],                                                      // 2, 3: false, true
            [0x10, 0xFF], [0x11, 0x01, 0x00], [0x12, 0x00, 0x01, 0x00, 0x00],    // 4-6: 255, 256, 65536
            [0x13] + bigEndian(UInt64(bitPattern: -2), size: 8),                 // 7: -2
            [0x14] + bigEndian(0, size: 8) + bigEndian(7, size: 8),              // 8: 16-byte 7
            [0x22] + bigEndian(UInt64((0.5 as Float).bitPattern), size: 4),      // 9: float 0.5
            [0x23] + bigEndian((-2.25 as Double).bitPattern, size: 8),           // 10: double -2.25
            [0x33] + date,                                                       // 11: date
            [0x43, 1, 2, 3],                                                     // 12: data
            [0x5F, 0x10, 20] + Array("abcdefghijklmnopqrst".utf8),               // 13: 20-char ASCII
            [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00],                          // 14: UTF-16 "é😀"
            [0x81, 0x01, 0x02],                                                  // 15: UID 258
            [0xC2, 4, 4],                                                        // 16: set {255, 255}
            [0xD1, 18, 4],                                                       // 17: dict {"k": 255}
            [0x51, 0x6B],                                                        // 18: "k"
        ]
        let value = try PropertyListParser().parse(bplist(objects))
        let expected: PropertyListValue = .array([
            .null, .bool(false), .bool(true), .integer(255), .integer(256), .integer(65536), .integer(-2), .integer(7),
            .real(0.5), .real(-2.25), .date(Timestamp(seconds: 978_307_201, nanoseconds: 500_000_000)), .data([1, 2, 3]),
            .string("abcdefghijklmnopqrst"), .string("é😀"), .uid(258), .array([.integer(255), .integer(255)]),
            .dictionary([("k", .integer(255))]),
        ])
        #expect(value == expected)
    }

    @Test func hostileFiles() {
        // An array that contains itself.
        #expect(parseFailure(bplist([[0xA1, 0x00]]))?.code == .cycle)
        // A two-step cycle through a dictionary value.
        #expect(parseFailure(bplist([[0xA1, 0x01], [0xD1, 0x02, 0x00], [0x51, 0x6B]]))?.code == .cycle)
        // A chain of 600 nested arrays (2-byte refs) exceeds the depth limit of 512.
        var chain: [[UInt8]] = []
        for index in 0..<599 {
            let next = index + 1
            chain.append([0xA1, UInt8(next >> 8), UInt8(next & 0xFF)])
        }
        chain.append([0xA0])
        #expect(parseFailure(bplist(chain, refSize: 2))?.code == .limitExceeded)
        // 40 levels of arrays holding the next level twice: 2^40 values from 41 objects.
        var doubling: [[UInt8]] = []
        for index in 0..<40 {
            let next = UInt8(index + 1)
            doubling.append([0xA2, next, next])
        }
        doubling.append([0x09])
        #expect(parseFailure(bplist(doubling))?.code == .limitExceeded)
        // A reference past the last object, a dictionary key that is not a string, a fill byte.
        #expect(parseFailure(bplist([[0xA1, 0x05]]))?.code == .invalidBinary)
        #expect(parseFailure(bplist([[0xD1, 0x01, 0x01], [0x10, 0x01]]))?.code == .invalidBinary)
        #expect(parseFailure(bplist([[0x0F]]))?.code == .invalidBinary)
        // Lengths that run past the objects, a lone surrogate, non-ASCII in an ASCII string.
        #expect(parseFailure(bplist([[0x4F, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]]))?.code == .invalidBinary)
        #expect(parseFailure(bplist([[0x61, 0xD8, 0x00]]))?.code == .invalidBinary)
        #expect(parseFailure(bplist([[0x51, 0x80]]))?.code == .invalidBinary)
        // Bad trailers: sizes of 0 and 9, top object out of range, table offset inside the header.
        var bad = handWritten; bad[bad.count - 26] = 0
        #expect(parseFailure(bad)?.code == .invalidBinary)
        bad = handWritten; bad[bad.count - 25] = 9
        #expect(parseFailure(bad)?.code == .invalidBinary)
        bad = handWritten; bad[bad.count - 9] = 3
        #expect(parseFailure(bad)?.code == .invalidBinary)
        bad = handWritten; bad[bad.count - 1] = 2
        #expect(parseFailure(bad)?.code == .invalidBinary)
        bad = handWritten; bad[bad.count - 17] = 0xFF
        #expect(parseFailure(bad)?.code == .invalidBinary)
        #expect(parseFailure(Array("bplist15".utf8) + handWritten.dropFirst(8))?.code == .unknownFormat)
    }

    @Test func everyTruncationFailsWithoutTrapping() {
        let files = [handWritten, bplist([[0xA2, 1, 2], [0x5F, 0x10, 3, 0x61, 0x62, 0x63], [0x23, 0, 0, 0, 0, 0, 0, 0, 0]])]
        for file in files {
            for length in 0..<file.count {
                #expect(parseFailure(Array(file[0..<length])) != nil, "length \(length)")
            }
            // Every single-byte corruption either parses or fails with a typed error.
            for index in 0..<file.count {
                for value: UInt8 in [0x00, 0x0F, 0x7F, 0xFF] {
                    var corrupt = file
                    corrupt[index] = value
                    _ = parseFailure(corrupt)
                }
            }
        }
    }

    @Test func responseSerializer() throws {
        let head = HTTPResponseHead(status: 200, headers: ["Content-Type": "application/x-plist"])
        #expect(try PropertyListResponseSerializer().serialize(head: head, body: ByteBuffer(bytes: handWritten))?["a"] == .integer(1))
        #expect(try PropertyListResponseSerializer().serialize(head: head, body: ByteBuffer()) == nil)
        #expect { try PropertyListResponseSerializer().serialize(head: head, body: ByteBuffer(string: "nope")) } throws: {
            let error = $0 as? ResponseSerializationError
            return error?.code == .invalidPropertyList && error?.code.afNetworkingCode == 3840 && (error?.detail as? PropertyListError)?.code == .invalidXML
        }
    }
}
