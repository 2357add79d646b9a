// A response received on an HTTP1Connection: the head (an HTTPResponseHead) and the body as an
// AsyncSequence of zero-copy slices of the receive buffer, read on demand (design §4).

import CourierBytes
import CourierHTTP1
import Synchronization

/// A final response: its head and the body stream.
public struct HTTP1Response: Sendable {
    /// The final head (status 101 or 200–999; interim 1xx heads are skipped): version, status,
    /// reason phrase and fields as owned copies — the same `HTTPResponseHead` the session's tasks
    /// hand out.
    public let head: HTTPResponseHead
    /// How the wait for 100 Continue ended when the request carried `Expect: 100-continue` and
    /// a body; nil otherwise.
    public let expectContinue: ExpectContinueOutcome?
    /// The body; iterate it to the end before sending the next request on the connection.
    public let body: HTTP1ResponseBody
}

/// The body of a response as slices, with back-pressure: the connection reads ahead of the
/// consumer up to `HTTP1ConnectionOptions.readAheadLimit` (256 KiB) and stops there until the
/// consumer takes what was read, so a consumer that stops pulling stops the reading (one window
/// later). Iterate it once.
///
/// Slices share storage with the receive buffer they were read into (zero copy); runs of small
/// chunks arrive copied together into one slice. Holding a slice holds its receive buffer: a
/// consumer that keeps small slices for long can call `ByteBuffer.compactStorage()` on them, as
/// `collect(upTo:)` does.
public struct HTTP1ResponseBody: AsyncSequence, Sendable {
    /// A slice of the body.
    public typealias Element = ByteBuffer
    /// Errors are always `ConnectionError`.
    public typealias Failure = ConnectionError

    let connection: HTTP1Connection
    let exchange: Int
    /// Slices decoded together with the head (no trip to the loop needed for them), handed to
    /// the first iterator only: a body is iterated once. Nil when the head was received on the
    /// loop: the first pull takes them there, at no cost.
    let prefetched: PrefetchedSlices?

    init(connection: HTTP1Connection, exchange: Int, prefetched: BodyBatch) {
        self.connection = connection
        self.exchange = exchange
        let none = prefetched.first == nil && !prefetched.ended
        self.prefetched = none ? nil : PrefetchedSlices(prefetched)
    }

    /// The prefetched slices, taken once.
    final class PrefetchedSlices: Sendable {
        private let batch: Mutex<BodyBatch?>
        init(_ batch: BodyBatch) { self.batch = Mutex(batch) }
        func take() -> BodyBatch? { batch.withLock { $0.take() } }
    }

    /// The iterator.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let connection: HTTP1Connection
        let exchange: Int
        /// The batch being handed out: `first`, then `rest` from `next`.
        var first: ByteBuffer?
        var rest: [ByteBuffer]
        var restIndex = 0
        var finished: Bool

        init(connection: HTTP1Connection, exchange: Int, batch: BodyBatch?) {
            self.connection = connection
            self.exchange = exchange
            first = batch?.first
            rest = batch?.rest ?? []
            finished = batch?.ended ?? false
        }

        /// The next slice, or nil at the end of the body.
        /// - Returns: the slice, or nil.
        /// - Throws: `ConnectionError` (`bodyTruncated`, `idleTimeout`, `cancelled`, ...).
        public mutating func next() async throws(ConnectionError) -> ByteBuffer? {
            while true {
                if let slice = first.take() { return slice }
                if restIndex < rest.count {
                    restIndex += 1
                    return rest[restIndex - 1]
                }
                if finished { return nil }
                // Everything decoded since the last pull arrives in one batch.
                let batch = try await connection.nextBody(exchange: exchange)
                first = batch.first
                rest = batch.rest
                restIndex = 0
                finished = batch.ended
            }
        }
    }

    /// Makes the iterator.
    /// - Returns: an iterator reading from the connection.
    public func makeAsyncIterator() -> AsyncIterator {
        guard let prefetched else { return AsyncIterator(connection: connection, exchange: exchange, batch: nil) }
        // A second iterator gets nothing: the body was handed to the first one.
        return AsyncIterator(connection: connection, exchange: exchange, batch: prefetched.take() ?? BodyBatch.end)
    }

    /// Reads the whole body into one buffer, in storage of about its own size (it keeps no
    /// receive buffer alive).
    /// - Parameter limit: the most bytes to accept (design §5: 10 MiB default).
    /// - Returns: the body.
    /// - Throws: `ConnectionError` (`bodyTooLarge`, with `limit`, when the body exceeds `limit`;
    ///   the connection is then closed).
    public func collect(upTo limit: Int = 10 * 1024 * 1024) async throws(ConnectionError) -> ByteBuffer {
        var result = ByteBuffer()
        var iterator = makeAsyncIterator()
        while let slice = try await iterator.next() {
            guard result.readableBytes + slice.readableBytes <= limit else {
                await connection.close()
                var error = ConnectionError(.bodyTooLarge, "the response body is larger than collect(upTo:)'s limit of \(limit) bytes")
                error.limit = limit
                throw error
            }
            result.writeBuffer(slice)
        }
        result.compactStorage()
        return result
    }
}

/// How the wait for 100 Continue ended, for a request sent with `Expect: 100-continue`
/// (RFC 9110 §10.1.1).
public enum ExpectContinueOutcome: Sendable, Hashable {
    /// The server answered 100 Continue; the body followed.
    case continued
    /// No interim response came within the timeout: the body was sent anyway.
    case timedOut
    /// A final response came first: the body was not sent, and the connection closes after that
    /// response.
    case finalResponse
}
