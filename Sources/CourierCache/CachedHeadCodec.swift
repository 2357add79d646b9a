// CachedHeadCodec: the on-disk form of a stored head (docs/cache.md "Disk format"). A text block:
//
//   courier-cache-entry 1 LF
//   status SP reason LF
//   times SP requestTime SP responseTime SP bodyLength LF
//   vary SP name [SP value]   LF      (one per Vary field; no value: absent in the request)
//   field SP name SP value    LF      (one per response field, in order)
//   end LF
//
// Values may hold spaces but never LF or CR (field values never do; the encoder refuses heads that
// would). The decoder reads the whole file and returns nil for anything not exactly this shape —
// a truncated or corrupt head is a miss, never served.

import CourierHTTP1

/// Encodes and decodes stored heads.
public enum CachedHeadCodec {
    private static let magic = "courier-cache-entry 1"

    /// The head as bytes; nil when a value holds CR or LF (it cannot be written faithfully).
    /// - Parameter head: the stored head.
    /// - Returns: the file's bytes.
    public static func encode(_ head: CachedResponseHead) -> [UInt8]? {
        func clean(_ s: String) -> Bool { !s.utf8.contains(0x0A) && !s.utf8.contains(0x0D) }
        var text = magic + "\n"
        guard clean(head.reason) else { return nil }
        text += "status \(head.status) \(head.reason)\n"
        text += "times \(head.requestTime) \(head.responseTime) \(head.bodyLength)\n"
        for field in head.vary {
            guard clean(field.name), !field.name.contains(" ") else { return nil }
            if let value = field.value {
                guard clean(value) else { return nil }
                text += "vary \(field.name) \(value)\n"
            } else {
                text += "vary \(field.name)\n"
            }
        }
        for field in head.headers.fields {
            guard clean(field.name), clean(field.value), !field.name.contains(" "), !field.name.isEmpty else { return nil }
            text += "field \(field.name) \(field.value)\n"
        }
        text += "end\n"
        return Array(text.utf8)
    }

    /// The head a file holds, or nil when it is not a complete, well-formed head.
    /// - Parameter bytes: the file's bytes.
    /// - Returns: the head.
    public static func decode(_ bytes: [UInt8]) -> CachedResponseHead? {
        guard bytes.last == 0x0A else { return nil }
        let lines = bytes.dropLast().split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard lines.count >= 4, lines[0] == magic, lines.last == "end" else { return nil }
        let status = lines[1].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard status.count >= 2, status[0] == "status", let code = Int(status[1]), (200..<600).contains(code) else { return nil }
        let reason = status.count == 3 ? String(status[2]) : ""
        let times = lines[2].split(separator: " ", omittingEmptySubsequences: false)
        guard times.count == 4, times[0] == "times", let requestTime = Int64(times[1]), let responseTime = Int64(times[2]),
              let length = UInt64(times[3]) else { return nil }
        var vary: [VaryField] = []
        var fields: [(String, String)] = []
        for line in lines[3..<(lines.count - 1)] {
            let parts = line.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard parts.count >= 2, !parts[1].isEmpty else { return nil }
            switch parts[0] {
            case "vary":
                guard fields.isEmpty else { return nil }
                vary.append(VaryField(name: String(parts[1]), value: parts.count == 3 ? String(parts[2]) : nil))
            case "field":
                fields.append((String(parts[1]), parts.count == 3 ? String(parts[2]) : ""))
            default:
                return nil
            }
        }
        return CachedResponseHead(status: code, reason: reason, headers: HTTPHeaders(fields), requestTime: requestTime,
                                  responseTime: responseTime, vary: vary, bodyLength: length)
    }
}
