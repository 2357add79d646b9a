// UTF8Validation: finds the first ill-formed sequence in bytes (Unicode §3.9, table 3-7), so a
// decoding error can name an offset. The standard library validates faster but says only
// "invalid"; this runs only after it has said so.

enum UTF8Validation {
    /// The index of the first byte of the first ill-formed sequence, or nil if `bytes` is UTF-8.
    static func firstInvalidIndex(_ bytes: [UInt8]) -> Int? {
        let n = bytes.count
        var i = 0
        while i < n {
            let lead = bytes[i]
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF      // range of the second byte
            switch lead {
            case 0x00...0x7F: i += 1; continue
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F                // no surrogates
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F                // nothing above U+10FFFF
            default: return i
            }
            guard i + length <= n else { return i }
            guard bytes[i + 1] >= low, bytes[i + 1] <= high else { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
