// UploadSources: the bodies -T streams — standard input (chunked, read once) and a file read as it
// is sent.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierMultipart
import CourierPosix
import CourierTLS
import CourierURL
import Synchronization

/// `-T -`: standard input, read as it comes (sent chunked). Standard input can be read once: a
/// second pass (a 307 redirect, a retry) fails instead of sending an empty body.
final class StandardInputUpload: MultipartStream, Sendable {
    private let started = Atomic<Bool>(false)

    /// One pass only: a retry does not send it again.
    var isReplayable: Bool { false }

    func makeReader() throws -> any MultipartStreamReader {
        guard !started.exchange(true, ordering: .relaxed) else { throw CLIError(26, "standard input cannot be sent twice") }
        return Reader()
    }

    struct Reader: MultipartStreamReader {
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            try StandardStreams.readInput(into: buffer)
        }
    }
}

/// `-T DEVICE` or `-T FIFO`: read as it comes, sent chunked (its size means nothing).
struct FileUpload: MultipartStream, Sendable {
    let path: String

    /// A device or FIFO gives its bytes once: a retry does not send it again.
    var isReplayable: Bool { false }

    func makeReader() throws -> any MultipartStreamReader { Reader(file: try File.open(path)) }

    struct Reader: MultipartStreamReader {
        let file: File
        mutating func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
            let n = try file.readSequentially(into: buffer)
            if n == 0 { try? file.close() }
            return n
        }
    }
}
