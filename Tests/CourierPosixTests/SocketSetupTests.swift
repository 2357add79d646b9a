// SocketSetup and AF_UNIX connects (curl --interface, --local-port, --keepalive-time,
// --unix-socket) at the door to the kernel: a bound local end, a port range that skips a taken
// port, the typed failures (a bind failure is `.localBindFailed`, never a refused connection), the
// keep-alive options as the kernel reports them, and unix sockets by path and abstract name.

import Glibc
import Testing
@testable import CourierPosix

/// A listening AF_UNIX socket made with Glibc directly (CourierPosix only connects to them).
private func unixListener(_ address: UnixSocketAddress) throws -> CInt {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    var sun = sockaddr_un()
    sun.sun_family = sa_family_t(AF_UNIX)
    let name = address.isAbstract ? [0] + Array(address.name.utf8) : Array(address.name.utf8)
    withUnsafeMutableBytes(of: &sun.sun_path) { $0.copyBytes(from: name) }
    let length = socklen_t(MemoryLayout<sockaddr_un>.offset(of: \.sun_path)! + name.count + (address.isAbstract ? 0 : 1))
    let bound = withUnsafePointer(to: &sun) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    guard bound == 0, listen(fd, 4) == 0 else { close(fd); throw Errno(rawValue: errno) }
    return fd
}

extension PosixTests {
    @Suite("socket set-up and unix sockets")
    struct SocketSetupTests {
        @Test("a local address and a port range: the first free port, the taken one skipped; keep-alive as the kernel reports it")
        func bindsAndKeepsAlive() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                    let taken = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                    let first = try taken.localAddress().port
                    var config = ConnectConfiguration()
                    config.setup = SocketSetup(localAddresses: [.loopbackV4], localPorts: first...(first &+ 20),
                                               keepAlive: TCPKeepAlive(idle: .seconds(7), interval: .seconds(3)))
                    let socket = try await loop.connect(to: [try listener.localAddress()], configuration: config)
                    let local = try socket.localAddress()
                    #expect(local.ip == .loopbackV4)
                    #expect(local.port > first && local.port <= first &+ 20, "port \(local.port) after the taken \(first)")
                    let fd = socket.fileDescriptor
                    #expect(try Sys.option(fd, level: SOL_SOCKET, name: SO_KEEPALIVE) == 1)
                    #expect(try Sys.option(fd, level: CInt(IPPROTO_TCP), name: TCP_KEEPIDLE) == 7)
                    #expect(try Sys.option(fd, level: CInt(IPPROTO_TCP), name: TCP_KEEPINTVL) == 3)
                    try socket.close()
                    try taken.close()
                    try listener.close()
                }
            }
        }

        @Test("a taken port, an address that is not local, a family with no local address: localBindFailed, not a refusal")
        func bindFailures() async throws {
            try await expectNoDescriptorLeak {
                try await withLoop { loop in
                    let listener = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                    let target = try listener.localAddress()
                    let taken = try Socket.listening(on: SocketAddress(ip: .loopbackV4, port: 0))
                    let cases: [(SocketSetup, Errno)] = [
                        (SocketSetup(localPorts: try taken.localAddress().port...(try taken.localAddress().port)), .addressInUse),
                        (SocketSetup(localAddresses: [IPAddress("192.0.2.254")!]), .addressNotAvailable),
                        (SocketSetup(localAddresses: [.loopbackV6]), .addressFamilyNotSupported),
                    ]
                    for (setup, errno) in cases {
                        var config = ConnectConfiguration()
                        config.setup = setup
                        do {
                            let socket = try await loop.connect(to: [target], configuration: config)
                            try socket.close()
                            Issue.record("connected with \(setup)")
                        } catch let error as ConnectError {
                            #expect(error.code == .localBindFailed, "\(setup)")
                            #expect(error.attempts.first?.failedToBind == true)
                            #expect(error.attempts.first?.error == errno, "\(error)")
                        }
                    }
                    try taken.close()
                    try listener.close()
                }
            }
        }

        @Test("unix sockets: a path and an abstract name connect; a missing one and a name too long fail with their errno")
        func unixSockets() async throws {
            var template = Array("/tmp/courier-unix-XXXXXX".utf8CString)
            let directory = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)) }
            defer { rmdir(directory) }
            let path = UnixSocketAddress(path: directory + "/s.sock")
            let abstract = UnixSocketAddress(abstractName: "courier-posix-test-\(getpid())")
            let listeners = [try unixListener(path), try unixListener(abstract)]
            defer {
                for fd in listeners { close(fd) }
                unlink(path.name)
            }
            try await withLoop { loop in
                for address in [path, abstract] {
                    let socket = try await loop.connect(toUnixSocket: address, timeout: .seconds(5))
                    #expect(socket.isOpen, "\(address)")
                    try socket.close()
                }
                let failures: [(UnixSocketAddress, Errno)] = [
                    (UnixSocketAddress(path: directory + "/none.sock"), .noSuchFileOrDirectory),
                    (UnixSocketAddress(path: "/" + String(repeating: "x", count: 200)), .nameTooLong),
                    (UnixSocketAddress(abstractName: "courier-nobody-listens-\(getpid())"), .connectionRefused),
                ]
                for (address, expected) in failures {
                    do {
                        let socket = try await loop.connect(toUnixSocket: address, timeout: .seconds(5))
                        try socket.close()
                        Issue.record("connected to \(address)")
                    } catch let error as Errno {
                        #expect(error == expected, "\(address)")
                    }
                }
            }
            #expect(abstract.description.hasPrefix("@"))
        }
    }
}
