// Unicode's UTS #46 conformance vectors (IdnaTestV2.txt) run through IDNA.toUnicode and
// IDNA.toASCII (nontransitional, the toAsciiN column).
//
// The file is Unicode's own, unmodified, gzip-compressed beside this test (Unicode 13.0.0, the
// newest copy Debian's packages and PyPI's idna sdists carry; its SHA-256 is in docs/url.md).
// Courier's tables are Unicode 15.0.0; for every code point assigned by 13.0 the
// 15.0 mapping table is identical to 13.0's, so a vector can only disagree through a code point
// assigned after 13.0 (unassigned, hence an error, in 13.0). Such vectors are counted apart and
// must each hold a code point whose `age` is above 13.0; every other vector must pass.
//
// Implementations "need only record that there is an error" (the file's conformance note), so a
// vector passes when the error presence matches and, without an error, the output does. The rule
// Courier reports must also be one of the codes the file lists for the vector.
import Testing
import Glibc
import CourierBytes
import CourierCompression
@testable import CourierURL

struct IdnaTestVector {
    var line: Int
    var source: String
    var toUnicode: String
    var toUnicodeStatus: [String]
    var toASCIIN: String
    var toASCIINStatus: [String]
}

enum IdnaTestFile {
    static let path: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast()
        return parts.joined(separator: "/") + "/Unicode/IdnaTestV2.txt.gz"
    }()

    static func readAll(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = chunk.withUnsafeMutableBytes { fread($0.baseAddress, 1, $0.count, file) }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
        }
        return bytes
    }

    /// "\u00E0" and "\x{1F600}" escapes, as the file's header describes.
    static func unescape(_ text: Substring) -> String {
        var out = String.UnicodeScalarView()
        let scalars = Array(text.unicodeScalars)
        var i = 0
        while i < scalars.count {
            if scalars[i] == "\\", i + 1 < scalars.count {
                if scalars[i + 1] == "u", i + 5 < scalars.count,
                   let value = UInt32(String(String.UnicodeScalarView(scalars[(i + 2)..<(i + 6)])), radix: 16),
                   let scalar = Unicode.Scalar(value) {
                    out.append(scalar)
                    i += 6
                    continue
                }
                if scalars[i + 1] == "x", i + 2 < scalars.count, scalars[i + 2] == "{",
                   let close = scalars[(i + 3)...].firstIndex(of: "}"),
                   let value = UInt32(String(String.UnicodeScalarView(scalars[(i + 3)..<close])), radix: 16),
                   let scalar = Unicode.Scalar(value) {
                    out.append(scalar)
                    i = close + 1
                    continue
                }
            }
            out.append(scalars[i])
            i += 1
        }
        return String(out)
    }

    static func status(_ text: Substring) -> [String]? {
        let trimmed = text.trimmingSpaces
        guard !trimmed.isEmpty else { return nil }
        return trimmed.dropFirst().dropLast().split(separator: ",").map { String($0.trimmingSpaces) }
    }

    static let vectors: [IdnaTestVector] = {
        guard let compressed = readAll(path),
              let text = try? ContentDecoder.decode(ByteBuffer(bytes: compressed), contentEncoding: "gzip",
                                                    limits: DecompressionLimits(maximumDecodedSize: 8 << 20, maximumRatio: 100))
        else { return [] }
        var vectors: [IdnaTestVector] = []
        // Split on bytes, not Characters: U+0600 ARABIC NUMBER SIGN (a prepended mark) makes one
        // grapheme cluster with the ";" after it.
        let bytes = text.readableBytesArray
        for (index, rawLine) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let data = rawLine.split(separator: UInt8(ascii: "#"), maxSplits: 1, omittingEmptySubsequences: false)[0]
            let line = Substring(String(decoding: data, as: UTF8.self))
            guard !line.trimmingSpaces.isEmpty else { continue }
            let columns = data.split(separator: UInt8(ascii: ";"), omittingEmptySubsequences: false)
                .map { Substring(String(decoding: $0, as: UTF8.self)) }
            guard columns.count >= 5 else { continue }
            let source = unescape(columns[0].trimmingSpaces)
            let toUnicodeText = columns[1].trimmingSpaces
            let toUnicode = toUnicodeText.isEmpty ? source : unescape(toUnicodeText)
            let toUnicodeStatus = status(columns[2]) ?? []
            let asciiText = columns[3].trimmingSpaces
            let toASCIIN = asciiText.isEmpty ? toUnicode : unescape(asciiText)
            let toASCIINStatus = status(columns[4]) ?? toUnicodeStatus
            vectors.append(IdnaTestVector(line: index + 1, source: source, toUnicode: toUnicode,
                                          toUnicodeStatus: toUnicodeStatus, toASCIIN: toASCIIN,
                                          toASCIINStatus: toASCIINStatus))
        }
        return vectors
    }()

    /// Whether `text` holds a code point Unicode 13.0 had not assigned.
    static func isNewerThanTheFile(_ text: String) -> Bool {
        text.unicodeScalars.contains { scalar in
            guard let age = scalar.properties.age else { return false }
            return age.major > 13
        }
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var s = self
        while let first = s.first, first == " " || first == "\t" { s = s.dropFirst() }
        while let last = s.last, last == " " || last == "\t" { s = s.dropLast() }
        return s
    }
}

@Suite struct IDNAConformanceTests {
    /// Every vector: toUnicode (error presence, and the output when valid) and toAsciiN.
    @Test func idnaTestV2() {
        let vectors = IdnaTestFile.vectors
        #expect(vectors.count > 6000, "IdnaTestV2.txt.gz was not read from \(IdnaTestFile.path)")
        var unicodePassed = 0, asciiPassed = 0, newer = 0, ruleListed = 0, errorsReported = 0
        var unexplained: [String] = []
        for vector in vectors {
            let (unicode, unicodeError) = IDNA.toUnicode(vector.source)
            let unicodeOK = (unicodeError == nil) == vector.toUnicodeStatus.isEmpty
                && (unicodeError != nil || unicode == vector.toUnicode)
            var ascii: String?
            var asciiError: IDNAError?
            do { ascii = try IDNA.toASCII(vector.source) } catch { asciiError = error }
            let asciiOK = (asciiError == nil) == vector.toASCIINStatus.isEmpty
                && (asciiError != nil || ascii == vector.toASCIIN)
            if let asciiError, !vector.toASCIINStatus.isEmpty {
                errorsReported += 1
                if vector.toASCIINStatus.contains(asciiError.rule.identifier) { ruleListed += 1 }
            }
            if unicodeOK { unicodePassed += 1 }
            if asciiOK { asciiPassed += 1 }
            if !unicodeOK || !asciiOK {
                if IdnaTestFile.isNewerThanTheFile(vector.source) {
                    newer += 1
                } else {
                    unexplained.append("line \(vector.line): \(vector.source.unicodeScalars.map { String($0.value, radix: 16) }) "
                        + "toUnicode \(unicode.unicodeScalars.map { String($0.value, radix: 16) }) \(unicodeError.map { "\($0)" } ?? "ok") "
                        + "expected \(vector.toUnicodeStatus); toASCII \(ascii ?? "-") \(asciiError.map { "\($0)" } ?? "ok") "
                        + "expected \(vector.toASCIIN) \(vector.toASCIINStatus)")
                }
            }
        }
        print("IdnaTestV2 (Unicode 13.0.0): toUnicode \(unicodePassed)/\(vectors.count) passed, "
              + "toAsciiN \(asciiPassed)/\(vectors.count) passed; \(newer) vectors hold code points assigned "
              + "after 13.0; the rule reported is one the file lists for \(ruleListed)/\(errorsReported) errors")
        #expect(ruleListed == errorsReported, "the rule reported is not among those listed for \(errorsReported - ruleListed) vectors")
        #expect(unexplained.isEmpty, "\(unexplained.count) vectors fail:\n\(unexplained.prefix(10).joined(separator: "\n"))")
    }
}
