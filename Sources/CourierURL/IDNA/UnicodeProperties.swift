// UnicodeProperties: the character properties UTS #46 processing reads, looked up in the tables
// IDNATables*.swift hold (generated from Unicode 15.0.0 data by generate_tables.py).
//
// Scalars are handled as UInt32 throughout the IDNA code: the tables are keyed by code point, and
// every value that reaches here came from a Swift String or from Punycode decoding that rejects
// surrogates and values above U+10FFFF.

/// What UTS #46 §5 says to do with a code point, for nontransitional processing with
/// UseSTD3ASCIIRules (deviations are valid; the STD3 statuses are disallowed).
enum IDNAStatus: Equatable {
    case valid
    case disallowed
    /// Replaced by these scalars; none for an ignored code point.
    case mapped(ArraySlice<UInt32>)
    /// Replaced by one scalar.
    case mappedTo(UInt32)
}

/// Bidi_Class values, numbered as generate_tables.py numbers them.
enum BidiClass: UInt8 {
    case l, r, al, en, es, et, an, cs, nsm, bn, on
    case b, s, ws, lre, lro, rle, rlo, pdf, lri, rli, fsi, pdi
}

/// Joining_Type values (U, the default, is 0), numbered as generate_tables.py numbers them.
enum JoiningType: UInt8 {
    case nonJoining, joinCausing, dualJoining, leftJoining, rightJoining, transparent
}

enum UnicodeProperties {
    private static let codePointMask: UInt64 = 0x1F_FFFF

    /// The index of the last entry of a table sorted by its low 21 bits whose start is at or
    /// below `scalar` (every table starts at U+0000, so there is one).
    @inline(__always)
    private static func runIndex(_ table: [UInt32], _ scalar: UInt32) -> Int {
        var low = 0, high = table.count - 1
        while low < high {
            let middle = (low + high + 1) >> 1
            if table[middle] & 0x1F_FFFF <= scalar { low = middle } else { high = middle - 1 }
        }
        return low
    }

    @inline(__always)
    private static func runValue(_ table: [UInt32], _ scalar: UInt32) -> UInt32 {
        table[runIndex(table, scalar)] >> 21
    }

    /// The UTS #46 status of `scalar`.
    @inline(__always)
    static func idnaStatus(_ scalar: UInt32) -> IDNAStatus {
        // ASCII, most of any host, without the search (IdnaMappingTable.txt with STD3 rules:
        // a–z, 0–9, "-" and "." valid, A–Z mapped to lower case, everything else disallowed).
        if scalar < 0x80 {
            if scalar &- 0x61 < 26 || scalar &- 0x30 < 10 || scalar == 0x2D || scalar == 0x2E { return .valid }
            if scalar &- 0x41 < 26 { return .mappedTo(scalar | 0x20) }
            return .disallowed
        }
        let table = IDNATables.mapping
        var low = 0, high = table.count - 1
        while low < high {
            let middle = (low + high + 1) >> 1
            if UInt32(table[middle] & codePointMask) <= scalar { low = middle } else { high = middle - 1 }
        }
        let entry = table[low]
        let payload = UInt32(truncatingIfNeeded: entry >> 32)
        switch (entry >> 21) & 7 {
        case 0: return .valid
        case 1: return .disallowed
        case 2:
            let offset = Int(payload & 0xFFFF), length = Int(payload >> 16)
            return .mapped(IDNATables.mappingScalars[offset..<offset + length])
        default:
            return .mappedTo(UInt32(bitPattern: Int32(bitPattern: scalar) &+ Int32(bitPattern: payload)))
        }
    }

    /// Canonical_Combining_Class.
    static func combiningClass(_ scalar: UInt32) -> UInt8 {
        // Everything below U+0300 is a starter; most host names never reach the search.
        scalar < 0x300 ? 0 : UInt8(truncatingIfNeeded: runValue(IDNATables.combiningClass, scalar))
    }

    static func bidiClass(_ scalar: UInt32) -> BidiClass {
        // What a valid ASCII label can hold, without the search.
        if scalar &- 0x61 < 26 { return .l }
        if scalar &- 0x30 < 10 { return .en }
        if scalar == 0x2D { return .es }
        return BidiClass(rawValue: UInt8(truncatingIfNeeded: runValue(IDNATables.bidiClass, scalar))) ?? .l
    }

    /// NFC_Quick_Check: 0 Yes, 1 Maybe, 2 No.
    static func nfcQuickCheck(_ scalar: UInt32) -> UInt32 {
        scalar < 0x300 ? 0 : runValue(IDNATables.nfcQuickCheck, scalar)
    }

    static func joiningType(_ scalar: UInt32) -> JoiningType {
        JoiningType(rawValue: UInt8(truncatingIfNeeded: runValue(IDNATables.joiningType, scalar))) ?? .nonJoining
    }

    /// Whether General_Category is Mark (Mn, Mc or Me).
    static func isMark(_ scalar: UInt32) -> Bool {
        scalar >= 0x300 && runValue(IDNATables.marks, scalar) != 0
    }

    /// The full canonical decomposition of `scalar`, if it has one (Hangul syllables excepted:
    /// `UnicodeNormalization` decomposes them by arithmetic).
    static func canonicalDecomposition(_ scalar: UInt32) -> ArraySlice<UInt32>? {
        guard scalar >= 0xC0 else { return nil }
        let table = IDNATables.decompositions
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) >> 1
            if UInt32(table[middle] & codePointMask) < scalar { low = middle + 1 } else { high = middle }
        }
        guard low < table.count, UInt32(table[low] & codePointMask) == scalar else { return nil }
        let offset = Int((table[low] >> 21) & 0xFFFF), length = Int((table[low] >> 37) & 0x1F)
        return IDNATables.decompositionScalars[offset..<offset + length]
    }

    /// The primary composite of `first` and `second`, if there is one (Hangul excepted).
    static func primaryComposite(_ first: UInt32, _ second: UInt32) -> UInt32? {
        let key = UInt64(first) << 21 | UInt64(second)
        let keyMask: UInt64 = 1 << 42 - 1
        let table = IDNATables.compositions
        var low = 0, high = table.count
        while low < high {
            let middle = (low + high) >> 1
            if table[middle] & keyMask < key { low = middle + 1 } else { high = middle }
        }
        guard low < table.count, table[low] & keyMask == key else { return nil }
        return UInt32(truncatingIfNeeded: table[low] >> 42)
    }
}
