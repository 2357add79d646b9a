// QuietProcess: runs some tests in a child copy of this test binary, where nothing else runs.
//
// Checks of process-wide state — live-object counts, open descriptors, threads, RSS — cannot hold
// while other suites run in parallel in the same process (their objects and descriptors come and
// go). Such checks live in suites enabled only in the child (`.enabled(if: QuietProcess.isChild)`,
// which shows as a visible skip in the parent) and one parent test runs them with
// `QuietProcess.run(filter:)`: the binary re-executes itself with swift-testing's `--filter`, so
// `swift test` stays parallel and the checks stay exact.

import Glibc

/// Runs tests in a child process of the test binary.
public enum QuietProcess {
    /// Set in the child's environment.
    public static let environmentKey = "COURIER_QUIET_PROCESS"

    /// Whether this process is such a child.
    public static let isChild: Bool = getenv(environmentKey) != nil

    /// What the child did.
    public struct Outcome: Sendable {
        /// The exit status (0: every selected test passed), or nil when it was killed at the limit.
        public var status: Int32?
        /// The child's standard output and error, interleaved.
        public var output: String
        /// Whether the child passed: exited 0 and ran at least one test (a filter that selects
        /// nothing must not look like success).
        public var passed: Bool {
            guard status == 0, let range = output.firstRange(of: "Test run with ") else { return false }
            guard let first = output[range.upperBound...].first, first.isNumber, first != "0" else { return false }
            return output[range.upperBound...].contains("passed")
        }
    }

    /// Runs the tests whose identifiers match `filter` (a regular expression, as `swift test
    /// --filter`) in a child process and waits for it, at most `limit` (then the child is killed).
    /// Polls without blocking a thread of the cooperative pool.
    /// - Parameters:
    ///   - filter: which tests run in the child.
    ///   - limit: how long the child may run.
    ///   - environment: more variables for the child (a runtime setting such as
    ///     `LIBDISPATCH_COOPERATIVE_POOL_STRICT`, read when the process starts).
    public static func run(filter: String, limit: Duration = .seconds(240),
                           environment extra: [String: String] = [:]) async -> Outcome {
        var template = Array("/tmp/courier-quiet-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        precondition(fd >= 0, "mkstemp failed: \(errno)")
        // The template without its terminating NUL, as UTF-8 (String(cString:) on an array is deprecated).
        let logPath = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(logPath) }

        let executable = selfExecutable()
        let arguments = [executable, "--testing-library", "swift-testing", "--filter", filter]
        var environment = ChildProcess.inheritedEnvironment()
        environment.append("\(environmentKey)=1")
        for (name, value) in extra.sorted(by: { $0.key < $1.key }) { environment.append("\(name)=\(value)") }
        let spawned = ChildProcess.trySpawn(arguments, stdout: .descriptor(fd), stderr: .descriptor(fd), environment: environment)
        close(fd)
        guard case .success(let pid) = spawned else { return Outcome(status: nil, output: "\(executable) did not start: \(spawned)") }

        let deadline = ContinuousClock.now + limit
        var status: Int32 = 0
        var exitStatus: Int32?
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                // WIFEXITED / WEXITSTATUS are macros Glibc's module does not export.
                exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : nil
                break
            }
            if ContinuousClock.now > deadline {
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return Outcome(status: exitStatus, output: readAll(logPath))
    }

    private static func selfExecutable() -> String {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        precondition(n > 0, "readlink /proc/self/exe failed")
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readAll(_ path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n <= 0 { break }
            bytes.append(contentsOf: chunk[..<n])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// The number of threads of this process (entries of /proc/self/task).
public func threadCount() -> Int {
    guard let dir = opendir("/proc/self/task") else { return -1 }
    var count = 0
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { count += 1 }
    }
    closedir(dir)
    return count
}

/// This process's resident set size in bytes (VmRSS of /proc/self/status).
public func residentSetSize() -> Int {
    guard let file = fopen("/proc/self/status", "r") else { return -1 }
    defer { fclose(file) }
    var line: UnsafeMutablePointer<CChar>?
    var capacity = 0
    defer { free(line) }
    while getline(&line, &capacity, file) > 0 {
        let text = String(cString: line!)
        guard text.hasPrefix("VmRSS:") else { continue }
        let digits = text.dropFirst(6).filter { $0.isNumber }
        return (Int(String(digits)) ?? 0) * 1024
    }
    return -1
}
