// RFC 6265 §5.1.1 edge cases beyond the http-state tables: the ranges the algorithm checks, dates
// that do not exist, two-digit years, token order, and the IMF-fixdate writer.

import CourierCookies
import Testing

@Suite("cookie dates")
struct CookieDateTests {
    @Test("parses, or fails, as the algorithm says", arguments: [
        ("Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("Sunday, 06-Nov-94 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("Sun Nov  6 08:49:37 1994", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("1994 Nov 6 8:49:37", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("06 NOVEMBER 1994 08:49:37", "Sun, 06 Nov 1994 08:49:37 GMT"),
        ("Thu, 01 Jan 1970 00:00:00 GMT", "Thu, 01 Jan 1970 00:00:00 GMT"),
        ("Tue, 29 Feb 2000 12:00:00 GMT", "Tue, 29 Feb 2000 12:00:00 GMT"),
        ("Fri, 31 Dec 9999 23:59:59 GMT", "Fri, 31 Dec 9999 23:59:59 GMT"),
        ("Mon, 01 Jan 1601 00:00:00 GMT", "Mon, 01 Jan 1601 00:00:00 GMT"),
        ("01 Jan 69 00:00:00", "Tue, 01 Jan 2069 00:00:00 GMT"),
        ("01 Jan 70 00:00:00", "Thu, 01 Jan 1970 00:00:00 GMT"),
    ])
    func parses(input: String, expected: String) {
        #expect(CookieDate.parse(input).map(CookieDate.format) == expected)
    }

    @Test("fails", arguments: [
        "", "garbage", "Sun, 06 Nov 1994 GMT", "Sun, 06 Nov 08:49:37 GMT", "Sun, Nov 1994 08:49:37 GMT",
        "Sun, 06 1994 08:49:37 GMT", "Sun, 31 Apr 2020 00:00:00 GMT", "Sat, 29 Feb 2100 00:00:00 GMT",
        "Sun, 00 Nov 1994 08:49:37 GMT", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1600 08:49:37 GMT",
        "Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 08:60:37 GMT", "Sun, 06 Nov 1994 08:49:60 GMT",
        "Sun, 06 Nov 1994 08:49:377 GMT", "Sun, 06 Nov 12345 08:49:37 GMT", "Sun, 06 Nov 100 08:49:37 GMT",
    ])
    func fails(input: String) {
        #expect(CookieDate.parse(input) == nil)
    }

    @Test("formats dates before 1970 and far after")
    func formats() {
        #expect(CookieDate.format(-1) == "Wed, 31 Dec 1969 23:59:59 GMT")
        #expect(CookieDate.format(784_111_777) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(CookieDate.format(253_402_300_799) == "Fri, 31 Dec 9999 23:59:59 GMT")
    }
}
