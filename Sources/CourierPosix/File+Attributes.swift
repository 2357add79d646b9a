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
}
