// Percent-encoding with the standard sets, the 8-byte fast path at every alignment, strict
// decoding with offsets, and encode/decode round trips.

import CourierBytes
import CourierURL
import Testing

@Suite struct PercentEncodingTests {
    @Test func afnetworkingSetKeepsOnlyUnreservedSlashAndQuestion() {
        var kept: [UInt8] = []
        for byte in 0...255 as ClosedRange<UInt8> where PercentEncodingSet.afnetworkingQueryComponent.allows(byte) {
            kept.append(byte)
        }
        #expect(String(decoding: kept, as: UTF8.self) == "-./0123456789?ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz~")
    }

    @Test(arguments: [
        ("", ""),
        ("abcXYZ019-._~/?", "abcXYZ019-._~/?"),
        (" ", "%20"),
        ("a b+c", "a%20b%2Bc"),
        ("&=+#%[]@:!$'()*,;", "%26%3D%2B%23%25%5B%5D%40%3A%21%24%27%28%29%2A%2C%3B"),
        ("\"<>\\^`{|}", "%22%3C%3E%5C%5E%60%7B%7C%7D"),
        ("\0\t\r\n\u{7F}", "%00%09%0D%0A%7F"),
        ("é", "%C3%A9"),
        ("日本", "%E6%97%A5%E6%9C%AC"),
        ("😀", "%F0%9F%98%80"),
        ("👩‍👩‍👧", "%F0%9F%91%A9%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7"),
    ] as [(String, String)])
    func afnetworkingEscapes(_ input: String, _ expected: String) throws {
        let encoded = PercentEncoding.encode(input, allowing: .afnetworkingQueryComponent)
        #expect(encoded == expected)
        var buffer = ByteBuffer()
        PercentEncoding.encode(input, allowing: .afnetworkingQueryComponent, into: &buffer)
        #expect(buffer.readableString == expected)
        #expect(try PercentEncoding.decodeToString(encoded) == input)
        var copy = input
        copy.withUTF8 { bytes in
            #expect(PercentEncoding.encodedCount(of: UnsafeRawBufferPointer(bytes), allowing: .afnetworkingQueryComponent) == expected.utf8.count)
        }
    }

    @Test func otherStandardSets() {
        let text = "a/b?c#d[e]f@g:h&i=j+k;l,m!n$o'p(q)r*s t%u"
        #expect(PercentEncoding.encode(text, allowing: .unreserved)
                == "a%2Fb%3Fc%23d%5Be%5Df%40g%3Ah%26i%3Dj%2Bk%3Bl%2Cm%21n%24o%27p%28q%29r%2As%20t%25u")
        #expect(PercentEncoding.encode(text, allowing: .pathSegment)
                == "a%2Fb%3Fc%23d%5Be%5Df@g:h&i=j+k;l,m!n$o'p(q)r*s%20t%25u")
        #expect(PercentEncoding.encode(text, allowing: .path)
                == "a/b%3Fc%23d%5Be%5Df@g:h&i=j+k;l,m!n$o'p(q)r*s%20t%25u")
        #expect(PercentEncoding.encode(text, allowing: .query)
                == "a/b?c%23d%5Be%5Df@g:h&i=j+k;l,m!n$o'p(q)r*s%20t%25u")
        #expect(PercentEncoding.encode(text, allowing: .fragment) == PercentEncoding.encode(text, allowing: .query))
        #expect(PercentEncoding.encode(text, allowing: .userinfo)
                == "a%2Fb%3Fc%23d%5Be%5Df%40g:h&i=j+k;l,m!n$o'p(q)r*s%20t%25u")
        #expect(PercentEncoding.encode("user:pa@ss", allowing: .userinfoComponent) == "user%3Apa%40ss")
    }

    @Test func customSetsNeverKeepPercentOrNonASCII() {
        var everything = ByteSet()
        for byte in 0...255 as ClosedRange<UInt8> { everything.insert(byte) }
        let set = PercentEncodingSet(allowing: everything)
        #expect(!set.allows(UInt8(ascii: "%")))
        #expect(!set.allows(0x80))
        #expect(set.allows(UInt8(ascii: " ")))
        #expect(PercentEncoding.encode("a %é", allowing: set) == "a %25%C3%A9")
        #expect(set == PercentEncodingSet(allowing: everything))
        #expect(set != .unreserved)
    }

    /// The 8-byte fast path and the per-byte path must agree at every length and alignment,
    /// with escapes at every position.
    @Test func fastPathAtEveryAlignment() {
        for length in 0..<40 {
            for escapeAt in -1..<length {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                if escapeAt >= 0 { bytes[escapeAt] = UInt8(ascii: " ") }
                let encoded = bytes.withUnsafeBytes { PercentEncoding.encode($0, allowing: .afnetworkingQueryComponent) }
                var expected = ""
                for byte in bytes { expected += byte == UInt8(ascii: " ") ? "%20" : "a" }
                #expect(encoded == expected)
            }
        }
    }

    /// Every byte value at several offsets encodes to the reference (byte by byte) result and
    /// decodes back.
    @Test func everyByteRoundTrips() throws {
        for prefix in 0..<9 {
            var bytes = [UInt8](repeating: UInt8(ascii: "x"), count: prefix)
            bytes += (0...255).map { UInt8($0) }
            let encoded = bytes.withUnsafeBytes { PercentEncoding.encode($0, allowing: .unreserved) }
            var reference = ""
            let hex = Array("0123456789ABCDEF".utf8)
            for byte in bytes {
                if ByteClass.unreserved.contains(byte: byte) {
                    reference.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    reference += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
                }
            }
            #expect(encoded == reference)
            #expect(try PercentEncoding.decode(encoded) == bytes)
        }
    }

    @Test func encodingIntoAnExistingBufferAppends() {
        var buffer = ByteBuffer(string: "q=")
        PercentEncoding.encode("a b", allowing: .afnetworkingQueryComponent, into: &buffer)
        Array("é".utf8).withUnsafeBytes { PercentEncoding.encode($0, allowing: .afnetworkingQueryComponent, into: &buffer) }
        #expect(buffer.readableString == "q=a%20b%C3%A9")
    }

    @Test func largeMixedTextMatchesReference() throws {
        var text = ""
        let words = ["plain", "naïve café", "日本語", "emoji😀!", "a+b=c&d", "~safe-._/?"]
        for index in 0..<2000 { text += words[index % words.count] }
        let encoded = PercentEncoding.encode(text, allowing: .afnetworkingQueryComponent)
        var reference = ""
        for byte in text.utf8 {
            if PercentEncodingSet.afnetworkingQueryComponent.allows(byte) {
                reference.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".utf8)
                reference += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 15)]], as: UTF8.self)
            }
        }
        #expect(encoded == reference)
        #expect(try PercentEncoding.decodeToString(encoded) == text)
    }

    // MARK: Decoding

    @Test(arguments: [
        ("", ""),
        ("abc", "abc"),
        ("%41%42%43", "ABC"),
        ("%4a%4A", "JJ"),
        ("a+b", "a+b"),
        ("%2B", "+"),
        ("%C3%A9t%C3%A9", "été"),
        ("100%25", "100%"),
        ("%F0%9F%98%80 and more text past eight bytes %20", "😀 and more text past eight bytes  "),
    ] as [(String, String)])
    func decodes(_ input: String, _ expected: String) throws {
        #expect(try PercentEncoding.decodeToString(input) == expected)
        #expect(try PercentEncoding.decode(input) == Array(expected.utf8))
        var buffer = ByteBuffer()
        try Array(input.utf8).withUnsafeBytes { try PercentEncoding.decode($0, into: &buffer) }
        #expect(buffer.readableBytesArray == Array(expected.utf8))
    }

    @Test(arguments: [
        ("%", 0), ("%4", 0), ("%g1", 0), ("%1g", 0), ("abc%", 3), ("abc%2", 3), ("%%41", 0),
        ("%41%", 3), ("abcdefghijklmnop%zz", 16), ("%41%42%43%44%45%4", 15), ("% 20", 0), ("%+2", 0),
    ] as [(String, Int)])
    func rejectsMalformedEscapes(_ input: String, _ offset: Int) {
        #expect(throws: PercentDecodingError(.malformedPercentEncoding, offset: offset)) { try PercentEncoding.decode(input) }
        #expect(throws: PercentDecodingError(.malformedPercentEncoding, offset: offset)) { try PercentEncoding.decodeToString(input) }
        var buffer = ByteBuffer(string: "keep")
        #expect(throws: PercentDecodingError.self) {
            try Array(input.utf8).withUnsafeBytes { try PercentEncoding.decode($0, into: &buffer) }
        }
        #expect(buffer.readableString == "keep")
    }

    /// A failed decode into a buffer that has read bytes and must grow (so its readable bytes move
    /// to the front) leaves exactly the bytes it had: nothing half decoded, nothing uninitialised.
    @Test func failedDecodeIntoAGrowingBufferWithReadBytesAppendsNothing() {
        var buffer = ByteBuffer(capacity: 8)
        buffer.writeString("01234567")
        buffer.moveReaderIndex(forwardBy: 4)
        #expect(throws: PercentDecodingError(.malformedPercentEncoding, offset: 2)) {
            try Array("ab%zz".utf8).withUnsafeBytes { try PercentEncoding.decode($0, into: &buffer) }
        }
        #expect(buffer.readableString == "4567")
    }

    @Test(arguments: [
        ("%FF", 0), ("ab%C3", 2), ("ab%C3%28", 2), ("%ED%A0%80", 0), ("%C0%AF", 0), ("x%F4%90%80%80", 1),
        ("ok%E2%82", 2), ("%E2%82%AC%80", 9),
    ] as [(String, Int)])
    func rejectsInvalidUTF8WhenTextIsAskedFor(_ input: String, _ offset: Int) throws {
        #expect(throws: PercentDecodingError(.invalidUTF8, offset: offset)) { try PercentEncoding.decodeToString(input) }
        // As bytes the same input is fine.
        _ = try PercentEncoding.decode(input)
    }

    /// Truncating an encoded string anywhere gives either a clean decode or a malformed-escape
    /// error at the cut "%" — never a crash or a guess.
    @Test func everyTruncationOfEncodedText() throws {
        let encoded = PercentEncoding.encode("a é 😀/?&=+%", allowing: .afnetworkingQueryComponent)
        let bytes = Array(encoded.utf8)
        for end in 0...bytes.count {
            let prefix = Array(bytes[0..<end])
            do {
                let decoded = try prefix.withUnsafeBytes { try PercentEncoding.decode($0) }
                #expect(decoded.count <= end)
            } catch let error as PercentDecodingError {
                #expect(error.code == .malformedPercentEncoding)
                #expect(error.offset < end && prefix[error.offset] == UInt8(ascii: "%"))
            } catch {
                Issue.record("untyped error \(error)")
            }
        }
    }
}

@Test func vectorEncodingMatchesAByteByByteReference() {
    // Every standard set (and one of more than eight runs, which takes the 8-byte loop), on
    // inputs long enough for the 16-byte loop, with bytes to escape at every lane position.
    var state: UInt64 = 0x9E37_79B9
    func next(_ bound: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(bound))
    }
    var manyRuns = ByteSet()
    for byte in stride(from: 0x21, to: 0x7F, by: 2) { manyRuns.insert(UInt8(byte)) }
    let sets: [PercentEncodingSet] = [.afnetworkingQueryComponent, .unreserved, .pathSegment, .query, .userinfo,
                                      PercentEncodingSet(allowing: manyRuns)]
    let hex = Array("0123456789ABCDEF".utf8)
    for set in sets {
        for round in 0..<300 {
            let length = round < 100 ? round : next(400)
            let bytes = (0..<length).map { _ in next(4) == 0 ? UInt8(next(256)) : UInt8(ascii: "a") &+ UInt8(next(26)) }
            var reference: [UInt8] = []
            for byte in bytes {
                if set.allows(byte) { reference.append(byte) } else { reference += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]] }
            }
            let encoded = bytes.withUnsafeBytes { Array(PercentEncoding.encode($0, allowing: set).utf8) }
            #expect(encoded == reference, "\(bytes)")
        }
    }
}
