// JSONDocument: the tape, its views, reuse, and stage 1 (the vector token scanner) checked
// against a byte-by-byte model of the same rules on generated and random inputs.

import CourierBytes
import Testing
@testable @_spi(Fuzzing) import CourierJSON

@Test func viewsReadTheTape() throws {
    let text = #"{"id":7,"big":12345678901,"neg":-3,"f":1.5e2,"s":"a\"b","raw":"plain","t":true,"n":null,"e":[],"o":{},"list":[1,[2],{"x":3}],"k\u00e9y":"é"}"#
    let document = try JSONDocument(parsing: text)
    let root = document.root
    #expect(root.kind == .object)
    #expect(root.count == 12)
    #expect(root["id"]?.int == 7)
    #expect(root["id"]?.number?.text == "7")
    #expect(root["big"]?.number?.text == "12345678901")
    #expect(root["big"]?.int == 12_345_678_901)
    #expect(root["neg"]?.int == -3)
    #expect(root["f"]?.double == 150)
    #expect(root["f"]?.number?.text == "1.5e2")
    #expect(root["s"]?.string == "a\"b")
    #expect(root["raw"]?.string == "plain")
    #expect(root["t"]?.bool == true)
    #expect(root["n"]?.isNull == true)
    #expect(root["n"]?.kind == .null)
    #expect(root["e"]?.count == 0)
    #expect(root["o"]?.kind == .object)
    #expect(root["missing"] == nil)
    #expect(root["kéy"]?.string == "é")
    let list = try #require(root["list"])
    #expect(list.elements.map(\.kind) == [.number, .array, .object])
    #expect(list[2]?["x"]?.int == 3)
    #expect(list[1]?[0]?.int == 2)
    #expect(list[3] == nil && list[-1] == nil)
    #expect(root.members.map(\.key) == ["id", "big", "neg", "f", "s", "raw", "t", "n", "e", "o", "list", "kéy"])
    #expect(JSONValue(root) == (try JSONReferenceParser().parse(Array(text.utf8))))
    #expect(JSONWriter.string(root) == JSONWriter.string(JSONValue(root)))
    #expect(document.description == JSONWriter.string(JSONValue(root)))
}

@Test func removedMembersAreInvisible() throws {
    let document = try JSONDocument(parsing: #"{"a":1,"b":{"c":[1,2]},"a":{"d":2},"b":null}"#)
    #expect(document.root.count == 2)
    #expect(document.root.members.map(\.key) == ["a", "b"])
    #expect(document.root["a"]?["d"]?.int == 2)
    #expect(document.root["b"]?.isNull == true)
    let sanitized = try JSONDocument(parsing: #"{"a":1,"b":{"c":[1,2]},"a":{"d":2},"b":null}"#, options: .init(removesNullValues: true))
    #expect(JSONWriter.string(sanitized.root) == #"{"a":{"d":2}}"#)
}

@Test func scalarsAtTheTopLevel() throws {
    for (text, kind) in [("null", JSONDocument.Kind.null), ("true", .bool), (" 12 ", .number), ("\"x\"", .string), ("[]", .array)] {
        let document = try JSONDocument(parsing: text)
        #expect(document.root.kind == kind)
    }
    #expect(try JSONDocument(parsing: "null", options: .init(removesNullValues: true)).root.isNull)
}

@Test func aSpareDocumentsBuffersAreReused() throws {
    var spare: JSONDocument? = nil
    var generator = Generator(state: 99)
    for _ in 0..<200 {
        let text = generator.value(depth: 0)
        let document = try JSONDocument(parsing: Array(text.utf8), reusing: spare)
        #expect(JSONValue(document.root) == (try JSONReferenceParser().parse(Array(text.utf8))), "\(text)")
        spare = document
    }
    // A document still held elsewhere is not overwritten.
    let kept = try JSONDocument(parsing: "[1,2,3]")
    let other = try JSONDocument(parsing: "{\"x\":\"y\"}", reusing: kept)
    #expect(JSONWriter.string(kept.root) == "[1,2,3]")
    #expect(JSONWriter.string(other.root) == #"{"x":"y"}"#)
}

@Test func writerFromTheTapeMatchesTheTreeWriter() throws {
    var generator = Generator(state: 7)
    for _ in 0..<500 {
        let text = generator.value(depth: 0)
        let document = try JSONDocument(parsing: text)
        let tree = JSONValue(document.root)
        for options in [JSONWriter.Options(), .prettyPrinted, .sortedKeys, [.prettyPrinted, .sortedKeys]] {
            #expect(JSONWriter.write(document.root, options: options) == JSONWriter.write(tree, options: options), "\(text)")
        }
        var chunks: [UInt8] = []
        JSONWriter.write(document.root, chunkSize: 16) { chunks.append(contentsOf: $0) }
        #expect(chunks == JSONWriter.write(tree))
    }
}

@Test func tapeBoundAndMemory() throws {
    // One word per value or name: at most 2× the input, allocated once at its final size.
    let array = "[" + (0..<10_000).map { String($0 % 10) }.joined(separator: ",") + "]"
    let document = try JSONDocument(parsing: array)
    #expect(document.storageByteCount <= 2 * array.utf8.count + 64)
    #expect(document.root.count == 10_000)
}

// MARK: Stage 1 against a byte-by-byte model

/// Token starts by the rules of JSONStructuralScanner, computed byte by byte. As in stage 1, a
/// backslash escapes the next byte inside and outside strings (outside, the backslash is itself
/// part of a token that stage 2 rejects, so that choice never changes what is accepted). The
/// classes are stage 1's, which are wider than the grammar's where that changes nothing that is
/// accepted: every byte up to SP is whitespace (control bytes other than HT, LF, CR make stage 1
/// fail), and `Y _ y` DEL count as operators with `{ } [ ] , :` (they cannot stand outside a
/// string in a JSON text).
private func modelTokenStarts(_ bytes: [UInt8], start: Int) -> [Int] {
    var starts: [Int] = []
    var inString = false
    var escapeNext = false
    var previousIsScalar = false  // the previous byte is a non-quote scalar byte outside strings
    for i in start..<bytes.count {
        let byte = bytes[i]
        let isEscaped = escapeNext
        escapeNext = byte == 0x5C && !isEscaped
        let isQuote = byte == 0x22 && !isEscaped
        if inString {
            if isQuote { inString = false }
            previousIsScalar = false
            continue
        }
        let isOperator = byte | 0x26 == 0x7F || byte == 0x2C || byte == 0x3A
        let isWhitespace = byte <= 0x20
        if isOperator {
            starts.append(i)
            previousIsScalar = false
        } else if isWhitespace {
            previousIsScalar = false
        } else if isQuote {
            if !previousIsScalar { starts.append(i) }
            inString = true
            previousIsScalar = false
        } else {
            if !previousIsScalar { starts.append(i) }
            previousIsScalar = true
        }
    }
    return starts
}

private func vectorTokenStarts(_ bytes: [UInt8]) -> ([Int], failed: Bool) {
    bytes.withUnsafeBufferPointer { raw in
        let base = raw.baseAddress ?? JSONInput.empty
        var scanner = JSONStructuralScanner(base: base, count: raw.count, start: JSONByteOrderMark.length(base, raw.count))
        var starts: [Int] = []
        while true {
            let p = scanner.next()
            if p == raw.count { break }
            starts.append(p)
        }
        return (starts, scanner.failed)
    }
}

@Test func stage1MatchesTheModelOnGeneratedDocuments() {
    var generator = Generator(state: 0x51DE)
    for _ in 0..<2_000 {
        // Long enough to cross blocks: several values, with whitespace.
        let text = (0..<4).map { _ in generator.value(depth: 0) }.joined(separator: " \n ")
        let bytes = Array(text.utf8)
        let (starts, _) = vectorTokenStarts(bytes)
        #expect(starts == modelTokenStarts(bytes, start: 0), "\(text)")
    }
}

@Test func stage1MatchesTheModelOnRandomBytes() {
    var generator = Generator(state: 0xB10C)
    let alphabet: [UInt8] = Array("\"\\\\\\{}[],: \t\nab1-Y_y".utf8) + [0x01, 0x0C, 0x1A, 0x7F, 0x80, 0xC3, 0xE2, 0xF0]
    for round in 0..<3_000 {
        let length = 1 + generator.next(round < 1_000 ? 70 : 300)
        let bytes = (0..<length).map { _ in alphabet[generator.next(alphabet.count)] }
        let (starts, _) = vectorTokenStarts(bytes)
        #expect(starts == modelTokenStarts(bytes, start: 0), "\(bytes)")
    }
}

@Test func backslashRunsAcrossBlocks() {
    // Runs of backslashes of every length ending at every position around a block boundary.
    for runLength in 0..<8 {
        for end in 56..<72 {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 140)
            bytes[0] = 0x22
            for k in 0..<runLength { bytes[end - 1 - k] = 0x5C }
            bytes[end] = 0x22
            bytes[139] = 0x22
            let (starts, _) = vectorTokenStarts(bytes)
            #expect(starts == modelTokenStarts(bytes, start: 0), "run \(runLength) ending at \(end)")
        }
    }
}

@Test func stage1FlagsWhatItMustCheck() {
    // UTF-8 across block boundaries, control bytes in strings, unclosed strings.
    for offset in 58..<68 {
        for sequence in [[0xC3, 0xA9], [0xE2, 0x82, 0xAC], [0xF0, 0x9F, 0x98, 0x80]] as [[UInt8]] {
            var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 130)
            bytes[0] = 0x22
            bytes[129] = 0x22
            bytes.replaceSubrange(offset..<(offset + sequence.count), with: sequence)
            #expect(!vectorTokenStarts(bytes).failed)
            var cut = bytes
            cut[offset + sequence.count - 1] = UInt8(ascii: "a")
            #expect(vectorTokenStarts(cut).failed, "cut \(sequence) at \(offset)")
        }
    }
    #expect(vectorTokenStarts(Array("\"a\u{1}\"".utf8)).failed)
    #expect(!vectorTokenStarts(Array("[\"a\"]".utf8)).failed)
    #expect(vectorTokenStarts(Array("\"abc".utf8)).failed)
    // Control bytes other than HT, LF, CR outside strings (stage 1 takes them as whitespace).
    #expect(vectorTokenStarts(Array("[1,\u{C}2]".utf8)).failed)
    #expect(vectorTokenStarts([0x5B, 0x31, 0x01, 0x5D]).failed)
    #expect(!vectorTokenStarts(Array("[1,\t\r\n 2]".utf8)).failed)
    #expect(vectorTokenStarts([0x22, 0xED, 0xA0, 0x80, 0x22]).failed)  // encoded surrogate
    #expect(vectorTokenStarts([0x22, 0xE0, 0x80, 0x80, 0x22]).failed)  // overlong
    #expect(vectorTokenStarts([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22]).failed)  // above U+10FFFF
    #expect(vectorTokenStarts([0x22, 0xC3]).failed)  // cut at the end
}
