// The built-in routes of the loopback server (docs/loopback-server.md), the per-request context
// that collects the body, and the body producer that hands out slices of the shared pattern
// buffer a bounded amount at a time (so an 8 GiB download never holds more than a few hundred KiB
// of output).

import CourierBytes
import CourierCompression
import CourierHTTP1

/// Which route a request goes to.
enum Route {
    case bytes(UInt64)
    case chunked(UInt64, chunkSize: Int)
    case upload
    case echo
    case status(Int)
    case close
    /// `/gzip/N`, `/deflate/N`: compressible text, compressed whole, with Content-Length.
    case compressed(UInt64, ContentEncoder.Format)
    /// `/gzip-chunked/N`: compressible text, compressed as it streams, unknown length.
    case gzipChunked(UInt64)
    /// `/bomb/N`: gzip of N zero bytes, compressed as it streams, unknown length.
    case bomb(UInt64)
    /// `/bad-gzip`: Content-Encoding gzip over data no decoder accepts.
    case badGzip
    case script(LoopbackScript)
    case notFound
    case methodNotAllowed
    case badRequest

    var isScript: Bool {
        if case .script = self { return true }
        return false
    }
}

/// What a built-in route answers.
struct Reply {
    var status: Int
    var headers: HTTPHeaders = HTTPHeaders()
    var length: BodyLength = .none
    var producer: BodyProducer?
    var closes = false
}

/// One request in progress: what the route needs from the head (owned copies: the head's storage
/// is the connection's input buffer) and the body read so far.
struct RequestContext {
    let method: HTTPMethod
    let methodText: String
    let target: String
    let version: HTTPVersion
    let headers: HTTPHeaders
    let route: Route
    let closeRequested: Bool
    let index: Int
    var decoder: BodyDecoder
    var received: UInt64 = 0
    var body: [UInt8] = []
    private let collectsBody: Bool

    init(head: RequestHead, framing: BodyFraming, index: Int, scripts: [String: LoopbackScript]) {
        method = head.method
        methodText = head.methodBytes.readableString
        target = head.target.readableString
        version = head.version
        headers = head.headers.headers
        self.index = index
        decoder = BodyDecoder(framing: framing)
        // RFC 9112 §9.3: close when asked, and for HTTP/1.0 unless keep-alive was asked for.
        let close = head.headers.containsToken("close", inField: "connection")
        let keepAlive = head.headers.containsToken("keep-alive", inField: "connection")
        closeRequested = close || (head.version == .http1_0 && !keepAlive)
        route = RequestContext.route(method: methodText, target: target, scripts: scripts)
        switch route {
        case .echo, .script: collectsBody = true
        default: collectsBody = false
        }
    }

    mutating func receive(_ slice: ByteBuffer) {
        received += UInt64(slice.readableBytes)
        if collectsBody { slice.withUnsafeReadableBytes { body.append(contentsOf: $0) } }
    }

    var loopbackRequest: LoopbackRequest {
        LoopbackRequest(method: methodText, target: target, version: version, headers: headers, body: body,
                        indexOnConnection: index)
    }

    static func route(method: String, target: String, scripts: [String: LoopbackScript]) -> Route {
        var path = Substring(target)
        var query = Substring("")
        if let q = target.firstIndex(of: "?") {
            path = target[..<q]
            query = target[target.index(after: q)...]
        }
        if let script = scripts[String(path)] { return .script(script) }
        // "/prefix/*" answers every path under /prefix/ that has no script of its own.
        var prefix = path
        while let slash = prefix.lastIndex(of: "/") {
            prefix = prefix[..<slash]
            if let script = scripts[String(prefix) + "/*"] { return .script(script) }
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        let isGet = method == "GET" || method == "HEAD"
        guard parts.count >= 2, parts[0].isEmpty else { return .notFound }
        switch (parts[1], parts.count) {
        case ("bytes", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = UInt64(parts[2]) else { return .badRequest }
            return .bytes(n)
        case ("chunked", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = UInt64(parts[2]) else { return .badRequest }
            var chunk = 16384
            for pair in query.split(separator: "&") where pair.hasPrefix("chunk=") {
                guard let size = Int(pair.dropFirst(6)), size > 0 else { return .badRequest }
                chunk = size
            }
            return .chunked(n, chunkSize: chunk)
        case ("upload", 2):
            return method == "POST" || method == "PUT" ? .upload : .methodNotAllowed
        case ("echo", 2):
            return .echo
        case ("status", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = Int(parts[2]), (200...599).contains(n) else { return .badRequest }
            return .status(n)
        case ("close", 2):
            return isGet ? .close : .methodNotAllowed
        case ("gzip", 3), ("deflate", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = UInt64(parts[2]), n <= LoopbackServer.maximumCompressedRouteSize else { return .badRequest }
            return .compressed(n, parts[1] == "gzip" ? .gzip : .zlib)
        case ("gzip-chunked", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = UInt64(parts[2]) else { return .badRequest }
            return .gzipChunked(n)
        case ("bomb", 3):
            guard isGet else { return .methodNotAllowed }
            guard let n = UInt64(parts[2]) else { return .badRequest }
            return .bomb(n)
        case ("bad-gzip", 2):
            return isGet ? .badGzip : .methodNotAllowed
        default:
            return .notFound
        }
    }

    func builtInReply(content: SharedContent) -> Reply {
        switch route {
        case .bytes(let n):
            return Reply(status: 200, headers: ["Content-Type": "application/octet-stream"], length: .known(n),
                         producer: BodyProducer(kind: .pattern, total: n))
        case .chunked(let n, let chunkSize):
            return Reply(status: 200, headers: ["Content-Type": "application/octet-stream"], length: .unknown,
                         producer: BodyProducer(kind: .chunkedPattern(chunkSize: chunkSize), total: n))
        case .compressed(let n, let format):
            let body = CompressedSource.wholeBody(textCount: n, format: format)
            return Reply(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": format == .gzip ? "gzip" : "deflate"],
                         length: .known(UInt64(body.readableBytes)), producer: BodyProducer(buffer: body))
        case .gzipChunked(let n):
            let source = CompressedSource(plaintext: .text(CompressibleText()), format: .gzip, total: n)
            return Reply(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"], length: .unknown,
                         producer: BodyProducer(kind: .compressed(source, chunked: false), total: n))
        case .bomb(let n):
            let source = CompressedSource(plaintext: .zeros, format: .gzip, total: n)
            return Reply(status: 200, headers: ["Content-Type": "application/octet-stream", "Content-Encoding": "gzip"],
                         length: .unknown, producer: BodyProducer(kind: .compressed(source, chunked: false), total: n))
        case .badGzip:
            let body = CompressedSource.badGzip
            return Reply(status: 200, headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip"],
                         length: .known(UInt64(body.readableBytes)), producer: BodyProducer(buffer: body))
        case .upload:
            return .json("{\"received\":\(received)}")
        case .echo:
            return .json(echoJSON())
        case .status(let n):
            return Reply(status: n)
        case .close:
            var reply = Reply.text("bye\n")
            reply.closes = true
            return reply
        case .notFound:
            return .text("not found\n", status: 404)
        case .methodNotAllowed:
            return .text("method not allowed\n", status: 405)
        case .badRequest:
            return .text("bad request\n", status: 400)
        case .script:
            preconditionFailure("scripts are not built-in replies")
        }
    }

    /// `{"method":…,"target":…,"version":…,"headers":[[name,value],…],"bodyLength":n,"body":…}`.
    private func echoJSON() -> String {
        var out = "{\"method\":" + JSONText.string(methodText)
        out += ",\"target\":" + JSONText.string(target)
        out += ",\"version\":" + JSONText.string(version.description)
        out += ",\"headers\":["
        var first = true
        for field in headers {
            if !first { out += "," }
            first = false
            out += "[" + JSONText.string(field.name) + "," + JSONText.string(field.value) + "]"
        }
        out += "],\"bodyLength\":\(body.count),\"body\":" + JSONText.string(String(decoding: body, as: UTF8.self)) + "}"
        return out
    }
}

extension Reply {
    static func json(_ text: String) -> Reply {
        let buffer = ByteBuffer(string: text)
        return Reply(status: 200, headers: ["Content-Type": "application/json"],
                     length: .known(UInt64(buffer.readableBytes)), producer: BodyProducer(buffer: buffer))
    }

    static func text(_ text: String, status: Int = 200) -> Reply {
        let buffer = ByteBuffer(string: text)
        return Reply(status: status, headers: ["Content-Type": "text/plain"],
                     length: .known(UInt64(buffer.readableBytes)), producer: BodyProducer(buffer: buffer))
    }
}

/// JSON string literals written by hand (RFC 8259 §7): quote, backslash and control characters
/// escaped; everything else as UTF-8.
enum JSONText {
    static func string(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex: [Character] = Array("0123456789abcdef")
                out += "\\u00" + String(hex[Int(scalar.value >> 4)]) + String(hex[Int(scalar.value & 15)])
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// Produces a response body a bounded amount at a time, as slices of the shared buffer.
struct BodyProducer {
    enum Kind {
        /// `total` bytes of the pattern.
        case pattern
        /// The pattern in chunked coding, chunks of `chunkSize` bytes (the last may be shorter).
        case chunkedPattern(chunkSize: Int)
        /// One buffer.
        case buffer(ByteBuffer)
        /// One buffer in chunked coding.
        case chunkedBuffer(ByteBuffer)
        /// A body compressed as it is produced; each refill's output is one chunk when `chunked`.
        case compressed(CompressedSource, chunked: Bool)
    }

    /// The most body bytes produced per call.
    static let budget = 256 * 1024
    /// The most gather pieces produced per call (tiny chunks make three pieces each).
    static let pieceBudget = 3000

    var kind: Kind
    let total: UInt64
    private var position: UInt64 = 0
    private var ended = false

    init(kind: Kind, total: UInt64) {
        self.kind = kind
        self.total = total
    }

    init(buffer: ByteBuffer) {
        self.init(kind: .buffer(buffer), total: UInt64(buffer.readableBytes))
    }

    /// The same body in chunked coding (when the encoder chose chunked for an unknown length).
    func chunkedVersion() -> BodyProducer {
        switch kind {
        case .buffer(let buffer): return BodyProducer(kind: .chunkedBuffer(buffer), total: total)
        case .pattern: return BodyProducer(kind: .chunkedPattern(chunkSize: 16384), total: total)
        case .compressed(let source, _): return BodyProducer(kind: .compressed(source, chunked: true), total: total)
        case .chunkedPattern, .chunkedBuffer: return self
        }
    }

    /// Moves a compressed body's source out of `kind`, so its zlib stream is uniquely referenced
    /// while it is mutated (a shared one would be copied with deflateCopy on every refill).
    private mutating func takeCompressedSource() -> (CompressedSource, Bool)? {
        guard case .compressed(let source, let chunked) = kind else { return nil }
        kind = .pattern
        return (source, chunked)
    }

    /// Appends the next part of the body to `list`.
    /// - Returns: true when the body is complete (nothing more to produce).
    mutating func fill(_ list: inout GatherList, content: SharedContent) -> Bool {
        var budget = BodyProducer.budget
        switch kind {
        case .buffer(let buffer):
            list.append(.buffer(buffer))
            return true
        case .chunkedBuffer(let buffer):
            if buffer.readableBytes > 0 {
                list.append(.inline(ChunkedEncoder.sizeLine(UInt64(buffer.readableBytes))))
                list.append(.buffer(buffer))
                list.append(.staticBytes("\r\n"))
            }
            list.append(.staticBytes("0\r\n\r\n"))
            return true
        case .compressed:
            guard case (var source, let chunked)? = takeCompressedSource() else { return true }
            // Compress until some bytes come out (zlib holds input until it has a block), then
            // return: one refill is one bounded step of work on the loop thread.
            while !source.isFinished {
                let out = source.next()
                guard out.readableBytes > 0 else { continue }
                if chunked { list.append(.inline(ChunkedEncoder.sizeLine(UInt64(out.readableBytes)))) }
                list.append(.buffer(out))
                if chunked { list.append(.staticBytes("\r\n")) }
                break
            }
            let finished = source.isFinished
            kind = .compressed(source, chunked: chunked)
            if finished && !ended {
                if chunked { list.append(.staticBytes("0\r\n\r\n")) }
                ended = true
            }
            return ended
        case .pattern:
            while budget > 0 && position < total {
                let slice = content.slice(at: position, length: Int(min(UInt64(budget), total - position)))
                list.append(.buffer(slice))
                position += UInt64(slice.readableBytes)
                budget -= slice.readableBytes
            }
            return position == total
        case .chunkedPattern(let chunkSize):
            while budget > 0 && position < total && list.pieces.count < BodyProducer.pieceBudget {
                let chunk = Int(min(UInt64(chunkSize), total - position))
                list.append(.inline(ChunkedEncoder.sizeLine(UInt64(chunk))))
                var left = chunk
                while left > 0 {
                    let slice = content.slice(at: position, length: left)
                    list.append(.buffer(slice))
                    position += UInt64(slice.readableBytes)
                    left -= slice.readableBytes
                }
                list.append(.staticBytes("\r\n"))
                budget -= chunk
            }
            if position == total && !ended {
                list.append(.staticBytes("0\r\n\r\n"))
                ended = true
            }
            return ended
        }
    }
}
