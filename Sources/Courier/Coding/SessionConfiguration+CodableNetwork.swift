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
    struct CodedResolveOverride: Codable {
        var host: String
        var port: UInt16
        var addresses: [String]
    }

    struct CodedConnectTo: Codable {
        var host: String?
        var port: UInt16?
        var targetHost: String?
        var targetPort: UInt16?
    }

    struct CodedUnixSocket: Codable {
        var name: String
        var isAbstract: Bool
    }

    struct CodedLocalBinding: Codable {
        var interface: String?
        var host: String?
        var interfaceOrHost: String?
        var ports: [UInt16]?
    }

    struct CodedDecompressionLimits: Codable {
        var maximumDecodedSize: UInt64?
        var maximumRatio: UInt64?
        var ratioGraceSize: UInt64
        var maximumCodings: Int
        var pieceSize: Int
    }

    struct CodedParserLimits: Codable {
        var maxHeadSize: Int
        var maxFieldCount: Int
        var maxInterimResponses: Int
        var maxChunkSizeDigits: Int
        var maxChunkExtensionsSize: Int
        var maxTrailerSize: Int
    }

    struct CodedBackoff: Codable {
        var kind: String
        var base: CodedDuration?
        var cap: CodedDuration?
        var delay: CodedDuration?
    }

    struct CodedBudget: Codable {
        var maximumTokens: Double
        var tokenRatio: Double
    }

    struct CodedRetryPolicy: Codable {
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

    /// The routing, limit and retry fields, one line each (`codedFields` ends with them).
    static var networkFields: [CodedField] {
        [
            .mapped(.resolveOverrides, \.resolveOverrides, write: { $0.map(CodedResolveOverride.init(_:)) },
                    read: { entries throws(CodedField.Refusal) in try entries.map(ResolveOverride.init(coded:)) }),
            .mapped(.connectTo, \.connectTo, write: { $0.map(CodedConnectTo.init(_:)) }, read: { $0.map(ConnectToOverride.init(coded:)) }),
            .optionalMapped(.unixSocket, \.unixSocket, write: CodedUnixSocket.init(_:), read: UnixSocketAddress.init(coded:)),
            .optionalMapped(.localBinding, \.localBinding, write: CodedLocalBinding.init(_:), read: LocalBinding.init(coded:)),
            .mapped(.decompressionLimits, \.decompressionLimits, write: CodedDecompressionLimits.init(_:), read: DecompressionLimits.init(coded:)),
            .mapped(.parserLimits, \.parserLimits, write: CodedParserLimits.init(_:), read: HTTP1ParserLimits.init(coded:)),
            .optionalMapped(.retryPolicy, \.retryPolicy, write: CodedRetryPolicy.init(_:), read: RetryPolicy.init(coded:)),
        ]
    }
}

// The conversions between each part and its coded form: the coded form's `init(_:)` writes, the
// part's `init(coded:)` reads and refuses what the part's own initialiser would trap on.

extension SessionConfiguration.CodedResolveOverride {
    init(_ entry: ResolveOverride) { self.init(host: entry.host, port: entry.port, addresses: entry.addresses.map(\.description)) }
}

extension ResolveOverride {
    fileprivate init(coded entry: SessionConfiguration.CodedResolveOverride) throws(SessionConfiguration.CodedField.Refusal) {
        let addresses = entry.addresses.compactMap { IPAddress($0) }
        guard !addresses.isEmpty, addresses.count == entry.addresses.count else {
            throw .init("\(entry.host): addresses must be one or more IP addresses (\(entry.addresses))")
        }
        self.init(host: entry.host, port: entry.port, addresses: addresses)
    }
}

extension SessionConfiguration.CodedConnectTo {
    init(_ entry: ConnectToOverride) { self.init(host: entry.host, port: entry.port, targetHost: entry.targetHost, targetPort: entry.targetPort) }
}

extension ConnectToOverride {
    fileprivate init(coded entry: SessionConfiguration.CodedConnectTo) {
        self.init(host: entry.host, port: entry.port, targetHost: entry.targetHost, targetPort: entry.targetPort)
    }
}

extension SessionConfiguration.CodedUnixSocket {
    init(_ socket: UnixSocketAddress) { self.init(name: socket.name, isAbstract: socket.isAbstract) }
}

extension UnixSocketAddress {
    fileprivate init(coded: SessionConfiguration.CodedUnixSocket) {
        self = coded.isAbstract ? UnixSocketAddress(abstractName: coded.name) : UnixSocketAddress(path: coded.name)
    }
}

extension SessionConfiguration.CodedLocalBinding {
    init(_ binding: LocalBinding) {
        self.init(ports: binding.ports.map { [$0.lowerBound, $0.upperBound] })
        switch binding.source {
        case .interface(let name)?: interface = name
        case .host(let name)?: host = name
        case .interfaceOrHost(let name)?: interfaceOrHost = name
        case nil: break
        }
    }
}

extension LocalBinding {
    fileprivate init(coded: SessionConfiguration.CodedLocalBinding) throws(SessionConfiguration.CodedField.Refusal) {
        let named: [LocalBinding.Source?] = [coded.interface.map { .interface($0) }, coded.host.map { .host($0) },
                                             coded.interfaceOrHost.map { .interfaceOrHost($0) }]
        let sources = named.compactMap { $0 }
        guard sources.count <= 1 else { throw .init("at most one of interface, host, interfaceOrHost") }
        var ports: ClosedRange<UInt16>?
        if let pair = coded.ports {
            guard pair.count == 2, pair[0] <= pair[1] else { throw .init("ports must be [first, last] with first <= last (\(pair))") }
            ports = pair[0]...pair[1]
        }
        self.init(source: sources.first, ports: ports)
    }
}

extension SessionConfiguration.CodedDecompressionLimits {
    init(_ limits: DecompressionLimits) {
        self.init(maximumDecodedSize: limits.maximumDecodedSize, maximumRatio: limits.maximumRatio, ratioGraceSize: limits.ratioGraceSize,
                  maximumCodings: limits.maximumCodings, pieceSize: limits.pieceSize)
    }
}

extension DecompressionLimits {
    fileprivate init(coded: SessionConfiguration.CodedDecompressionLimits) throws(SessionConfiguration.CodedField.Refusal) {
        guard coded.pieceSize >= 1, coded.maximumCodings >= 0 else {
            throw .init("pieceSize must be at least 1 and maximumCodings not negative")
        }
        self.init(maximumDecodedSize: coded.maximumDecodedSize, maximumRatio: coded.maximumRatio, ratioGraceSize: coded.ratioGraceSize,
                  maximumCodings: coded.maximumCodings, pieceSize: coded.pieceSize)
    }
}

extension SessionConfiguration.CodedParserLimits {
    init(_ parser: HTTP1ParserLimits) {
        self.init(maxHeadSize: parser.maxHeadSize, maxFieldCount: parser.maxFieldCount, maxInterimResponses: parser.maxInterimResponses,
                  maxChunkSizeDigits: parser.maxChunkSizeDigits, maxChunkExtensionsSize: parser.maxChunkExtensionsSize,
                  maxTrailerSize: parser.maxTrailerSize)
    }
}

extension HTTP1ParserLimits {
    fileprivate init(coded: SessionConfiguration.CodedParserLimits) throws(SessionConfiguration.CodedField.Refusal) {
        guard coded.maxHeadSize > 0, coded.maxFieldCount >= 0, coded.maxInterimResponses >= 0, coded.maxChunkSizeDigits > 0,
              coded.maxChunkExtensionsSize >= 0, coded.maxTrailerSize > 0 else {
            throw .init("maxHeadSize, maxChunkSizeDigits and maxTrailerSize must be positive, the others not negative")
        }
        self.init(maxHeadSize: coded.maxHeadSize, maxFieldCount: coded.maxFieldCount, maxInterimResponses: coded.maxInterimResponses,
                  maxChunkSizeDigits: coded.maxChunkSizeDigits, maxChunkExtensionsSize: coded.maxChunkExtensionsSize,
                  maxTrailerSize: coded.maxTrailerSize)
    }
}

extension SessionConfiguration.CodedRetryPolicy {
    init(_ policy: RetryPolicy) {
        let backoff: SessionConfiguration.CodedBackoff
        switch policy.backoff {
        case .fullJitter(let base, let cap): backoff = .init(kind: "fullJitter", base: CodedDuration(base), cap: CodedDuration(cap))
        case .exponential(let base, let cap): backoff = .init(kind: "exponential", base: CodedDuration(base), cap: CodedDuration(cap))
        case .constant(let delay): backoff = .init(kind: "constant", delay: CodedDuration(delay))
        }
        self.init(maximumRetries: policy.maximumRetries, backoff: backoff,
                  maximumRetryAfter: policy.maximumRetryAfter.map(CodedDuration.init),
                  maximumTime: policy.maximumTime.map(CodedDuration.init), methods: policy.methods.sorted(),
                  retriesWithIdempotencyKey: policy.retriesWithIdempotencyKey, retriesAnyMethod: policy.retriesAnyMethod,
                  statuses: policy.statuses.sorted(), retriesConnectFailures: policy.retriesConnectFailures,
                  retriesResolutionFailures: policy.retriesResolutionFailures,
                  retriesConnectionRefused: policy.retriesConnectionRefused, retriesTimeouts: policy.retriesTimeouts,
                  retriesResets: policy.retriesResets, retriesAllErrors: policy.retriesAllErrors,
                  budget: policy.budget.map { SessionConfiguration.CodedBudget(maximumTokens: $0.maximumTokens, tokenRatio: $0.tokenRatio) })
    }
}

extension RetryPolicy {
    fileprivate init(coded: SessionConfiguration.CodedRetryPolicy) throws(SessionConfiguration.CodedField.Refusal) {
        self.init()
        maximumRetries = coded.maximumRetries
        switch (coded.backoff.kind, coded.backoff.base, coded.backoff.cap, coded.backoff.delay) {
        case ("fullJitter", let base?, let cap?, nil): backoff = .fullJitter(base: base.duration, cap: cap.duration)
        case ("exponential", let base?, let cap?, nil): backoff = .exponential(base: base.duration, cap: cap.duration)
        case ("constant", nil, nil, let delay?): backoff = .constant(delay.duration)
        default: throw .init("backoff must be {kind: fullJitter|exponential, base, cap} or {kind: constant, delay}")
        }
        maximumRetryAfter = coded.maximumRetryAfter?.duration
        maximumTime = coded.maximumTime?.duration
        methods = Set(coded.methods)
        retriesWithIdempotencyKey = coded.retriesWithIdempotencyKey
        retriesAnyMethod = coded.retriesAnyMethod
        statuses = Set(coded.statuses)
        retriesConnectFailures = coded.retriesConnectFailures
        retriesResolutionFailures = coded.retriesResolutionFailures
        retriesConnectionRefused = coded.retriesConnectionRefused
        retriesTimeouts = coded.retriesTimeouts
        retriesResets = coded.retriesResets
        retriesAllErrors = coded.retriesAllErrors
        budget = coded.budget.map { RetryBudget(maximumTokens: $0.maximumTokens, tokenRatio: $0.tokenRatio) }
    }
}
