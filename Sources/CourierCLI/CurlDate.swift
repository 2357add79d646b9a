// CurlDate: dates as curl reads and writes them — for -z/--time-cond (a date typed by a person) and
// -R/--remote-time (a Last-Modified field), with curl 7.88's parsedate rules, read and rewritten:
//
// - the text is split into words of letters and numbers (anything else separates), at most six;
// - letters: a weekday ("Sun" or "Sunday"), a month ("Nov"), or a time zone (GMT, UTC, CET, EST,
//   ..., the military letters A–Z), each at most once, case-insensitive;
// - digits: "HH:MM:SS" or "HH:MM" (the time), "+HHMM"/"-HHMM" (a zone, at most 1400), 8 digits
//   YYYYMMDD, a day of the month (1–31, the first small number), else the year (a two-digit year
//   is 19xx above 70, 20xx otherwise);
// - day, month and year are required; the time defaults to midnight, the zone to GMT.
//
// So RFC 9110's three HTTP-date forms parse ("Sun, 06 Nov 1994 08:49:37 GMT", "Sunday,
// 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994"), and so do "20231231", "1994 Nov 6",
// "Sun/Nov/6/94/GMT" and "12 Sep 2004 15:05:58 -0700". Written dates are IMF-fixdate (RFC 9110
// §5.6.7), as curl writes If-Modified-Since. Pure arithmetic: no clock, no time zone database.

import CourierBytes

enum CurlDate {
    private static let weekdays = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
    private static let weekdayNames = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]
    /// Zone names and their offset west of GMT in minutes (curl's table).
    private static let zones: [String: Int] = {
        var table: [String: Int] = [
            "gmt": 0, "utc": 0, "wet": 0, "bst": -60, "wat": 60, "ast": 240, "adt": 180, "est": 300, "edt": 240,
            "cst": 360, "cdt": 300, "mst": 420, "mdt": 360, "pst": 480, "pdt": 420, "yst": 540, "ydt": 480,
            "hst": 600, "hdt": 540, "cat": 600, "ahst": 600, "nt": 660, "idlw": 720, "cet": -60, "met": -60,
            "mewt": -60, "mest": -120, "cest": -120, "mesz": -120, "fwt": -60, "fst": -120, "eet": -120,
            "wast": -420, "wadt": -480, "cct": -480, "jst": -540, "east": -600, "eadt": -660, "gst": -600,
            "nzt": -720, "nzst": -720, "nzdt": -780, "idle": -720,
        ]
        // Military zones with curl's signs: A–I and K–M +1 … +12 hours, N–Y -1 … -12, Z is GMT.
        let first = Array("abcdefghiklm"), second = Array("nopqrstuvwxy")
        for (i, c) in first.enumerated() { table[String(c)] = (i + 1) * 60 }
        for (i, c) in second.enumerated() { table[String(c)] = -(i + 1) * 60 }
        table["z"] = 0
        return table
    }()

    /// Seconds since 1970-01-01T00:00:00Z for `text`, or nil when curl would not accept it.
    static func parse(_ text: String) -> Int64? {
        let b = Array(text.utf8)
        var i = 0
        var weekday = -1, month = -1, day = -1, hour = -1, minute = -1, second = -1, year = -1
        var zone: Int? = nil  // seconds to add
        var expectDay = true
        var parts = 0
        func isAlnum(_ c: UInt8) -> Bool { ASCII.isAlphanumeric(c) }
        while i < b.count && parts < 6 {
            while i < b.count && !isAlnum(b[i]) { i += 1 }
            guard i < b.count else { break }
            if ASCII.isLetter(b[i]) {
                var j = i
                while j < b.count && ASCII.isLetter(b[j]) && j - i < 32 { j += 1 }
                let word = String(decoding: b[i..<j].map { $0 | 0x20 }, as: UTF8.self)
                var found = false
                if j - i < 32 {
                    if weekday == -1, let index = (word.count > 3 ? weekdayNames : weekdays).firstIndex(of: word) {
                        weekday = index
                        found = true
                    }
                    if !found, month == -1, word.count == 3, let index = months.firstIndex(of: word) {
                        month = index
                        found = true
                    }
                    if !found, zone == nil, let minutes = zones[word] {
                        zone = minutes * 60
                        found = true
                    }
                }
                guard found else { return nil }
                i = j
            } else {
                // "HH:MM:SS" or "HH:MM" (sscanf's %02d: at most two digits each).
                if second == -1, let (h, m, s, length) = clock(b, i) {
                    hour = h; minute = m; second = s
                    i += length
                    parts += 1
                    continue
                }
                var j = i
                var value = 0
                while j < b.count && ASCII.isDigit(b[j]) {
                    value = value * 10 + Int(b[j] - UInt8(ascii: "0"))
                    if value > Int(Int32.max) { return nil }
                    j += 1
                }
                let digits = j - i
                var found = false
                if zone == nil, digits == 4, value <= 1400, i > 0, b[i - 1] == UInt8(ascii: "+") || b[i - 1] == UInt8(ascii: "-") {
                    let offset = (value / 100 * 60 + value % 100) * 60
                    zone = b[i - 1] == UInt8(ascii: "+") ? -offset : offset
                    found = true
                }
                if digits == 8, year == -1, month == -1, day == -1 {
                    year = value / 10000
                    month = (value % 10000) / 100 - 1
                    day = value % 100
                    found = true
                }
                if !found && expectDay && day == -1 {
                    if value > 0 && value < 32 {
                        day = value
                        found = true
                    }
                    expectDay = false
                }
                if !found && !expectDay && year == -1 {
                    year = value
                    found = true
                    if year < 100 { year += year > 70 ? 1900 : 2000 }
                    if day == -1 { expectDay = true }
                }
                guard found else { return nil }
                i = j
            }
            parts += 1
        }
        if second == -1 { hour = 0; minute = 0; second = 0 }
        guard day != -1, month != -1, year != -1 else { return nil }
        guard day <= 31, month >= 0, month <= 11, hour <= 23, minute <= 59, second <= 60 else { return nil }
        let seconds = CivilDate.daysFromCivil(year: year, month: month + 1, day: day) * 86400
            + Int64(hour * 3600 + minute * 60 + second)
        return seconds + Int64(zone ?? 0)
    }

    /// "HH:MM:SS" or "HH:MM" at `i`, each part one or two digits: the values and the length.
    private static func clock(_ b: [UInt8], _ i: Int) -> (Int, Int, Int, Int)? {
        func twoDigits(_ at: Int) -> (Int, Int)? {
            var j = at
            var value = 0
            while j < b.count && j - at < 2 && ASCII.isDigit(b[j]) {
                value = value * 10 + Int(b[j] - UInt8(ascii: "0"))
                j += 1
            }
            return j > at ? (value, j) : nil
        }
        guard let (h, afterHour) = twoDigits(i), afterHour < b.count, b[afterHour] == UInt8(ascii: ":"),
              let (m, afterMinute) = twoDigits(afterHour + 1) else { return nil }
        if afterMinute < b.count, b[afterMinute] == UInt8(ascii: ":"), let (s, afterSecond) = twoDigits(afterMinute + 1) {
            return (h, m, s, afterSecond - i)
        }
        return (h, m, 0, afterMinute - i)
    }

    /// IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT".
    static func format(_ seconds: Int64) -> String {
        var days = seconds / 86400
        var rest = seconds % 86400
        if rest < 0 { rest += 86400; days -= 1 }
        let (year, month, day) = CivilDate.civilFromDays(Int64(days))
        let weekday = ((Int(days) % 7) + 7 + 3) % 7  // 1970-01-01 was a Thursday (index 3 from Monday)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : String(n) }
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        let monthNames = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var yearText = String(year)
        while yearText.count < 4 { yearText = " " + yearText }
        return "\(names[weekday]), \(two(day)) \(monthNames[month - 1]) \(yearText) \(two(Int(rest / 3600))):\(two(Int(rest % 3600 / 60))):\(two(Int(rest % 60))) GMT"
    }
}
