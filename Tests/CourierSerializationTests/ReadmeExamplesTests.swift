// The README's library examples, compiled (and run as far as they can run without a network), so
// the front page cannot drift from the API.

import Courier
import CourierBytes
import CourierMultipart
import CourierTLS
import CourierURL
import Testing

private struct User: Decodable, Sendable {
    let id: Int
    let name: String
}

@Suite struct ReadmeExamplesTests {
    @Test func clientsBuildAsTheREADMEShows() throws {
        let client = try HTTPClient(baseURL: "https://api.example.com/v1",
                                    requestSerializer: FormRequestSerializer(),
                                    responseSerializer: DecodableResponseSerializer(User.self))
        #expect(try client.url(for: "users/42").description == "https://api.example.com/v1/users/42")

        let uploads = try HTTPClient(baseURL: "https://uploads.example.com/")
        #expect(uploads.baseURL?.description == "https://uploads.example.com/")

        var configuration = SessionConfiguration()
        var policy = SecurityPolicy(pinningMode: .publicKey)
        policy.pinnedPublicKeys = try PublicKeyPin.parseHashes("sha256//r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E=")
        configuration.securityPolicy = policy
        _ = try HTTPClient(baseURL: "https://example.com/", configuration: configuration)
    }

    /// Not run against a server: it only has to compile with the README's shapes.
    func uploadShape(_ uploads: HTTPClient<FormRequestSerializer, JSONResponseSerializer>) async throws {
        let (json, _) = try await uploads.post("photos", parameters: ["album": "trips"],
                                               uploadProgress: { p in print(p.completed, p.total ?? 0) }) { form in
            try form.appendFile(atPath: "/tmp/photo.jpg", name: "file", fileSystem: PosixFileSystem())
        }
        _ = json
    }

    func downloadShape() async throws {
        let session = Session()
        let request = HTTPRequest(method: .get, uri: try URI(parsing: "https://example.com/big.iso"))
        let first = await session.downloadTask(with: request) { _, _ in "/tmp/big.iso" }.result()
        if case .failure = first.result, let resume = first.resumeData {
            let second = await session.downloadTask(resumingWith: resume) { _, _ in "/tmp/big.iso" }.result()
            print(second.result)
        }
    }
}
