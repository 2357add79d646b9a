// Multipart and files: AFMultipartFormData's file parts given by URL
// (`appendPartWithFileURL:name:error:` and its fileName/mimeType form) and AFHTTPRequestSerializer's
// `requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`.
//
// File URLs keep AFNetworking's two refusals, both NSURLErrorBadURL (-1000): a URL that is not
// `file:` ("Expected URL to be a file URL") and a file that cannot be examined ("File URL not
// reachable."). A `file:` URL names a file of this host: no host, or `localhost` (RFC 8089 §2);
// its path is percent-decoded.
//
// Writing a form to a file: every byte — files read, streams drained — is produced on the
// blocking-I/O thread into a temporary file beside the destination, which is renamed over the
// destination only once complete (a reader never sees half a body; a failure leaves no file).
// The request that comes back sends that file: body `.file(path:)`, Content-Type and
// Content-Length kept from the form. AFNetworking's copy drops the body stream for the caller to
// upload the file with `uploadTaskWithRequest:fromFile:`; a Courier request carries its file.

import CourierBytes
import CourierHTTP1
import CourierMultipart
import CourierPosix
import CourierURL

extension MultipartForm {
    /// The local path a `file:` URL names.
    /// - Parameter url: the URL.
    /// - Returns: the path, percent-decoded.
    /// - Throws: `MultipartError` `.notAFileURL` (-1000) for another scheme, a remote host or a
    ///   path that does not decode.
    public static func path(ofFileURL url: URI) throws(MultipartError) -> String {
        guard url.scheme?.lowercased() == "file" else { throw MultipartError(.notAFileURL) }
        if let host = url.host?.description, !host.isEmpty, host.lowercased() != "localhost" {
            throw MultipartError(.notAFileURL)
        }
        guard url.path.hasPrefix("/"), let path = try? PercentEncoding.decodeToString(url.path),
              !path.utf8.contains(0) else {
            throw MultipartError(.notAFileURL)
        }
        return path
    }

    /// Appends the file a `file:` URL names, its file name the URL's last path component and its
    /// MIME type from the system's database (`appendPartWithFileURL:name:error:`). The file is
    /// examined on the blocking-I/O thread; its bytes are read when the body is sent.
    /// - Parameters:
    ///   - fileURL: a `file:` URL.
    ///   - name: the form field name.
    /// - Throws: `MultipartError` — `.notAFileURL` or `.fileNotReachable` (both -1000, with
    ///   AFNetworking's texts; `underlying` is the file system's error), `.invalidFilePath`,
    ///   `.invalidName`, `.contentLengthOverflow`.
    public mutating func appendFile(fileURL: URI, name: String) async throws(MultipartError) {
        let path = try Self.path(ofFileURL: fileURL)
        try await appendOnBlockingThread { (form: inout MultipartForm) throws(MultipartError) in
            try form.appendFile(atPath: path, name: name, fileSystem: PosixFileSystem())
        }
    }

    /// Appends the file a `file:` URL names with the file name and MIME type given
    /// (`appendPartWithFileURL:name:fileName:mimeType:error:`).
    /// - Parameters:
    ///   - fileURL: a `file:` URL.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    /// - Throws: `MultipartError` — `.notAFileURL`, `.fileNotReachable`, `.invalidName`,
    ///   `.invalidHeaderValue`, `.contentLengthOverflow`.
    public mutating func appendFile(fileURL: URI, name: String, fileName: String, mimeType: String) async throws(MultipartError) {
        let path = try Self.path(ofFileURL: fileURL)
        try await appendOnBlockingThread { (form: inout MultipartForm) throws(MultipartError) in
            try form.appendFile(atPath: path, name: name, fileName: fileName, mimeType: mimeType,
                                fileSystem: PosixFileSystem(mimeTypes: nil))
        }
    }

    /// Runs `append` on a copy of the form on the blocking-I/O thread (stat, mime.types), keeping
    /// the result; an unexaminable file becomes AFNetworking's "File URL not reachable.".
    private mutating func appendOnBlockingThread(
        _ append: @escaping @Sendable (inout MultipartForm) throws(MultipartError) -> Void
    ) async throws(MultipartError) {
        let form = self
        self = try await BlockingIOThread.shared.run { () throws(MultipartError) -> MultipartForm in
            var form = form
            do throws(MultipartError) {
                try append(&form)
            } catch {
                guard error.code == .fileUnavailable else { throw error }
                throw MultipartError(.fileNotReachable, partIndex: error.partIndex, underlying: error.underlying)
            }
            return form
        }
    }
}

extension RequestSerializer {
    /// Writes a multipart request's body to a file and returns the request sending that file
    /// (`requestWithMultipartFormRequest:writingStreamContentsToFile:completionHandler:`): for
    /// uploads that must survive the process, or go out from a background uploader, as a file.
    ///
    /// The body is produced on the blocking-I/O thread into a temporary file in the destination's
    /// directory, then renamed over `path`; on failure nothing is left behind. The file is
    /// created with mode 0600 (it may hold the contents of private files). The form's throttle,
    /// if any, is not applied to the file, and is lost: the request sends a plain file.
    /// - Parameters:
    ///   - request: a request whose body is `.multipart` (from `multipartRequest`).
    ///   - path: the file to write; replaced when it exists.
    /// - Returns: the request with body `.file(path:)` and the form's Content-Type and
    ///   Content-Length.
    /// - Throws: `RequestSerializationError` `.multipartFailed`: `underlying` is the
    ///   `MultipartError` (a part's file or stream failed; `.sinkFailed` with the `Errno` when the
    ///   file cannot be written), or `.notMultipart` when the request has no multipart body.
    public func requestWritingMultipartBody(of request: HTTPRequest, toFile path: String) async throws(RequestSerializationError) -> HTTPRequest {
        guard case .multipart(let form) = request.body else {
            throw RequestSerializationError(.notMultipart, detail: "the request has no multipart body to write")
        }
        let written = await BlockingIOThread.shared.run { () -> Result<UInt64, MultipartError> in
            Result { () throws(MultipartError) -> UInt64 in try MultipartFileWriter.write(form, toFile: path) }
        }
        let length: UInt64
        switch written {
        case .success(let count): length = count
        case .failure(let error):
            throw RequestSerializationError(.multipartFailed, detail: "cannot write the multipart body to \(path)", underlying: error)
        }
        var result = request
        result.headers.replaceOrAdd(name: "Content-Type", value: form.contentType)
        result.headers.replaceOrAdd(name: "Content-Length", value: String(length))
        result.body = .file(path: path)
        return result
    }
}

/// Writes a form's body to a file, temp file then rename (blocking: the blocking-I/O thread only).
enum MultipartFileWriter {
    /// A sink appending to an open file.
    struct FileSink: MultipartSink {
        let file: File
        var offset: Int64 = 0

        mutating func write(_ bytes: ByteBuffer) throws {
            try file.write(bytes, at: offset)
            offset += Int64(bytes.readableBytes)
        }
    }

    /// Writes `form`'s body to `path` and returns its length.
    static func write(_ form: MultipartForm, toFile path: String) throws(MultipartError) -> UInt64 {
        let file: File
        do {
            file = try File.makeTemporary(in: OutputTarget.directory(of: path), prefix: ".courier-multipart-")
        } catch {
            throw MultipartError(.sinkFailed, underlying: error)
        }
        var sink = FileSink(file: file)
        do throws(MultipartError) {
            let count = try form.writeBody(to: &sink, fileSystem: PosixFileSystem(mimeTypes: nil))
            do {
                try file.close()
                try File.rename(file.path, to: path)
            } catch {
                throw MultipartError(.sinkFailed, offset: count, underlying: error)
            }
            return count
        } catch {
            try? file.close()
            try? File.remove(file.path)
            throw error
        }
    }
}
