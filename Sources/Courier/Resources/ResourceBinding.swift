// ResourceBinding: the logic of AFNetworking's UIImageView+AFNetworking and UIButton+AFNetworking
// without UIKit (issue 16). Any consumer object — a GTK widget's owner, a TUI cell, a cache slot —
// is the target; the binding remembers the latest load made for each target and:
//
// - answers from the downloader's cache at once, without a request, when the value is there;
// - otherwise delivers the placeholder at once (before `load` returns), then the value or the error;
// - cancels the target's previous load when a new one starts (its receipt), and never delivers a
//   superseded or cancelled load (AFNetworking compares the receipt's UUID with the active one);
// - does nothing when the same request is already loading for the target.
//
// Where the association lives: AFNetworking hangs the active receipt on the view with
// objc_setAssociatedObject. Swift on Linux has no associated objects, so the binding keeps a table
// keyed by ObjectIdentifier(target) whose entries hold the target WEAKLY, under a Mutex. A binding
// therefore never keeps a target alive; an entry whose target has gone is dropped (and its
// download cancelled) the next time the table changes, and an identifier reused by a new object
// at the same address is told apart because the entry's weak reference no longer matches it.

import Synchronization

/// What a ``ResourceBinding`` delivers to its target.
public enum ResourceBindingUpdate<Value: Sendable>: Sendable {
    /// The placeholder, at once, while the value loads (AFNetworking's `placeholderImage`).
    case placeholder(Value)
    /// The value: from the cache without a request (`fromCache`), or loaded.
    case value(Value, fromCache: Bool)
    /// The load failed (never for a load that was superseded or cancelled).
    case failed(ResourceDownloaderError)
}

/// Ties consumer objects to the latest resource loaded for each (AFNetworking's UIImageView and
/// UIButton categories, without UIKit).
///
/// Updates are given to `apply` with the target: the placeholder and cached values on the caller's
/// thread during ``load(_:identifier:cachePolicy:placeholder:into:)``, loaded values and failures on
/// the downloader's callback executor. A target that must be touched on one thread (a UI toolkit's
/// main thread) is a `@MainActor` class, which is `Sendable`; choose a downloader whose executor is
/// that thread's and use `MainActor.assumeIsolated` in `apply`.
public final class ResourceBinding<Target: AnyObject & Sendable, Value: Sendable>: Sendable {
    /// Receives each update for a target.
    public typealias Apply = @Sendable (Target, ResourceBindingUpdate<Value>) -> Void

    /// The downloader (and through it the cache) loads go through.
    public let downloader: ResourceDownloader<Value>
    private let apply: Apply
    private let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    private struct Entry: Sendable {
        weak var target: Target?
        var receiptID: DownloadReceipt.ID
        var key: ResourceCacheKey
        var receipt: DownloadReceipt?
    }

    /// What a new load finds for its target.
    private enum Previous: Sendable {
        case none
        case same(DownloadReceipt)
        case superseded(DownloadReceipt?)
    }

    /// Creates a binding.
    /// - Parameters:
    ///   - downloader: loads values and holds the cache (AFNetworking's shared image downloader).
    ///   - apply: receives every update for a target.
    public init(downloader: ResourceDownloader<Value>, apply: @escaping Apply) {
        self.downloader = downloader
        self.apply = apply
    }

    /// Loads the resource `request` names into `target` (AFNetworking's
    /// `setImageWithURLRequest:placeholderImage:success:failure:`).
    ///
    /// A nil request cancels the target's load and delivers the placeholder. A cached value is
    /// delivered at once and nothing is requested. Otherwise the placeholder (if any) is delivered
    /// at once, the target's previous load is cancelled, and the value or the error follows.
    /// - Parameters:
    ///   - request: the request, or nil for none.
    ///   - identifier: the downloader's additional identifier (a variant of the URL).
    ///   - cachePolicy: how the cache is used (default `.useCache`).
    ///   - placeholder: delivered at once when the value is not cached.
    ///   - target: the consumer object; held weakly.
    /// - Returns: the receipt of the load now running for the target, or nil when none runs (no
    ///   request, answered from the cache, or already finished).
    @discardableResult
    public func load(_ request: HTTPRequest?, identifier: String? = nil, cachePolicy: ResourceCachePolicy = .useCache,
                     placeholder: Value? = nil, into target: Target) -> DownloadReceipt? {
        let id = ObjectIdentifier(target)
        guard let request else {
            cancelLoad(for: target)
            if let placeholder { apply(target, .placeholder(placeholder)) }
            return nil
        }
        let key = ResourceCacheKey(request, identifier: identifier)
        var orphaned: [DownloadReceipt] = []
        let previous = entries.withLock { table -> Previous in
            orphaned = Self.prune(&table)
            guard let entry = table[id], entry.target === target else { return .none }
            if entry.key == key, cachePolicy != .reloadIgnoringCache, let receipt = entry.receipt { return .same(receipt) }
            table[id] = nil
            return .superseded(entry.receipt)
        }
        for receipt in orphaned { downloader.cancel(receipt) }
        switch previous {
        case .same(let receipt): return receipt
        case .superseded(let receipt): if let receipt { downloader.cancel(receipt) }
        case .none: break
        }
        if cachePolicy != .reloadIgnoringCache, let cached = downloader.cache?.value(for: key) {
            apply(target, .value(cached, fromCache: true))
            return nil
        }
        if let placeholder { apply(target, .placeholder(placeholder)) }
        let receiptID = DownloadReceipt.ID()
        entries.withLock { $0[id] = Entry(target: target, receiptID: receiptID, key: key, receipt: nil) }
        let apply = self.apply
        let receipt = downloader.download(request, identifier: identifier, cachePolicy: cachePolicy, receiptID: receiptID) {
            [weak target] result in
            // Only the target's current load is delivered; a superseded one is not.
            guard self.finish(id, receiptID), let target else { return }
            switch result {
            case .success(let value): apply(target, .value(value, fromCache: false))
            case .failure(let error): apply(target, .failed(error))
            }
        }
        if let receipt {
            entries.withLock { table in
                if table[id]?.receiptID == receiptID { table[id]?.receipt = receipt }
            }
        }
        return receipt
    }

    /// Cancels the target's load, if one runs; nothing is delivered for it (AFNetworking's
    /// `cancelImageDownloadTask`).
    /// - Parameter target: the target.
    public func cancelLoad(for target: Target) {
        let receipt = entries.withLock { table -> DownloadReceipt? in
            guard let entry = table[ObjectIdentifier(target)], entry.target === target else { return nil }
            table[ObjectIdentifier(target)] = nil
            return entry.receipt
        }
        if let receipt { downloader.cancel(receipt) }
    }

    /// The receipt of the load running for `target`, if any (AFNetworking's
    /// `af_activeImageDownloadReceipt`).
    /// - Parameter target: the target.
    /// - Returns: the receipt, or nil.
    public func activeReceipt(for target: Target) -> DownloadReceipt? {
        entries.withLock { table in
            guard let entry = table[ObjectIdentifier(target)], entry.target === target else { return nil }
            return entry.receipt
        }
    }

    /// How many targets have a load running, counting only targets still alive.
    public var activeTargetCount: Int {
        entries.withLock { table in table.values.filter { $0.target != nil }.count }
    }

    /// How many entries the table holds, dead targets included until the next change prunes them
    /// (for tests that check that nothing is kept).
    public var tableSize: Int { entries.withLock { $0.count } }

    /// Removes the entry when it is still `receiptID`'s; whether it was.
    private func finish(_ id: ObjectIdentifier, _ receiptID: DownloadReceipt.ID) -> Bool {
        entries.withLock { table in
            guard table[id]?.receiptID == receiptID else { return false }
            table[id] = nil
            return true
        }
    }

    /// Drops the entries whose target is gone; their receipts, to cancel outside the lock.
    private static func prune(_ table: inout [ObjectIdentifier: Entry]) -> [DownloadReceipt] {
        var orphaned: [DownloadReceipt] = []
        for (id, entry) in table where entry.target == nil {
            if let receipt = entry.receipt { orphaned.append(receipt) }
            table[id] = nil
        }
        return orphaned
    }
}
