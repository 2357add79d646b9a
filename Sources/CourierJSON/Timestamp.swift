// Timestamp: a point in time as seconds and nanoseconds since 1970-01-01T00:00:00Z, with an
// RFC 3339 (ISO 8601 profile) parser and formatter — what the Codable bridge needs in place of
// Foundation's Date and ISO8601DateFormatter.
//
// ISO 8601 text accepted (RFC 3339 §5.6 `date-time`):
//   YYYY-MM-DD ("T" / "t") hh:mm:ss [ "." 1*DIGIT ] ( "Z" / "z" / ("+" / "-") hh:mm )
// Fields are range-checked (month 1–12, day within the month of that (proleptic Gregorian) year,
// hour 0–23, minute 0–59, second 0–59; offset hours 0–23, minutes 0–59). A leap second (:60) is
// rejected: a count of seconds since 1970 has no slot for it (POSIX time). Fraction digits beyond
// nine (nanoseconds) are accepted and truncated. Formatting writes `Z`, and a fraction only when
// the nanoseconds are not zero, with trailing zeros trimmed, so parse(format(t)) == t.
//
// The calendar arithmetic is the days-from-civil algorithm of Howard Hinnant's "chrono-compatible
// low-level date algorithms" (eras of 400 years, exact in integers).

import CourierBytes

/// A point in time: whole seconds since the Unix epoch (1970-01-01T00:00:00Z, leap seconds not
/// counted) plus nanoseconds.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Whole seconds since 1970-01-01T00:00:00Z (negative before it).
    public var seconds: Int64
    /// Nanoseconds after `seconds`, in 0..<1_000_000_000.
    public var nanoseconds: Int32

    /// Creates a timestamp.
    /// - Parameters:
    ///   - seconds: whole seconds since the epoch.
    ///   - nanoseconds: 0..<1_000_000_000.
    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        precondition(nanoseconds >= 0 && nanoseconds < 1_000_000_000, "nanoseconds out of 0..<1e9")
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// Creates a timestamp from fractional seconds since the epoch, rounded to the nearest
    /// nanosecond.
    /// - Parameter secondsSince1970: the seconds.
    /// - Returns: nil for NaN, infinities and values beyond the range of `Int64` seconds.
    public init?(secondsSince1970: Double) {
        guard secondsSince1970.isFinite,
              secondsSince1970 >= -9.2e18, secondsSince1970 <= 9.2e18 else { return nil }
        // Floor and round by integer conversion: Double.rounded() lowers to libm's floor/round,
        // which a pure module must not require consumers to link.
        var seconds = Int64(secondsSince1970)  // toward zero; exact, |value| < 2^63
        if Double(seconds) > secondsSince1970 { seconds -= 1 }
        let fraction = (secondsSince1970 - Double(seconds)) * 1e9  // in [0, 1e9]
        var nanos = Int64(fraction + 0.5)
        if nanos >= 1_000_000_000 {
            seconds += 1
            nanos -= 1_000_000_000
        }
        self.init(seconds: seconds, nanoseconds: Int32(nanos))
    }

    /// The timestamp as fractional seconds since the epoch (rounded to the nearest double).
    public var secondsSince1970: Double {
        Double(seconds) + Double(nanoseconds) / 1e9
    }

    /// Orders by time.
    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// The RFC 3339 form, or `seconds.nanoseconds` when the year is outside 0000–9999.
    public var description: String {
        iso8601String() ?? "Timestamp(seconds: \(seconds), nanoseconds: \(nanoseconds))"
    }

    // MARK: ISO 8601 / RFC 3339

    /// Parses an RFC 3339 date-time (see the file header for the exact grammar).
    /// - Parameter text: e.g. `2024-01-02T03:04:05Z`, `2024-01-02T03:04:05.25+01:30`.
    /// - Returns: nil when the text is not a valid date-time.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let d = bytes[i] &- UInt8(ascii: "0")
                guard d < 10 else { return nil }
                value = value * 10 + Int(d)
                i += 1
            }
            return value
        }
        func expect(_ accepted: UInt8...) -> Bool {
            guard i < bytes.count, accepted.contains(bytes[i]) else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")),
              let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T"), UInt8(ascii: "t")),
              let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2), expect(UInt8(ascii: ":")),
              let second = number(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= Timestamp.daysIn(month: month, year: year),
              hour < 24, minute < 60, second < 60 else { return nil }
        var nanos = 0
        if i < bytes.count && bytes[i] == UInt8(ascii: ".") {
            i += 1
            var digits = 0
            while i < bytes.count, bytes[i] &- UInt8(ascii: "0") < 10 {
                if digits < 9 { nanos = nanos * 10 + Int(bytes[i] &- UInt8(ascii: "0")) }
                digits += 1
                i += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 9)..<9 { nanos *= 10 }
        }
        var offsetSeconds = 0
        if expect(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            let sign = bytes[i] == UInt8(ascii: "-") ? -1 : 1
            i += 1
            guard let offsetHours = number(2), expect(UInt8(ascii: ":")), let offsetMinutes = number(2),
                  offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard i == bytes.count else { return nil }
        let days = CivilDate.daysFromCivil(year: year, month: month, day: day)
        // Local time minus the offset is UTC: 03:04+01:00 is 02:04Z.
        let total = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        self.init(seconds: total, nanoseconds: Int32(nanos))
    }

    /// The RFC 3339 form in UTC: `2024-01-02T03:04:05Z`, with `.` and the nanoseconds (trailing
    /// zeros trimmed) when they are not zero.
    /// - Returns: the text, or nil when the year is outside 0000–9999 (RFC 3339 has four digits).
    public func iso8601String() -> String? {
        // Floor division, safe for Int64.min.
        var days = seconds / 86_400
        var secondOfDay = Int(seconds % 86_400)
        if secondOfDay < 0 {
            days -= 1
            secondOfDay += 86_400
        }
        let (year, month, day) = CivilDate.civilFromDays(days)
        guard (0...9999).contains(year) else { return nil }
        var text = ""
        func pad(_ value: Int, _ width: Int) {
            let digits = String(value)
            text += String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        pad(year, 4); text += "-"; pad(month, 2); text += "-"; pad(day, 2); text += "T"
        pad(secondOfDay / 3600, 2); text += ":"; pad(secondOfDay / 60 % 60, 2); text += ":"; pad(secondOfDay % 60, 2)
        if nanoseconds != 0 {
            var fraction = Int(nanoseconds)
            var width = 9
            while fraction % 10 == 0 {
                fraction /= 10
                width -= 1
            }
            text += "."
            pad(fraction, width)
        }
        text += "Z"
        return text
    }

    // MARK: Calendar arithmetic (proleptic Gregorian)

    static func isLeap(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}

extension Timestamp: Codable {
    /// Decodes seconds since 1970 (a number). `CourierJSONDecoder` applies its
    /// `timestampDecodingStrategy` instead.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a non-number or an out-of-range value.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let value = try container.decode(Double.self)
        guard let timestamp = Timestamp(secondsSince1970: value) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(value) is not a representable timestamp.")
        }
        self = timestamp
    }

    /// Encodes seconds since 1970 as a number. `CourierJSONEncoder` applies its
    /// `timestampEncodingStrategy` instead.
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSince1970)
    }
}
