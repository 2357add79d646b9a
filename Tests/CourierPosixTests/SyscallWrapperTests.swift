// The door's rules, with the kernel played by KernelMock: EINTR retried, EAGAIN as a value,
// partial gather writes resumed at the right byte, typed errors, close never retried.

import Testing
import Glibc
@testable @_spi(KernelMocking) import CourierPosix
import CourierBytes
import Synchronization

extension PosixTests {
    @Suite("Syscall wrappers (mocked kernel)")
    struct SyscallWrapperTests {
        @Test("EINTR is retried until the call succeeds")
        func eintrRetried() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                let fd = a.fileDescriptor
                let mock = KernelMock(replies: [.error(.interrupted), .error(.interrupted), .passthrough],
                                      matching: { $0 == .send(fd: fd, bytes: Array("hi".utf8)) })
                let result = try KernelMock.$current.withValue(mock) {
                    try Array("hi".utf8).withUnsafeBytes { try a.write($0) }
                }
                #expect(result == .processed(2))
                #expect(mock.calls.filter { $0.fd == fd }.count == 3)
                var received = ByteBuffer()
                #expect(try b.read(into: &received) == .processed(2))
                #expect(received.readableString == "hi")
            }
        }

        @Test("EAGAIN becomes .wouldBlock, from the mock and from the real kernel")
        func eagainIsAValue() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                var buffer = ByteBuffer()
                #expect(try a.read(into: &buffer) == .wouldBlock)  // real: nothing to read yet
                #expect(b.isOpen)
                let mock = KernelMock(replies: [.error(.wouldBlock)], matching: { if case .send = $0 { true } else { false } })
                let result = try KernelMock.$current.withValue(mock) {
                    try [UInt8](repeating: 1, count: 4).withUnsafeBytes { try a.write($0) }
                }
                #expect(result == .wouldBlock)
                var list = GatherList([.staticBytes("abc")])
                let mock2 = KernelMock(replies: [.error(.wouldBlock)], matching: { if case .sendmsg = $0 { true } else { false } })
                let r2 = try KernelMock.$current.withValue(mock2) { try a.write(gathering: &list) }
                #expect(r2 == .wouldBlock)
                #expect(list.count == 3)
                let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                guard case .wouldBlock = try listener.accept() else {
                    Issue.record("accept with nothing pending should be wouldBlock")
                    return
                }
            }
        }

        @Test("A reads answered by the mock fill the buffer")
        func mockedRead() async throws {
            try await expectNoDescriptorLeak {
                let (a, peer) = try Socket.makePair()
                defer { withExtendedLifetime(peer) {} }
                let fd = a.fileDescriptor
                let mock = KernelMock(replies: [.error(.interrupted), .data(Array("hello".utf8)), .result(0)],
                                      matching: { if case .read(fd, _) = $0 { true } else { false } })
                var buffer = ByteBuffer()
                let (first, second) = try KernelMock.$current.withValue(mock) {
                    (try a.read(into: &buffer, maxBytes: 3), try a.read(into: &buffer))
                }
                #expect(first == .processed(3))
                #expect(second == .processed(0))
                #expect(buffer.readableString == "hel")
            }
        }

        @Test("Partial gather writes resume at the right byte across pieces", arguments: [
            [3, 4, 1, 5, 2, 100],   // cuts inside static, buffer and inline pieces
            [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 100],
            [2, 7, 100],            // cuts exactly at piece boundaries
        ])
        func partialGatherWrites(cuts: [Int]) async throws {
            try await expectNoDescriptorLeak {
                let (a, peer) = try Socket.makePair()
                defer { withExtendedLifetime(peer) {} }
                var inline = InlineBytes()
                for byte in "HI".utf8 { inline.append(byte) }
                let original = GatherList([.staticBytes("AB"), .buffer(ByteBuffer(string: "CDEFG")),
                                           .inline(inline), .buffer(ByteBuffer(string: "JKLMNOP"))])
                var list = original
                // The kernel takes cuts[i] bytes on the i-th sendmsg, never more than offered.
                let index = Mutex(0)
                let mock = KernelMock { call in
                    guard case .sendmsg(_, let pieces) = call else { return .passthrough }
                    let i = index.withLock { i in defer { i += 1 }; return i }
                    return .result(min(cuts[min(i, cuts.count - 1)], pieces.reduce(0) { $0 + $1.count }))
                }
                var accepted: [UInt8] = []
                var rounds = 0
                try KernelMock.$current.withValue(mock) {
                    while !list.isEmpty && rounds < 50 {
                        let before = list.joined
                        guard case .processed(let n) = try a.write(gathering: &list) else {
                            Issue.record("unexpected wouldBlock")
                            return
                        }
                        let took = min(n, before.count)
                        accepted += before[..<took]
                        #expect(list.joined == Array(before[took...]))
                        rounds += 1
                    }
                }
                #expect(accepted == original.joined)
                // What the kernel was offered each time starts exactly where the last write stopped.
                let offers = mock.calls.compactMap { c -> [UInt8]? in
                    if case .sendmsg(_, let p) = c { return p.flatMap { $0 } } else { return nil }
                }
                var expectedStart = 0
                for (i, offer) in offers.enumerated() {
                    #expect(offer == Array(original.joined[expectedStart...]), "offer \(i)")
                    expectedStart += min(cuts[i], offer.count)
                }
            }
        }

        @Test("ECONNRESET and EPIPE are thrown as typed Errno values")
        func typedErrors() async throws {
            try await expectNoDescriptorLeak {
                let (a, peer) = try Socket.makePair()
                defer { withExtendedLifetime(peer) {} }
                let reset = KernelMock(replies: [.error(.connectionReset)], matching: { if case .read = $0 { true } else { false } })
                var buffer = ByteBuffer()
                #expect(throws: Errno.connectionReset) {
                    try KernelMock.$current.withValue(reset) { _ = try a.read(into: &buffer) }
                }
                let pipe = KernelMock(replies: [.error(.brokenPipe)], matching: { if case .sendmsg = $0 { true } else { false } })
                var list = GatherList([.staticBytes("x")])
                let error = #expect(throws: Errno.self) {
                    try KernelMock.$current.withValue(pipe) { _ = try a.write(gathering: &list) }
                }
                #expect(error == .brokenPipe)
                #expect(error?.name == "EPIPE")
                #expect(error?.description == "EPIPE (Broken pipe)")
                #expect(Errno.connectionReset.description == "ECONNRESET (Connection reset by peer)")
                #expect(list.count == 1, "nothing consumed on failure")
            }
        }

        @Test("A real peer close gives EPIPE, not SIGPIPE (MSG_NOSIGNAL)")
        func realBrokenPipe() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                try b.close()
                let bytes = [UInt8](repeating: 0x41, count: 1024)
                let error = #expect(throws: Errno.self) {
                    for _ in 0..<8 { _ = try bytes.withUnsafeBytes { try a.write($0) } }
                }
                #expect(error == .brokenPipe || error == .connectionReset)
                var list = GatherList([.buffer(ByteBuffer(bytes: bytes))])
                #expect(throws: Errno.self) { _ = try a.write(gathering: &list) }
            }
        }

        @Test("close is not retried on EINTR, and EINTR is not an error")
        func closeNotRetried() async throws {
            try await expectNoDescriptorLeak {
                let (a, b) = try Socket.makePair()
                let fd = a.fileDescriptor
                let mock = KernelMock(replies: [.performThenFail(.interrupted)], matching: { $0 == .close(fd: fd) })
                try KernelMock.$current.withValue(mock) { try a.close() }
                #expect(mock.calls == [.close(fd: fd)])
                #expect(!a.isOpen)
                #expect(openDescriptors()[fd] == nil, "the descriptor was released")
                // Other close errors are reported, once, and the socket still counts as closed.
                let fdB = b.fileDescriptor
                let eio = KernelMock(replies: [.performThenFail(.ioError)], matching: { $0 == .close(fd: fdB) })
                #expect(throws: Errno.ioError) { try KernelMock.$current.withValue(eio) { try b.close() } }
                #expect(eio.calls.count == 1)
                #expect(!b.isOpen)
            }
        }

        @Test("Connect errors are typed; EINPROGRESS means in progress")
        func connectOutcomes() async throws {
            try await expectNoDescriptorLeak {
                let s = try Socket.makeTCP(family: .v4)
                let target = SocketAddress(ip: .loopbackV4, port: 9)
                let refused = KernelMock(replies: [.error(.connectionRefused)], matching: { if case .connect = $0 { true } else { false } })
                #expect(throws: Errno.connectionRefused) {
                    try KernelMock.$current.withValue(refused) { _ = try s.connect(to: target) }
                }
                let progress = KernelMock(replies: [.error(.inProgress)], matching: { if case .connect = $0 { true } else { false } })
                let now = try KernelMock.$current.withValue(progress) { try s.connect(to: target) }
                #expect(now == false)
                #expect(progress.calls.contains(.connect(fd: s.fileDescriptor, address: target)))
            }
        }

        @Test("sendfile partial sends are reported as counts")
        func mockedSendFile() async throws {
            try await expectNoDescriptorLeak {
                let (a, peer) = try Socket.makePair()
                defer { withExtendedLifetime(peer) {} }
                let file = try File.makeTemporary(in: "/tmp")
                defer { try? File.remove(file.path) }
                let mock = KernelMock(replies: [.error(.interrupted), .result(10), .error(.wouldBlock)],
                                      matching: { if case .sendFile = $0 { true } else { false } })
                let (first, second) = try KernelMock.$current.withValue(mock) {
                    (try a.sendFile(file, offset: 5, count: 100), try a.sendFile(file, offset: 15, count: 90))
                }
                #expect(first == .processed(10))
                #expect(second == .wouldBlock)
                #expect(mock.calls.contains(.sendFile(fd: a.fileDescriptor, file: file.fileDescriptor, offset: 15, count: 90)))
            }
        }

        @Test("EBADF is a programmer error and traps")
        func ebadfTraps() async {
            await #expect(processExitsWith: .failure) {
                var buffer = [UInt8](repeating: 0, count: 8)
                _ = try? buffer.withUnsafeMutableBytes { try Sys.read(100_000, into: $0) }
            }
        }
    }
}
