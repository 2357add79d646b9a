// The README's library examples, compiled (and run as far as they can run without a network), so
// the front page cannot drift from the API. `import Courier` alone, as the README shows: this
// target depends on Courier only (scripts/check-sources holds every target to its declared
// dependencies), so a type the README uses that Courier does not re-export fails the build here.
// Each block between `// doc: README.md N` and `// end doc` is the README's Nth swift block, line
// for line (scripts/check-doc-examples compares them).

import Courier
import Testing

/// The low-level example hands each body slice to this.
private func consume(_ slice: ByteBuffer) {}

@Suite struct ReadmeExamplesTests {
    @Test func clientsBuildAsTheREADMEShows() throws {
        let client = try HTTPClient(baseURL: "https://api.example.com/v1")
        #expect(try client.url(for: "users/42").description == "https://api.example.com/v1/users/42")

        let session = Session()
        let api = try HTTPClient(baseURL: "https://api.example.com/v1", session: session)
        let uploads = try HTTPClient(baseURL: "https://api.example.com/uploads/", session: session)
        #expect(api.session === uploads.session)
        #expect(uploads.baseURL?.description == "https://api.example.com/uploads/")

        var configuration = SessionConfiguration()
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        configuration.securityPolicy = policy
        _ = try HTTPClient(baseURL: "https://example.com/", configuration: configuration)
    }

    // Not run against a server: what follows only has to compile with the README's shapes.

    func getShape() async throws {
        // doc: README.md 1
        struct User: Decodable, Sendable { let id: Int; let name: String }
        struct Order: Decodable, Sendable { let id: Int; let total: Int }

        let client = try HTTPClient(baseURL: "https://api.example.com/v1")   // form requests, JSON responses
        let (user, response) = try await client.get("users/42", as: User.self)   // https://api.example.com/v1/users/42
        let (orders, _) = try await client.get("orders", parameters: ["page": 2], as: [Order].self)
        let (avatar, _) = try await client.get("users/42/avatar", serializer: DataResponseSerializer())   // ByteBuffer
        // end doc
        _ = (user.name, response.status, orders.count, avatar.readableBytes)
    }

    func sharedSessionShape() throws {
        // doc: README.md 2
        let session = Session()
        let api = try HTTPClient(baseURL: "https://api.example.com/v1", session: session)
        let uploads = try HTTPClient(baseURL: "https://api.example.com/uploads/", session: session)
        // end doc
        _ = (api, uploads)
    }

    func uploadShape(_ uploads: HTTPClient<FormRequestSerializer, JSONResponseSerializer>) async throws {
        // doc: README.md 3
        let (json, _) = try await uploads.post("photos", parameters: ["album": "trips"],
                                               uploadProgress: { p in print(p.completed, p.total ?? 0) }) { form in
            try await form.appendFile(atPath: "/tmp/photo.jpg", name: "file")   // examined off the cooperative pool
        }
        // end doc
        _ = json
    }

    func downloadShape() async throws {
        // doc: README.md 4
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/big.iso"))
        let first = await session.downloadTask(with: request) { _, _ in "/tmp/big.iso" }.response
        if case .failure = first.result, let resume = first.resumeData {
            // Range + If-Range; a 206 is appended only if it continues the partial file.
            let second = await session.downloadTask(resumingWith: resume) { _, _ in "/tmp/big.iso" }.response
            print(second.result)
        }
        // end doc
    }

    func pinningShape() throws {
        // doc: README.md 5
        var configuration = SessionConfiguration()
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        configuration.securityPolicy = policy
        let pinned = try HTTPClient(baseURL: "https://example.com/", configuration: configuration)
        // end doc
        _ = pinned
    }

    func connectionShape() async throws {
        // doc: README.md 6
        let connection = try await HTTP1Connection.connect(host: "example.com", port: 443, tls: .default)
        try await connection.sendHead(method: .get, target: "/")
        let response = try await connection.receiveResponse()
        for try await slice in response.body { consume(slice) }
        await connection.close()
        // end doc
    }
}
