// StandardOutput: standard output for async code. A write to descriptor 1 may block for as long
// as the reader likes (a full pipe, a terminal scrolled back, a slow disk), so from a task it runs
// on a thread of its own — not the shared file-I/O thread, whose queued file writes must not wait
// behind a stalled pipe — and the task suspends until the bytes are out: the pipe's back-pressure
// reaches the transfer without holding a thread of the cooperative pool (design §4). One thread,
// jobs in order, so bytes reach the descriptor in the order they were written. Standard output on
// one of the memory devices that never block (/dev/null and its kin) is written inline: the hop
// would cost more than the write.

import CourierBytes
internal import Glibc

/// Writes to standard output from async code without blocking the cooperative pool.
package enum StandardOutput {
    private static let thread: BlockingIOThread = {
        do { return try BlockingIOThread(name: "courier-stdout") } catch { fatalError("cannot start the standard output thread: \(error)") }
    }()

    /// Whether descriptor 1 is a device that takes every write at once (checked once: the
    /// process's standard output does not change under it, except by `--stderr -`, which moves
    /// descriptor 2, not 1).
    private static let neverBlocks: Bool = {
        guard let info = try? Sys.status(1) else { return false }
        return FileStatus(info).isNeverBlockingDevice
    }()

    /// Writes a buffer's readable bytes, all of them.
    /// - Parameter buffer: the bytes.
    /// - Throws: `Errno` (EPIPE when the reader went away — SIGPIPE must be ignored —, ENOSPC, EIO).
    package static func write(_ buffer: ByteBuffer) async throws(Errno) {
        if neverBlocks { return try StandardStreams.writeOutput(buffer) }
        try await thread.run { () throws(Errno) in try StandardStreams.writeOutput(buffer) }
    }

    /// Writes text as UTF-8.
    /// - Parameter text: the text.
    /// - Throws: `Errno`.
    package static func write(_ text: String) async throws(Errno) {
        try await write(ByteBuffer(string: text))
    }

    /// Queues `job` on the standard output thread without waiting (in order with every write
    /// made through this type, also on a device that never blocks), for callers that may neither
    /// block nor suspend: the CLI's trace, called on the event loop.
    /// - Parameter job: writing work.
    package static func submit(_ job: @escaping @Sendable () -> Void) { thread.submit(job) }

    /// Waits until every job submitted so far has run.
    package static func drainSubmitted() async { await thread.run { () -> Void in } }

    /// Runs `body`, which writes with `StandardStreams.writeOutput` (a sequence of writes made by
    /// synchronous code, such as a serializer's callback), on the standard output thread, in
    /// order with every other write.
    /// - Parameter body: the writing work.
    /// - Returns: what `body` returned.
    /// - Throws: what `body` threw.
    package static func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        if neverBlocks { return try body() }
        return try await thread.run(body)
    }
}
