// HTTPClient's multipart POST (AFHTTPSessionManager's
// POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:), in the verbs' three
// forms: the client's response serializer, `serializer:`, or `as: T.self`.
//
// The body closure is async so that it can append files by path alone
// (`try await form.appendFile(atPath:name:)`): the file is examined on the blocking-I/O thread,
// never on a thread of the cooperative pool (design §4). A closure that appends only fields,
// bytes or files through a file system of its own can stay synchronous.
//
// Order (AFNetworking's): `parameters` become fields first, then the closure appends its parts;
// the boundary is fresh for every request, from the kernel's CSPRNG (AFNetworking draws one from
// arc4random() for every form). What the closure throws reaches the caller as
// `.invalidRequest` with a `.multipartFailed` serialization error whose `underlying` is that error.

import CourierHTTP1
import CourierJSON
import CourierMultipart
import CourierPosix
import CourierURL

extension HTTPClient {
    /// A multipart POST: `parameters` become fields first, then `constructingBody` appends parts.
    /// The body streams with its exact Content-Length; file parts are read as they are sent.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: fields, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses this response.
    ///   - uploadProgress: called with upload progress, in order.
    ///   - constructingBody: appends parts.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post<Serializer: ResponseSerializer>(
        _ path: String, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(), serializer: Serializer,
        uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
        constructingBody: (inout MultipartForm) async throws -> Void
    ) async throws(SessionError) -> (value: Serializer.Value, response: HTTPResponseHead) {
        let task = try await multipartTask(path, parameters: parameters, headers: headers, serializer: serializer,
                                           constructingBody: constructingBody)
        if let uploadProgress { task.setProgressHandler(upload: uploadProgress, download: nil) }
        task.resume()
        return try HTTPClient.unwrap(await task.response)
    }

    /// A multipart POST serialized by the client's response serializer.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: fields, or nil.
    ///   - headers: per-request fields.
    ///   - uploadProgress: called with upload progress, in order.
    ///   - constructingBody: appends parts.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post(_ path: String, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(),
                     uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
                     constructingBody: (inout MultipartForm) async throws -> Void)
        async throws(SessionError) -> (value: ResponseSerializerType.Value, response: HTTPResponseHead) {
        try await post(path, parameters: parameters, headers: headers, serializer: responseSerializer,
                       uploadProgress: uploadProgress, constructingBody: constructingBody)
    }

    /// A multipart POST whose JSON response is decoded as `type`.
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: fields, or nil.
    ///   - headers: per-request fields.
    ///   - type: what to decode.
    ///   - decoder: the decoder (default settings).
    ///   - uploadProgress: called with upload progress, in order.
    ///   - constructingBody: appends parts.
    /// - Returns: the value and the response head.
    /// - Throws: `SessionError`.
    public func post<Value: Decodable & Sendable>(
        _ path: String, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(),
        as type: Value.Type, decoder: CourierJSONDecoder = CourierJSONDecoder(),
        uploadProgress: (@Sendable (TransferProgress) -> Void)? = nil,
        constructingBody: (inout MultipartForm) async throws -> Void
    ) async throws(SessionError) -> (value: Value, response: HTTPResponseHead) {
        try await post(path, parameters: parameters, headers: headers, serializer: DecodableResponseSerializer(type, decoder: decoder),
                       uploadProgress: uploadProgress, constructingBody: constructingBody)
    }

    /// Builds the multipart request and returns its task, not resumed
    /// (`multipartFormRequestWithMethod:...` then `dataTaskWithRequest:`).
    /// - Parameters:
    ///   - path: relative to the base URL.
    ///   - parameters: fields, or nil.
    ///   - headers: per-request fields.
    ///   - serializer: validates and parses the response.
    ///   - constructingBody: appends parts.
    /// - Returns: the task.
    /// - Throws: `SessionError` (`.invalidURL`, `.invalidRequest`); nothing is sent.
    public func multipartTask<Serializer: ResponseSerializer>(
        _ path: String, parameters: QueryValue?, headers: HTTPHeaders = HTTPHeaders(), serializer: Serializer,
        constructingBody: (inout MultipartForm) async throws -> Void
    ) async throws(SessionError) -> DataTask<Serializer.Value> {
        let uri = try url(for: path)
        var generator = KernelRandom()
        let boundary = MultipartBoundary(using: &generator)
        // The form is filled here, where the closure may await (files examined off the pool); the
        // serializer then takes it whole, with its defaults, header checks and Content-Length.
        var form = MultipartForm(boundary: boundary)
        do {
            if let parameters {
                for (name, value) in MultipartFieldPairs.pairs(of: parameters) {
                    try form.appendField(name: name, value: value ?? "")
                }
            }
            try await constructingBody(&form)
        } catch {
            throw SessionError.requestSerialization(RequestSerializationError(.multipartFailed, underlying: error),
                                                    "the multipart request cannot be built", url: uri.redactedDescription)
        }
        let built = form
        let request: HTTPRequest
        do {
            request = try requestSerializer.multipartRequest(method: .post, uri: uri, parameters: nil, headers: headers,
                                                             boundary: boundary, constructingBody: { $0 = built })
        } catch {
            throw SessionError.requestSerialization(error, "the multipart request cannot be built", url: uri.redactedDescription)
        }
        return session.dataTask(with: request, serializer: serializer)
    }
}

extension MultipartForm {
    /// Appends a file from the local file system, named after its last path component, its MIME
    /// type from the system's database (AFMultipartFormData's `appendPartWithFileURL:name:error:`).
    /// The file is examined (stat) on the blocking-I/O thread, and its bytes are read as they
    /// are sent; a file that changes in between fails the upload.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - name: the form field name.
    /// - Throws: `MultipartError` — `.invalidFilePath`, `.invalidName`, `.fileUnavailable` (its
    ///   `underlying` says why: `Errno`, `PosixFileSystem.NotARegularFile`),
    ///   `.contentLengthOverflow`.
    public mutating func appendFile(atPath path: String, name: String) async throws(MultipartError) {
        let form = self
        self = try await BlockingIOThread.shared.run { () throws(MultipartError) -> MultipartForm in
            var form = form
            // PosixFileSystem() reads /etc/mime.types on first use: here, off the pool, too.
            try form.appendFile(atPath: path, name: name, fileSystem: PosixFileSystem())
            return form
        }
    }

    /// Appends a file from the local file system with the file name and MIME type given
    /// (`appendPartWithFileURL:name:fileName:mimeType:error:`), examined on the blocking-I/O thread.
    /// - Parameters:
    ///   - path: the file's path.
    ///   - name: the form field name.
    ///   - fileName: the file name sent in `Content-Disposition`.
    ///   - mimeType: the part's `Content-Type`.
    /// - Throws: `MultipartError` — `.invalidName`, `.invalidHeaderValue`, `.fileUnavailable`,
    ///   `.contentLengthOverflow`.
    public mutating func appendFile(atPath path: String, name: String, fileName: String, mimeType: String) async throws(MultipartError) {
        let form = self
        self = try await BlockingIOThread.shared.run { () throws(MultipartError) -> MultipartForm in
            var form = form
            try form.appendFile(atPath: path, name: name, fileName: fileName, mimeType: mimeType,
                                fileSystem: PosixFileSystem(mimeTypes: nil))
            return form
        }
    }
}
