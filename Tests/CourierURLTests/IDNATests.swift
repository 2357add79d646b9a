// IDNA: each rule of UTS #46 processing with the label and rule it reports, Punycode against
// RFC 3492's samples, NFC against the standard library's normaliser, and international hosts in
// URI parsing (percent-decoding, the ASCII form everywhere, the Unicode form for display).
import Testing
@testable import CourierURL

@Suite struct IDNATests {
    @Test func convertsToASCIIAndBack() throws {
        #expect(try IDNA.toASCII("bücher.example") == "xn--bcher-kva.example")
        #expect(try IDNA.toASCII("BÜCHER.Example.") == "xn--bcher-kva.example.")
        #expect(try IDNA.toASCII("faß.de") == "xn--fa-hia.de")                  // nontransitional: ß kept
        #expect(try IDNA.toASCII("βόλος.com") == "xn--nxasmm1c.com")            // ς kept
        #expect(try IDNA.toASCII("bu\u{308}cher。ｅｘａｍｐｌｅ") == "xn--bcher-kva.example")  // NFC, fullwidth
        #expect(try IDNA.toASCII("a\u{AD}b.example") == "ab.example")           // soft hyphen ignored
        #expect(try IDNA.toASCII("例え.テスト") == "xn--r8jz45g.xn--zckzah")
        #expect(try IDNA.toASCII("مثال.إختبار") == "xn--mgbh0fb.xn--kgbechtv")
        #expect(try IDNA.toASCII("i❤.ws") == "xn--i-7iq.ws")                     // UTS #46 valid (IDNA2008 NV8)
        #expect(IDNA.toUnicode("xn--bcher-kva.example") == ("bücher.example", nil))
        #expect(IDNA.toUnicode("XN--BCHER-KVA.example").domain == "bücher.example")
        #expect(IDNA.unicodeVersion == "15.0.0")
    }

    /// Each rule, with the label it names, the label's index and its offset in the input.
    @Test(arguments: [
        ("a_b.example", IDNAError.Rule.disallowedCodePoint, "a_b", 0, 0),
        ("ok.a b.example", .disallowedCodePoint, "a b", 1, 3),
        ("ü.xn--zz-", .invalidPunycode, "xn--zz-", 1, 3),
        ("ü.xn--abc-", .invalidPunycode, "xn--abc-", 1, 3),         // decodes to ASCII only
        ("ü.xn--", .invalidPunycode, "xn--", 1, 3),
        ("xn--a-ccb", .notNFC, "a\u{308}", 0, 0),                   // "a" + U+0308 not composed
        ("xn--7ba.example", .invalidCodePoint, "Ä", 0, 0),          // upper case is mapped, not valid
        ("ab--ü", .hyphensInThirdAndFourth, "ab--ü", 0, 0),
        ("-ü.example", .leadingOrTrailingHyphen, "-ü", 0, 0),
        ("x.ü-", .leadingOrTrailingHyphen, "ü-", 1, 2),
        ("\u{301}ü", .leadingCombiningMark, "\u{301}ü", 0, 0),
        ("a\u{200C}b", .zeroWidthNonJoiner, "a\u{200C}b", 0, 0),
        ("a\u{200D}b", .zeroWidthJoiner, "a\u{200D}b", 0, 0),
        ("0à.א", .bidiFirstCharacter, "0à", 0, 0),                   // every label of a Bidi name
        ("אa", .bidiRTLCharacter, "אa", 0, 0),
        ("א-", .leadingOrTrailingHyphen, "א-", 0, 0),
        ("א\u{2D}ב\u{21}", .disallowedCodePoint, "א-ב!", 0, 0),
        ("ا١1", .bidiNumberMix, "ا١1", 0, 0),
        ("aא.ü", .bidiLTRCharacter, "aא", 0, 0),
        ("ü\u{2016}.א", .bidiLTREnd, "ü\u{2016}", 0, 0),
        ("a..ü", .labelLength, "", 1, 2),
        (String(repeating: "ü", count: 64), .labelLength, String(repeating: "ü", count: 64), 0, 0),
    ] as [(String, IDNAError.Rule, String, Int, Int)])
    func reportsTheLabelAndTheRule(_ input: String, _ rule: IDNAError.Rule, _ label: String, _ index: Int, _ offset: Int) {
        #expect(throws: IDNAError(rule: rule, label: label, labelIndex: index, offset: offset)) {
            try IDNA.toASCII(input)
        }
    }

    @Test func bidiRulesThreeAndSix() throws {
        // RFC 5893 rule 3: an RTL label ends with R, AL, EN or AN (then NSM): ON "‖" last fails.
        #expect(throws: IDNAError(rule: .bidiRTLEnd, label: "א\u{5BF}\u{2016}", labelIndex: 0, offset: 0)) {
            try IDNA.toASCII("א\u{5BF}\u{2016}")
        }
        #expect(try IDNA.toASCII("א\u{5BF}") == "xn--ndb7a")             // NSM after R is fine
        // Rule 6 applies to an LTR label only in a name that holds RTL somewhere.
        #expect(throws: IDNAError(rule: .bidiLTREnd, label: "ü\u{2016}", labelIndex: 0, offset: 0)) {
            try IDNA.toASCII("ü\u{2016}.א")
        }
        #expect(try IDNA.toASCII("ü\u{2016}.example").hasSuffix(".example"))
    }

    @Test func joinersInTheirContexts() throws {
        // ZWJ and ZWNJ after a virama (Devanagari क्‍ष), ZWNJ between joining Arabic letters.
        #expect(try IDNA.toASCII("क्\u{200D}ष") == "xn--11b2ezcw70k")
        #expect(try IDNA.toASCII("क्\u{200C}ष") == "xn--11b2ezcs70k")
        #expect(try IDNA.toASCII("ب\u{200C}ب") == "xn--ngba799q")
        #expect(throws: IDNAError(rule: .zeroWidthNonJoiner, label: "ا\u{200C}ب", labelIndex: 0, offset: 0)) {
            try IDNA.toASCII("ا\u{200C}ب")     // alef joins only to the right
        }
    }

    @Test func lengths() throws {
        let label63 = String(repeating: "a", count: 62) + "ü"
        #expect(throws: IDNAError.self) { try IDNA.toASCII(label63) }  // xn-- + 63 letters > 63 bytes
        // "xn--tda." (8 bytes) + three labels of 62 + one of 56: 253 bytes, the most DNS takes.
        let threeLabels = (0..<3).map { _ in String(repeating: "a", count: 62) }.joined(separator: ".")
        let longest = "ü." + threeLabels + "." + String(repeating: "a", count: 56)
        #expect(try IDNA.toASCII(longest).utf8.count == 253)
        #expect(throws: IDNAError(rule: .domainLength, label: "", labelIndex: 0, offset: 0)) {
            try IDNA.toASCII(longest + "a")
        }
        // A trailing root "." is not counted.
        #expect(try IDNA.toASCII(longest + ".").utf8.count == 254)
        // The input bound: 1,024 scalars, whatever the ignored ones would leave.
        let padded = "ü" + String(repeating: "\u{AD}", count: 1024)
        #expect(throws: IDNAError(rule: .domainLength, label: "", labelIndex: 0, offset: 0)) { try IDNA.toASCII(padded) }
        #expect(try IDNA.toASCII("ü" + String(repeating: "\u{AD}", count: 1000)) == "xn--tda")
    }

    /// RFC 3492 §7.1 sample strings.
    @Test(arguments: [
        ("\u{644}\u{64A}\u{647}\u{645}\u{627}\u{628}\u{62A}\u{643}\u{644}\u{645}\u{648}\u{634}\u{639}\u{631}\u{628}\u{64A}\u{61F}", "egbpdaj6bu4bxfgehfvwxn"),
        ("\u{4ED6}\u{4EEC}\u{4E3A}\u{4EC0}\u{4E48}\u{4E0D}\u{8BF4}\u{4E2D}\u{6587}", "ihqwcrb4cv8a8dqg056pqjye"),
        ("\u{3072}\u{3068}\u{3064}\u{5C4B}\u{6839}\u{306E}\u{4E0B}2", "2-u9tlzr9756bt3uc0v"),
        ("Pro\u{10D}prost\u{11B}nemluv\u{ED}\u{10D}esky", "Proprostnemluvesky-uyb24dma41a"),
        ("3\u{5E74}B\u{7D44}\u{91D1}\u{516B}\u{5148}\u{751F}", "3B-ww4c5e180e575a65lsy2b"),
        ("\u{305D}\u{306E}\u{30B9}\u{30D4}\u{30FC}\u{30C9}\u{3067}", "d9juau41awczczp"),
    ])
    func punycodeSamples(_ unicode: String, _ encoded: String) {
        let scalars = unicode.unicodeScalars.map(\.value)
        let output = Punycode.encode(scalars).map { String(decoding: $0.map { UInt8($0) }, as: UTF8.self) }
        #expect(output == encoded)       // basic code points keep their case
        #expect(Punycode.decode(encoded.unicodeScalars.map(\.value)[...]) == scalars)
    }

    @Test func punycodeRefusesWhatCouldNotHaveBeenEncoded() {
        #expect(Punycode.decode(Array("ä-abc".unicodeScalars.map(\.value))[...]) == nil)   // non-basic before "-"
        #expect(Punycode.decode(Array("a!".unicodeScalars.map(\.value))[...]) == nil)      // not a digit
        #expect(Punycode.decode(Array("99999999999".unicodeScalars.map(\.value))[...]) == nil)  // overflow / > U+10FFFF
        #expect(Punycode.decode(Array("b".unicodeScalars.map(\.value))[...]) == nil)       // ends inside a number
        // A leading "-" with no basic code point before it is a digit, not the delimiter (found by
        // scripts/idna-check: Python's codec drops it).
        #expect(Punycode.decode(Array("-gbw3ax".unicodeScalars.map(\.value))[...]) == nil)
        #expect(Punycode.decode(Array("gbw3ax".unicodeScalars.map(\.value))[...]) != nil)
        #expect(Punycode.decode(Array("a".unicodeScalars.map(\.value))[...]) == [0x80])
    }

    /// NFC against the standard library's normaliser (an independent implementation) on random
    /// strings mixing composable letters, marks of several classes, Hangul jamo and syllables.
    @Test func nfcMatchesTheStandardLibrary() {
        var generator = SystemRandomNumberGenerator()
        let pool: [ClosedRange<UInt32>] = [
            0x41...0x5A, 0xC0...0x17F, 0x300...0x36F, 0x591...0x5C7, 0x93C...0x94D, 0x1100...0x1112,
            0x1161...0x1175, 0x11A8...0x11C2, 0xAC00...0xAC40, 0x1E00...0x1EFF, 0x1F00...0x1FFF,
            0x3099...0x309A, 0x304B...0x3062, 0x1D15E...0x1D164, 0xF900...0xF910, 0x0B47...0x0B57,
        ]
        var checked = 0
        for _ in 0..<4000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 1...8, using: &generator) {
                let range = pool.randomElement(using: &generator)!
                guard let scalar = Unicode.Scalar(UInt32.random(in: range, using: &generator)),
                      let age = scalar.properties.age, age.major <= 15 else { continue }
                text.append(scalar)
            }
            let string = String(text)
            let expected = Array(String(decoding: string._nfcCodeUnits, as: UTF8.self).unicodeScalars.map(\.value))
            let actual = UnicodeNormalization.nfc(string.unicodeScalars.map(\.value))
            #expect(actual == expected, "NFC of \(string.unicodeScalars.map { String($0.value, radix: 16) })")
            checked += 1
        }
        #expect(checked == 4000)
    }
}

@Suite struct InternationalHostTests {
    @Test func aUnicodeHostIsHeldInItsASCIIForm() throws {
        let uri = try URI(parsing: "http://Bücher.example:8080/a?b")
        #expect(uri.host?.text == "xn--bcher-kva.example")
        #expect(uri.host?.kind == .registeredName)
        #expect(uri.description == "http://xn--bcher-kva.example:8080/a?b")
        #expect(uri.unicodeDescription == "http://bücher.example:8080/a?b")
        #expect(uri.hostFieldValue == "xn--bcher-kva.example:8080")
        #expect(uri.host?.unicodeDescription == "bücher.example")
        // The two spellings are one origin.
        #expect(uri == (try URI(parsing: "http://xn--bcher-kva.example:8080/a?b")))
        #expect(try URI(parsing: "http://xn--bcher-kva.example/").unicodeDescription == "http://bücher.example/")
    }

    @Test func percentEncodedUTF8IsDecodedFirst() throws {
        #expect(try URI(parsing: "https://b%C3%BCcher.example/").host?.text == "xn--bcher-kva.example")
        #expect(try URI(parsing: "https://b%c3%bccher.example/").host?.text == "xn--bcher-kva.example")
        #expect(try URI(parsing: "http://ex%61mple.com/").host?.text == "example.com")
        #expect(try URI(parsing: "HtTp://ExA%4dple%2a.Org/").host?.text == "example*.org")
        // A decoded byte a host may not hold is refused at its triplet; so is bad UTF-8.
        #expect(throws: URIError(.invalidCharacter, offset: 8)) { try URI(parsing: "http://a%2Fb/") }
        #expect(throws: URIError(.invalidCharacter, offset: 7)) { try URI(parsing: "http://%C3%28.example/") }
        #expect(throws: URIError(.malformedPercentEncoding, offset: 9)) { try URI(parsing: "http://ü%4/") }
    }

    @Test func theASCIIResultIsClassifiedAsAnyHost() throws {
        let fullwidth = try URI(parsing: "http://１２７．０．０．１:8080/")
        #expect(fullwidth.host?.kind == .ipv4Address)
        #expect(fullwidth.host?.text == "127.0.0.1")
        #expect(throws: URIError(.invalidIPv4Address, offset: 7)) { try URI(parsing: "http://１２７.1/") }
    }

    @Test func anInvalidLabelNamesTheLabelAndTheRule() {
        do {
            _ = try URI(parsing: "https://user@ok.a_b.bücher.example/")
            Issue.record("accepted")
        } catch {
            #expect(error.code == .invalidHostName)
            #expect(error.offset == 16)
            #expect(error.idna == IDNAError(rule: .disallowedCodePoint, label: "a_b", labelIndex: 1, offset: 16))
            #expect(error.description == "URIError(invalidHostName, offset: 16, label \"a_b\": P1 code point not allowed in a domain name)")
        }
        #expect(throws: URIError(.invalidHostName, offset: 7,
                                 idna: IDNAError(rule: .leadingOrTrailingHyphen, label: "-bücher", labelIndex: 0, offset: 7))) {
            try URI(parsing: "http://-bücher.example/")
        }
        // The offset of a percent-encoded label is that of its first triplet.
        #expect(throws: URIError(.invalidHostName, offset: 9,
                                 idna: IDNAError(rule: .leadingCombiningMark, label: "\u{301}b", labelIndex: 1, offset: 9))) {
            try URI(parsing: "http://a.%CC%81b.ü/")
        }
    }

    @Test func asciiHostsTakeTheFastPathUnchanged() throws {
        // As curl does, a host given in ASCII is not run through UTS #46: "_" stays allowed and an
        // "xn--" label is sent as written.
        #expect(try URI(parsing: "http://my_host.local/").host?.text == "my_host.local")
        #expect(try URI(parsing: "http://xn--zz.example/").host?.text == "xn--zz.example")
        #expect(try URI(parsing: "http://xn--zz.example/").unicodeDescription == "http://xn--zz.example/")
    }

    /// fuzz-idna finding: an ASCII host (never checked) whose "xn--" label decodes but is over 63
    /// bytes was shown decoded, and the Unicode form did not parse back. Now it is shown as sent.
    @Test func fuzzFindingOverlongACELabelIsShownAsSent() throws {
        let host = "xn--bchm" + String(repeating: "c", count: 55) + "ele"
        let uri = try URI(parsing: "http://\(host)/")
        #expect(IDNA.toUnicode(host).error == nil)          // ToUnicode has no length check
        #expect(uri.host?.unicodeDescription == host)
        #expect(uri.unicodeDescription == "http://\(host)/")
    }

    @Test func schemesWithDomainHostsOnly() throws {
        #expect(try URI(parsing: "wss://bücher.example/").host?.text == "xn--bcher-kva.example")
        #expect(try URI(parsing: "//bücher.example/x").host?.text == "xn--bcher-kva.example")
        // Other schemes: RFC 3986's reg-name, kept percent-encoded, non-ASCII refused.
        #expect(try URI(parsing: "foo://a%c3%bc/").host?.text == "a%C3%BC")
        #expect(throws: URIError(.invalidCharacter, offset: 6)) { try URI(parsing: "foo://ü/") }
    }

    @Test func resolutionAndComponents() throws {
        let base = try URI(parsing: "http://a/b/c")
        #expect(try base.resolving("//bücher.example/x").description == "http://xn--bcher-kva.example/x")
        let built = try URI(scheme: "https", host: "Bücher.example", path: "/p")
        #expect(built.host?.text == "xn--bcher-kva.example")
        #expect(built.description == "https://xn--bcher-kva.example/p")
        #expect(throws: URIError.self) { try URI(scheme: "https", host: "a_b.bücher") }
    }
}
