// The rest of SessionConfiguration's plain parts as Codable: name resolution and routing
// (`resolveOverrides`, `connectTo`, `unixSocket`, `localBinding`), the decoder's and the parser's
// limits, and the retry policy. Each is written in its fields' own words, so a settings file
// reads as the configuration does:
//
//   "resolveOverrides": [{"host": "example.com", "port": 443, "addresses": ["127.0.0.1", "::1"]}],
//   "connectTo": [{"host": "example.com", "port": null, "targetHost": "10.0.0.2", "targetPort": 8443}],
//   "unixSocket": {"name": "/run/app.sock", "isAbstract": false},
//   "localBinding": {"interface": "eth0", "ports": [40000, 40100]},
//   "retryPolicy": {"maximumRetries": 2, "backoff": {"kind": "fullJitter", "base": …, "cap": …}, …}
//
// Values the types' initialisers would trap on (a zero piece size, an empty address list, a port
// range upside down, an unknown backoff) are decoding errors naming the field instead: a settings
// file is input, and input never traps. The retry policy's clock and random source are test hooks
// (package), not settings, and are not encoded.

import CourierCompression
import CourierHTTP1
import CourierPosix

extension SessionConfiguration {
    private struct CodedResolveOverride: Codable {
        var host: String
        var port: UInt16
        var addresses: [String]
    }

    private struct CodedConnectTo: Codable {
        var host: String?
        var port: UInt16?
        var targetHost: String?
        var targetPort: UInt16?
    }

    private struct CodedUnixSocket: Codable {
        var name: String
        var isAbstract: Bool
    }

    private struct CodedLocalBinding: Codable {
        var interface: String?
        var host: String?
        var interfaceOrHost: String?
        var ports: [UInt16]?
    }

    private struct CodedDecompressionLimits: Codable {
        var maximumDecodedSize: UInt64?
        var maximumRatio: UInt64?
        var ratioGraceSize: UInt64
        var maximumCodings: Int
        var pieceSize: Int
    }

    private struct CodedParserLimits: Codable {
        var maxHeadSize: Int
        var maxFieldCount: Int
        var maxInterimResponses: Int
        var maxChunkSizeDigits: Int
        var maxChunkExtensionsSize: Int
        var maxTrailerSize: Int
    }

    private struct CodedBackoff: Codable {
        var kind: String
        var base: CodedDuration?
        var cap: CodedDuration?
        var delay: CodedDuration?
    }

    private struct CodedBudget: Codable {
        var maximumTokens: Double
        var tokenRatio: Double
    }

    private struct CodedRetryPolicy: Codable {
        var maximumRetries: Int
        var backoff: CodedBackoff
        var maximumRetryAfter: CodedDuration?
        var maximumTime: CodedDuration?
        var methods: [String]
        var retriesWithIdempotencyKey: Bool
        var retriesAnyMethod: Bool
        var statuses: [Int]
        var retriesConnectFailures: Bool
        var retriesResolutionFailures: Bool
        var retriesConnectionRefused: Bool
        var retriesTimeouts: Bool
        var retriesResets: Bool
        var retriesAllErrors: Bool
        var budget: CodedBudget?
    }

    /// Decodes the routing, limit and retry parts; absent keys keep the current values.
    mutating func decodeNetworkParts(from c: KeyedDecodingContainer<CodingKeys>) throws {
        func corrupt(_ key: CodingKeys, _ text: String) -> DecodingError {
            DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: text)
        }
        if let coded = try c.decodeIfPresent([CodedResolveOverride].self, forKey: .resolveOverrides) {
            resolveOverrides = try coded.map { entry -> ResolveOverride in
                let addresses = entry.addresses.compactMap { IPAddress($0) }
                guard !addresses.isEmpty, addresses.count == entry.addresses.count else {
                    throw corrupt(.resolveOverrides, "\(entry.host): addresses must be one or more IP addresses (\(entry.addresses))")
                }
                return ResolveOverride(host: entry.host, port: entry.port, addresses: addresses)
            }
        }
        if let coded = try c.decodeIfPresent([CodedConnectTo].self, forKey: .connectTo) {
            connectTo = coded.map { ConnectToOverride(host: $0.host, port: $0.port, targetHost: $0.targetHost, targetPort: $0.targetPort) }
        }
        if c.contains(.unixSocket) {
            unixSocket = try c.decodeOptional(CodedUnixSocket.self, forKey: .unixSocket, keeping: nil).map {
                $0.isAbstract ? UnixSocketAddress(abstractName: $0.name) : UnixSocketAddress(path: $0.name)
            }
        }
        if c.contains(.localBinding) {
            localBinding = try c.decodeOptional(CodedLocalBinding.self, forKey: .localBinding, keeping: nil).map { coded -> LocalBinding in
                let named: [LocalBinding.Source?] = [coded.interface.map { .interface($0) }, coded.host.map { .host($0) },
                                                     coded.interfaceOrHost.map { .interfaceOrHost($0) }]
                let sources = named.compactMap { $0 }
                guard sources.count <= 1 else { throw corrupt(.localBinding, "at most one of interface, host, interfaceOrHost") }
                var ports: ClosedRange<UInt16>?
                if let pair = coded.ports {
                    guard pair.count == 2, pair[0] <= pair[1] else {
                        throw corrupt(.localBinding, "ports must be [first, last] with first <= last (\(pair))")
                    }
                    ports = pair[0]...pair[1]
                }
                return LocalBinding(source: sources.first, ports: ports)
            }
        }
        if let coded = try c.decodeIfPresent(CodedDecompressionLimits.self, forKey: .decompressionLimits) {
            guard coded.pieceSize >= 1, coded.maximumCodings >= 0 else {
                throw corrupt(.decompressionLimits, "pieceSize must be at least 1 and maximumCodings not negative")
            }
            decompressionLimits = DecompressionLimits(maximumDecodedSize: coded.maximumDecodedSize, maximumRatio: coded.maximumRatio,
                                                      ratioGraceSize: coded.ratioGraceSize, maximumCodings: coded.maximumCodings,
                                                      pieceSize: coded.pieceSize)
        }
        if let coded = try c.decodeIfPresent(CodedParserLimits.self, forKey: .parserLimits) {
            guard coded.maxHeadSize > 0, coded.maxFieldCount >= 0, coded.maxInterimResponses >= 0, coded.maxChunkSizeDigits > 0,
                  coded.maxChunkExtensionsSize >= 0, coded.maxTrailerSize > 0 else {
                throw corrupt(.parserLimits, "maxHeadSize, maxChunkSizeDigits and maxTrailerSize must be positive, the others not negative")
            }
            parserLimits = HTTP1ParserLimits(maxHeadSize: coded.maxHeadSize, maxFieldCount: coded.maxFieldCount,
                                             maxInterimResponses: coded.maxInterimResponses, maxChunkSizeDigits: coded.maxChunkSizeDigits,
                                             maxChunkExtensionsSize: coded.maxChunkExtensionsSize, maxTrailerSize: coded.maxTrailerSize)
        }
        if c.contains(.retryPolicy) {
            retryPolicy = try c.decodeOptional(CodedRetryPolicy.self, forKey: .retryPolicy, keeping: nil).map { coded -> RetryPolicy in
                var policy = RetryPolicy()
                policy.maximumRetries = coded.maximumRetries
                switch (coded.backoff.kind, coded.backoff.base, coded.backoff.cap, coded.backoff.delay) {
                case ("fullJitter", let base?, let cap?, nil): policy.backoff = .fullJitter(base: base.duration, cap: cap.duration)
                case ("exponential", let base?, let cap?, nil): policy.backoff = .exponential(base: base.duration, cap: cap.duration)
                case ("constant", nil, nil, let delay?): policy.backoff = .constant(delay.duration)
                default:
                    throw corrupt(.retryPolicy, "backoff must be {kind: fullJitter|exponential, base, cap} or {kind: constant, delay}")
                }
                policy.maximumRetryAfter = coded.maximumRetryAfter?.duration
                policy.maximumTime = coded.maximumTime?.duration
                policy.methods = Set(coded.methods)
                policy.retriesWithIdempotencyKey = coded.retriesWithIdempotencyKey
                policy.retriesAnyMethod = coded.retriesAnyMethod
                policy.statuses = Set(coded.statuses)
                policy.retriesConnectFailures = coded.retriesConnectFailures
                policy.retriesResolutionFailures = coded.retriesResolutionFailures
                policy.retriesConnectionRefused = coded.retriesConnectionRefused
                policy.retriesTimeouts = coded.retriesTimeouts
                policy.retriesResets = coded.retriesResets
                policy.retriesAllErrors = coded.retriesAllErrors
                policy.budget = coded.budget.map { RetryBudget(maximumTokens: $0.maximumTokens, tokenRatio: $0.tokenRatio) }
                return policy
            }
        }
    }

    /// Encodes the routing, limit and retry parts.
    func encodeNetworkParts(to c: inout KeyedEncodingContainer<CodingKeys>) throws {
        try c.encode(resolveOverrides.map { CodedResolveOverride(host: $0.host, port: $0.port, addresses: $0.addresses.map(\.description)) },
                     forKey: .resolveOverrides)
        try c.encode(connectTo.map { CodedConnectTo(host: $0.host, port: $0.port, targetHost: $0.targetHost, targetPort: $0.targetPort) },
                     forKey: .connectTo)
        try c.encodeOptional(unixSocket.map { CodedUnixSocket(name: $0.name, isAbstract: $0.isAbstract) }, forKey: .unixSocket)
        try c.encodeOptional(localBinding.map { binding -> CodedLocalBinding in
            var coded = CodedLocalBinding(ports: binding.ports.map { [$0.lowerBound, $0.upperBound] })
            switch binding.source {
            case .interface(let name)?: coded.interface = name
            case .host(let name)?: coded.host = name
            case .interfaceOrHost(let name)?: coded.interfaceOrHost = name
            case nil: break
            }
            return coded
        }, forKey: .localBinding)
        let limits = decompressionLimits
        try c.encode(CodedDecompressionLimits(maximumDecodedSize: limits.maximumDecodedSize, maximumRatio: limits.maximumRatio,
                                              ratioGraceSize: limits.ratioGraceSize, maximumCodings: limits.maximumCodings,
                                              pieceSize: limits.pieceSize), forKey: .decompressionLimits)
        let parser = parserLimits
        try c.encode(CodedParserLimits(maxHeadSize: parser.maxHeadSize, maxFieldCount: parser.maxFieldCount,
                                       maxInterimResponses: parser.maxInterimResponses, maxChunkSizeDigits: parser.maxChunkSizeDigits,
                                       maxChunkExtensionsSize: parser.maxChunkExtensionsSize, maxTrailerSize: parser.maxTrailerSize),
                     forKey: .parserLimits)
        try c.encodeOptional(retryPolicy.map { policy -> CodedRetryPolicy in
            let backoff: CodedBackoff
            switch policy.backoff {
            case .fullJitter(let base, let cap): backoff = CodedBackoff(kind: "fullJitter", base: CodedDuration(base), cap: CodedDuration(cap))
            case .exponential(let base, let cap): backoff = CodedBackoff(kind: "exponential", base: CodedDuration(base), cap: CodedDuration(cap))
            case .constant(let delay): backoff = CodedBackoff(kind: "constant", delay: CodedDuration(delay))
            }
            return CodedRetryPolicy(maximumRetries: policy.maximumRetries, backoff: backoff,
                                    maximumRetryAfter: policy.maximumRetryAfter.map(CodedDuration.init),
                                    maximumTime: policy.maximumTime.map(CodedDuration.init), methods: policy.methods.sorted(),
                                    retriesWithIdempotencyKey: policy.retriesWithIdempotencyKey, retriesAnyMethod: policy.retriesAnyMethod,
                                    statuses: policy.statuses.sorted(), retriesConnectFailures: policy.retriesConnectFailures,
                                    retriesResolutionFailures: policy.retriesResolutionFailures,
                                    retriesConnectionRefused: policy.retriesConnectionRefused, retriesTimeouts: policy.retriesTimeouts,
                                    retriesResets: policy.retriesResets, retriesAllErrors: policy.retriesAllErrors,
                                    budget: policy.budget.map { CodedBudget(maximumTokens: $0.maximumTokens, tokenRatio: $0.tokenRatio) })
        }, forKey: .retryPolicy)
    }
}
