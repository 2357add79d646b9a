// Timestamp: RFC 3339 parsing and formatting, and the decoding/encoding strategies.

import Testing
@testable import CourierJSON

private let validDates: [(String, Int64, Int32)] = [
    ("1970-01-01T00:00:00Z", 0, 0),
    ("2024-01-02T03:04:05Z", 1_704_164_645, 0),
    ("2024-01-02t03:04:05z", 1_704_164_645, 0),
    ("2024-01-02T03:04:05.5Z", 1_704_164_645, 500_000_000),
    ("2024-01-02T03:04:05.123456789Z", 1_704_164_645, 123_456_789),
    ("2024-01-02T03:04:05.1234567899Z", 1_704_164_645, 123_456_789),  // beyond ns: truncated
    ("2024-01-02T03:04:05+01:00", 1_704_164_645 - 3600, 0),
    ("2024-01-02T03:04:05-05:30", 1_704_164_645 + 5 * 3600 + 1800, 0),
    ("2024-01-02T03:04:05.25+00:00", 1_704_164_645, 250_000_000),
    ("2024-02-29T00:00:00Z", 1_709_164_800, 0),
    ("2000-02-29T12:00:00Z", 951_825_600, 0),
    ("1969-12-31T23:59:59Z", -1, 0),
    ("1969-12-31T23:59:59.75Z", -1, 750_000_000),
    ("0000-01-01T00:00:00Z", -62_167_219_200, 0),
    ("9999-12-31T23:59:59Z", 253_402_300_799, 0),
]

@Test("RFC 3339 date-times parse", arguments: validDates)
private func parsesISO8601(_ text: String, _ seconds: Int64, _ nanoseconds: Int32) {
    #expect(Timestamp(iso8601: text) == Timestamp(seconds: seconds, nanoseconds: nanoseconds))
}

@Test func invalidDateTimesAreRejected() {
    for text in ["", "2024-01-02", "2024-01-02T03:04:05", "2024-01-02T03:04Z", "2024-13-01T00:00:00Z",
                 "2024-00-01T00:00:00Z", "2023-02-29T00:00:00Z", "1900-02-29T00:00:00Z", "2024-04-31T00:00:00Z",
                 "2024-01-00T00:00:00Z", "2024-01-02T24:00:00Z", "2024-01-02T23:60:00Z", "2024-01-02T23:59:60Z",
                 "2024-01-02 03:04:05Z", "2024-01-02T03:04:05.Z", "2024-01-02T03:04:05+01", "2024-01-02T03:04:05+0100",
                 "2024-01-02T03:04:05+24:00", "2024-01-02T03:04:05+01:60", "2024-01-02T03:04:05Zjunk",
                 "24-01-02T03:04:05Z", "+2024-01-02T03:04:05Z", "2024-1-02T03:04:05Z", "２０２４-01-02T03:04:05Z"] {
        #expect(Timestamp(iso8601: text) == nil, "\(text)")
    }
}

@Test func formatting() {
    #expect(Timestamp(seconds: 0).iso8601String() == "1970-01-01T00:00:00Z")
    #expect(Timestamp(seconds: 1_704_164_645, nanoseconds: 500_000_000).iso8601String() == "2024-01-02T03:04:05.5Z")
    #expect(Timestamp(seconds: 1_704_164_645, nanoseconds: 1).iso8601String() == "2024-01-02T03:04:05.000000001Z")
    #expect(Timestamp(seconds: -1, nanoseconds: 750_000_000).iso8601String() == "1969-12-31T23:59:59.75Z")
    #expect(Timestamp(seconds: 253_402_300_800).iso8601String() == nil)  // year 10000
    #expect(Timestamp(seconds: Int64.min).iso8601String() == nil)
    #expect(Timestamp(seconds: Int64.max).iso8601String() == nil)
    // Round trip over a spread of instants, including every day of a leap year.
    var t: Int64 = -62_167_219_200
    while t < 253_402_300_799 {
        let stamp = Timestamp(seconds: t, nanoseconds: Int32(truncatingIfNeeded: t & 0x3FFF_FFFF) % 1_000_000_000)
        #expect(Timestamp(iso8601: stamp.iso8601String()!) == stamp)
        t += 86_400 * 97 + 3_607
    }
    for day in 0..<366 {
        let stamp = Timestamp(seconds: 1_704_067_200 + Int64(day) * 86_400 + 43_200)
        #expect(Timestamp(iso8601: stamp.iso8601String()!) == stamp)
    }
}

@Test func secondsConversion() {
    #expect(Timestamp(secondsSince1970: 1.5) == Timestamp(seconds: 1, nanoseconds: 500_000_000))
    #expect(Timestamp(secondsSince1970: -1.5) == Timestamp(seconds: -2, nanoseconds: 500_000_000))
    #expect(Timestamp(secondsSince1970: 0.9999999999) == Timestamp(seconds: 1, nanoseconds: 0))
    #expect(Timestamp(secondsSince1970: .nan) == nil)
    #expect(Timestamp(secondsSince1970: .infinity) == nil)
    #expect(Timestamp(secondsSince1970: 1e19) == nil)
    #expect(Timestamp(seconds: 3, nanoseconds: 250_000_000).secondsSince1970 == 3.25)
    #expect(Timestamp(seconds: 1) < Timestamp(seconds: 1, nanoseconds: 1))
}

private struct Event: Codable, Equatable { var at: Timestamp; var maybe: Timestamp? }

@Test func decodingStrategies() throws {
    var decoder = CourierJSONDecoder()
    #expect(try decoder.decode(Event.self, from: #"{"at":1704164645.25}"#)
            == Event(at: Timestamp(seconds: 1_704_164_645, nanoseconds: 250_000_000), maybe: nil))
    decoder.timestampDecodingStrategy = .millisecondsSince1970
    #expect(try decoder.decode(Event.self, from: #"{"at":1500,"maybe":null}"#).at == Timestamp(seconds: 1, nanoseconds: 500_000_000))
    decoder.timestampDecodingStrategy = .iso8601
    let event = try decoder.decode(Event.self, from: #"{"at":"2024-01-02T03:04:05+01:00","maybe":"1970-01-01T00:00:00Z"}"#)
    #expect(event == Event(at: Timestamp(seconds: 1_704_164_645 - 3600), maybe: Timestamp(seconds: 0)))
    do {
        _ = try decoder.decode(Event.self, from: #"{"at":"2024-13-02T03:04:05Z"}"#)
        Issue.record("bad date accepted")
    } catch let DecodingError.dataCorrupted(context) {
        #expect(context.codingPath.map(\.stringValue) == ["at"])
    }
    #expect(throws: DecodingError.self) { try decoder.decode(Event.self, from: #"{"at":0}"#) }
}

@Test func encodingStrategies() throws {
    let event = Event(at: Timestamp(seconds: 1_704_164_645, nanoseconds: 500_000_000), maybe: Timestamp(seconds: 7))
    var encoder = CourierJSONEncoder()
    #expect(String(decoding: try encoder.encode(event), as: UTF8.self) == #"{"at":1704164645.5,"maybe":7}"#)
    encoder.timestampEncodingStrategy = .millisecondsSince1970
    #expect(String(decoding: try encoder.encode(event), as: UTF8.self) == #"{"at":1704164645500,"maybe":7000}"#)
    encoder.timestampEncodingStrategy = .iso8601
    #expect(String(decoding: try encoder.encode(event), as: UTF8.self)
            == #"{"at":"2024-01-02T03:04:05.5Z","maybe":"1970-01-01T00:00:07Z"}"#)
    #expect(throws: EncodingError.self) { try encoder.encode(Timestamp(seconds: Int64.max)) }
    var decoder = CourierJSONDecoder()
    decoder.timestampDecodingStrategy = .iso8601
    #expect(try decoder.decode(Event.self, from: try encoder.encode(event)) == event)
}
