import Testing
import CourierBytes

@Suite struct ByteClassTests {
    let table = ByteClass.table

    func members(_ c: ByteClass) -> Set<UInt8> {
        Set((0...255 as ClosedRange<UInt8>).filter { table[$0].contains(c) })
    }

    @Test func tokenIsExactlyTchar() {
        // RFC 9110 §5.6.2
        let expected = Set(Array("!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".utf8))
        #expect(members(.token) == expected)
    }

    @Test func fieldValueExcludesControlsButAllowsTabAndObsText() {
        let m = members(.fieldValue)
        #expect(m.contains(0x09) && m.contains(0x20) && m.contains(0x80) && m.contains(0xFF))
        for b: UInt8 in [0x00, 0x0A, 0x0D, 0x7F, 0x1F] { #expect(!m.contains(b)) }
        #expect(m.count == 256 - 32 - 1 + 1)  // all but CTLs and DEL, plus HTAB
    }

    @Test func unreservedAndDelimitersFollowRFC3986() {
        #expect(members(.unreserved).count == 26 * 2 + 10 + 4)
        #expect(members(.subDelimiter) == Set(Array("!$&'()*+,;=".utf8)))
        #expect(members(.genDelimiter) == Set(Array(":/?#[]@".utf8)))
        #expect(members(.queryChar) == members(.pathChar).union(Array("/?".utf8)))
        #expect(!table[UInt8(ascii: "%")].contains(.pathChar), "pct-encoded is checked as a triplet, not a class")
    }

    @Test func hexDigits() {
        #expect(members(.hexDigit) == Set(Array("0123456789abcdefABCDEF".utf8)))
    }

    @Test func byteSetMembership() {
        var set = ByteSet(ascii: "az")
        #expect(set.contains(UInt8(ascii: "a")) && set.contains(UInt8(ascii: "z")) && !set.contains(UInt8(ascii: "b")))
        set.insert(0xFF); set.insert(0x80); set.insert(0x40)
        #expect(set.contains(0xFF) && set.contains(0x80) && set.contains(0x40))
        set.remove(0xFF)
        #expect(!set.contains(0xFF))
        #expect(!set.inverted.contains(UInt8(ascii: "a")) && set.inverted.contains(0xFF))
        #expect(ByteSet(classes: .digit) == ByteSet(ascii: "0123456789"))
    }
}
