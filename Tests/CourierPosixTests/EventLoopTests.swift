// The event loop: cross-thread execute, the async bridge, timers, deferred promises, shutdown.

import Testing
import Synchronization
@testable import CourierPosix

extension PosixTests {
    @Suite("Event loop")
    struct EventLoopTests {
        @Test("submit runs on the loop thread and returns the value or the error")
        func submitBridge() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    #expect(!loop.inEventLoop)
                    let onLoop = try await loop.submit { loop.inEventLoop }
                    #expect(onLoop)
                    let value = try await loop.submit { 6 * 7 }
                    #expect(value == 42)
                    await #expect(throws: Errno.connectionReset) {
                        try await loop.submit { () throws -> Int in throw Errno.connectionReset }
                    }
                }
            }
        }

        @Test("execute from many threads runs every task once, in order per submitter")
        func crossThreadExecute() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    final class Log: @unchecked Sendable { var entries: [Int: [Int]] = [:] }  // loop thread only
                    let log = Log()
                    await withTaskGroup(of: Void.self) { group in
                        for submitter in 0..<8 {
                            group.addTask {
                                for i in 0..<100 {
                                    #expect(loop.execute { log.entries[submitter, default: []].append(i) })
                                }
                            }
                        }
                    }
                    let entries = try await loop.submit { log.entries }
                    #expect(entries.count == 8)
                    for (_, list) in entries { #expect(list == Array(0..<100)) }
                }
            }
        }

        @Test("timers fire in deadline order, ties in scheduling order, and can be cancelled")
        func timers() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    final class Log: @unchecked Sendable { var fired: [String] = [] }
                    let log = Log()
                    let fired = try await loop.submit(deferred: { (promise: LoopPromise<[String]>) in
                        let base = Instant.now()
                        loop.scheduleTimer(at: base + .milliseconds(60)) { log.fired.append("c") }
                        loop.scheduleTimer(at: base + .milliseconds(20)) { log.fired.append("a1") }
                        loop.scheduleTimer(at: base + .milliseconds(20)) { log.fired.append("a2") }
                        let cancelled = loop.scheduleTimer(at: base + .milliseconds(30)) { log.fired.append("never") }
                        loop.scheduleTimer(at: base + .milliseconds(40)) { log.fired.append("b") }
                        loop.scheduleTimer(at: base + .milliseconds(80)) { promise.succeed(log.fired) }
                        #expect(loop.cancelTimer(cancelled))
                        #expect(!loop.cancelTimer(cancelled))
                        loop.scheduleTimer(at: base - .seconds(1)) { log.fired.append("past") }
                    })
                    #expect(fired == ["past", "a1", "a2", "b", "c"])
                }
            }
        }

        @Test("a timer never fires early")
        func timerNotEarly() async throws {
            try await withLoop { loop in
                let elapsed = try await loop.submit(deferred: { (promise: LoopPromise<Duration>) in
                    let start = Instant.now()
                    loop.scheduleTimer(after: .milliseconds(15)) { promise.succeed(Instant.now() - start) }
                })
                #expect(elapsed >= .milliseconds(15))
            }
        }

        @Test("many timers: cancelling most keeps order and fires the rest")
        func manyTimers() async throws {
            try await withLoop { loop in
                let fired = try await loop.submit(deferred: { (promise: LoopPromise<[Int]>) in
                    final class Log { var fired: [Int] = [] }
                    let log = Log()
                    let base = Instant.now()
                    var timers: [EventLoop.Timer] = []
                    for i in 0..<500 {
                        timers.append(loop.scheduleTimer(at: base + .microseconds(Int64((499 - i) * 10))) { log.fired.append(i) })
                    }
                    for (i, t) in timers.enumerated() where i % 5 != 0 { loop.cancelTimer(t) }
                    loop.scheduleTimer(at: base + .milliseconds(20)) { promise.succeed(log.fired) }
                })
                #expect(fired == stride(from: 495, through: 0, by: -5).map { $0 })
            }
        }

        @Test("cancelling the awaiting task runs the promise's cancel handler")
        func deferredCancellation() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let cleaned = Atomic<Bool>(false)
                    let started = Atomic<Bool>(false)
                    let task = Task {
                        try await loop.submit(deferred: { (promise: LoopPromise<Int>) in
                            started.store(true, ordering: .releasing)
                            promise.onCancel { cleaned.store(true, ordering: .releasing) }
                        })
                    }
                    var spins = 0
                    while !started.load(ordering: .acquiring) && spins < 1000 {
                        try await Task.sleep(for: .milliseconds(1))
                        spins += 1
                    }
                    task.cancel()
                    await #expect(throws: CancellationError.self) { try await task.value }
                    let didClean = cleaned.load(ordering: .acquiring)
                    #expect(didClean)
                }
            }
        }

        @Test("shutdown fails pending promises and later work is refused")
        func shutdownSemantics() async throws {
            try await expectNoDescriptorLeak {
                let loop = try EventLoop()
                let started = Atomic<Bool>(false)
                let pending = Task {
                    try await loop.submit(deferred: { (_: LoopPromise<Int>) in started.store(true, ordering: .releasing) })
                }
                var spins = 0
                while !started.load(ordering: .acquiring) && spins < 1000 {
                    try await Task.sleep(for: .milliseconds(1))
                    spins += 1
                }
                await loop.shutdown()
                await #expect(throws: EventLoopError.shutDown) { try await pending.value }
                #expect(!loop.execute {})
                await #expect(throws: EventLoopError.shutDown) { try await loop.submit { 1 } }
                await loop.shutdown()  // again: allowed
            }
        }

        @Test("registrations deliver readiness, interest changes, and deregistration stops events")
        func registrations() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let (a, b) = try Socket.makePair()
                    let events = try await loop.submit(deferred: { (promise: LoopPromise<[String]>) in
                        final class Log { var seen: [String] = [] }
                        let log = Log()
                        var registration: EventLoop.Registration?
                        registration = try! loop.register(a, interest: .writable) { events in
                            if events.contains(.writable) {
                                log.seen.append("writable")
                                try! loop.setInterest(.readable, for: registration!)
                                _ = try! [UInt8]([1, 2, 3]).withUnsafeBytes { try b.write($0) }
                            } else if events.contains(.readable) {
                                log.seen.append("readable")
                                loop.deregister(registration!)
                                loop.deregister(registration!)  // twice is fine
                                #expect(loop.registrationCount == 0)
                                promise.succeed(log.seen)
                            }
                        }
                    })
                    #expect(events == ["writable", "readable"])
                }
            }
        }
    }
}
