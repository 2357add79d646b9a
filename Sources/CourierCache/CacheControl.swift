// CacheControl: the directives of Cache-Control field lines (RFC 9111 §5.2), as a private cache
// reads them from a request or a response.
//
// Grammar (RFC 9111 §5.2, RFC 9110 §5.6):
//   Cache-Control   = #cache-directive
//   cache-directive = token [ "=" ( token / quoted-string ) ]
//
// Rules kept here:
// - Names are case-insensitive; every field line is one list, in order (several lines are the
//   same as one line joined with commas, RFC 9110 §5.3).
// - A directive that occurs twice: the first occurrence wins (RFC 9111 §4.2.1: "either the first
//   occurrence should be used or the response should be considered stale").
// - A list element that does not match the grammar (`max-age =3600`, `max-age= 3600`) is ignored,
//   and so is whatever sits inside a quoted string (`ext="max-age=5"` names no max-age).
// - delta-seconds (RFC 9111 §1.2.2) are digits only; a quoted value is accepted (recipients may),
//   leading zeros are fine, anything else ("3600.0", "a1", "'1'") is invalid; a value too large
//   for the cache is 2147483648. An invalid max-age on a response makes it stale (lifetime 0);
//   on a request it is ignored.

/// The parsed Cache-Control directives of one message.
public struct CacheControl: Sendable, Hashable {
    /// Each directive as (lower-cased name, argument with quotes removed), in order; duplicates kept.
    public private(set) var directives: [(name: String, argument: String?)] = []

    /// No directives.
    public init() {}

    /// Parses every `Cache-Control` field line of `values`, in order.
    /// - Parameter values: the field values (one per field line).
    public init(fieldValues values: [String]) {
        for value in values { Self.parseList(Array(value.utf8), into: &directives) }
    }

    /// Whether a directive of that (lower-case) name is present.
    /// - Parameter name: the directive name, lower case.
    /// - Returns: true when present.
    public func contains(_ name: String) -> Bool { directives.contains { $0.name == name } }

    /// The argument of the first directive of that name; `.some(nil)` when it has none.
    /// - Parameter name: the directive name, lower case.
    /// - Returns: nil when absent.
    public func argument(_ name: String) -> String?? {
        guard let first = directives.first(where: { $0.name == name }) else { return nil }
        return .some(first.argument)
    }

    /// The delta-seconds of the first directive of that name: nil when absent, `.invalid` when its
    /// argument is not delta-seconds.
    /// - Parameter name: the directive name, lower case.
    /// - Returns: the value.
    public func seconds(_ name: String) -> DeltaSeconds? {
        guard let argument = argument(name) else { return nil }
        guard let text = argument, let value = DeltaSeconds.parse(text) else { return .invalid }
        return .value(value)
    }

    /// `max-age`, `no-cache`, `no-store`, `must-revalidate`, `public`, `private` and the request
    /// directives by name.
    public var maxAge: DeltaSeconds? { seconds("max-age") }
    /// `no-store` (request or response).
    public var noStore: Bool { contains("no-store") }
    /// `no-cache` (request or response; a response's field-name list is treated as plain no-cache).
    public var noCache: Bool { contains("no-cache") }
    /// `must-revalidate` (or `proxy-revalidate`'s stronger sibling; a private cache ignores that one).
    public var mustRevalidate: Bool { contains("must-revalidate") }
    /// `only-if-cached` (request).
    public var onlyIfCached: Bool { contains("only-if-cached") }
    /// `min-fresh` (request).
    public var minFresh: DeltaSeconds? { seconds("min-fresh") }
    /// `max-stale` (request): `.some(nil)` when given without a value (any staleness).
    public var maxStale: DeltaSeconds?? {
        guard let argument = argument("max-stale") else { return nil }
        guard let text = argument else { return .some(nil) }
        return .some(DeltaSeconds.parse(text).map { .value($0) } ?? .invalid)
    }

    /// Two values are equal when they hold the same directives in the same order.
    public static func == (lhs: CacheControl, rhs: CacheControl) -> Bool {
        lhs.directives.count == rhs.directives.count
            && zip(lhs.directives, rhs.directives).allSatisfy { $0.name == $1.name && $0.argument == $1.argument }
    }

    /// Hashes the directives in order.
    public func hash(into hasher: inout Hasher) {
        for d in directives { hasher.combine(d.name); hasher.combine(d.argument) }
    }

    // MARK: Parsing

    private static func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 }

    /// tchar (RFC 9110 §5.6.2).
    static func isTokenByte(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(b)
        }
    }

    /// One list: elements separated by commas outside quoted strings.
    private static func parseList(_ bytes: [UInt8], into out: inout [(name: String, argument: String?)]) {
        var i = 0
        let n = bytes.count
        while i < n {
            // One element: from i to the next comma outside quotes.
            var end = i
            var quoted = false
            var escaped = false
            while end < n {
                let b = bytes[end]
                if quoted {
                    if escaped { escaped = false } else if b == UInt8(ascii: "\\") { escaped = true } else if b == UInt8(ascii: "\"") { quoted = false }
                } else if b == UInt8(ascii: "\"") {
                    quoted = true
                } else if b == UInt8(ascii: ",") {
                    break
                }
                end += 1
            }
            if let directive = parseElement(bytes[i..<end]) { out.append(directive) }
            i = end + 1
        }
    }

    /// `token [ "=" ( token / quoted-string ) ]` with optional whitespace around the element only.
    private static func parseElement(_ slice: ArraySlice<UInt8>) -> (name: String, argument: String?)? {
        var start = slice.startIndex
        var end = slice.endIndex
        while start < end, isSpace(slice[start]) { start += 1 }
        while end > start, isSpace(slice[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        var i = start
        while i < end, isTokenByte(slice[i]) { i += 1 }
        guard i > start else { return nil }
        let name = String(decoding: slice[start..<i].map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
        if i == end { return (name, nil) }
        guard slice[i] == UInt8(ascii: "=") else { return nil }
        i += 1
        guard i < end else { return nil }
        if slice[i] == UInt8(ascii: "\"") {
            var value: [UInt8] = []
            i += 1
            var closed = false
            while i < end {
                let b = slice[i]
                if b == UInt8(ascii: "\\"), i + 1 < end {
                    value.append(slice[i + 1])
                    i += 2
                    continue
                }
                if b == UInt8(ascii: "\"") {
                    closed = true
                    i += 1
                    break
                }
                value.append(b)
                i += 1
            }
            guard closed, i == end else { return nil }
            return (name, String(decoding: value, as: UTF8.self))
        }
        let valueStart = i
        while i < end, isTokenByte(slice[i]) { i += 1 }
        guard i == end else { return nil }
        return (name, String(decoding: slice[valueStart..<end], as: UTF8.self))
    }
}

/// A delta-seconds argument (RFC 9111 §1.2.2).
public enum DeltaSeconds: Sendable, Hashable {
    /// A valid number of seconds (at most 2147483648).
    case value(Int64)
    /// Present but not delta-seconds.
    case invalid

    /// The greatest value a cache needs to represent (RFC 9111 §1.2.2).
    public static let maximum: Int64 = 2_147_483_648

    /// Parses `1*DIGIT`, saturating at `maximum`.
    /// - Parameter text: the argument.
    /// - Returns: the seconds, or nil when not only digits.
    public static func parse(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for b in text.utf8 {
            guard b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") else { return nil }
            value = min(maximum, value * 10 + Int64(b - UInt8(ascii: "0")))
        }
        return value
    }
}
