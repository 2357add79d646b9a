// Trace: curl's -v lines on stderr, from the session's task events. Request and response head
// lines keep their CRLF, as curl prints them ("> GET / HTTP/1.1\r\n", "< HTTP/1.1 200 OK\r\n",
// "> \r\n" for the blank line); information lines start with "* " and end with "\n".

import Courier
import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierPosix

enum Trace {
    /// The stderr text for one event (empty for none).
    static func text(for event: TaskEvent) -> String {
        switch event {
        case .connected(let host, let port, let address, let reused, let tls):
            if reused { return "* Re-using existing connection with host \(host)\n" }
            let ip = address.map(Trace.addressWithoutPort) ?? host
            var text = "*   Trying \(bracketed(ip)):\(port)...\n* Connected to \(host) (\(ip)) port \(port)\n"
            if tls { text += "* TLS handshake done (ALPN http/1.1)\n" }
            return text
        case .requestHead(let bytes):
            return prefixedLines(bytes.readableString, prefix: "> ")
        case .responseHead(let info):
            return prefixedLines(headText(info), prefix: "< ")
        case .redirect(_, let to, let status):
            return "* Issue another request to this URL: '\(to.redactedDescription)' (\(status))\n"
        case .retry:
            return ""  // curl's warning line, printed by the observer unless -s
        case .cache:
            return ""  // the CLI has no cache (curl has none)
        case .resumed, .suspended:
            return ""  // curl has no pause lines
        case .cookieStored(let cookie, let replaced):
            // curl's line: the domain without a leading dot, the expiry in Unix seconds (0: a
            // session cookie).
            return "* \(replaced ? "Replaced" : "Added") cookie \(cookie.name)=\"\(cookie.value)\" for domain \(cookie.domain), "
                + "path \(cookie.path), expire \(cookie.expires ?? 0)\n"
        }
    }

    /// curl's words for why it retries (tool_operate.c): ": timeout", ": connection refused",
    /// ": HTTP error", or "(retrying all errors)".
    static func retryProblem(_ reason: RetryReason) -> String {
        switch reason {
        case .timedOut, .connectFailed: return ": timeout"
        case .connectionRefused: return ": connection refused"
        case .status: return ": HTTP error"
        case .connectionClosed, .otherError: return "(retrying all errors)"
        }
    }

    /// The response head as it came on the wire (status line, fields, blank line), for -i, -I
    /// and the trace.
    static func headText(_ head: HTTPResponseHead) -> String {
        var text = "HTTP/\(head.version.major).\(head.version.minor) \(head.status)"
        text += head.reason.isEmpty ? "\r\n" : " \(head.reason)\r\n"
        for (name, value) in head.headers { text += "\(name): \(value)\r\n" }
        return text + "\r\n"
    }

    /// Every CRLF-terminated line of `text` with `prefix`, the CRLF kept.
    static func prefixedLines(_ text: String, prefix: String) -> String {
        var out = ""
        var rest = Substring(text)
        while let end = rest.firstRange(of: "\r\n") {
            out += prefix + rest[..<end.lowerBound] + "\r\n"
            rest = rest[end.upperBound...]
        }
        if !rest.isEmpty { out += prefix + rest + "\r\n" }
        return out
    }

    /// "127.0.0.1:80" → "127.0.0.1", "[::1]:80" → "::1"; text without a port is returned as is.
    static func addressWithoutPort(_ address: String) -> String {
        if address.hasPrefix("["), let close = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<close])
        }
        let colons = address.filter { $0 == ":" }.count
        guard colons == 1, let colon = address.lastIndex(of: ":") else { return address }
        return String(address[..<colon])
    }

    private static func bracketed(_ host: String) -> String {
        host.contains(":") && !host.hasPrefix("[") ? "[" + host + "]" : host
    }
}
