// Happy Eyeballs (RFC 8305) over loopback only: family interleaving, fallback when one family
// is refused, the typed error when every attempt fails, the overall timeout.

import Testing
@testable import CourierPosix

extension PosixTests {
    @Suite("Happy Eyeballs")
    struct HappyEyeballsTests {
        @Test("families interleave, IPv6 first, order within a family kept, duplicates dropped")
        func ordering() {
            let a4 = SocketAddress("192.0.2.1", port: 1)!, b4 = SocketAddress("192.0.2.2", port: 1)!
            let c4 = SocketAddress("192.0.2.3", port: 1)!
            let a6 = SocketAddress("2001:db8::1", port: 1)!, b6 = SocketAddress("2001:db8::2", port: 1)!
            #expect(HappyEyeballs.order([a4, b4, c4, a6, b6, a4]) == [a6, a4, b6, b4, c4])
            #expect(HappyEyeballs.order([a4, b4]) == [a4, b4])
            #expect(HappyEyeballs.order([]) == [])
        }

        func fallback(listenOn listening: IPAddress, refuseOn refused: IPAddress) async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let server = try await loop.submit { try EchoServer(loop: loop, ip: listening) }
                    let good = try await loop.submit { server.address }
                    let bad = SocketAddress(ip: refused, port: try closedPort(on: refused))
                    // A long attempt delay: success proves the next attempt started as soon as
                    // the refused one failed (RFC 8305 §5), not after the delay.
                    let config = ConnectConfiguration(attemptDelay: .seconds(30), timeout: .seconds(20))
                    let start = Instant.now()
                    let socket = try await loop.connect(to: [bad, good], configuration: config)
                    #expect(Instant.now() - start < .seconds(10))
                    let peer = try await loop.submit { try socket.remoteAddress() }
                    #expect(peer == good)
                    try socket.close()
                    try await loop.submit { server.stop() }
                }
            }
        }

        @Test("IPv6 refused, IPv4 listening: connects over IPv4",
              .enabled(if: ipv6LoopbackAvailable, "IPv6 loopback (::1) unavailable here"))
        func v6RefusedV4Listening() async throws { try await fallback(listenOn: .loopbackV4, refuseOn: .loopbackV6) }

        @Test("IPv4 refused, IPv6 listening: connects over IPv6",
              .enabled(if: ipv6LoopbackAvailable, "IPv6 loopback (::1) unavailable here"))
        func v4RefusedV6Listening() async throws { try await fallback(listenOn: .loopbackV6, refuseOn: .loopbackV4) }

        @Test("two IPv4 candidates, the first refused")
        func sameFamilyFallback() async throws { try await fallback(listenOn: .loopbackV4, refuseOn: .loopbackV4) }

        @Test("every attempt refused: a typed error listing each attempt")
        func allRefused() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    var candidates = [SocketAddress(ip: .loopbackV4, port: try closedPort(on: .loopbackV4))]
                    if ipv6LoopbackAvailable {
                        candidates.append(SocketAddress(ip: .loopbackV6, port: try closedPort(on: .loopbackV6)))
                    }
                    let error = await #expect(throws: ConnectError.self) {
                        _ = try await loop.connect(to: candidates)
                    }
                    #expect(error?.code == .connectionRefused)
                    #expect(error?.attempts.count == candidates.count)
                    #expect(error?.attempts.allSatisfy { $0.error == .connectionRefused } == true)
                    #expect(Set(error?.attempts.map(\.address) ?? []) == Set(candidates))
                    #expect(error.map { "\($0)" }?.contains("ECONNREFUSED") == true)
                }
            }
        }

        @Test("no candidates: .noAddresses")
        func noCandidates() async throws {
            try await withLoop { loop in
                let error = await #expect(throws: ConnectError.self) { _ = try await loop.connect(to: []) }
                #expect(error?.code == .noAddresses)
            }
        }

        @Test("error summaries pick the right code")
        func summaries() {
            let a = SocketAddress(ip: .loopbackV4, port: 1)
            func attempts(_ errors: [Errno?]) -> [ConnectError.Attempt] {
                errors.map { ConnectError.Attempt(address: a, error: $0) }
            }
            #expect(ConnectError.summarizing(attempts([.connectionRefused]), deadlinePassed: false).code == .connectionRefused)
            #expect(ConnectError.summarizing(attempts([.connectionRefused, nil]), deadlinePassed: true).code == .timedOut)
            #expect(ConnectError.summarizing(attempts([.networkUnreachable, .hostUnreachable]), deadlinePassed: false).code == .unreachable)
            #expect(ConnectError.summarizing(attempts([.connectionRefused, .networkUnreachable]), deadlinePassed: false).code == .failed)
            #expect(ConnectError.summarizing(attempts([.timedOut]), deadlinePassed: false).code == .timedOut)
        }

        @Test("a cancelled connect closes its attempts")
        func cancelledConnect() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let target = SocketAddress(ip: .loopbackV4, port: try closedPort(on: .loopbackV4))
                    let task = Task { try await loop.connect(to: [target, target]) }
                    task.cancel()
                    // Either the cancellation or the refusal wins; nothing may stay open.
                    _ = try? await task.value
                }
            }
        }
    }
}

extension PosixTests.HappyEyeballsTests {
    @Test("the overall deadline ends a race that cannot connect (a listener whose queue is full)")
    func deadline() async throws {
        try await expectNoDescriptorLeak {
            try await withLoop { loop in
                // A listener that never accepts, with the smallest backlog: once its queue is
                // full the kernel drops further SYNs, so the next connect neither succeeds nor fails.
                let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0), backlog: 0)
                let target = try listener.localAddress()
                var fillers: [Socket] = []
                var timedOut: ConnectError?
                let config = ConnectConfiguration(attemptDelay: .milliseconds(100), timeout: .milliseconds(300))
                for _ in 0..<16 where timedOut == nil {
                    do {
                        fillers.append(try await loop.connect(to: [target], configuration: config))
                    } catch let error as ConnectError {
                        timedOut = error
                    }
                }
                let error = try #require(timedOut, "16 connects to a full queue all succeeded")
                #expect(error.code == .timedOut)
                #expect(error.attempts.count == 1)
                #expect(error.attempts.first?.error == nil, "the attempt was still pending at the deadline")
                for f in fillers { try f.close() }
                try listener.close()
            }
        }
    }
}

extension PosixTests.HappyEyeballsTests {
    @Test("a stalled first attempt is overtaken after the attempt delay, and is closed")
    func attemptDelay() async throws {
        try await expectNoDescriptorLeak {
            try await withLoop { loop in
                let stalled = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0), backlog: 0)
                let stalledAddress = try stalled.localAddress()
                let quick = ConnectConfiguration(attemptDelay: .milliseconds(50), timeout: .milliseconds(200))
                // Fill the stalled listener's queue until a connect to it times out.
                var fillers: [Socket] = []
                for _ in 0..<16 {
                    guard let s = try? await loop.connect(to: [stalledAddress], configuration: quick) else { break }
                    fillers.append(s)
                }
                let server = try await loop.submit { try EchoServer(loop: loop, ip: .loopbackV4) }
                let good = try await loop.submit { server.address }
                let config = ConnectConfiguration(attemptDelay: .milliseconds(100), timeout: .seconds(20))
                let start = Instant.now()
                let socket = try await loop.connect(to: [stalledAddress, good], configuration: config)
                let elapsed = Instant.now() - start
                #expect(elapsed >= .milliseconds(100), "the second attempt waited for the delay")
                #expect(try socket.remoteAddress() == good)
                try socket.close()
                try await loop.submit { server.stop() }
                for f in fillers { try f.close() }
                try stalled.close()
            }
        }
    }
}
