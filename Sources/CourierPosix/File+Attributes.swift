// File+Attributes: what the command-line tool asks about a path without opening it — its size,
// whether it is a directory — and extended attributes (xattr(7)), where `courier -o FILE` keeps
// the validator (ETag or Last-Modified) of a partial download so a later `-C -` can send If-Range.
//
// Extended attributes live in the `user.` namespace; file systems without them (some tmpfs, NFS)
// answer ENOTSUP, which callers treat as "no validator" rather than as a failed download.

extension File {
    /// The size of the file at `path` (stat(2), following symbolic links).
    /// - Parameter path: the file.
    /// - Returns: the size in bytes.
    /// - Throws: `Errno` (ENOENT when it does not exist, EACCES, ...).
    public static func size(atPath path: String) throws(Errno) -> Int64 {
        try Sys.fileSize(atPath: path)
    }

    /// Whether `path` names a directory (false when nothing is there).
    /// - Parameter path: the path.
    /// - Returns: true for a directory.
    public static func isDirectory(atPath path: String) -> Bool {
        Sys.isDirectory(atPath: path)
    }

    /// Reads an extended attribute (getxattr(2)).
    /// - Parameters:
    ///   - name: the attribute's full name, for example `user.courier.validator`.
    ///   - path: the file.
    /// - Returns: the value, or nil when the file has no such attribute.
    /// - Throws: `Errno` (ENOENT, ENOTSUP when the file system has no extended attributes, ...).
    public static func extendedAttribute(_ name: String, atPath path: String) throws(Errno) -> [UInt8]? {
        try Sys.extendedAttribute(name, atPath: path)
    }

    /// Creates or replaces an extended attribute (setxattr(2)).
    /// - Parameters:
    ///   - name: the attribute's full name.
    ///   - value: the value.
    ///   - path: the file.
    /// - Throws: `Errno` (ENOTSUP, ENOSPC, E2BIG, EACCES, ...).
    public static func setExtendedAttribute(_ name: String, value: [UInt8], atPath path: String) throws(Errno) {
        try Sys.setExtendedAttribute(name, value: value, atPath: path)
    }

    /// Removes an extended attribute (removexattr(2)); a missing one is not an error.
    /// - Parameters:
    ///   - name: the attribute's full name.
    ///   - path: the file.
    /// - Throws: `Errno` (ENOENT, ENOTSUP, EACCES, ...).
    public static func removeExtendedAttribute(_ name: String, atPath path: String) throws(Errno) {
        try Sys.removeExtendedAttribute(name, atPath: path)
    }

    /// Sets the access and modification times of `path` (utimensat(2), following symbolic links),
    /// in whole seconds since 1970 — curl's `-R` sets both to the remote time.
    /// - Parameters:
    ///   - path: the file.
    ///   - seconds: the time for both.
    /// - Throws: `Errno` (ENOENT, EPERM, EACCES, ...).
    public static func setTimes(atPath path: String, to seconds: Int64) throws(Errno) {
        try Sys.setTimes(path, access: seconds, modification: seconds)
    }

    /// Creates the directory `path` and any missing parents (mkdir -p), each with `mode` less the
    /// umask; directories that exist are left as they are.
    /// - Parameters:
    ///   - path: the directory.
    ///   - mode: the mode of the directories created (curl's --create-dirs uses 0750).
    /// - Throws: `Errno` (EACCES, ENOTDIR when a part is not a directory, ...).
    public static func makeDirectories(_ path: String, mode: UInt32) throws(Errno) {
        guard !path.isEmpty, !isDirectory(atPath: path) else { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if component != "." && component != ".." && !isDirectory(atPath: prefix) {
                do throws(Errno) { try Sys.makeDirectory(prefix, mode: mode) } catch where error == .fileExists {
                    // Someone made it in between (fine), or it is something else: not a directory.
                    guard isDirectory(atPath: prefix) else { throw Errno.notDirectory }
                }
            }
            prefix += "/"
        }
    }
}
