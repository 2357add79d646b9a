// Transfer+Sending: the request body from its source (bytes, a file, a form, a stream) to the
// connection, with upload progress; every file and stream read happens off the cooperative pool.

import CourierBytes
import CourierCookies
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierURL
import Synchronization

extension Transfer {
    // MARK: Sending

    /// Sends the request body, counting the bytes handed to the connection in `sent` (kept when
    /// it throws: an upload stopped by an early response still reports what went out). The body
    /// comes from a `RequestBodySource`, which does every file and stream read off the
    /// cooperative pool; `Session.renderedRequest` reads the same source.
    func sendBody(_ request: HTTPRequest, body: MeasuredBody, on connection: HTTP1Connection,
                  sent: inout UInt64) async throws {
        let length = body.length
        let total: UInt64?
        switch length {
        case .known(let n): total = n
        default: total = nil
        }
        if case .none = request.body { return }
        let url = request.uri.redactedDescription
        let source = RequestBodySource(request.body, measured: body, url: url)
        defer { source.close() }
        // File ranges go out with sendfile on a plain connection (zero copy); over TLS the bytes
        // must be encrypted here, so the source reads them into memory on its thread; a wire
        // tap must see them too.
        let ranges = !connection.usesTLS && configuration.wireTap == nil
        while let segment = try await source.next(fileRanges: ranges) {
            switch segment {
            case .bytes(let bytes):
                try await connection.writeBody(bytes)
            case .fileRange(let file, let path, let offset, let count):
                try await sendFileRange(of: file, path: path, offset: offset, count: count, on: connection, url: url)
            }
            sent += UInt64(segment.count)
            core.reportUpload(TransferProgress(completed: sent, total: total))
        }
        // A declared length of 0 opens no body on the connection (the head's Content-Length: 0 is
        // the whole of it), so there is nothing to end.
        if case .known(0) = length { return }
        try await connection.finishBody()
    }

    /// Sends a file range with sendfile (plain connections only).
    func sendFileRange(of file: File, path: String, offset: Int64, count: Int, on connection: HTTP1Connection,
                       url: String) async throws {
        do throws(ConnectionError) {
            try await connection.writeFile(file, offset: offset, count: count)
        } catch {
            // The file ended before the range (it shrank while being sent): the connection has
            // failed and is closed, so the server never sees a complete-looking body.
            if error.code == .invalidRequest {
                throw SessionError(.fileReadFailed, "\(path) became shorter while it was sent (\(error.message))", url: url)
            }
            throw error
        }
    }
}
