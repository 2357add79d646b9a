// Runs the built `courier` binary and captures its exit status, stdout bytes and stderr text.
// The binary is $COURIER_BIN when set (scripts/test passes `swift build --show-bin-path`/courier),
// else .build/debug/courier under the package root found from this file's path.

import CourierTestSupport
import Glibc
import Testing

/// What one run of `courier` produced.
struct CourierRun {
    var status: Int32
    var stdout: [UInt8]
    var stderr: String
    /// The process's peak resident set size (wait4's ru_maxrss), in KiB.
    var peakResidentKiB: Int = 0

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
    var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
}

/// Every CLI test lives in a suite nested in this one: they spawn processes and one runs at a time.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CLITests {}

enum CourierBinary {
    static let path: String = {
        if let value = getenv("COURIER_BIN") { return String(cString: value) }
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        parts.removeLast(3)  // Tests/CourierCLITests/CLITestSupport.swift
        return parts.joined(separator: "/") + "/.build/debug/courier"
    }()
}

/// A fresh directory under /tmp, for files a test writes.
func makeScratchDirectory() -> String {
    var template = Array("/tmp/courier-cli-test-XXXXXX".utf8CString)
    let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(made != nil, "mkdtemp failed")
    return String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Removes a scratch directory and the files in it (tests write no subdirectories).
func removeScratchDirectory(_ path: String) {
    for name in directoryEntries(path) { unlink(path + "/" + name) }
    rmdir(path)
}

func writeFile(_ path: String, _ bytes: [UInt8]) {
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    close(fd)
}

func writeFile(_ path: String, _ text: String) { writeFile(path, Array(text.utf8)) }

func readFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if n <= 0 { break }
        out += chunk[..<n]
    }
    return out
}

func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }

/// The names in a directory (without "." and "..").
func directoryEntries(_ path: String) -> [String] {
    guard let dir = opendir(path) else { return [] }
    defer { closedir(dir) }
    var names: [String] = []
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Who runs the binary. `invoker` is the test process's own user (root in CI); `nobody` is
/// user and group 65534 through `setpriv`, offered only when the tests run as root (otherwise the
/// invoker is already unprivileged).
enum RunAs: String, Sendable, CustomTestStringConvertible {
    case invoker
    case nobody

    /// The users to try: both as root, the invoker alone otherwise.
    static var all: [RunAs] { getuid() == 0 ? [.invoker, .nobody] : [.invoker] }

    var testDescription: String { self == .invoker ? (getuid() == 0 ? "as root" : "as the invoker") : "as nobody" }

    /// The user id the binary runs with.
    var uid: uid_t { self == .nobody ? 65534 : getuid() }
    /// The group id the binary runs with.
    var gid: gid_t { self == .nobody ? 65534 : getgid() }
    /// Whether permission checks apply (root bypasses them).
    var isPrivileged: Bool { uid == 0 }
}

/// The binary, copied where any user may run it (the build directory may not be reachable by
/// `nobody`): one fixed place, replaced by a rename each run, so runs leave one copy behind at
/// most and a copy being executed is never overwritten in place (ETXTBSY).
private let sharedBinary: String = {
    let directory = "/tmp/courier-cli-test-bin"
    mkdir(directory, 0o755)
    chmod(directory, 0o755)
    let copy = directory + "/courier"
    let staging = copy + ".\(getpid())"
    writeFile(staging, readFile(CourierBinary.path) ?? [])
    chmod(staging, 0o755)
    precondition(rename(staging, copy) == 0, "cannot place the binary at \(copy)")
    return copy
}()

/// Runs a program and waits for it; returns its exit status (128 + N when killed by signal N).
@discardableResult
func runProgram(_ argv: [String]) -> Int32 {
    let pid = spawnProgram(argv, stdoutPath: "/dev/null")
    return waitForExit(pid)
}

/// Starts a program with stdin from /dev/null and stdout to `stdoutPath`; stderr is inherited.
func spawnProgram(_ argv: [String], stdoutPath: String) -> pid_t {
    ChildProcess.spawn(argv, stdout: .path(stdoutPath, O_WRONLY | O_CREAT | O_TRUNC), stderr: .descriptor(2),
                       environment: ["PATH=/usr/bin:/bin:/usr/sbin:/sbin"])
}

/// Waits for a child; its exit status, or 128 + N when signal N ended it.
func waitForExit(_ pid: pid_t) -> Int32 { ChildProcess.wait(pid) }

/// The command line that runs the binary as `user` with `umask`: setpriv to drop to nobody, and
/// a shell for the umask (exec'd away, so the binary is the spawned process's final image).
func commandLine(_ arguments: [String], as user: RunAs, umask: mode_t?) -> [String] {
    let binary = user == .invoker ? CourierBinary.path : sharedBinary
    var argv = [binary] + arguments
    if let umask {
        argv = ["/bin/sh", "-c", "umask \(String(umask, radix: 8)) && exec \"$0\" \"$@\""] + argv
    }
    if user == .nobody {
        argv = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"] + argv
    }
    return argv
}

/// Runs courier with `arguments`; stdin from `stdin` (empty when nil), environment `environment`
/// (LANG/LANGUAGE/LC_* are not inherited, so Accept-Language is only sent when a test sets them),
/// as `user` with `umask` (the invoker's own when nil).
func courier(_ arguments: [String], stdin: [UInt8] = [], environment: [String: String] = [:],
             as user: RunAs = .invoker, umask: mode_t? = nil) -> CourierRun {
    let scratch = makeScratchDirectory()
    let inPath = scratch + "/stdin", outPath = scratch + "/stdout", errPath = scratch + "/stderr"
    writeFile(inPath, stdin)
    var env = ["PATH=/usr/bin:/bin"]
    for (name, value) in environment { env.append("\(name)=\(value)") }
    let pid = ChildProcess.spawn(commandLine(arguments, as: user, umask: umask), stdin: .path(inPath, O_RDONLY),
                                 stdout: .path(outPath, O_WRONLY | O_CREAT | O_TRUNC),
                                 stderr: .path(errPath, O_WRONLY | O_CREAT | O_TRUNC), environment: env)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
    let run = CourierRun(status: ChildProcess.exitStatus(status), stdout: readFile(outPath) ?? [],
                         stderr: String(decoding: readFile(errPath) ?? [], as: UTF8.self), peakResidentKiB: Int(usage.ru_maxrss))
    for path in [inPath, outPath, errPath] { unlink(path) }
    rmdir(scratch)
    return run
}

/// "a\nb\n" with every "\n" turned into "\r\n" (request heads in expectations).
func crlfText(_ text: String) -> [UInt8] {
    var out: [UInt8] = []
    for byte in text.utf8 {
        if byte == 10 { out.append(13) }
        out.append(byte)
    }
    return out
}

/// Where a child's standard stream goes (CourierTestSupport's ChildProcess).
typealias Redirect = ChildProcess.Redirect

/// Starts a program with every signal at its default action and none blocked (whatever the test
/// runner ignores or blocks), its streams redirected as asked, and none of this process's other
/// descriptors (ChildProcess).
func startProcess(_ argv: [String], stdin: Redirect = .path("/dev/null", O_RDONLY),
                  stdout: Redirect, stderr: Redirect, environment: [String] = ["PATH=/usr/bin:/bin"]) -> pid_t {
    ChildProcess.spawn(argv, stdin: stdin, stdout: stdout, stderr: stderr, environment: environment)
}

/// A pipe whose ends are close-on-exec in this process (a child gets an end only through dup2).
func makePipe() -> (read: CInt, write: CInt) {
    var fds: [CInt] = [-1, -1]
    precondition(pipe(&fds) == 0)
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
    return (fds[0], fds[1])
}
