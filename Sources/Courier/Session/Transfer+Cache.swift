// Transfer+Cache: where a task meets the session's HTTP cache (issue 13: retry → redirects →
// cookies → cache → proxy/connect → the exchange). Each hop's request, as it will be sent (the
// jar's cookies and Accept-Encoding added), is looked up before a connection is leased:
//
//   serve       the stored response goes to the sink; no connection is used     (event hit)
//   validate    the request goes out with If-None-Match / If-Modified-Since;
//               a 304 that selects the stored response updates its head and the
//               stored body is served                                            (revalidated)
//   fetch       the request goes out as it is                                    (miss)
//   unsatisfiable  only-if-cached / returnCacheDataDontLoad with nothing usable:
//               `.cacheMiss`, nothing sent                                       (miss)
//
// A final response that may be stored streams into the cache while it streams to the sink (a
// tee: nothing is buffered whole; the entry appears when the body ended, before the task
// completes). A response to an unsafe method with a 2xx or 3xx invalidates the URI and a
// same-origin Location / Content-Location. The rules themselves are CourierCache's.

import CourierBytes
import CourierCache
import CourierHTTP1
import CourierPosix
import CourierURL

/// One hop's dealings with the cache, carried from the lookup to the response.
struct CacheContext: Sendable {
    let cache: HTTPCache
    let key: HTTPCache.Key
    /// The request as sent (with any conditional fields), for Vary records.
    var sentHeaders: HTTPHeaders
    /// The stored variant being validated, when the request is conditional because of the cache.
    var validating: HTTPCache.Variant?
    /// Variants of the same key and Vary values, replaced by a newly stored response.
    var replacing: [String]
    /// When the request went out (the cache's clock).
    var requestTime: Int64
}

extension Transfer {
    enum CacheLookup: Sendable {
        case served(TransferOutcome)
        case proceed(HTTPRequest, CacheContext?)
    }

    /// Looks the hop's request up. `sent` carries the jar's cookies; `request` is the caller's.
    func consultCache(_ sent: HTTPRequest, request: HTTPRequest, sink: some ResponseSink,
                      unconditional: Bool) async throws(SessionError) -> CacheLookup {
        guard let cache = configuration.cache else {
            if request.cachePolicy == .returnCacheDataDontLoad {
                let error = SessionError(.cacheMiss, "the request may not be sent (returnCacheDataDontLoad) and there is no cache",
                                         url: request.uri.redactedDescription)
                await sink.abort(error, begun: false)
                throw error
            }
            return .proceed(sent, nil)
        }
        let method = sent.method.rawValue
        let key = cache.key(for: sent.uri, headers: sent.headers)
        let now = cache.clock()
        guard method == "GET" || method == "HEAD" else {
            return .proceed(sent, CacheContext(cache: cache, key: key, sentHeaders: sent.headers, validating: nil, replacing: [],
                                               requestTime: now))
        }
        let variants = await cache.variants(for: key)
        var decision = CacheRules.decide(method: method, requestHeaders: sent.headers, variants: variants.map(\.head),
                                         urlHasQuery: key.hasQuery, policy: request.cachePolicy, now: now)
        if unconditional, case .validate = decision { decision = .fetch }
        if method == "HEAD", case .validate = decision { decision = .fetch }
        let sameVariant = variants.filter { CacheRules.matches($0.head, request: sent.headers) }.map(\.id)
        var context = CacheContext(cache: cache, key: key, sentHeaders: sent.headers, validating: nil, replacing: sameVariant,
                                   requestTime: now)
        switch decision {
        case .serve(let index, let age):
            if let outcome = try await serveStored(variants[index], age: age, cache: cache, request: sent, sink: sink) {
                recordCache(.hit)
                return .served(outcome)
            }
            // The disk entry was corrupt or truncated: removed, and the request goes out.
            recordCache(.miss)
            return .proceed(sent, context)
        case .validate(let index, let conditions):
            var conditional = sent
            for field in conditions { conditional.headers.add(name: field.name, value: field.value ?? "") }
            context.validating = variants[index]
            context.sentHeaders = conditional.headers
            return .proceed(conditional, context)
        case .fetch:
            recordCache(.miss)
            return .proceed(sent, context)
        case .unsatisfiable:
            recordCache(.miss)
            let error = SessionError(.cacheMiss, "the response is not in the cache and the request may not be sent (504 Gateway Timeout)",
                                     url: request.uri.redactedDescription)
            await sink.abort(error, begun: false)
            throw error
        }
    }

    func recordCache(_ event: CacheEvent) {
        core.emit(.cache(event))
        metrics.update { $0.cacheEvents.append(event) }
    }

    /// Serves a stored response to the sink; nil when its disk body turned out unusable (the
    /// entry is removed and nothing reached the sink).
    /// `abortsSink`: false inside an exchange, whose own failure path tells the sink.
    func serveStored(_ variant: HTTPCache.Variant, age: Int64, cache: HTTPCache, request: HTTPRequest,
                     sink: some ResponseSink, abortsSink: Bool = true) async throws(SessionError) -> TransferOutcome? {
        let head = variant.head
        let isHead = request.method.rawValue == "HEAD"
        var file: File?
        if variant.body == nil, !isHead, head.bodyLength > 0 {
            guard let opened = await cache.openDiskBody(variant.id, length: head.bodyLength) else { return nil }
            file = opened
        }
        cache.touch(variant.id)
        let headers = CacheRules.servedFields(head, age: age)
        let responseHead = HTTPResponseHead(version: .http1_1, status: head.status, reason: head.reason, headers: headers)
        core.emit(.responseHead(responseHead))
        let url = request.uri.redactedDescription
        do throws(SessionError) {
            if core.hasObserver { await core.callbacksDrained() }
            try await sink.begin(responseHead, request: request)
            let total = isHead ? 0 : head.bodyLength
            core.reportDownload(TransferProgress(completed: 0, total: total))
            var delivered: UInt64 = 0
            if !isHead, let body = variant.body, body.readableBytes > 0 {
                try await sink.write(body)
                delivered = UInt64(body.readableBytes)
            } else if let file {
                while delivered < total {
                    try checkCancelledServing(url)
                    try await core.waitWhileSuspended()
                    let piece: ByteBuffer
                    do { piece = try await cache.readDiskBody(file, at: delivered) } catch {
                        var failure = SessionError(.fileReadFailed, "reading the cached body failed: \(error)", url: url)
                        failure.errno = error
                        throw failure
                    }
                    guard piece.readableBytes > 0 else {
                        throw SessionError(.fileReadFailed, "the cached body ended early", url: url)
                    }
                    try await sink.write(piece)
                    delivered += UInt64(piece.readableBytes)
                    core.reportDownload(TransferProgress(completed: delivered, total: total))
                }
            }
            if let file { await cache.closeDiskBody(file) }
            file = nil
            metrics.update { $0.bytesReceived = delivered }
            core.reportDownload(TransferProgress(completed: delivered, total: total))
            try await sink.finish()
        } catch {
            if let file { await cache.closeDiskBody(file) }
            if abortsSink { await sink.abort(error, begun: true) }
            throw error
        }
        return TransferOutcome(head: responseHead, request: request)
    }

    private func checkCancelledServing(_ url: String) throws(SessionError) {
        if core.isCancelled || Task.isCancelled {
            throw deadline?.error ?? SessionError(.cancelled, "the task was cancelled", url: url)
        }
    }

    /// Invalidation after a response head (RFC 9111 §4.4): an unsafe method with a 2xx or 3xx
    /// removes the URI and a same-origin Location / Content-Location.
    func invalidateIfUnsafe(_ context: CacheContext, request: HTTPRequest, status: Int, headers: HTTPHeaders) async {
        guard CacheRules.invalidates(method: request.method.rawValue, status: status) else { return }
        await context.cache.invalidate(uri: request.uri)
        for name in ["Location", "Content-Location"] {
            guard let value = headers.first(name: name), !value.isEmpty,
                  let target = try? request.uri.resolving(URI.escapingInvalidBytes(value)).removingFragment,
                  target.scheme == request.uri.scheme, target.host?.text == request.uri.host?.text,
                  target.effectivePort == request.uri.effectivePort else { continue }
            await context.cache.invalidate(uri: target)
        }
    }

    /// The sink a storable final response goes through, or nil to deliver it as it is.
    func cachingWriter(_ context: CacheContext, request: HTTPRequest, head response: HTTPResponseHead) async -> CacheWriter? {
        guard CacheRules.isStorable(method: request.method.rawValue, requestHeaders: context.sentHeaders, status: response.status,
                                    responseHeaders: response.headers) else { return nil }
        let now = context.cache.clock()
        let head = CachedResponseHead(status: response.status, reason: response.reason, headers: CacheRules.storedFields(response.headers),
                                      requestTime: context.requestTime, responseTime: now,
                                      vary: CacheRules.varyRecord(response: response.headers, request: context.sentHeaders))
        var replacing = context.replacing
        if let validating = context.validating, !replacing.contains(validating.id) { replacing.append(validating.id) }
        return await context.cache.makeWriter(key: context.key, head: head, replacing: replacing)
    }

    /// A 304 answering the cache's own validation: the stored head is updated and its body served.
    /// Nil when the 304 does not select the stored response (it is removed; the caller sends the
    /// request again without conditions).
    func answerNotModified(_ context: CacheContext, variant: HTTPCache.Variant, headers: HTTPHeaders, request: HTTPRequest,
                           sink: some ResponseSink) async throws(SessionError) -> TransferOutcome? {
        let cache = context.cache
        guard CacheRules.notModifiedSelects(variant.head, headers) else {
            await cache.removeEntry(variant.id)
            return nil
        }
        let now = cache.clock()
        let updated = CacheRules.updated(variant.head, with: CacheRules.storedFields(headers), requestTime: context.requestTime,
                                         responseTime: now)
        await cache.update(variant.id, head: updated)
        var refreshed = variant
        refreshed.head = updated
        let age = CacheFreshness.currentAge(of: updated, now: now)
        // The caller's request, without the cache's conditional fields.
        var original = request
        original.headers.remove(name: "If-None-Match")
        original.headers.remove(name: "If-Modified-Since")
        guard let outcome = try await serveStored(refreshed, age: age, cache: cache, request: original, sink: sink,
                                                  abortsSink: false) else { return nil }
        recordCache(.revalidated)
        return outcome
    }
}

/// Passes a response to the task's sink and into the cache at once. The entry is committed when
/// the body ended, before the sink finishes (so it is there when the task completes); any
/// failure discards it.
struct CachingSink<Inner: ResponseSink>: ResponseSink {
    let inner: Inner
    let writer: CacheWriter
    let stored: @Sendable () -> Void

    func begin(_ head: HTTPResponseHead, request: HTTPRequest) async throws(SessionError) {
        do throws(SessionError) { try await inner.begin(head, request: request) } catch {
            await writer.discard()
            throw error
        }
    }

    func write(_ bytes: ByteBuffer) async throws(SessionError) {
        do throws(SessionError) { try await inner.write(bytes) } catch {
            await writer.discard()
            throw error
        }
        await writer.append(bytes)
    }

    func finish() async throws(SessionError) {
        if await writer.commit() { stored() }
        try await inner.finish()
    }

    func abort(_ error: SessionError, begun: Bool) async {
        await writer.discard()
        await inner.abort(error, begun: begun)
    }
}
