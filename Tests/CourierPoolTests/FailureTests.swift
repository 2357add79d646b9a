// Rules 6 and 7: any failure closes the connection for good; failed connection attempts are not
// retried, and fail the waiters only when nothing else could serve them. Also remote closes.

@testable import CourierPool
import Testing

@Suite struct FailureTests {
    @Test func aFailedExchangeClosesItsConnectionForGood() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.established(1)
        #expect(pool.failed(1, on: 1, .afterResponseBytes) == [
            .closeConnection(conn(1)), .failRequest(req(1), PoolError(.responseInterrupted)),
        ])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
        // The next request cannot get C1 back: it opens C2.
        #expect(pool.execute(2) == [.createConnection(conn(2), keyA), .scheduleTimer(at(10))])
    }

    @Test func aResponseWithoutKeepAliveClosesTheConnection() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1)
        _ = pool.established(1)
        _ = pool.execute(2)
        // R2 waits; C1 closes after R1, and a new connection is opened for R2.
        #expect(pool.completed(1, keepAlive: false) == [.closeConnection(conn(1)), .createConnection(conn(2), keyA)])
        #expect(pool.established(2) == [.executeRequest(req(2), on: conn(2)), .cancelTimer])
    }

    @Test func aFailureFreesTheSlotForWaiters() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1)
        _ = pool.established(1)
        _ = pool.execute(2)
        #expect(pool.failed(1, on: 1, .afterResponseBytes) == [
            .closeConnection(conn(1)), .failRequest(req(1), PoolError(.responseInterrupted)),
            .createConnection(conn(2), keyA),
        ])
    }

    @Test func anIdleConnectionClosedByTheServerLeavesThePool() {
        var pool = Pool()
        pool.makeIdle(request: 1, connection: 1)
        #expect(pool.closed(1) == [.cancelTimer])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
        #expect(pool.execute(2) == [.createConnection(conn(2), keyA), .scheduleTimer(at(10))])
        // A second report of the same close is ignored.
        #expect(pool.closed(1) == [])
    }

    @Test func aLeasedConnectionClosedUnderItsRequestFailsTheRequest() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        pool.makeIdle(request: 1, connection: 1)
        _ = pool.execute(2)
        _ = pool.execute(3)
        // Not classified by the shell: never retried, even for a GET on a reused connection.
        #expect(pool.closed(1) == [
            .failRequest(req(2), PoolError(.responseInterrupted)), .createConnection(conn(2), keyA),
        ])
        #expect(pool.established(2) == [.executeRequest(req(3), on: conn(2)), .cancelTimer])
    }

    @Test func aFailedAttemptFailsTheWaitersWhenNothingElseCanServeThem() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1)
        _ = pool.execute(2)
        _ = pool.execute(3, keyB)
        #expect(pool.connectFailed(1, code: 111) == [
            .failRequest(req(1), PoolError(.connectFailed, underlying: 111)),
            .failRequest(req(2), PoolError(.connectFailed, underlying: 111)),
        ])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
        // Key B is untouched, and the next request for A dials again.
        #expect(pool.machine.waiterCount(for: keyB) == 1)
        #expect(pool.execute(4) == [.createConnection(conn(3), keyA)])
    }

    @Test func aFailedAttemptLeavesWaitersToTheConnectionsThatRemain() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 3))
        _ = pool.execute(1)
        _ = pool.established(1)
        _ = pool.execute(2)
        _ = pool.execute(3)
        // R2 and R3 wait on attempts C2 and C3; C2 fails. C3 and the leased C1 remain, so nobody
        // fails, and no new attempt replaces C2 (no retry without backoff).
        #expect(pool.connectFailed(2) == [])
        #expect(pool.machine.connectionCount(for: keyA) == 2)
        #expect(pool.established(3) == [.executeRequest(req(2), on: conn(3))])
        #expect(pool.completed(1) == [.executeRequest(req(3), on: conn(1)), .cancelTimer])
    }

    @Test func aFailedAttemptWithOnlyAnotherAttemptLeftKeepsWaiting() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 2))
        _ = pool.execute(1)
        _ = pool.execute(2)
        #expect(pool.connectFailed(1) == [])
        #expect(pool.connectFailed(2, code: 7) == [
            .failRequest(req(1), PoolError(.connectFailed, underlying: 7)),
            .failRequest(req(2), PoolError(.connectFailed, underlying: 7)),
            .cancelTimer,
        ])
    }

    @Test func aConnectionClosedWhileConnectingCountsAsAFailedAttempt() {
        var pool = Pool()
        _ = pool.execute(1)
        #expect(pool.closed(1) == [.failRequest(req(1), PoolError(.connectFailed)), .cancelTimer])
    }

    @Test func lateReportsAboutForgottenConnectionsAreIgnored() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.established(1)
        _ = pool.failed(1, on: 1, .afterResponseBytes)
        #expect(pool.closed(1) == [])
        #expect(pool.connectFailed(1) == [])
        #expect(pool.established(1) == [])
    }

    @Test func errorCodesAreStableAndDescribed() {
        let codes: [PoolError.Code] = [
            .waitDeadlineExceeded, .cancelled, .poolShutdown, .tooManyWaiters, .connectFailed,
            .connectionClosedBeforeResponse, .responseInterrupted,
        ]
        #expect(codes.map(\.rawValue) == codes.map(\.description))
        #expect(codes.map(\.rawValue) == ["waitDeadlineExceeded", "cancelled", "poolShutdown", "tooManyWaiters",
                                          "connectFailed", "connectionClosedBeforeResponse", "responseInterrupted"])
        #expect(codes.allSatisfy { PoolError.Code(rawValue: $0.rawValue) == $0 })
        #expect(PoolError(.connectFailed, underlying: 111).description == "connectFailed(111)")
        #expect(PoolError(.cancelled).description == "cancelled")
    }
}
