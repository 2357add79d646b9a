// JSONEscapes: decoding string content with escapes (RFC 8259 §7) into a caller's region, for the
// vector paths (the tape builder, the sanitizer). The content was validated by stage 1 (UTF-8, no
// raw control bytes); this checks the escapes themselves and returns nil for any problem — the
// reference scanner then names it.

import CourierBytes

enum JSONEscapes {
    /// Decodes `base[from..<to]` into `output`.
    /// - Returns: the number of bytes written (at most `to - from`), or nil for an invalid escape
    ///   or an unpaired surrogate escape.
    static func decode(_ base: UnsafePointer<UInt8>, from: Int, to end: Int, into output: UnsafeMutablePointer<UInt8>) -> Int? {
        var i = from
        var o = 0
        let backslash = ByteVector(repeating: UInt8(ascii: "\\"))
        while i < end {
            // Copy up to the next backslash, sixteen bytes at a time while they lie in the content.
            while i &+ 16 <= end {
                // SAFETY: i + 16 <= end; o + 16 <= i + 16 - from (decoding never grows), which the
                // caller's region of end - from bytes covers.
                let v = ByteVectors.load(base + i)
                ByteVectors.store(v, to: UnsafeMutableRawPointer(output + o))
                let lane = ByteVectors.firstLane(v .== backslash)
                i &+= lane
                o &+= lane
                if lane < 16 { break }
            }
            // SAFETY: i < end for every read below (checked).
            while i < end && base[i] != UInt8(ascii: "\\") {
                output[o] = base[i]
                i &+= 1
                o &+= 1
            }
            guard i < end else { break }
            guard i &+ 1 < end else { return nil }
            let escaped = base[i &+ 1]
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): output[o] = escaped
            case UInt8(ascii: "b"): output[o] = 0x08
            case UInt8(ascii: "f"): output[o] = 0x0C
            case UInt8(ascii: "n"): output[o] = 0x0A
            case UInt8(ascii: "r"): output[o] = 0x0D
            case UInt8(ascii: "t"): output[o] = 0x09
            case UInt8(ascii: "u"):
                guard let unit = hexQuad(base, at: i &+ 2, end: end) else { return nil }
                var scalar = UInt32(unit)
                var next = i &+ 6
                if unit & 0xFC00 == 0xD800 {
                    // A high surrogate must be followed at once by `\u` and a low surrogate.
                    guard next &+ 1 < end, base[next] == UInt8(ascii: "\\"), base[next &+ 1] == UInt8(ascii: "u"),
                          let low = hexQuad(base, at: next &+ 2, end: end), low & 0xFC00 == 0xDC00 else { return nil }
                    scalar = 0x10000 &+ ((UInt32(unit) & 0x3FF) &<< 10 | (UInt32(low) & 0x3FF))
                    next &+= 6
                } else if unit & 0xFC00 == 0xDC00 {
                    return nil
                }
                o &+= writeUTF8(scalar, to: output + o)
                i = next
                continue
            default:
                return nil
            }
            o &+= 1
            i &+= 2
        }
        return o
    }

    /// Four hexadecimal digits at `p`, or nil.
    @inline(__always)
    static func hexQuad(_ base: UnsafePointer<UInt8>, at p: Int, end: Int) -> UInt16? {
        guard p &+ 4 <= end else { return nil }
        var value: UInt16 = 0
        var i = 0
        while i < 4 {
            // SAFETY: p + i < end.
            let byte = base[p &+ i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte &- UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte &- UInt8(ascii: "a") &+ 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte &- UInt8(ascii: "A") &+ 10
            default: return nil
            }
            value = value &<< 4 | UInt16(digit)
            i &+= 1
        }
        return value
    }

    /// Writes the UTF-8 form of a scalar (never a surrogate) and returns its length. An escape is
    /// at least as long as its UTF-8 form (`\u0080` is 6 bytes for 2), so output never overtakes
    /// input.
    @inline(__always)
    static func writeUTF8(_ scalar: UInt32, to out: UnsafeMutablePointer<UInt8>) -> Int {
        // SAFETY: the caller's region has room (see above).
        switch scalar {
        case 0..<0x80:
            out[0] = UInt8(truncatingIfNeeded: scalar)
            return 1
        case 0x80..<0x800:
            out[0] = 0xC0 | UInt8(truncatingIfNeeded: scalar &>> 6)
            out[1] = 0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F)
            return 2
        case 0x800..<0x10000:
            out[0] = 0xE0 | UInt8(truncatingIfNeeded: scalar &>> 12)
            out[1] = 0x80 | UInt8(truncatingIfNeeded: (scalar &>> 6) & 0x3F)
            out[2] = 0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F)
            return 3
        default:
            out[0] = 0xF0 | UInt8(truncatingIfNeeded: scalar &>> 18)
            out[1] = 0x80 | UInt8(truncatingIfNeeded: (scalar &>> 12) & 0x3F)
            out[2] = 0x80 | UInt8(truncatingIfNeeded: (scalar &>> 6) & 0x3F)
            out[3] = 0x80 | UInt8(truncatingIfNeeded: scalar & 0x3F)
            return 4
        }
    }
}
