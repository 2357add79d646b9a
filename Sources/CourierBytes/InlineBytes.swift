// InlineBytes: up to 31 bytes held in the value itself, so a chunk-size line or a formatted
// number costs no allocation (design §3: "a small stack-built size line").

/// Up to `InlineBytes.capacity` bytes stored inline, with no heap allocation.
public struct InlineBytes: Sendable, Hashable {
    @usableFromInline var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
    @usableFromInline var _count: Int = 0
    /// The number of bytes held.
    @inlinable public var count: Int { _count }

    /// The most bytes an `InlineBytes` can hold.
    public static let capacity = 31

    /// Creates an empty value.
    @inlinable public init() {}

    /// Creates a value holding `bytes`.
    /// - Parameter bytes: at most `capacity` bytes.
    @inlinable
    public init<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
        for byte in bytes { append(byte) }
    }

    /// Appends one byte.
    /// - Parameter byte: the byte; the value must not be full.
    @inlinable
    public mutating func append(_ byte: UInt8) {
        precondition(count < InlineBytes.capacity, "InlineBytes is full")
        withUnsafeMutableBytes(of: &storage) { $0[_count] = byte }
        _count += 1
    }

    /// Appends several bytes.
    /// - Parameter other: the bytes; the total must fit.
    @inlinable
    public mutating func append(contentsOf other: InlineBytes) {
        other.withUnsafeBytes { for byte in $0 { append(byte) } }
    }

    /// Reverses the bytes in place.
    @inlinable
    public mutating func reverse() {
        let n = count
        withUnsafeMutableBytes(of: &storage) { raw in
            var i = 0, j = n - 1
            while i < j { raw.swapAt(i, j); i += 1; j -= 1 }
        }
    }

    /// Gives `body` the bytes without copying.
    @inlinable
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        var copy = storage
        let n = count
        return try Swift.withUnsafeBytes(of: &copy) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
    }

    /// The bytes as an array (a copy).
    public var array: [UInt8] { withUnsafeBytes { Array($0) } }

    /// Equality of the held bytes.
    @inlinable
    public static func == (lhs: InlineBytes, rhs: InlineBytes) -> Bool {
        lhs.count == rhs.count && lhs.storage == rhs.storage
    }

    /// Hashes the held bytes.
    @inlinable
    public func hash(into hasher: inout Hasher) {
        withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
