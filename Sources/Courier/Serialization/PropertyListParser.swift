// PropertyListParser: reads Apple property lists — XML (through XMLParser, so no DTD processing)
// and binary (`bplist00`, see PropertyListBinaryReader.swift) — into `PropertyListValue`.
//
// XML rules (Apple's DTD, read strictly): the root is <plist> holding exactly one value
// (whitespace, comments and PIs aside); <dict> holds <key>/value pairs; <integer> is an optional
// sign and decimal digits (or 0x hex) that fit Int64; <real> is a decimal number or `nan`,
// `inf`, `+infinity`, `-infinity` (as CoreFoundation writes); <date> is ISO 8601 (RFC 3339 via
// CourierJSON's Timestamp); <data> is Base64 with whitespace; elements that hold a scalar may
// contain only text. Unknown elements are errors. A plist written by PropertyListXMLWriter reads
// back to the same value.

import CourierBytes
import CourierJSON

/// Why a body is not a property list.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The closed set of reasons.
    public struct Code: ClosedErrorCode {
        /// The name.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .unknownFormat, .invalidXML, .invalidStructure, .invalidScalar, .invalidBinary, .cycle,
            .limitExceeded
        ]
        init(_ rawValue: String) { self.rawValue = rawValue }
        /// Neither `bplist00` nor XML.
        public static let unknownFormat = Code("unknownFormat")
        /// The XML is not well-formed (`xml` holds the XMLError).
        public static let invalidXML = Code("invalidXML")
        /// Well-formed XML that is not a property list (unknown element, <key> missing, ...).
        public static let invalidStructure = Code("invalidStructure")
        /// A scalar's text does not parse (integer out of range, bad date, bad Base64, ...).
        public static let invalidScalar = Code("invalidScalar")
        /// A binary offset, count or reference points outside the file or is malformed.
        public static let invalidBinary = Code("invalidBinary")
        /// A binary object refers to itself through its own children.
        public static let cycle = Code("cycle")
        /// Nesting deeper than `Limits.maxDepth`, or more values than `Limits.maxValues`.
        public static let limitExceeded = Code("limitExceeded")
    }

    /// The reason.
    public var code: Code
    /// A byte offset in the input where one is known (binary offsets; XML error offsets).
    public var offset: Int?
    /// The XML error for `.invalidXML`.
    public var xml: XMLError?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - offset: a byte offset, if known.
    ///   - xml: the XML error, for `.invalidXML`.
    public init(_ code: Code, offset: Int? = nil, xml: XMLError? = nil) { self.code = code; self.offset = offset; self.xml = xml }

    /// `plist code at byte N`.
    public var description: String { "plist \(code)" + (offset.map { " at byte \($0)" } ?? "") + (xml.map { " (\($0))" } ?? "") }
}

/// Reads XML and binary property lists.
public struct PropertyListParser: Sendable {
    /// Limits.
    public struct Limits: Sendable, Hashable {
        /// Nesting of arrays and dictionaries. Default 512 (as CourierJSON).
        public var maxDepth: Int
        /// Values produced in total: a binary plist can refer to one object many times, and a
        /// tree built from it would grow exponentially without this bound. Default 1,000,000.
        public var maxValues: Int
        /// Creates limits.
        /// - Parameters:
        ///   - maxDepth: nesting limit.
        ///   - maxValues: total values produced.
        public init(maxDepth: Int = 512, maxValues: Int = 1_000_000) {
            self.maxDepth = maxDepth
            self.maxValues = maxValues
        }
    }

    /// The limits.
    public var limits: Limits

    /// Creates a parser.
    /// - Parameter limits: the limits.
    public init(limits: Limits = Limits()) { self.limits = limits }

    /// Parses a property list, binary when it starts with `bplist00`, XML otherwise.
    /// - Parameter bytes: the whole input.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError`.
    public func parse(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        if bytes.starts(with: Array("bplist".utf8)) {
            var reader = PropertyListBinaryReader(bytes: bytes, limits: limits)
            return try reader.read()
        }
        return try parseXML(bytes)
    }

    /// Parses an XML property list.
    /// - Parameter bytes: the document.
    /// - Returns: the root value.
    /// - Throws: `PropertyListError`.
    public func parseXML(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyListValue {
        let root: XMLElement
        do { root = try XMLElement.parse(bytes, limits: XMLParser.Limits(maxDepth: limits.maxDepth + 2)) } catch {
            // The XML depth limit is the plist's (plus <plist> itself): report it as that limit.
            throw PropertyListError(error.code == .depthLimitExceeded ? .limitExceeded : .invalidXML, offset: error.offset, xml: error)
        }
        guard root.name == "plist" else { throw PropertyListError(.invalidStructure) }
        let values = try PropertyListParser.significantChildren(of: root)
        guard values.count == 1 else { throw PropertyListError(.invalidStructure) }
        var count = 0
        return try value(of: values[0], depth: 0, count: &count)
    }

    /// Element children, refusing any non-whitespace text between them.
    static func significantChildren(of element: XMLElement) throws(PropertyListError) -> [XMLElement] {
        var result: [XMLElement] = []
        for child in element.children {
            switch child {
            case .element(let element): result.append(element)
            case .text(let text):
                guard text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                    throw PropertyListError(.invalidStructure)
                }
            }
        }
        return result
    }

    private func value(of element: XMLElement, depth: Int, count: inout Int) throws(PropertyListError) -> PropertyListValue {
        count += 1
        guard count <= limits.maxValues else { throw PropertyListError(.limitExceeded) }
        switch element.name {
        case "dict":
            guard depth < limits.maxDepth else { throw PropertyListError(.limitExceeded) }
            let children = try PropertyListParser.significantChildren(of: element)
            guard children.count % 2 == 0 else { throw PropertyListError(.invalidStructure) }
            var entries: [(key: String, value: PropertyListValue)] = []
            var index = 0
            while index < children.count {
                let key = children[index]
                guard key.name == "key" else { throw PropertyListError(.invalidStructure) }
                entries.append((key: try PropertyListParser.scalarText(key), value: try value(of: children[index + 1], depth: depth + 1, count: &count)))
                index += 2
            }
            return .dictionary(entries)
        case "array":
            guard depth < limits.maxDepth else { throw PropertyListError(.limitExceeded) }
            var values: [PropertyListValue] = []
            for child in try PropertyListParser.significantChildren(of: element) {
                values.append(try value(of: child, depth: depth + 1, count: &count))
            }
            return .array(values)
        case "true", "false":
            guard element.children.isEmpty else { throw PropertyListError(.invalidStructure) }
            return .bool(element.name == "true")
        case "string":
            return .string(try PropertyListParser.scalarText(element))
        case "integer":
            guard let number = PropertyListParser.integer(try PropertyListParser.scalarText(element)) else { throw PropertyListError(.invalidScalar) }
            return .integer(number)
        case "real":
            guard let number = PropertyListParser.real(try PropertyListParser.scalarText(element)) else { throw PropertyListError(.invalidScalar) }
            return .real(number)
        case "date":
            guard let date = Timestamp(iso8601: try PropertyListParser.scalarText(element).trimmingXMLSpace) else { throw PropertyListError(.invalidScalar) }
            return .date(date)
        case "data":
            guard let bytes = Base64.decode(try PropertyListParser.scalarText(element), ignoringWhitespace: true) else { throw PropertyListError(.invalidScalar) }
            return .data(bytes)
        default:
            throw PropertyListError(.invalidStructure)
        }
    }

    /// The text of an element that may hold only text.
    static func scalarText(_ element: XMLElement) throws(PropertyListError) -> String {
        var text = ""
        for child in element.children {
            guard case .text(let part) = child else { throw PropertyListError(.invalidStructure) }
            text += part
        }
        return text
    }

    static func integer(_ raw: String) -> Int64? {
        let text = raw.trimmingXMLSpace
        var digits = Substring(text)
        var negative = false
        if digits.first == "-" { negative = true; digits = digits.dropFirst() } else if digits.first == "+" { digits = digits.dropFirst() }
        var radix = 10
        if digits.hasPrefix("0x") || digits.hasPrefix("0X") { radix = 16; digits = digits.dropFirst(2) }
        guard !digits.isEmpty, let magnitude = UInt64(digits, radix: radix) else { return nil }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    static func real(_ raw: String) -> Double? {
        let text = raw.trimmingXMLSpace
        switch text {
        case "nan", "NaN": return .nan
        case "inf", "+inf", "infinity", "+infinity", "Infinity", "+Infinity": return .infinity
        case "-inf", "-infinity", "-Infinity": return -.infinity
        default: break
        }
        // Decimal only: Swift's Double(String) would also take hex floats and "nan(...)".
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 &- UInt8(ascii: "0") < 10 || "+-.eE".utf8.contains($0) }) else { return nil }
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}

extension String {
    /// The text without leading and trailing XML whitespace.
    var trimmingXMLSpace: String {
        let bytes = Array(utf8)
        func isSpace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(decoding: bytes[first...last], as: UTF8.self)
    }
}

/// AFPropertyListResponseSerializer: the body as a `PropertyListValue` (`application/x-plist`),
/// XML or binary.
public struct PropertyListResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/x-plist).
    public var acceptableContentTypes: Set<String>? = ["application/x-plist"]
    /// Parser limits.
    public var limits: PropertyListParser.Limits = PropertyListParser.Limits()

    /// Creates a serializer.
    public init() {}

    /// Parses the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the value, or nil for an empty body.
    /// - Throws: `.invalidPropertyList` with the `PropertyListError` in `detail`.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> PropertyListValue? {
        if body.isEmpty { return nil }
        do { return try PropertyListParser(limits: limits).parse(body.readableBytesArray) } catch {
            throw ResponseSerializationError(.invalidPropertyList, head: head, body: body, offset: error.offset, detail: error)
        }
    }
}
