// CompoundResponseSerializer: AFCompoundResponseSerializer. Members are tried in order, each with
// its own validation; the first that produces a value without an error wins. A member that
// succeeds with no value (JSON's empty body) does not win. When no member produces a value, the
// compound falls back to AFHTTPResponseSerializer, as AFNetworking's does: its own validation
// (status 200–299 by default, any content type) and the body bytes as the value — a 200
// `text/plain` body given to a JSON-only compound comes back as data, not as an error.
//
// AFNetworking differs in one thing: it returns the first non-nil object even when that member
// also reported an error. Courier keeps values and errors apart: such a member does not win
// (docs/serializers.md).

import CourierBytes

/// AFCompoundResponseSerializer: tries serializers in order; the first that produces a value
/// without error wins; when none does, the body itself is the value, after the compound's own
/// validation (AFHTTPResponseSerializer's).
public struct CompoundResponseSerializer: ResponseSerializer {
    /// Acceptable status codes of the fallback, when no member produced a value (default
    /// 200–299, AFHTTPResponseSerializer's); members validate with their own.
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types of the fallback (default nil: any).
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

    /// Runs the members in order, then falls back to the body itself.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the first value a member produced without error; else the body (a `ByteBuffer`).
    /// - Throws: never itself: `serialize(head:body:)` validates the fallback with the compound's
    ///   settings (-1011 carrying the body as `value`, -1016) before this runs.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> (any Sendable)? {
        for member in members {
            if let value = try? member(head, body) { return value }
        }
        return body
    }

    /// Runs the members in order, each with its own validation; when none produces a value,
    /// validates with the compound's own settings and returns the body (AFNetworking's fallback
    /// to AFHTTPResponseSerializer).
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the first value a member produced without error, else the body.
    /// - Throws: `ResponseSerializationError` from the fallback's validation: -1011 (carrying the
    ///   body as `value`) or -1016.
    public func serialize(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> (any Sendable)? {
        for member in members {
            if let value = try? member(head, body) { return value }
        }
        var fallback = DataResponseSerializer()
        fallback.acceptableStatusCodes = acceptableStatusCodes
        fallback.acceptableContentTypes = acceptableContentTypes
        return try fallback.serialize(head: head, body: body)
    }
}

/// Lets the compound tell a nil Optional from a value.
protocol OptionalProtocol { var isNone: Bool { get } }
extension Optional: OptionalProtocol {
    var isNone: Bool { self == nil }
}
