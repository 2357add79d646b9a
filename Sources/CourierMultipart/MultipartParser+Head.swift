// MultipartParser, part heads: header lines and the Content-Disposition value.
//
//   field-line  := field-name ":" OWS field-value OWS CRLF        (RFC 9112 §5, RFC 9110 §5.5)
//   field-name  := token                                          (no whitespace before ":")
//
//   disposition := "form-data" *( OWS ";" OWS parameter )         (RFC 7578 §4.2, RFC 6266 §4.1)
//   parameter   := token "=" ( token / quoted )
//   quoted      := DQUOTE *( field-vchar / SP / HTAB except DQUOTE ) DQUOTE
//
// Quoted values take no backslash escapes: browsers write `\` as it is and escape only `"`, CR and
// LF, as `%22`, `%0D`, `%0A` (WHATWG HTML's multipart/form-data encoding; RFC 7578 §2 and §4.2
// point to percent-encoding). Those three sequences are decoded in `name` and `filename`; the
// header list keeps the value exactly as received. Unknown parameters (`filename*`, which RFC 7578
// §4.2 says senders must not use, among them) are accepted and ignored.

import CourierBytes

extension MultipartParser {
    /// Parses one header line of the current part, or the empty line that ends the block.
    mutating func parseHeaderLine(fields: [MultipartHeader], bytes: Int, scanned: Int) throws(MultipartParseError) -> Step {
        let limit = limits.maxHeaderBytesPerPart
        let lineFeed: Int? = buffer.withUnsafeReadableBytes { raw in
            var i = scanned
            while i < raw.count {
                if raw[i] == 0x0A { return i }
                i += 1
            }
            return nil
        }
        guard let lf = lineFeed else {
            // Never wait forever for a line that is already over the limit.
            if bytes + buffer.readableBytes > limit { throw error(.headerBlockTooLarge, at: max(0, limit - bytes)) }
            state = .headers(fields: fields, bytes: bytes, scanned: buffer.readableBytes)
            return .needMoreData
        }
        let lineLength = lf + 1
        if bytes + lineLength > limit { throw error(.headerBlockTooLarge, at: max(0, limit - bytes)) }
        // A bare LF ends no line (RFC 9112 §2.2 lets a recipient accept it; a strict one does not).
        guard lf >= 1, buffer.getInteger(at: buffer.readerIndex + lf - 1) == 0x0D else {
            throw error(.malformedHeaderField, at: lf)
        }
        let contentLength = lf - 1
        if contentLength == 0 {
            let head = try makeHead(fields)
            advance(2)
            state = .body
            return .emit(.partHead(head))
        }
        if fields.count >= limits.maxHeaderFieldsPerPart { throw error(.tooManyHeaderFields) }
        let field = try parseField(length: contentLength)
        advance(lineLength)
        var fields = fields
        fields.append(field)
        state = .headers(fields: fields, bytes: bytes + lineLength, scanned: 0)
        return .next
    }

    /// Parses the field line held in the first `length` readable bytes.
    func parseField(length: Int) throws(MultipartParseError) -> MultipartHeader {
        let table = ByteClass.table
        let parsed: Result<MultipartHeader, MultipartParseError> = buffer.withUnsafeReadableBytes { raw in
            let line = UnsafeRawBufferPointer(rebasing: raw[0..<length])
            // RFC 9112 §5.2: obs-fold. A line that starts with whitespace continues nothing here.
            if line[0] == 0x20 || line[0] == 0x09 { return .failure(error(.obsoleteLineFolding)) }
            var i = 0
            while i < length, table[line[i]].contains(.token) { i += 1 }
            guard i > 0, i < length, line[i] == UInt8(ascii: ":") else { return .failure(error(.malformedHeaderField, at: i)) }
            let name = String(decoding: line[0..<i], as: UTF8.self)
            var start = i + 1
            var end = length
            while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
            while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
            var j = start
            while j < end {
                guard table[line[j]].contains(.fieldValue) else { return .failure(error(.malformedHeaderField, at: j)) }
                j += 1
            }
            guard let value = String(validating: line[start..<end], as: UTF8.self) else {
                return .failure(error(.invalidUTF8, at: start))
            }
            return .success(MultipartHeader(name: name, value: value))
        }
        return try parsed.get()
    }

    /// Checks the header block of a part and reads its name, file name and type (RFC 7578 §4.2,
    /// §4.4).
    func makeHead(_ fields: [MultipartHeader]) throws(MultipartParseError) -> MultipartPartHead {
        var disposition: String?
        var contentType: String?
        for field in fields {
            switch ASCIICase.lowercased(bytes: field.name.utf8) {
            case Array("content-disposition".utf8):
                guard disposition == nil else { throw error(.duplicateContentDisposition) }
                disposition = field.value
            case Array("content-type".utf8):
                guard contentType == nil else { throw error(.duplicateContentType) }
                contentType = field.value
            default:
                break
            }
        }
        guard let disposition else { throw error(.missingContentDisposition) }
        let names: (name: String, fileName: String?)
        do {
            names = try MultipartParser.parseDisposition(Array(disposition.utf8))
        } catch let failure {
            throw error(failure.code)
        }
        return MultipartPartHead(headers: fields, name: names.name, fileName: names.fileName, contentType: contentType)
    }

    /// Parses a `Content-Disposition` value of a form-data part.
    /// - Parameter value: the field value's bytes.
    /// - Returns: the unescaped name and file name.
    /// - Throws: the error code.
    static func parseDisposition(_ value: [UInt8]) throws(DispositionFailure) -> (name: String, fileName: String?) {
        let table = ByteClass.table
        var i = 0
        let n = value.count
        func token() -> ArraySlice<UInt8>? {
            let start = i
            while i < n, table[value[i]].contains(.token) { i += 1 }
            return i > start ? value[start..<i] : nil
        }
        func skipWhitespace() { while i < n, value[i] == 0x20 || value[i] == 0x09 { i += 1 } }

        guard let type = token() else { throw DispositionFailure(code: .malformedContentDisposition) }
        guard ASCIICase.lowercased(bytes: type) == Array("form-data".utf8) else { throw DispositionFailure(code: .notFormData) }
        var name: [UInt8]?
        var fileName: [UInt8]?
        while true {
            skipWhitespace()
            if i == n { break }
            guard value[i] == UInt8(ascii: ";") else { throw DispositionFailure(code: .malformedContentDisposition) }
            i += 1
            skipWhitespace()
            // RFC 9110 §5.6.6: no whitespace around "=".
            guard let parameter = token(), i < n, value[i] == UInt8(ascii: "=") else { throw DispositionFailure(code: .malformedContentDisposition) }
            i += 1
            let parameterValue: ArraySlice<UInt8>
            if i < n, value[i] == UInt8(ascii: "\"") {
                i += 1
                let start = i
                while i < n, value[i] != UInt8(ascii: "\"") { i += 1 }
                guard i < n else { throw DispositionFailure(code: .malformedContentDisposition) }
                parameterValue = value[start..<i]
                i += 1
            } else {
                guard let plain = token() else { throw DispositionFailure(code: .malformedContentDisposition) }
                parameterValue = plain
            }
            switch ASCIICase.lowercased(bytes: parameter) {
            case Array("name".utf8):
                guard name == nil else { throw DispositionFailure(code: .duplicateParameter) }
                name = Array(parameterValue)
            case Array("filename".utf8):
                guard fileName == nil else { throw DispositionFailure(code: .duplicateParameter) }
                fileName = Array(parameterValue)
            default:
                break
            }
        }
        guard let name else { throw DispositionFailure(code: .missingName) }
        // The value was valid UTF-8 and the cuts are at ASCII bytes, so these decode exactly.
        let decodedName = String(decoding: MultipartEscaping.unescape(bytes: name), as: UTF8.self)
        let decodedFileName = fileName.map { String(decoding: MultipartEscaping.unescape(bytes: $0), as: UTF8.self) }
        return (decodedName, decodedFileName)
    }
}

/// A Content-Disposition syntax failure, before it is given an offset.
struct DispositionFailure: Error {
    var code: MultipartParseError.Code
}
