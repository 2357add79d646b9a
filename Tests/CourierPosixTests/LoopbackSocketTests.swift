// Real non-blocking sockets on 127.0.0.1 and ::1, driven by the event loop: connect, echo 1 MiB
// with gather writes, sendfile, many accepts, addresses.

import Testing
import Glibc
@testable import CourierPosix
import CourierBytes

extension PosixTests {
    @Suite("Loopback sockets")
    struct LoopbackSocketTests {
        // MARK: Connect

        func connectAndCheckAddresses(_ ip: IPAddress) async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let server = try await loop.submit { try EchoServer(loop: loop, ip: ip) }
                    let target = try await loop.submit { server.address }
                    let socket = try await loop.connect(to: [target])
                    let (local, remote) = try await loop.submit { (try socket.localAddress(), try socket.remoteAddress()) }
                    #expect(remote == target)
                    #expect(local.ip == ip)
                    #expect(local.port != 0)
                    try socket.close()
                    try await loop.submit { server.stop() }
                }
            }
        }

        @Test("connect through the event loop on 127.0.0.1")
        func connectV4() async throws { try await connectAndCheckAddresses(.loopbackV4) }

        @Test("connect through the event loop on ::1", .enabled(if: ipv6LoopbackAvailable, "IPv6 loopback (::1) unavailable here"))
        func connectV6() async throws { try await connectAndCheckAddresses(.loopbackV6) }

        // MARK: Echo

        /// Writes `payload` as a gather list of mixed pieces and reads it all back.
        func echo(_ ip: IPAddress, payload: [UInt8]) async throws -> [UInt8] {
            try await withLoop { loop in
                let server = try await loop.submit { try EchoServer(loop: loop, ip: ip) }
                let target = try await loop.submit { server.address }
                let socket = try await loop.connect(to: [target])
                let total = payload.count
                let received = try await loop.submit(deferred: { (promise: LoopPromise<[UInt8]>) in
                    // Pieces: 64 KiB buffer slices, with static and inline framing around each.
                    var list = GatherList(capacity: 64)
                    let whole = ByteBuffer(bytes: payload)
                    var offset = 0
                    var index = 0
                    while offset < total {
                        let n = min(65_536 - index * 7, total - offset)
                        list.append(.buffer(whole.getSlice(at: offset, length: n)!))
                        offset += n
                        index += 1
                    }
                    var sink = ByteBuffer()
                    var registration: EventLoop.Registration?
                    registration = try! loop.register(socket, interest: [.readable, .writable]) { events in
                        do {
                            if events.contains(.writable) && !list.isEmpty {
                                _ = try socket.write(gathering: &list)
                                if list.isEmpty { try loop.setInterest(.readable, for: registration!) }
                            }
                            if events.contains(.readable) {
                                _ = try socket.read(into: &sink)
                                if sink.readableBytes >= total {
                                    loop.deregister(registration!)
                                    promise.succeed(sink.readableBytesArray)
                                }
                            }
                        } catch {
                            loop.deregister(registration!)
                            promise.fail(error)
                        }
                    }
                    promise.onCancel { loop.deregister(registration!) }
                })
                try socket.close()
                try await loop.submit { server.stop() }
                return received
            }
        }

        @Test("echo 1 MiB through non-blocking sockets with gather writes on 127.0.0.1")
        func echoV4() async throws {
            try await expectNoDescriptorLeak {
                let payload = patternBytes(1 << 20)
                let back = try await echo(.loopbackV4, payload: payload)
                #expect(back.count == payload.count)
                #expect(back == payload, "echoed bytes differ")
            }
        }

        @Test("echo 1 MiB on ::1", .enabled(if: ipv6LoopbackAvailable, "IPv6 loopback (::1) unavailable here"))
        func echoV6() async throws {
            try await expectNoDescriptorLeak {
                let payload = patternBytes(1 << 20, seed: 99)
                let back = try await echo(.loopbackV6, payload: payload)
                #expect(back == payload, "echoed bytes differ")
            }
        }

        @Test("a gather list of more than IOV_MAX pieces is written whole")
        func moreThanIOVMax() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                var list = GatherList(capacity: 3000)
                var expected: [UInt8] = []
                for i in 0..<3000 {
                    let byte = UInt8(truncatingIfNeeded: i)
                    if i % 3 == 0 { list.append(.inline(InlineBytes([byte, byte]))); expected += [byte, byte] }
                    else if i % 3 == 1 { list.append(.staticBytes("-")); expected += Array("-".utf8) }
                    else { list.append(ByteBuffer(bytes: [byte])); expected.append(byte) }
                }
                var got = ByteBuffer()
                var rounds = 0
                while (!list.isEmpty || got.readableBytes < expected.count) && rounds < 10_000 {
                    if !list.isEmpty { _ = try a.write(gathering: &list) }
                    _ = try b.read(into: &got)
                    rounds += 1
                }
                #expect(got.readableBytesArray == expected)
            }
        }

        // MARK: sendfile

        @Test("sendfile sends a temporary file's range over loopback")
        func sendFile() async throws {
            try await expectNoDescriptorLeak {
                let content = patternBytes(300_000, seed: 3)
                let file = try File.makeTemporary(in: "/tmp")
                defer { try? File.remove(file.path) }
                try content.withUnsafeBytes { try file.write($0, at: 0) }
                let (start, length) = (1_000, 250_000)
                let received = try await withLoop { loop in
                    let sink = try await loop.submit { try SinkServer(loop: loop, ip: .loopbackV4) }
                    let target = try await loop.submit { sink.address }
                    let socket = try await loop.connect(to: [target])
                    let bytes = try await loop.submit(deferred: { (promise: LoopPromise<[UInt8]>) in
                        var offset = Int64(start)
                        var remaining = length
                        var registration: EventLoop.Registration?
                        registration = try! loop.register(socket, interest: .writable) { _ in
                            do {
                                while remaining > 0 {
                                    guard case .processed(let n) = try socket.sendFile(file, offset: offset, count: remaining) else { return }
                                    offset += Int64(n)
                                    remaining -= n
                                }
                                loop.deregister(registration!)
                                try socket.shutdown(.write)
                                sink.whenFinished(promise)
                            } catch {
                                loop.deregister(registration!)
                                promise.fail(error)
                            }
                        }
                    })
                    try socket.close()
                    try await loop.submit { sink.stop() }
                    return bytes
                }
                #expect(received.count == length)
                #expect(received == Array(content[start..<(start + length)]))
            }
        }

        // MARK: Accept

        @Test("a listener accepts many connections")
        func acceptMany() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let server = try await loop.submit { try EchoServer(loop: loop, ip: .loopbackV4) }
                    let target = try await loop.submit { server.address }
                    var clients: [Socket] = []
                    for _ in 0..<64 { clients.append(try await loop.connect(to: [target])) }
                    var accepted = 0
                    for _ in 0..<200 where accepted < 64 {
                        accepted = try await loop.submit { server.accepted }
                        if accepted < 64 { try await Task.sleep(for: .milliseconds(5)) }
                    }
                    #expect(accepted == 64)
                    for c in clients { try c.close() }
                    try await loop.submit { server.stop() }
                }
            }
        }

        @Test("a read after the peer closes returns end of stream; shutdown(.write) is seen as EOF")
        func endOfStream() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                _ = try Array("bye".utf8).withUnsafeBytes { try a.write($0) }
                try a.shutdown(.write)
                var buffer = ByteBuffer()
                #expect(try b.read(into: &buffer) == .processed(3))
                #expect(try b.read(into: &buffer) == .processed(0))
                #expect(buffer.readableString == "bye")
            }
        }

        @Test("listening twice on one port fails with EADDRINUSE")
        func addressInUse() async throws {
            try await expectNoDescriptorLeak {
                let first = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                let port = try first.localAddress().port
                #expect(throws: Errno.addressInUse) {
                    _ = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: port))
                }
            }
        }
    }
}
