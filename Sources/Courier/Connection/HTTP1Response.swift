// A response received on an HTTP1Connection: the head as owned values and the body as an
// AsyncSequence of zero-copy slices of the receive buffer, read on demand (design §4).

import CourierBytes
import CourierHTTP1
import Synchronization

/// A final response: status, version, fields, and the body stream.
public struct HTTP1Response: Sendable {
    /// The status code (200–599).
    public let status: Int
    /// The response's HTTP version.
    public let version: HTTPVersion
    /// The reason phrase as sent (may be empty).
    public let reasonPhrase: String
    /// The header fields, in order (owned copies).
    public let headers: HTTPHeaders
    /// The body; iterate it to the end before sending the next request on the connection.
    public let body: HTTP1ResponseBody
}

/// The body of a response as slices, with back-pressure: bytes are read from the socket only when
/// the consumer asks for the next slice. Iterate it once.
///
/// A slice shares storage with the receive buffer it was read into, unless it is much smaller than
/// that buffer: then it is copied out, so that keeping a small slice never keeps a large receive
/// buffer alive (design §3).
public struct HTTP1ResponseBody: AsyncSequence, Sendable {
    /// A slice of the body (shares storage with the receive buffer when it fills most of it).
    public typealias Element = ByteBuffer
    /// Errors are always `ConnectionError`.
    public typealias Failure = ConnectionError

    let connection: HTTP1Connection
    let exchange: Int
    /// Slices decoded together with the head (no trip to the loop needed for them), handed to
    /// the first iterator only: a body is iterated once.
    let prefetched: PrefetchedSlices
    /// Whether the prefetched slices are the whole body.
    let ended: Bool

    init(connection: HTTP1Connection, exchange: Int, prefetched: [ByteBuffer], ended: Bool) {
        self.connection = connection
        self.exchange = exchange
        self.prefetched = PrefetchedSlices(prefetched)
        self.ended = ended
    }

    /// The prefetched slices, taken once.
    final class PrefetchedSlices: Sendable {
        private let slices: Mutex<[ByteBuffer]?>
        init(_ slices: [ByteBuffer]) { self.slices = Mutex(slices) }
        func take() -> [ByteBuffer] { slices.withLock { $0.take() } ?? [] }
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let connection: HTTP1Connection
        let exchange: Int
        var prefetched: ArraySlice<ByteBuffer>
        var finished: Bool

        /// The next slice, or nil at the end of the body.
        /// - Returns: the slice, or nil.
        /// - Throws: `ConnectionError` (`bodyTruncated`, `idleTimeout`, `cancelled`, ...).
        public mutating func next() async throws(ConnectionError) -> ByteBuffer? {
            if var slice = prefetched.popFirst() {
                slice.compactStorage()
                return slice
            }
            if finished { return nil }
            guard var part = try await connection.nextBodyPart(exchange: exchange) else {
                finished = true
                return nil
            }
            part.compactStorage()
            return part
        }
    }

    /// Makes the iterator.
    /// - Returns: an iterator reading from the connection.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(connection: connection, exchange: exchange, prefetched: prefetched.take()[...], finished: ended)
    }

    /// Reads the whole body into one buffer.
    /// - Parameter limit: the most bytes to accept (design §5: 10 MiB default).
    /// - Returns: the body.
    /// - Throws: `ConnectionError` (`invalidRequest` when the body exceeds `limit`; the connection
    ///   is then closed).
    public func collect(upTo limit: Int = 10 * 1024 * 1024) async throws(ConnectionError) -> ByteBuffer {
        var result = ByteBuffer()
        var iterator = makeAsyncIterator()
        while let slice = try await iterator.next() {
            guard result.readableBytes + slice.readableBytes <= limit else {
                await connection.close()
                throw ConnectionError(.invalidRequest, "the body is larger than \(limit) bytes")
            }
            result.writeBuffer(slice)
        }
        return result
    }
}
