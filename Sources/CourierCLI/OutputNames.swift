// OutputNames: the names of the files -O and -J write (docs/cli.md "Output").
//
// -O takes the URL's last path segment (after the last "/" or "\", as curl splits it), without the
// query, percent-decoded. curl writes the segment undecoded (`a%20b.txt`); courier decodes it (a
// deliberate difference), and because a decoded name could then be a path, a name that is empty,
// "." or "..", or holds "/" or NUL is refused with 23 before anything is sent.
//
// -J takes the name the server gives in Content-Disposition (RFC 6266): `filename*` (RFC 8187:
// `UTF-8''na%C3%AFve.txt` or ISO-8859-1) wins over `filename` (a token or a quoted string); curl
// 7.88 reads `filename` only. Only the last path component is used (after "/" and "\"); a name
// that is then empty, "." or "..", or holds a control byte, is not used (the URL's name is).

import CourierBytes

enum OutputNames {
    /// The -O name of `uri`'s path, decoded; nil (with the reason) when there is none to use.
    static func remoteName(ofPath path: String) -> Result<String, CLIError> {
        var segment = Substring(path)
        if let slash = segment.lastIndex(of: "/") { segment = segment[segment.index(after: slash)...] }
        if let backslash = segment.lastIndex(of: "\\") { segment = segment[segment.index(after: backslash)...] }
        guard !segment.isEmpty else { return .failure(CLIError(23, "Remote file name has no length!")) }
        guard let bytes = try? PercentDecoding.bytes(String(segment)) else {
            return .failure(CLIError(23, "Remote file name \"\(printable(String(segment)))\" is not valid percent-encoding"))
        }
        let name = String(decoding: bytes, as: UTF8.self)
        if bytes.contains(0) || bytes.contains(UInt8(ascii: "/")) || name == "." || name == ".." || bytes.isEmpty {
            return .failure(CLIError(23, "Remote file name \"\(printable(String(segment)))\" decodes to \"\(printable(name))\", "
                                     + "which is not a file name: refused"))
        }
        return .success(name)
    }

    /// The file name a Content-Disposition value gives, basename only; nil when it gives none
    /// that can be used.
    static func contentDispositionName(_ value: String) -> String? {
        var filename: String?
        var extended: String?
        for (name, raw) in parameters(value) {
            switch ASCIICase.lowercased(name) {
            case "filename*": if extended == nil { extended = decodeExtendedValue(raw) }
            case "filename": if filename == nil { filename = raw }
            default: break
            }
        }
        for candidate in [extended, filename] {
            if let candidate, let base = basename(candidate) { return base }
        }
        return nil
    }

    /// The last path component of `name`; nil when it is empty, "." or "..", or holds a control
    /// byte.
    static func basename(_ name: String) -> String? {
        var base = Substring(name)
        if let slash = base.lastIndex(of: "/") { base = base[base.index(after: slash)...] }
        if let backslash = base.lastIndex(of: "\\") { base = base[base.index(after: backslash)...] }
        guard !base.isEmpty, base != ".", base != "..", !base.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else { return nil }
        return String(base)
    }

    /// The `;`-separated parameters after the disposition type, values unquoted.
    static func parameters(_ value: String) -> [(String, String)] {
        let bytes = Array(value.utf8)
        var result: [(String, String)] = []
        var i = 0
        // Skip the disposition type.
        while i < bytes.count && bytes[i] != UInt8(ascii: ";") { i += 1 }
        while i < bytes.count {
            i += 1  // past ";"
            while i < bytes.count && (bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t")) { i += 1 }
            let nameStart = i
            while i < bytes.count && bytes[i] != UInt8(ascii: "=") && bytes[i] != UInt8(ascii: ";") { i += 1 }
            var nameEnd = i
            while nameEnd > nameStart && (bytes[nameEnd - 1] == UInt8(ascii: " ") || bytes[nameEnd - 1] == UInt8(ascii: "\t")) { nameEnd -= 1 }
            let name = String(decoding: bytes[nameStart..<nameEnd], as: UTF8.self)
            guard i < bytes.count, bytes[i] == UInt8(ascii: "=") else { continue }
            i += 1
            while i < bytes.count && (bytes[i] == UInt8(ascii: " ") || bytes[i] == UInt8(ascii: "\t")) { i += 1 }
            var valueBytes: [UInt8] = []
            if i < bytes.count && bytes[i] == UInt8(ascii: "\"") {
                i += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
                    if bytes[i] == UInt8(ascii: "\\") && i + 1 < bytes.count { i += 1 }
                    valueBytes.append(bytes[i])
                    i += 1
                }
                // Past the closing quote, then to the next ";".
                while i < bytes.count && bytes[i] != UInt8(ascii: ";") { i += 1 }
            } else {
                let start = i
                while i < bytes.count && bytes[i] != UInt8(ascii: ";") { i += 1 }
                var end = i
                while end > start && (bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t")) { end -= 1 }
                valueBytes = Array(bytes[start..<end])
            }
            result.append((name, String(decoding: valueBytes, as: UTF8.self)))
        }
        return result
    }

    /// RFC 8187 ext-value: `charset'[language]'pct-encoded`, UTF-8 or ISO-8859-1; nil otherwise.
    static func decodeExtendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = ASCIICase.lowercased(String(parts[0]))
        guard let bytes = try? PercentDecoding.bytes(String(parts[2])) else { return nil }
        switch charset {
        case "utf-8":
            // Invalid UTF-8 is not a name to write.
            let decoded = String(decoding: bytes, as: UTF8.self)
            return Array(decoded.utf8) == bytes ? decoded : nil
        case "iso-8859-1":
            var scalars = String.UnicodeScalarView()
            for byte in bytes { scalars.append(Unicode.Scalar(byte)) }
            return String(scalars)
        default:
            return nil
        }
    }
}

/// Strict percent-decoding for file names: "%" must be followed by two hex digits.
enum PercentDecoding {
    struct Invalid: Error {}

    static func bytes(_ text: String) throws(Invalid) -> [UInt8] {
        let input = Array(text.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(input.count)
        var i = 0
        while i < input.count {
            if input[i] == UInt8(ascii: "%") {
                guard i + 2 < input.count, let high = hex(input[i + 1]), let low = hex(input[i + 2]) else { throw Invalid() }
                out.append(high << 4 | low)
                i += 3
            } else {
                out.append(input[i])
                i += 1
            }
        }
        return out
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
