// Cookie files and the public suffix list on disk. Every read and write runs on the file thread
// (`BlockingIOThread`), never on a thread of the cooperative pool (design §4).
//
// Writing follows the rules of `-o` (OutputFile in CourierPosix): a regular file, or a new one, is
// written into a temporary file in its directory and renamed over it only when complete, keeping
// an existing file's mode (curl writes its cookie jar through a temporary file too); a device,
// FIFO or descriptor (`/dev/stdout`) is written as it is. A failure leaves the old file untouched.

import CourierBytes
import CourierCookies
import CourierPosix

/// A cookie or public-suffix file could not be read or written.
public struct CookieFileError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done.
    public enum Operation: String, Sendable, Hashable {
        /// Reading a file.
        case read
        /// Writing a file.
        case write
    }

    /// The path as given.
    public var path: String
    /// Reading or writing.
    public var operation: Operation
    /// The errno of the failing call.
    public var errno: Errno
    /// The errno's meaning.
    public var reason: String

    /// "cannot write cookies.txt: Permission denied".
    public var description: String { "cannot \(operation.rawValue) \(path): \(reason)" }
}

enum CookieFiles {
    /// The whole text of a file, read on the file thread.
    static func read(_ path: String) async throws(CookieFileError) -> String {
        do {
            let bytes = try await BlockingIOThread.shared.run { () throws(Errno) -> ByteBuffer in
                let file = try File.open(path)
                defer { try? file.close() }
                var buffer = ByteBuffer(capacity: 64 * 1024)
                var offset: Int64 = 0
                while true {
                    let n = try file.read(into: &buffer, maxBytes: 1 << 20, at: offset)
                    if n == 0 { break }
                    offset += Int64(n)
                }
                return buffer
            }
            return bytes.readableString
        } catch {
            throw CookieFileError(path: path, operation: .read, errno: error, reason: "\(error)")
        }
    }

    /// Writes `text` to `path` by the rules at the top of this file, on the file thread.
    static func write(_ text: String, to path: String) async throws(CookieFileError) {
        do {
            try await BlockingIOThread.shared.run { () throws(Errno) in
                let target = try OutputTarget.resolve(path)
                let output = try OutputFile.create(for: target)
                do throws(Errno) {
                    var bytes = ByteBuffer(string: text)
                    var waits = 0
                    while bytes.readableBytes > 0 {
                        let n = try output.write(bytes)
                        bytes.moveReaderIndex(forwardBy: n)
                        if n == 0 {
                            // A FIFO whose reader is slow: wait for it, a minute at most.
                            waits += 1
                            if waits > 600 { throw Errno.wouldBlock }
                            _ = output.waitUntilWritable(milliseconds: 100)
                        }
                    }
                    try output.commit()
                } catch {
                    output.discard()
                    throw error
                }
            }
        } catch {
            throw CookieFileError(path: path, operation: .write, errno: error, reason: "\(error)")
        }
    }
}

extension PublicSuffixList {
    /// Reads and parses a public suffix list file (`systemPath` is Debian's), on the file thread.
    /// - Parameter path: the file.
    /// - Returns: the list.
    /// - Throws: `CookieFileError` when the file cannot be read.
    public static func load(contentsOf path: String = PublicSuffixList.systemPath) async throws(CookieFileError) -> PublicSuffixList {
        let text = try await CookieFiles.read(path)
        return PublicSuffixList(parsing: text)
    }
}

extension CookieJar {
    /// Loads a Netscape cookie file (curl's `-b FILE`), read on the file thread.
    /// - Parameters:
    ///   - path: the file.
    ///   - discardingSessionCookies: skip cookies without an expiry (curl's `-j`).
    /// - Returns: the number of cookies stored.
    /// - Throws: `CookieFileError` when the file cannot be read (curl ignores a missing file; the
    ///   caller decides).
    @discardableResult
    public func load(contentsOf path: String, discardingSessionCookies: Bool = false) async throws(CookieFileError) -> Int {
        let text = try await CookieFiles.read(path)
        return loadNetscapeFile(text, discardingSessionCookies: discardingSessionCookies)
    }

    /// Writes the jar as a Netscape cookie file (curl's `-c FILE`): through a temporary file
    /// renamed over `path` when complete (a device or FIFO is written as it is).
    /// - Parameter path: the file.
    /// - Throws: `CookieFileError` when it cannot be written; an existing file is then untouched.
    public func save(to path: String) async throws(CookieFileError) {
        try await CookieFiles.write(netscapeFile(), to: path)
    }
}
