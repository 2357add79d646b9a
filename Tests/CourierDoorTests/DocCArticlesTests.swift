// The DocC articles of Sources/Courier/Courier.docc, compiled: each block between
// `// doc: Sources/Courier/Courier.docc/ARTICLE.md N` and `// end doc` is that article's Nth swift
// block, line for line (scripts/check-doc-examples compares them). `import Courier` alone, as the
// articles show. The functions are not run (they would need the network): that they compile is the
// test; what a block needs but does not show (the client of an earlier block) comes before its
// marker. The migration guide's blocks are MigrationGuideTests' (the article is that file).

import Courier
import Testing

/// The connection article hands each body slice to this.
private func consume(_ slice: ByteBuffer) {}

// The getting-started error block uses MigrationGuideTests' `User` (the same declaration).

@Suite struct DocCArticlesTests {
    @Test("the articles' blocks are compiled: this target builds, and the values they build are as the articles say")
    func articleValues() throws {
        var keys = SecurityPolicy(pinningMode: .publicKey)
        keys.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        #expect(keys.pinnedPublicKeys.count == 1)
        var options = HTTP1ConnectionOptions()
        options.readAheadLimit = 64 * 1024
        #expect(options.readAheadLimit == 65536)
    }

    func landing() async throws {
        // doc: Sources/Courier/Courier.docc/Courier.md 1

        struct User: Decodable, Sendable { let id: Int; let name: String }

        let client = try HTTPClient(baseURL: "https://api.example.com/v1")
        let (user, response) = try await client.get("users/42", as: User.self)
        print(user.name, response.status)
        // end doc
    }

    func gettingStartedClient() async throws {
        // doc: Sources/Courier/Courier.docc/GettingStarted.md 2
        struct User: Codable, Sendable { let id: Int; let name: String }

        let client = try HTTPClient(baseURL: "https://api.example.com/v1")
        let (json, response) = try await client.get("users", parameters: ["page": 2])   // JSONValue?
        let (user, _) = try await client.get("users/42", as: User.self)                  // any Decodable
        let (created, _) = try await client.post("users", parameters: ["name": "Ada"], as: User.self)
        print(json?["total"] as Any, response.status, user.name, created.id)
        // end doc
    }

    func gettingStartedJSON() async throws {
        // doc: Sources/Courier/Courier.docc/GettingStarted.md 3
        var serializer = JSONRequestSerializer()
        serializer.setValue("secret", forHeader: "X-API-Key")
        serializer.timeout = .seconds(30)
        let api = try HTTPClient(baseURL: "https://api.example.com/v1", requestSerializer: serializer,
                                 responseSerializer: JSONResponseSerializer())
        let (reply, _) = try await api.post("events", parameters: ["kind": "signup", "tags": ["a", "b"]],
                                            headers: ["Idempotency-Key": "42"])
        print(reply as Any)
        // end doc
    }

    func gettingStartedSession() async throws {
        // doc: Sources/Courier/Courier.docc/GettingStarted.md 4
        let session = Session(configuration: SessionConfiguration())
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/big.iso"))
        let download = await session.downloadTask(with: request) { _, _ in "/tmp/big.iso" }.response
        print(download.result)
        let shared = try HTTPClient(baseURL: "https://api.example.com/v1", session: session)
        print(shared.baseURL?.description ?? "")
        await session.finishTasksAndInvalidate()
        // end doc
    }

    func gettingStartedErrors() async throws {
        let client = try HTTPClient(baseURL: "https://api.example.com/v1")
        // doc: Sources/Courier/Courier.docc/GettingStarted.md 5
        do {
            _ = try await client.get("users/0", as: User.self)
        } catch {
            switch error.code {
            case .serialization: print("refused:", error.serializationError?.code as Any)
            case .connection: print("transport:", error.connectionError?.code as Any)
            default: print(error.code)
            }
            print(error.afNetworkingCode ?? 0, error.localizedDescription)
        }
        // end doc
    }

    func lowLevelConnection() async throws {
        // doc: Sources/Courier/Courier.docc/LowLevelConnections.md 1
        let connection = try await HTTP1Connection.connect(host: "example.com", port: 443, tls: .default)
        try await connection.sendHead(method: .get, target: "/")
        let response = try await connection.receiveResponse()
        print(response.head.status, response.head.headers.first(name: "content-type") ?? "")
        for try await slice in response.body { consume(slice) }   // slices of the receive buffer, no copy
        if connection.isReusable {
            try await connection.send(method: .post, target: "/echo", body: ByteBuffer(string: "hello"))
            let reply = try await connection.receiveResponse()
            print(try await reply.body.collect(upTo: 1 << 20).readableBytes)
        }
        await connection.close()
        // end doc
    }

    func lowLevelOptions() async throws {
        // doc: Sources/Courier/Courier.docc/LowLevelConnections.md 2
        var options = HTTP1ConnectionOptions()
        options.idleTimeout = .seconds(20)                    // no byte moved while waiting on the peer
        options.readAheadLimit = 64 * 1024                    // read at most 64 KiB ahead of the consumer
        options.maximumReceiveRate = 1_000_000                // curl --limit-rate, bytes per second
        let slow = try await HTTP1Connection.connect(host: "example.com", port: 80, options: options)
        await slow.close()
        // end doc
    }

    func lowLevelPool() async throws {
        // doc: Sources/Courier/Courier.docc/LowLevelConnections.md 3
        let pool = ConnectionPool()
        let origin = ConnectionPool.Origin(scheme: "https", host: "example.com", port: 443)
        let text = try await pool.execute(origin: origin, method: .get) { connection in
            try await connection.send(method: .get, target: "/")
            return try await connection.receiveResponse().body.collect(upTo: 1 << 20).readableString
        }
        print(text)
        await pool.shutdown()
        // end doc
    }

    func streamingDownload() async throws {
        // doc: Sources/Courier/Courier.docc/StreamingAndBackPressure.md 1
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/big.log"))
        let streamed = try await session.streamTask(with: request).value
        print(streamed.head.status)
        var received = 0
        for try await slice in streamed.body {              // ByteBuffer slices, zero copy
            received += slice.readableBytes                 // the next slice is read while this one is used
        }
        print(received)
        // end doc
    }

    func streamingUpload() async throws {
        // doc: Sources/Courier/Courier.docc/StreamingAndBackPressure.md 2
        struct Countdown: AsyncBodyStream {
            var isReplayable: Bool { true }                 // a redirect or a retry may send it again
            func makeAsyncReader() throws -> any AsyncBodyReader { Reader() }
            struct Reader: AsyncBodyReader {
                var left = 3
                mutating func next() async throws -> ByteBuffer? {
                    guard left > 0 else { return nil }
                    left -= 1
                    return ByteBuffer(string: "line \(left)\n")
                }
            }
        }

        let upload = HTTPRequest(method: .put, uri: try URI(parsing: "https://example.com/log"),
                                 body: .asyncStream(length: nil, Countdown()))   // no length: sent chunked
        let task = Session().dataTask(with: upload)
        print(await task.response.head?.status ?? 0)
        // end doc
    }

    func certificatePinning() async throws {
        // doc: Sources/Courier/Courier.docc/SecurityPolicyAndPinning.md 1
        var policy = SecurityPolicy(pinningMode: .certificate,
                                    pinnedCertificates: try await SecurityPolicy.certificates(inDirectory: "/etc/myapp/pins"))
        policy.validatesDomainName = true
        var configuration = SessionConfiguration()
        configuration.securityPolicy = policy
        let pinned = try HTTPClient(baseURL: "https://api.example.com/", configuration: configuration)
        print(pinned.baseURL?.description ?? "")
        // end doc
    }

    func publicKeyPins() throws {
        // doc: Sources/Courier/Courier.docc/SecurityPolicyAndPinning.md 2
        var keys = SecurityPolicy(pinningMode: .publicKey)
        keys.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        var pinnedKeys = SessionConfiguration()
        pinnedKeys.securityPolicy = keys
        print(keys.pinningMode)
        // end doc
    }

    func challengeHandler() {
        // doc: Sources/Courier/Courier.docc/SecurityPolicyAndPinning.md 3
        let session = Session()
        session.setChallengeHandler { challenge in
            switch challenge {
            case .serverTrust(let trust) where trust.host == "internal.example":
                return .performDefaultHandling
            case .serverTrust:
                return .rejectProtectionSpace
            case .httpAuthentication(_, _, let previousFailureCount):
                return previousFailureCount == 0 ? .useCredential(Credential(user: "ada", password: "lovelace"))
                                                 : .rejectProtectionSpace
            }
        }
        // end doc
    }

    func errorCodes() async throws {
        // doc: Sources/Courier/Courier.docc/ErrorsAndCodes.md 1
        let client = try HTTPClient(baseURL: "https://api.example.com/v1")
        do {
            _ = try await client.get("reports/today", serializer: DataResponseSerializer())
        } catch {
            if error.code == .connection, let transport = error.connectionError {
                print(transport.code, transport.tlsError?.code as Any, transport.parserError?.code as Any)
            } else if error.code == .serialization, let refused = error.serializationError {
                print(refused.code.afNetworkingCode)          // -1011 for a status, -1016 for a content type
            }
            print(error.afNetworkingCode ?? 0, error.localizedDescription)
        }
        // end doc
    }
}
