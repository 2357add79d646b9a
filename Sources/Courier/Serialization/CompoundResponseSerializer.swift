// CompoundResponseSerializer: AFCompoundResponseSerializer. Members are tried in order, each with
// its own validation; the first that produces a value without an error wins. A member that
// succeeds with no value (JSON's empty body) does not win, but means the compound does not fail.
// When every member fails, the LAST member's error is thrown.
//
// AFNetworking differs: it returns the first non-nil object even when that member also reported
// an error, and falls back to plain validation (returning the data) when none produced an
// object. Courier keeps values and errors apart (docs/serializers.md).

import CourierBytes

/// AFCompoundResponseSerializer: tries serializers in order; the first that produces a value
/// without error wins; when all fail, the last error is thrown.
public struct CompoundResponseSerializer: ResponseSerializer {
    /// Acceptable status codes for the compound's own validation (default nil: each member
    /// validates for itself).
    public var acceptableStatusCodes: Set<Int>? = nil
    /// Acceptable media types for the compound's own validation (default nil).
    public var acceptableContentTypes: Set<String>? = nil

    private var members: [@Sendable (HTTPResponseHead, ByteBuffer) throws(ResponseSerializationError) -> (any Sendable)?]

    /// Creates a compound of serializers, tried in order.
    public init() { members = [] }

    /// Appends a serializer; it validates and parses with its own settings.
    /// - Parameter serializer: the serializer.
    public mutating func append<S: ResponseSerializer>(_ serializer: S) {
        members.append { head, body throws(ResponseSerializationError) in
            let value = try serializer.serialize(head: head, body: body)
            // An Optional that is nil (JSON's empty body) produces no value.
            if let optional = value as? any OptionalProtocol, optional.isNone { return nil }
            return value
        }
    }

    /// The number of member serializers.
    public var count: Int { members.count }

    /// Runs the members in order.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the first value produced without error, or nil when a member succeeded with no
    ///   value and none produced one.
    /// - Throws: the last member's error when every member failed.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> (any Sendable)? {
        var lastError: ResponseSerializationError?
        var anySucceeded = false
        for member in members {
            do {
                if let value = try member(head, body) { return value }
                anySucceeded = true
            } catch {
                lastError = error
            }
        }
        if !anySucceeded, let lastError { throw lastError }
        return nil
    }
}

/// Lets the compound tell a nil Optional from a value.
protocol OptionalProtocol { var isNone: Bool { get } }
extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
