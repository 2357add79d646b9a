// RequestPreparation: the one place where a request becomes what goes on the wire — session
// default headers, preemptive Basic credentials, Accept-Encoding, Content-Length: 0 for bodiless
// POST/PUT/PATCH — so the session, `--offline` and the `-v` trace can never disagree. Also the pure
// redirect rules (RFC 9110 §15.4) and the body sources of an upload.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierURL

/// A replayable source of request-body bytes: each attempt (a retry, a 307/308 redirect) asks
/// for a fresh reader from the start. The same protocol as multipart stream parts.
public typealias UploadStream = MultipartStream

/// Where an upload task's body comes from.
public enum UploadSource: Sendable {
    /// Bytes in memory.
    case bytes(ByteBuffer)
    /// A file, read as it is sent (its size is taken when the request is sent).
    case file(path: String)
    /// A replayable stream; `length` nil sends it chunked.
    case stream(length: UInt64?, UploadStream)
    /// A multipart form, streamed with its exact Content-Length.
    case multipart(MultipartForm)

    var body: HTTPRequest.Body {
        switch self {
        case .bytes(let bytes): return .bytes(bytes)
        case .file(let path): return .file(path: path)
        case .stream(let length, let stream): return .stream(length: length, stream)
        case .multipart(let form): return .multipart(form)
        }
    }
}

enum RequestPreparation {
    /// Methods whose requests carry a body by meaning (RFC 9110 §8.6: send Content-Length).
    static let methodsWithBody: Set<String> = ["POST", "PUT", "PATCH"]

    /// The request as it will be sent: session defaults for missing fields, Basic credentials,
    /// Accept-Encoding (never on a range request: a resumed download must not be compressed).
    static func prepare(_ request: HTTPRequest, configuration: SessionConfiguration, isRangeRequest: Bool) -> HTTPRequest {
        var prepared = request
        var headers = HTTPHeaders()
        for (name, value) in configuration.defaultHeaders where !request.headers.contains(name: name) {
            headers.add(name: name, value: value)
        }
        for (name, value) in request.headers { headers.add(name: name, value: value) }
        if let credential = configuration.credential, !headers.contains(name: "Authorization") {
            headers.add(name: "Authorization", value: credential.basicAuthorization)
        }
        if isRangeRequest {
            headers.remove(name: "Accept-Encoding")
        } else if configuration.acceptsCompressedResponses && !headers.contains(name: "Accept-Encoding") {
            headers.add(name: "Accept-Encoding", value: "gzip, deflate")
        }
        prepared.headers = headers
        return prepared
    }

    /// The request with the jar's cookies for its URL (RFC 6265 §5.4, layered-cookies "The Cookie
    /// Header Field"): one Cookie field, the jar's cookies first, then the value of each Cookie
    /// field the caller gave, joined with "; ", at the place of the caller's first Cookie field
    /// (else after the other fields). With a jar, an empty Cookie field only marks that place: it
    /// is never sent on its own (the CLI puts one where curl writes the jar's cookies). Without a
    /// jar, or when nothing changes, the request as it is.
    static func addingCookies(to request: HTTPRequest, from jar: CookieJar?) -> HTTPRequest {
        guard let jar else { return request }
        let fields = request.headers["Cookie"]
        let given = fields.filter { !$0.isEmpty }
        let cookies = jar.cookieFieldValue(for: request.uri)
        guard cookies != nil || given.count > 1 || given.count != fields.count else { return request }
        var sent = request
        let values = (cookies.map { [$0] } ?? []) + given
        if values.isEmpty {
            sent.headers.remove(name: "Cookie")
        } else {
            sent.headers.replaceOrAdd(name: "Cookie", value: values.joined(separator: "; "))
        }
        return sent
    }

    /// The route of a request: nil for a direct connection.
    static func proxyRoute(for request: HTTPRequest, settings: ProxySettings) throws(SessionError) -> ProxyRoute? {
        guard !settings.isEmpty, let server = try settings.proxy(for: request.uri) else { return nil }
        return ProxyRoute(server: server, tunnel: settings.tunnels(request.uri), headers: settings.headers,
                          userAgent: request.headers.first(name: "User-Agent"),
                          authenticatesPreemptively: settings.authenticatesPreemptively)
    }

    /// The request as it goes on its route. To a proxy in absolute form: the target is the whole
    /// URL (RFC 9112 §3.2.2), with the proxy's credentials (preemptively, or answering a 407),
    /// its header fields and `Proxy-Connection: Keep-Alive` (curl sends it). Direct or inside a
    /// tunnel: no Proxy-Authorization field, whoever set it — it is never sent to an origin.
    static func routing(_ request: HTTPRequest, through route: ProxyRoute?, answering407: Bool) -> HTTPRequest {
        var routed = request
        guard let route, !route.tunnel else {
            if routed.headers.contains(name: "Proxy-Authorization") { routed.headers.remove(name: "Proxy-Authorization") }
            return routed
        }
        if routed.requestTarget == nil, let scheme = request.uri.scheme, let host = request.uri.hostFieldValue {
            routed.requestTarget = scheme + "://" + host + request.uri.requestTarget
        }
        if let credential = route.server.credential, route.authenticatesPreemptively || answering407,
           !routed.headers.contains(name: "Proxy-Authorization") {
            // Where curl puts it: first, right after Host.
            routed.headers = HTTPHeaders([("Proxy-Authorization", credential.basicAuthorization)] + routed.headers.map { ($0.name, $0.value) })
        }
        // curl's order: Proxy-Connection, then the --proxy-header fields.
        if !routed.headers.contains(name: "Proxy-Connection") && !route.headers.contains(name: "Proxy-Connection") {
            routed.headers.add(name: "Proxy-Connection", value: "Keep-Alive")
        }
        for (name, value) in route.headers { routed.headers.replaceOrAdd(name: name, value: value) }
        return routed
    }

    /// Whether a 407's Proxy-Authenticate fields offer Basic.
    static func asksForBasic(_ headers: HTTPHeaders) -> Bool {
        headers["Proxy-Authenticate"].contains { value in
            value.utf8.count >= 5 && value.utf8.prefix(5).map { $0 | 0x20 } == Array("basic".utf8)
        }
    }

    /// The framing length of a body; a file is opened and measured now, and sent from the same
    /// descriptor.
    static func measure(_ request: HTTPRequest) async throws(SessionError) -> MeasuredBody {
        switch request.body {
        case .none:
            return MeasuredBody(methodsWithBody.contains(ASCIICase.uppercased(request.method.rawValue)) ? .known(0) : .none)
        case .bytes(let buffer): return MeasuredBody(.known(UInt64(buffer.readableBytes)))
        case .multipart(let form): return MeasuredBody(.known(form.contentLength))
        case .stream(let length, _), .asyncStream(let length, _): return MeasuredBody(length.map { .known($0) } ?? .unknown)
        case .file(let path):
            // open and fstat may wait on the disk: on the blocking-I/O thread, not the pool.
            do {
                let (file, size) = try await BlockingIOThread.shared.run { () throws(Errno) -> (File, UInt64) in
                    let file = try File.open(path)
                    return (file, UInt64(try file.size()))
                }
                return MeasuredBody(.known(size), file: file)
            } catch {
                var failure = SessionError(.fileReadFailed, "cannot read the upload file \(path): \(error)")
                failure.errno = error
                throw failure
            }
        }
    }

    /// The encoded head, exactly as `HTTP1Connection.sendHead` writes it.
    static func encodeHead(_ request: HTTPRequest, length: BodyLength) throws(SessionError) -> EncodedHead {
        guard let host = request.uri.hostFieldValue else {
            throw SessionError(.invalidURL, "the URL has no host", url: request.uri.redactedDescription)
        }
        do {
            return try RequestHeadEncoder(version: request.version).encode(method: request.method, target: request.effectiveRequestTarget, host: host,
                                                   headers: request.headers, body: length)
        } catch {
            throw SessionError(.invalidRequest, "the request head is invalid: \(error)", url: request.uri.redactedDescription)
        }
    }

    /// Checks that the URI can be requested and returns where to connect.
    static func origin(of uri: URI) throws(SessionError) -> ConnectionPool.Origin {
        guard let scheme = uri.scheme, scheme == "http" || scheme == "https" else {
            throw SessionError(.unsupportedScheme, "the scheme \(uri.scheme ?? "(none)") is not supported", url: uri.redactedDescription)
        }
        guard let host = uri.host, !host.text.isEmpty, let port = uri.effectivePort else {
            throw SessionError(.invalidURL, "the URL has no host", url: uri.redactedDescription)
        }
        return ConnectionPool.Origin(scheme: scheme, host: host.text, port: port)
    }
}

/// A request body's framing length, measured before the head is encoded. For a file body it
/// keeps the descriptor the length was taken from, and the body is read from that descriptor:
/// one open per request, and no window in which another file could take the path's place
/// between measuring and sending. Every attempt on the connection reads it from offset 0 (pread
/// and sendfile take offsets), and it closes when the last holder lets it go.
struct MeasuredBody: Sendable {
    /// The length the head declares.
    let length: BodyLength
    /// The open upload file, for a `.file` body.
    let file: File?

    init(_ length: BodyLength, file: File? = nil) {
        self.length = length
        self.file = file
    }
}

/// RFC 9110 §15.4 redirects as browsers and curl follow them.
enum RedirectRules {
    /// The statuses followed (304 and 300/305/306 are not redirects to follow).
    static func isFollowable(_ status: Int) -> Bool { [301, 302, 303, 307, 308].contains(status) }

    /// Fields that describe a body; dropped when a redirect turns the request into a GET.
    static let bodyFields = ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language", "Content-Location",
                             "Transfer-Encoding", "Expect"]
    /// Fields never carried to another origin (credentials of the first one).
    static let credentialFields = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// The request that follows `status` with `location`.
    /// - 301, 302, 303: GET without a body (HEAD stays HEAD), as browsers and curl -L do;
    /// - 307, 308: method and body kept (the body is replayed from its start);
    /// - another origin (scheme, host or port): Authorization, Cookie and Proxy-Authorization
    ///   dropped, and an explicit Host field too.
    static func nextRequest(after request: HTTPRequest, status: Int, location: String,
                            allowsInsecure: Bool) throws(SessionError) -> HTTPRequest {
        let target: URI
        do {
            // Spaces, raw UTF-8 and other bytes RFC 3986 does not allow are percent-encoded first,
            // as browsers and curl do; the host is still decoded and validated strictly.
            target = try request.uri.resolving(URI.escapingInvalidBytes(location)).removingFragment
        } catch {
            throw SessionError(.invalidURL, "the redirect location \(location) is not a valid URL", url: request.uri.redactedDescription)
        }
        guard target.isHTTP else {
            throw SessionError(.unsupportedScheme, "a redirect to the scheme \(target.scheme ?? "(none)") is not supported",
                               url: target.redactedDescription)
        }
        if request.uri.scheme == "https" && target.scheme == "http" && !allowsInsecure {
            throw SessionError(.insecureRedirect, "a redirect from https to http was refused", url: target.redactedDescription)
        }
        var next = request
        next.uri = target
        if status == 301 || status == 302 || status == 303, request.method != .get, request.method != .head {
            next.method = .get
            next.body = .none
            for name in bodyFields { next.headers.remove(name: name) }
        }
        if !sameOrigin(request.uri, target) {
            for name in credentialFields { next.headers.remove(name: name) }
            next.headers.remove(name: "Host")
        }
        return next
    }

    static func sameOrigin(_ a: URI, _ b: URI) -> Bool {
        // The parser lower-cases scheme and host, so the components compare as they are.
        a.scheme == b.scheme && a.host == b.host && a.effectivePort == b.effectivePort
    }
}
