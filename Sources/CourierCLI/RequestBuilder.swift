// RequestBuilder: the command line turned into one HTTPRequest per URL (design §9, "Rules the
// flags follow").
//
// Everything that does not depend on the URL is decided once, before any URL is looked at, so that
// bad input fails before anything is sent (design §6): the method (43 when it is not a token),
// the header fields (43 for CR, LF, NUL or a bad name), the body (files read now; 26 when one
// cannot be read), usage conflicts (2). Then each URL is parsed (3), its scheme checked (1), and the
// query and credentials that belong to it are added.
//
// Header order on the wire: Host (added by the encoder), Authorization (-u or URL userinfo),
// User-Agent, Accept, Accept-Encoding (--compressed), Accept-Language, then the -H fields in
// order, then Content-Type, then Content-Length (added by the encoder). An -H field replaces the
// default of the same name (the default is not sent; the -H one goes in the -H position, as curl
// does); `-H "Name:"` removes it; `-H "Name;"` sends it with an empty value.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL

/// The parts of every request that do not depend on the URL.
struct RequestTemplate: Sendable {
    enum Body: Sendable {
        case none
        case bytes(ByteBuffer)
        case multipart(MultipartForm)
    }

    var method: HTTPMethod
    /// Default fields not overridden, then -H fields, then Content-Type. No Authorization.
    var headers: HTTPHeaders
    /// Added to every URL's query ("&" after an existing query, "?" otherwise).
    var query: String
    var body: Body
    /// Whether an -H field or -u decides Authorization (URL userinfo is then ignored).
    var authorizationFixed: Bool
    /// The Authorization field from -u, placed first after Host.
    var authorization: String?
    /// Lower-cased names removed with `-H "Name:"`.
    var removedHeaders: Set<String>
}

struct RequestBuilder {
    let options: TransferOptions
    let environment: [String: String]
    let boundary: MultipartBoundary

    /// The method, headers and body shared by every URL.
    /// - Throws: `CLIError` 2 (usage), 43 (bad method or field), 26 (unreadable file).
    func template() throws(CLIError) -> RequestTemplate {
        let hasData = !options.data.isEmpty || !options.dataBinary.isEmpty || !options.dataRaw.isEmpty
            || !options.dataURLEncode.isEmpty || !options.json.isEmpty
        let hasForm = !options.form.isEmpty
        if hasForm && hasData {
            throw .usage("You can only select one HTTP request method! You asked for both POST (using -d) and multipart formpost (using -F).")
        }
        if options.headOnly && ((hasData && !options.get) || hasForm) {
            throw .usage("You can only select one HTTP request method! You asked for both HEAD (using -I) and POST (using \(hasForm ? "-F" : "-d")).")
        }
        if options.params != nil && !options.json.isEmpty { throw .usage("--params cannot be combined with --json") }
        if options.jsonResponse && options.headOnly { throw .usage("--json-response needs a body; it cannot be combined with -I") }

        // The method: as typed, else implied by the other options.
        let implied: String
        if options.headOnly { implied = "HEAD" }
        else if options.get { implied = "GET" }
        else if hasForm || hasData { implied = "POST" }
        else { implied = "GET" }
        let methodText = options.method ?? implied
        let method: HTTPMethod
        do { method = try HTTPMethod(methodText) } catch {
            throw CLIError(43, "invalid request method \"\(printable(methodText))\" (not an HTTP token)")
        }
        let upper = uppercasedASCII(methodText)
        if hasForm && (upper == "GET" || upper == "HEAD") {
            throw .usage("-F cannot be used with \(upper): a multipart body needs a method that carries a body")
        }

        // The -H fields, checked before anything else happens.
        var custom = HTTPHeaders()
        var removed = Set<String>()
        var mentioned = Set<String>()  // lower-cased names given with -H (set or removed)
        for line in try headerLines() {
            guard let field = try parseHeader(line) else { continue }
            let key = lowercasedASCII(field.name)
            mentioned.insert(key)
            if let value = field.value { custom.add(name: field.name, value: value) } else { removed.insert(key) }
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

        // The data, joined in command-line order.
        let data = try joinedData()
        var queryPieces: [String] = []
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
            for part in options.form { try appendFormPart(part, to: &form, fileSystem: fileSystem) }
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
                contentType = options.json.isEmpty ? "application/x-www-form-urlencoded" : "application/json"
            }
        }

        // The fields: defaults not mentioned by -H, then -H, then Content-Type.
        var headers = HTTPHeaders()
        var defaults: [(String, String)] = [("User-Agent", "\(CourierVersion.product)/\(CourierVersion.version)"),
                                            ("Accept", options.json.isEmpty ? "*/*" : "application/json")]
        if options.compressed && options.continueAt == nil { defaults.append(("Accept-Encoding", "gzip, deflate")) }
        if let languages = RequestDefaults.acceptLanguage(preferredLanguages(environment: environment)) {
            defaults.append(("Accept-Language", languages))
        }
        for (name, value) in defaults where !mentioned.contains(lowercasedASCII(name)) { headers.add(name: name, value: value) }
        for field in custom { headers.add(name: field.name, value: field.value) }
        if let contentType, !mentioned.contains("content-type") { headers.add(name: "Content-Type", value: contentType) }

        var authorization: String?
        if let user = options.user, !mentioned.contains("authorization") {
            authorization = basicAuthorization(user)
        }
        return RequestTemplate(method: method, headers: headers, query: queryPieces.joined(separator: "&"), body: body,
                               authorizationFixed: options.user != nil || mentioned.contains("authorization"),
                               authorization: authorization, removedHeaders: removed)
    }

    /// The request for one URL.
    /// - Throws: `CLIError` 3 (malformed URL) or 1 (unsupported scheme).
    func request(for urlText: String, template: RequestTemplate) throws(CLIError) -> HTTPRequest {
        var uri = try RequestBuilder.parseURL(urlText)
        if !template.query.isEmpty {
            let combined = uri.query.map { $0 + "&" + template.query } ?? template.query
            do { uri = try uri.replacingQuery(combined) } catch {
                throw CLIError(3, "URL using bad/illegal format or missing URL (the query cannot be added)")
            }
        }
        var headers = HTTPHeaders()
        var authorization = template.authorization
        if authorization == nil, !template.authorizationFixed, let userinfo = uri.userinfo {
            // curl: credentials in the URL are sent as Basic, percent-decoded.
            let decoded = (try? PercentEncoding.decodeToString(userinfo)) ?? userinfo
            authorization = basicAuthorization(decoded)
        }
        if let authorization { headers.add(name: "Authorization", value: authorization) }
        let body: HTTPRequest.Body
        var formContentType: (old: String, new: String)?
        switch template.body {
        case .none: body = .none
        case .bytes(let bytes): body = .bytes(bytes)
        case .multipart(let form):
            // A fresh boundary for every request (AFNetworking draws one per form), and the
            // Content-Type that names it.
            let fresh = form.replacingBoundary(RequestBuilder.makeBoundary())
            formContentType = (form.contentType, fresh.contentType)
            body = .multipart(fresh)
        }
        for field in template.headers {
            if let formContentType, field.value == formContentType.old, HTTPHeaders.namesEqual(field.name, "Content-Type") {
                headers.add(name: field.name, value: formContentType.new)
            } else {
                headers.add(name: field.name, value: field.value)
            }
        }
        return HTTPRequest(method: template.method, uri: uri, headers: headers, body: body)
    }

    // MARK: URLs

    /// Parses a command-line URL as curl does: no "scheme:/" means http://; one to three slashes
    /// after the scheme all mean "//" (`http:/host/path`, curl's reading), four or more are a
    /// malformed URL; only http and https are supported.
    /// - Throws: `CLIError` 3 or 1.
    static func parseURL(_ text: String) throws(CLIError) -> URI {
        var candidate = text
        if let (scheme, slashes) = schemePrefix(text) {
            guard slashes <= 3 else { throw CLIError(3, "URL using bad/illegal format or missing URL (too many slashes)") }
            let bytes = Array(text.utf8)
            candidate = String(decoding: bytes[..<scheme], as: UTF8.self) + "://"
                + String(decoding: bytes[(scheme + 1 + slashes)...], as: UTF8.self)
        } else {
            candidate = "http://" + text
        }
        let uri: URI
        do { uri = try URI(parsing: candidate) } catch {
            // curl's words for a host libidn2 refuses, with the label and the UTS #46 rule.
            if let idna = error.idna { throw CLIError(3, "Failed to convert host to ACE; \(idna)") }
            throw CLIError(3, "URL using bad/illegal format or missing URL")
        }
        guard let scheme = uri.scheme, scheme == "http" || scheme == "https" else {
            throw CLIError(1, "Protocol \"\(uri.scheme ?? "")\" not supported")
        }
        guard let host = uri.host, !host.text.isEmpty else {
            throw CLIError(3, "URL using bad/illegal format or missing URL (no host)")
        }
        return uri
    }

    /// Where `text`'s scheme ends (the offset of its ":") and how many slashes follow, when it
    /// starts with `scheme ":/"` (RFC 3986 scheme characters): curl's test, which keeps
    /// `localhost:8080` a host and port.
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
            let isLetter = (byte | 0x20) &- UInt8(ascii: "a") < 26
            let isOther = byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            if isLetter || (index > 0 && isOther) { index += 1; continue }
            break
        }
        guard index > 0 else { return false }
        return bytes.count >= index + 2 && bytes[index] == UInt8(ascii: ":") && bytes[index + 1] == UInt8(ascii: "/")
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

    private func basicAuthorization(_ credentials: String) -> String {
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
    /// them. A file part must be a regular file: a directory, FIFO, socket or device is 26 here,
    /// before anything is sent.
    private func appendFormPart(_ text: String, to form: inout MultipartForm, fileSystem: PosixFileSystem) throws(CLIError) {
        let argument = try FormArgument(parsing: text)
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

func uppercasedASCII(_ text: String) -> String {
    String(decoding: text.utf8.map { $0 &- UInt8(ascii: "a") < 26 ? $0 - 32 : $0 }, as: UTF8.self)
}

func lowercasedASCII(_ text: String) -> String {
    String(decoding: text.utf8.map { $0 &- UInt8(ascii: "A") < 26 ? $0 + 32 : $0 }, as: UTF8.self)
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
}
