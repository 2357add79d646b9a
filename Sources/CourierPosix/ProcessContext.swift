// ProcessContext: the few process-wide things a command-line tool needs from the kernel and the C
// library — environment variables, whether a descriptor is a terminal and how wide it is, ending
// the process, SIGPIPE, and Ctrl-C. Libraries never call these (a library does not change signal
// dispositions or end the process); the `courier` executable does.
//
// Ctrl-C: a C handler (CCourierLinux) writes one byte to a pipe — write(2) is async-signal-safe —
// and a watcher thread reads it and runs the Swift handler, which may do anything (remove
// temporary files, cancel transfers) and then end the process. A second Ctrl-C ends the process
// at once from the signal handler (_exit(130)), in case the cleanup hangs.

/// Environment variables of the process.
public enum ProcessEnvironment {
    /// The value of an environment variable (getenv(3)).
    /// - Parameter name: the variable.
    /// - Returns: its value, or nil when it is not set.
    public static func value(_ name: String) -> String? { Sys.environmentValue(name) }

    /// The values of the named variables that are set.
    /// - Parameter names: the variables.
    /// - Returns: name → value for each one that is set.
    public static func values(_ names: [String]) -> [String: String] {
        var result: [String: String] = [:]
        for name in names { if let value = value(name) { result[name] = value } }
        return result
    }
}

/// Terminal queries.
public enum Terminal {
    /// Whether `descriptor` is a terminal (isatty(3)).
    /// - Parameter descriptor: 0, 1 or 2 for the standard streams.
    /// - Returns: true for a terminal.
    public static func isTerminal(_ descriptor: CInt) -> Bool { Sys.isTerminal(descriptor) }

    /// The width of the terminal on `descriptor` in columns, or nil when it is not a terminal.
    /// - Parameter descriptor: the descriptor.
    /// - Returns: the columns, or nil.
    public static func columns(_ descriptor: CInt) -> Int? { Sys.terminalColumns(descriptor) }
}

/// Ending the process and its signal dispositions (for executables only).
public enum ProcessControl {
    /// Ends the process with `code` (exit(3): atexit handlers run).
    /// - Parameter code: the exit status (0–255).
    public static func exit(_ code: Int32) -> Never { Sys.exitProcess(code) }

    /// Ignores SIGPIPE, so a write to a closed pipe fails with EPIPE instead of killing the
    /// process (curl does the same).
    public static func ignoreBrokenPipe() { Sys.ignoreBrokenPipe() }

    /// Runs `handler` on a dedicated thread when SIGINT arrives; a second SIGINT ends the process
    /// with status 130 at once. Call once.
    /// - Parameter handler: the cleanup; it should end the process (usually with 130).
    /// - Throws: `Errno` when the pipe or the handler cannot be set up.
    public static func onInterrupt(_ handler: @escaping @Sendable () -> Void) throws(Errno) {
        let (readEnd, writeEnd) = try Sys.pipe()
        let thread = Sys.spawnThread(name: "courier-sigint") {
            var byte: UInt8 = 0
            while true {
                let result = withUnsafeMutableBytes(of: &byte) { try? Sys.read(readEnd, into: $0) }
                if case .processed(let n)? = result, n == 1 { handler(); return }
                if case .processed(0)? = result { return }
            }
        }
        Sys.detachThread(thread)
        try Sys.installInterruptHandler(notifying: writeEnd)
    }
}
