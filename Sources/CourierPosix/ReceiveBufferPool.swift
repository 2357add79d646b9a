// ReceiveBufferPool: the receive buffers of one event loop's connections, reused instead of
// allocated per read (issue: transport at wire speed; swift-nio reuses a channel's buffer when it
// is uniquely referenced, the same idea with a small pool per loop).
//
// A buffer is lent by index: the reader fills the pool's own copy in place (it is uniquely
// referenced, so no copy-on-write happens), then takes a copy of the filled buffer to hand out.
// Slices cut from that copy share its storage; once every slice is released the pool is again the
// only holder and the buffer is free. Nothing is returned explicitly, so a consumer on any thread
// can keep a slice as long as it wants: the pool simply lends another buffer meanwhile.
//
// Size classes are powers of two from 2 KiB to 256 KiB, so a connection can adapt its read size
// (small for heads and small responses, large for bulk bodies) without a buffer of the wrong size.
// Each class keeps at most `buffersPerClass` buffers; past that, a read gets a plain allocation.
//
// Loop thread only (like every other loop-confined object): the @unchecked Sendable conformance
// rests on that.

import CourierBytes

/// Reusable receive buffers for the connections of one event loop.
public final class ReceiveBufferPool: @unchecked Sendable {
    /// The smallest and largest buffer sizes.
    public static let smallestSize = 2 << 10
    /// The largest buffer size.
    public static let largestSize = 256 << 10

    // Unowned: the loop owns its pool.
    private unowned let loop: EventLoop
    private let buffersPerClass: Int
    /// Buffers by size class (index 0: 2 KiB, 1: 4 KiB, ...).
    private var classes: [[ByteBuffer]]
    /// Where to start looking in each class (the last buffer lent is the likeliest to be busy).
    private var cursor: [Int]

    /// Creates a pool.
    /// - Parameters:
    ///   - loop: the loop whose thread alone uses the pool.
    ///   - buffersPerClass: the most buffers kept per size class.
    public init(loop: EventLoop, buffersPerClass: Int = 16) {
        self.loop = loop
        self.buffersPerClass = buffersPerClass
        var count = 0
        var size = ReceiveBufferPool.smallestSize
        while size <= ReceiveBufferPool.largestSize { count += 1; size <<= 1 }
        classes = Array(repeating: [], count: count)
        cursor = Array(repeating: 0, count: count)
    }

    /// The size class that holds `size` bytes (rounded up to a power of two, clamped).
    public static func classSize(for size: Int) -> Int {
        var result = smallestSize
        while result < size && result < largestSize { result <<= 1 }
        return result
    }

    /// Lends an empty buffer of `size` bytes (a class size) to `fill`, which writes into it in
    /// place; returns the filled buffer (sharing the pooled storage) and what `fill` returned.
    /// - Parameters:
    ///   - size: the wanted capacity, rounded up to its class.
    ///   - fill: writes into the buffer (it may also append bytes before reading, such as the
    ///     unconsumed tail of the previous read).
    /// - Returns: the buffer as filled, and `fill`'s result.
    public func fill<R>(size: Int, _ fill: (inout ByteBuffer) throws(Errno) -> R) throws(Errno) -> (ByteBuffer, R) {
        loop.assertInEventLoop()
        let classSize = ReceiveBufferPool.classSize(for: size)
        let index = classIndex(classSize)
        let count = classes[index].count
        var probe = 0
        while probe < count {
            let slot = (cursor[index] + probe) % count
            if classes[index][slot].isUniquelyOwned() {
                cursor[index] = slot
                classes[index][slot].clear()
                let result = try fill(&classes[index][slot])
                return (classes[index][slot], result)
            }
            probe += 1
        }
        var fresh = ByteBuffer(capacity: classSize)
        let result = try fill(&fresh)
        if count < buffersPerClass && fresh.capacity == classSize {
            classes[index].append(fresh)
            cursor[index] = count
        }
        return (fresh, result)
    }

    /// Buffers kept, and how many are free now (for tests and diagnostics).
    public var statistics: (kept: Int, free: Int) {
        loop.assertInEventLoop()
        var kept = 0
        var free = 0
        for index in classes.indices {
            for slot in classes[index].indices {
                kept += 1
                if classes[index][slot].isUniquelyOwned() { free += 1 }
            }
        }
        return (kept, free)
    }

    private func classIndex(_ classSize: Int) -> Int {
        var index = 0
        var size = ReceiveBufferPool.smallestSize
        while size < classSize { size <<= 1; index += 1 }
        return index
    }
}
