// ContentDecoding: the session's view of Content-Encoding. Identity passes slices through
// untouched (zero copy); gzip and deflate go through CourierCompression's streaming zlib decoder,
// whose limits (decoded size, expansion ratio) turn a compression bomb into a typed error after at
// most one bounded piece of output. Responses are decoded only when the session asked for
// compression (a server that compresses unasked is passed through, as curl does without
// --compressed), and never for range requests or HEAD / 204 / 304 responses (no body).

import CourierBytes
import CourierCompression
import CourierHTTP1

struct ContentDecoding {
    private var decoder: ContentDecoder?

    /// Whether the body passes through untouched.
    var isIdentity: Bool { decoder?.isIdentity ?? true }

    /// Whether `decode` returns each slice as it is, with no decoder at all (the caller may
    /// skip it: its array is an allocation per slice).
    var passesSlicesThrough: Bool { decoder == nil }

    static func make(for headers: HTTPHeaders, request: HTTPRequest, configuration: SessionConfiguration,
                     url: String) throws(SessionError) -> ContentDecoding {
        guard configuration.acceptsCompressedResponses, request.method != .head else { return ContentDecoding() }
        let codings = headers["Content-Encoding"]
        guard !codings.isEmpty else { return ContentDecoding() }
        var limits = configuration.decompressionLimits
        if let maximum = configuration.maximumDownloadSize {
            limits.maximumDecodedSize = min(limits.maximumDecodedSize ?? maximum, maximum)
        }
        do {
            return ContentDecoding(decoder: try ContentDecoder(contentEncoding: codings.joined(separator: ", "), limits: limits))
        } catch {
            throw sessionError(error, url: url)
        }
    }

    /// Decodes one body slice into zero or more bounded pieces.
    mutating func decode(_ input: ByteBuffer, url: String) throws(SessionError) -> [ByteBuffer] {
        guard decoder != nil else { return [input] }
        do {
            var pieces: [ByteBuffer] = []
            let first = try decoder!.decode(input)
            if first.readableBytes > 0 { pieces.append(first) }
            while !decoder!.isAwaitingInput {
                let piece = try decoder!.decode(ByteBuffer())
                if piece.readableBytes > 0 { pieces.append(piece) }
            }
            return pieces
        } catch {
            throw ContentDecoding.sessionError(error, url: url)
        }
    }

    /// The body ended: a stream cut short is an error.
    mutating func finish(url: String) throws(SessionError) -> [ByteBuffer] {
        guard decoder != nil else { return [] }
        do {
            try decoder!.finish()
        } catch {
            throw ContentDecoding.sessionError(error, url: url)
        }
        return []
    }

    static func sessionError(_ error: ContentDecodingError, url: String) -> SessionError {
        let exceeded = error.code == .decodedSizeExceeded || error.code == .ratioExceeded
        var failure = SessionError(exceeded ? .decodedSizeExceeded : .badContentEncoding, error.message, url: url)
        failure.decodingError = error
        return failure
    }
}
