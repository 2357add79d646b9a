// Where scripts/httpbin/run started httpbin. Without that script the suite is skipped visibly (a
// condition trait), so `swift test` alone stays self-contained.

import Courier
import CourierBytes
import CourierHTTP1
import CourierJSON
import CourierURL
import Glibc
import Testing

enum HTTPBin {
    static var port: UInt16? { getenv("COURIER_HTTPBIN_PORT").flatMap { UInt16(String(cString: $0)) } }
    static var isAvailable: Bool { port != nil }

    /// `http://host:port` + `path`.
    static func url(_ path: String, host: String = "127.0.0.1") -> URI {
        try! URI(parsing: "http://\(host):\(port!)\(path)")
    }

    static func request(_ method: HTTPMethod = .get, _ path: String, headers: HTTPHeaders = HTTPHeaders(),
                        body: HTTPRequest.Body = .none) -> HTTPRequest {
        HTTPRequest(method: method, uri: url(path), headers: headers, body: body)
    }

    /// A session with short timeouts (and whatever `configure` changes).
    static func session(_ configure: (inout SessionConfiguration) -> Void = { _ in }) -> Session {
        var configuration = SessionConfiguration()
        configuration.connectTimeout = .seconds(5)
        configuration.idleTimeout = .seconds(20)
        configure(&configuration)
        return Session(configuration: configuration)
    }

    /// A JSON serializer that accepts any status (to look at 4xx bodies).
    static var anyStatusJSON: JSONResponseSerializer {
        var serializer = JSONResponseSerializer()
        serializer.acceptableStatusCodes = nil
        return serializer
    }
}

/// Runs a data task and returns the JSON body.
func json(_ session: Session, _ request: HTTPRequest, serializer: JSONResponseSerializer = JSONResponseSerializer()) async throws -> JSONValue {
    let value = try await session.dataTask(with: request, serializer: serializer).value
    return try #require(value)
}

/// The task's response, resumed.
func response<Value>(_ task: DataTask<Value>) async -> TaskResponse<Value> {
    task.resume()
    return await task.response
}

extension JSONValue {
    /// A member of a JSON object looked up case-insensitively (header names).
    func member(_ name: String) -> JSONValue? {
        guard let object = objectValue else { return nil }
        for member in object.members where member.key.lowercased() == name.lowercased() { return member.value }
        return nil
    }
}

/// The error of a failed result.
func failure<T>(_ result: Result<T, SessionError>, sourceLocation: SourceLocation = #_sourceLocation) -> SessionError? {
    switch result {
    case .success(let value):
        Issue.record("expected a failure, got \(value)", sourceLocation: sourceLocation)
        return nil
    case .failure(let error):
        return error
    }
}

extension Result {
    /// The value of a success, nil for a failure.
    var successValue: Success? { try? get() }
}
