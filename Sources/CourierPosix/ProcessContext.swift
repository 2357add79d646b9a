// ProcessContext: the few process-wide things a command-line tool needs from the kernel and the C
// library — environment variables, whether a descriptor is a terminal and how wide it is, ending
// the process, SIGPIPE, and the termination signals. Libraries never call these (a library does
// not change signal dispositions or end the process); the `courier` executable does.
//
// SIGINT, SIGTERM, SIGHUP, SIGQUIT: a C handler (CCourierLinux) writes the signal's number as one
// byte to a pipe — write(2) is async-signal-safe — and a watcher thread reads it and runs the
// Swift handler, which may do anything (cancel transfers, so their temporary files go) and then
// ends the process by the same signal. A second signal ends the process at once from the signal
// handler (_exit(128 + N)), in case the cleanup hangs.

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
package enum Terminal {
    /// Whether `descriptor` is a terminal (isatty(3)).
    /// - Parameter descriptor: 0, 1 or 2 for the standard streams.
    /// - Returns: true for a terminal.
    package static func isTerminal(_ descriptor: CInt) -> Bool { Sys.isTerminal(descriptor) }

    /// The width of the terminal on `descriptor` in columns, or nil when it is not a terminal.
    /// - Parameter descriptor: the descriptor.
    /// - Returns: the columns, or nil.
    package static func columns(_ descriptor: CInt) -> Int? { Sys.terminalColumns(descriptor) }
}

/// Ending the process and its signal dispositions (for executables only).
package enum ProcessControl {
    /// Ends the process with `code` (exit(3): atexit handlers run).
    /// - Parameter code: the exit status (0–255).
    package static func exit(_ code: Int32) -> Never { Sys.exitProcess(code) }

    /// Ignores SIGPIPE, so a write to a closed pipe fails with EPIPE instead of killing the
    /// process (curl does the same).
    package static func ignoreBrokenPipe() { Sys.ignoreBrokenPipe() }

    /// Runs `handler` with the signal's number on a dedicated thread when SIGINT, SIGTERM,
    /// SIGHUP or SIGQUIT arrives (a self-pipe: the C handler only writes one byte); a second
    /// signal ends the process with 128 + its number at once. Call once.
    /// - Parameter handler: the cleanup; it should end the process (`terminate(bySignal:)`).
    /// - Throws: `Errno` when the pipe or the handlers cannot be set up.
    package static func onTermination(_ handler: @escaping @Sendable (CInt) -> Void) throws(Errno) {
        let (readEnd, writeEnd) = try Sys.pipe()
        let thread = Sys.spawnThread(name: "courier-signals") {
            var byte: UInt8 = 0
            while true {
                let result = withUnsafeMutableBytes(of: &byte) { try? Sys.read(readEnd, into: $0) }
                if case .processed(let n)? = result, n == 1 { handler(CInt(byte)); return }
                if case .processed(0)? = result { return }
            }
        }
        Sys.detachThread(thread)
        try Sys.installTerminationHandlers(notifying: writeEnd)
    }

    /// Ends the process by `signal` itself, its default action restored, so the parent sees it
    /// killed by the signal (the shell's status 128 + N; a shell loop stops, as it does when the
    /// signal kills curl). SIGQUIT leaves no core file.
    /// - Parameter signal: SIGINT (2), SIGHUP (1), SIGQUIT (3), SIGTERM (15), ...
    package static func terminate(bySignal signal: CInt) -> Never { Sys.dieBySignal(signal) }
}

/// What the process has used so far (getrusage(2), every thread counted).
public struct ResourceUsage: Sendable, Hashable {
    /// CPU time in user mode.
    public var userSeconds: Double
    /// CPU time in the kernel.
    public var systemSeconds: Double
    /// Times a thread gave up the CPU to wait (a blocking call, a futex, an empty epoll_wait).
    public var voluntaryContextSwitches: Int
    /// Times a thread was preempted.
    public var involuntaryContextSwitches: Int
    /// The peak resident set so far.
    public var maximumResidentBytes: Int

    /// The usage of this process now.
    public static func current() -> ResourceUsage { Sys.resourceUsage() }
}
