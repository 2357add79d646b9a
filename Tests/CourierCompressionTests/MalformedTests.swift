// Bodies that are not what their Content-Encoding says: corrupt headers and checksums, streams
// cut short, bytes after the end, unknown codings. Each fails with its code at every cut.

import CourierBytes
import CourierCompression
import CourierTestSupport
import Testing

@Suite struct Malformed {
    static let payload = sampleText(400)

    /// Asserts `body` fails with `code` whole, byte by byte and at every split.
    func expectFailure(_ body: [UInt8], _ contentEncoding: String, _ code: ContentDecodingError.Code,
                       sourceLocation: SourceLocation = #_sourceLocation) {
        let (outcome, mismatches) = SplitHarness.run(body) { decodeChunks($0, contentEncoding: contentEncoding) }
        #expect(outcome == .failed(code), sourceLocation: sourceLocation)
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
    }

    @Test func corruptGzipHeader() {
        var body = encode(Malformed.payload, .gzip)
        body[2] = 7  // CM must be 8 (deflate), RFC 1952 §2.3.1
        expectFailure(body, "gzip", .invalidData)
        var notGzip = encode(Malformed.payload, .gzip)
        notGzip[0] = 0x1E
        expectFailure(notGzip, "gzip", .invalidData)
        notGzip = encode(Malformed.payload, .gzip)
        notGzip[1] = 0x8C
        expectFailure(notGzip, "gzip", .invalidData)
        // A zlib stream is not gzip (zlib's auto-detection is not used: the header says gzip).
        expectFailure(encode(Malformed.payload, .zlib), "gzip", .invalidData)
    }

    @Test func headerCRCIsChecked() {
        var body = PythonFixtures.gzipAllHeaderFields
        let crcOffset = 10 + 2 + 8 + 9 + 10  // fixed header, XLEN, extra, name, comment
        body[crcOffset] ^= 0x01
        expectFailure(body, "gzip", .invalidData)
    }

    @Test func badCRCAndLengthInTheTrailer() {
        let good = encode(Malformed.payload, .gzip)
        var badCRC = good
        badCRC[good.count - 8] ^= 0x40
        expectFailure(badCRC, "gzip", .invalidData)
        var badLength = good
        badLength[good.count - 4] ^= 0x01
        expectFailure(badLength, "gzip", .invalidData)
        var badAdler = encode(Malformed.payload, .zlib)
        badAdler[badAdler.count - 1] ^= 0x01
        expectFailure(badAdler, "deflate", .invalidData)
    }

    @Test func corruptDeflateData() {
        // A stored block (level 0) whose NLEN is not the complement of LEN (RFC 1951 §3.2.4).
        var stored = encode(Malformed.payload, .rawDeflate, level: 0)
        stored[3] ^= 0xFF
        expectFailure(stored, "deflate", .invalidData)
        // Block type 3 is reserved (RFC 1951 §3.2.3).
        expectFailure([0x07, 0x00], "deflate", .invalidData)
    }

    @Test func everyTruncationIsTruncated() {
        for format in ContentEncoder.Format.allCases {
            let body = encode(Malformed.payload, format)
            let name = format == .gzip ? "gzip" : "deflate"
            for length in 1..<body.count {
                let prefix = Array(body.prefix(length))
                #expect(decodeChunks([prefix], contentEncoding: name) == .failed(.truncated), "\(format) cut to \(length)")
                #expect(decodeChunks(prefix.map { [$0] }, contentEncoding: name) == .failed(.truncated), "\(format) cut to \(length)")
            }
        }
    }

    @Test func concatenatedGzipMembersAreOneBody() {
        // RFC 1952 §2.2: a gzip file is a series of members (Go, Python and Firefox decode them
        // all; curl stops with an error after the first).
        let body = encode(Array(ascii: "first "), .gzip) + encode([], .gzip) + encode(Array(ascii: "second"), .gzip)
        let (outcome, mismatches) = SplitHarness.run(body) { decodeChunks($0, contentEncoding: "gzip") }
        #expect(outcome == .decoded(Array(ascii: "first second")))
        #expect(mismatches.isEmpty)
    }

    @Test func bytesAfterTheGzipStream() {
        let body = encode(Malformed.payload, .gzip)
        // Garbage (even zero padding) is an error, as in Go; the start of another member that
        // never completes is a truncation.
        for (trailing, code) in [(Array(ascii: "garbage"), ContentDecodingError.Code.invalidData), ([0x00], .invalidData),
                                 ([0x1F], .truncated), ([0x1F, 0x8B, 0x08], .truncated), ([0x1F, 0x8C], .invalidData)] {
            let (outcome, mismatches) = SplitHarness.run(body, trailing: trailing, expectedWithTrailing: .failed(code)) {
                decodeChunks($0, contentEncoding: "gzip")
            }
            #expect(outcome == .decoded(Malformed.payload))
            #expect(mismatches.isEmpty, "\(trailing): \(mismatches.prefix(3))")
        }
    }

    @Test func bytesAfterTheDeflateStream() {
        // After a zlib stream nothing may follow.
        let (outcome, mismatches) = SplitHarness.run(encode(Malformed.payload, .zlib), trailing: [0x00],
                                                     expectedWithTrailing: .failed(.invalidData)) {
            decodeChunks($0, contentEncoding: "deflate")
        }
        #expect(outcome == .decoded(Malformed.payload))
        #expect(mismatches.isEmpty)
        // After a raw stream up to four bytes are tolerated (curl: servers that drop the zlib
        // header keep the Adler-32); a fifth is an error.
        let raw = encode(Malformed.payload, .rawDeflate)
        let (ok, okMismatches) = SplitHarness.run(raw, trailing: [1, 2, 3, 4], expectedWithTrailing: .decoded(Malformed.payload)) {
            decodeChunks($0, contentEncoding: "deflate")
        }
        #expect(ok == .decoded(Malformed.payload))
        #expect(okMismatches.isEmpty)
        let (_, badMismatches) = SplitHarness.run(raw, trailing: [1, 2, 3, 4, 5], expectedWithTrailing: .failed(.invalidData)) {
            decodeChunks($0, contentEncoding: "deflate")
        }
        #expect(badMismatches.isEmpty)
    }

    @Test func rawDeflateFallback() {
        // A deflate body whose first two bytes are not a zlib header is read as raw deflate
        // (curl retries raw after a data error; Chromium sniffs the header as done here).
        for payload in [Malformed.payload, Array(ascii: "x"), []] {
            let raw = encode(payload, .rawDeflate)
            let (outcome, mismatches) = SplitHarness.run(raw) { decodeChunks($0, contentEncoding: "deflate") }
            #expect(outcome == .decoded(payload))
            #expect(mismatches.isEmpty)
        }
        #expect(decodeChunks([[0x78]], contentEncoding: "deflate") == .failed(.truncated))
    }

    @Test func presetDictionaryIsRefused() {
        // CMF 0x78, FLG 0x3F: FDICT set, FCHECK valid; then a DICTID (RFC 1950 §2.2).
        expectFailure([0x78, 0x3F, 0x00, 0x00, 0x00, 0x01, 0x03, 0x00], "deflate", .invalidData)
    }

    @Test func unknownAndMalformedCodings() {
        for value in ["br", "compress", "zstd", "gzip, br", "gzip;q=1", "gz ip", "\"gzip\""] {
            #expect(throws: ContentDecodingError.self, "\(value)") { try ContentDecoder(contentEncoding: value) }
            #expect(decodeChunks([], contentEncoding: value) == .failed(.unsupportedCoding), "\(value)")
        }
        #expect(decodeChunks([], contentEncoding: "gzip, gzip, gzip, gzip, gzip") == .decoded([]))
        #expect(decodeChunks([], contentEncoding: "gzip, gzip, gzip, gzip, gzip, gzip") == .failed(.tooManyCodings))
        #expect(decodeChunks([], contentEncoding: "identity, identity, identity, identity, identity, identity") == .failed(.tooManyCodings))
    }

    @Test func errorsAreStickyAndCarryOffsets() throws {
        var body = encode(Malformed.payload, .gzip)
        body[body.count - 8] ^= 0x40  // CRC
        var decoder = try ContentDecoder(contentEncoding: "gzip")
        var first: ContentDecodingError?
        do {
            _ = try decoder.decode(ByteBuffer(bytes: body))
        } catch {
            first = error
        }
        let error = try #require(first)
        #expect(error.code == .invalidData)
        #expect(error.inputOffset == UInt64(body.count - 4))  // zlib read the CRC, then failed
        #expect(error.decodedOffset == 0)  // the piece in which the error was found is not handed out
        #expect(throws: error) { _ = try decoder.decode(ByteBuffer()) }
        #expect(throws: error) { try decoder.finish() }
    }

    @Test func invalidDataOffsetsDoNotDependOnTheCut() {
        var body = encode(Malformed.payload, .gzip)
        body[body.count - 8] ^= 0x40
        let (offset, mismatches) = SplitHarness.run(body) { chunks -> UInt64? in
            guard var decoder = try? ContentDecoder(contentEncoding: "gzip") else { return nil }
            do {
                for chunk in chunks {
                    _ = try decoder.decode(ByteBuffer(bytes: chunk))
                    while !decoder.isAwaitingInput { _ = try decoder.decode(ByteBuffer()) }
                }
                try decoder.finish()
                return nil
            } catch {
                return (error as? ContentDecodingError)?.inputOffset
            }
        }
        #expect(offset == UInt64(body.count - 4))
        #expect(mismatches.isEmpty)
    }
}
