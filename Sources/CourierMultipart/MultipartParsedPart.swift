// What the parser hands back: part heads, whole parts, and the collector that joins body chunks.

import CourierBytes

/// The head of one parsed part.
public struct MultipartPartHead: Sendable, Hashable {
    /// The header lines in order, as received (names and file names still escaped).
    public var headers: [MultipartHeader]
    /// The form field name, unescaped (`%22` → `"`, `%0D` → CR, `%0A` → LF).
    public var name: String
    /// The file name, unescaped, when the part has one.
    public var fileName: String?
    /// The `Content-Type` value, when the part has one (RFC 7578 §4.4: text/plain otherwise).
    public var contentType: String?

    /// Creates a part head.
    /// - Parameters:
    ///   - headers: the header lines in order.
    ///   - name: the unescaped field name.
    ///   - fileName: the unescaped file name, if any.
    ///   - contentType: the Content-Type value, if any.
    public init(headers: [MultipartHeader], name: String, fileName: String?, contentType: String?) {
        self.headers = headers
        self.name = name
        self.fileName = fileName
        self.contentType = contentType
    }
}

/// One part with its whole body (what `MultipartParser.parse` returns).
public struct MultipartParsedPart: Sendable, Hashable {
    /// The part's head.
    public var head: MultipartPartHead
    /// The part's body.
    public var body: ByteBuffer

    /// Creates a parsed part.
    /// - Parameters:
    ///   - head: the part's head.
    ///   - body: the part's whole body.
    public init(head: MultipartPartHead, body: ByteBuffer) {
        self.head = head
        self.body = body
    }
}

/// Gathers parser events into whole parts (body chunks joined; a single chunk is kept as a slice).
public struct MultipartPartCollector: Sendable {
    /// The complete parts so far.
    public private(set) var parts: [MultipartParsedPart] = []
    /// Whether `.end` was seen.
    public private(set) var isComplete = false
    private var head: MultipartPartHead?
    private var body = ByteBuffer(capacity: 0)

    /// Creates an empty collector.
    public init() {}

    /// Takes one event.
    /// - Parameter event: the next event from the parser.
    public mutating func consume(_ event: MultipartParser.Event) {
        switch event {
        case .partHead(let head):
            self.head = head
            body = ByteBuffer(capacity: 0)
        case .bodyChunk(let chunk):
            body.writeBuffer(chunk)
        case .partEnd:
            if let head { parts.append(MultipartParsedPart(head: head, body: body)) }
            head = nil
        case .end:
            isComplete = true
        }
    }
}
