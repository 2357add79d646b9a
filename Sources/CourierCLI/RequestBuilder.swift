// RequestBuilder: the command line turned into one HTTPRequest per URL (design §9, "Rules the
// flags follow"; docs/cli.md "The request").
//
// Everything that does not depend on the URL is decided once per group, before any URL is looked
// at, so that bad input fails before anything is sent (design §6): the method (43 when it is not
// a token), the header fields (43 for CR, LF, NUL or a bad name), the body (files read now; 26
// when one cannot be read), usage conflicts (2). Then each URL (after globbing) is parsed (3), its
// scheme checked (1), its path's dot segments removed (unless --path-as-is), and what belongs to
// it added: the query pieces, URL credentials, the upload file (-T) and its name.
//
// Header order on the wire is curl's: Host (added by the encoder), Authorization, Range or
// Content-Range, User-Agent, Accept, Accept-Encoding, Referer, Transfer-Encoding (a chunked
// upload), Accept-Language (courier's own, from the environment), If-Modified-Since or
// If-Unmodified-Since, If-None-Match (--etag-compare), then the -H fields in order (with --json's
// Content-Type and Accept after them), then Content-Length, Content-Type, and Expect (the session
// adds it, for bodies over 1 MiB or of unknown length: docs/session.md). An -H field
// replaces the default of the same name (the default is not sent; the -H one goes in the -H
// position, as curl does); `-H "Name:"` removes it; `-H "Name;"` sends it with an empty value.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// The parts of every request of a group that do not depend on the URL.
struct RequestTemplate: Sendable {
    enum Body: Sendable {
        case none
        case bytes(ByteBuffer)
        case multipart(MultipartForm)
    }

    /// -X, when given.
    var explicitMethod: HTTPMethod?
    /// What the options imply without -X and -T: HEAD (-I), GET (-G), POST (data, -F), else GET.
    var impliedMethod: HTTPMethod
    /// The -H fields to send (removals and ignored lines left out), then --json's.
    var custom: [(name: String, value: String)]
    /// Lower-cased names given with -H (set or removed): defaults of those names are not sent.
    var mentioned: Set<String>
    /// Added to every URL's query ("&" after an existing query, "?" otherwise): --url-query
    /// pieces, then --params and the -G data.
    var query: String
    var body: Body
    /// The default Content-Type of the body (unless -H names one).
    var contentType: String?
    /// The Authorization field from -u (Basic) or --oauth2-bearer, placed first after Host.
    var authorization: String?
    /// Whether -u, --oauth2-bearer or an -H field decides Authorization (URL userinfo is then
    /// not sent).
    var authorizationFixed: Bool
    /// Credentials held back until a 401 asks for them (--anyauth).
    var deferredCredentials: String?
    /// The .netrc file of -n, --netrc-optional, --netrc-file (set by the runner).
    var netrc: Netrc? = nil
    /// The default fields in curl's order: User-Agent (nil: none), Accept, Accept-Encoding,
    /// Referer, Accept-Language.
    var userAgent: String?
    var accept: String?
    var acceptEncoding: String?
    var referer: String?
    var acceptLanguage: String?
    /// -r's value.
    var range: String?
    /// If-Modified-Since / If-Unmodified-Since.
    var timeCondition: (name: String, value: String)?
    /// If-None-Match from --etag-compare.
    var ifNoneMatch: String?
    /// Whether -C - was given (with -T: the whole file as Content-Range 0-N/N, as curl does).
    var resumeUpload: Bool
}

/// One URL's request, with what the runner needs to know about it.
struct PreparedRequest: Sendable {
    var request: HTTPRequest
    /// The upload file (-T), or nil.
    var upload: String?
}

struct RequestBuilder {
    let options: TransferOptions
    let environment: [String: String]
    let boundary: MultipartBoundary

    /// The method, headers and body shared by every URL of the group.
    /// - Throws: `CLIError` 2 (usage), 43 (bad method or field), 26 (unreadable file).
    func template() throws(CLIError) -> RequestTemplate {
        let hasData = !options.data.isEmpty || !options.dataBinary.isEmpty || !options.dataRaw.isEmpty
            || !options.dataURLEncode.isEmpty || !options.json.isEmpty
        let hasForm = !options.form.isEmpty
        let hasUpload = options.nodes.contains { $0.upload != nil }
        if hasForm && hasData {
            throw .usage("You can only select one HTTP request method! You asked for both POST (using -d) and multipart formpost (using -F).")
        }
        if hasUpload && (hasForm || (hasData && !options.get)) {
            throw .usage("You can only select one HTTP request method! You asked for both PUT (using -T) and POST (using \(hasForm ? "-F" : "-d")).")
        }
        if options.headOnly && ((hasData && !options.get) || hasForm || hasUpload) {
            let other = hasUpload ? "PUT (using -T)" : "POST (using \(hasForm ? "-F" : "-d"))"
            throw .usage("You can only select one HTTP request method! You asked for both HEAD (using -I) and \(other).")
        }
        if options.params != nil && !options.json.isEmpty { throw .usage("--params cannot be combined with --json") }
        if options.jsonResponse && options.headOnly { throw .usage("--json-response needs a body; it cannot be combined with -I") }

        // The method: as typed, else implied by the other options (-T's PUT is per URL).
        let implied: HTTPMethod
        if options.headOnly { implied = .head }
        else if options.get { implied = .get }
        else if hasForm || hasData { implied = .post }
        else { implied = .get }
        var explicit: HTTPMethod?
        if let text = options.method {
            do { explicit = try HTTPMethod(text) } catch {
                throw CLIError(43, "invalid request method \"\(printable(text))\" (not an HTTP token)")
            }
        }
        let methodText = options.method ?? implied.rawValue
        let upper = ASCIICase.uppercased(methodText)
        if hasForm && (upper == "GET" || upper == "HEAD") {
            throw .usage("-F cannot be used with \(upper): a multipart body needs a method that carries a body")
        }

        // The -H fields, checked before anything else happens.
        var custom: [(name: String, value: String)] = []
        var mentioned = Set<String>()  // lower-cased names given with -H (set or removed)
        for line in try headerLines() {
            guard let field = try parseHeader(line) else { continue }
            mentioned.insert(ASCIICase.lowercased(field.name))
            if let value = field.value { custom.append((field.name, value)) }
        }
        // --json adds its fields after the -H ones, unless -H gave them (curl).
        if !options.json.isEmpty {
            if !mentioned.contains("content-type") { custom.append(("Content-Type", "application/json")) }
            if !mentioned.contains("accept") { custom.append(("Accept", "application/json")) }
            mentioned.insert("content-type")
            mentioned.insert("accept")
        }

        // Parameters (AFNetworking): query for GET, HEAD, DELETE (or -G), form body otherwise.
        var parameters: QueryValue?
        if let text = options.params {
            let value: JSONValue
            do { value = try JSONParser().parse(text) } catch {
                throw .usage("--params is not valid JSON: \(error)")
            }
            guard case .object = value else { throw .usage("--params must be a JSON object") }
            parameters = QueryValue(json: value)
        }
        let parametersInQuery = options.get || ["GET", "HEAD", "DELETE"].contains(upper)

        // The query pieces: --url-query first, then --params, then the -G data.
        var queryPieces: [String] = []
        for text in options.urlQuery {
            let piece: String
            if text.hasPrefix("+") { piece = String(text.dropFirst()) } else { piece = try urlEncodedPiece(text).readableString }
            if !piece.isEmpty { queryPieces.append(piece) }
        }
        let data = try joinedData()
        if let parameters, parametersInQuery {
            let text = QueryString.build(parameters)
            if !text.isEmpty { queryPieces.append(text) }
        }
        if options.get, let data, data.readableBytes > 0 { queryPieces.append(data.readableString) }

        // The body.
        var body = RequestTemplate.Body.none
        var contentType: String?
        if hasForm {
            var form = MultipartForm(boundary: boundary)
            do {
                if let parameters, !parametersInQuery {
                    for (name, value) in MultipartFieldPairs.pairs(of: parameters) { try form.appendField(name: name, value: value ?? "") }
                }
            } catch {
                throw .usage("--params cannot become form fields: \(error)")
            }
            let fileSystem = PosixFileSystem(mimeTypes: RequestBuilder.mimeTypes)
            for part in options.form { try appendFormPart(part.text, literal: part.isString, to: &form, fileSystem: fileSystem) }
            contentType = form.contentType
            body = .multipart(form)
        } else {
            var pieces: [ByteBuffer] = []
            if let parameters, !parametersInQuery { pieces.append(ByteBuffer(string: QueryString.build(parameters))) }
            if !options.get, let data { pieces.append(data) }
            if !pieces.isEmpty {
                var joined = ByteBuffer()
                for piece in pieces where piece.readableBytes > 0 {
                    if joined.readableBytes > 0 { joined.writeString("&") }
                    joined.writeBuffer(piece)
                }
                body = .bytes(joined)
                contentType = options.json.isEmpty ? "application/x-www-form-urlencoded" : nil
            }
        }

        // Credentials: -u (Basic, or held back with --digest and --anyauth), --oauth2-bearer.
        var authorization: String?
        var deferred: String?
        if !mentioned.contains("authorization") {
            if let user = options.user {
                if options.defersCredentials { deferred = user } else { authorization = basicAuthorization(user) }
            } else if let token = options.oauth2Bearer {
                authorization = "Bearer " + token
            }
        }

        // -z: a date, or a file's modification time; "-" asks If-Unmodified-Since.
        var timeCondition: (name: String, value: String)?
        if var text = options.timeCondition {
            var name = "If-Modified-Since"
            if text.hasPrefix("-") { name = "If-Unmodified-Since"; text.removeFirst() }
            else if text.hasPrefix("+") || text.hasPrefix("=") { text.removeFirst() }
            if let seconds = CurlDate.parse(text) {
                timeCondition = (name, CurlDate.format(seconds))
            } else if let status = try? File.status(atPath: text) {
                timeCondition = (name, CurlDate.format(status.modificationTime))
            } else {
                warn("Illegal date format for -z, --time-cond (and not a file name). Disabling time condition. See curl_getdate(3) for valid date syntax.",
                     silent: options.global.silent)
            }
        }

        // --etag-compare FILE: its first line is the ETag to send (an empty one when it is
        // empty); a missing file is 26 unless --etag-save will create it.
        var ifNoneMatch: String?
        if let path = options.etagCompare {
            if let contents = try? readWholeFile(path) {
                let line = contents.readableString.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first
                    .map { String($0).trimmingCarriageReturn } ?? ""
                ifNoneMatch = line.isEmpty ? "\"\"" : line
            } else if options.etagSave == nil {
                throw CLIError(26, "Failed to open \(path)")
            } else {
                ifNoneMatch = "\"\""
            }
        }

        var referer: String?
        if let text = options.referer {
            let value = text.hasSuffix(";auto") ? String(text.dropLast(5)) : text
            if !value.isEmpty { referer = value }
        }
        var userAgent: String? = "\(CourierVersion.product)/\(CourierVersion.version)"
        if let text = options.userAgent { userAgent = text.isEmpty ? nil : text }

        return RequestTemplate(
            explicitMethod: explicit, impliedMethod: implied, custom: custom, mentioned: mentioned,
            query: queryPieces.joined(separator: "&"), body: body, contentType: contentType,
            authorization: authorization,
            // With --digest or --anyauth, the URL's credentials wait for the 401 too (the challenge handler takes them).
            authorizationFixed: options.user != nil || options.oauth2Bearer != nil || mentioned.contains("authorization") || options.defersCredentials,
            deferredCredentials: deferred, userAgent: userAgent, accept: "*/*",
            acceptEncoding: options.compressed && options.continueAt == nil ? "gzip, deflate" : nil, referer: referer,
            acceptLanguage: RequestDefaults.acceptLanguage(preferredLanguages(environment: environment)),
            range: options.range.map { RequestBuilder.normalizedRange($0, silent: options.global.silent) }, timeCondition: timeCondition, ifNoneMatch: ifNoneMatch,
            resumeUpload: options.continueAt == "-")
    }

    /// curl's -r: a range without "-" gets one appended.
    static func normalizedRange(_ text: String, silent: Bool) -> String {
        if !text.isEmpty && text.utf8.allSatisfy(ASCII.isDigit) {
            warn("A specified range MUST include at least one dash (-). Appending one for you!", silent: silent)
            return text + "-"
        }
        return text
    }

    /// The request for one URL (already globbed) and its upload file.
    /// - Throws: `CLIError` 3 (malformed URL), 1 (unsupported scheme), 67 (user name refused),
    ///   26 (upload file unreadable), 43 (bad request-target).
    func request(for urlText: String, upload: String?, template: RequestTemplate) throws(CLIError) -> PreparedRequest {
        var text = urlText
        if let upload, upload != "-", upload != "." { text = RequestBuilder.addingFileName(upload, to: text) }
        var uri = try RequestBuilder.parseURL(text, defaultScheme: options.protoDefault)
        if !options.pathAsIs && !uri.path.isEmpty {
            let cleaned = URI.removeDotSegments(uri.path)
            if cleaned != uri.path {
                do {
                    uri = try URI(scheme: uri.scheme, userinfo: uri.userinfo, host: uri.host?.text, port: uri.port,
                                  path: cleaned.isEmpty ? "/" : cleaned, query: uri.query, fragment: uri.fragment)
                } catch {
                    throw CLIError(3, "URL using bad/illegal format or missing URL")
                }
            }
        }
        if options.disallowUsernameInURL, let userinfo = uri.userinfo, !userinfo.isEmpty {
            throw CLIError(67, "Login denied: the URL has a user name and --disallow-username-in-url is set")
        }
        if !template.query.isEmpty {
            let combined = uri.query.map { $0.isEmpty ? template.query : $0 + "&" + template.query } ?? template.query
            do { uri = try uri.replacingQuery(combined) } catch {
                throw CLIError(3, "URL using bad/illegal format or missing URL (the query cannot be added)")
            }
        }

        // The method: -X, else PUT for an upload, else what the options imply.
        var body: HTTPRequest.Body
        var length: UInt64?
        var chunked = false
        var freshContentType: String?
        switch template.body {
        case .none: body = .none
        case .bytes(let bytes): body = .bytes(bytes); length = UInt64(bytes.readableBytes)
        case .multipart(let form):
            // A fresh boundary for every request (AFNetworking draws one per form), and the
            // Content-Type that names it.
            let fresh = form.replacingBoundary(RequestBuilder.makeBoundary())
            body = .multipart(fresh)
            length = fresh.contentLength
            if template.contentType == form.contentType { freshContentType = fresh.contentType }
        }
        var method = template.explicitMethod ?? template.impliedMethod
        if let upload {
            if template.explicitMethod == nil { method = .put }
            if upload == "-" || upload == "." {
                body = .stream(length: nil, StandardInputUpload())
                chunked = true
            } else {
                let status: FileStatus?
                do { status = try File.status(atPath: upload) } catch {
                    throw CLIError(26, "Failed to open/read local data from file/application: \(upload): \(error)")
                }
                guard let status, status.kind != .directory else {
                    throw CLIError(26, "Failed to open/read local data from file/application: \(upload)")
                }
                if status.kind == .regular {
                    body = .file(path: upload)
                    length = UInt64(status.size)
                } else {
                    // A device, FIFO or socket: read as it comes, sent chunked (curl ignores their size).
                    body = .stream(length: nil, FileUpload(path: upload))
                    chunked = true
                }
            }
        }
        let hasBody: Bool
        if case .none = body { hasBody = false } else { hasBody = true }

        // Fields in curl's order (the top of this file).
        var fields: [(String, String)] = []
        func add(_ name: String, _ value: String?) {
            guard let value, !template.mentioned.contains(ASCIICase.lowercased(name)) else { return }
            fields.append((name, value))
        }
        var authorization = template.authorization
        if authorization == nil, !template.authorizationFixed, let credentials = try netrcCredentials(for: uri, netrc: template.netrc) {
            authorization = basicAuthorization(credentials)
        } else if authorization == nil, !template.authorizationFixed, let userinfo = uri.userinfo {
            // curl: credentials in the URL are sent as Basic, percent-decoded.
            let decoded = (try? PercentEncoding.decodeToString(userinfo)) ?? userinfo
            authorization = basicAuthorization(decoded)
        }
        if authorization != nil, !template.mentioned.contains("authorization") { fields.append(("Authorization", authorization!)) }
        if let range = template.range {
            if hasBody, let length {
                add("Content-Range", "bytes \(range)/\(length)")
            } else if !hasBody {
                add("Range", "bytes=\(range)")
            }
        } else if template.resumeUpload, upload != nil, let length {
            // curl cannot ask an HTTP server how much it has: -C - sends the whole file again.
            add("Content-Range", "bytes 0-\(Int64(length) - 1)/\(length)")
        }
        add("User-Agent", template.userAgent)
        add("Accept", template.accept)
        add("Accept-Encoding", template.acceptEncoding)
        add("Referer", template.referer)
        if chunked { add("Transfer-Encoding", "chunked") }
        add("Accept-Language", template.acceptLanguage)
        // curl's place for cookies: before the time condition and the -H fields. The -b NAME=VALUE
        // literal goes there (a -H Cookie replaces it); with the engine on the session puts the
        // jar's cookies in front of it, or in place of an empty field that only marks the place.
        let engine = CookieOptions.enablesEngine(options: options.cookie, jar: options.cookieJar)
        add("Cookie", CookieOptions.literal(of: options.cookie) ?? (engine ? "" : nil))
        if let condition = template.timeCondition { add(condition.name, condition.value) }
        add("If-None-Match", template.ifNoneMatch)
        for field in template.custom { fields.append((field.name, field.value)) }
        if let length, hasBody, !chunked { add("Content-Length", String(length)) }
        if upload == nil { add("Content-Type", freshContentType ?? template.contentType) }

        var request = HTTPRequest(method: method, uri: uri, headers: HTTPHeaders(fields), body: body)
        // Expect: 100-continue is the session's (last, for bodies over 1 MiB or of unknown length;
        // unlike curl, not for every -T upload). `-H "Expect:"` removes it; a -H Expect field
        // is sent as given (and waited on, with --expect100-timeout, when it is 100-continue).
        if template.mentioned.contains("expect") {
            var never = ExpectContinuePolicy.never
            if let text = options.expect100Timeout { never.timeout = try TransferSettings.seconds(text, "--expect100-timeout") }
            request.expectContinue = never
        }
        if options.http1_0 {
            // HTTP/1.0 has no chunked coding: a body of unknown length cannot be sent (curl: 25).
            if chunked { throw CLIError(25, "Chunky upload is not supported by HTTP 1.0") }
            request.version = .http1_0
        }
        if let target = options.requestTarget {
            do { try HTTPFieldValidation.validateRequestTarget(target, method: method) } catch {
                throw CLIError(43, "invalid --request-target \"\(printable(target))\": \(error.code)")
            }
            request.requestTarget = target
        }
        return PreparedRequest(request: request, upload: upload)
    }

    // MARK: URLs

    /// Parses a command-line URL as curl does: no "scheme:/" means http:// (or --proto-default's
    /// scheme), so `localhost:8080` is a host and a port; one to three slashes after the scheme
    /// all mean "//" (`http:/host/path`, curl's reading), four or more are a malformed URL; only
    /// http and https are supported.
    /// - Throws: `CLIError` 3 or 1.
    static func parseURL(_ text: String, defaultScheme: String? = nil) throws(CLIError) -> URI {
        var candidate = text
        if let (colon, slashes) = schemePrefix(text) {
            guard slashes <= 3 else { throw CLIError(3, "URL using bad/illegal format or missing URL (too many slashes)") }
            let bytes = Array(text.utf8)
            candidate = String(decoding: bytes[..<colon], as: UTF8.self) + "://"
                + String(decoding: bytes[(colon + 1 + slashes)...], as: UTF8.self)
        } else {
            candidate = (defaultScheme.map(ASCIICase.lowercased) ?? "http") + "://" + text
        }
        candidate = encodingLooseBytes(candidate)
        let uri: URI
        do { uri = try URI(parsing: candidate) } catch {
            // curl's words for a host libidn2 refuses, with the label and the UTS #46 rule.
            if let idna = error.idna { throw CLIError(3, "Failed to convert host to ACE; \(idna)") }
            throw CLIError(3, "URL using bad/illegal format or missing URL")
        }
        guard let scheme = uri.scheme, scheme == "http" || scheme == "https" else {
            throw CLIError(1, "Protocol \"\(uri.scheme ?? "")\" not supported or disabled in libcurl")
        }
        guard let host = uri.host, !host.text.isEmpty else {
            throw CLIError(3, "URL using bad/illegal format or missing URL (no host)")
        }
        return uri
    }

    /// The URL with the bytes curl sends as they are but a URI may not hold percent-encoded
    /// (RFC 3986 §2.1, upper-case hex), in the path, query and fragment only: `" < > [ \ ] ^ `
    /// { | }`, DEL, bytes above 0x7F, and a "%" not followed by two hex digits. Spaces and control
    /// bytes are left, so the URL is refused (3), as curl refuses a space.
    static func encodingLooseBytes(_ text: String) -> String {
        let bytes = Array(text.utf8)
        var start = 0
        if let range = text.utf8.firstRange(of: "://".utf8) {
            start = text.utf8.distance(from: text.utf8.startIndex, to: range.upperBound)
        }
        while start < bytes.count && bytes[start] != UInt8(ascii: "/") && bytes[start] != UInt8(ascii: "?") && bytes[start] != UInt8(ascii: "#") {
            start += 1
        }
        let loose: Set<UInt8> = Set(Array("\"<>[\\]^`{|}".utf8) + [0x7F])
        var out = Array(bytes[..<start])
        var changed = false
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            let badPercent = byte == UInt8(ascii: "%") && !(i + 2 < bytes.count && ASCII.isHexDigit(bytes[i + 1]) && ASCII.isHexDigit(bytes[i + 2]))
            if loose.contains(byte) || byte >= 0x80 || badPercent {
                let hex = Array("0123456789ABCDEF".utf8)
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
                changed = true
            } else {
                out.append(byte)
            }
            i += 1
        }
        return changed ? String(decoding: out, as: UTF8.self) : text
    }

    /// Where `text`'s scheme ends (the offset of its ":") and how many slashes follow, when it
    /// starts with `scheme ":/"` (RFC 3986 scheme characters).
    static func schemePrefix(_ text: String) -> (colon: Int, slashes: Int)? {
        guard hasScheme(text) else { return nil }
        let bytes = Array(text.utf8)
        let colon = bytes.firstIndex(of: UInt8(ascii: ":"))!
        var slashes = 0
        while colon + 1 + slashes < bytes.count && bytes[colon + 1 + slashes] == UInt8(ascii: "/") { slashes += 1 }
        return (colon, slashes)
    }

    /// Whether `text` starts with `scheme ":/"` (RFC 3986 scheme characters), curl's test.
    static func hasScheme(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            let isOther = ASCII.isDigit(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if ASCII.isLetter(byte) || (index > 0 && isOther) { index += 1; continue }
            break
        }
        guard index > 0 else { return false }
        return bytes.count >= index + 2 && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
    }

    /// curl's -T rule: a URL with no file name part (nothing after its last "/", or no "/" after
    /// "://") gets the upload file's name (after its last "/" or "\"), percent-encoded.
    static func addingFileName(_ file: String, to url: String) -> String {
        let afterScheme = url.firstRange(of: "://").map { url[$0.upperBound...] } ?? Substring(url)
        let lastSlash = afterScheme.lastIndex(of: "/")
        if let lastSlash, afterScheme.index(after: lastSlash) != afterScheme.endIndex { return url }
        var name = Substring(file)
        if let slash = name.lastIndex(of: "/") { name = name[name.index(after: slash)...] }
        if let backslash = name.lastIndex(of: "\\") { name = name[name.index(after: backslash)...] }
        let encoded = Array(name.utf8).withUnsafeBytes { PercentEncoding.encode($0, allowing: .unreserved) }
        return lastSlash == nil ? url + "/" + encoded : url + encoded
    }

    // MARK: Header fields

    /// The -H values, with `@FILE` expanded to one field per line (curl 7.55).
    private func headerLines() throws(CLIError) -> [String] {
        var lines: [String] = []
        for value in options.headers {
            if value.hasPrefix("@") {
                let contents = try readInputFile(String(value.dropFirst()))
                for line in contents.readableString.split(whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
                    var text = String(line)
                    if text.hasSuffix("\r") { text.removeLast() }
                    if !text.isEmpty { lines.append(text) }
                }
            } else {
                lines.append(value)
            }
        }
        return lines
    }

    /// One -H value: `Name: value` (value nil → remove the field), `Name;` (empty value), or
    /// nil for a value curl ignores (no ":" and no trailing ";").
    /// - Throws: 43 for a name that is not a token or a value with CR, LF, NUL or another control.
    private func parseHeader(_ line: String) throws(CLIError) -> (name: String, value: String?)? {
        let bytes = Array(line.utf8)
        let name: String
        var value: String?
        if let colon = bytes.firstIndex(of: UInt8(ascii: ":")) {
            name = String(decoding: bytes[..<colon], as: UTF8.self)
            var start = colon + 1
            var end = bytes.count
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            value = start == end ? nil : String(decoding: bytes[start..<end], as: UTF8.self)
        } else if bytes.last == UInt8(ascii: ";") {
            name = String(decoding: bytes.dropLast(), as: UTF8.self)
            value = ""
        } else if bytes.contains(where: { $0 == 13 || $0 == 10 || $0 == 0 }) {
            throw CLIError(43, "invalid header field \"\(printable(line))\": CR, LF and NUL are not allowed")
        } else {
            return nil
        }
        do { try HTTPFieldValidation.validateField(name: name, value: value ?? "") } catch {
            throw CLIError(43, "invalid header field \"\(printable(line))\": \(error.code)")
        }
        return (name, value)
    }

    func basicAuthorization(_ credentials: String) -> String {
        "Basic " + Base64.encode(Array(credentials.utf8))
    }

    // MARK: Data

    /// The data options joined in command-line order: "&" between pieces, none before a --json
    /// piece (curl). Nil when no data option was given.
    private func joinedData() throws(CLIError) -> ByteBuffer? {
        enum Kind { case data, binary, raw, urlencode, json }
        var items: [(Kind, OrderedValue)] = []
        items += options.data.map { (.data, $0) }
        items += options.dataBinary.map { (.binary, $0) }
        items += options.dataRaw.map { (.raw, $0) }
        items += options.dataURLEncode.map { (.urlencode, $0) }
        items += options.json.map { (.json, $0) }
        guard !items.isEmpty else { return nil }
        items.sort { $0.1.sequence < $1.1.sequence }
        var joined = ByteBuffer()
        for (index, (kind, item)) in items.enumerated() {
            var piece: ByteBuffer
            switch kind {
            case .data:
                if item.text.hasPrefix("@") {
                    piece = strippingLineBreaks(try readInputFile(String(item.text.dropFirst())))
                } else {
                    piece = ByteBuffer(string: item.text)
                }
            case .binary, .json:
                piece = item.text.hasPrefix("@") ? try readInputFile(String(item.text.dropFirst())) : ByteBuffer(string: item.text)
            case .raw:
                piece = ByteBuffer(string: item.text)
            case .urlencode:
                piece = try urlEncodedPiece(item.text)
            }
            if index > 0 && kind != .json { joined.writeString("&") }
            joined.writeBuffer(piece)
        }
        return joined
    }

    /// curl's --data-urlencode: `content`, `=content`, `name=content`, `@file`, `name@file`. The
    /// first "=" splits name and content; without one, the first "@" splits name and file. The
    /// content is percent-encoded (everything but unreserved), spaces as "+"; the name is not.
    private func urlEncodedPiece(_ text: String) throws(CLIError) -> ByteBuffer {
        let bytes = Array(text.utf8)
        var name: [UInt8] = []
        var content: [UInt8]
        if let equals = bytes.firstIndex(of: UInt8(ascii: "=")) {
            name = Array(bytes[..<equals])
            content = Array(bytes[(equals + 1)...])
        } else if let at = bytes.firstIndex(of: UInt8(ascii: "@")) {
            name = Array(bytes[..<at])
            let path = String(decoding: bytes[(at + 1)...], as: UTF8.self)
            content = try readInputFile(path).readableBytesArray
        } else {
            content = bytes
        }
        let encoded = content.withUnsafeBytes { PercentEncoding.encode($0, allowing: .unreserved) }
        var piece = ByteBuffer()
        if !name.isEmpty {
            piece.writeBytes(name)
            piece.writeString("=")
        }
        // curl 7.86+: an encoded space is sent as "+".
        piece.writeString(encoded.replacingPercentSpaces())
        return piece
    }

    private func strippingLineBreaks(_ buffer: ByteBuffer) -> ByteBuffer {
        var out = ByteBuffer(capacity: buffer.readableBytes)
        out.writeBytes(buffer.readableBytesArray.filter { $0 != 13 && $0 != 10 })
        return out
    }

    // MARK: Multipart

    /// One -F argument, in curl's grammar (FormArgument.swift): `name=value`, `name=<file`,
    /// `name=@file`, each with `;type=`, `;filename=` (not for `<`) and `;headers=` as curl reads
    /// them; with `literal` (--form-string), `name=value` taken as it is. A file part must be a regular file: a directory, FIFO, socket or device is 26 here,
    /// before anything is sent.
    private func appendFormPart(_ text: String, literal: Bool, to form: inout MultipartForm, fileSystem: PosixFileSystem) throws(CLIError) {
        let argument = try FormArgument(parsing: text, literal: literal)
        for warning in argument.warnings { printError("Warning: " + warning) }
        var lines = argument.headerLines
        for path in argument.headerFiles {
            lines += FormArgument.headerLines(fromFile: try readInputFile(path).readableBytesArray)
        }
        var headers: [MultipartHeader] = []
        var headerType: String?
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else {
                throw CLIError(43, "-F \"\(printable(text))\": the part header \"\(printable(line))\" has no colon")
            }
            let name = String(line[..<colon])
            let value = String(line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" })
            // curl issues one Content-Type: `type=` first, else the header's value.
            if HTTPHeaders.namesEqual(name, "Content-Type") {
                if headerType == nil { headerType = value }
                continue
            }
            headers.append(MultipartHeader(name: name, value: value))
        }
        let givenType = argument.contentType ?? headerType
        var contents: ByteBuffer?
        if case .fileContents(let path) = argument.content { contents = try readInputFile(path) }
        do throws(MultipartError) {
            switch argument.content {
            case .file(let path):
                // curl's order: the type given, else the file name's (the one sent), else the
                // path's, else application/octet-stream.
                let pathName = path.split(separator: "/").last.map(String.init) ?? path
                let fileName = argument.fileName ?? pathName
                let mimeType = givenType ?? knownType(fileName) ?? knownType(pathName) ?? fileSystem.mimeType(forFileName: pathName)
                try form.appendFile(atPath: path, name: argument.name, fileName: fileName, mimeType: mimeType,
                                    headers: headers, fileSystem: fileSystem)
            case .fileContents:
                try form.appendField(name: argument.name, value: contents!, contentType: givenType,
                                     fileName: nil, headers: headers)
            case .value(let value):
                // A text part with a file name takes that name's type when it is a known one.
                let type = givenType ?? argument.fileName.flatMap(knownType)
                try form.appendField(name: argument.name, value: ByteBuffer(string: value), contentType: type,
                                     fileName: argument.fileName, headers: headers)
            }
        } catch {
            if error.code == .fileUnavailable, case .file(let path) = argument.content {
                let reason = error.underlying.map { ": \($0)" } ?? ""
                throw CLIError(26, "Failed to open/read local data from file/application: \(path)\(reason)")
            }
            throw CLIError(43, "-F \"\(printable(text))\": \(error)")
        }
    }
}

extension RequestBuilder {
    /// The type the MIME database (or, without one, the built-in table) lists for a file
    /// name's extension; nil when it lists none.
    func knownType(_ fileName: String) -> String? {
        guard let ext = MultipartMIMEType.fileExtension(fileName) else { return nil }
        if let table = RequestBuilder.mimeTypes { return table.type(forExtension: ext) }
        return MultipartMIMEType.forExtension(ext)
    }
}

// MARK: Upload sources

// MARK: Helpers

/// Reads a file named on the command line ("-" is standard input).
/// - Throws: `CLIError` 26.
func readInputFile(_ path: String) throws(CLIError) -> ByteBuffer {
    do {
        if path == "-" { return try StandardStreams.readInput() }
        return try readWholeFile(path)
    } catch {
        throw CLIError(26, "Failed to open/read local data from file/application: \(path): \(error)")
    }
}

/// A warning on stderr, as curl prints one ("Warning: ..."); -s hides it, as it hides curl's.
func warn(_ text: String, silent: Bool) {
    if !silent { printError("Warning: " + text) }
}

/// Text safe to print on one line: control bytes as \r, \n, \xHH.
func printable(_ text: String) -> String {
    var out = ""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\r": out += "\\r"
        case "\n": out += "\\n"
        case "\t": out += "\\t"
        default:
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                out += "\\x" + (hex.count == 1 ? "0" + hex : hex)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
    }
    return out
}


extension String {
    /// "%20" → "+" (curl's --data-urlencode spelling of a space).
    func replacingPercentSpaces() -> String {
        var out = ""
        var rest = Substring(self)
        while let range = rest.firstRange(of: "%20") {
            out += rest[..<range.lowerBound]
            out += "+"
            rest = rest[range.upperBound...]
        }
        return out + rest
    }

    /// Without one trailing CR.
    var trimmingCarriageReturn: String { hasSuffix("\r") ? String(dropLast()) : self }
}
