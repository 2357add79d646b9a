// Shared helpers for the CourierPosix tests: the serialized parent suite, the leak check itself,
// loop helpers and small loop-side servers.
//
// The descriptor-leak checks count the whole process's descriptors (/proc/self/fd), so nothing may
// open or close one meanwhile: not another of these tests, and not another test target's suites,
// which `swift test` runs in parallel in the same process. The suites therefore run in a child copy
// of the test binary where nothing else runs (QuietProcess): `PosixTests` is enabled only there,
// and `PosixQuietRun` — the one test the parent process runs — starts the child and reports what
// it saw. A plain `swift test` stays parallel and the counts stay exact.

import Testing
import CourierTestSupport
import Glibc
@testable import CourierPosix
import CourierBytes

/// Every CourierPosix test lives in a suite nested in this one, so they run one at a time, in the
/// quiet child process only.
@Suite(.serialized, .timeLimit(.minutes(2)), .enabled(if: QuietProcess.isChild, "runs in a quiet child process (PosixQuietRun)"))
struct PosixTests {}

/// Runs `PosixTests` in a child process of the test binary where nothing else runs.
@Suite struct PosixQuietRun {
    @Test(.enabled(if: !QuietProcess.isChild))
    func posixTestsInAQuietProcess() async {
        let outcome = await QuietProcess.run(filter: "CourierPosixTests", limit: .seconds(600))
        #expect(outcome.passed, "the CourierPosix tests failed in their quiet process (status \(outcome.status.map(String.init) ?? "killed")):\n\(outcome.output.suffix(8000))")
    }
}

/// The process's open descriptors (the entries of /proc/self/fd), with what each points to.
func openDescriptors() -> [CInt: String] {
    var out: [CInt: String] = [:]
    guard let dir = opendir("/proc/self/fd") else { return out }
    let own = dirfd(dir)
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        guard let fd = CInt(name), fd != own else { continue }
        var target = [CChar](repeating: 0, count: 256)
        let n = readlink("/proc/self/fd/\(name)", &target, 255)
        let link = n > 0 ? String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : "?"
        if link == "anon_inode:[timerfd]" { continue }  // libdispatch's; CourierPosix uses none
        out[fd] = link
    }
    closedir(dir)
    return out
}

/// Runs `body` and expects the same descriptors open afterwards as before (waiting up to a second
/// for closes that happen on another thread to land).
func expectNoDescriptorLeak(_ comment: Comment = "descriptor leak",
                            sourceLocation: SourceLocation = #_sourceLocation,
                            _ body: () async throws -> Void) async rethrows {
    // Sockets opened by other test targets' suites (running in parallel) would look like leaks.
    try await DescriptorTestLock.shared.withLock {
        try await expectNoDescriptorLeakLocked(comment, sourceLocation: sourceLocation, body)
    }
}

private func expectNoDescriptorLeakLocked(_ comment: Comment, sourceLocation: SourceLocation,
                                          _ body: () async throws -> Void) async rethrows {
    // libdispatch opens its timer descriptors lazily on the first Task.sleep: warm it up so they
    // exist before the snapshot (CourierPosix itself never creates a timerfd).
    try? await Task.sleep(for: .milliseconds(1))
    // The test before may still be closing its descriptors on another thread (a loop shutting
    // down, a losing Happy Eyeballs attempt): wait (bounded) until two snapshots 10 ms apart
    // agree and none is mid-close (readlink failing: "?"), so a close of theirs that lands during
    // this body is not counted as this body's.
    var before = openDescriptors()
    for _ in 0..<100 {
        try? await Task.sleep(for: .milliseconds(10))
        let again = openDescriptors()
        if again == before && !again.values.contains("?") { break }
        before = again
    }
    try await body()
    var after = openDescriptors()
    var tries = 0
    while Set(after.keys) != Set(before.keys) && tries < 100 {
        try? await Task.sleep(for: .milliseconds(10))
        after = openDescriptors()
        tries += 1
    }
    let leaked = after.filter { before[$0.key] == nil }
    let lost = before.filter { after[$0.key] == nil }
    #expect(leaked.isEmpty && lost.isEmpty, "\(comment): opened \(leaked), closed \(lost)", sourceLocation: sourceLocation)
}

/// Creates a loop, runs `body` with it, and shuts it down whatever happens.
func withLoop<R>(_ body: (EventLoop) async throws -> R) async throws -> R {
    let loop = try EventLoop(name: "test-loop")
    do {
        let r = try await body(loop)
        await loop.shutdown()
        return r
    } catch {
        await loop.shutdown()
        throw error
    }
}

/// Whether ::1 can be bound here (IPv6 may be disabled in a container).
let ipv6LoopbackAvailable: Bool = {
    (try? Socket.listening(on: SocketAddress(ip: .loopbackV6, port: 0))) != nil
}()

/// A port on `ip` where nothing listens: bind an ephemeral port, then close it.
func closedPort(on ip: IPAddress) throws -> UInt16 {
    let s = try Socket.listening(on: SocketAddress(ip: ip, port: 0))
    let port = try s.localAddress().port
    try s.close()
    return port
}

/// Deterministic test bytes.
func patternBytes(_ count: Int, seed: UInt32 = 7) -> [UInt8] {
    var x = seed
    return (0..<count).map { _ in
        x = x &* 1_664_525 &+ 1_013_904_223
        return UInt8(truncatingIfNeeded: x >> 24)
    }
}

/// A loop-side server that accepts connections and echoes every byte back; loop thread only.
final class EchoServer: @unchecked Sendable {
    private final class Connection {
        let socket: Socket
        var registration: EventLoop.Registration?
        var pending = GatherList()
        init(socket: Socket) { self.socket = socket }
    }

    let loop: EventLoop
    let listener: Socket
    private var registration: EventLoop.Registration?
    private var connections: [ObjectIdentifier: Connection] = [:]
    private(set) var accepted = 0

    /// Listens on `ip` (ephemeral port); call on the loop thread.
    init(loop: EventLoop, ip: IPAddress) throws {
        self.loop = loop
        listener = try Socket.listening(on: SocketAddress(ip: ip, port: 0))
        registration = try loop.register(listener, interest: .readable) { [unowned self] _ in acceptAll() }
    }

    var address: SocketAddress { try! listener.localAddress() }

    private func acceptAll() {
        while case .processed(let socket) = try! listener.accept() {
            accepted += 1
            let connection = Connection(socket: socket)
            connections[ObjectIdentifier(connection)] = connection
            connection.registration = try! loop.register(socket, interest: .readable) { [unowned self] events in
                handle(connection, events)
            }
        }
    }

    private func handle(_ c: Connection, _ events: EventLoop.Events) {
        do {
            if events.contains(.readable) || events.contains(.error) {
                var buffer = ByteBuffer()
                switch try c.socket.read(into: &buffer) {
                case .processed(0): return drop(c)
                case .processed: c.pending.append(buffer)
                case .wouldBlock: break
                }
            }
            if !c.pending.isEmpty { _ = try c.socket.write(gathering: &c.pending) }
            try loop.setInterest(c.pending.isEmpty ? .readable : [.readable, .writable], for: c.registration!)
        } catch {
            drop(c)
        }
    }

    private func drop(_ c: Connection) {
        if let r = c.registration { loop.deregister(r) }
        try? c.socket.close()
        connections[ObjectIdentifier(c)] = nil
    }

    /// Closes the listener and every connection; call on the loop thread.
    func stop() {
        if let registration { loop.deregister(registration) }
        registration = nil
        try? listener.close()
        for c in connections.values { drop(c) }
    }
}

/// A loop-side sink that accepts one connection and collects what it receives until EOF.
final class SinkServer: @unchecked Sendable {
    let loop: EventLoop
    let listener: Socket
    private var registration: EventLoop.Registration?
    private var connection: (Socket, EventLoop.Registration)?
    private(set) var received = ByteBuffer()
    private var done: LoopPromise<[UInt8]>?
    private var finished = false

    init(loop: EventLoop, ip: IPAddress) throws {
        self.loop = loop
        listener = try Socket.listening(on: SocketAddress(ip: ip, port: 0))
        registration = try loop.register(listener, interest: .readable) { [unowned self] _ in
            guard case .processed(let s) = try! listener.accept() else { return }
            connection = (s, try! loop.register(s, interest: .readable) { [unowned self] _ in readAll() })
        }
    }

    var address: SocketAddress { try! listener.localAddress() }

    /// Completes `promise` with everything received once the peer closes.
    func whenFinished(_ promise: LoopPromise<[UInt8]>) {
        if finished { promise.succeed(received.readableBytesArray) } else { done = promise }
    }

    private func readAll() {
        guard let (socket, reg) = connection else { return }
        while true {
            switch try? socket.read(into: &received) {
            case .processed(0)?, nil:
                loop.deregister(reg)
                try? socket.close()
                connection = nil
                finished = true
                done?.succeed(received.readableBytesArray)
                return
            case .processed?: continue
            case .wouldBlock?: return
            }
        }
    }

    func stop() {
        if let registration { loop.deregister(registration) }
        registration = nil
        try? listener.close()
        if let (s, r) = connection { loop.deregister(r); try? s.close() }
        connection = nil
    }
}
