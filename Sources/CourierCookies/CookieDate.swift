// CookieDate: the cookie-date algorithm of RFC 6265 §5.1.1 (kept unchanged by
// draft-ietf-httpbis-layered-cookies, "Parse a Date"), and the IMF-fixdate form of RFC 9110 §5.6.7
// for display. Times are whole seconds since 1970-01-01T00:00:00Z (Unix time), proleptic Gregorian.
//
// The algorithm, as implemented below:
//
//   cookie-date     = *delimiter date-token-list *delimiter
//   date-token-list = date-token *( 1*delimiter date-token )
//   date-token      = 1*non-delimiter
//   delimiter       = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
//   non-delimiter   = %x00-08 / %x0A-1F / DIGIT / ":" / ALPHA / %x7F-FF
//   non-digit       = %x00-2F / %x3A-FF
//   day-of-month    = 1*2DIGIT [ non-digit *OCTET ]
//   month           = ( "jan" / "feb" / ... / "dec" ) *OCTET        (case-insensitive)
//   year            = 2*4DIGIT [ non-digit *OCTET ]
//   time            = hms-time [ non-digit *OCTET ]
//   hms-time        = time-field ":" time-field ":" time-field
//   time-field      = 1*2DIGIT
//
// Each token is tried, in order, as the first of time, day-of-month, month and year not yet found.
// Years 70–99 become 1970–1999 and 0–69 become 2000–2069. The date fails when a part is missing,
// the day is outside 1–31, the year before 1601, the hour above 23, the minute or second above 59,
// or the day does not exist in its month (31 April, 29 February of a common year).

import CourierBytes

/// RFC 6265 §5.1.1 cookie-date parsing and RFC 9110 IMF-fixdate formatting.
public enum CookieDate {
    /// Parses a cookie-date (an Expires attribute value).
    /// - Parameter text: the attribute value.
    /// - Returns: the time in seconds since the Unix epoch, or nil when the algorithm fails.
    public static func parse(_ text: String) -> Int64? {
        var text = text
        return text.withUTF8 { parse(bytes: $0) }
    }

    /// Parses a cookie-date given as bytes (see `parse(_:)`).
    /// - Parameter bytes: the attribute value's bytes.
    /// - Returns: seconds since the Unix epoch, or nil.
    public static func parse(bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        var time: (hour: Int, minute: Int, second: Int)?
        var day: Int?
        var month: Int?
        var year: Int?
        var index = 0
        let count = bytes.count
        while index < count {
            while index < count && isDelimiter(bytes[index]) { index += 1 }
            let start = index
            while index < count && !isDelimiter(bytes[index]) { index += 1 }
            guard index > start else { break }
            let token = UnsafeBufferPointer(rebasing: bytes[start..<index])
            if time == nil, let t = matchTime(token) {
                time = t
            } else if day == nil, let d = matchDigits(token, minimum: 1, maximum: 2) {
                day = d
            } else if month == nil, let m = matchMonth(token) {
                month = m
            } else if year == nil, let y = matchDigits(token, minimum: 2, maximum: 4) {
                year = y
            }
        }
        guard var year, let month, let day, let time else { return nil }
        if year >= 70 && year <= 99 { year += 1900 } else if year >= 0 && year <= 69 { year += 2000 }
        guard day >= 1, day <= 31, year >= 1601, time.hour <= 23, time.minute <= 59, time.second <= 59 else { return nil }
        guard day <= daysIn(month: month, year: year) else { return nil }
        let days = CivilDate.daysFromCivil(year: year, month: month, day: day)
        return days * 86_400 + Int64(time.hour * 3600 + time.minute * 60 + time.second)
    }

    /// The IMF-fixdate of a time (`Sun, 06 Nov 1994 08:49:37 GMT`), as Set-Cookie Expires and
    /// HTTP dates are written.
    /// - Parameter seconds: seconds since the Unix epoch.
    /// - Returns: the date text.
    public static func format(_ seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = CivilDate.civilFromDays(days)
        // 1970-01-01 was a Thursday.
        let weekday = Int(((days % 7) + 11) % 7)
        let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        var yearText = String(year)
        while yearText.utf8.count < 4 { yearText = "0" + yearText }
        return "\(weekdays[weekday]), \(two(day)) \(months[month - 1]) \(yearText) "
            + "\(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }

    // MARK: Tokens

    /// delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    @inline(__always)
    static func isDelimiter(_ b: UInt8) -> Bool {
        b == 0x09 || (b >= 0x20 && b <= 0x2F) || (b >= 0x3B && b <= 0x40) || (b >= 0x5B && b <= 0x60) || (b >= 0x7B && b <= 0x7E)
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// `minimum`…`maximum` DIGITs, then the end of the token or a non-digit.
    static func matchDigits(_ token: UnsafeBufferPointer<UInt8>, minimum: Int, maximum: Int) -> Int? {
        var value = 0
        var n = 0
        while n < token.count && n < maximum && isDigit(token[n]) {
            value = value * 10 + Int(token[n] &- UInt8(ascii: "0"))
            n += 1
        }
        guard n >= minimum else { return nil }
        if n < token.count && isDigit(token[n]) { return nil }
        return value
    }

    /// hms-time [ non-digit *OCTET ].
    static func matchTime(_ token: UnsafeBufferPointer<UInt8>) -> (hour: Int, minute: Int, second: Int)? {
        var index = 0
        var fields: [Int] = []
        fields.reserveCapacity(3)
        for field in 0..<3 {
            var value = 0
            var n = 0
            while index < token.count && n < 2 && isDigit(token[index]) {
                value = value * 10 + Int(token[index] &- UInt8(ascii: "0"))
                index += 1
                n += 1
            }
            guard n > 0 else { return nil }
            fields.append(value)
            if field < 2 {
                guard index < token.count && token[index] == UInt8(ascii: ":") else { return nil }
                index += 1
            }
        }
        if index < token.count && isDigit(token[index]) { return nil }
        return (fields[0], fields[1], fields[2])
    }

    /// The first three bytes name a month, in any case; anything may follow.
    static func matchMonth(_ token: UnsafeBufferPointer<UInt8>) -> Int? {
        guard token.count >= 3 else { return nil }
        let a = ASCIICase.lowercased(token[0]), b = ASCIICase.lowercased(token[1]), c = ASCIICase.lowercased(token[2])
        let names: [(UInt8, UInt8, UInt8)] = [
            (0x6A, 0x61, 0x6E), (0x66, 0x65, 0x62), (0x6D, 0x61, 0x72), (0x61, 0x70, 0x72), (0x6D, 0x61, 0x79), (0x6A, 0x75, 0x6E),
            (0x6A, 0x75, 0x6C), (0x61, 0x75, 0x67), (0x73, 0x65, 0x70), (0x6F, 0x63, 0x74), (0x6E, 0x6F, 0x76), (0x64, 0x65, 0x63),
        ]  // jan feb mar apr may jun jul aug sep oct nov dec
        for (i, name) in names.enumerated() where name.0 == a && name.1 == b && name.2 == c { return i + 1 }
        return nil
    }

    // MARK: Civil dates

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
