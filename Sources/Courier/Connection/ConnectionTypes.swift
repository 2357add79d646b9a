// The values LoopConnection hands to HTTP1Connection: decoded body batches, the start of a response, a
// lent body, and the outcome of a loop-side operation.

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS

/// Body bytes handed over in one pull: everything decoded so far, in order.
struct BodyBatch: Sendable {
    /// The first slice (nil when there are none).
    var first: ByteBuffer?
    /// The slices after the first (an empty array allocates nothing).
    var rest: [ByteBuffer] = []
    /// Whether the body ended after these slices.
    var ended: Bool

    static let end = BodyBatch(first: nil, ended: true)
}

/// The final head of a response, with the body bytes decoded together with it.
struct ResponseStart: Sendable {
    var head: HTTPResponseHead
    /// Identifies the exchange, so a body iterator of an earlier response cannot read a later one.
    var exchange: Int
    var body: BodyBatch
    /// How the wait for 100 Continue ended (nil: the request did not ask).
    var continueOutcome: ExpectContinueOutcome? = nil
}

/// The rest of a response body lent out to be spliced into a file: the socket leaves the loop
/// until the loan is returned.
struct BodyLoan: @unchecked Sendable {
    // @unchecked: the socket is used by exactly one thread at a time — the loop before the loan
    // and after its return, the splicing thread in between (the loop deregisters it first).
    let socket: Socket
    /// Body bytes decoded before the loan, to be written first.
    let decoded: BodyBatch
    /// The body bytes still on the wire.
    let remaining: UInt64
}

/// What a loop-side operation did: finished now, or needs a waiter.
enum Readiness<Value: Sendable> {
    case ready(Value)
    case failed(ConnectionError)
    case wait
}
