// FormArgument: one `-F NAME=CONTENT` argument, read with curl's grammar (tool_formparse.c).
//
//     argument   = name "=" content *( ";" parameter )
//     content    = "@" word          a file part (its name and type from the file unless given)
//                / "<" word          a text part whose value is the file's bytes (no file name)
//                / word              a text part
//     parameter  = "type=" major "/" minor *( ";" type-param )   the part's Content-Type
//                / "filename=" word                                the file name (not with "<")
//                / "headers=" word                                 one extra header line
//                / "headers=@" word / "headers=<" word             header lines from a file
//     word       = DQUOTE *( "\" ( DQUOTE / "\" ) / other ) DQUOTE   (junk up to ";" ignored)
//                / *( not ";" )                                    (surrounding spaces dropped)
//
// As in curl: a parameter that is none of these is skipped with a warning, except right after a
// type, where it continues the type (`type=text/plain;charset=utf-8`); a type that is not
// `major/minor` is a usage error; in a headers file, a line starting with whitespace continues the
// previous one, `#` starts a comment line, CR is ignored. Not supported (usage error 2): several
// files in one part (`@a,b`, curl's multipart/mixed), `encoder=`.

/// A parsed `-F` argument.
struct FormArgument: Equatable {
    enum Content: Equatable {
        /// `name=value`: the value.
        case value(String)
        /// `name=@path`: a file part.
        case file(path: String)
        /// `name=<path`: the file's bytes as the value.
        case fileContents(path: String)
    }

    var name: String
    var content: Content
    var contentType: String?
    var fileName: String?
    /// Extra header lines, `Name: value`, in order.
    var headerLines: [String] = []
    /// Paths of header files (`headers=@FILE`), read by the caller, in order after `headerLines`.
    var headerFiles: [String] = []
    /// Warnings curl would print (unknown parameters).
    var warnings: [String] = []

    /// Parses an argument.
    /// - Parameters:
    ///   - text: the argument.
    ///   - literal: `--form-string`: everything after the first "=" is the value, as it is (no
    ///     `@`, `<` or parameters), as curl's literal_value.
    /// - Throws: `CLIError` 2 for what curl refuses.
    init(parsing text: String, literal: Bool = false) throws(CLIError) {
        let bytes = Array(text.utf8)
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            throw .usage("\(literal ? "--form-string" : "-F") needs NAME=VALUE (Illegally formatted input field): \"\(printable(text))\"")
        }
        name = String(decoding: bytes[..<equals], as: UTF8.self)
        if literal {
            content = .value(String(decoding: bytes[(equals + 1)...], as: UTF8.self))
            return
        }
        var reader = Reader(bytes: bytes, position: equals + 1)
        let kind = reader.peek
        if kind == UInt8(ascii: "@") || kind == UInt8(ascii: "<") { reader.position += 1 }
        let word = reader.word(stoppingAt: kind == UInt8(ascii: "@") ? UInt8(ascii: ",") : nil)
        switch kind {
        case UInt8(ascii: "@"):
            if reader.peek == UInt8(ascii: ",") {
                throw .usage("-F \"\(printable(text))\": several files in one part (multipart/mixed) are not supported")
            }
            content = .file(path: word)
        case UInt8(ascii: "<"): content = .fileContents(path: word)
        default: content = .value(word)
        }
        try parseParameters(&reader, text: text)
        if case .fileContents = content, let fileName {
            warnings.append("Field file name not allowed here: \(fileName)")
            self.fileName = nil
        }
    }

    private mutating func parseParameters(_ reader: inout Reader, text: String) throws(CLIError) {
        var typeOpen = false
        while reader.peek == UInt8(ascii: ";") {
            reader.position += 1
            reader.skipSpaces()
            if contentType == nil && reader.hasPrefix("type=") {
                reader.position += 5
                reader.skipSpaces()
                let start = reader.position
                let type = reader.rawUntilSemicolon()
                // curl: `%127[^/ ]/%127[^;, \n]` must match — a major and a minor type.
                let pieces = type.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
                guard pieces.count == 2, !pieces[0].isEmpty, !pieces[0].contains(" "),
                      let minorFirst = pieces[1].first, minorFirst != " ", minorFirst != ",", minorFirst != ";" else {
                    reader.position = start
                    throw .usage("-F \"\(printable(text))\": Illegally formatted content-type field")
                }
                contentType = type
                typeOpen = true
            } else if reader.hasPrefix("filename=") {
                typeOpen = false
                reader.position += 9
                reader.skipSpaces()
                fileName = reader.word(stoppingAt: nil)
            } else if reader.hasPrefix("headers=") {
                typeOpen = false
                reader.position += 8
                if reader.peek == UInt8(ascii: "@") || reader.peek == UInt8(ascii: "<") {
                    reader.position += 1
                    reader.skipSpaces()
                    headerFiles.append(reader.word(stoppingAt: nil))
                } else {
                    reader.skipSpaces()
                    headerLines.append(reader.word(stoppingAt: nil))
                }
            } else if reader.hasPrefix("encoder=") {
                throw .usage("-F \"\(printable(text))\": encoder= is not supported")
            } else if typeOpen {
                // curl: after a type, anything else up to the next ";" continues the type.
                let more = reader.rawUntilSemicolon()
                if !more.isEmpty { contentType! += ";" + more }
            } else {
                let unknown = reader.word(stoppingAt: nil)
                if !unknown.isEmpty { warnings.append("skip unknown form field: \(unknown)") }
            }
        }
    }

    /// The header lines of a headers file (curl's `read_field_headers`): a line starting with
    /// whitespace continues the previous one, `#` at the start of a line makes it a comment, CR
    /// is ignored, trailing whitespace is dropped.
    static func headerLines(fromFile bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var current: [UInt8] = []
        var inComment = false
        var atLineStart = true
        func flush() {
            while let last = current.last, last == 0x20 || last == 0x09 { current.removeLast() }
            if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll()
        }
        for byte in bytes {
            if byte == 0x0D { continue }
            if byte == 0x0A {
                atLineStart = true
                inComment = false
                continue
            }
            if atLineStart {
                if byte != 0x20 && byte != 0x09 { flush() }
                if byte == UInt8(ascii: "#") { inComment = true }
                atLineStart = false
            }
            if !inComment { current.append(byte) }
        }
        flush()
        return lines
    }

    /// A cursor over the argument's bytes.
    private struct Reader {
        let bytes: [UInt8]
        var position: Int

        var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

        mutating func skipSpaces() {
            while let byte = peek, byte == 0x20 || byte == 0x09 { position += 1 }
        }

        func hasPrefix(_ text: String) -> Bool {
            let prefix = Array(text.utf8)
            return bytes.count - position >= prefix.count && Array(bytes[position..<(position + prefix.count)]) == prefix
        }

        /// The bytes up to the next ";" (or the end), trailing spaces dropped.
        mutating func rawUntilSemicolon() -> String {
            let start = position
            while let byte = peek, byte != UInt8(ascii: ";") { position += 1 }
            var end = position
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }

        /// curl's `get_param_word`: a quoted word (`\"` and `\\` escapes; what follows the closing
        /// quote up to ";" is ignored), or the bytes up to ";" or `stop` with trailing spaces
        /// dropped. An unterminated quote makes the word unquoted.
        mutating func word(stoppingAt stop: UInt8?) -> String {
            skipSpaces()
            let start = position
            if peek == UInt8(ascii: "\"") {
                var out: [UInt8] = []
                var i = position + 1
                while i < bytes.count {
                    let byte = bytes[i]
                    if byte == UInt8(ascii: "\\"), i + 1 < bytes.count,
                       bytes[i + 1] == UInt8(ascii: "\\") || bytes[i + 1] == UInt8(ascii: "\"") {
                        out.append(bytes[i + 1])
                        i += 2
                        continue
                    }
                    if byte == UInt8(ascii: "\"") {
                        position = i + 1
                        while let next = peek, next != UInt8(ascii: ";"), next != stop { position += 1 }
                        return String(decoding: out, as: UTF8.self)
                    }
                    out.append(byte)
                    i += 1
                }
                position = start  // no closing quote: read it as an unquoted word
            }
            while let byte = peek, byte != UInt8(ascii: ";"), byte != stop { position += 1 }
            var end = position
            while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }
}
