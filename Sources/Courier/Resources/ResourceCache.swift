// ResourceCache: AFImageRequestCache without UIKit — where a ResourceDownloader keeps values, keyed
// by request plus an optional additional identifier (AFNetworking's variants of one URL: the same
// image scaled or filtered two ways). The auto-purging cache is one implementation; any other
// (a disk cache, a cache shared with a UI toolkit) plugs in by conforming.
//
// Also here: the per-request cache policy (NSURLRequestCachePolicy's three useful cases for a
// resource downloader) and two CallbackExecutors (an event loop, an actor) for completion handlers.

import CourierPosix

/// The key a resource is cached under: the request's URI as a string (AFNetworking's
/// `URL.absoluteString`) and the caller's additional identifier, kept apart so no pair of URL and
/// identifier can collide with another.
public struct ResourceCacheKey: Hashable, Sendable, CustomStringConvertible {
    /// The request's URI, as sent (userinfo included, as AFNetworking's absoluteString).
    public var url: String
    /// The additional identifier (AFNetworking's `withAdditionalIdentifier:`), or nil.
    public var identifier: String?

    /// Creates a key.
    /// - Parameters:
    ///   - request: the request; its URI is the key's URL.
    ///   - identifier: the additional identifier.
    public init(_ request: HTTPRequest, identifier: String? = nil) {
        self.url = request.uri.description
        self.identifier = identifier
    }

    /// AFAutoPurgingImageCache's string key: the URL, then the identifier appended (the form a
    /// string-keyed cache stores).
    public var stringValue: String { url + (identifier ?? "") }

    /// The string key.
    public var description: String { stringValue }
}

/// Where a `ResourceDownloader` keeps values (AFImageRequestCache).
public protocol ResourceCache<Value>: Sendable {
    /// The values kept.
    associatedtype Value: Sendable
    /// The value under `key`, or nil (`imageforRequest:withAdditionalIdentifier:`).
    /// - Parameter key: the key.
    /// - Returns: the value.
    func value(for key: ResourceCacheKey) -> Value?
    /// Keeps `value` under `key` (`addImage:forRequest:withAdditionalIdentifier:`).
    /// - Parameters:
    ///   - value: the value.
    ///   - key: the key.
    func add(_ value: Value, for key: ResourceCacheKey)
    /// Removes the value under `key` (`removeImageforRequest:withAdditionalIdentifier:`).
    /// - Parameter key: the key.
    /// - Returns: true when there was one.
    @discardableResult
    func remove(_ key: ResourceCacheKey) -> Bool
    /// Whether a downloaded value should be kept (`shouldCacheImage:forRequest:withAdditionalIdentifier:`);
    /// the default keeps every value.
    /// - Parameters:
    ///   - value: the value just downloaded.
    ///   - request: its request.
    ///   - identifier: the additional identifier.
    /// - Returns: false to deliver the value without keeping it.
    func shouldCache(_ value: Value, for request: HTTPRequest, identifier: String?) -> Bool
}

extension ResourceCache {
    /// Keeps every value (AFAutoPurgingImageCache's answer).
    public func shouldCache(_ value: Value, for request: HTTPRequest, identifier: String?) -> Bool { true }
}

/// An auto-purging cache keyed by strings is a resource cache: the key's `stringValue` (URL, then
/// identifier), as AFAutoPurgingImageCache keys its entries.
extension AutoPurgingCache: ResourceCache where Key == String {
    /// The value under the key's string form.
    public func value(for key: ResourceCacheKey) -> Value? { value(for: key.stringValue) }
    /// Adds under the key's string form.
    public func add(_ value: Value, for key: ResourceCacheKey) { add(value, for: key.stringValue) }
    /// Removes the key's string form.
    @discardableResult
    public func remove(_ key: ResourceCacheKey) -> Bool { remove(key.stringValue) }
}

/// How one download uses the cache (NSURLRequestCachePolicy, the cases a downloader honours).
public enum ResourceCachePolicy: Hashable, Sendable {
    /// Answer from the resource cache when it has the value; else fetch, and the request goes out
    /// as built (HTTP caches along the way apply their own rules). AFNetworking's default,
    /// NSURLRequestUseProtocolCachePolicy.
    case useCache
    /// Never answer from the resource cache; fetch with `Cache-Control: no-cache` (RFC 9111
    /// §5.2.1.4: caches on the way must revalidate) and keep the new value.
    /// NSURLRequestReloadIgnoringLocalCacheData.
    case reloadIgnoringCache
    /// Answer from the resource cache when it can; else fetch with `Cache-Control: max-stale`
    /// (RFC 9111 §5.2.1.2: a stale stored response is acceptable). NSURLRequestReturnCacheDataElseLoad.
    case returnCachedElseLoad
}

/// More executors for callbacks (the type is in SessionTask.swift): an event loop and an actor,
/// the Linux forms of AFNetworking's completion queue.
extension CallbackExecutor {
    /// Runs callbacks on an event loop's thread, in the order they were enqueued. When the loop has
    /// shut down, the callback runs where the result appeared rather than never.
    /// - Parameter loop: the loop.
    /// - Returns: the executor.
    public static func eventLoop(_ loop: EventLoop) -> CallbackExecutor {
        CallbackExecutor { job in if !loop.execute(job) { job() } }
    }

    /// Runs callbacks isolated to `actor` (each in a task of its own, so two callbacks enqueued
    /// together may run in either order).
    /// - Parameter actor: the actor, e.g. `MainActor.shared`.
    /// - Returns: the executor.
    public static func actor(_ actor: any Actor) -> CallbackExecutor {
        CallbackExecutor { job in Task { await actor.runIsolated(job) } }
    }
}

extension Actor {
    /// Runs `body` on this actor.
    fileprivate func runIsolated(_ body: @Sendable () -> Void) { body() }
}
