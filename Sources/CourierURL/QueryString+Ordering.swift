// QueryString+Ordering: the two Foundation behaviours AFNetworking's query strings depend on,
// rebuilt without Foundation.
//
// 1. Key order. AFNetworking sorts keys with `NSSortDescriptor(key: "description", ascending:
//    YES, selector: compare:)`. `compare:` without NSLiteralSearch is not a UTF-16 code-unit
//    comparison: CoreFoundation compares canonically decomposed characters (measured against
//    swift-corelibs-foundation, whose CFString is Apple's): "é" sorts just after "e" and before
//    "f", "e" + U+0301 equals "é", U+212B equals U+00C5, and 😀 (U+1F600) sorts after U+E000
//    (UTF-16 code units would put it first). Courier orders by NFD code points: keys are compared as UTF-8 bytes while both go on with ASCII (the common case, no decoding
//    at all), and only when a non-ASCII character decides the order are the two keys compared by
//    their NFD code points.
//
//    CoreFoundation really walks composed-character clusters with rules of its own, and NFD order
//    is an approximation of it. A differential run (20,000 random trees each, against
//    swift-corelibs-foundation's `compare:`): keys of ASCII, CJK, Hangul, Greek, emoji and
//    private-use characters — 0 trees differ; with accented Latin letters — 14 differ; with bare
//    combining marks and singletons such as U+2126 OHM SIGN too — 35 differ. The known case: a
//    precomposed letter against its base letter followed by another letter ("Åb" vs "Aé"):
//    CoreFoundation puts "Åb" first, NFD order puts "Aé" first.
//
//    Keys that compare equal (canonically equivalent) keep the order they were given in.
//
// 2. Number text. NSNumber's `description` prints a double with `%0.16g`. Courier keeps that
//    layout (positional for decimal exponents -4 through 15, else `d.ddde±XX` with at least two
//    exponent digits; integral values without ".0"; `-0`, `nan`, `inf`, `-inf`) but uses the
//    shortest digits that round-trip (Swift's own algorithm) instead of 16 significant digits:
//    they agree for every double whose shortest form has at most 16 digits; for those that need
//    17 (0.1 + 0.2) Courier writes all 17 (`0.30000000000000004`, where `%0.16g` gives `0.3`),
//    so the value read back is the value sent.

@_spi(_Unicode) import Swift

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

/// The order of NSString `compare:` over UTF-8 bytes.
enum QueryOrdering {
    /// Compares two strings as NSString `compare:` does.
    /// - Returns: negative, zero or positive as `a` sorts before, with, or after `b`.
    static func compare(_ a: String, _ b: String) -> Int {
        var a = a, b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in
                compare(UnsafeRawPointer(x.baseAddress ?? UnsafePointer(bitPattern: 1)!), x.count,
                        UnsafeRawPointer(y.baseAddress ?? UnsafePointer(bitPattern: 1)!), y.count)
            }
        }
    }

    /// Compares two valid UTF-8 byte strings as NSString `compare:` does.
    /// - Returns: negative, zero or positive as `a` sorts before, with, or after `b`.
    @inline(__always)
    static func compare(_ a: UnsafeRawPointer, _ aCount: Int, _ b: UnsafeRawPointer, _ bCount: Int) -> Int {
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
        let x: UInt8? = i < aCount ? a.load(fromByteOffset: i, as: UInt8.self) : nil
        let y: UInt8? = i < bCount ? b.load(fromByteOffset: i, as: UInt8.self) : nil
        switch (x, y) {
        case (nil, nil):
            return 0
        case let (x?, y?) where x < 0x80 && y < 0x80:
            // Both strings go on with an ASCII character: a starter that is its own canonical
            // decomposition and that no combining mark reorders across, so the decompositions
            // first differ right here too.
            return Int(x) - Int(y)
        case let (nil, y?) where y < 0x80:
            return -1
        case let (x?, nil) where x < 0x80:
            return 1
        default:
            // Something non-ASCII is involved: "é" sorts with "e", "e" + U+0301 equals "é", and a
            // combining mark can reorder with the one before it. Compare the canonical
            // decompositions (rare: only keys that differ at a non-ASCII character get here).
            let left = String(decoding: UnsafeRawBufferPointer(start: a, count: aCount), as: UTF8.self)
            let right = String(decoding: UnsafeRawBufferPointer(start: b, count: bCount), as: UTF8.self)
            return compareDecomposed(left, right)
        }
    }

    /// Compares the canonical decompositions (NFD) of two strings code point by code point.
    static func compareDecomposed(_ a: String, _ b: String) -> Int {
        var left = a._nfd.makeIterator(), right = b._nfd.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case let (x?, y?) where x != y: return x.value < y.value ? -1 : 1
            default: continue
            }
        }
    }
}
