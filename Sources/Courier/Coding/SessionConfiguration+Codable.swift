// SessionConfiguration's plain parts as Codable (issue 16; AFNetworking archives its managers'
// NSURLSessionConfiguration and security policy with NSSecureCoding). Encoded: the timeouts, the
// pool and redirect settings, the size and rate limits, the default header fields, the
// authentication schemes, Expect: 100-continue, the download file mode, the TLS configuration's
// plain parts and the security policy. Durations are {"seconds": …, "attoseconds": …} (exact);
// optional values are null when unset. Missing keys decode to `SessionConfiguration()`'s values.
//
// Not encoded, and why (a decoded configuration has the default for each):
// - code: `redirectHandler`, `challengeHandler` (closures);
// - live objects shared with other sessions: `activityTracker`, `cookieJar`, `cache`;
// - secrets: `credential`, `tls.clientIdentity` (a private key), `proxy` (its URL may carry a user
//   and password) — keep them out of settings files written by accident;
// Routing (`resolveOverrides`, `connectTo`, `unixSocket`, `localBinding`), the decoder's and the
// parser's limits and the retry policy are coded in SessionConfiguration+CodableNetwork.swift.

import CourierHTTP1
import CourierPosix
import CourierTLS

extension SessionConfiguration: Codable {
    enum CodingKeys: String, CodingKey {
        case resolveOverrides, connectTo, unixSocket, localBinding, decompressionLimits, parserLimits, retryPolicy
        case connectTimeout, idleTimeout, totalTimeout, maximumConnectionsPerHost, connectionIdleTimeout
        case tls, securityPolicy, addressFamily, connectionAttemptDelay, tcpKeepAlive
        case maximumReceiveRate, maximumSendRate, lowSpeedLimit
        case ignoresContentLength, passesChunkedFramingThrough, followsRedirects, splicesDownloads
        case redirectLimit, allowsInsecureRedirects, defaultHeaders, maximumBodySize, maximumDownloadSize
        case acceptsCompressedResponses, authenticationSchemes, downloadFileMode, maximumTotalHeadSize, expectContinue
    }

    private struct CodedKeepAlive: Codable {
        var idle: CodedDuration
        var interval: CodedDuration
    }

    private struct CodedLowSpeedLimit: Codable {
        var bytesPerSecond: Int
        var duration: CodedDuration
    }

    private struct CodedExpectContinue: Codable {
        var threshold: UInt64?
        var timeout: CodedDuration
    }

    /// Decodes the plain parts; absent fields keep `SessionConfiguration()`'s values, and the parts
    /// that are not encoded (closures, live objects, secrets) have their defaults.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a wrong type or an unknown name.
    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        connectTimeout = try c.decodeDuration(forKey: .connectTimeout, keeping: connectTimeout) ?? connectTimeout
        idleTimeout = try c.decodeDuration(forKey: .idleTimeout, keeping: idleTimeout) ?? idleTimeout
        totalTimeout = try c.decodeDuration(forKey: .totalTimeout, keeping: totalTimeout)
        maximumConnectionsPerHost = try c.decode(Int.self, forKey: .maximumConnectionsPerHost, keeping: maximumConnectionsPerHost)
        connectionIdleTimeout = try c.decodeDuration(forKey: .connectionIdleTimeout, keeping: connectionIdleTimeout) ?? connectionIdleTimeout
        tls = try c.decode(TLSConfiguration.self, forKey: .tls, keeping: tls)
        securityPolicy = try c.decodeOptional(SecurityPolicy.self, forKey: .securityPolicy, keeping: securityPolicy)
        if let family = try c.decodeOptional(String.self, forKey: .addressFamily, keeping: nil) {
            switch family {
            case "v4": addressFamily = .v4
            case "v6": addressFamily = .v6
            default:
                throw DecodingError.dataCorruptedError(forKey: .addressFamily, in: c, debugDescription: "unknown address family \"\(family)\" (v4, v6)")
            }
        }
        connectionAttemptDelay = try c.decodeDuration(forKey: .connectionAttemptDelay, keeping: connectionAttemptDelay) ?? connectionAttemptDelay
        if c.contains(.tcpKeepAlive) {
            tcpKeepAlive = try c.decodeOptional(CodedKeepAlive.self, forKey: .tcpKeepAlive, keeping: nil)
                .map { TCPKeepAlive(idle: $0.idle.duration, interval: $0.interval.duration) }
        }
        maximumReceiveRate = try c.decodeOptional(Int.self, forKey: .maximumReceiveRate, keeping: maximumReceiveRate)
        maximumSendRate = try c.decodeOptional(Int.self, forKey: .maximumSendRate, keeping: maximumSendRate)
        if c.contains(.lowSpeedLimit) {
            lowSpeedLimit = try c.decodeOptional(CodedLowSpeedLimit.self, forKey: .lowSpeedLimit, keeping: nil)
                .map { LowSpeedLimit(bytesPerSecond: $0.bytesPerSecond, duration: $0.duration.duration) }
        }
        ignoresContentLength = try c.decode(Bool.self, forKey: .ignoresContentLength, keeping: ignoresContentLength)
        passesChunkedFramingThrough = try c.decode(Bool.self, forKey: .passesChunkedFramingThrough, keeping: passesChunkedFramingThrough)
        followsRedirects = try c.decode(Bool.self, forKey: .followsRedirects, keeping: followsRedirects)
        splicesDownloads = try c.decode(Bool.self, forKey: .splicesDownloads, keeping: splicesDownloads)
        redirectLimit = try c.decode(Int.self, forKey: .redirectLimit, keeping: redirectLimit)
        allowsInsecureRedirects = try c.decode(Bool.self, forKey: .allowsInsecureRedirects, keeping: allowsInsecureRedirects)
        defaultHeaders = try c.decode(HTTPHeaders.self, forKey: .defaultHeaders, keeping: defaultHeaders)
        maximumBodySize = try c.decode(Int.self, forKey: .maximumBodySize, keeping: maximumBodySize)
        maximumDownloadSize = try c.decodeOptional(UInt64.self, forKey: .maximumDownloadSize, keeping: maximumDownloadSize)
        acceptsCompressedResponses = try c.decode(Bool.self, forKey: .acceptsCompressedResponses, keeping: acceptsCompressedResponses)
        if let names = try c.decodeIfPresent([String].self, forKey: .authenticationSchemes) {
            authenticationSchemes = try names.map { name in
                guard let scheme = AuthenticationScheme(rawValue: name) else {
                    throw DecodingError.dataCorruptedError(forKey: .authenticationSchemes, in: c,
                                                           debugDescription: "unknown authentication scheme \"\(name)\" (Basic, Digest)")
                }
                return scheme
            }
        }
        downloadFileMode = try c.decode(UInt32.self, forKey: .downloadFileMode, keeping: downloadFileMode)
        maximumTotalHeadSize = try c.decode(Int.self, forKey: .maximumTotalHeadSize, keeping: maximumTotalHeadSize)
        if let coded = try c.decodeIfPresent(CodedExpectContinue.self, forKey: .expectContinue) {
            expectContinue = ExpectContinuePolicy(threshold: coded.threshold, timeout: coded.timeout.duration)
        }
        try decodeNetworkParts(from: c)
    }

    /// Encodes the plain parts (see the top of this file for what is left out and why).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeDuration(connectTimeout, forKey: .connectTimeout)
        try c.encodeDuration(idleTimeout, forKey: .idleTimeout)
        try c.encodeDuration(totalTimeout, forKey: .totalTimeout)
        try c.encode(maximumConnectionsPerHost, forKey: .maximumConnectionsPerHost)
        try c.encodeDuration(connectionIdleTimeout, forKey: .connectionIdleTimeout)
        try c.encode(tls, forKey: .tls)
        try c.encodeOptional(securityPolicy, forKey: .securityPolicy)
        try c.encodeOptional(addressFamily.map { $0 == .v4 ? "v4" : "v6" }, forKey: .addressFamily)
        try c.encodeDuration(connectionAttemptDelay, forKey: .connectionAttemptDelay)
        try c.encodeOptional(tcpKeepAlive.map { CodedKeepAlive(idle: CodedDuration($0.idle), interval: CodedDuration($0.interval)) },
                             forKey: .tcpKeepAlive)
        try c.encodeOptional(maximumReceiveRate, forKey: .maximumReceiveRate)
        try c.encodeOptional(maximumSendRate, forKey: .maximumSendRate)
        try c.encodeOptional(lowSpeedLimit.map { CodedLowSpeedLimit(bytesPerSecond: $0.bytesPerSecond, duration: CodedDuration($0.duration)) },
                             forKey: .lowSpeedLimit)
        try c.encode(ignoresContentLength, forKey: .ignoresContentLength)
        try c.encode(passesChunkedFramingThrough, forKey: .passesChunkedFramingThrough)
        try c.encode(followsRedirects, forKey: .followsRedirects)
        try c.encode(splicesDownloads, forKey: .splicesDownloads)
        try c.encode(redirectLimit, forKey: .redirectLimit)
        try c.encode(allowsInsecureRedirects, forKey: .allowsInsecureRedirects)
        try c.encode(defaultHeaders, forKey: .defaultHeaders)
        try c.encode(maximumBodySize, forKey: .maximumBodySize)
        try c.encodeOptional(maximumDownloadSize, forKey: .maximumDownloadSize)
        try c.encode(acceptsCompressedResponses, forKey: .acceptsCompressedResponses)
        try c.encode(authenticationSchemes.map(\.rawValue), forKey: .authenticationSchemes)
        try c.encode(downloadFileMode, forKey: .downloadFileMode)
        try c.encode(maximumTotalHeadSize, forKey: .maximumTotalHeadSize)
        try c.encode(CodedExpectContinue(threshold: expectContinue.threshold, timeout: CodedDuration(expectContinue.timeout)),
                     forKey: .expectContinue)
        try encodeNetworkParts(to: &c)
    }
}
