// ClosedErrorCode: the one shape of every public error code (issue 15 §4). A code is a struct
// over its stable name — `public let rawValue: String` — whose values are the static constants
// its module declares through an internal initializer, so no caller can make a code that no part
// of Courier throws. This protocol gives each code type what it used to repeat: the failable
// `init?(rawValue:)` that answers only the names in `all` (a name read back from a log gives its
// code), and `description` (the name). scripts/check_error_codes.py holds every public `Code` to
// this shape. CourierPool, which depends on nothing, spells the same shape out by hand.

/// A closed set of error codes, each named by a stable string.
///
/// An error type's `Code` conforms by storing its name and listing its constants in ``all``;
/// the constants are made by an initializer internal to their module, so the set stays closed:
///
/// ```swift
/// public struct Code: ClosedErrorCode {
///     public let rawValue: String
///     public static let all: [Code] = [.timedOut, .refused]
///     init(_ rawValue: String) { self.rawValue = rawValue }
///
///     public static let timedOut = Code("timedOut")
///     public static let refused = Code("refused")
/// }
/// ```
///
/// Compare codes (`==`, `switch`), never messages; `rawValue` and `description` give the name.
public protocol ClosedErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {
    /// Every code of the set: what `init?(rawValue:)` answers.
    static var all: [Self] { get }
}

extension ClosedErrorCode {
    /// The code named `rawValue` when it is one of ``all``, else nil: the set is closed (no other
    /// code can be made), and a name read back from a log gives its code.
    /// - Parameter rawValue: the name.
    public init?(rawValue: String) {
        guard let code = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = code
    }

    /// The code's name.
    public var description: String { rawValue }
}
