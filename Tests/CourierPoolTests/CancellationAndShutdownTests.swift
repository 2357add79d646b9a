// Rules 9 and 10: cancelling requests, and shutting the pool down.

@testable import CourierPool
import Testing

@Suite struct CancellationAndShutdownTests {
    @Test func cancellingAWaiterRemovesItFromTheQueue() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1)
        _ = pool.execute(2, deadline: at(20))
        #expect(pool.cancel(1) == [.failRequest(req(1), PoolError(.cancelled)), .scheduleTimer(at(20))])
        #expect(pool.machine.waiterCount(for: keyA) == 1)
        #expect(pool.established(1) == [.executeRequest(req(2), on: conn(1)), .cancelTimer])
    }

    @Test func cancellingAnExecutingRequestIsTheShellsBusiness() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.established(1)
        #expect(pool.cancel(1) == [])
        // The shell aborts the exchange and reports it; the request fails once.
        #expect(pool.failed(1, on: 1, .afterResponseBytes) == [
            .closeConnection(conn(1)), .failRequest(req(1), PoolError(.responseInterrupted)),
        ])
        #expect(pool.cancel(1) == [])
    }

    @Test func cancellingAnUnknownRequestDoesNothing() {
        var pool = Pool()
        #expect(pool.cancel(42) == [])
        pool.makeIdle(request: 1, connection: 1)
        #expect(pool.cancel(1) == [])
    }

    @Test func shuttingDownAnEmptyPoolCompletesAtOnce() {
        var pool = Pool()
        #expect(pool.shutdown() == [.shutdownComplete])
        #expect(pool.machine.isShutDown)
        #expect(pool.execute(1) == [.failRequest(req(1), PoolError(.poolShutdown))])
        #expect(pool.shutdown() == [])
    }

    @Test func shutdownFailsWaitersClosesFreeConnectionsAndWaitsForLeasedOnes() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 2))
        _ = pool.execute(1)
        _ = pool.established(1)  // R1 runs on C1
        _ = pool.execute(2)      // R2 waits on attempt C2
        pool.makeIdle(request: 3, connection: 3, key: keyB)
        #expect(pool.shutdown() == [
            .failRequest(req(2), PoolError(.poolShutdown)),
            .closeConnection(conn(3)),
            .closeConnection(conn(2)),
            .cancelTimer,
        ])
        #expect(!pool.machine.isShutDown)
        #expect(pool.execute(4) == [.failRequest(req(4), PoolError(.poolShutdown))])
        // The aborted attempt's late report is ignored.
        #expect(pool.established(2) == [])
        // R1 finishes; its connection is closed even though it could be kept alive.
        #expect(pool.completed(1, keepAlive: true) == [.closeConnection(conn(1)), .shutdownComplete])
        #expect(pool.machine.isShutDown)
        #expect(pool.shutdown() == [])
        #expect(pool.timer(at(100)) == [])
    }

    @Test func shutdownFailsARetriedRequestAwaitingItsConnection() {
        var pool = Pool()
        pool.makeIdle(request: 1, connection: 1)
        _ = pool.execute(2)
        _ = pool.failed(2, on: 1)
        #expect(pool.shutdown() == [
            .failRequest(req(2), PoolError(.poolShutdown)), .closeConnection(conn(2)), .shutdownComplete,
        ])
    }

    @Test func shutdownCompletesWhenTheLastLeasedConnectionCloses() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.execute(2)
        _ = pool.established(1)
        _ = pool.established(2)
        #expect(pool.shutdown() == [])
        #expect(pool.closed(1) == [.failRequest(req(1), PoolError(.responseInterrupted))])
        #expect(pool.failed(2, on: 2, .beforeAnyResponseByte) == [
            .closeConnection(conn(2)), .failRequest(req(2), PoolError(.connectionClosedBeforeResponse)),
            .shutdownComplete,
        ])
    }
}
