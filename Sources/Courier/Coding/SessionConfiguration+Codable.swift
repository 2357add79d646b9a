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
//
// Each field is one line of `codedFields` (a `CodedField`: its key, its key path, and for the
// fields written in their own words the two conversions), read by `init(from:)` and written by
// `encode(to:)` in that order.

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

        init(_ value: TCPKeepAlive) { (idle, interval) = (CodedDuration(value.idle), CodedDuration(value.interval)) }
        var value: TCPKeepAlive { TCPKeepAlive(idle: idle.duration, interval: interval.duration) }
    }

    private struct CodedLowSpeedLimit: Codable {
        var bytesPerSecond: Int
        var duration: CodedDuration

        init(_ value: LowSpeedLimit) { (bytesPerSecond, duration) = (value.bytesPerSecond, CodedDuration(value.duration)) }
        var value: LowSpeedLimit { LowSpeedLimit(bytesPerSecond: bytesPerSecond, duration: duration.duration) }
    }

    private struct CodedExpectContinue: Codable {
        var threshold: UInt64?
        var timeout: CodedDuration

        init(_ value: ExpectContinuePolicy) { (threshold, timeout) = (value.threshold, CodedDuration(value.timeout)) }
        var value: ExpectContinuePolicy { ExpectContinuePolicy(threshold: threshold, timeout: timeout.duration) }
    }

    /// Decodes the plain parts; absent fields keep `SessionConfiguration()`'s values, and the parts
    /// that are not encoded (closures, live objects, secrets) have their defaults.
    /// - Parameter decoder: the decoder.
    /// - Throws: `DecodingError` for a wrong type or an unknown name.
    public init(from decoder: any Decoder) throws {
        self.init()
        let c = try decoder.container(keyedBy: CodingKeys.self)
        for field in Self.codedFields { try field.decode(&self, c) }
    }

    /// Encodes the plain parts (see the top of this file for what is left out and why).
    /// - Parameter encoder: the encoder.
    /// - Throws: what the encoder throws.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        for field in Self.codedFields { try field.encode(self, &c) }
    }

    /// Every coded field, one line each, in the order they are written.
    private static var codedFields: [CodedField] {
        [
            .duration(.connectTimeout, \.connectTimeout),
            .duration(.idleTimeout, \.idleTimeout),
            .optionalDuration(.totalTimeout, \.totalTimeout),
            .value(.maximumConnectionsPerHost, \.maximumConnectionsPerHost),
            .duration(.connectionIdleTimeout, \.connectionIdleTimeout),
            .value(.tls, \.tls),
            .optional(.securityPolicy, \.securityPolicy),
            .optionalMapped(.addressFamily, \.addressFamily, write: { $0 == .v4 ? "v4" : "v6" }, read: Self.addressFamily),
            .duration(.connectionAttemptDelay, \.connectionAttemptDelay),
            .optionalMapped(.tcpKeepAlive, \.tcpKeepAlive, write: CodedKeepAlive.init(_:), read: { $0.value }),
            .optional(.maximumReceiveRate, \.maximumReceiveRate),
            .optional(.maximumSendRate, \.maximumSendRate),
            .optionalMapped(.lowSpeedLimit, \.lowSpeedLimit, write: CodedLowSpeedLimit.init(_:), read: { $0.value }),
            .value(.ignoresContentLength, \.ignoresContentLength),
            .value(.passesChunkedFramingThrough, \.passesChunkedFramingThrough),
            .value(.followsRedirects, \.followsRedirects),
            .value(.splicesDownloads, \.splicesDownloads),
            .value(.redirectLimit, \.redirectLimit),
            .value(.allowsInsecureRedirects, \.allowsInsecureRedirects),
            .value(.defaultHeaders, \.defaultHeaders),
            .value(.maximumBodySize, \.maximumBodySize),
            .optional(.maximumDownloadSize, \.maximumDownloadSize),
            .value(.acceptsCompressedResponses, \.acceptsCompressedResponses),
            .mapped(.authenticationSchemes, \.authenticationSchemes, write: { $0.map(\.rawValue) }, read: Self.authenticationSchemes),
            .value(.downloadFileMode, \.downloadFileMode),
            .value(.maximumTotalHeadSize, \.maximumTotalHeadSize),
            .mapped(.expectContinue, \.expectContinue, write: CodedExpectContinue.init(_:), read: { $0.value }),
        ] + networkFields
    }

    private static func addressFamily(_ name: String) throws(CodedField.Refusal) -> IPAddress.Family {
        switch name {
        case "v4": return .v4
        case "v6": return .v6
        default: throw CodedField.Refusal("unknown address family \"\(name)\" (v4, v6)")
        }
    }

    private static func authenticationSchemes(_ names: [String]) throws(CodedField.Refusal) -> [AuthenticationScheme] {
        try names.map { name throws(CodedField.Refusal) in
            guard let scheme = AuthenticationScheme(rawValue: name) else {
                throw CodedField.Refusal("unknown authentication scheme \"\(name)\" (Basic, Digest)")
            }
            return scheme
        }
    }

    /// One coded field: how it is read into a configuration and written from one. Absent keys
    /// keep the current value; null is nil for an optional field and keeps the current value for
    /// the others.
    struct CodedField {
        /// A value the field's reader refuses: a DecodingError naming the field.
        struct Refusal: Error {
            let text: String
            init(_ text: String) { self.text = text }
        }

        let decode: (inout SessionConfiguration, KeyedDecodingContainer<CodingKeys>) throws -> Void
        let encode: (SessionConfiguration, inout KeyedEncodingContainer<CodingKeys>) throws -> Void

        /// A value written as itself.
        static func value<T: Codable>(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, T>) -> CodedField {
            CodedField(decode: { $0[keyPath: path] = try $1.decode(T.self, forKey: key, keeping: $0[keyPath: path]) },
                       encode: { try $1.encode($0[keyPath: path], forKey: key) })
        }

        /// An optional value, null when nil.
        static func optional<T: Codable>(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, T?>) -> CodedField {
            CodedField(decode: { $0[keyPath: path] = try $1.decodeOptional(T.self, forKey: key, keeping: $0[keyPath: path]) },
                       encode: { try $1.encodeOptional($0[keyPath: path], forKey: key) })
        }

        /// A duration, written exactly.
        static func duration(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, Duration>) -> CodedField {
            CodedField(decode: { $0[keyPath: path] = try $1.decodeDuration(forKey: key, keeping: $0[keyPath: path]) ?? $0[keyPath: path] },
                       encode: { try $1.encodeDuration($0[keyPath: path], forKey: key) })
        }

        /// An optional duration, null when nil.
        static func optionalDuration(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, Duration?>) -> CodedField {
            CodedField(decode: { $0[keyPath: path] = try $1.decodeDuration(forKey: key, keeping: $0[keyPath: path]) },
                       encode: { try $1.encodeDuration($0[keyPath: path], forKey: key) })
        }

        /// A value written in its fields' own words (`Coded`); `read` may refuse what it is given.
        static func mapped<Value, Coded: Codable>(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, Value>,
                                                  write: @escaping (Value) -> Coded,
                                                  read: @escaping (Coded) throws(Refusal) -> Value) -> CodedField {
            CodedField(decode: { configuration, c in
                guard let coded = try c.decodeIfPresent(Coded.self, forKey: key) else { return }
                configuration[keyPath: path] = try refusing(key, in: c) { () throws(Refusal) in try read(coded) }
            }, encode: { try $1.encode(write($0[keyPath: path]), forKey: key) })
        }

        /// An optional value written in its fields' own words, null when nil.
        static func optionalMapped<Value, Coded: Codable>(_ key: CodingKeys, _ path: WritableKeyPath<SessionConfiguration, Value?>,
                                                          write: @escaping (Value) -> Coded,
                                                          read: @escaping (Coded) throws(Refusal) -> Value) -> CodedField {
            CodedField(decode: { configuration, c in
                guard c.contains(key) else { return }
                let coded = try c.decodeOptional(Coded.self, forKey: key, keeping: nil)
                configuration[keyPath: path] = try refusing(key, in: c) { () throws(Refusal) in try coded.map(read) }
            }, encode: { try $1.encodeOptional($0[keyPath: path].map(write), forKey: key) })
        }

        /// `body`'s value, or its refusal as a DecodingError naming `key`.
        private static func refusing<T>(_ key: CodingKeys, in c: KeyedDecodingContainer<CodingKeys>,
                                        _ body: () throws(Refusal) -> T) throws -> T {
            do throws(Refusal) { return try body() } catch {
                throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: error.text)
            }
        }
    }
}
