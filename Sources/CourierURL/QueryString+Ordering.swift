// QueryString+Ordering: the two Foundation behaviours AFNetworking's query strings depend on,
// rebuilt without Foundation.
//
// 1. Key order. AFNetworking sorts keys with `NSSortDescriptor(key: "description", ascending:
//    YES, selector: compare:)`. NSString `compare:` compares UTF-16 code units. Courier compares
//    in ordinal UTF-16 code-unit order (no canonical-equivalence folding: precomposed "é" and
//    "e"+U+0301 are different keys, as they are different bytes on the wire anyway).
//    Keys are compared as UTF-8 bytes, which is code-point order; that equals UTF-16 order except
//    between U+E000–U+FFFF and the supplementary planes (UTF-16 puts surrogates D800–DFFF first),
//    so only when the first differing bytes are both non-ASCII are the two code points decoded and
//    mapped to their UTF-16 order.
//
// 2. Number text. NSNumber's `description` prints a double with `%0.16g`. Courier keeps that
//    layout (positional for decimal exponents -4 through 15, else `d.ddde±XX` with at least two
//    exponent digits; integral values without ".0"; `-0`, `nan`, `inf`, `-inf`) but uses the
//    shortest digits that round-trip (Swift's own algorithm) instead of 16 significant digits:
//    they agree for every double whose shortest form has at most 16 digits; for those that need
//    17 (0.1 + 0.2) Courier writes all 17 (`0.30000000000000004`, where `%0.16g` gives `0.3`),
//    so the value read back is the value sent.

extension QueryString {
    /// The text of a double in a query string: NSNumber's `%0.16g` layout with the shortest
    /// digits that round-trip. Examples: `3.5`, `0.1`, `2` (for 2.0), `-0.25`, `1e-05`, `1e+16`,
    /// `1000000000000000`, `0.30000000000000004`.
    /// - Parameter value: the number.
    /// - Returns: its text (before percent-encoding; "+" in an exponent is escaped later).
    public static func describe(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        if value == 0 { return value.sign == .minus ? "-0" : "0" }

        // Swift's description has the shortest round-trip digits, in one of two layouts
        // ("123.45", "1.2345e-05"); read the digits and the decimal exponent back out of it.
        var digits: [UInt8] = []
        digits.reserveCapacity(20)
        var integerDigits: Int?
        var exponent = 0
        var exponentSign = 1
        var inExponent = false
        for byte in value.description.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                if inExponent { exponent = exponent * 10 + Int(byte - UInt8(ascii: "0")) } else { digits.append(byte) }
            case UInt8(ascii: "."): integerDigits = digits.count
            case UInt8(ascii: "e"), UInt8(ascii: "E"): inExponent = true
            case UInt8(ascii: "-"): if inExponent { exponentSign = -1 }
            default: break
            }
        }
        // value = 0.d1d2…dn × 10^pointPosition
        var pointPosition = (integerDigits ?? digits.count) + exponentSign * exponent
        var leadingZeros = 0
        while leadingZeros < digits.count - 1, digits[leadingZeros] == UInt8(ascii: "0") { leadingZeros += 1 }
        digits.removeFirst(leadingZeros)
        pointPosition -= leadingZeros
        while digits.count > 1, digits.last == UInt8(ascii: "0") { digits.removeLast() }

        let decimalExponent = pointPosition - 1        // of the first digit
        var out: [UInt8] = []
        out.reserveCapacity(digits.count + 8)
        if value < 0 { out.append(UInt8(ascii: "-")) }
        if decimalExponent < -4 || decimalExponent >= 16 {
            out.append(digits[0])
            if digits.count > 1 {
                out.append(UInt8(ascii: "."))
                out.append(contentsOf: digits[1...])
            }
            out.append(UInt8(ascii: "e"))
            out.append(decimalExponent < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let magnitude = abs(decimalExponent)
            if magnitude < 10 { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: String(magnitude).utf8)
        } else if decimalExponent >= 0 {
            for index in 0..<max(digits.count, pointPosition) {
                if index == pointPosition { out.append(UInt8(ascii: ".")) }
                out.append(index < digits.count ? digits[index] : UInt8(ascii: "0"))
            }
        } else {
            out.append(UInt8(ascii: "0"))
            out.append(UInt8(ascii: "."))
            for _ in 0..<(-pointPosition) { out.append(UInt8(ascii: "0")) }
            out.append(contentsOf: digits)
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Ordinal UTF-16 order over UTF-8 bytes.
enum QueryOrdering {
    /// Compares two strings in UTF-16 code-unit order.
    /// - Returns: negative, zero or positive as `a` sorts before, with, or after `b`.
    static func compareUTF16(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                compareUTF16(UnsafeRawPointer(x.baseAddress ?? UnsafePointer(bitPattern: 1)!), x.count,
                             UnsafeRawPointer(y.baseAddress ?? UnsafePointer(bitPattern: 1)!), y.count)
            }
        }
    }

    /// Compares two valid UTF-8 byte strings in UTF-16 code-unit order.
    /// - Returns: negative, zero or positive as `a` sorts before, with, or after `b`.
    @inline(__always)
    static func compareUTF16(_ a: UnsafeRawPointer, _ aCount: Int, _ b: UnsafeRawPointer, _ bCount: Int) -> Int {
        let common = min(aCount, bCount)
        var i = 0
        // SAFETY: i + 8 <= common and i < common keep every read inside both strings.
        while i &+ 8 <= common,
              a.loadUnaligned(fromByteOffset: i, as: UInt64.self) == b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
            i &+= 8
        }
        while i < common, a.load(fromByteOffset: i, as: UInt8.self) == b.load(fromByteOffset: i, as: UInt8.self) {
            i &+= 1
        }
        if i == common { return aCount - bCount }
        let x = a.load(fromByteOffset: i, as: UInt8.self), y = b.load(fromByteOffset: i, as: UInt8.self)
        // An ASCII byte here starts a code point in both strings (the common prefix ends on a
        // boundary), and it sorts before every non-ASCII code point in UTF-16 too.
        if x < 0x80 || y < 0x80 { return Int(x) - Int(y) }
        var start = i
        while start > 0, a.load(fromByteOffset: start, as: UInt8.self) & 0xC0 == 0x80 { start -= 1 }
        let p = utf16Rank(decode(a, at: start)), q = utf16Rank(decode(b, at: start))
        return p < q ? -1 : (p > q ? 1 : 0)
    }

    /// The code point of the valid UTF-8 sequence at `offset`.
    @inline(__always)
    private static func decode(_ bytes: UnsafeRawPointer, at offset: Int) -> UInt32 {
        let lead = UInt32(bytes.load(fromByteOffset: offset, as: UInt8.self))
        func continuation(_ k: Int) -> UInt32 { UInt32(bytes.load(fromByteOffset: offset + k, as: UInt8.self)) & 0x3F }
        if lead < 0xE0 { return (lead & 0x1F) << 6 | continuation(1) }
        if lead < 0xF0 { return (lead & 0x0F) << 12 | continuation(1) << 6 | continuation(2) }
        return (lead & 0x07) << 18 | continuation(1) << 12 | continuation(2) << 6 | continuation(3)
    }

    /// A number that orders code points as their UTF-16 forms order: supplementary code points
    /// (surrogate pairs, D800–DBFF first) sort between U+D7FF and U+E000.
    @inline(__always)
    private static func utf16Rank(_ scalar: UInt32) -> UInt32 {
        if scalar < 0xD800 { return scalar }
        if scalar >= 0x10000 { return scalar - 0x10000 + 0xD800 }
        return scalar + 0x10_0000
    }
}
