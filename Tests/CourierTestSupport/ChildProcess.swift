// ChildProcess: the one way tests start another program (curl, openssl s_server, a shell, the
// courier binary, a copy of the test binary).
//
// Every child gets: its three standard streams as asked (a file opened for it, or one of this
// process's descriptors dup2'd into place); no other descriptor of the test process (everything
// above 2 is closed in the child, so a build lock, a pipe end or a listening socket is never held
// by a server a crashed test left behind); every signal at its default action and none blocked
// (whatever the test runner ignores or blocks: a server that inherited a blocked SIGTERM would not
// stop when asked).

import CCourierTestSpawn
import Glibc

/// Starts and waits for child processes in tests.
public enum ChildProcess {
    /// Where one of the child's standard streams goes.
    public enum Redirect: Sendable {
        /// A file opened with these flags (created with mode 0644 when `O_CREAT` is among them).
        case path(String, CInt)
        /// One of the test process's descriptors, dup2'd into place.
        case descriptor(CInt)
        /// The child's own standard output (for standard error: both streams into one file).
        case standardOutput
    }

    /// Starts `argv` (`argv[0]` is the program's path) and returns its process ID; a failure to
    /// start is a precondition failure naming the program.
    /// - Parameters:
    ///   - argv: the program's path and its arguments.
    ///   - stdin: the child's standard input (default the null device).
    ///   - stdout: the child's standard output.
    ///   - stderr: the child's standard error.
    ///   - environment: `NAME=value` entries; nil passes this process's environment on.
    public static func spawn(_ argv: [String], stdin: Redirect = .path("/dev/null", O_RDONLY),
                             stdout: Redirect, stderr: Redirect,
                             environment: [String]? = ["PATH=/usr/bin:/bin"]) -> pid_t {
        switch trySpawn(argv, stdin: stdin, stdout: stdout, stderr: stderr, environment: environment) {
        case .success(let pid): return pid
        case .failure(let code): preconditionFailure("posix_spawn \(argv[0]) failed: \(code)")
        }
    }

    /// As `spawn`, but a failure to start is returned (posix_spawn's error number).
    public static func trySpawn(_ argv: [String], stdin: Redirect = .path("/dev/null", O_RDONLY),
                                stdout: Redirect, stderr: Redirect,
                                environment: [String]? = ["PATH=/usr/bin:/bin"]) -> Result<pid_t, SpawnFailure> {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (fd, redirect) in [(CInt(0), stdin), (1, stdout), (2, stderr)] {
            switch redirect {
            case .path(let path, let flags): posix_spawn_file_actions_addopen(&actions, fd, path, flags, 0o644)
            case .descriptor(let source): posix_spawn_file_actions_adddup2(&actions, source, fd)
            case .standardOutput: posix_spawn_file_actions_adddup2(&actions, 1, fd)
            }
        }
        // After the dup2s, which may read a descriptor above 2.
        courier_test_spawn_addclosefrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var all = sigset_t()
        sigfillset(&all)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        var cEnvironment: [UnsafeMutablePointer<CChar>?] = (environment ?? inheritedEnvironment()).map { strdup($0) } + [nil]
        defer {
            for pointer in cArguments { free(pointer) }
            for pointer in cEnvironment { free(pointer) }
        }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, argv[0], &actions, &attributes, &cArguments, &cEnvironment)
        return spawned == 0 ? .success(pid) : .failure(SpawnFailure(code: spawned))
    }

    /// posix_spawn's error number.
    public struct SpawnFailure: Error, Sendable, CustomStringConvertible {
        /// The errno value posix_spawn returned.
        public var code: CInt
        /// The number, for messages.
        public var description: String { "posix_spawn error \(code)" }
    }

    /// Waits for `pid` (retrying on EINTR) and returns its exit status, or 128 + the signal that
    /// ended it (a shell's convention).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        return exitStatus(status)
    }

    /// A wait status as an exit status, or 128 + the signal (WIFEXITED and WEXITSTATUS are macros
    /// Glibc's module does not export).
    public static func exitStatus(_ status: Int32) -> Int32 {
        (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    }

    /// This process's environment as `NAME=value` entries.
    public static func inheritedEnvironment() -> [String] {
        var environment: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            environment.append(String(cString: pointer))
            entry += 1
        }
        return environment
    }
}
