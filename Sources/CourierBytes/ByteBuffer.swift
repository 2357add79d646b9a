// ByteBuffer: the one owning byte container of Courier (design §3).
//
// This file owns the storage model. Invariants:
//   0 <= readerIndex <= writerIndex <= capacity
// where all three are relative to this buffer's view of the storage (`base`). A slice is a
// ByteBuffer whose view starts inside another buffer's storage and shares it; writing to either
// copies first (copy-on-write), so a slice handed out by a parser stays valid and unchanged for as
// long as anyone holds it, whatever the parser does to its receive buffer afterwards.
//
//     +-------------------+------------------+------------------+
//     | discardable bytes |  readable bytes  |  writable bytes  |
//     +-------------------+------------------+------------------+
//     0             readerIndex        writerIndex           capacity

/// A growable byte buffer with copy-on-write storage, reader and writer indices, and slices that
/// share storage with the buffer they were cut from.
///
/// Bytes are copied only when a caller asks for a `String` or `[UInt8]`, or when a shared buffer is
/// written to.
///
/// Indices are not stable across growth: a write (or `reserveCapacity`) that needs new storage —
/// because the buffer is full or its storage is shared with a slice or a copy — moves only the
/// readable bytes to the front of the new storage, so both indices shift down by the old reader
/// index, exactly as `discardReadBytes()` does. A position saved before such a write (a
/// `writerIndex` to come back to, an absolute index for `getSlice(at:length:)`) is only valid
/// relative to `readerIndex`, or when `readerIndex` was 0.
public struct ByteBuffer: Sendable {
    @usableFromInline
    final class Storage: @unchecked Sendable {
        // SAFETY: the pointer is written only through a uniquely referenced Storage (checked with
        // isKnownUniquelyReferenced before every mutation), so sharing a Storage across threads
        // only ever shares immutable bytes.
        @usableFromInline let pointer: UnsafeMutableRawPointer
        @usableFromInline let capacity: Int

        @usableFromInline
        init(capacity: Int) {
            self.capacity = capacity
            self.pointer = UnsafeMutableRawPointer.allocate(byteCount: max(capacity, 1), alignment: 16)
            LiveObjects.created(.bufferStorage)
        }

        deinit {
            pointer.deallocate()
            LiveObjects.destroyed(.bufferStorage)
        }

        /// The storage every empty buffer starts with (never written: it is always shared).
        @usableFromInline static let empty = Storage(capacity: 0)
    }

    @usableFromInline var storage: Storage
    /// Offset of this buffer's byte 0 inside `storage`.
    @usableFromInline var base: Int
    /// Bytes of storage this buffer may use, from `base`.
    @usableFromInline var viewCapacity: Int
    @usableFromInline var _readerIndex: Int
    @usableFromInline var _writerIndex: Int

    /// The index of the first readable byte.
    @inlinable public var readerIndex: Int { _readerIndex }
    /// The index one past the last readable byte; the first writable byte.
    @inlinable public var writerIndex: Int { _writerIndex }
    /// The number of bytes between `readerIndex` and `writerIndex`.
    @inlinable public var readableBytes: Int { _writerIndex - _readerIndex }
    /// The number of bytes that can be written before the buffer must grow.
    @inlinable public var writableBytes: Int { viewCapacity - _writerIndex }
    /// The number of bytes this buffer can hold before it must grow.
    @inlinable public var capacity: Int { viewCapacity }
    /// Whether there is nothing left to read.
    @inlinable public var isEmpty: Bool { _readerIndex == _writerIndex }

    /// Creates an empty buffer able to hold `capacity` bytes before it grows.
    /// - Parameter capacity: the initial capacity in bytes.
    @inlinable
    public init(capacity: Int = 0) {
        precondition(capacity >= 0, "negative capacity")
        // Empty buffers share one storage block: an empty buffer costs no allocation, and its
        // first write allocates as any write to shared storage does.
        storage = capacity == 0 ? Storage.empty : Storage(capacity: capacity)
        base = 0
        viewCapacity = capacity
        _readerIndex = 0
        _writerIndex = 0
    }

    /// Creates a buffer holding a copy of `bytes`.
    /// - Parameter bytes: the bytes to copy in.
    @inlinable
    public init<Bytes: Sequence>(bytes: Bytes) where Bytes.Element == UInt8 {
        self.init(capacity: bytes.underestimatedCount)
        writeBytes(bytes)
    }

    /// Creates a buffer holding the UTF-8 form of `string`.
    /// - Parameter string: the text to encode.
    @inlinable
    public init(string: String) {
        self.init(capacity: string.utf8.count)
        writeString(string)
    }

    @usableFromInline
    init(storage: Storage, base: Int, length: Int) {
        self.storage = storage
        self.base = base
        self.viewCapacity = length
        self._readerIndex = 0
        self._writerIndex = length
    }

    // MARK: Growing and copy-on-write

    /// Makes the storage uniquely owned with room for `minimumWritableBytes` more bytes.
    @inlinable
    mutating func prepareForWriting(minimumWritableBytes: Int) {
        let needed = _writerIndex + minimumWritableBytes
        if _fastPath(needed <= viewCapacity && isKnownUniquelyReferenced(&storage)) { return }
        reallocate(minimumCapacity: needed)
    }

    @usableFromInline
    mutating func reallocate(minimumCapacity: Int) {
        // Grow geometrically so a sequence of appends is amortised O(1); keep whatever capacity the
        // view already had when this is only a copy-on-write.
        let newCapacity = ByteBuffer.grownCapacity(from: viewCapacity, toHold: minimumCapacity)
        let fresh = Storage(capacity: newCapacity)
        // Readable bytes move to the front: the discardable prefix is never copied.
        let count = readableBytes
        fresh.pointer.copyMemory(from: storage.pointer + base + _readerIndex, byteCount: count)
        storage = fresh
        base = 0
        viewCapacity = newCapacity
        _readerIndex = 0
        _writerIndex = count
    }

    /// The capacity to grow to: at least 64, doubled until it holds `minimum`. Doubling stops
    /// before it could overflow (a wrapped product would turn negative, then 0, and loop for
    /// ever); past that the minimum itself is used, and allocating it fails loudly if it must.
    static func grownCapacity(from current: Int, toHold minimum: Int) -> Int {
        var capacity = max(current, 64)
        while capacity < minimum {
            guard capacity <= Int.max / 2 else { return minimum }
            capacity *= 2
        }
        return capacity
    }

    /// Makes sure at least `minimumWritableBytes` can be written without another allocation.
    /// - Parameter minimumWritableBytes: the number of bytes about to be written.
    @inlinable
    public mutating func reserveCapacity(minimumWritableBytes: Int) {
        prepareForWriting(minimumWritableBytes: minimumWritableBytes)
    }

    // MARK: Writing

    /// Appends the bytes of `pointer`.
    /// - Parameter pointer: the bytes to copy in.
    @inlinable
    public mutating func writeBytes(_ pointer: UnsafeRawBufferPointer) {
        guard pointer.count > 0 else { return }
        prepareForWriting(minimumWritableBytes: pointer.count)
        // SAFETY: prepareForWriting guaranteed `count` writable bytes at writerIndex.
        (storage.pointer + base + _writerIndex).copyMemory(from: pointer.baseAddress!, byteCount: pointer.count)
        _writerIndex += pointer.count
    }

    /// Appends `bytes`.
    /// - Parameter bytes: the bytes to copy in.
    @inlinable
    public mutating func writeBytes<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        let done: Void? = bytes.withContiguousStorageIfAvailable { writeBytes(UnsafeRawBufferPointer($0)) }
        if done != nil { return }
        for byte in bytes { writeInteger(byte) }
    }

    /// Appends one byte.
    /// - Parameter byte: the byte to append.
    @inlinable
    public mutating func writeInteger(_ byte: UInt8) {
        prepareForWriting(minimumWritableBytes: 1)
        (storage.pointer + base + _writerIndex).storeBytes(of: byte, as: UInt8.self)
        _writerIndex += 1
    }

    /// Appends the UTF-8 form of `string`.
    /// - Parameter string: the text to append.
    @inlinable
    public mutating func writeString(_ string: String) {
        var string = string
        string.withUTF8 { writeBytes(UnsafeRawBufferPointer($0)) }
    }

    /// Appends the readable bytes of `other`. When `self` is empty and unshared this takes `other`'s
    /// storage instead of copying.
    /// - Parameter other: the buffer whose readable bytes are appended; it is not changed.
    @inlinable
    public mutating func writeBuffer(_ other: ByteBuffer) {
        if _writerIndex == 0 && viewCapacity == 0 {
            self = other
            return
        }
        other.withUnsafeReadableBytes { writeBytes($0) }
    }

    /// Gives `body` the writable region to fill; the writer index moves by the count it returns.
    /// - Parameters:
    ///   - minimumWritableBytes: the room to make before calling `body`.
    ///   - body: fills a prefix of the region and returns how many bytes it wrote.
    /// - Returns: the number of bytes written.
    @inlinable
    @discardableResult
    public mutating func writeWithUnsafeMutableBytes<E: Error>(
        minimumWritableBytes: Int,
        _ body: (UnsafeMutableRawBufferPointer) throws(E) -> Int
    ) throws(E) -> Int {
        prepareForWriting(minimumWritableBytes: minimumWritableBytes)
        let region = UnsafeMutableRawBufferPointer(start: storage.pointer + base + _writerIndex, count: writableBytes)
        let written = try body(region)
        precondition(written >= 0 && written <= region.count, "wrote outside the writable region")
        _writerIndex += written
        return written
    }

    // MARK: Reading

    /// Gives `body` the readable bytes without copying.
    /// - Parameter body: reads the bytes; the pointer must not escape.
    /// - Returns: what `body` returns.
    @inlinable
    public func withUnsafeReadableBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: storage.pointer + base + _readerIndex, count: readableBytes))
    }

    /// Moves the reader index forward, marking bytes as read.
    /// - Parameter count: how many bytes to skip; at most `readableBytes`.
    @inlinable
    public mutating func moveReaderIndex(forwardBy count: Int) {
        precondition(count >= 0 && count <= readableBytes, "reader index moved outside the readable bytes")
        _readerIndex += count
    }

    /// Sets the reader index.
    /// - Parameter index: a value between 0 and `writerIndex`.
    @inlinable
    public mutating func moveReaderIndex(to index: Int) {
        precondition(index >= 0 && index <= _writerIndex, "reader index outside 0...writerIndex")
        _readerIndex = index
    }

    /// Sets the writer index (for example after `writeWithUnsafeMutableBytes` over-reserved).
    /// - Parameter index: a value between `readerIndex` and `capacity`.
    @inlinable
    public mutating func moveWriterIndex(to index: Int) {
        precondition(index >= _readerIndex && index <= viewCapacity, "writer index outside readerIndex...capacity")
        _writerIndex = index
    }

    /// Returns the byte at `index` (an absolute index between 0 and `writerIndex`).
    /// - Parameter index: the position, not relative to the reader index.
    /// - Returns: the byte, or nil if `index` is not below `writerIndex`.
    @inlinable
    public func getInteger(at index: Int) -> UInt8? {
        guard index >= 0 && index < _writerIndex else { return nil }
        return storage.pointer.load(fromByteOffset: base + index, as: UInt8.self)
    }

    /// Reads one byte and moves the reader index past it.
    /// - Returns: the byte, or nil when nothing is readable.
    @inlinable
    public mutating func readInteger() -> UInt8? {
        guard let byte = getInteger(at: _readerIndex) else { return nil }
        _readerIndex += 1
        return byte
    }

    /// Returns a buffer sharing this buffer's storage for `length` bytes at absolute `index`.
    /// - Parameters:
    ///   - index: the absolute start of the slice.
    ///   - length: the number of bytes.
    /// - Returns: the slice, or nil if the range is not within `0..<writerIndex`.
    @inlinable
    public func getSlice(at index: Int, length: Int) -> ByteBuffer? {
        guard index >= 0, length >= 0, index <= _writerIndex - length else { return nil }
        return ByteBuffer(storage: storage, base: base + index, length: length)
    }

    /// Cuts `length` readable bytes off the front as a slice sharing storage.
    /// - Parameter length: the number of bytes.
    /// - Returns: the slice, or nil if fewer bytes are readable.
    @inlinable
    public mutating func readSlice(length: Int) -> ByteBuffer? {
        guard let slice = getSlice(at: _readerIndex, length: length) else { return nil }
        _readerIndex += length
        return slice
    }

    /// Copies `length` bytes at absolute `index` into an array.
    /// - Returns: the bytes, or nil if the range is not within `0..<writerIndex`.
    @inlinable
    public func getBytes(at index: Int, length: Int) -> [UInt8]? {
        guard index >= 0, length >= 0, index <= _writerIndex - length else { return nil }
        return [UInt8](UnsafeRawBufferPointer(start: storage.pointer + base + index, count: length))
    }

    /// Copies `length` readable bytes into an array and moves the reader index past them.
    /// - Returns: the bytes, or nil if fewer are readable.
    @inlinable
    public mutating func readBytes(length: Int) -> [UInt8]? {
        guard let bytes = getBytes(at: _readerIndex, length: length) else { return nil }
        _readerIndex += length
        return bytes
    }

    /// Decodes `length` bytes at absolute `index` as UTF-8 (invalid sequences become U+FFFD).
    /// - Returns: the text, or nil if the range is not within `0..<writerIndex`.
    @inlinable
    public func getString(at index: Int, length: Int) -> String? {
        guard index >= 0, length >= 0, index <= _writerIndex - length else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: storage.pointer + base + index, count: length), as: UTF8.self)
    }

    /// Decodes `length` readable bytes as UTF-8 and moves the reader index past them.
    /// - Returns: the text, or nil if fewer bytes are readable.
    @inlinable
    public mutating func readString(length: Int) -> String? {
        guard let string = getString(at: _readerIndex, length: length) else { return nil }
        _readerIndex += length
        return string
    }

    /// The readable bytes as an array (a copy).
    @inlinable
    public var readableBytesArray: [UInt8] { getBytes(at: _readerIndex, length: readableBytes)! }

    /// The readable bytes as a string (a copy; invalid UTF-8 becomes U+FFFD).
    @inlinable
    public var readableString: String { getString(at: _readerIndex, length: readableBytes)! }

    // MARK: Compaction

    /// Drops the bytes before the reader index so their room can be written again. Indices shift
    /// down by the old reader index. Slices already handed out keep their bytes.
    @inlinable
    public mutating func discardReadBytes() {
        guard _readerIndex > 0 else { return }
        if !isKnownUniquelyReferenced(&storage) {
            reallocate(minimumCapacity: viewCapacity)
            return
        }
        let count = readableBytes
        if count > 0 {
            (storage.pointer + base).copyMemory(from: storage.pointer + base + _readerIndex, byteCount: count)
        }
        _readerIndex = 0
        _writerIndex = count
    }

    /// Whether this buffer is the only holder of its storage (no slice or copy shares it), so it
    /// can be written in place. For buffer pools: a pooled buffer whose slices were all released
    /// is free again.
    package mutating func isUniquelyOwned() -> Bool { isKnownUniquelyReferenced(&storage) }

    /// The size of the storage block this buffer keeps alive: its own capacity, or the whole
    /// receive buffer it is a slice of.
    public var storageCapacity: Int { storage.capacity }

    /// Copies the readable bytes into storage of their own size when the block this buffer keeps
    /// alive is much larger than them — a small slice of a large receive buffer — so that holding
    /// the result does not hold the large block (design §3: a body never pins a receive buffer
    /// larger than itself). A buffer that uses most of its block is left as it is.
    /// - Parameter slack: waste tolerated whatever the size (the copy is not worth it below).
    public mutating func compactStorage(slack: Int = 4096) {
        let waste = storage.capacity - readableBytes
        guard waste > slack, waste > readableBytes else { return }
        let count = readableBytes
        let fresh = Storage(capacity: count)
        fresh.pointer.copyMemory(from: storage.pointer + base + _readerIndex, byteCount: count)
        storage = fresh
        base = 0
        viewCapacity = count
        _readerIndex = 0
        _writerIndex = count
    }

    /// Sets both indices to zero, keeping the capacity.
    @inlinable
    public mutating func clear() {
        if !isKnownUniquelyReferenced(&storage) {
            storage = viewCapacity == 0 ? Storage.empty : Storage(capacity: viewCapacity)
            base = 0
        }
        _readerIndex = 0
        _writerIndex = 0
    }
}

extension ByteBuffer: Equatable {
    /// Two buffers are equal when their readable bytes are equal.
    @inlinable
    public static func == (lhs: ByteBuffer, rhs: ByteBuffer) -> Bool {
        guard lhs.readableBytes == rhs.readableBytes else { return false }
        return lhs.withUnsafeReadableBytes { l in
            rhs.withUnsafeReadableBytes { r in
                l.count == 0 || memcmpEqual(l.baseAddress!, r.baseAddress!, l.count)
            }
        }
    }
}

extension ByteBuffer: Hashable {
    /// Hashes the readable bytes.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        withUnsafeReadableBytes { hasher.combine(bytes: $0) }
    }
}

extension ByteBuffer: CustomStringConvertible, CustomDebugStringConvertible {
    /// A summary with indices and up to 64 readable bytes.
    public var description: String {
        let shown = min(readableBytes, 64)
        let text = getString(at: _readerIndex, length: shown) ?? ""
        return "ByteBuffer(readerIndex: \(_readerIndex), writerIndex: \(_writerIndex), capacity: \(viewCapacity), bytes: \(text.debugDescription)\(shown < readableBytes ? "…" : ""))"
    }

    /// Same as `description`.
    public var debugDescription: String { description }
}

extension ByteBuffer: ExpressibleByStringLiteral {
    /// Creates a buffer holding the literal's UTF-8 bytes.
    @inlinable
    public init(stringLiteral value: String) { self.init(string: value) }
}

/// Byte-wise equality of two memory regions, written without libc so pure modules stay libc-free.
@inlinable
func memcmpEqual(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ count: Int) -> Bool {
    var i = 0
    while i + 8 <= count {
        if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
        i += 8
    }
    while i < count {
        if a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) { return false }
        i += 1
    }
    return true
}
