// GatherList: output as a list of pieces for one vectored write (writev/sendmsg), so framing is
// never copied next to the caller's bytes (design §3; hyper's encode.rs writes a chunk as size line,
// the caller's buffer untouched, then CRLF).

/// One piece of a gather list.
public enum GatherPiece: Sendable, Equatable {
    /// A buffer's readable bytes, referenced, not copied.
    case buffer(ByteBuffer)
    /// Bytes with static lifetime (CRLF, "0\r\n\r\n", ...).
    case staticBytes(StaticString)
    /// A few bytes held inline (a chunk-size line, a formatted number).
    case inline(InlineBytes)

    /// The number of bytes in this piece.
    @inlinable
    public var count: Int {
        switch self {
        case .buffer(let buffer): return buffer.readableBytes
        case .staticBytes(let s): return s.utf8CodeUnitCount
        case .inline(let bytes): return bytes.count
        }
    }

    /// Gives `body` the piece's bytes without copying.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        switch self {
        case .buffer(let buffer): return try buffer.withUnsafeReadableBytes { try body($0) }
        case .staticBytes(let s): return try body(UnsafeRawBufferPointer(start: s.utf8Start, count: s.utf8CodeUnitCount))
        case .inline(let bytes): return try bytes.withUnsafeBytes(body)
        }
    }

    /// Pieces are equal when their bytes are equal.
    public static func == (lhs: GatherPiece, rhs: GatherPiece) -> Bool {
        lhs.withUnsafeBytes { l in rhs.withUnsafeBytes { r in l.elementsEqual(r) } }
    }
}

/// An ordered list of byte pieces written together, with the count of bytes still to write.
public struct GatherList: Sendable, Equatable {
    /// The pieces still to be written, in order.
    public private(set) var pieces: [GatherPiece]
    /// The number of bytes in all pieces.
    public private(set) var count: Int

    /// Creates an empty list.
    /// - Parameter capacity: the number of pieces to reserve room for.
    public init(capacity: Int = 4) {
        pieces = []
        pieces.reserveCapacity(capacity)
        count = 0
    }

    /// Creates a list of `pieces`.
    public init(_ pieces: [GatherPiece]) {
        self.pieces = []
        self.count = 0
        for piece in pieces { append(piece) }
    }

    /// Whether there is nothing to write.
    @inlinable public var isEmpty: Bool { count == 0 }

    /// Appends a piece; empty pieces are dropped.
    /// - Parameter piece: the piece.
    public mutating func append(_ piece: GatherPiece) {
        let n = piece.count
        guard n > 0 else { return }
        pieces.append(piece)
        count += n
    }

    /// Appends a buffer's readable bytes by reference.
    public mutating func append(_ buffer: ByteBuffer) { append(.buffer(buffer)) }

    /// Appends bytes of static lifetime.
    public mutating func append(_ bytes: StaticString) { append(.staticBytes(bytes)) }

    /// Appends the pieces of another list.
    public mutating func append(contentsOf other: GatherList) {
        for piece in other.pieces { append(piece) }
    }

    /// Drops the first `written` bytes: what a partial vectored write has sent. Whole pieces are
    /// removed; a piece cut in the middle becomes a slice of itself.
    /// - Parameter written: the number of bytes the kernel accepted; at most `count`.
    public mutating func consume(_ written: Int) {
        precondition(written >= 0 && written <= count, "consumed more than the list holds")
        var remaining = written
        var dropped = 0
        while remaining > 0 {
            let n = pieces[dropped].count
            if remaining < n {
                pieces[dropped] = GatherList.suffix(of: pieces[dropped], from: remaining)
                remaining = 0
            } else {
                remaining -= n
                dropped += 1
            }
        }
        pieces.removeFirst(dropped)
        count -= written
    }

    private static func suffix(of piece: GatherPiece, from offset: Int) -> GatherPiece {
        switch piece {
        case .buffer(var buffer):
            buffer.moveReaderIndex(forwardBy: offset)
            return .buffer(buffer)
        case .staticBytes, .inline:
            // Rare (a write cut inside framing bytes): one small copy of the unsent tail.
            return piece.withUnsafeBytes { .buffer(ByteBuffer(bytes: $0[offset...])) }
        }
    }

    /// Calls `body` with each piece's bytes in order.
    public func forEachPiece(_ body: (UnsafeRawBufferPointer) throws -> Void) rethrows {
        for piece in pieces { try piece.withUnsafeBytes(body) }
    }

    /// All bytes joined (a copy; for tests, `--offline` and TLS, which encrypts one run at a time).
    public var joined: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        forEachPiece { out.append(contentsOf: $0) }
        return out
    }

    /// Lists are equal when their joined bytes are equal, however they are cut into pieces.
    public static func == (lhs: GatherList, rhs: GatherList) -> Bool {
        lhs.count == rhs.count && lhs.joined == rhs.joined
    }
}
