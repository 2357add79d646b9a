// Runs http-tests/cache-tests' suites (CacheTestsSuite+*.swift) against a Session with an
// HTTPCache, an in-process origin on the loopback server, and an injected clock: the origin's
// Date, Expires and Last-Modified come from the same clock the cache reads, and a test's
// `pause_after` moves that clock 3 s instead of sleeping.
//
// The origin does what their server (test-engine/server/handle-test.mjs) does: it picks the
// request's configuration by its Req-Num field, answers 304 to a validation it expected (and
// 999 to one that was not conditional), sends Server-Request-Count, rewrites integer dates
// against its now and relative Location / Content-Location, and records what it saw. The checks
// are their client's (test-engine/client/test.mjs): a failure of a check marked as setup is a
// setup failure, not a test failure.

import Courier
import CourierBytes
import CourierCache
import CourierHTTP1
import CourierLoopbackServer
import CourierURL
import Synchronization

/// The clock the cache and the origin share (seconds since the epoch).
final class ManualCacheClock: Sendable {
    private let seconds: Mutex<Int64>
    init(_ start: Int64 = 1_795_000_000) { seconds = Mutex(start) }
    var now: Int64 { seconds.withLock { $0 } }
    func advance(_ by: Int64) { seconds.withLock { $0 += by } }
}

/// What became of one test.
enum CacheTestOutcome: Sendable, Equatable {
    case pass
    case fail(String)
    case setupFail(String)
}

private struct CheckFailure: Error {
    var setup: Bool
    var message: String
}

private func check(_ setup: Bool, _ condition: Bool, _ message: @autoclosure () -> String) throws(CheckFailure) {
    if !condition { throw CheckFailure(setup: setup, message: message()) }
}

/// What the origin saw of one request.
struct OriginRecord: Sendable {
    var requestNumber: Int?
    var method: String
    var headers: HTTPHeaders
    /// The checked response fields as sent: name → the values so far joined with ", ".
    var responseHeaders: [(String, String)]
}

/// The in-process origin: one configuration per test identifier.
final class CacheTestOrigin: Sendable {
    private struct Test: Sendable {
        var requests: [R]
        var seen: [OriginRecord] = []
        /// The fields each request's response was sent with (for the next validation).
        var sent: [Int: HTTPHeaders] = [:]
    }
    private let tests = Mutex<[String: Test]>([:])
    let clock: ManualCacheClock

    init(clock: ManualCacheClock) { self.clock = clock }

    func register(_ uuid: String, requests: [R]) { tests.withLock { $0[uuid] = Test(requests: requests) } }

    func records(_ uuid: String) -> [OriginRecord] { tests.withLock { $0[uuid]?.seen ?? [] } }

    static func rfc850(_ seconds: Int64) -> String {
        let imf = HTTPDate.format(seconds)  // "Sun, 06 Nov 1994 08:49:37 GMT"
        let days = ["Sun": "Sunday", "Mon": "Monday", "Tue": "Tuesday", "Wed": "Wednesday", "Thu": "Thursday", "Fri": "Friday",
                    "Sat": "Saturday"]
        let parts = imf.split(separator: " ")
        let day = days[String(parts[0].dropLast())] ?? "Sunday"
        return "\(day), \(parts[1])-\(parts[2])-\(parts[3].suffix(2)) \(parts[4]) GMT"
    }

    static let dateFields: Set<String> = ["date", "expires", "last-modified", "if-modified-since", "if-unmodified-since"]

    /// Their fixupHeader: integer dates against `now`, relative locations against the base URL.
    static func fixup(_ name: String, _ value: CTValue, now: Int64, base: String, config: R) -> String {
        let lower = name.lowercased()
        var text: String
        switch value {
        case .delta(let delta) where dateFields.contains(lower):
            text = config.rfc850.contains(lower) ? rfc850(now + Int64(delta)) : HTTPDate.format(now + Int64(delta))
        case .delta(let delta): text = String(delta)
        case .text(let t): text = t
        }
        if (lower == "location" || lower == "content-location") && config.magicLocations {
            text = text.isEmpty ? base : base + "/" + text
        }
        return text
    }

    func respond(_ request: LoopbackRequest) -> [LoopbackAction] {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count >= 2 else { return [.response(status: 404, body: "no test")] }
        let uuid = String(parts[1])
        let now = clock.now
        return tests.withLock { all -> [LoopbackAction] in
            guard var test = all[uuid] else { return [.response(status: 409, body: "no such test")] }
            let serverNumber = test.seen.count + 1
            let clientNumber = request.headers.first(name: "Req-Num").flatMap { Int($0) }
            let number = clientNumber ?? serverNumber
            guard number >= 1, number <= test.requests.count else { return [.response(status: 409, body: "no config")] }
            let config = test.requests[number - 1]
            var status = config.status ?? 200
            var reason = config.reason ?? ResponseHeadEncoder.standardReasonPhrase(for: status)
            if config.expectedType == .lmValidated || config.expectedType == .etagValidated {
                let previous = test.sent[number - 1] ?? HTTPHeaders()
                var notModified = false
                if let lm = previous.first(name: "Last-Modified"), request.headers.first(name: "If-Modified-Since") == lm { notModified = true }
                if let tag = previous.first(name: "ETag"), request.headers.first(name: "If-None-Match") == tag { notModified = true }
                (status, reason) = notModified ? (304, "Not Modified") : (999, "304 Not Generated")
            }
            let base = request.path
            var fields: [(String, String)] = [("Server-Base-Url", base), ("Server-Request-Count", String(serverNumber)),
                                              ("Client-Request-Count", clientNumber.map(String.init) ?? "NaN"),
                                              ("Server-Now", String(now))]
            var saved: [(String, String)] = []
            for header in config.responseHeaders {
                let value = Self.fixup(header.name, header.value, now: now, base: base, config: config)
                fields.append((header.name, value))
                if header.checked {
                    let joined = fields.filter { $0.0.lowercased() == header.name.lowercased() }.map(\.1).joined(separator: ", ")
                    saved.removeAll { $0.0.lowercased() == header.name.lowercased() }
                    saved.append((header.name, joined))
                }
            }
            if !fields.contains(where: { $0.0.lowercased() == "content-type" }) { fields.append(("Content-Type", "text/plain")) }
            test.seen.append(OriginRecord(requestNumber: clientNumber, method: request.method, headers: request.headers,
                                          responseHeaders: saved))
            test.sent[number] = HTTPHeaders(fields)
            all[uuid] = test
            if config.disconnect { return [.close] }
            var text = "HTTP/1.1 \(status) \(reason)\r\n"
            for (name, value) in fields { text += "\(name): \(value)\r\n" }
            if status == 204 || status == 304 {
                text += "\r\n"
            } else {
                let body = request.method == "HEAD" ? "" : (config.responseBody ?? uuid)
                if !fields.contains(where: { $0.0.lowercased() == "content-length" }) {
                    text += "Content-Length: \((config.responseBody ?? uuid).utf8.count)\r\n"
                }
                text += "\r\n" + body
            }
            return [.text(text)]
        }
    }
}

/// Runs one test on a fresh cache and session.
func runCacheTest(_ test: T, uuid: String, server: LoopbackServer, origin: CacheTestOrigin) async -> CacheTestOutcome {
    let clock = origin.clock
    origin.register(uuid, requests: test.requests)
    let cache = HTTPCache(memoryCapacity: HTTPCache.defaultMemoryCapacity, diskCapacity: 0, directory: nil, keysCredentials: true,
                          clock: { clock.now })
    var configuration = SessionConfiguration()
    configuration.cache = cache
    configuration.followsRedirects = false
    configuration.connectTimeout = .seconds(5)
    configuration.idleTimeout = .seconds(10)
    let session = Session(configuration: configuration)
    defer { Task { await session.invalidateAndCancel() } }
    var responses: [(head: HTTPResponseHead, body: String)?] = []
    do throws(CheckFailure) {
        for (index, config) in test.requests.enumerated() {
            let number = index + 1
            var path = "/test/\(uuid)"
            if let filename = config.filename { path += "/\(filename)" }
            var headers = HTTPHeaders()
            let previous = responses.last??.head.headers
            for header in config.requestHeaders {
                var value: String
                if config.magicIMS, header.name.lowercased() == "if-modified-since", case .delta(let delta) = header.value,
                   let previous, let base = previous.first(name: "Server-Now").flatMap({ Int64($0) }) {
                    value = HTTPDate.format(base + Int64(delta))
                } else {
                    switch header.value {
                    case .text(let t): value = t
                    case .delta(let d): value = String(d)
                    }
                }
                headers.add(name: header.name, value: value)
            }
            headers.add(name: "Req-Num", value: String(number))
            let body: HTTPRequest.Body = config.requestBody.map { .bytes(ByteBuffer(bytes: Array($0.utf8))) } ?? .none
            let request = HTTPRequest(method: try! HTTPMethod(config.method ?? "GET"), uri: try! URI(parsing: "http://127.0.0.1:\(server.port)\(path)"), headers: headers, body: body)
            let response = await session.dataTask(with: request).response
            // Any status is an answer here (the serializer's 2xx validation is not the cache's).
            var answered = false
            if case .success = response.result { answered = true }
            if case .failure(let error) = response.result, error.code == .serialization { answered = true }
            guard answered, let head = response.head else {
                let reason = response.result.failureMessage ?? "no response"
                responses.append(nil)
                throw CheckFailure(setup: false, message: "request \(number) failed: \(reason)")
            }
            let text = String(decoding: response.body?.readableBytesArray ?? [], as: UTF8.self)
            responses.append((head, text))
            try checkResponse(config, number: number, head: head, body: text, uuid: uuid)
            if config.pauseAfter { clock.advance(3) }
        }
        try checkOrigin(test.requests, responses: responses, records: origin.records(uuid))
    } catch {
        return error.setup ? .setupFail(error.message) : .fail(error.message)
    }
    return .pass
}

extension Result where Failure == SessionError {
    var failureMessage: String? {
        if case .failure(let error) = self { return "\(error.code.rawValue): \(error.message)" }
        return nil
    }
}

private func joined(_ headers: HTTPHeaders, _ name: String) -> String? {
    let values = headers[name]
    return values.isEmpty ? nil : values.joined(separator: ", ")
}

private func checkResponse(_ config: R, number: Int, head: HTTPResponseHead, body: String, uuid: String) throws(CheckFailure) {
    let headers = head.headers
    let served = headers.first(name: "Server-Request-Count").flatMap { Int($0) }
    if let type = config.expectedType {
        let setup = config.isSetup("expected_type")
        if type == .cached, !(head.status == 304 && served == nil) {
            try check(setup, (served ?? Int.max) < number, "Response \(number) does not come from cache")
        }
        if type == .notCached { try check(setup, served == number, "Response \(number) comes from cache") }
    }
    if let expected = config.expectedStatus {
        if let expected { try check(config.isSetup("expected_status"), head.status == expected, "Response \(number) status is \(head.status), not \(expected)") }
    } else if let status = config.status {
        try check(true, head.status == status, "Response \(number) status is \(head.status), not \(status)")
    } else if head.status == 999 {
        try check(config.isSetup("expected_type"), false, "Request \(number) should have been conditional, but it was not.")
    } else {
        try check(true, head.status == 200, "Response \(number) status is \(head.status), not 200")
    }
    let now = headers.first(name: "Server-Now").flatMap { Int64($0) } ?? 0
    let setup = config.isSetup("expected_response_headers")
    for expectation in config.expectedResponseHeaders {
        switch expectation {
        case .present(let name):
            try check(setup, headers.contains(name: name), "Response \(number) \(name) header not present.")
        case .same(let name, let other):
            try check(setup, headers.contains(name: name), "Response \(number) \(name) header not present.")
            try check(setup, joined(headers, name) == joined(headers, other), "Response \(number) header \(name) should match \(other)")
        case .greater(let name, let than):
            try check(setup, headers.contains(name: name), "Response \(number) \(name) header not present.")
            let value = joined(headers, name).flatMap { Int($0.prefix { $0.isNumber }) } ?? Int.min
            try check(setup, value > than, "Response \(number) header \(name) is \(joined(headers, name) ?? "-"), should be bigger than \(than)")
        case .value(let name, let value):
            let expected = CacheTestOrigin.fixup(name, value, now: now, base: "", config: config)
            try check(setup, joined(headers, name) == expected,
                      "Response \(number) header \(name) is \"\(joined(headers, name) ?? "")\", not \"\(expected)\"")
        }
    }
    let missingSetup = config.isSetup("expected_response_headers_missing")
    for expectation in config.expectedResponseHeadersMissing {
        switch expectation {
        case .present(let name):
            try check(missingSetup, !headers.contains(name: name), "Response \(number) includes unexpected header \(name)")
        case .value(let name, .text(let value)):
            try check(missingSetup, !(joined(headers, name) ?? "").contains(value), "Response \(number) header \(name) still has value \"\(value)\"")
        default: break
        }
    }
    if !config.checkBody { return }
    if let expected = config.expectedResponseText {
        if let expected { try check(config.isSetup("expected_response_text"), body == expected, "Response body is \"\(body)\", not \"\(expected)\"") }
    } else if let expected = config.responseBody {
        try check(true, body == expected, "Response body is \"\(body)\", not \"\(expected)\"")
    } else if head.status != 204, head.status != 304, config.method != "HEAD" {
        try check(true, body == uuid, "Response body is \"\(body)\", not \"\(uuid)\"")
    }
}

private func checkOrigin(_ requests: [R], responses: [(head: HTTPResponseHead, body: String)?], records: [OriginRecord]) throws(CheckFailure) {
    var seen = 0
    for (index, config) in requests.enumerated() {
        let number = index + 1
        let setup = config.isSetup("expected_type")
        var validators: [String] = []
        if let type = config.expectedType {
            if type == .cached { continue }
            if type == .notCached {
                try check(setup, seen < records.count && records[seen].requestNumber == number,
                          "Response \(number) comes from cache (\(seen < records.count ? String(records[seen].requestNumber ?? 0) : "nothing") on server)")
            }
            if type == .etagValidated { validators.append("If-None-Match") }
            if type == .lmValidated { validators.append("If-Modified-Since") }
        }
        let record = seen < records.count ? records[seen] : nil
        seen += 1
        for name in validators {
            try check(setup, record != nil, "request \(number) wasn't sent to server")
            try check(setup, record!.headers.contains(name: name), "request \(number) doesn't have \(name.lowercased()) header")
        }
        guard let record else {
            if !config.expectedRequestHeaders.isEmpty || !config.responseHeaders.isEmpty {
                throw CheckFailure(setup: false, message: "request \(number) wasn't sent to server")
            }
            continue
        }
        let present = config.isSetup("expected_request_headers")
        for expectation in config.expectedRequestHeaders {
            switch expectation {
            case .present(let name): try check(present, record.headers.contains(name: name), "Request \(number) \(name) header not present.")
            case .value(let name, .text(let value)):
                try check(present, joined(record.headers, name) == value,
                          "Request \(number) header \(name) is \"\(joined(record.headers, name) ?? "")\", not \"\(value)\"")
            default: break
            }
        }
        let missing = config.isSetup("expected_request_headers_missing")
        for expectation in config.expectedRequestHeadersMissing {
            switch expectation {
            case .present(let name): try check(missing, !record.headers.contains(name: name), "Request \(number) \(name) header present.")
            case .value(let name, .text(let value)):
                try check(missing, joined(record.headers, name) != value, "Request \(number) header \(name) is \"\(value)\"")
            default: break
            }
        }
        if let response = responses[index] {
            for (name, value) in record.responseHeaders where name.lowercased() != "date" {
                let received = joined(response.head.headers, name)
                try check(true, received == value, "Response \(number) header \(name) is \"\(received ?? "")\", not \"\(value)\"")
            }
        }
    }
}
