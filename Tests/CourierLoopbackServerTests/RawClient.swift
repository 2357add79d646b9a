// A raw client for the server tests: a CourierPosix socket driven by polling with short sleeps,
// every wait bounded, so the exact bytes on the wire can be checked.

import CourierBytes
import CourierPosix
import CourierTestSupport
import Testing

/// Every test of this target runs in this serialized suite (they share one port range and the
/// descriptor table).
@Suite(.serialized, .timeLimit(.minutes(2)))
struct LoopbackServerTests {}

struct RawClientTimeout: Error {}

final class RawClient: @unchecked Sendable {
    let socket: Socket
    private(set) var received: [UInt8] = []

    init(socket: Socket) { self.socket = socket }

    static func connect(port: UInt16, loop: EventLoop) async throws -> RawClient {
        let socket = try await loop.connect(to: [SocketAddress(ip: .loopbackV4, port: port)])
        return RawClient(socket: socket)
    }

    func send(_ text: String) async throws { try await send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) async throws {
        var offset = 0
        let deadline = ContinuousClock.now + .seconds(10)
        while offset < bytes.count {
            let result = try bytes[offset...].withUnsafeBytes { try socket.write($0) }
            switch result {
            case .processed(let n): offset += n
            case .wouldBlock:
                guard ContinuousClock.now < deadline else { throw RawClientTimeout() }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    /// Reads until `done` says the bytes received so far are enough (or EOF); returns them all.
    @discardableResult
    func receive(timeout: Duration = .seconds(10), until done: ([UInt8]) -> Bool) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var buffer = ByteBuffer()
        while !done(received) {
            buffer.clear()
            switch try socket.read(into: &buffer) {
            case .processed(0): return received
            case .processed: received += buffer.readableBytesArray
            case .wouldBlock:
                guard ContinuousClock.now < deadline else { throw RawClientTimeout() }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        return received
    }

    /// Reads until the peer closes.
    func receiveToEOF(timeout: Duration = .seconds(10)) async throws -> [UInt8] {
        let deadline = ContinuousClock.now + timeout
        var buffer = ByteBuffer()
        while true {
            buffer.clear()
            switch try socket.read(into: &buffer) {
            case .processed(0): return received
            case .processed: received += buffer.readableBytesArray
            case .wouldBlock:
                guard ContinuousClock.now < deadline else { throw RawClientTimeout() }
                try await Task.sleep(for: .milliseconds(1))
            }
        }
    }

    func consume(_ count: Int) { received.removeFirst(count) }

    var text: String { String(decoding: received, as: UTF8.self) }
}

/// The body the server's pattern routes send: byte i is "a" + i mod 26.
func pattern(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(ascii: "a") + UInt8($0 % 26) } }

/// Ends with a complete head plus `bodyLength` bytes after it.
func hasResponse(bodyLength: Int) -> ([UInt8]) -> Bool {
    { bytes in
        guard let end = headEnd(bytes) else { return false }
        return bytes.count - end >= bodyLength
    }
}

func headEnd(_ bytes: [UInt8]) -> Int? {
    guard bytes.count >= 4 else { return nil }
    for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
        return i + 4
    }
    return nil
}

func withServer(_ configuration: LoopbackServer.Configuration = .init(),
                _ body: (LoopbackServer, EventLoop) async throws -> Void) async throws {
    try await DescriptorTestLock.shared.withLock {
        try await withServerLocked(configuration, body)
    }
}

private func withServerLocked(_ configuration: LoopbackServer.Configuration,
                              _ body: (LoopbackServer, EventLoop) async throws -> Void) async throws {
    let server = try await LoopbackServer.start(configuration)
    let loop = try EventLoop(name: "raw-client")
    do {
        try await body(server, loop)
    } catch {
        await loop.shutdown()
        await server.shutdown()
        throw error
    }
    await loop.shutdown()
    await server.shutdown()
}

import CourierLoopbackServer
