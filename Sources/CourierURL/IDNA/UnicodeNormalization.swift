// UnicodeNormalization: Normalization Form C (UAX #15), as UTS #46 processing step 2 and validity
// criterion 1 need it.
//
// The algorithm is UAX #15 §3 on the canonical data of IDNATables.swift: full canonical
// decomposition (Hangul by arithmetic, §3.12 of the Unicode Standard), canonical ordering of
// each run of non-starters by combining class (a stable sort), then canonical composition left to
// right, a character combining with the last starter unless blocked (a character of class 0 or of
// a class at least its own stands between them).
//
// Most text is already NFC: the quick check (NFC_Quick_Check from DerivedNormalizationProps.txt,
// UAX #15 §9) recognises it without decomposing anything.
//
// Why not the standard library's: Swift 6.3 exposes NFC only as the underscored
// `String._nfcCodeUnits` (no stability promise), and its Unicode version is the toolchain's, not
// the version of the mapping table beside it. These tables cost about 40 KB (docs/url.md).

enum UnicodeNormalization {
    private static let hangulBase: UInt32 = 0xAC00, hangulCount: UInt32 = 11172
    private static let leadingBase: UInt32 = 0x1100, vowelBase: UInt32 = 0x1161, trailingBase: UInt32 = 0x11A7
    private static let vowelCount: UInt32 = 21, trailingCount: UInt32 = 28

    /// Whether `scalars` is in NFC for want of anything to normalise: below U+00C0 no scalar
    /// decomposes, has a combining class other than 0, or composes with another (UnicodeData.txt).
    static func isTriviallyNFC(_ scalars: [UInt32]) -> Bool {
        scalars.allSatisfy { $0 < 0xC0 }
    }

    /// UAX #15 §9's quick check, answering only "certainly NFC": every scalar NFC_Quick_Check=Yes
    /// and the combining classes of each run of non-starters in order. Text typed precomposed, as
    /// most is, passes and is never decomposed.
    static func isQuicklyNFC(_ scalars: [UInt32]) -> Bool {
        var lastClass: UInt8 = 0
        for scalar in scalars {
            if scalar < 0xC0 { lastClass = 0; continue }
            guard UnicodeProperties.nfcQuickCheck(scalar) == 0 else { return false }
            let combiningClass = UnicodeProperties.combiningClass(scalar)
            if combiningClass != 0, lastClass > combiningClass { return false }
            lastClass = combiningClass
        }
        return true
    }

    /// `scalars` in Normalization Form C.
    static func nfc(_ scalars: [UInt32]) -> [UInt32] {
        if isTriviallyNFC(scalars) || isQuicklyNFC(scalars) { return scalars }
        var decomposed = decompose(scalars)
        reorder(&decomposed)
        return compose(decomposed)
    }

    /// Whether `scalars` is in Normalization Form C.
    static func isNFC(_ scalars: [UInt32]) -> Bool {
        isTriviallyNFC(scalars) || isQuicklyNFC(scalars) || nfc(scalars) == scalars
    }

    private static func decompose(_ scalars: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(scalars.count + 8)
        for scalar in scalars {
            if scalar &- hangulBase < hangulCount {
                let index = scalar - hangulBase
                out.append(leadingBase + index / (vowelCount * trailingCount))
                out.append(vowelBase + (index % (vowelCount * trailingCount)) / trailingCount)
                let trailing = index % trailingCount
                if trailing != 0 { out.append(trailingBase + trailing) }
            } else if let parts = UnicodeProperties.canonicalDecomposition(scalar) {
                out.append(contentsOf: parts)
            } else {
                out.append(scalar)
            }
        }
        return out
    }

    /// Sorts each run of non-starters by combining class, keeping equal classes in order.
    private static func reorder(_ scalars: inout [UInt32]) {
        var i = 0
        while i < scalars.count {
            guard UnicodeProperties.combiningClass(scalars[i]) != 0 else { i += 1; continue }
            var end = i
            while end < scalars.count, UnicodeProperties.combiningClass(scalars[end]) != 0 { end += 1 }
            if end - i > 1 {
                // Runs are short (a few marks): an insertion sort is stable and enough.
                for j in (i + 1)..<end {
                    let scalar = scalars[j], key = UnicodeProperties.combiningClass(scalar)
                    var k = j
                    while k > i, UnicodeProperties.combiningClass(scalars[k - 1]) > key {
                        scalars[k] = scalars[k - 1]
                        k -= 1
                    }
                    scalars[k] = scalar
                }
            }
            i = end
        }
    }

    private static func compose(_ scalars: [UInt32]) -> [UInt32] {
        var out: [UInt32] = []
        out.reserveCapacity(scalars.count)
        var starter: Int?
        var lastClass = -1          // class of the last scalar kept after the starter; -1: none
        for scalar in scalars {
            let combiningClass = Int(UnicodeProperties.combiningClass(scalar))
            if let s = starter, lastClass == -1 || lastClass < combiningClass,
               let composite = composite(out[s], scalar) {
                out[s] = composite
                continue
            }
            if combiningClass == 0 {
                starter = out.count
                lastClass = -1
            } else {
                lastClass = combiningClass
            }
            out.append(scalar)
        }
        return out
    }

    private static func composite(_ first: UInt32, _ second: UInt32) -> UInt32? {
        if first &- leadingBase < 19, second &- vowelBase < vowelCount {
            return hangulBase + ((first - leadingBase) * vowelCount + (second - vowelBase)) * trailingCount
        }
        if first &- hangulBase < hangulCount, (first - hangulBase) % trailingCount == 0,
           second &- trailingBase &- 1 < trailingCount - 1 {
            return first + (second - trailingBase)
        }
        return UnicodeProperties.primaryComposite(first, second)
    }
}
