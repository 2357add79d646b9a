// The process's standard error, for the command-line tool: written through the one door to the
// kernel like every other descriptor (EINTR retried, short writes finished).

/// Writing to the process's standard streams without libc's FILE buffering.
public enum StandardStreams {
    /// Writes `text` to standard error (descriptor 2), all of it, unless the descriptor fails or
    /// would block; errors are ignored (there is nowhere left to report them).
    /// - Parameter text: the text, written as UTF-8.
    public static func writeError(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[offset...])
                guard case .processed(let n)? = try? Sys.write(2, rest), n > 0 else { return }
                offset += n
            }
        }
    }
}
