// PosixMultipartFileSystem: the multipart body stream's file reader for the CLI (--offline and
// the checks made when a -F file part is appended): sizes by stat(2), bytes by pread(2), one
// descriptor kept open per file until the stream is done with it.

import CourierBytes
import CourierMultipart
import CourierPosix
import Synchronization

final class PosixMultipartFileSystem: MultipartFileSystem {
    static let shared = PosixMultipartFileSystem()

    private let open = Mutex<[String: File]>([:])

    func attributes(ofFileAt path: String) throws -> MultipartFileAttributes {
        let file = try File.open(path)
        defer { try? file.close() }
        return MultipartFileAttributes(size: UInt64(try file.size()))
    }

    func read(fileAt path: String, offset: UInt64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let file = try open.withLock { (files) throws -> File in
            if let file = files[path] { return file }
            let file = try File.open(path)
            files[path] = file
            return file
        }
        var chunk = ByteBuffer(capacity: buffer.count)
        let n = try file.read(into: &chunk, maxBytes: buffer.count, at: Int64(offset))
        chunk.withUnsafeReadableBytes { buffer.copyMemory(from: $0) }
        return n
    }

    func finishedReading(fileAt path: String) {
        let file = open.withLock { $0.removeValue(forKey: path) }
        try? file?.close()
    }
}
