// MultipartForm: AFNetworking's AFStreamingMultipartFormData — the builder of a multipart/form-data
// body (RFC 7578) whose parts are described, not read.
//
// What it owns: the boundary, the ordered parts, and one `framing` buffer that holds, for every
// part, its opening delimiter and header block exactly as they go on the wire. Framing is built
// once, at append time, so producing the body is bulk copies of ready bytes and never formats text.
//
// Invariants:
//   - part i's framing is framing[leadStart ..< leadEnd]: its delimiter line ("--B\r\n" for the
//     first part, "\r\n--B\r\n" for the others, AFNetworking's initial and encapsulation
//     boundaries) up to headerStart, then its header lines and the empty line;
//   - `partsLength` is the exact sum of every part's framing and body length, computed with checked
//     arithmetic; the body's Content-Length is that plus the close delimiter "\r\n--B--\r\n", or 0
//     for a form with no parts (AFNetworking sends no body then);
//   - every name, file name, MIME type and custom header was validated before anything was written,
//     so a failed append leaves the form unchanged.
//
// Framing of one part (RFC 2046 §5.1.1, RFC 7578 §4.2 and §4.4):
//
//     --B CRLF                                             (first part; later parts: CRLF --B CRLF)
//     Content-Disposition: form-data; name="N"[; filename="F"] CRLF
//     [Content-Type: T CRLF]
//     CRLF
//     body bytes
//     ... after the last part: CRLF --B-- CRLF

import CourierBytes

/// A multipart/form-data form: parts appended in order, framing precomputed, exact length known.
public struct MultipartForm: Sendable {
    /// What a part's body is.
    public enum Body: Sendable {
        /// Bytes in memory, sent by reference.
        case bytes(ByteBuffer)
        /// A range of a file, read (or sendfile'd) when the body is produced.
        case file(MultipartFileRange)
        /// A restartable stream of a declared length.
        case stream(any MultipartStream, length: UInt64)
    }

    /// One part of the form.
    public struct Part: Sendable {
        /// The form field name (unescaped), or nil for a part appended with custom headers.
        public let name: String?
        /// The file name (unescaped), for file, data and stream parts.
        public let fileName: String?
        /// The part's `Content-Type`, for file, data and stream parts.
        public let contentType: String?
        /// The part's body.
        public let body: Body
        /// The length of the body in bytes.
        public let bodyLength: UInt64
        /// Header lines the caller added after the generated ones (curl's `-F ...;headers=`); one
        /// named Content-Disposition or Content-Type replaces the generated line of that name.
        public let extraHeaders: [MultipartHeader]
        let customHeaders: [MultipartHeader]?
        let leadStart: Int
        let headerStart: Int
        let leadEnd: Int

        /// The part's header lines in wire order, names and file names escaped as on the wire.
        public var headers: [MultipartHeader] {
            if let customHeaders { return customHeaders }
            var list: [MultipartHeader] = []
            if !MultipartForm.contains("content-disposition", in: extraHeaders) {
                var disposition = "form-data; name=\"\(MultipartEscaping.escape(name ?? ""))\""
                if let fileName { disposition += "; filename=\"\(MultipartEscaping.escape(fileName))\"" }
                list.append(MultipartHeader(name: "Content-Disposition", value: disposition))
            }
            if let contentType, !MultipartForm.contains("content-type", in: extraHeaders) {
                list.append(MultipartHeader(name: "Content-Type", value: contentType))
            }
            return list + extraHeaders
        }
    }

    /// The boundary between parts.
    public let boundary: MultipartBoundary
    /// The parts, in append order.
    public private(set) var parts: [Part] = []
    /// A bandwidth limit for sending the body (AFNetworking's `throttleBandwidthWithPacketSize:delay:`),
    /// or nil to send as fast as the connection takes it. The session's body source waits between
    /// packets asynchronously; producing the body by `read(into:)` or `renderedBytes()` ignores it.
    public var throttle: MultipartThrottle?
    /// Every part's delimiter and header bytes, back to back.
    private(set) var framing: ByteBuffer
    /// "\r\n--B--\r\n".
    let closeDelimiter: ByteBuffer
    /// Framing plus body bytes of all parts, without the close delimiter.
    private var partsLength: UInt64 = 0

    /// Creates an empty form.
    /// - Parameter boundary: the boundary; make it with `MultipartBoundary(randomBits:)` from the
    ///   caller's randomness, as AFNetworking does with `arc4random()`.
    public init(boundary: MultipartBoundary) {
        self.boundary = boundary
        self.framing = ByteBuffer(capacity: 256)
        var close = ByteBuffer(capacity: boundary.bytes.count + 8)
        close.writeString("\r\n--")
        close.writeBytes(boundary.bytes)
        close.writeString("--\r\n")
        self.closeDelimiter = close
    }

    /// The request's `Content-Type`: `multipart/form-data; boundary=B`.
    public var contentType: String { boundary.contentType }

    /// Whether no part has been appended (the body is then empty and no Content-Type is needed).
    public var isEmpty: Bool { parts.isEmpty }

    /// The exact number of body bytes, known before the first byte is produced.
    public var contentLength: UInt64 {
        parts.isEmpty ? 0 : partsLength + UInt64(closeDelimiter.readableBytes)
    }

    /// The wire bytes of part `index`'s delimiter line and header block (a slice of the framing,
    /// not a copy).
    /// - Parameter index: the part's index.
    /// - Returns: the bytes.
    public func framingBytes(ofPart index: Int) -> ByteBuffer {
        let part = parts[index]
        return framing.getSlice(at: part.leadStart, length: part.leadEnd - part.leadStart)!
    }

    // MARK: Appending (AFMultipartFormData)

    /// Appends a file, named after its last path component, with its MIME type inferred from its
    /// extension by the file system (`appendPartWithFileURL:name:error:`).
    /// - Parameters:
    ///   - path: the file's path.
    ///   - name: the form field name.
    ///   - fileSystem: asked for the file's size and identity now; the same or another file system
    ///     reads the bytes later.
    /// - Throws: `MultipartError` — `.invalidFilePath`, `.invalidName`, `.fileUnavailable`,
    ///   `.contentLengthOverflow`.
    public mutating func appendFile(atPath path: String, name: String, fileSystem: some MultipartFileSystem) throws(MultipartError) {
        guard let fileName = MultipartForm.lastPathComponent(path) else {
            throw MultipartError(.invalidFilePath, partIndex: parts.count)
        }
        try appendFile(atPath: path, name: name, fileName: fileName,
                       mimeType: fileSystem.mimeType(forFileName: fileName), fileSystem: fileSystem)
    }

    /// Appends a file with an explicit file name and MIME type
    /// (`appendPartWithFileURL:name:fileName:mimeType:error:`), optionally only a byte range of it.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    ///   - byteRange: the bytes of the file to send; nil for the whole file.
    ///   - fileSystem: asked for the file's size and identity now.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderValue`, `.fileUnavailable`,
    ///   `.invalidFileRange`, `.contentLengthOverflow`.
    public mutating func appendFile(
        atPath path: String, name: String, fileName: String, mimeType: String,
        byteRange: Range<UInt64>? = nil, fileSystem: some MultipartFileSystem
    ) throws(MultipartError) {
        try appendFile(atPath: path, name: name, fileName: fileName, mimeType: mimeType, byteRange: byteRange,
                       headers: [], fileSystem: fileSystem)
    }

    /// Appends a file with an explicit file name and MIME type, and header lines of the caller's
    /// after the generated ones (curl's `-F "name=@file;type=T;headers=H"`).
    /// - Parameters:
    ///   - path: the file's path.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    ///   - byteRange: the bytes of the file to send; nil for the whole file.
    ///   - headers: extra header lines; one named Content-Disposition or Content-Type replaces the
    ///     generated one.
    ///   - fileSystem: asked for the file's size and identity now.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderName`, `.invalidHeaderValue`,
    ///   `.fileUnavailable`, `.invalidFileRange`, `.contentLengthOverflow`.
    public mutating func appendFile(
        atPath path: String, name: String, fileName: String, mimeType: String,
        byteRange: Range<UInt64>? = nil, headers: [MultipartHeader], fileSystem: some MultipartFileSystem
    ) throws(MultipartError) {
        let attributes: MultipartFileAttributes
        do {
            attributes = try fileSystem.attributes(ofFileAt: path)
        } catch {
            throw MultipartError(.fileUnavailable, partIndex: parts.count, underlying: error)
        }
        let range = byteRange ?? 0..<attributes.size
        guard range.upperBound <= attributes.size else {
            throw MultipartError(.invalidFileRange, partIndex: parts.count)
        }
        let file = MultipartFileRange(path: path, offset: range.lowerBound, length: range.upperBound - range.lowerBound,
                                      expectedAttributes: attributes)
        try append(name: name, fileName: fileName, contentType: mimeType, customHeaders: nil, extraHeaders: headers,
                   body: .file(file), bodyLength: file.length)
    }

    /// Appends a file part already described by the caller (the I/O layer examined the file).
    /// - Parameters:
    ///   - file: the path, byte range and the attributes the file must still have when it is read.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderValue`, `.invalidFileRange`,
    ///   `.contentLengthOverflow`.
    public mutating func appendFile(_ file: MultipartFileRange, name: String, fileName: String, mimeType: String) throws(MultipartError) {
        let (end, overflow) = file.offset.addingReportingOverflow(file.length)
        guard !overflow, end <= file.expectedAttributes.size else {
            throw MultipartError(.invalidFileRange, partIndex: parts.count)
        }
        try append(name: name, fileName: fileName, contentType: mimeType, customHeaders: nil,
                   body: .file(file), bodyLength: file.length)
    }

    /// Appends in-memory bytes as a file (`appendPartWithFileData:name:fileName:mimeType:`). The
    /// buffer is kept by reference and never copied.
    /// - Parameters:
    ///   - data: the bytes (its readable bytes).
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderValue`, `.contentLengthOverflow`.
    public mutating func appendData(_ data: ByteBuffer, name: String, fileName: String, mimeType: String) throws(MultipartError) {
        try append(name: name, fileName: fileName, contentType: mimeType, customHeaders: nil,
                   body: .bytes(data), bodyLength: UInt64(data.readableBytes))
    }

    /// Appends a stream of a declared length as a file
    /// (`appendPartWithInputStream:name:fileName:length:mimeType:`). Unlike AFNetworking, a stream
    /// whose real length differs from `length` fails the body instead of corrupting it.
    /// - Parameters:
    ///   - stream: the stream; a fresh reader is made for every pass over the body.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - length: the exact number of bytes the stream yields.
    ///   - mimeType: the part's `Content-Type`.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderValue`, `.contentLengthOverflow`.
    public mutating func appendStream(
        _ stream: some MultipartStream, name: String, fileName: String, length: UInt64, mimeType: String
    ) throws(MultipartError) {
        try append(name: name, fileName: fileName, contentType: mimeType, customHeaders: nil,
                   body: .stream(stream, length: length), bodyLength: length)
    }

    /// Appends a plain form field (`appendPartWithFormData:name:`).
    /// - Parameters:
    ///   - name: the form field name.
    ///   - value: the value's bytes, kept by reference.
    /// - Throws: `MultipartError` — `.invalidName`, `.contentLengthOverflow`.
    public mutating func appendField(name: String, value: ByteBuffer) throws(MultipartError) {
        try append(name: name, fileName: nil, contentType: nil, customHeaders: nil,
                   body: .bytes(value), bodyLength: UInt64(value.readableBytes))
    }

    /// Appends a plain form field whose value is text, sent as UTF-8.
    /// - Parameters:
    ///   - name: the form field name.
    ///   - value: the value.
    /// - Throws: `MultipartError` — `.invalidName`, `.contentLengthOverflow`.
    public mutating func appendField(name: String, value: String) throws(MultipartError) {
        try appendField(name: name, value: ByteBuffer(string: value))
    }

    /// Appends a form field with the options curl's `-F "name=value;type=T;filename=F;headers=H"`
    /// gives it: a Content-Type, a file name in Content-Disposition, extra header lines.
    /// - Parameters:
    ///   - name: the form field name.
    ///   - value: the value's bytes, kept by reference.
    ///   - contentType: the part's Content-Type, or nil for none.
    ///   - fileName: a file name for Content-Disposition, or nil for none.
    ///   - headers: extra header lines; one named Content-Disposition or Content-Type replaces the
    ///     generated one.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderName`, `.invalidHeaderValue`,
    ///   `.contentLengthOverflow`.
    public mutating func appendField(name: String, value: ByteBuffer, contentType: String?, fileName: String?,
                                     headers: [MultipartHeader]) throws(MultipartError) {
        try append(name: name, fileName: fileName, contentType: contentType, customHeaders: nil, extraHeaders: headers,
                   body: .bytes(value), bodyLength: UInt64(value.readableBytes))
    }

    /// The same form with another boundary: the same parts, their framing written again. A
    /// request that is sent again (another URL, a retry by the caller) gets a fresh boundary this
    /// way without reading or re-validating any part.
    /// - Parameter boundary: the new boundary.
    /// - Returns: the form.
    public func replacingBoundary(_ boundary: MultipartBoundary) -> MultipartForm {
        var form = MultipartForm(boundary: boundary)
        form.throttle = throttle
        for part in parts {
            // Every part was validated when it was first appended; its lengths are unchanged
            // except the boundary's, which is bounded (70 bytes), so this cannot fail.
            try! form.append(name: part.name, fileName: part.fileName, contentType: part.contentType,
                             customHeaders: part.customHeaders, extraHeaders: part.extraHeaders,
                             body: part.body, bodyLength: part.bodyLength)
        }
        return form
    }

    /// Appends a part with the caller's own header lines, in the given order
    /// (`appendPartWithHeaders:body:`). RFC 7578 §4.2 wants a `Content-Disposition: form-data`
    /// header with a name; without one the body is multipart but not form-data.
    /// - Parameters:
    ///   - headers: the header lines; names must be tokens, values free of CR, LF, NUL and other
    ///     control bytes and of leading or trailing whitespace.
    ///   - body: the bytes, kept by reference.
    /// - Throws: `MultipartError` — `.invalidHeaderName`, `.invalidHeaderValue`,
    ///   `.contentLengthOverflow`.
    public mutating func appendPart(headers: [MultipartHeader], body: ByteBuffer) throws(MultipartError) {
        try append(name: nil, fileName: nil, contentType: nil, customHeaders: headers,
                   body: .bytes(body), bodyLength: UInt64(body.readableBytes))
    }

    /// AFNetworking's `throttleBandwidthWithPacketSize:delay:`: at most `packetSize` bytes every
    /// `delay` on average.
    /// - Parameters:
    ///   - packetSize: bytes per packet (AFNetworking suggests `MultipartThrottle.suggestedPacketSize`).
    ///   - delay: the time per packet (AFNetworking suggests `MultipartThrottle.suggestedDelay`).
    public mutating func throttleBandwidth(packetSize: Int, delay: Duration) {
        throttle = MultipartThrottle(packetSize: packetSize, delay: delay)
    }

    // MARK: Building one part's framing

    private mutating func append(
        name: String?, fileName: String?, contentType: String?, customHeaders: [MultipartHeader]?,
        extraHeaders: [MultipartHeader] = [], body: Body, bodyLength: UInt64
    ) throws(MultipartError) {
        let index = parts.count
        if let name, !MultipartEscaping.isEscapable(name) { throw MultipartError(.invalidName, partIndex: index) }
        if let fileName, !MultipartEscaping.isEscapable(fileName) { throw MultipartError(.invalidName, partIndex: index) }
        if let contentType, contentType.isEmpty || !MultipartHeader.isValidValue(contentType) {
            throw MultipartError(.invalidHeaderValue, partIndex: index)
        }
        for header in (customHeaders ?? []) + extraHeaders {
            guard MultipartHeader.isValidName(header.name) else { throw MultipartError(.invalidHeaderName, partIndex: index) }
            guard MultipartHeader.isValidValue(header.value) else { throw MultipartError(.invalidHeaderValue, partIndex: index) }
        }

        let leadStart = framing.writerIndex
        // AFNetworking's initial boundary for the first part, encapsulation boundary for the rest.
        framing.writeString(parts.isEmpty ? "--" : "\r\n--")
        framing.writeBytes(boundary.bytes)
        framing.writeString("\r\n")
        let headerStart = framing.writerIndex
        if let customHeaders {
            for header in customHeaders {
                framing.writeString(header.name)
                framing.writeString(": ")
                framing.writeString(header.value)
                framing.writeString("\r\n")
            }
        } else {
            if !MultipartForm.contains("content-disposition", in: extraHeaders) {
                framing.writeString("Content-Disposition: form-data; name=\"")
                MultipartEscaping.writeEscaped(name ?? "", into: &framing)
                if let fileName {
                    framing.writeString("\"; filename=\"")
                    MultipartEscaping.writeEscaped(fileName, into: &framing)
                }
                framing.writeString("\"\r\n")
            }
            if let contentType, !MultipartForm.contains("content-type", in: extraHeaders) {
                framing.writeString("Content-Type: ")
                framing.writeString(contentType)
                framing.writeString("\r\n")
            }
            for header in extraHeaders {
                framing.writeString(header.name)
                framing.writeString(": ")
                framing.writeString(header.value)
                framing.writeString("\r\n")
            }
        }
        framing.writeString("\r\n")
        let leadEnd = framing.writerIndex

        // Checked arithmetic: the total must fit a Content-Length on every platform (Int64).
        let limit = UInt64(Int64.max) - UInt64(closeDelimiter.readableBytes)
        let (withLead, o1) = partsLength.addingReportingOverflow(UInt64(leadEnd - leadStart))
        let (total, o2) = withLead.addingReportingOverflow(bodyLength)
        guard !o1, !o2, total <= limit else {
            framing.moveWriterIndex(to: leadStart)
            throw MultipartError(.contentLengthOverflow, partIndex: index)
        }
        partsLength = total
        parts.append(Part(name: name, fileName: fileName, contentType: contentType, body: body,
                          bodyLength: bodyLength, extraHeaders: extraHeaders, customHeaders: customHeaders,
                          leadStart: leadStart, headerStart: headerStart, leadEnd: leadEnd))
    }

    /// Whether `headers` has a line named `lowercasedName` (ASCII case-insensitive).
    static func contains(_ lowercasedName: String, in headers: [MultipartHeader]) -> Bool {
        headers.contains { ASCIICase.lowercased(bytes: $0.name.utf8) == Array(lowercasedName.utf8) }
    }

    /// The last path component (after trailing slashes are dropped), as NSURL's `lastPathComponent`.
    static func lastPathComponent(_ path: String) -> String? {
        var utf8 = Array(path.utf8)
        while utf8.count > 1, utf8.last == UInt8(ascii: "/") { utf8.removeLast() }
        let start = (utf8.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 }) ?? 0
        let component = utf8[start...]
        guard !component.isEmpty else { return nil }
        return String(decoding: component, as: UTF8.self)
    }
}

/// A file part's description: which bytes of which file, and what the file must still look like
/// when it is read.
public struct MultipartFileRange: Sendable, Hashable {
    /// The file's path.
    public var path: String
    /// The file offset of the first byte sent.
    public var offset: UInt64
    /// The number of bytes sent.
    public var length: UInt64
    /// The size and identity the file had when the part was appended; any difference when the body
    /// is produced fails it (`.fileSizeChanged`, `.fileIdentityChanged`).
    public var expectedAttributes: MultipartFileAttributes

    /// Creates a description.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - offset: the first byte sent.
    ///   - length: the number of bytes sent.
    ///   - expectedAttributes: what the file must still look like when read.
    public init(path: String, offset: UInt64, length: UInt64, expectedAttributes: MultipartFileAttributes) {
        self.path = path
        self.offset = offset
        self.length = length
        self.expectedAttributes = expectedAttributes
    }
}
