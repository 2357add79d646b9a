// SocketSplicer: a response body moved from a socket into a file inside the kernel — socket →
// pipe → file with splice(2) — so the bytes never enter this process (issue: transport at wire
// speed, "downloads to a file without user-space copies where the kernel allows it"). A read(2)
// and a write(2) copy every byte twice through user space; splicing moves the socket's pages into a
// pipe and from there into the page cache.
//
// It blocks (it waits for the socket with poll(2), and writing to a file may wait for the disk), so
// it runs on a `BlockingIOThread`, never on an event loop or the cooperative pool. The socket must
// not be registered with an event loop meanwhile (its owner lends it). `interrupt()` — from any
// thread — makes a splice in progress return with what it moved so far: a cancelled or timed-out
// transfer stops at once.
//
// Errors carry the bytes already moved, so the caller knows how much of the file is valid.

import CourierBytes
import Synchronization

/// Why a splice stopped early.
public struct SpliceError: Error, Sendable, CustomStringConvertible {
    /// What happened.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .timedOut, .interrupted, .unsupported, .failed
        ]

        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// No byte arrived for the idle timeout.
        public static let timedOut = Code("timedOut")
        /// `interrupt()` was called.
        public static let interrupted = Code("interrupted")
        /// The kernel refused to splice these descriptors (a file system without splice
        /// support): nothing was moved; read and write instead.
        public static let unsupported = Code("unsupported")
        /// A read or write failed (`errno` says how).
        public static let failed = Code("failed")
    }

    /// What happened.
    public var code: Code
    /// Bytes written to the file before it stopped.
    public var bytesMoved: UInt64
    /// The system error, for `.failed` and `.unsupported`.
    public var errno: Errno?
    /// Whether the failure was writing the file (rather than reading the socket).
    public var whileWriting = false

    /// "code after N bytes (errno)".
    public var description: String {
        "splice \(code.rawValue) after \(bytesMoved) bytes" + (errno.map { " (\($0))" } ?? "")
    }
}

/// Moves bytes from a socket into a file through a pipe of its own, in the kernel.
public final class SocketSplicer: Sendable {
    /// What a splice did.
    public struct Outcome: Sendable, Hashable {
        /// Bytes written to the file.
        public var bytesMoved: UInt64
        /// Whether the peer closed its side (before `count` bytes, when a count was given).
        public var endOfStream: Bool
    }

    private let pipeRead: CInt
    private let pipeWrite: CInt
    private let wakeFD: CInt
    private let capacity: Int

    /// Makes the pipe (1 MiB where the system allows) and the interrupt eventfd.
    /// - Throws: `Errno` (EMFILE, ENFILE).
    public init() throws(Errno) {
        capacity = 1 << 20
        let pipe = try Sys.nonBlockingPipe(size: capacity)
        pipeRead = pipe.read
        pipeWrite = pipe.write
        do {
            wakeFD = try Sys.eventFD(blocking: false)
        } catch {
            try? Sys.close(pipeRead)
            try? Sys.close(pipeWrite)
            throw error
        }
    }

    deinit {
        try? Sys.close(pipeRead)
        try? Sys.close(pipeWrite)
        try? Sys.close(wakeFD)
    }

    /// Makes a splice in progress (or the next one) return with `.interrupted`. Any thread.
    public func interrupt() { try? Sys.eventFDSignal(wakeFD) }

    /// Moves `count` bytes (or, with nil, everything until the peer closes) from `socket` into
    /// `file` at `offset`. Blocking: call it on a `BlockingIOThread`.
    /// - Parameters:
    ///   - socket: a connected non-blocking socket no event loop is watching.
    ///   - file: a regular file open for writing.
    ///   - offset: where the first byte goes.
    ///   - count: the bytes to move, or nil for all until the close.
    ///   - idleTimeout: the longest wait for the socket's next bytes.
    ///   - progress: called with the total moved after each piece reaches the file.
    /// - Returns: what was moved and whether the peer closed.
    /// - Throws: `SpliceError` with the bytes moved before it stopped.
    public func splice(from socket: Socket, to file: File, at offset: Int64, count: UInt64?, idleTimeout: Duration,
                       progress: (UInt64) -> Void) throws(SpliceError) -> Outcome {
        // A signal left from an interrupt that came after the last splice had returned.
        _ = try? Sys.eventFDDrain(wakeFD)
        var moved: UInt64 = 0
        var inPipe = 0
        var fileOffset: Int64? = offset
        var endOfStream = false
        let timeout = CInt(clamping: idleTimeout.components.seconds * 1000 + idleTimeout.components.attoseconds / 1_000_000_000_000_000)
        func remaining() -> Int {
            guard let count else { return capacity }
            return Int(min(UInt64(capacity), count - moved - UInt64(inPipe)))
        }
        func drainPipe() throws(SpliceError) {
            while inPipe > 0 {
                let result: IOResult<Int>
                do {
                    result = try Sys.splice(from: pipeRead, to: file.fileDescriptor, outputOffset: &fileOffset, count: inPipe, nonBlocking: false)
                } catch {
                    guard error == .invalidArgument else {
                        throw SpliceError(code: .failed, bytesMoved: moved, errno: error, whileWriting: true)
                    }
                    // The file system cannot take spliced pages: what is in the pipe is copied
                    // out and written; the caller reads the rest of the socket itself.
                    try copyPipeOut(to: file, at: &fileOffset)
                    throw SpliceError(code: .unsupported, bytesMoved: moved, errno: error, whileWriting: true)
                }
                switch result {
                case .processed(let n):
                    guard n > 0 else { throw SpliceError(code: .failed, bytesMoved: moved, errno: .ioError, whileWriting: true) }
                    inPipe -= n
                    moved += UInt64(n)
                    progress(moved)
                case .wouldBlock:
                    continue
                }
            }
        }
        func copyPipeOut(to file: File, at offset: inout Int64?) throws(SpliceError) {
            var buffer = ByteBuffer(capacity: 65536)
            while inPipe > 0 {
                buffer.clear()
                let n: Int
                do throws(Errno) {
                    n = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: min(inPipe, 65536)) { (raw) throws(Errno) -> Int in
                        switch try Sys.read(pipeRead, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(min(inPipe, 65536)))) {
                        case .processed(let n): return n
                        case .wouldBlock: return 0
                        }
                    }
                    guard n > 0 else { throw Errno.ioError }
                    try file.write(buffer, at: offset ?? 0)
                } catch {
                    throw SpliceError(code: .failed, bytesMoved: moved, errno: error, whileWriting: true)
                }
                offset = (offset ?? 0) + Int64(n)
                inPipe -= n
                moved += UInt64(n)
                progress(moved)
            }
        }
        while count.map({ moved + UInt64(inPipe) < $0 }) ?? true {
            let want = remaining()
            let result: IOResult<Int>
            var pipeOffset: Int64?  // a pipe has none
            do {
                result = try Sys.splice(from: socket.fileDescriptor, to: pipeWrite, outputOffset: &pipeOffset, count: want, nonBlocking: true)
            } catch {
                if moved == 0 && inPipe == 0 && error == .invalidArgument {
                    throw SpliceError(code: .unsupported, bytesMoved: 0, errno: error)
                }
                try drainPipe()
                throw SpliceError(code: .failed, bytesMoved: moved, errno: error)
            }
            switch result {
            case .processed(0):
                endOfStream = true
            case .processed(let n):
                inPipe += n
                // Keep the pipe from filling: move to the file what is there.
                if inPipe >= capacity / 2 || (count.map { moved + UInt64(inPipe) >= $0 } ?? false) { try drainPipe() }
                continue
            case .wouldBlock:
                // Nothing to read now: write out what is in the pipe, then wait for the socket.
                try drainPipe()
                let (ready, woken) = Sys.waitReadable(socket.fileDescriptor, or: wakeFD, milliseconds: timeout)
                if woken {
                    _ = try? Sys.eventFDDrain(wakeFD)
                    throw SpliceError(code: .interrupted, bytesMoved: moved)
                }
                if !ready { throw SpliceError(code: .timedOut, bytesMoved: moved) }
                continue
            }
            break
        }
        try drainPipe()
        return Outcome(bytesMoved: moved, endOfStream: endOfStream)
    }
}
