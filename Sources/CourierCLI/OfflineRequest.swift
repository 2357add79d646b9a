// OfflineRequest: the exact bytes of a request (head and body) for --offline, rendered the way
// the connection writes them: `RequestHeadEncoder` with the Host value of the URL (HTTP1Connection
// writes the host, bracketed when IPv6, and the port unless it is the scheme's default — the same
// as `URI.hostFieldValue`), the fields in order, then the framing field the encoder adds last
// (Content-Length: N; Content-Length: 0 for POST, PUT and PATCH without a body). The body follows:
// in-memory bytes as they are, a multipart form rendered whole by `MultipartBodyStream` (files
// are read now).

import Courier
import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierURL

enum OfflineRequest {
    /// The wire bytes of `request`.
    /// - Throws: `CLIError` 43 (the encoder refused the head), 26 (a file part cannot be read).
    static func bytes(of request: HTTPRequest) throws(CLIError) -> ByteBuffer {
        let length: BodyLength
        switch request.body {
        case .none: length = .none
        case .bytes(let bytes): length = .known(UInt64(bytes.readableBytes))
        case .multipart(let form): length = .known(form.contentLength)
        }
        var out = ByteBuffer()
        do {
            _ = try RequestHeadEncoder().encode(method: request.method, target: request.uri.requestTarget,
                                                host: request.uri.hostFieldValue ?? "", headers: request.headers,
                                                body: length, into: &out)
        } catch {
            throw CLIError(43, "the request head cannot be sent: \(error)")
        }
        switch request.body {
        case .none: break
        case .bytes(let bytes): out.writeBuffer(bytes)
        case .multipart(let form):
            do { try form.render(into: &out, fileSystem: PosixMultipartFileSystem.shared) } catch {
                throw CLIError(26, "Failed to open/read local data from file/application: \(error)")
            }
        }
        return out
    }
}
