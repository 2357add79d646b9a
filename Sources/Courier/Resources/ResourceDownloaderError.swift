// ResourceDownloaderError and DownloadReceipt: what `ResourceDownloader` hands back.
//
// Codes carry AFNetworking's (Foundation's) numbers where AFImageDownloader reported one:
//
//   cancelled    -999   NSURLErrorCancelled: the receipt was cancelled (`cancel(_:)`), or the
//                       task awaiting `value(for:)` was cancelled
//   badURL      -1000   NSURLErrorBadURL: the request's URI is not absolute, so there is nothing
//                       to fetch and no cache key (AFNetworking: a nil `URL.absoluteString`)
//   fetchFailed  nil    the fetch closure threw; AFNetworking passed the session's error through
//                       unchanged, so the number is the underlying error's (see `underlying`)

import CourierBytes
import Synchronization

/// Why a `ResourceDownloader` delivered no value.
public struct ResourceDownloaderError: Error, Sendable, CustomStringConvertible {
    /// A stable reason, with AFNetworking's number where it had one.
    public struct Code: ClosedErrorCode {
        /// The code's stable name (the identity).
        public let rawValue: String
        /// Every code of the set (what `init?(rawValue:)` answers).
        public static let all: [Code] = [
            .cancelled, .badURL, .fetchFailed
        ]
        /// The AFNetworking / Foundation error number, when the code has one of its own.
        public let afNetworkingCode: Int?
        init(_ rawValue: String, _ number: Int?) { self.rawValue = rawValue; self.afNetworkingCode = number }

        /// Codes are equal when their names are.
        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        /// The handler's receipt was cancelled (-999, NSURLErrorCancelled).
        public static let cancelled = Code("cancelled", -999)
        /// The request's URI is not absolute (-1000, NSURLErrorBadURL).
        public static let badURL = Code("badURL", -1000)
        /// The fetch (or the decoding inside it) failed; `underlying` is its error.
        public static let fetchFailed = Code("fetchFailed", nil)

        /// "name (number)" or "name".
        public var description: String {
            afNetworkingCode.map { "\(rawValue) (\($0))" } ?? rawValue
        }
    }

    /// The reason.
    public var code: Code
    /// The request's URL with any userinfo removed.
    public var url: String
    /// The fetch's own error, for `fetchFailed`.
    public var underlying: (any Error)?

    /// Creates an error.
    /// - Parameters:
    ///   - code: the reason.
    ///   - url: the URL, userinfo removed.
    ///   - underlying: the fetch's error, if any.
    public init(code: Code, url: String, underlying: (any Error)? = nil) {
        self.code = code
        self.url = url
        self.underlying = underlying
    }

    /// A short text for people; not API.
    public var description: String {
        switch code {
        case .cancelled: return "download of \(url) cancelled"
        case .badURL: return "cannot download \(url): not an absolute URL"
        default: return "download of \(url) failed: \(underlying.map { "\($0)" } ?? "unknown error")"
        }
    }
}

/// The handle `ResourceDownloader.download` returns for one completion handler, for cancelling
/// that handler (AFImageDownloadReceipt).
public struct DownloadReceipt: Hashable, Sendable {
    /// A receipt's identity: unique within the process, so a caller can make one before it asks
    /// for a download and compare it in the completion (what AFNetworking's UIImageView category
    /// does with an NSUUID).
    public struct ID: Hashable, Sendable, CustomStringConvertible {
        private static let counter = Atomic<UInt64>(0)
        let rawValue: UInt64

        /// A new, unique identity.
        public init() {
            rawValue = ID.counter.wrappingAdd(1, ordering: .relaxed).newValue
        }

        /// "receipt 7".
        public var description: String { "receipt \(rawValue)" }
    }

    /// The handler's identity (given to `download` or made by it).
    public let receiptID: ID
    /// The request's URL with any userinfo removed.
    public let url: String
    /// The cache and coalescing key (the URL with userinfo, as AFNetworking keys by
    /// `absoluteString`, and the additional identifier).
    let key: ResourceCacheKey
    /// The coalesced fetch the handler joined.
    let taskID: UInt64
}
