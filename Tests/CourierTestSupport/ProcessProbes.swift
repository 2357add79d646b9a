// Probes of this process's state for leak checks (descriptors, TCP sockets by port) and a bounded
// polling wait, shared by every I/O test target.

import Glibc

/// Waits until `condition` holds, at most `limit`.
public func eventually(_ limit: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        if ContinuousClock.now > deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

/// The number of open descriptors of this process (entries of /proc/self/fd, minus the one the
/// listing itself uses).
public func openDescriptorCount() -> Int {
    guard let dir = opendir("/proc/self/fd") else { return -1 }
    var count = 0
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        if name != "." && name != ".." { count += 1 }
    }
    closedir(dir)
    return count - 1
}

/// The socket inodes among this process's descriptors (/proc/self/fd links "socket:[N]").
public func ownSocketInodes() -> Set<UInt64> {
    var inodes: Set<UInt64> = []
    guard let dir = opendir("/proc/self/fd") else { return inodes }
    while let entry = readdir(dir) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
        guard CInt(name) != nil else { continue }
        var target = [CChar](repeating: 0, count: 256)
        let n = readlink("/proc/self/fd/\(name)", &target, 255)
        guard n > 0 else { continue }
        let link = String(decoding: target[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        if link.hasPrefix("socket:["), let inode = UInt64(link.dropFirst(8).dropLast()) { inodes.insert(inode) }
    }
    closedir(dir)
    return inodes
}

/// How many of this process's open TCP sockets have `port` as their local or remote port
/// (/proc/net/tcp: "sl local_address rem_address st ... inode"). Unlike a descriptor count, this
/// is not disturbed by tests of other suites running in parallel.
public func openSockets(onPort port: UInt16) -> Int {
    let own = ownSocketInodes()
    var count = 0
    for path in ["/proc/net/tcp", "/proc/net/tcp6"] {
        guard let file = fopen(path, "r") else { continue }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        while getline(&line, &capacity, file) > 0 {
            let fields = String(cString: line!).split(separator: " ")
            guard fields.count > 9, let inode = UInt64(fields[9]), own.contains(inode) else { continue }
            let ports = [fields[1], fields[2]].compactMap { $0.split(separator: ":").last.flatMap { UInt16($0, radix: 16) } }
            if ports.contains(port) { count += 1 }
        }
        free(line)
        fclose(file)
    }
    return count
}
