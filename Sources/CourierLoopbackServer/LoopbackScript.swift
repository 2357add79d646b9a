// Scripted raw replies: a test registers a closure for a path; the server reads the request (head
// and body, by its framing), hands it over, and performs the returned actions byte for byte, so a
// test can play a hostile or broken server (stalls, truncation, resets, garbage).

import CourierHTTP1

/// A complete request as the server received it, for a script.
public struct LoopbackRequest: Sendable {
    /// The method as sent.
    public var method: String
    /// The request target as sent (path and query).
    public var target: String
    /// The version of the request line.
    public var version: HTTPVersion
    /// The header fields, in order.
    public var headers: HTTPHeaders
    /// The body bytes (decoded from chunked if it was chunked).
    public var body: [UInt8]
    /// The 1-based index of this request on its connection.
    public var indexOnConnection: Int

    /// The target's path: everything before "?".
    public var path: String {
        if let q = target.firstIndex(of: "?") { return String(target[..<q]) }
        return target
    }
}

/// One step of a scripted reply.
public enum LoopbackAction: Sendable, Equatable {
    /// Send these bytes exactly (through TLS when the server uses it).
    case write([UInt8])
    /// Send `count` bytes of the server's "abc…z" pattern (large bodies without large arrays).
    case writePattern(count: Int)
    /// Wait this long before the next action.
    case pause(Duration)
    /// TLS only: send close_notify (a clean TLS close); on plain connections nothing happens.
    case closeNotify
    /// Close the TCP connection now, without a TLS close_notify.
    case close
    /// Abort the connection. CourierPosix has no SO_LINGER wrapper, so this is a close without a
    /// close_notify; kept as its own action so tests say what they mean.
    case reset
    /// Stop: send nothing more and never read again, but keep the connection open (until the peer
    /// closes it or the server shuts down).
    case stall
}

/// A scripted route: receives the request, returns the actions to perform in order. When the list
/// ends without `close`, `reset` or `stall`, the connection reads the next request (keep-alive).
public typealias LoopbackScript = @Sendable (LoopbackRequest) -> [LoopbackAction]

extension LoopbackAction {
    /// A complete response with a Content-Length body, as raw bytes.
    /// - Parameters:
    ///   - status: the status code.
    ///   - headers: extra header lines, each "Name: value".
    ///   - body: the body.
    /// - Returns: the action writing it.
    public static func response(status: Int = 200, headers: [String] = [], body: String = "") -> LoopbackAction {
        var text = "HTTP/1.1 \(status) \(ResponseHeadEncoder.standardReasonPhrase(for: status))\r\n"
        for line in headers { text += line + "\r\n" }
        text += "Content-Length: \(body.utf8.count)\r\n\r\n" + body
        return .write(Array(text.utf8))
    }

    /// Raw text (for heads and hand-made framing).
    /// - Parameter text: the bytes, as UTF-8.
    /// - Returns: the action writing it.
    public static func text(_ text: String) -> LoopbackAction { .write(Array(text.utf8)) }
}
