// Bodies written by another implementation (Python's gzip and zlib modules, PythonFixtures.swift)
// decode to the same text at every cut.

import CourierBytes
import CourierCompression
import CourierTestSupport
import Testing

@Suite struct CrossCheck {
    static let text = Array(PythonFixtures.text.utf8)

    @Test(arguments: [
        ("gzip", PythonFixtures.gzip),
        ("deflate", PythonFixtures.zlib),
        ("deflate", PythonFixtures.rawDeflate),
        ("gzip", PythonFixtures.gzipAllHeaderFields),
    ])
    func pythonBodiesDecode(_ contentEncoding: String, _ body: [UInt8]) {
        let (outcome, mismatches) = SplitHarness.run(body) { decodeChunks($0, contentEncoding: contentEncoding) }
        #expect(outcome == .decoded(CrossCheck.text))
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))")
    }

    @Test func pythonConcatenatedMembers() {
        let (outcome, mismatches) = SplitHarness.run(PythonFixtures.twoMembers) { decodeChunks($0, contentEncoding: "gzip") }
        #expect(outcome == .decoded(Array(ascii: "first member\nsecond member\n")))
        #expect(mismatches.isEmpty)
    }

    @Test func ourGzipHeaderIsTheMinimalOne() {
        // RFC 1952 §2.3: ID1 ID2 CM=8, no flags, MTIME 0 (none), OS 3 (Unix) as zlib writes it.
        let body = encode(Array(ascii: "x"), .gzip)
        #expect(Array(body.prefix(4)) == [0x1F, 0x8B, 0x08, 0x00])
        #expect(Array(body[4..<8]) == [0, 0, 0, 0])
        #expect(body[9] == 3)
        // The trailer: CRC-32 of "x" (0x8CDC1683) and ISIZE 1, little-endian.
        #expect(Array(body.suffix(8)) == [0x83, 0x16, 0xDC, 0x8C, 0x01, 0x00, 0x00, 0x00])
    }
}
