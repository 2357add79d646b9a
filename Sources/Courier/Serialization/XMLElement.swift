// XMLElement: a small tree built from XMLParser's events — elements with attributes and
// children (elements and text). Built with an explicit stack; depth is bounded by the parser's
// limit. Also AFXMLParserResponseSerializer's Courier form (`XMLResponseSerializer`).

import CourierBytes

/// An XML element.
public struct XMLElement: Hashable, Sendable {
    /// The element name.
    public var name: String
    /// The attributes, in document order.
    public var attributes: [XMLAttribute]
    /// The children, in document order.
    public var children: [XMLNode]

    /// Creates an element.
    /// - Parameters:
    ///   - name: the name.
    ///   - attributes: the attributes.
    ///   - children: the children.
    public init(name: String, attributes: [XMLAttribute] = [], children: [XMLNode] = []) {
        self.name = name
        self.attributes = attributes
        self.children = children
    }

    /// The value of the attribute `name`, if present.
    public subscript(attribute name: String) -> String? { attributes.first { $0.name == name }?.value }

    /// The child elements, skipping text.
    public var elements: [XMLElement] {
        children.compactMap { if case .element(let element) = $0 { return element } else { return nil } }
    }

    /// The concatenated text children (not descendants).
    public var text: String {
        children.reduce(into: "") { if case .text(let text) = $1 { $0 += text } }
    }

    /// Parses a whole document into its root element.
    /// - Parameters:
    ///   - bytes: the document.
    ///   - limits: parser limits.
    /// - Returns: the root element.
    /// - Throws: `XMLError`.
    public static func parse(_ bytes: [UInt8], limits: XMLParser.Limits = XMLParser.Limits()) throws(XMLError) -> XMLElement {
        var stack: [XMLElement] = []
        var root: XMLElement?
        try XMLParser(limits: limits).parse(bytes) { event in
            switch event {
            case .startElement(let name, let attributes):
                stack.append(XMLElement(name: name, attributes: attributes))
            case .text(let text):
                stack[stack.count - 1].children.append(.text(text))
            case .endElement:
                let done = stack.removeLast()
                if stack.isEmpty { root = done } else { stack[stack.count - 1].children.append(.element(done)) }
            }
        }
        // The parser guarantees exactly one root when it returns normally.
        return root!
    }
}

/// A child of an element.
public indirect enum XMLNode: Hashable, Sendable {
    /// A child element.
    case element(XMLElement)
    /// Character data.
    case text(String)
}

/// AFXMLParserResponseSerializer: the body as an XML tree (`application/xml`, `text/xml`).
public struct XMLResponseSerializer: ResponseSerializer {
    /// Acceptable status codes (default 200–299).
    public var acceptableStatusCodes: Set<Int>? = defaultAcceptableStatusCodes
    /// Acceptable media types (default application/xml, text/xml).
    public var acceptableContentTypes: Set<String>? = ["application/xml", "text/xml"]
    /// Parser limits.
    public var limits: XMLParser.Limits = XMLParser.Limits()

    /// Creates a serializer.
    public init() {}

    /// Parses the body.
    /// - Parameters:
    ///   - head: the response head.
    ///   - body: the body.
    /// - Returns: the root element, or nil for an empty body.
    /// - Throws: `.invalidXML` with the `XMLError` in `detail` and its offset.
    public func parse(head: HTTPResponseHead, body: ByteBuffer) throws(ResponseSerializationError) -> XMLElement? {
        if body.isEmpty { return nil }
        do { return try XMLElement.parse(body.readableBytesArray, limits: limits) } catch {
            throw ResponseSerializationError(.invalidXML, head: head, body: body, offset: error.offset, detail: error)
        }
    }
}
