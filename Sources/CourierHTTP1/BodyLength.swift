// What a caller says about the body it is about to send, and what an encoder decided from it.
//
// The encoders turn a `BodyLength` into message framing (RFC 9112 §6): Content-Length for a known
// length, chunked transfer coding for an unknown one on HTTP/1.1, and — for a response to an
// HTTP/1.0 peer only — a body delimited by closing the connection. The decision comes back as
// `EncodedHead.Framing`, so the I/O shell knows how to write the body that follows the head.

import CourierBytes

/// The length of the body that will follow a message head.
public enum BodyLength: Sendable, Hashable {
    /// There is no body.
    case none
    /// The body has exactly this many bytes (sent with Content-Length).
    case known(UInt64)
    /// The length is not known before sending (chunked on HTTP/1.1; a response to an HTTP/1.0
    /// peer is delimited by closing the connection).
    case unknown
}

/// A message head ready to write, and the framing the body that follows must use.
public struct EncodedHead: Sendable, Equatable {
    /// How the bytes of the body that follows the head are delimited (RFC 9112 §6.3).
    public enum Framing: Sendable, Hashable {
        /// No body bytes follow the head (no body, a response to HEAD, 1xx, 204, 304, or a 2xx
        /// answer to CONNECT).
        case noBody
        /// Exactly this many body bytes follow (Content-Length).
        case contentLength(UInt64)
        /// The body follows in chunked transfer coding: write it through `ChunkedEncoder`.
        case chunked
        /// The body runs until the connection is closed (a response to an HTTP/1.0 peer with an
        /// unknown length; `Connection: close` was sent).
        case untilClose
    }

    /// The head: start line, fields and the empty line, in one buffer piece.
    public var bytes: GatherList
    /// How the body that follows must be framed.
    public var framing: Framing

    /// Creates an encoded head.
    /// - Parameters:
    ///   - bytes: the head's bytes.
    ///   - framing: the framing of the body that follows.
    public init(bytes: GatherList, framing: Framing) {
        self.bytes = bytes
        self.framing = framing
    }
}

/// The framing field an encoder adds after the caller's fields.
enum AddedFramingField: Equatable {
    case nothing
    case contentLength(UInt64)
    case chunked

    /// The bytes this field takes on the wire, CRLF included.
    var encodedCount: Int {
        switch self {
        case .nothing: return 0
        case .contentLength(let n): return FramingLines.contentLengthPrefix.utf8CodeUnitCount + ASCIIInteger.decimal(n).count + 2
        case .chunked: return FramingLines.chunked.utf8CodeUnitCount
        }
    }
}

/// The fixed text of the fields encoders add.
enum FramingLines {
    static let contentLengthPrefix: StaticString = "Content-Length: "
    static let chunked: StaticString = "Transfer-Encoding: chunked\r\n"
    static let connectionClose: StaticString = "Connection: close\r\n"
    static let hostPrefix: StaticString = "Host: "
}

extension FieldSummary {
    /// Checks the caller's Content-Length and Transfer-Encoding fields against `body` and decides
    /// which framing field to add (RFC 9112 §6.1–§6.3).
    /// - Parameters:
    ///   - body: what the caller said about the body.
    ///   - chunkedAllowed: whether chunked coding may be used (both ends speak HTTP/1.1).
    ///   - zeroLengthNeedsField: whether `.none` must still be announced as `Content-Length: 0`
    ///     (POST/PUT/PATCH requests; responses, which would otherwise be close-delimited).
    /// - Returns: the field to add after the caller's fields.
    /// - Throws: `.conflictingFraming` naming the caller's field that contradicts `body`.
    func framingField(for body: BodyLength, chunkedAllowed: Bool, zeroLengthNeedsField: Bool) throws(HTTPEncodingError) -> AddedFramingField {
        if let te = transferEncoding {
            // RFC 9112 §6.1: chunked does not exist in HTTP/1.0; a message whose length is known
            // (or that has no body) must not carry Transfer-Encoding, since it overrides
            // Content-Length at the recipient.
            guard chunkedAllowed, case .unknown = body else { throw conflict(te.index, te.name) }
            // RFC 9112 §6.1: chunked is applied once and last.
            guard te.endsWithChunked, te.chunkedCount == 1 else { throw conflict(te.index, te.name) }
        }
        switch body {
        case .none:
            if let cl = contentLength {
                guard cl.value == 0 else { throw conflict(cl.index, cl.name) }
                return .nothing
            }
            return zeroLengthNeedsField ? .contentLength(0) : .nothing
        case .known(let length):
            if let cl = contentLength {
                guard cl.value == length else { throw conflict(cl.index, cl.name) }
                return .nothing
            }
            return .contentLength(length)
        case .unknown:
            if let cl = contentLength { throw conflict(cl.index, cl.name) }
            guard chunkedAllowed else { return .nothing }
            return transferEncoding == nil ? .chunked : .nothing
        }
    }

    /// Rejects any caller framing field: for messages that never have a body or framing fields
    /// (1xx, 204, a 2xx answer to CONNECT — RFC 9110 §8.6, RFC 9112 §6.1).
    func requireNoFramingFields() throws(HTTPEncodingError) {
        if let cl = contentLength { throw conflict(cl.index, cl.name) }
        if let te = transferEncoding { throw conflict(te.index, te.name) }
    }

    private func conflict(_ index: Int, _ name: String) -> HTTPEncodingError {
        HTTPEncodingError(.conflictingFraming, fieldIndex: index, fieldName: name)
    }
}
