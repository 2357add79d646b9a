// Rules 1–4: the per-key limit, LIFO reuse of idle connections, FIFO service of waiters, growth,
// and the bound on the queue.

@testable import CourierPool
import Testing

@Suite struct LimitAndReuseTests {
    @Test func firstRequestOpensAConnectionAndRunsWhenItIsUp() {
        var pool = Pool()
        #expect(pool.execute(1) == [.createConnection(conn(1), keyA), .scheduleTimer(at(10))])
        #expect(pool.established(1, now: at(1)) == [.executeRequest(req(1), on: conn(1)), .cancelTimer])
        #expect(pool.completed(1, now: at(2)) == [.scheduleTimer(at(62))])
        #expect(pool.machine.idleConnectionCount(for: keyA) == 1)
    }

    @Test func connectionsPerKeyNeverExceedTheLimit() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 2))
        #expect(pool.execute(1) == [.createConnection(conn(1), keyA), .scheduleTimer(at(10))])
        #expect(pool.execute(2) == [.createConnection(conn(2), keyA)])
        #expect(pool.execute(3) == [])
        #expect(pool.execute(4) == [])
        #expect(pool.machine.connectionCount(for: keyA) == 2)
        #expect(pool.machine.waiterCount(for: keyA) == 4)
        // The two connections serve the four requests in turn.
        #expect(pool.established(1) == [.executeRequest(req(1), on: conn(1))])
        #expect(pool.established(2) == [.executeRequest(req(2), on: conn(2))])
        #expect(pool.completed(1) == [.executeRequest(req(3), on: conn(1))])
        #expect(pool.completed(2) == [.executeRequest(req(4), on: conn(2)), .cancelTimer])
    }

    @Test func keysHaveSeparateLimits() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1, keyA)
        #expect(pool.execute(2, keyA) == [])
        #expect(pool.execute(3, keyB) == [.createConnection(conn(2), keyB)])
        #expect(pool.established(2) == [.executeRequest(req(3), on: conn(2))])
    }

    @Test func aRequestDoesNotOpenAConnectionWhileAnAttemptIsAlreadyCoveringIt() {
        var pool = Pool()
        _ = pool.execute(1)
        #expect(pool.cancel(1) == [.failRequest(req(1), PoolError(.cancelled)), .cancelTimer])
        // Attempt C1 is still in flight and no one waits for it; the next waiter counts on it.
        #expect(pool.execute(2) == [.scheduleTimer(at(10))])
        #expect(pool.execute(3) == [.createConnection(conn(2), keyA)])
    }

    @Test func idleConnectionsAreReusedMostRecentlyReleasedFirst() {
        var pool = Pool()
        for i: UInt64 in 1...3 { _ = pool.execute(i) }
        for i: UInt64 in 1...3 { #expect(pool.established(i).contains(.executeRequest(req(i), on: conn(i)))) }
        _ = pool.completed(2, now: at(1))
        _ = pool.completed(1, now: at(2))
        _ = pool.completed(3, now: at(3))
        #expect(pool.machine.idleConnectionCount(for: keyA) == 3)
        #expect(pool.execute(4, now: at(4)) == [.executeRequest(req(4), on: conn(3))])
        #expect(pool.execute(5, now: at(4)) == [.executeRequest(req(5), on: conn(1))])
        #expect(pool.execute(6, now: at(4)) == [.executeRequest(req(6), on: conn(2)), .cancelTimer])
        #expect(pool.execute(7, now: at(4)) == [.createConnection(conn(4), keyA), .scheduleTimer(at(14))])
    }

    @Test func aReleasedConnectionGoesToTheOldestWaiterFirst() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1)
        _ = pool.established(1)
        #expect(pool.execute(2, now: at(2)) == [.scheduleTimer(at(12))])
        for i: UInt64 in 3...5 { #expect(pool.execute(i, now: at(i)) == []) }
        #expect(pool.completed(1) == [.executeRequest(req(2), on: conn(1)), .scheduleTimer(at(13))])
        #expect(pool.cancel(4) == [.failRequest(req(4), PoolError(.cancelled))])
        #expect(pool.completed(1) == [.executeRequest(req(3), on: conn(1)), .scheduleTimer(at(15))])
        #expect(pool.completed(1) == [.executeRequest(req(5), on: conn(1)), .cancelTimer])
        #expect(pool.completed(1, now: at(20)) == [.scheduleTimer(at(80))])
    }

    @Test func aNewConnectionServesTheOldestWaiterNotTheOneThatOpenedIt() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 2))
        _ = pool.execute(1)
        _ = pool.execute(2)
        // C2 comes up first; it serves R1, the oldest.
        #expect(pool.established(2) == [.executeRequest(req(1), on: conn(2))])
        #expect(pool.established(1) == [.executeRequest(req(2), on: conn(1)), .cancelTimer])
    }

    @Test func aConnectionNobodyWaitsForGoesIdle() {
        var pool = Pool()
        _ = pool.execute(1)
        _ = pool.cancel(1)
        #expect(pool.established(1, now: at(3)) == [.scheduleTimer(at(63))])
        #expect(pool.machine.idleConnectionCount(for: keyA) == 1)
    }

    @Test func theQueueIsBoundedPerKey() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1, maxWaitersPerOrigin: 2))
        _ = pool.execute(1)
        #expect(pool.execute(2) == [])
        #expect(pool.execute(3) == [.failRequest(req(3), PoolError(.tooManyWaiters))])
        // Another key has its own queue.
        #expect(pool.execute(4, keyB) == [.createConnection(conn(2), keyB)])
        // Once R1 is running, there is room in the queue again.
        _ = pool.established(1)
        #expect(pool.execute(5) == [])
    }

    @Test func keysAreCaseInsensitiveInSchemeAndHost() {
        var pool = Pool()
        _ = pool.execute(1, PoolKey(scheme: "HTTP", host: "A.Test", port: 80))
        _ = pool.established(1)
        _ = pool.completed(1)
        #expect(pool.execute(2, keyA) == [.executeRequest(req(2), on: conn(1)), .cancelTimer])
        #expect(PoolKey(scheme: "http", host: "a.test", port: 81) != keyA)
        #expect(PoolKey(scheme: "http", host: "a.test", port: 80, partition: "proxy") != keyA)
    }
}
