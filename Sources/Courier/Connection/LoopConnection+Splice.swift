// LoopConnection lends the socket of a Content-Length body to a splicer (socket → pipe → file in
// the kernel) and takes it back with the count moved. Runs on the loop (see LoopConnection's
// header).

import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS

extension LoopConnection {
    // MARK: Splicing a body into a file

    /// Lends the rest of the response body of `exchange` for splicing, when it can be: a plain
    /// connection, a Content-Length body with bytes still on the wire and none of them buffered,
    /// nobody waiting. The body decoded so far comes with the loan; the socket is deregistered
    /// from the loop until `returnLoan`.
    func lendBody(exchange: Int) -> BodyLoan? {
        guard exchange == exchangeNumber, headTaken, !endDelivered, !bodyEnded, tls == nil, failure == nil, !peerEOF,
              !socketLent, let socket, bodyWaiter == nil, let remaining = machine.bodyBytesRemainingOnTheWire, remaining > 0 else {
            return nil
        }
        let decoded = takePending()
        if let registration { loop.deregister(registration) }
        registration = nil
        interest = []
        socketLent = true
        return BodyLoan(socket: socket, decoded: decoded, remaining: remaining)
    }

    /// Takes the socket back after a splice that moved `moved` body bytes: the machine accounts
    /// for them (the end of the body follows when they were the last), or the connection fails
    /// with `error` (a splice that stopped early leaves the framing unknowable).
    func returnLoan(moved: UInt64, endOfStream: Bool, error: ConnectionError?) {
        precondition(socketLent, "returnLoan without a loan")
        socketLent = false
        if failure != nil {
            // Failed while lent (a deadline): the close was left for now.
            closeTransport(graceful: false)
            deliver()
            return
        }
        if let error {
            fail(error)
            return
        }
        machine.receivedBodyElsewhere(moved)
        do {
            if let socket {
                registration = try loop.register(socket, interest: []) { [unowned self] events in handle(events) }
            }
        } catch {
            fail(.from(io: error, writing: false))
            return
        }
        if endOfStream {
            peerEOF = true
            try? machine.connectionClosed()
        }
        decode()
        deliver()
        updateInterest()
    }
}
