import Testing
import CourierBytes

@Suite struct ASCIIIntegerTests {
    func decimal(_ s: String) -> Result<UInt64, IntegerParseError> {
        Result { () throws(IntegerParseError) in try ASCIIInteger.parseDecimal(Array(s.utf8)) }
    }

    func hex(_ s: String, max: Int = 16) -> Result<UInt64, IntegerParseError> {
        Array(s.utf8).withUnsafeBytes { raw in
            Result { () throws(IntegerParseError) in try ASCIIInteger.parseHex(raw, maxDigits: max) }
        }
    }

    @Test func decimalAcceptsOnlyDigits() {
        #expect(decimal("0") == .success(0))
        #expect(decimal("000123") == .success(123))
        #expect(decimal("18446744073709551615") == .success(UInt64.max))
        #expect(decimal("") == .failure(.empty))
        #expect(decimal("+1") == .failure(.invalidDigit(offset: 0)))
        #expect(decimal("-1") == .failure(.invalidDigit(offset: 0)))
        #expect(decimal(" 1") == .failure(.invalidDigit(offset: 0)))
        #expect(decimal("1 ") == .failure(.invalidDigit(offset: 1)))
        #expect(decimal("12a") == .failure(.invalidDigit(offset: 2)))
        #expect(decimal("1_0") == .failure(.invalidDigit(offset: 1)))
    }

    @Test func decimalDetectsOverflowInsteadOfWrapping() {
        #expect(decimal("18446744073709551616") == .failure(.overflow))
        #expect(decimal("99999999999999999999") == .failure(.overflow))
        #expect(decimal(String(repeating: "9", count: 40)) == .failure(.overflow))
    }

    @Test func decimalAgreesWithTheStandardLibrary() {
        var state: UInt64 = 0x243F6A8885A308D3
        for _ in 0..<2000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = state >> (state & 63)
            #expect(decimal(String(value)) == .success(value))
            #expect(ASCIIInteger.decimal(value).array == Array(String(value).utf8))
        }
    }

    @Test func hexHasADigitCapAndCheckedArithmetic() {
        #expect(hex("0") == .success(0))
        #expect(hex("fF") == .success(255))
        #expect(hex("FFFFFFFFFFFFFFFF") == .success(UInt64.max))
        #expect(hex("00000000000000001") == .failure(.tooManyDigits(limit: 16)))
        #expect(hex("10000000000000000") == .failure(.tooManyDigits(limit: 16)))
        #expect(hex("123", max: 2) == .failure(.tooManyDigits(limit: 2)))
        #expect(hex("") == .failure(.empty))
        #expect(hex("1g") == .failure(.invalidDigit(offset: 1)))
        #expect(hex("0x1") == .failure(.invalidDigit(offset: 1)))
        #expect(hex("FFFFFFFFFFFFFFFFF", max: 20) == .failure(.overflow))
    }

    @Test func hexFormatting() {
        #expect(ASCIIInteger.hex(0).array == Array("0".utf8))
        #expect(ASCIIInteger.hex(0xABCDEF).array == Array("abcdef".utf8))
        #expect(ASCIIInteger.hex(0xABCDEF, uppercase: true).array == Array("ABCDEF".utf8))
        #expect(ASCIIInteger.hex(UInt64.max).array == Array("ffffffffffffffff".utf8))
    }
}
