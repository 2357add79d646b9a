// KernelMock: in debug builds, tests play the kernel (swift-system's ENABLE_MOCKING is the model).
// A `KernelMock` bound to the task-local `KernelMock.current` is asked before each wrapped
// syscall made from that task; it answers with a result, an errno, bytes for a read, or passes
// the call through to the real kernel. Calls made on other threads (an event loop's, the
// resolver's) never see it, so parallel tests cannot disturb each other.
//
// Other modules' tests reach it with `@_spi(KernelMocking) import CourierPosix`. The call and
// reply types exist in every build (the wrappers name them); the mock itself only in debug builds,
// where release code never pays for the task-local lookup.

import Synchronization

/// A syscall as the mock sees it.
@_spi(KernelMocking)
public enum KernelCall: Sendable, Equatable {
    /// read(2) or pread(2) into a buffer of `capacity` bytes.
    case read(fd: CInt, capacity: Int)
    /// send(2), write(2) or pwrite(2) of `bytes`.
    case send(fd: CInt, bytes: [UInt8])
    /// sendmsg(2) of a gather list, one array per iovec.
    case sendmsg(fd: CInt, pieces: [[UInt8]])
    /// sendfile(2) of `count` bytes of `file` from `offset`.
    case sendFile(fd: CInt, file: CInt, offset: Int64, count: Int)
    /// connect(2).
    case connect(fd: CInt, address: SocketAddress)
    /// accept4(2).
    case accept(fd: CInt)
    /// shutdown(2).
    case shutdown(fd: CInt)
    /// close(2).
    case close(fd: CInt)
    /// Another call (socket, open), by name.
    case other(name: String, fd: CInt)

    /// The descriptor the call is made on (-1 for calls that create one).
    public var fd: CInt {
        switch self {
        case .read(let fd, _), .send(let fd, _), .sendmsg(let fd, _), .sendFile(let fd, _, _, _),
             .connect(let fd, _), .accept(let fd), .shutdown(let fd), .close(let fd), .other(_, let fd):
            return fd
        }
    }
}

/// The mock's answer to a call.
@_spi(KernelMocking)
public enum KernelReply: Sendable {
    /// Run the real syscall.
    case passthrough
    /// Return `n` without calling the kernel (a byte count for writes: a partial write).
    case result(Int)
    /// Answer a read with these bytes (at most the buffer's capacity are copied).
    case data([UInt8])
    /// Fail with `errno` without calling the kernel.
    case error(Errno)
    /// Run the real syscall, then report `errno` anyway (Linux's close on EINTR: the descriptor
    /// is released yet the call fails).
    case performThenFail(Errno)
}

#if DEBUG
/// A scripted kernel for tests (debug builds only). Records every call it is asked about.
@_spi(KernelMocking)
public final class KernelMock: Sendable {
    /// The mock consulted by syscalls made from the current task; nil means the real kernel.
    @TaskLocal public static var current: KernelMock?

    private let script: @Sendable (KernelCall) -> KernelReply
    private let log = Mutex<[KernelCall]>([])

    /// Creates a mock that answers each call with `script`.
    /// - Parameter script: decides the reply; it may keep state (behind a lock) to vary replies.
    public init(_ script: @escaping @Sendable (KernelCall) -> KernelReply) {
        self.script = script
    }

    /// Creates a mock that gives `replies` in order to calls matching `matching` and passes
    /// everything else, and every call after the replies run out, through to the kernel.
    /// - Parameters:
    ///   - replies: the answers, in order.
    ///   - matching: which calls consume a reply.
    public convenience init(replies: [KernelReply], matching: @escaping @Sendable (KernelCall) -> Bool) {
        let queue = Mutex(replies[...])
        self.init { call in
            guard matching(call) else { return .passthrough }
            return queue.withLock { $0.popFirst() } ?? .passthrough
        }
    }

    /// Every call the mock was asked about, in order.
    public var calls: [KernelCall] { log.withLock { $0 } }

    func reply(to call: KernelCall) -> KernelReply {
        log.withLock { $0.append(call) }
        return script(call)
    }
}
#endif
