// The shape of http-tests/cache-tests' declarative test data (their CONTRIBUTING.md, "Test
// Format"), for the tables in CacheTestsSuite+*.swift. Field names follow theirs.

/// A header value: text, or a date given as seconds from the server's now (their integers).
enum CTValue: Sendable {
    case text(String)
    case delta(Int)
}

/// A header of a request or response: name, value, and whether the response field is checked on
/// the client (their third member, default true).
struct H: Sendable {
    var name: String
    var value: CTValue
    var checked: Bool
    init(_ name: String, _ value: CTValue, checked: Bool = true) {
        self.name = name
        self.value = value
        self.checked = checked
    }
}

/// One expectation about headers.
enum CTExpect: Sendable {
    /// The field is present (or, in a "missing" list, absent).
    case present(String)
    /// The field has this value (or, in a "missing" list, does not contain it).
    case value(String, CTValue)
    /// The field has the same value as another.
    case same(String, as: String)
    /// The field's value is a number greater than this.
    case greater(String, than: Int)
}

/// Where a response should come from.
enum CTType: Sendable {
    case cached, notCached, lmValidated, etagValidated
}

/// The kind of a test: a requirement of the standard, optimal behaviour, or information.
enum CTKind: String, Sendable {
    case required, optimal, check
}

/// One request of a test and what its response should be.
struct R: Sendable {
    var method: String?
    var requestHeaders: [H]
    var requestBody: String?
    var filename: String?
    var magicLocations: Bool
    var magicIMS: Bool
    var rfc850: [String]
    var status: Int?
    var reason: String?
    var responseHeaders: [H]
    var responseBody: String?
    var expectedType: CTType?
    var expectedStatus: Int??
    var expectedRequestHeaders: [CTExpect]
    var expectedRequestHeadersMissing: [CTExpect]
    var expectedResponseHeaders: [CTExpect]
    var expectedResponseHeadersMissing: [CTExpect]
    var expectedResponseText: String??
    var checkBody: Bool
    var pauseAfter: Bool
    var disconnect: Bool
    var setup: Bool
    var setupTests: [String]

    init(method: String? = nil, requestHeaders: [H] = [], requestBody: String? = nil, filename: String? = nil,
         magicLocations: Bool = false, magicIMS: Bool = false, rfc850: [String] = [], status: Int? = nil, reason: String? = nil,
         responseHeaders: [H] = [], responseBody: String?? = nil, expectedType: CTType? = nil, expectedStatus: Int?? = nil,
         expectedRequestHeaders: [CTExpect] = [], expectedRequestHeadersMissing: [CTExpect] = [],
         expectedResponseHeaders: [CTExpect] = [], expectedResponseHeadersMissing: [CTExpect] = [],
         expectedResponseText: String?? = nil, checkBody: Bool = true, pauseAfter: Bool = false, disconnect: Bool = false,
         setup: Bool = false, setupTests: [String] = []) {
        self.method = method
        self.requestHeaders = requestHeaders
        self.requestBody = requestBody
        self.filename = filename
        self.magicLocations = magicLocations
        self.magicIMS = magicIMS
        self.rfc850 = rfc850.map { $0.lowercased() }
        self.status = status
        self.reason = reason
        self.responseHeaders = responseHeaders
        // Their null body is no body given: the server sends the test's identifier.
        self.responseBody = responseBody ?? nil
        self.expectedType = expectedType
        self.expectedStatus = expectedStatus
        self.expectedRequestHeaders = expectedRequestHeaders
        self.expectedRequestHeadersMissing = expectedRequestHeadersMissing
        self.expectedResponseHeaders = expectedResponseHeaders
        self.expectedResponseHeadersMissing = expectedResponseHeadersMissing
        self.expectedResponseText = expectedResponseText
        self.checkBody = checkBody
        self.pauseAfter = pauseAfter
        self.disconnect = disconnect
        self.setup = setup
        self.setupTests = setupTests
    }

    /// Whether a failed check of `member` means the setup failed rather than the test
    /// (their `setupCheck`).
    func isSetup(_ member: String) -> Bool { setup || setupTests.contains(member) }
}

/// One test: several requests in order.
struct T: Sendable {
    var id: String
    var kind: CTKind
    var browserOnly: Bool
    var browserSkip: Bool
    var dependsOn: [String]
    var requests: [R]
    init(_ id: String, kind: CTKind = .required, browserOnly: Bool = false, browserSkip: Bool = false, dependsOn: [String] = [],
         requests: [R]) {
        self.id = id
        self.kind = kind
        self.browserOnly = browserOnly
        self.browserSkip = browserSkip
        self.dependsOn = dependsOn
        self.requests = requests
    }
}

/// A suite of tests.
struct CacheTestSuite: Sendable {
    var id: String
    var tests: [T]
}
