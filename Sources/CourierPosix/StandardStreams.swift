// The process's standard streams, for the command-line tool: written through the one door to the
// kernel like every other descriptor (EINTR retried, short writes finished), with no libc FILE
// buffering, so bytes reach the descriptor in the order they are written.

import CourierBytes
internal import Glibc

/// Reading and writing the process's standard streams without libc's FILE buffering.
package enum StandardStreams {
    /// Writes `text` to standard error (descriptor 2), all of it, unless the descriptor fails or
    /// would block; errors are ignored (there is nowhere left to report them).
    /// - Parameter text: the text, written as UTF-8.
    package static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in try? writeAll(2, UnsafeRawBufferPointer(bytes)) }
    }

    /// Writes bytes to standard output (descriptor 1), all of them.
    /// - Parameter bytes: the bytes.
    /// - Throws: `Errno` (EPIPE when the reader went away — SIGPIPE must be ignored —, ENOSPC, EIO).
    package static func writeOutput(_ bytes: UnsafeRawBufferPointer) throws(Errno) {
        try writeAll(1, bytes)
    }

    /// Writes a buffer's readable bytes to standard output.
    /// - Parameter buffer: the bytes (not consumed).
    /// - Throws: `Errno`.
    package static func writeOutput(_ buffer: ByteBuffer) throws(Errno) {
        try buffer.withUnsafeReadableBytes { (bytes) throws(Errno) in try writeAll(1, bytes) }
    }

    /// Writes text to standard output.
    /// - Parameter text: the text, written as UTF-8.
    /// - Throws: `Errno`.
    package static func writeOutput(_ text: String) throws(Errno) {
        var failure: Errno?
        Array(text.utf8).withUnsafeBytes { bytes in
            do throws(Errno) { try writeAll(1, bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Reads standard input (descriptor 0) to its end.
    /// - Returns: every byte read.
    /// - Throws: `Errno`.
    package static func readInput() throws(Errno) -> ByteBuffer {
        var buffer = ByteBuffer(capacity: 4096)
        while true {
            var ended = false
            try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 16384) { (region: UnsafeMutableRawBufferPointer) throws(Errno) -> Int in
                switch try Sys.read(0, into: region) {
                case .processed(let n): ended = n == 0; return n
                case .wouldBlock: Sys.waitReadable(0); return 0
                }
            }
            if ended { return buffer }
        }
    }

    /// Reads what standard input has, up to `buffer.count` bytes, waiting until it has something.
    /// - Parameter buffer: where the bytes go.
    /// - Returns: how many bytes were read; 0 at the end of the input.
    /// - Throws: `Errno`.
    package static func readInput(into buffer: UnsafeMutableRawBufferPointer) throws(Errno) -> Int {
        while true {
            switch try Sys.read(0, into: buffer) {
            case .processed(let n): return n
            case .wouldBlock: Sys.waitReadable(0)  // a non-blocking descriptor inherited from the shell
            }
        }
    }

    /// Makes standard error (descriptor 2) write to the file at `path` — created 0666 less the
    /// umask, or truncated — as curl's `--stderr FILE` does; everything written to stderr
    /// afterwards (error lines, traces, progress) goes there.
    /// - Parameter path: the file.
    /// - Throws: `Errno` when the file cannot be opened.
    package static func redirectError(toPath path: String) throws(Errno) {
        let fd = try Sys.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o666)
        defer { try? Sys.close(fd) }
        try Sys.duplicate(fd, onto: 2)
    }

    /// Makes standard error write where standard output writes (curl's `--stderr -`).
    /// - Throws: `Errno`.
    package static func redirectErrorToOutput() throws(Errno) {
        try Sys.duplicate(1, onto: 2)
    }

    private static func writeAll(_ fd: CInt, _ bytes: UnsafeRawBufferPointer) throws(Errno) {
        var offset = 0
        while offset < bytes.count {
            switch try Sys.write(fd, UnsafeRawBufferPointer(rebasing: bytes[offset...])) {
            case .processed(let n): offset += n
            case .wouldBlock: Sys.waitWritable(fd)  // a non-blocking descriptor inherited from the shell
            }
        }
    }
}
