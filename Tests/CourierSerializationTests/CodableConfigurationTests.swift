// Codable configuration values (issue 16; AFNetworking's NSSecureCoding for AFSecurityPolicy, the
// serializers and the session configuration): every encoded field round-trips through
// CourierJSONEncoder and CourierJSONDecoder, the text is what a person would edit, missing keys
// keep the defaults, and what is not encoded (closures, private keys) comes back as its default.

import CourierHTTP1
import CourierJSON
import CourierTLS
import CourierTestSupport
import Testing
@testable import Courier

@Suite struct CodableConfigurationTests {
    static let ca = try! Certificate.certificates(fromPEM: Array(TestPEM.wronghostCertificate.utf8))[0]

    func roundTrip<T: Codable>(_ value: T) throws -> (T, String) {
        let bytes = try CourierJSONEncoder().encode(value)
        let text = String(decoding: bytes, as: UTF8.self)
        return (try CourierJSONDecoder().decode(T.self, from: bytes), text)
    }

    @Test("SecurityPolicy: mode, switches, certificates as PEM, pins in curl's forms; equal after the trip")
    func securityPolicy() throws {
        var policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: [Self.ca])
        policy.allowInvalidCertificates = true
        policy.validatesDomainName = false
        policy.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
            + [PublicKeyPin(certificate: Self.ca)]
        let (decoded, text) = try roundTrip(policy)
        #expect(decoded == policy)
        #expect(text.contains("\"pinningMode\":\"certificate\""), "\(text)")
        #expect(text.contains("-----BEGIN CERTIFICATE-----"))
        #expect(text.contains("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="))
        #expect(text.contains("-----BEGIN PUBLIC KEY-----"))
        for mode in [SecurityPolicy.PinningMode.none, .certificate, .publicKey] {
            #expect(try roundTrip(SecurityPolicy(pinningMode: mode)).0.pinningMode == mode)
        }

        // Missing keys: the default policy. Bad values: errors naming what is wrong.
        #expect(try CourierJSONDecoder().decode(SecurityPolicy.self, from: "{}") == .default)
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(SecurityPolicy.self, from: #"{"pinningMode":"strict"}"#) }
        #expect(throws: DecodingError.self) {
            try CourierJSONDecoder().decode(SecurityPolicy.self, from: #"{"pinnedCertificates":["-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"]}"#)
        }
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(SecurityPolicy.self, from: #"{"pinnedPublicKeys":["sha256//short"]}"#) }
    }

    @Test("request serializers: headers in order with duplicates, timeout, URI methods, writing options; the closure is not encoded")
    func requestSerializers() throws {
        var defaults = RequestDefaults(preferredLanguages: ["en", "pt"], userAgent: "app/1")
        defaults.headers.add(name: "X-Twice", value: "1")
        defaults.headers.add(name: "X-Twice", value: "2")
        defaults.setAuthorization(username: "ada", password: "lovelace")
        defaults.timeout = .milliseconds(2500)
        defaults.httpMethodsEncodingParametersInURI = ["GET", "QUERY"]
        defaults.queryStringSerialization = { _, _, _ in "custom" }

        let (form, formText) = try roundTrip(FormRequestSerializer(defaults: defaults))
        #expect(form.defaults.headers == defaults.headers)
        #expect(form.defaults.headers.fields.map(\.name) == ["Accept-Language", "User-Agent", "X-Twice", "X-Twice", "Authorization"])
        #expect(form.defaults.timeout == .milliseconds(2500))
        #expect(form.defaults.httpMethodsEncodingParametersInURI == ["GET", "QUERY"])
        #expect(form.defaults.queryStringSerialization == nil)
        #expect(formText.contains(#"["X-Twice","1"],["X-Twice","2"]"#), "\(formText)")

        let json = JSONRequestSerializer(defaults: defaults, writingOptions: [.sortedKeys, .prettyPrinted])
        let (decodedJSON, _) = try roundTrip(json)
        #expect(decodedJSON.writingOptions == [.sortedKeys, .prettyPrinted])
        #expect(decodedJSON.defaults.headers == defaults.headers)
        let (plist, _) = try roundTrip(PropertyListRequestSerializer(defaults: defaults))
        #expect(plist.defaults.timeout == .milliseconds(2500))

        // No timeout round-trips as none; an empty object is the default serializer.
        var untimed = defaults
        untimed.timeout = nil
        #expect(try roundTrip(FormRequestSerializer(defaults: untimed)).0.defaults.timeout == nil)
        let empty = try CourierJSONDecoder().decode(JSONRequestSerializer.self, from: "{}")
        #expect(empty.defaults.headers == RequestDefaults().headers && empty.writingOptions == [])
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(JSONRequestSerializer.self, from: #"{"writingOptions":["fragmentsAllowed"]}"#) }
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(FormRequestSerializer.self, from: #"{"defaults":{"headers":[["only-a-name"]]}}"#) }

        // The decoded serializer builds the same request as the original (the closure aside).
        var plain = defaults
        plain.queryStringSerialization = nil
        let uri = try URI(parsing: "https://example.com/a")
        let original = try FormRequestSerializer(defaults: plain).request(method: .post, uri: uri, parameters: ["a": 1])
        let rebuilt = try form.request(method: .post, uri: uri, parameters: ["a": 1])
        #expect(original.headers == rebuilt.headers && original.timeout == rebuilt.timeout)
    }

    @Test("response serializers: status codes and content types (null = any), JSON reading options, limits, charset")
    func responseSerializers() throws {
        var json = JSONResponseSerializer()
        json.acceptableStatusCodes = Set(200...299).union([304])
        json.acceptableContentTypes = ["application/json", "text/plain"]
        json.allowsFragments = false
        json.removesKeysWithNullValues = true
        json.limits.maxDepth = 64
        let (decoded, text) = try roundTrip(json)
        #expect(decoded.acceptableStatusCodes == json.acceptableStatusCodes)
        #expect(decoded.acceptableContentTypes == json.acceptableContentTypes)
        #expect(!decoded.allowsFragments && decoded.removesKeysWithNullValues && decoded.limits.maxDepth == 64)
        #expect(text.contains(#""acceptableContentTypes":["application/json","text/plain"]"#), "\(text)")

        var anything = DataResponseSerializer()
        anything.acceptableStatusCodes = nil
        anything.acceptableContentTypes = nil
        let (data, dataText) = try roundTrip(anything)
        #expect(data.acceptableStatusCodes == nil && data.acceptableContentTypes == nil)
        #expect(dataText == #"{"acceptableStatusCodes":null,"acceptableContentTypes":null}"#)
        // Absent keys keep the defaults (not "any").
        #expect(try CourierJSONDecoder().decode(DataResponseSerializer.self, from: "{}").acceptableStatusCodes == Set(200...299))

        var document = JSONDocumentResponseSerializer()
        document.removesKeysWithNullValues = true
        #expect(try roundTrip(document).0.removesKeysWithNullValues)
        var string = StringResponseSerializer()
        string.defaultCharset = "iso-8859-1"
        #expect(try roundTrip(string).0.defaultCharset == "iso-8859-1")
        var xml = XMLResponseSerializer()
        xml.limits.maxDepth = 9
        xml.limits.maxAttributes = 7
        #expect(try roundTrip(xml).0.limits == xml.limits)
        var plist = PropertyListResponseSerializer()
        plist.limits.maxValues = 1000
        #expect(try roundTrip(plist).0.limits == plist.limits)
        var image = ImageResponseSerializer()
        image.acceptableContentTypes = ["image/png"]
        #expect(try roundTrip(image).0.acceptableContentTypes == ["image/png"])
        var decodable = DecodableResponseSerializer([Int].self)
        decodable.acceptableStatusCodes = [200]
        #expect(try roundTrip(decodable).0.acceptableStatusCodes == [200])
    }

    @Test("SessionConfiguration: the plain parts round-trip; handlers, live objects and secrets come back as defaults")
    func sessionConfiguration() throws {
        var configuration = SessionConfiguration()
        configuration.connectTimeout = .milliseconds(1500)
        configuration.idleTimeout = .seconds(5)
        configuration.totalTimeout = .seconds(90)
        configuration.maximumConnectionsPerHost = 3
        configuration.connectionIdleTimeout = .seconds(7)
        configuration.tls.trustRoots = .certificates([Self.ca])
        configuration.tls.certificateVerification = .noHostnameVerification
        configuration.tls.minimumVersion = .v1_3
        configuration.tls.maximumVersion = .v1_3
        configuration.tls.sessionCacheCapacity = 4
        configuration.tls.cipherList = "ECDHE+AESGCM"
        configuration.tls.clientIdentity = try TLSIdentity(certificateChainPEM: Array(TestPEM.wronghostCertificate.utf8),
                                                           privateKeyPEM: Array(TestPEM.wronghostKey.utf8))
        configuration.securityPolicy = SecurityPolicy(pinningMode: .publicKey, pinnedCertificates: [Self.ca])
        configuration.addressFamily = .v6
        configuration.connectionAttemptDelay = .milliseconds(100)
        configuration.tcpKeepAlive = TCPKeepAlive(idle: .seconds(30), interval: .seconds(5))
        configuration.maximumReceiveRate = 1000
        configuration.lowSpeedLimit = LowSpeedLimit(bytesPerSecond: 10, duration: .seconds(3))
        configuration.followsRedirects = false
        configuration.redirectLimit = 3
        configuration.defaultHeaders = ["User-Agent": "app/2", "Accept": "application/json"]
        configuration.maximumBodySize = 1 << 16
        configuration.maximumDownloadSize = 1 << 30
        configuration.acceptsCompressedResponses = true
        configuration.authenticationSchemes = [.basic]
        configuration.downloadFileMode = 0o600
        configuration.expectContinue = ExpectContinuePolicy(threshold: nil, timeout: .milliseconds(300))
        configuration.redirectHandler = { _ in .refuse }
        configuration.credential = Credential(user: "ada", password: "secret")

        let (decoded, text) = try roundTrip(configuration)
        #expect(decoded.connectTimeout == .milliseconds(1500) && decoded.idleTimeout == .seconds(5) && decoded.totalTimeout == .seconds(90))
        #expect(decoded.maximumConnectionsPerHost == 3 && decoded.connectionIdleTimeout == .seconds(7))
        #expect(decoded.tls.trustRoots == .certificates([Self.ca]) && decoded.tls.certificateVerification == .noHostnameVerification)
        #expect(decoded.tls.minimumVersion == .v1_3 && decoded.tls.maximumVersion == .v1_3)
        #expect(decoded.tls.sessionCacheCapacity == 4 && decoded.tls.cipherList == "ECDHE+AESGCM" && decoded.tls.tls13CipherSuites == nil)
        #expect(decoded.securityPolicy == configuration.securityPolicy)
        #expect(decoded.addressFamily == .v6 && decoded.connectionAttemptDelay == .milliseconds(100))
        #expect(decoded.tcpKeepAlive == configuration.tcpKeepAlive && decoded.lowSpeedLimit == configuration.lowSpeedLimit)
        #expect(decoded.maximumReceiveRate == 1000 && decoded.maximumSendRate == nil)
        #expect(!decoded.followsRedirects && decoded.redirectLimit == 3 && decoded.defaultHeaders == configuration.defaultHeaders)
        #expect(decoded.maximumBodySize == 1 << 16 && decoded.maximumDownloadSize == 1 << 30 && decoded.acceptsCompressedResponses)
        #expect(decoded.authenticationSchemes == [.basic] && decoded.downloadFileMode == 0o600)
        #expect(decoded.expectContinue == configuration.expectContinue)
        // Not encoded: the private key, the credential, the handler.
        #expect(decoded.tls.clientIdentity == nil && decoded.credential == nil && decoded.redirectHandler == nil)
        #expect(!text.contains("PRIVATE KEY") && !text.contains("secret"), "\(text)")

        // The defaults survive a trip, and an empty object is the default configuration.
        let defaults = SessionConfiguration()
        let (again, _) = try roundTrip(defaults)
        #expect(again.tls == defaults.tls && again.defaultHeaders == defaults.defaultHeaders && again.totalTimeout == nil)
        #expect(again.expectContinue == defaults.expectContinue && again.securityPolicy == nil)
        let empty = try CourierJSONDecoder().decode(SessionConfiguration.self, from: "{}")
        #expect(empty.connectTimeout == .seconds(10) && empty.redirectLimit == 10 && empty.tls == TLSConfiguration())
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(SessionConfiguration.self, from: #"{"addressFamily":"v5"}"#) }
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(SessionConfiguration.self, from: #"{"tls":{"minimumVersion":"SSLv3"}}"#) }
    }

    @Test("SessionConfiguration: routing, limits and the retry policy round-trip; values an initialiser would trap on are decoding errors")
    func sessionConfigurationRoutingLimitsRetry() throws {
        var configuration = SessionConfiguration()
        configuration.resolveOverrides = [ResolveOverride(parsing: "Example.COM:443:127.0.0.1,::1")!]
        configuration.connectTo = [ConnectToOverride(parsing: "example.com::10.0.0.2:8443")!]
        configuration.unixSocket = UnixSocketAddress(abstractName: "courier-test")
        configuration.localBinding = LocalBinding(source: .interface("lo"), ports: 40_000...40_100)
        configuration.decompressionLimits = DecompressionLimits(maximumDecodedSize: 1 << 20, maximumRatio: nil, ratioGraceSize: 4096,
                                                                maximumCodings: 2, pieceSize: 1024)
        configuration.parserLimits = HTTP1ParserLimits(maxHeadSize: 8192, maxFieldCount: 50, maxInterimResponses: 2,
                                                       maxChunkSizeDigits: 8, maxChunkExtensionsSize: 0, maxTrailerSize: 1024)
        var retry = RetryPolicy()
        retry.maximumRetries = 5
        retry.backoff = .exponential(base: .milliseconds(250), cap: .seconds(4))
        retry.maximumRetryAfter = nil
        retry.maximumTime = .seconds(20)
        retry.methods = ["GET", "POST"]
        retry.statuses = [503]
        retry.retriesTimeouts = false
        retry.budget = nil
        configuration.retryPolicy = retry

        let (decoded, text) = try roundTrip(configuration)
        #expect(decoded.resolveOverrides == configuration.resolveOverrides, "\(text)")
        #expect(decoded.resolveOverrides.first?.host == "example.com" && decoded.resolveOverrides.first?.addresses.count == 2)
        #expect(decoded.connectTo == configuration.connectTo && decoded.connectTo.first?.port == nil)
        #expect(decoded.unixSocket == configuration.unixSocket && decoded.unixSocket?.isAbstract == true)
        #expect(decoded.localBinding == configuration.localBinding)
        #expect(decoded.decompressionLimits == configuration.decompressionLimits)
        #expect(decoded.parserLimits == configuration.parserLimits)
        let policy = try #require(decoded.retryPolicy)
        #expect(policy.maximumRetries == 5 && policy.backoff == .exponential(base: .milliseconds(250), cap: .seconds(4)))
        #expect(policy.maximumRetryAfter == nil && policy.maximumTime == .seconds(20))
        #expect(policy.methods == ["GET", "POST"] && policy.statuses == [503] && !policy.retriesTimeouts && policy.retriesResets)
        #expect(policy.budget == nil)

        // Each backoff form, and the default policy with its budget.
        for backoff: RetryPolicy.Backoff in [.fullJitter(base: .seconds(1), cap: .seconds(8)), .constant(.milliseconds(1500))] {
            var other = SessionConfiguration()
            other.retryPolicy = RetryPolicy()
            other.retryPolicy?.backoff = backoff
            let (again, _) = try roundTrip(other)
            #expect(again.retryPolicy?.backoff == backoff)
            #expect(again.retryPolicy?.budget?.maximumTokens == RetryBudget().maximumTokens)
        }
        // Unset stays unset; absent keys keep the defaults.
        let (plain, _) = try roundTrip(SessionConfiguration())
        #expect(plain.retryPolicy == nil && plain.unixSocket == nil && plain.localBinding == nil && plain.resolveOverrides.isEmpty)
        #expect(plain.parserLimits == .default && plain.decompressionLimits == SessionConfiguration().decompressionLimits)

        // Input that the types' initialisers would trap on is refused with a decoding error.
        for bad in [#"{"resolveOverrides":[{"host":"a","port":1,"addresses":[]}]}"#,
                    #"{"resolveOverrides":[{"host":"a","port":1,"addresses":["not-an-address"]}]}"#,
                    #"{"localBinding":{"ports":[20,10]}}"#,
                    #"{"localBinding":{"interface":"lo","host":"a"}}"#,
                    #"{"decompressionLimits":{"ratioGraceSize":0,"maximumCodings":1,"pieceSize":0}}"#,
                    #"{"parserLimits":{"maxHeadSize":0,"maxFieldCount":1,"maxInterimResponses":1,"maxChunkSizeDigits":1,"maxChunkExtensionsSize":1,"maxTrailerSize":1}}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { try CourierJSONDecoder().decode(SessionConfiguration.self, from: bad) }
        }
        #expect(text.contains(#""kind":"exponential""#), "\(text)")
        let unknownBackoff = text.replacing(#""kind":"exponential""#, with: #""kind":"linear""#)
        #expect(throws: DecodingError.self) { try CourierJSONDecoder().decode(SessionConfiguration.self, from: unknownBackoff) }
    }
}
