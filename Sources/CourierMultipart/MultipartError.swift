// MultipartError: what can go wrong while building a form or producing its body.
//
// Design §6: a public error is a struct with a stable code (a closed set of static constants) plus
// context. Here the context is the part (its index in the form) and the byte offset in the body at
// which the problem was found, so a transport can say "part 3 (photo.jpg) changed size at byte
// 10485760" instead of sending a body whose length no longer matches its Content-Length header.
//
// Local misuse (an invalid name or header given to the builder) is thrown at append time, before
// anything is sent. Problems with the outside world (a file that changed or vanished, a stream whose
// real length differs from its declared one, a sink that failed) are thrown by the body stream and
// make it fail for good until `restart()`.

import CourierBytes

/// An error from building a multipart form or producing its body.
public struct MultipartError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of error: a stable code, safe to match on and to log.
    public struct Code: ClosedErrorCode {
        /// The stable name of the code.
        public let rawValue: String
        /// A code of this module's own (the constants below).
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .invalidName, .invalidHeaderName, .invalidHeaderValue, .invalidFilePath, .invalidFileRange,
            .contentLengthOverflow, .notAFileURL, .fileNotReachable, .fileUnavailable, .fileSizeChanged, .fileIdentityChanged,
            .fileReadFailed, .streamEndedEarly, .streamTooLong, .streamFailed, .sinkFailed
        ]

        // MARK: Local misuse, thrown at append time

        /// A field name or file name holds a control byte that cannot be escaped (NUL, or a C0/DEL
        /// byte other than CR and LF, which are escaped as browsers do).
        public static let invalidName = Code("invalidName")
        /// A custom header name is not an RFC 9110 token.
        public static let invalidHeaderName = Code("invalidHeaderName")
        /// A header value (custom, or a MIME type) holds CR, LF, NUL or another control byte, or
        /// starts or ends with whitespace (RFC 9110 §5.5).
        public static let invalidHeaderValue = Code("invalidHeaderValue")
        /// A file path has no last path component to use as the file name.
        public static let invalidFilePath = Code("invalidFilePath")
        /// A file byte range does not lie inside the file.
        public static let invalidFileRange = Code("invalidFileRange")
        /// The body would be longer than 2^63 - 1 bytes.
        public static let contentLengthOverflow = Code("contentLengthOverflow")
        /// A file part was given by a URL that is not a `file:` URL on this host (AFNetworking's
        /// NSURLErrorBadURL, -1000, "Expected URL to be a file URL").
        public static let notAFileURL = Code("notAFileURL")
        /// A file part's `file:` URL names nothing that can be examined (AFNetworking's
        /// NSURLErrorBadURL, -1000, "File URL not reachable.").
        public static let fileNotReachable = Code("fileNotReachable")

        // MARK: The outside world, thrown while producing the body

        /// A file could not be examined (it vanished, or permission was withdrawn).
        public static let fileUnavailable = Code("fileUnavailable")
        /// A file's size is not the size it had when the part was appended: it shrank (the read
        /// reached end of file early) or grew.
        public static let fileSizeChanged = Code("fileSizeChanged")
        /// A file at the same path is no longer the same file (device, inode or modification time
        /// changed since it was appended).
        public static let fileIdentityChanged = Code("fileIdentityChanged")
        /// Reading a file failed.
        public static let fileReadFailed = Code("fileReadFailed")
        /// A stream ended before its declared length.
        public static let streamEndedEarly = Code("streamEndedEarly")
        /// A stream had more bytes than its declared length.
        public static let streamTooLong = Code("streamTooLong")
        /// A stream could not be started or failed while being read.
        public static let streamFailed = Code("streamFailed")
        /// A sink refused bytes while a whole body was being written to it.
        public static let sinkFailed = Code("sinkFailed")
    }

    /// The kind of error.
    public var code: Code
    /// The index of the part concerned, in append order, when the error concerns one part.
    public var partIndex: Int?
    /// The byte offset in the body at which the problem was found (the number of body bytes that
    /// had been produced); 0 for errors thrown at append time.
    public var offset: UInt64
    /// The error thrown by the file system, stream or sink, when there was one. Not part of
    /// equality.
    public var underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the kind of error.
    ///   - partIndex: the part concerned, if any.
    ///   - offset: the body offset at which it was found.
    ///   - underlying: the error that caused it, if any.
    public init(_ code: Code, partIndex: Int? = nil, offset: UInt64 = 0, underlying: (any Error)? = nil) {
        self.code = code
        self.partIndex = partIndex
        self.offset = offset
        self.underlying = underlying
    }

    /// Errors are equal when code, part and offset are equal; the underlying error is context.
    public static func == (lhs: MultipartError, rhs: MultipartError) -> Bool {
        lhs.code == rhs.code && lhs.partIndex == rhs.partIndex && lhs.offset == rhs.offset
    }

    /// Hashes code, part and offset.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(partIndex)
        hasher.combine(offset)
    }

    /// AFNetworking's error number for the codes it has one for: -1000 (NSURLErrorBadURL) for
    /// `.notAFileURL` and `.fileNotReachable`; nil for the rest.
    public var afNetworkingCode: Int? {
        code == .notAFileURL || code == .fileNotReachable ? -1000 : nil
    }

    /// AFNetworking's failure reason for the codes it has one for, word for word.
    public var failureReason: String? {
        switch code {
        case .notAFileURL: return "Expected URL to be a file URL"
        case .fileNotReachable: return "File URL not reachable."
        default: return nil
        }
    }

    /// A one-line summary (not API: match on `code`).
    public var description: String {
        var text = "multipart: \(code)"
        if let failureReason { text += " (\(failureReason))" }
        if let partIndex { text += " (part \(partIndex))" }
        text += " at body offset \(offset)"
        if let underlying { text += ": \(underlying)" }
        return text
    }
}
