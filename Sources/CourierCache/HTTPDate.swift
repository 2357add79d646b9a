// HTTPDate: the three HTTP-date forms a recipient reads (RFC 9110 §5.6.7) and the one it writes.
//
//   IMF-fixdate  = day-name "," SP date1 SP time-of-day SP GMT    ; Sun, 06 Nov 1994 08:49:37 GMT
//   rfc850-date  = day-name-l "," SP date2 SP time-of-day SP GMT  ; Sunday, 06-Nov-94 08:49:37 GMT
//   asctime-date = day-name SP date3 SP time-of-day SP year       ; Sun Nov  6 08:49:37 1994
//
// Strict in shape (single spaces, two-digit hours, a comma, "GMT"), case-insensitive in names as
// RFC 9110 §5.6.7 allows. The day name is checked for shape, not against the date. A two-digit
// year (rfc850) more than 50 years ahead of `now` is the most recent past year with those digits.
// Anything else is nil — and an unreadable Expires is a time in the past (RFC 9111 §5.3).

import CourierBytes

/// Parsing and formatting HTTP-date values, in seconds since 1970-01-01 UTC.
public enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    private static let shortDays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let longDays = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
    private static let dayNames = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]  // 1970-01-01 was a Thursday

    /// Parses an HTTP-date.
    /// - Parameters:
    ///   - text: the field value (surrounding whitespace allowed).
    ///   - now: seconds since the epoch, for rfc850's two-digit years.
    /// - Returns: seconds since the epoch, or nil when it is not an HTTP-date.
    public static func parse(_ text: String, now: Int64) -> Int64? {
        var bytes = Array(text.utf8)
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes.removeLast() }
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes.removeFirst() }
        let lower = String(decoding: bytes.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
        if let comma = lower.firstIndex(of: ",") {
            let day = String(lower[..<comma])
            let rest = String(lower[lower.index(after: comma)...])
            if shortDays.contains(day) { return fixdate(rest) }
            if longDays.contains(day) { return rfc850(rest, now: now) }
            return nil
        }
        return asctime(lower)
    }

    /// Formats an IMF-fixdate.
    /// - Parameter seconds: seconds since the epoch.
    /// - Returns: e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    public static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86400 : (seconds - 86399) / 86400
        let second = seconds - days * 86400
        let (year, month, day) = CivilDate.civilFromDays(days)
        let weekday = dayNames[Int(((days % 7) + 7) % 7)]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let h = Int(second / 3600), m = Int(second % 3600 / 60), s = Int(second % 60)
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        return "\(weekday), \(two(day)) \(monthNames[month - 1]) \(yearText) \(two(h)):\(two(m)):\(two(s)) GMT"
    }

    /// `SP DD SP mon SP YYYY SP hh:mm:ss SP gmt` (after the comma).
    private static func fixdate(_ rest: String) -> Int64? {
        let parts = rest.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].isEmpty, parts[5] == "gmt",
              let day = digits(parts[1], count: 2), let month = months.firstIndex(of: String(parts[2])),
              let year = digits(parts[3], count: 4), let time = timeOfDay(parts[4]) else { return nil }
        return seconds(year: year, month: month + 1, day: day, time: time)
    }

    /// `SP DD-mon-YY SP hh:mm:ss SP gmt`.
    private static func rfc850(_ rest: String, now: Int64) -> Int64? {
        let parts = rest.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0].isEmpty, parts[3] == "gmt", let time = timeOfDay(parts[2]) else { return nil }
        let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
        guard date.count == 3, let day = digits(date[0], count: 2), let month = months.firstIndex(of: String(date[1])),
              let shortYear = digits(date[2], count: 2) else { return nil }
        // RFC 9110 §5.6.7: more than 50 years in the future → the most recent past such year.
        let nowYear = CivilDate.civilFromDays(now >= 0 ? now / 86400 : (now - 86399) / 86400).year
        var year = nowYear - nowYear % 100 + shortYear
        if year > nowYear + 50 { year -= 100 }
        return seconds(year: year, month: month + 1, day: day, time: time)
    }

    /// `mon SP (DD | SP D) SP hh:mm:ss SP YYYY` after `day-name SP`.
    private static func asctime(_ text: String) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        // "thu aug  8 02:01:18 2050" splits into 6 with an empty part for the padded day.
        var fields = parts
        guard fields.count == 5 || fields.count == 6, shortDays.contains(String(fields[0])) else { return nil }
        var dayText: Substring
        if fields.count == 6 {
            guard fields[2].isEmpty, fields[3].count == 1 else { return nil }
            dayText = fields[3]
            fields.remove(at: 2)
        } else {
            guard fields[2].count == 2 else { return nil }
            dayText = fields[2]
        }
        guard let month = months.firstIndex(of: String(fields[1])), let day = digits(dayText, count: dayText.count),
              let time = timeOfDay(fields[3]), let year = digits(fields[4], count: 4) else { return nil }
        return seconds(year: year, month: month + 1, day: day, time: time)
    }

    private static func digits(_ s: Substring, count: Int) -> Int? {
        guard s.utf8.count == count, count > 0 else { return nil }
        var value = 0
        for b in s.utf8 {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(b - UInt8(ascii: "0"))
        }
        return value
    }

    private static func timeOfDay(_ s: Substring) -> Int? {
        let parts = s.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, let h = digits(parts[0], count: 2), let m = digits(parts[1], count: 2),
              let sec = digits(parts[2], count: 2), h < 24, m < 60, sec <= 60 else { return nil }
        return h * 3600 + m * 60 + sec
    }

    private static func seconds(year: Int, month: Int, day: Int, time: Int) -> Int64? {
        guard day >= 1, day <= 31 else { return nil }
        let days = CivilDate.daysFromCivil(year: year, month: month, day: day)
        // 31 Apr, 29 Feb 2100: a date that does not exist is not a date.
        guard CivilDate.civilFromDays(days) == (year, month, day) else { return nil }
        return days * 86400 + Int64(time)
    }
}
