// NetworkTransfers+Configuration: a group's options turned into a SessionConfiguration — the
// session key groups share sessions by, curl's retry policy, and the redirect handler that keeps
// --proto-redir and credentials to curl's rules. Split from NetworkTransfers.swift, which keeps
// the transfers themselves.

import Courier
import CourierBytes
import CourierHTTP1
import CourierPosix
import CourierTLS
import CourierURL

extension NetworkTransfers {
    // MARK: Configuration

    /// A key that is the same for two groups exactly when their sessions would be configured
    /// alike, so they can share one (and its connections).
    static func sessionKey(_ options: TransferOptions) -> String {
        var parts: [String] = []
        parts.append(options.location ? "L" : "")
        parts.append(options.locationTrusted ? "t" : "")
        parts.append(options.maxRedirects ?? "")
        parts.append([options.post301, options.post302, options.post303].map { $0 ? "1" : "0" }.joined())
        parts.append(options.connectTimeout ?? "")
        parts.append(options.maxTime ?? "")
        parts.append(options.idleTimeout ?? "")
        parts.append(options.maxFilesize ?? "")
        parts.append(options.expect100Timeout ?? "")
        parts.append([options.retry ?? "", options.retryDelay ?? "", options.retryMaxTime ?? "",
                      options.retryAllErrors ? "a" : "", options.retryConnrefused ? "r" : "", options.method ?? "",
                      options.fail || options.failWithBody ? "f" : ""].joined(separator: ","))
        parts.append(options.compressed ? "c" : "")
        parts.append(options.createFileMode ?? "")
        parts.append(options.caCertificate ?? "")
        parts.append(options.caPath ?? "")
        parts.append([options.clientCertificate, options.privateKey, options.keyType, options.passphrase].map { $0 ?? "" }.joined(separator: "\u{1}"))
        parts.append(options.insecure ? "k" : "")
        parts.append(options.pinnedPublicKey ?? "")
        parts.append(options.pinnedCertificate ?? "")
        parts.append(options.resolve.joined(separator: "\u{1}"))
        parts.append(options.connectTo.joined(separator: "\u{1}"))
        parts.append(options.ipv4 ? "4" : options.ipv6 ? "6" : "")
        parts.append(options.protoRedirect ?? "")
        parts.append(options.happyEyeballsTimeout ?? "")
        parts.append(options.limitRate ?? "")
        parts.append(options.raw ? "raw" : "")
        parts.append(options.ignoreContentLength ? "icl" : "")
        parts.append((options.speedLimit ?? "") + "/" + (options.speedTime ?? ""))
        parts.append(options.unixSocket?.description ?? "")
        parts.append(options.interface ?? "")
        parts.append(options.localPort ?? "")
        parts.append(options.noKeepalive ? "-" : options.keepaliveTime ?? "")
        parts.append(options.tlsv1_3 ? "13" : "")
        parts.append(options.tlsMax ?? "")
        parts.append(options.ciphers ?? "")
        parts.append(options.tls13Ciphers ?? "")
        parts.append(options.noSessionID ? "n" : "")
        parts.append(options.referer ?? "")
        parts.append(options.proxy ?? "\u{2}")
        parts.append(options.noproxy ?? "\u{2}")
        parts.append(options.proxyUser ?? "")
        parts.append(options.proxytunnel ? "p" : "")
        parts.append(options.proxyHeader.joined(separator: "\u{1}"))
        parts.append(options.anyAuth ? "any:" + (options.user ?? "") : options.digest ? "digest:" + (options.user ?? "") : "")
        // The run has one jar: a group uses it or not.
        parts.append(CookieOptions.enablesEngine(options: options.cookie, jar: options.cookieJar) ? "cookies" : "")
        return parts.joined(separator: "\u{0}")
    }

    /// curl's `--retry` (tool_operate.c) as a RetryPolicy: timeouts and failed name resolutions,
    /// statuses 408, 429, 500, 502, 503, 504, a refused connection only with
    /// `--retry-connrefused`, every other error with `--retry-all-errors` (with `-f`, every status
    /// of 400 or more too); 1 s doubling up to 10 minutes unless `--retry-delay`; `Retry-After`
    /// honoured however long (bounded by `--retry-max-time` only); no budget. The one deliberate
    /// difference: curl retries any method, courier a POST or PATCH only with an
    /// `Idempotency-Key` field (docs/cli.md).
    static func curlRetryPolicy(options: TransferOptions, settings: TransferSettings) -> RetryPolicy {
        var policy = RetryPolicy()
        policy.maximumRetries = settings.retries
        policy.backoff = settings.retryDelay.map { .constant($0) } ?? .exponential(base: .seconds(1), cap: .seconds(600))
        policy.maximumRetryAfter = nil
        policy.maximumTime = settings.retryMaxTime
        policy.statuses = [408, 429, 500, 502, 503, 504]
        if options.retryAllErrors && (options.fail || options.failWithBody) { policy.statuses = Set(400...999) }
        if let method = options.method.map(ASCIICase.uppercased), method != "POST", method != "PATCH" { policy.methods.insert(method) }
        policy.retriesResolutionFailures = true
        policy.retriesTimeouts = true
        policy.retriesConnectionRefused = options.retryConnrefused || options.retryAllErrors
        policy.retriesConnectFailures = options.retryAllErrors
        policy.retriesResets = options.retryAllErrors
        policy.retriesAllErrors = options.retryAllErrors
        policy.budget = nil
        return policy
    }

    static func configuration(options: TransferOptions, settings: TransferSettings, monitor: RedirectMonitor) throws(CLIError) -> SessionConfiguration {
        var c = SessionConfiguration()
        c.defaultHeaders = HTTPHeaders()  // the request carries every field (RequestBuilder)
        c.wireTap = options.global.trace?.tap
        c.followsRedirects = options.location
        c.redirectLimit = settings.maxRedirects < 0 ? Int.max : settings.maxRedirects
        if let value = settings.connectTimeout { c.connectTimeout = value }
        if let value = settings.idleTimeout { c.idleTimeout = value }
        c.totalTimeout = settings.maxTime
        c.maximumDownloadSize = settings.maxFilesize
        if let value = settings.expect100Timeout { c.expectContinue.timeout = value }
        if settings.retries > 0 { c.retryPolicy = curlRetryPolicy(options: options, settings: settings) }
        // --raw: no transfer decoding and no content decoding (curl's CURLOPT_HTTP_TRANSFER_DECODING
        // and CURLOPT_HTTP_CONTENT_DECODING off); --compressed still asks for compression.
        c.acceptsCompressedResponses = options.compressed && !options.raw
        c.passesChunkedFramingThrough = options.raw
        c.ignoresContentLength = options.ignoreContentLength
        c.downloadFileMode = settings.createFileMode
        c.allowsInsecureRedirects = settings.redirectProtocols?.contains("http") ?? false
        c.cookieJar = settings.cookieJar
        c.proxy = settings.proxy
        if let delay = settings.attemptDelay { c.connectionAttemptDelay = delay }
        if options.ipv4 { c.addressFamily = .v4 }
        c.unixSocket = options.unixSocket
        c.localBinding = settings.localBinding
        c.tcpKeepAlive = settings.keepAlive
        // curl's --limit-rate caps both directions alike.
        c.maximumReceiveRate = settings.rateLimit
        c.maximumSendRate = settings.rateLimit
        c.lowSpeedLimit = settings.lowSpeedLimit
        if options.ipv6 { c.addressFamily = .v6 }
        c.tls.minimumVersion = options.tlsv1_3 ? .v1_3 : .v1_2
        c.tls.maximumVersion = settings.tlsMaximum
        c.tls.cipherList = options.ciphers
        c.tls.tls13CipherSuites = options.tls13Ciphers
        if options.noSessionID { c.tls.sessionCacheCapacity = 0 }
        if options.ciphers != nil || options.tls13Ciphers != nil {
            // curl's 59 for a cipher list OpenSSL refuses, found before anything is sent.
            var probe = TLSConfiguration()
            probe.cipherList = options.ciphers
            probe.tls13CipherSuites = options.tls13Ciphers
            do { _ = try TLSClientContext(configuration: probe) } catch {
                throw CLIError(59, "failed setting cipher list: \(error.message)")
            }
        }
        try ClientTLSFiles.apply(options, to: &c.tls)
        if options.insecure { c.tls.certificateVerification = .none }
        var policy: SecurityPolicy?
        if let path = options.pinnedCertificate {
            let certificates: [Certificate]
            do { certificates = try Certificate.certificates(fromPEM: try readInputFile(path).readableBytesArray) } catch let error as CLIError {
                throw error
            } catch {
                throw CLIError.usage("--pinnedcert \(path): no certificate could be read (\(error))")
            }
            policy = SecurityPolicy(pinningMode: .certificate, pinnedCertificates: certificates)
        }
        if let pin = options.pinnedPublicKey {
            var p = policy ?? SecurityPolicy()
            if pin.hasPrefix("sha256//") {
                do { p.pinnedPublicKeys = try PublicKeyPin.parseHashes(pin) } catch {
                    throw CLIError.usage("--pinnedpubkey: \(error.message)")
                }
            } else {
                let bytes = try readInputFile(pin).readableBytesArray
                do { p.pinnedPublicKeys = [try PublicKeyPin(publicKey: bytes)] } catch {
                    throw CLIError.usage("--pinnedpubkey \(pin): not a PEM or DER public key")
                }
            }
            policy = p
        }
        if var p = policy {
            p.allowInvalidCertificates = options.insecure
            p.validatesDomainName = !options.insecure
            c.securityPolicy = p
        }
        for text in options.resolve {
            guard let entry = ResolveOverride(parsing: text) else {
                throw CLIError.usage("--resolve expects HOST:PORT:ADDRESS, not \"\(printable(text))\"")
            }
            c.resolveOverrides.append(entry)
        }
        for text in options.connectTo {
            guard let entry = ConnectToOverride(parsing: text) else {
                throw CLIError.usage("--connect-to expects HOST1:PORT1:HOST2:PORT2, not \"\(printable(text))\"")
            }
            c.connectTo.append(entry)
        }
        if options.location { c.redirectHandler = redirectHandler(options: options, settings: settings, monitor: monitor) }
        if options.defersCredentials {
            // --digest and --anyauth: the credentials (-u, else the URL's) go only after a 401
            // asks, with the strongest scheme offered that is allowed: Digest, then Basic (the
            // session picks, SessionConfiguration.authenticationSchemes).
            let schemes: [AuthenticationScheme] = options.digest ? [.digest] : [.digest, .basic]
            c.authenticationSchemes = schemes
            let user = options.user
            let netrc = options.netrc != nil ? settings.netrc : nil
            c.challengeHandler = { challenge in
                guard case .httpAuthentication(let response, let url, let failures) = challenge, failures == 0 else { return .performDefaultHandling }
                let text: String
                if let user { text = user } else if let netrc, case .found(let login, let password?) = netrc.lookup(
                    host: url.host?.text ?? "", login: url.userinfo.map { String($0.prefix { $0 != ":" }) }) {
                    text = (login ?? "") + ":" + password  // -n: the host's own entry
                } else if let userinfo = url.userinfo {
                    text = (try? PercentEncoding.decodeToString(userinfo)) ?? userinfo
                } else {
                    return .performDefaultHandling
                }
                let offered = (try? AuthenticationChallenge.parse(response.headers["WWW-Authenticate"])) ?? []
                let usable = (schemes.contains(.digest) && DigestChallenge.first(in: offered) != nil)
                    || (schemes.contains(.basic) && offered.contains { $0.isScheme("Basic") })
                guard usable else { return .performDefaultHandling }
                let colon = text.firstIndex(of: ":")
                return .useCredential(Credential(user: colon.map { String(text[..<$0]) } ?? text,
                                                 password: colon.map { String(text[text.index(after: $0)...]) } ?? ""))
            }
        }
        return c
    }

    /// curl's redirect rules on top of the session's (the top of this file).
    private static func redirectHandler(options: TransferOptions, settings: TransferSettings,
                                        monitor: RedirectMonitor) -> @Sendable (Redirect) async -> RedirectDecision {
        let autoReferer = options.referer?.hasSuffix(";auto") ?? false
        let allowed = settings.redirectProtocols
        return { redirect in
            let previous = redirect.previousRequest
            var next = redirect.nextRequest
            if let allowed, let scheme = next.uri.scheme, !allowed.contains(scheme) {
                monitor.refuse(scheme)
                return .refuse
            }
            let isPost = ASCIICase.uppercased(previous.method.rawValue) == "POST"
            let crossOrigin = !(previous.uri.scheme == next.uri.scheme && previous.uri.host == next.uri.host
                                && previous.uri.effectivePort == next.uri.effectivePort)
            let keepsMethod: Bool
            switch redirect.status {
            case 301: keepsMethod = !isPost || options.post301
            case 302: keepsMethod = !isPost || options.post302
            case 303: keepsMethod = previous.method == .head || (isPost && options.post303)
            default: keepsMethod = true
            }
            if keepsMethod && next.method != previous.method {
                // The session turned it into a GET; curl keeps the method and the body.
                let uri = next.uri
                next = previous
                next.uri = uri
                if crossOrigin {
                    for name in ["Authorization", "Cookie", "Proxy-Authorization", "Host"] { next.headers.remove(name: name) }
                }
            }
            var fields = Array(next.headers).map { ($0.name, $0.value) }
            if options.locationTrusted, crossOrigin, let credentials = previous.headers.first(name: "Authorization"),
               !next.headers.contains(name: "Authorization") {
                fields.insert(("Authorization", credentials), at: 0)
            }
            if let netrc = settings.netrc, crossOrigin, !options.locationTrusted, options.user == nil, !options.defersCredentials,
               !fields.contains(where: { ASCIICase.lowercased($0.0) == "authorization" }),
               case .found(let login, let password?) = netrc.lookup(host: next.uri.host?.text ?? "") {
                // -n: the new host's own entry, never the previous host's credentials (curl).
                fields.insert(("Authorization", "Basic " + Base64.encode(Array(((login ?? "") + ":" + password).utf8))), at: 0)
            }
            if autoReferer {
                let referer = previous.uri.removingFragment
                var text = referer.redactedDescription
                if let query = referer.query, query.isEmpty, !text.hasSuffix("?") { text += "?" }
                fields.removeAll { ASCIICase.lowercased($0.0) == "referer" }
                // After the fields curl writes before Referer.
                let before: Set<String> = ["authorization", "range", "content-range", "user-agent", "accept", "accept-encoding"]
                var index = 0
                while index < fields.count && before.contains(ASCIICase.lowercased(fields[index].0)) { index += 1 }
                fields.insert(("Referer", text), at: index)
            }
            next.headers = HTTPHeaders(fields)
            return .followWith(next)
        }
    }
}
