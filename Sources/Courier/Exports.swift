// Exports: the vocabulary of the lower modules that Courier's own API speaks, re-exported so that
// `import Courier` is the one import an application needs (issue 15 §1). Everything the README and
// docs/ show compiles with it alone (Tests/CourierDoorTests keeps it so).
//
// Curated, not whole modules: each line names one type that appears in a public signature of
// Courier (a parameter, a result, a configuration field, an error a caller catches) or that a
// caller builds to hand to one. The engine rooms stay out — the event loop, sockets, files,
// parsers, state machines, byte tables — so a user's namespace holds what the client speaks and
// nothing of how it is built. Those modules remain importable on their own (`import CourierURL`
// for the URI parser alone, `import CourierHTTP1` for the codec), and a file that imports one
// besides Courier sees the same types, not copies.
//
// A type added to Courier's public API from a lower module gets a line here in the same commit.

// Bytes: bodies, slices, streamed chunks.
@_exported import struct CourierBytes.ByteBuffer
// Errors: the shape every error's Code conforms to (`Code.all`, `init?(rawValue:)`).
@_exported import protocol CourierBytes.ClosedErrorCode

// URLs and parameters: base URLs, request targets, AFNetworking's parameter trees.
@_exported import struct CourierURL.URI
@_exported import struct CourierURL.URIError
@_exported import enum CourierURL.QueryValue
@_exported import enum CourierURL.QueryString
@_exported import enum CourierURL.PercentEncoding
@_exported import struct CourierURL.PercentEncodingSet
@_exported import struct CourierURL.NoProxyList

// HTTP vocabulary: methods, header fields, versions, parser limits and the codec's errors.
@_exported import struct CourierHTTP1.HTTPMethod
@_exported import struct CourierHTTP1.HTTPHeaders
@_exported import struct CourierHTTP1.HTTPVersion
@_exported import struct CourierHTTP1.HTTP1ParserLimits
@_exported import struct CourierHTTP1.HTTPParserError
@_exported import struct CourierHTTP1.HTTPEncodingError
@_exported import struct CourierHTTP1.AuthenticationChallenge
@_exported import struct CourierHTTP1.AuthenticationChallengeError

// JSON: what the JSON serializers produce and the coders the Decodable ones use.
@_exported import enum CourierJSON.JSONValue
@_exported import struct CourierJSON.JSONObject
@_exported import struct CourierJSON.JSONArray
@_exported import struct CourierJSON.JSONNumber
@_exported import struct CourierJSON.JSONDocument
@_exported import struct CourierJSON.JSONError
@_exported import struct CourierJSON.JSONParser
@_exported import enum CourierJSON.JSONWriter
@_exported import struct CourierJSON.CourierJSONDecoder
@_exported import struct CourierJSON.CourierJSONEncoder

// Multipart: the form a multipart POST's closure fills, and the sources it can read.
@_exported import struct CourierMultipart.MultipartForm
@_exported import struct CourierMultipart.MultipartError
@_exported import struct CourierMultipart.MultipartBoundary
@_exported import struct CourierMultipart.MultipartHeader
@_exported import struct CourierMultipart.MultipartFileRange
@_exported import struct CourierMultipart.MultipartFileAttributes
@_exported import struct CourierMultipart.MultipartFileIdentity
@_exported import protocol CourierMultipart.MultipartFileSystem
@_exported import protocol CourierMultipart.MultipartStream
@_exported import protocol CourierMultipart.MultipartStreamReader
@_exported import struct CourierMultipart.MIMETypeTable
@_exported import enum CourierMultipart.MultipartMIMEType

// TLS and trust: AFSecurityPolicy's counterpart and the settings beside it.
@_exported import struct CourierTLS.SecurityPolicy
@_exported import struct CourierTLS.PublicKeyPin
@_exported import struct CourierTLS.Certificate
@_exported import struct CourierTLS.TLSConfiguration
@_exported import struct CourierTLS.TLSIdentity
@_exported import struct CourierTLS.TLSError
@_exported import enum CourierTLS.TLSVersion
@_exported import enum CourierTLS.TrustRoots
@_exported import enum CourierTLS.CertificateVerification
@_exported import enum CourierTLS.ClientAuthentication
@_exported import enum CourierTLS.MessageDigest

// Connecting: overrides, addresses and the errors of the kernel door a caller may catch.
@_exported import struct CourierPosix.Errno
@_exported import struct CourierPosix.ResolveOverride
@_exported import struct CourierPosix.ConnectToOverride
@_exported import struct CourierPosix.ResolutionError
@_exported import struct CourierPosix.ConnectError
@_exported import struct CourierPosix.IPAddress
@_exported import struct CourierPosix.SocketAddress
@_exported import struct CourierPosix.UnixSocketAddress
@_exported import struct CourierPosix.TCPKeepAlive
@_exported import struct CourierPosix.RouteMonitorError
@_exported import enum CourierPosix.ExistingFilePolicy

// Cookies: the jar's contents and limits.
@_exported import struct CourierCookies.Cookie
@_exported import struct CourierCookies.CookieLimits
@_exported import struct CourierCookies.CookieStore
@_exported import enum CourierCookies.CookieStoreResult
@_exported import enum CourierCookies.CookieRejection
@_exported import struct CourierCookies.PublicSuffixList
// The HTTP cache: a request's cache policy (HTTPCache and its events live in Courier).
@_exported import enum CourierCache.CachePolicy

// Content coding: the limits of gzip/deflate decoding and its errors.
@_exported import enum CourierCompression.ContentCoding
@_exported import struct CourierCompression.ContentDecodingError
@_exported import struct CourierCompression.DecompressionLimits
