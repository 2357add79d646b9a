// MultipartForm, round trip: what a strict parser must give back for a form's body, so the
// property parse(render(form)) == form is one comparison in tests and in the fuzz target.
//
// The answer is exact, not approximate: header lines as written (names escaped), name and file
// name as the parser unescapes them (which is not always the original: browsers do not escape `%`,
// so a name holding the text "%22" comes back as `"`), content type, body bytes. A form with no
// round trip answers nil rather than a wrong expectation: an empty form (no body at all), a part
// appended with custom headers that are not RFC 7578 form-data, or a body that contains the
// delimiter (RFC 2046 §5.1: it must not; with a random 64-bit boundary that is a 2^-64 event).

import CourierBytes

extension MultipartForm {
    /// What `MultipartParser` returns for this form's body, given limits large enough for it.
    /// - Parameter fileSystem: reads file parts; required when the form has any.
    /// - Returns: the parts, or nil when the body has no form-data parse (see above).
    /// - Throws: `MultipartError` when a file or stream cannot be read as appended.
    public func expectedParsedParts(fileSystem: (any MultipartFileSystem)? = nil) throws(MultipartError) -> [MultipartParsedPart]? {
        guard !parts.isEmpty else { return nil }
        var rendered = ByteBuffer()
        try render(into: &rendered, fileSystem: fileSystem)
        var result: [MultipartParsedPart] = []
        result.reserveCapacity(parts.count)
        var offset = rendered.readerIndex
        for part in parts {
            offset += part.leadEnd - part.leadStart
            let body = rendered.getSlice(at: offset, length: Int(part.bodyLength))!
            offset += Int(part.bodyLength)
            if body.withUnsafeReadableBytes({ boundary.occurs(in: $0) }) { return nil }
            let headers = part.headers
            let head: MultipartPartHead
            if part.customHeaders != nil || !part.extraHeaders.isEmpty {
                guard let parsed = MultipartForm.formDataHead(headers) else { return nil }
                head = parsed
            } else {
                head = MultipartPartHead(
                    headers: headers,
                    name: MultipartEscaping.unescape(MultipartEscaping.escape(part.name ?? "")),
                    fileName: part.fileName.map { MultipartEscaping.unescape(MultipartEscaping.escape($0)) },
                    contentType: part.contentType)
            }
            result.append(MultipartParsedPart(head: head, body: body))
        }
        return result
    }

    /// The head a strict parser makes of custom header lines, or nil when they are not form-data.
    static func formDataHead(_ headers: [MultipartHeader]) -> MultipartPartHead? {
        var disposition: String?
        var contentType: String?
        for header in headers {
            switch ASCIICase.lowercased(bytes: header.name.utf8) {
            case Array("content-disposition".utf8):
                guard disposition == nil else { return nil }
                disposition = header.value
            case Array("content-type".utf8):
                guard contentType == nil else { return nil }
                contentType = header.value
            default:
                break
            }
        }
        guard let disposition,
              let names = try? MultipartParser.parseDisposition(Array(disposition.utf8)) else { return nil }
        return MultipartPartHead(headers: headers, name: names.name, fileName: names.fileName, contentType: contentType)
    }
}
