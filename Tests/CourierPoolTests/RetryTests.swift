// Rule 8: a request that fails before any response byte on a reused connection is sent once more,
// on a fresh connection of its own, only when it is idempotent and its body can be replayed.

@testable import CourierPool
import Testing

@Suite struct RetryTests {
    /// A pool where C1 has served R1 and is idle, then carries R2: C1 is a reused connection.
    func poolWithRequestOnReusedConnection(idempotent: Bool = true, replayable: Bool = true,
                                           limits: PoolStateMachine.Limits = .init()) -> Pool {
        var pool = Pool(limits)
        pool.makeIdle(request: 1, connection: 1)
        #expect(pool.execute(2, idempotent: idempotent, replayable: replayable)
            == [.executeRequest(req(2), on: conn(1)), .cancelTimer])
        return pool
    }

    @Test func anIdempotentReplayableRequestIsRetriedOnceOnAFreshConnection() {
        var pool = poolWithRequestOnReusedConnection()
        #expect(pool.failed(2, on: 1) == [.closeConnection(conn(1)), .createConnection(conn(2), keyA)])
        #expect(pool.machine.connectionCount(for: keyA) == 1)
        #expect(pool.established(2) == [.executeRequest(req(2), on: conn(2))])
        #expect(pool.completed(2) == [.scheduleTimer(at(60))])
    }

    @Test func theRetryKeepsItsPlaceAheadOfTheQueue() {
        var pool = poolWithRequestOnReusedConnection(limits: .init(maxConnectionsPerOrigin: 1))
        #expect(pool.execute(3) == [.scheduleTimer(at(10))])
        #expect(pool.failed(2, on: 1) == [.closeConnection(conn(1)), .createConnection(conn(2), keyA)])
        // The fresh connection is R2's, although R3 is waiting.
        #expect(pool.established(2) == [.executeRequest(req(2), on: conn(2))])
        #expect(pool.completed(2) == [.executeRequest(req(3), on: conn(2)), .cancelTimer])
    }

    @Test func theRetryDoesNotTakeAnIdleConnection() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.execute(2)
        _ = pool.established(1)
        _ = pool.established(2)
        _ = pool.completed(1)
        _ = pool.completed(2)
        #expect(pool.execute(3) == [.executeRequest(req(3), on: conn(2))])
        // R3 took C2 (top of the stack); C1 stays idle, but the retry wants a fresh connection.
        #expect(pool.failed(3, on: 2) == [.closeConnection(conn(2)), .createConnection(conn(3), keyA)])
        #expect(pool.machine.idleConnectionCount(for: keyA) == 1)
    }

    @Test func aRetryAlsoOpensAnAttemptForWaitersThatCountedOnTheFailedConnection() {
        // Found by the model-based test (seed 588): R3 waited for the leased C1 after its own
        // attempt failed; when C1 failed and became R2's retry, R3 had nothing left to wait for.
        var pool = poolWithRequestOnReusedConnection(limits: .init(maxConnectionsPerOrigin: 3))
        #expect(pool.execute(3) == [.createConnection(conn(2), keyA), .scheduleTimer(at(10))])
        #expect(pool.connectFailed(2) == [])
        #expect(pool.failed(2, on: 1) == [
            .closeConnection(conn(1)), .createConnection(conn(3), keyA), .createConnection(conn(4), keyA),
        ])
        #expect(pool.established(4) == [.executeRequest(req(3), on: conn(4)), .cancelTimer])
        #expect(pool.established(3) == [.executeRequest(req(2), on: conn(3))])
    }

    @Test func aPostIsNeverSentTwice() {
        var pool = poolWithRequestOnReusedConnection(idempotent: false)
        #expect(pool.failed(2, on: 1) == [
            .closeConnection(conn(1)), .failRequest(req(2), PoolError(.connectionClosedBeforeResponse)),
        ])
    }

    @Test func aBodyThatCannotBeReplayedIsNotRetried() {
        var pool = poolWithRequestOnReusedConnection(replayable: false)
        #expect(pool.failed(2, on: 1) == [
            .closeConnection(conn(1)), .failRequest(req(2), PoolError(.connectionClosedBeforeResponse)),
        ])
    }

    @Test func aFailureAfterResponseBytesIsNeverRetried() {
        var pool = poolWithRequestOnReusedConnection()
        #expect(pool.failed(2, on: 1, .afterResponseBytes) == [
            .closeConnection(conn(1)), .failRequest(req(2), PoolError(.responseInterrupted)),
        ])
    }

    @Test func aFailureOnAFreshConnectionIsNotRetried() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.established(1)
        #expect(pool.failed(1, on: 1) == [
            .closeConnection(conn(1)), .failRequest(req(1), PoolError(.connectionClosedBeforeResponse)),
        ])
    }

    @Test func aConnectionThatSatIdleCountsAsReused() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.cancel(1)
        _ = pool.established(1)  // idle without ever carrying a request
        _ = pool.execute(2)
        #expect(pool.failed(2, on: 1) == [.closeConnection(conn(1)), .createConnection(conn(2), keyA)])
    }

    @Test func aSecondFailureFailsTheRequest() {
        var pool = poolWithRequestOnReusedConnection()
        _ = pool.failed(2, on: 1)
        _ = pool.established(2)
        #expect(pool.failed(2, on: 2) == [
            .closeConnection(conn(2)), .failRequest(req(2), PoolError(.connectionClosedBeforeResponse)),
        ])
    }

    @Test func aRetriedRequestFailsWhenItsFreshConnectionCannotBeOpened() {
        var pool = poolWithRequestOnReusedConnection()
        _ = pool.failed(2, on: 1)
        #expect(pool.connectFailed(2, code: 113) == [.failRequest(req(2), PoolError(.connectFailed, underlying: 113))])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
    }

    @Test func cancellingARetriedRequestHandsItsConnectionToTheQueue() {
        var pool = poolWithRequestOnReusedConnection(limits: .init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(3)
        _ = pool.failed(2, on: 1)
        #expect(pool.cancel(2) == [.failRequest(req(2), PoolError(.cancelled))])
        #expect(pool.established(2) == [.executeRequest(req(3), on: conn(2)), .cancelTimer])
    }

    @Test func noRetryWhileShuttingDown() {
        var pool = poolWithRequestOnReusedConnection()
        #expect(pool.shutdown() == [])
        #expect(pool.failed(2, on: 1) == [
            .closeConnection(conn(1)), .failRequest(req(2), PoolError(.connectionClosedBeforeResponse)),
            .shutdownComplete,
        ])
    }

    @Test func idempotentMethodsAreClassifiedByRFC9110() {
        for method in ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"] {
            #expect(PoolStateMachine.isIdempotent(method: method), "\(method)")
        }
        for method in ["POST", "PATCH", "CONNECT", "get", "Put", "", "PROPFIND"] {
            #expect(!PoolStateMachine.isIdempotent(method: method), "\(method)")
        }
    }
}
