// Punycode: RFC 3492, the Bootstring parameters that turn a label of Unicode scalars into the
// letters, digits and hyphens after "xn--", and back.
//
// Both directions use checked arithmetic (RFC 3492 §6.4): an input whose deltas overflow 32 bits
// is an error, never a wrapped value. Decoding also refuses what could not have been encoded: a
// non-basic code point in the basic part, a digit that is not [a-z0-9] (either case), a value
// above U+10FFFF or a surrogate.

enum Punycode {
    private static let base: UInt32 = 36, tMin: UInt32 = 1, tMax: UInt32 = 26
    private static let skew: UInt32 = 38, damp: UInt32 = 700
    private static let initialBias: UInt32 = 72, initialN: UInt32 = 128
    private static let delimiter = UInt32(UInt8(ascii: "-"))

    /// RFC 3492 §6.1.
    private static func adapt(_ delta: UInt32, count: UInt32, firstTime: Bool) -> UInt32 {
        var delta = firstTime ? delta / damp : delta / 2
        delta += delta / count
        var k: UInt32 = 0
        while delta > ((base - tMin) * tMax) / 2 {
            delta /= base - tMin
            k += base
        }
        return k + (base - tMin + 1) * delta / (delta + skew)
    }

    private static func threshold(_ k: UInt32, _ bias: UInt32) -> UInt32 {
        k <= bias ? tMin : (k >= bias + tMax ? tMax : k - bias)
    }

    private static func digitValue(_ scalar: UInt32) -> UInt32? {
        switch scalar {
        case 0x30...0x39: return scalar - 0x30 + 26
        case 0x41...0x5A: return scalar - 0x41
        case 0x61...0x7A: return scalar - 0x61
        default: return nil
        }
    }

    private static func digit(_ value: UInt32) -> UInt32 {
        value < 26 ? value + 0x61 : value - 26 + 0x30
    }

    /// RFC 3492 §6.2: the scalars a Punycode string stands for, or nil when it is not one.
    static func decode(_ input: ArraySlice<UInt32>) -> [UInt32]? {
        var output: [UInt32] = []
        var start = input.startIndex
        // RFC 3492 §6.2: the delimiter is consumed only after at least one basic code point; a
        // leading "-" with none before it is read as a digit, and so fails (ICU does the same;
        // Python's codec drops it, which would let "xn---abc" stand for what "xn--abc" encodes).
        if let last = input.lastIndex(of: delimiter), last > input.startIndex {
            for scalar in input[..<last] {
                guard scalar < 0x80 else { return nil }
                output.append(scalar)
            }
            start = last + 1
        }
        var n = initialN, i: UInt32 = 0, bias = initialBias
        var position = start
        while position < input.endIndex {
            let oldI = i
            var w: UInt32 = 1
            var k = base
            while true {
                guard position < input.endIndex, let value = digitValue(input[position]) else { return nil }
                position += 1
                let (product, overflow) = value.multipliedReportingOverflow(by: w)
                guard !overflow else { return nil }
                let (sum, overflow2) = i.addingReportingOverflow(product)
                guard !overflow2 else { return nil }
                i = sum
                let t = threshold(k, bias)
                if value < t { break }
                let (nextW, overflow3) = w.multipliedReportingOverflow(by: base - t)
                guard !overflow3 else { return nil }
                w = nextW
                k += base
            }
            let count = UInt32(output.count + 1)
            bias = adapt(i - oldI, count: count, firstTime: oldI == 0)
            let (nextN, overflow) = n.addingReportingOverflow(i / count)
            guard !overflow else { return nil }
            n = nextN
            i %= count
            guard n <= 0x10FFFF, !(0xD800...0xDFFF).contains(n), n >= 0x80 else { return nil }
            output.insert(n, at: Int(i))
            i += 1
        }
        return output
    }

    /// RFC 3492 §6.3: the Punycode string for `input` (lower-case digits), or nil on overflow.
    static func encode(_ input: [UInt32]) -> [UInt32]? {
        var output: [UInt32] = input.filter { $0 < 0x80 }
        let basicCount = UInt32(output.count)
        var handled = basicCount
        if basicCount > 0 { output.append(delimiter) }
        var n = initialN, delta: UInt32 = 0, bias = initialBias
        let total = UInt32(input.count)
        while handled < total {
            guard let m = input.lazy.filter({ $0 >= n }).min() else { return nil }
            let (step, overflow) = (m - n).multipliedReportingOverflow(by: handled + 1)
            guard !overflow else { return nil }
            let (sum, overflow2) = delta.addingReportingOverflow(step)
            guard !overflow2 else { return nil }
            delta = sum
            n = m
            for scalar in input {
                if scalar < n {
                    let (next, overflow) = delta.addingReportingOverflow(1)
                    guard !overflow else { return nil }
                    delta = next
                }
                if scalar == n {
                    var q = delta
                    var k = base
                    while true {
                        let t = threshold(k, bias)
                        if q < t { break }
                        output.append(digit(t + (q - t) % (base - t)))
                        q = (q - t) / (base - t)
                        k += base
                    }
                    output.append(digit(q))
                    bias = adapt(delta, count: handled + 1, firstTime: handled == basicCount)
                    delta = 0
                    handled += 1
                }
            }
            delta += 1
            n += 1
        }
        return output
    }
}
