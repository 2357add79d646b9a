// XMLParser: a small, strict, Foundation-free XML 1.0 parser for response bodies (what
// AFXMLParserResponseSerializer handed to NSXMLParser), producing events or a tree.
//
// It owns: well-formedness of one whole document (XML 1.0 Fifth Edition §2.1, §2.8, §3.1):
//   - UTF-8 only (a UTF-8 BOM is skipped); ill-formed UTF-8 and control characters other than
//     TAB, LF, CR are rejected (§2.2 Char);
//   - an optional XML declaration, only at the very start (§2.8);
//   - comments (no "--" inside, §2.5) and processing instructions are skipped; a PI target of
//     "xml" in any case elsewhere is rejected (§2.6);
//   - elements: matching start and end tags (§3, WFC Element Type Match), unique attribute names
//     (WFC Unique Att Spec), quoted attribute values without "<" (WFC No < in Attribute Values),
//     whitespace in attribute values normalised to spaces (§3.3.3);
//   - text: the five predefined entities (§4.6) and numeric character references that name a
//     legal Char (§4.1, WFC Legal Character); "]]>" is not allowed in text (§2.4); CDATA sections
//     are text (§2.7);
//   - exactly one root element; only whitespace, comments and PIs around it (§2.1 document).
// It refuses, on purpose: any DTD processing. A DOCTYPE without an internal subset is skipped
// (its external identifier is never fetched); a DOCTYPE WITH an internal subset ("[") is rejected
// (`doctypeNotAllowed`), so no entity can be declared — no billion laughs, no external entities.
// Every other `&name;` is `undefinedEntity`.
// Names are checked with a simplified NameStartChar / NameChar: ASCII letters, "_", ":" and any
// non-ASCII character to start; digits, "-", "." as well after that.
//
// Invariants: the input is read once, front to back, with an index; the element stack is an
// explicit array bounded by `Limits.maxDepth`, so no input can exhaust the call stack. Errors
// carry the byte offset of the offending byte (the input's length for a premature end).
// Not incremental: the whole body is parsed at once (the response serializer has it in memory).

import CourierBytes

/// A stable XML error code and the byte offset where it was found.
public struct XMLError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The closed set of reasons.
    public struct Code: ClosedErrorCode {
        /// The name.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .unexpectedEndOfInput, .unexpectedByte, .invalidUTF8, .invalidCharacter, .invalidName,
            .mismatchedTag, .undefinedEntity, .invalidReference, .duplicateAttribute,
            .doctypeNotAllowed, .invalidComment, .misplacedXMLDeclaration, .noRootElement,
            .multipleRootElements, .textOutsideRoot, .cdataEndInText, .depthLimitExceeded,
            .attributeLimitExceeded
        ]
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// The input ends inside markup or with elements still open.
        public static let unexpectedEndOfInput = Code("unexpectedEndOfInput")
        /// A byte the grammar does not allow here.
        public static let unexpectedByte = Code("unexpectedByte")
        /// Ill-formed UTF-8.
        public static let invalidUTF8 = Code("invalidUTF8")
        /// A character XML 1.0 does not allow (a control character).
        public static let invalidCharacter = Code("invalidCharacter")
        /// A name (element, attribute, PI target) is empty or malformed.
        public static let invalidName = Code("invalidName")
        /// An end tag does not match the open element (or there is none open).
        public static let mismatchedTag = Code("mismatchedTag")
        /// `&name;` other than the five predefined entities.
        public static let undefinedEntity = Code("undefinedEntity")
        /// A malformed reference, or a character reference to a character XML does not allow.
        public static let invalidReference = Code("invalidReference")
        /// An attribute appears twice on one element.
        public static let duplicateAttribute = Code("duplicateAttribute")
        /// A DOCTYPE with an internal subset (or a second DOCTYPE, or one after the root).
        public static let doctypeNotAllowed = Code("doctypeNotAllowed")
        /// "--" inside a comment.
        public static let invalidComment = Code("invalidComment")
        /// An XML declaration anywhere but the start, or a malformed one.
        public static let misplacedXMLDeclaration = Code("misplacedXMLDeclaration")
        /// No root element.
        public static let noRootElement = Code("noRootElement")
        /// A second root element.
        public static let multipleRootElements = Code("multipleRootElements")
        /// Non-whitespace text or CDATA outside the root element.
        public static let textOutsideRoot = Code("textOutsideRoot")
        /// "]]>" in text.
        public static let cdataEndInText = Code("cdataEndInText")
        /// More elements open at once than `Limits.maxDepth`.
        public static let depthLimitExceeded = Code("depthLimitExceeded")
        /// More attributes on one element than `Limits.maxAttributes`.
        public static let attributeLimitExceeded = Code("attributeLimitExceeded")
    }

    /// The reason.
    public var code: Code
    /// The byte offset in the input.
    public var offset: Int

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - offset: the byte offset.
    public init(_ code: Code, offset: Int) { self.code = code; self.offset = offset }

    /// `XML code at byte N`.
    public var description: String { "XML \(code) at byte \(offset)" }
}

/// An attribute: name and (entity-decoded, normalised) value.
public struct XMLAttribute: Hashable, Sendable {
    /// The name.
    public var name: String
    /// The value.
    public var value: String
    /// Creates an attribute.
    public init(name: String, value: String) { self.name = name; self.value = value }
}

/// What the parser reports, in document order.
public enum XMLEvent: Hashable, Sendable {
    /// A start tag (an empty-element tag gives a start and an end event).
    case startElement(name: String, attributes: [XMLAttribute])
    /// An end tag.
    case endElement(name: String)
    /// Character data between two tags (text, references and CDATA merged); whitespace-only runs
    /// inside the root are reported too.
    case text(String)
}

/// The XML 1.0 parser.
public struct XMLParser: Sendable {
    /// Limits.
    public struct Limits: Sendable, Hashable {
        /// Elements open at once. Default 256, libxml2's `xmlParserMaxDepth` without XML_PARSE_HUGE.
        public var maxDepth: Int
        /// Attributes on one element. Default 256.
        public var maxAttributes: Int
        /// Creates limits.
        /// - Parameters:
        ///   - maxDepth: element nesting limit.
        ///   - maxAttributes: attributes per element.
        public init(maxDepth: Int = 256, maxAttributes: Int = 256) {
            self.maxDepth = maxDepth
            self.maxAttributes = maxAttributes
        }
    }

    /// The limits.
    public var limits: Limits

    /// Creates a parser.
    /// - Parameter limits: the limits.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Parses a document into events.
    /// - Parameter bytes: the whole document.
    /// - Returns: the events in order.
    /// - Throws: `XMLError` at the first violation.
    public func events(_ bytes: [UInt8]) throws(XMLError) -> [XMLEvent] {
        var events: [XMLEvent] = []
        try parse(bytes) { events.append($0) }
        return events
    }

    /// Parses a document, calling `handler` for each event in order.
    /// - Parameters:
    ///   - bytes: the whole document.
    ///   - handler: receives each event.
    /// - Throws: `XMLError` at the first violation (events before it were delivered).
    public func parse(_ bytes: [UInt8], handler: (XMLEvent) -> Void) throws(XMLError) {
        // The reader lives only for this call, so the handler never outlives it.
        let result: Result<Void, XMLError> = withoutActuallyEscaping(handler) { escapable in
            var reader = XMLReader(bytes: bytes, limits: limits, handler: escapable)
            do throws(XMLError) { try reader.run(); return .success(()) } catch { return .failure(error) }
        }
        try result.get()
    }
}

/// One pass over one document.
struct XMLReader {
    let bytes: [UInt8]
    let limits: XMLParser.Limits
    let handler: (XMLEvent) -> Void
    var index = 0
    var stack: [String] = []
    var text: [UInt8] = []
    var rootSeen = false
    var doctypeSeen = false

    init(bytes: [UInt8], limits: XMLParser.Limits, handler: @escaping (XMLEvent) -> Void) {
        self.bytes = bytes
        self.limits = limits
        self.handler = handler
    }

    private func fail(_ code: XMLError.Code, _ offset: Int) -> XMLError { XMLError(code, offset: offset) }

    private func has(_ prefix: StaticString, at offset: Int) -> Bool {
        let count = prefix.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return prefix.withUTF8Buffer { p in
            for k in 0..<count where bytes[offset + k] != p[k] { return false }
            return true
        }
    }

    private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

    @discardableResult
    private mutating func skipSpace() -> Bool {
        let start = index
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
        return index > start
    }

    mutating func run() throws(XMLError) {
        // Char check and UTF-8 validation up front (§2.2).
        if let bad = bytes.withUnsafeBytes({ UTF8Check.firstInvalidOffset($0) }) { throw fail(.invalidUTF8, bad) }
        for (offset, byte) in bytes.enumerated() where byte < 0x20 && byte != 0x09 && byte != 0x0A && byte != 0x0D {
            throw fail(.invalidCharacter, offset)
        }
        if has("\u{FEFF}", at: 0) { index = 3 }
        if has("<?xml", at: index), index + 5 < bytes.count, isSpace(bytes[index + 5]) || bytes[index + 5] == UInt8(ascii: "?") {
            try skipProcessingInstruction(allowXMLDeclaration: true)
        }
        while true {
            if stack.isEmpty {
                skipSpace()
                guard index < bytes.count else { break }
                guard bytes[index] == UInt8(ascii: "<") else { throw fail(.textOutsideRoot, index) }
                if has("<?", at: index) { try skipProcessingInstruction(allowXMLDeclaration: false) }
                else if has("<!--", at: index) { try skipComment() }
                else if has("<!DOCTYPE", at: index) { try skipDoctype() }
                else if has("<![CDATA[", at: index) { throw fail(.textOutsideRoot, index) }
                else if has("</", at: index) { throw fail(.mismatchedTag, index) }
                else if has("<!", at: index) { throw fail(.unexpectedByte, index + 1) }
                else {
                    if rootSeen { throw fail(.multipleRootElements, index) }
                    rootSeen = true
                    try startTag()
                }
            } else {
                guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
                let byte = bytes[index]
                if byte == UInt8(ascii: "<") {
                    if has("</", at: index) { try endTag() }
                    else if has("<!--", at: index) { try skipComment() }
                    else if has("<![CDATA[", at: index) { try cdata() }
                    else if has("<?", at: index) { try skipProcessingInstruction(allowXMLDeclaration: false) }
                    else if has("<!", at: index) { throw fail(.unexpectedByte, index + 1) }
                    else { flushText(); try startTag() }
                } else if byte == UInt8(ascii: "&") {
                    // Take the text out while the reference appends to it (exclusive access).
                    var pending = text
                    text = []
                    defer { text = pending }
                    try reference(into: &pending)
                } else {
                    let start = index
                    while index < bytes.count, bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "&") {
                        if bytes[index] == UInt8(ascii: ">"), index >= start + 2, bytes[index - 1] == UInt8(ascii: "]"), bytes[index - 2] == UInt8(ascii: "]") {
                            throw fail(.cdataEndInText, index - 2)
                        }
                        index += 1
                    }
                    text.append(contentsOf: bytes[start..<index])
                }
            }
        }
        if !rootSeen { throw fail(.noRootElement, bytes.count) }
    }

    private mutating func flushText() {
        guard !text.isEmpty else { return }
        handler(.text(String(decoding: text, as: UTF8.self)))
        text.removeAll(keepingCapacity: true)
    }

    private mutating func name() throws(XMLError) -> String {
        let start = index
        guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
        let first = bytes[index]
        let isStart = (first | 0x20) &- UInt8(ascii: "a") < 26 || first == UInt8(ascii: "_") || first == UInt8(ascii: ":") || first >= 0x80
        guard isStart else { throw fail(.invalidName, index) }
        index += 1
        while index < bytes.count {
            let byte = bytes[index]
            let ok = (byte | 0x20) &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte >= 0x80
            guard ok else { break }
            index += 1
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expect(_ byte: UInt8) throws(XMLError) {
        guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
        guard bytes[index] == byte else { throw fail(.unexpectedByte, index) }
        index += 1
    }

    private mutating func startTag() throws(XMLError) {
        let tagStart = index
        index += 1 // "<"
        let elementName = try name()
        var attributes: [XMLAttribute] = []
        while true {
            let hadSpace = skipSpace()
            guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
            if has("/>", at: index) {
                index += 2
                try push(elementName, at: tagStart)
                handler(.startElement(name: elementName, attributes: attributes))
                stack.removeLast()
                handler(.endElement(name: elementName))
                return
            }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                try push(elementName, at: tagStart)
                handler(.startElement(name: elementName, attributes: attributes))
                return
            }
            guard hadSpace else { throw fail(.unexpectedByte, index) }
            let attributeStart = index
            let attributeName = try name()
            skipSpace()
            try expect(UInt8(ascii: "="))
            skipSpace()
            guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
            let quote = bytes[index]
            guard quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else { throw fail(.unexpectedByte, index) }
            index += 1
            var value: [UInt8] = []
            while true {
                guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
                let byte = bytes[index]
                if byte == quote { index += 1; break }
                if byte == UInt8(ascii: "<") { throw fail(.unexpectedByte, index) }
                if byte == UInt8(ascii: "&") { try reference(into: &value); continue }
                // §3.3.3: literal TAB, LF, CR become spaces (a CR LF pair was one LF after §2.11).
                if byte == 0x0D, index + 1 < bytes.count, bytes[index + 1] == 0x0A { index += 1 }
                value.append(byte == 0x09 || byte == 0x0A || byte == 0x0D ? 0x20 : byte)
                index += 1
            }
            if attributes.contains(where: { $0.name == attributeName }) { throw fail(.duplicateAttribute, attributeStart) }
            guard attributes.count < limits.maxAttributes else { throw fail(.attributeLimitExceeded, attributeStart) }
            attributes.append(XMLAttribute(name: attributeName, value: String(decoding: value, as: UTF8.self)))
        }
    }

    private mutating func push(_ name: String, at offset: Int) throws(XMLError) {
        guard stack.count < limits.maxDepth else { throw fail(.depthLimitExceeded, offset) }
        stack.append(name)
    }

    private mutating func endTag() throws(XMLError) {
        let tagStart = index
        index += 2
        let elementName = try name()
        skipSpace()
        try expect(UInt8(ascii: ">"))
        guard let open = stack.last, open == elementName else { throw fail(.mismatchedTag, tagStart) }
        flushText()
        stack.removeLast()
        handler(.endElement(name: elementName))
    }

    private mutating func cdata() throws(XMLError) {
        index += 9 // "<![CDATA["
        let start = index
        while index < bytes.count {
            if has("]]>", at: index) {
                text.append(contentsOf: bytes[start..<index])
                index += 3
                return
            }
            index += 1
        }
        throw fail(.unexpectedEndOfInput, bytes.count)
    }

    private mutating func skipComment() throws(XMLError) {
        index += 4 // "<!--"
        while index < bytes.count {
            if has("--", at: index) {
                guard has("-->", at: index) else { throw fail(.invalidComment, index) }
                index += 3
                return
            }
            index += 1
        }
        throw fail(.unexpectedEndOfInput, bytes.count)
    }

    private mutating func skipProcessingInstruction(allowXMLDeclaration: Bool) throws(XMLError) {
        let start = index
        index += 2 // "<?"
        let target = try name()
        if target.utf8.count == 3, ASCIICase.uppercased(target) == "XML", !allowXMLDeclaration {
            throw fail(.misplacedXMLDeclaration, start)
        }
        while index < bytes.count {
            if has("?>", at: index) { index += 2; return }
            index += 1
        }
        throw fail(.unexpectedEndOfInput, bytes.count)
    }

    private mutating func skipDoctype() throws(XMLError) {
        let start = index
        if doctypeSeen || rootSeen { throw fail(.doctypeNotAllowed, start) }
        doctypeSeen = true
        index += 9 // "<!DOCTYPE"
        guard skipSpace() else { throw fail(.unexpectedByte, index) }
        _ = try name()
        var quote: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if let open = quote {
                if byte == open { quote = nil }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "[") {
                // An internal subset can declare entities: refused outright.
                throw fail(.doctypeNotAllowed, index)
            } else if byte == UInt8(ascii: ">") {
                index += 1
                return
            }
            index += 1
        }
        throw fail(.unexpectedEndOfInput, bytes.count)
    }

    /// Decodes `&…;` at `index` and appends the UTF-8 of what it names.
    private mutating func reference(into output: inout [UInt8]) throws(XMLError) {
        let start = index
        index += 1
        if index < bytes.count, bytes[index] == UInt8(ascii: "#") {
            index += 1
            var radix: UInt32 = 10
            if index < bytes.count, bytes[index] == UInt8(ascii: "x") { radix = 16; index += 1 }
            var value: UInt32 = 0
            var digits = 0
            while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
                let byte = bytes[index]
                let digit: UInt32
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f") where radix == 16: digit = UInt32(byte - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F") where radix == 16: digit = UInt32(byte - UInt8(ascii: "A") + 10)
                default: throw fail(.invalidReference, index)
                }
                value = value * radix + digit
                digits += 1
                guard value <= 0x10FFFF else { throw fail(.invalidReference, start) }
                index += 1
            }
            guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
            guard digits > 0 else { throw fail(.invalidReference, index) }
            index += 1
            // §2.2 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
            let legal = value == 0x9 || value == 0xA || value == 0xD || (0x20...0xD7FF).contains(value)
                || (0xE000...0xFFFD).contains(value) || (0x10000...0x10FFFF).contains(value)
            guard legal, let scalar = Unicode.Scalar(value) else { throw fail(.invalidReference, start) }
            output.append(contentsOf: String(Character(scalar)).utf8)
            return
        }
        let nameStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: ";") {
            guard index - nameStart < 64, !isSpace(bytes[index]), bytes[index] != UInt8(ascii: "<"), bytes[index] != UInt8(ascii: "&") else {
                throw fail(.invalidReference, start)
            }
            index += 1
        }
        guard index < bytes.count else { throw fail(.unexpectedEndOfInput, bytes.count) }
        let entity = bytes[nameStart..<index]
        index += 1
        switch String(decoding: entity, as: UTF8.self) {
        case "lt": output.append(UInt8(ascii: "<"))
        case "gt": output.append(UInt8(ascii: ">"))
        case "amp": output.append(UInt8(ascii: "&"))
        case "apos": output.append(UInt8(ascii: "'"))
        case "quot": output.append(UInt8(ascii: "\""))
        default: throw fail(entity.isEmpty ? .invalidReference : .undefinedEntity, start)
        }
    }
}
