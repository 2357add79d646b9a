// Rule 5: waiter deadlines and idle timeouts, driven by `timerFired(now:)`, and the one timer the
// machine asks the shell to keep.

@testable import CourierPool
import Testing

@Suite struct TimerTests {
    @Test func aWaiterFailsWhenItsDeadlinePasses() {
        var pool = Pool()
        #expect(pool.execute(1) == [.createConnection(conn(1), keyA), .scheduleTimer(at(10))])
        // Early (or spurious) firing fails nothing and re-arms the same instant.
        #expect(pool.timer(at(9)) == [.scheduleTimer(at(10))])
        #expect(pool.timer(at(10)) == [.failRequest(req(1), PoolError(.waitDeadlineExceeded))])
        #expect(pool.machine.waiterCount(for: keyA) == 0)
        // The attempt is still in flight; when it lands it goes idle.
        #expect(pool.established(1, now: at(11)) == [.scheduleTimer(at(71))])
    }

    @Test func aPerRequestDeadlineOverridesTheDefault() {
        var pool = Pool()
        #expect(pool.execute(1, deadline: at(3)) == [.createConnection(conn(1), keyA), .scheduleTimer(at(3))])
        #expect(pool.execute(2) == [.createConnection(conn(2), keyA)])
        #expect(pool.execute(3, deadline: at(2)) == [.createConnection(conn(3), keyA), .scheduleTimer(at(2))])
        #expect(pool.timer(at(2)) == [.failRequest(req(3), PoolError(.waitDeadlineExceeded)), .scheduleTimer(at(3))])
        #expect(pool.timer(at(5)) == [.failRequest(req(1), PoolError(.waitDeadlineExceeded)), .scheduleTimer(at(10))])
        #expect(pool.established(2, now: at(6)) == [.executeRequest(req(2), on: conn(2)), .cancelTimer])
    }

    @Test func aLateTimerFailsEveryExpiredWaiterInQueueOrder() {
        var pool = Pool(.init(maxConnectionsPerOrigin: 1))
        _ = pool.execute(1, deadline: at(5))
        _ = pool.execute(2, deadline: at(4))
        _ = pool.execute(3, deadline: at(30))
        #expect(pool.timer(at(20)) == [
            .failRequest(req(1), PoolError(.waitDeadlineExceeded)),
            .failRequest(req(2), PoolError(.waitDeadlineExceeded)),
            .scheduleTimer(at(30)),
        ])
    }

    @Test func aDeadlineThatHasAlreadyPassedFailsAtOnce() {
        var pool = Pool()
        #expect(pool.execute(1, deadline: at(5), now: at(5)) == [.failRequest(req(1), PoolError(.waitDeadlineExceeded))])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
        // An idle connection serves the request whatever its deadline: it does not wait.
        pool.makeIdle(request: 2, connection: 1, now: at(6))
        #expect(pool.execute(3, deadline: at(1), now: at(7)) == [.executeRequest(req(3), on: conn(1)), .cancelTimer])
    }

    @Test func anIdleConnectionIsClosedWhenItsIdleTimeoutPasses() {
        var pool = Pool(.init(idleTimeout: .seconds(30)))
        pool.makeIdle(request: 1, connection: 1, now: at(5))
        #expect(pool.machine.timerDeadline == at(35))
        #expect(pool.timer(at(34)) == [.scheduleTimer(at(35))])
        #expect(pool.timer(at(35)) == [.closeConnection(conn(1))])
        #expect(pool.machine.connectionCount(for: keyA) == 0)
        // The shell's own report of the close it was asked for is ignored.
        #expect(pool.closed(1) == [])
        #expect(pool.execute(2, now: at(36)) == [.createConnection(conn(2), keyA), .scheduleTimer(at(46))])
    }

    @Test func reusingAnIdleConnectionStopsItsIdleTimeout() {
        var pool = Pool()
        pool.makeIdle(request: 1, connection: 1, now: at(0))
        #expect(pool.execute(2, now: at(10)) == [.executeRequest(req(2), on: conn(1)), .cancelTimer])
        #expect(pool.timer(at(60)) == [])
        #expect(pool.completed(1, now: at(70)) == [.scheduleTimer(at(130))])
    }

    @Test func lifoReuseLetsTheUnusedConnectionsExpire() {
        var pool = Pool(.init(idleTimeout: .seconds(60)))
        _ = pool.execute(1)
        _ = pool.execute(2)
        _ = pool.established(1)
        _ = pool.established(2)
        _ = pool.completed(1, now: at(1))
        _ = pool.completed(2, now: at(2))
        // A steady trickle of requests keeps reusing C2, the top of the stack; C1 ages out.
        for second: UInt64 in stride(from: 10, through: 60, by: 10) {
            #expect(pool.execute(100 + second, now: at(second)).first == .executeRequest(req(100 + second), on: conn(2)))
            _ = pool.completed(2, now: at(second))
        }
        #expect(pool.timer(at(61)) == [.closeConnection(conn(1)), .scheduleTimer(at(120))])
        #expect(pool.machine.idleConnectionCount(for: keyA) == 1)
    }

    @Test func instantsSaturateAndIgnoreNegativeDurations() {
        #expect(Instant(nanoseconds: .max - 1).advanced(by: .seconds(1)) == .distantFuture)
        #expect(at(1).advanced(by: .seconds(-5)) == at(1))
        #expect(at(1).advanced(by: .milliseconds(1500)) == Instant(nanoseconds: 2_500_000_000))
        #expect(Instant(nanoseconds: 0).advanced(by: .seconds(Int64.max)) == .distantFuture)
    }
}
