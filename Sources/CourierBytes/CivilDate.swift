// Day numbers of the proleptic Gregorian calendar, shared by the three date formats the package
// reads and writes (JSON timestamps, cookie dates, curl's -z dates): one copy of the arithmetic.

/// Conversions between civil dates and days since 1970-01-01 (Howard Hinnant's `days_from_civil`
/// and `civil_from_days`, exact for every year an `Int64` of days can hold).
package enum CivilDate {
    /// Days since 1970-01-01 of a proleptic Gregorian date.
    /// - Parameters:
    ///   - year: the year (astronomical: 0 is 1 BC).
    ///   - month: 1–12.
    ///   - day: 1–31.
    /// - Returns: the day number (negative before 1970).
    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)  // March is 0
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day number (the inverse of `daysFromCivil`).
    /// - Parameter days: days since 1970-01-01.
    /// - Returns: year, month (1–12) and day (1–31).
    package static func civilFromDays(_ days: Int64) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }
}
