// PropertyListBinaryReader: Apple's binary property list, version 00 (`bplist00`), read without
// Foundation. The layout (CoreFoundation's CFBinaryPList.c documents it):
//
//   "bplist00"                               8-byte header
//   objects                                  each starts with a marker byte
//   offset table                             numObjects big-endian ints of offsetIntSize bytes:
//                                            the file offset of each object
//   trailer (last 32 bytes)                  6 unused, offsetIntSize (1), objectRefSize (1),
//                                            numObjects (8), topObject (8), offsetTableOffset (8)
//
// Markers (high nibble, low nibble n):
//   0x00 null   0x08 false   0x09 true
//   0x1n int of 2^n bytes (n ≤ 3; 8-byte ints are signed; a 16-byte int is taken when it fits Int64)
//   0x2n real of 2^n bytes (n = 2 float, 3 double)      0x33 date (double, seconds since 2001-01-01Z)
//   0x4n data   0x5n ASCII string   0x6n UTF-16BE string (n UTF-16 units)   0x8n UID of n+1 bytes
//   0xAn array of n refs   0xCn set of n refs (read as an array)   0xDn dict: n key refs, n value refs
// A low nibble of 0xF means the count follows as an int object (marker 0x1n, then the int).
//
// Invariants: every offset, count and reference is checked against the input before it is used
// (checked arithmetic, no trap on any input); an object that is being read cannot be entered
// again (a cycle is `.cycle`); nesting is bounded by `Limits.maxDepth` and the values produced by
// `Limits.maxValues` (an object referenced many times is expanded each time, so a small file
// could otherwise describe an exponentially large tree).

import CourierJSON

/// Reads one binary property list.
struct PropertyListBinaryReader {
    let bytes: [UInt8]
    let limits: PropertyListParser.Limits
    var offsetIntSize = 0
    var objectRefSize = 0
    var objectCount = 0
    var offsetTableOffset = 0
    var inProgress: [Bool] = []
    var produced = 0

    init(bytes: [UInt8], limits: PropertyListParser.Limits) {
        self.bytes = bytes
        self.limits = limits
    }

    private func bad(_ offset: Int?) -> PropertyListError { PropertyListError(.invalidBinary, offset: offset) }

    /// A big-endian unsigned integer of `size` (1...8) bytes at `offset`, bounds-checked against `end`.
    private func uint(at offset: Int, size: Int, end: Int) throws(PropertyListError) -> UInt64 {
        guard size >= 1, size <= 8, offset >= 0, offset <= end - size else { throw bad(offset) }
        var value: UInt64 = 0
        for k in 0..<size { value = value << 8 | UInt64(bytes[offset + k]) }
        return value
    }

    mutating func read() throws(PropertyListError) -> PropertyListValue {
        guard bytes.starts(with: Array("bplist00".utf8)) else { throw PropertyListError(.unknownFormat, offset: 0) }
        // Header, at least one marker byte, the trailer.
        guard bytes.count >= 8 + 1 + 32 else { throw bad(bytes.count) }
        let trailer = bytes.count - 32
        offsetIntSize = Int(bytes[trailer + 6])
        objectRefSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetIntSize) else { throw bad(trailer + 6) }
        guard (1...8).contains(objectRefSize) else { throw bad(trailer + 7) }
        let count = try uint(at: trailer + 8, size: 8, end: bytes.count)
        let top = try uint(at: trailer + 16, size: 8, end: bytes.count)
        let table = try uint(at: trailer + 24, size: 8, end: bytes.count)
        guard count >= 1, count <= UInt64(trailer) else { throw bad(trailer + 8) }
        guard top < count else { throw bad(trailer + 16) }
        guard table >= 9, table <= UInt64(trailer) else { throw bad(trailer + 24) }
        objectCount = Int(count)
        offsetTableOffset = Int(table)
        let (tableBytes, overflow) = objectCount.multipliedReportingOverflow(by: offsetIntSize)
        guard !overflow, offsetTableOffset <= trailer - tableBytes else { throw bad(trailer + 8) }
        inProgress = [Bool](repeating: false, count: objectCount)
        return try object(Int(top), depth: 0)
    }

    /// The file offset of object `ref`; objects live between the header and the offset table.
    private func offset(of ref: Int) throws(PropertyListError) -> Int {
        guard ref >= 0, ref < objectCount else { throw bad(nil) }
        let value = try uint(at: offsetTableOffset + ref * offsetIntSize, size: offsetIntSize, end: bytes.count - 32)
        guard value >= 8, value < UInt64(offsetTableOffset) else { throw bad(offsetTableOffset + ref * offsetIntSize) }
        return Int(value)
    }

    /// The count in a marker's low nibble, or the int object that follows for 0xF; returns the
    /// count and the offset of the first content byte.
    private func count(marker: UInt8, at start: Int) throws(PropertyListError) -> (Int, Int) {
        let nibble = Int(marker & 0x0F)
        guard nibble == 0x0F else { return (nibble, start + 1) }
        let intMarker = try uint(at: start + 1, size: 1, end: offsetTableOffset)
        guard intMarker & 0xF0 == 0x10, intMarker & 0x0F <= 3 else { throw bad(start + 1) }
        let size = 1 << Int(intMarker & 0x0F)
        let value = try uint(at: start + 2, size: size, end: offsetTableOffset)
        guard value <= UInt64(offsetTableOffset) else { throw bad(start + 2) }
        return (Int(value), start + 2 + size)
    }

    /// `count` items of `width` bytes from `start` must fit before the offset table.
    private func checkSpan(_ start: Int, count: Int, width: Int) throws(PropertyListError) {
        let (length, overflow) = count.multipliedReportingOverflow(by: width)
        guard !overflow, start <= offsetTableOffset - length else { throw bad(start) }
    }

    private mutating func object(_ ref: Int, depth: Int) throws(PropertyListError) -> PropertyListValue {
        produced += 1
        guard produced <= limits.maxValues else { throw PropertyListError(.limitExceeded) }
        let start = try offset(of: ref)
        let marker = bytes[start]
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw bad(start)
            }
        case 0x1:
            let exponent = Int(marker & 0x0F)
            switch exponent {
            case 0, 1, 2:
                return .integer(Int64(try uint(at: start + 1, size: 1 << exponent, end: offsetTableOffset)))
            case 3:
                return .integer(Int64(bitPattern: try uint(at: start + 1, size: 8, end: offsetTableOffset)))
            case 4:
                // 16-byte ints: accepted only when the value fits Int64 (high half all zero).
                let high = try uint(at: start + 1, size: 8, end: offsetTableOffset)
                let low = try uint(at: start + 9, size: 8, end: offsetTableOffset)
                guard high == 0, low <= UInt64(Int64.max) else { throw bad(start) }
                return .integer(Int64(low))
            default: throw bad(start)
            }
        case 0x2:
            switch marker & 0x0F {
            case 2: return .real(Double(Float(bitPattern: UInt32(try uint(at: start + 1, size: 4, end: offsetTableOffset)))))
            case 3: return .real(Double(bitPattern: try uint(at: start + 1, size: 8, end: offsetTableOffset)))
            default: throw bad(start)
            }
        case 0x3:
            guard marker == 0x33 else { throw bad(start) }
            let seconds = Double(bitPattern: try uint(at: start + 1, size: 8, end: offsetTableOffset))
            // 978307200 = seconds from 1970-01-01 to 2001-01-01 (CFAbsoluteTime's epoch).
            guard let timestamp = Timestamp(secondsSince1970: seconds + 978_307_200) else { throw bad(start) }
            return .date(timestamp)
        case 0x4:
            let (length, content) = try count(marker: marker, at: start)
            try checkSpan(content, count: length, width: 1)
            return .data(Array(bytes[content..<content + length]))
        case 0x5:
            let (length, content) = try count(marker: marker, at: start)
            try checkSpan(content, count: length, width: 1)
            let slice = bytes[content..<content + length]
            if let bad = slice.firstIndex(where: { $0 >= 0x80 }) { throw self.bad(bad) }
            return .string(String(decoding: slice, as: UTF8.self))
        case 0x6:
            let (units, content) = try count(marker: marker, at: start)
            try checkSpan(content, count: units, width: 2)
            var scalars = String.UnicodeScalarView()
            var k = 0
            while k < units {
                let unit = UInt16(bytes[content + 2 * k]) << 8 | UInt16(bytes[content + 2 * k + 1])
                k += 1
                if (0xD800...0xDBFF).contains(unit) {
                    guard k < units else { throw bad(content + 2 * k - 2) }
                    let next = UInt16(bytes[content + 2 * k]) << 8 | UInt16(bytes[content + 2 * k + 1])
                    guard (0xDC00...0xDFFF).contains(next) else { throw bad(content + 2 * k) }
                    k += 1
                    scalars.append(Unicode.Scalar(0x10000 + (UInt32(unit - 0xD800) << 10) + UInt32(next - 0xDC00))!)
                } else if let scalar = Unicode.Scalar(unit) {
                    scalars.append(scalar)
                } else {
                    throw bad(content + 2 * k - 2)
                }
            }
            return .string(String(scalars))
        case 0x8:
            return .uid(try uint(at: start + 1, size: Int(marker & 0x0F) + 1, end: offsetTableOffset))
        case 0xA, 0xC, 0xD:
            guard depth < limits.maxDepth else { throw PropertyListError(.limitExceeded, offset: start) }
            guard !inProgress[ref] else { throw PropertyListError(.cycle, offset: start) }
            inProgress[ref] = true
            defer { inProgress[ref] = false }
            let (length, content) = try count(marker: marker, at: start)
            let isDictionary = marker >> 4 == 0xD
            try checkSpan(content, count: isDictionary ? length * 2 : length, width: objectRefSize)
            func childRef(_ index: Int) throws(PropertyListError) -> Int {
                let value = try uint(at: content + index * objectRefSize, size: objectRefSize, end: offsetTableOffset)
                guard value < UInt64(objectCount) else { throw bad(content + index * objectRefSize) }
                return Int(value)
            }
            if isDictionary {
                var entries: [(key: String, value: PropertyListValue)] = []
                entries.reserveCapacity(min(length, 1024))
                for index in 0..<length {
                    guard case .string(let key) = try object(try childRef(index), depth: depth + 1) else {
                        throw bad(content + index * objectRefSize)
                    }
                    entries.append((key: key, value: try object(try childRef(length + index), depth: depth + 1)))
                }
                return .dictionary(entries)
            }
            var values: [PropertyListValue] = []
            values.reserveCapacity(min(length, 1024))
            for index in 0..<length { values.append(try object(try childRef(index), depth: depth + 1)) }
            return .array(values)
        default:
            throw bad(start)
        }
    }
}
