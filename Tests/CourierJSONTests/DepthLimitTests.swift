// Nesting depth (design §5: 512, as corelibs JSONSerialization): enforced with an explicit stack,
// so hostile depth is an error, never a stack overflow, in the parser and in the sanitizer.

import Testing
@testable import CourierJSON

private func nestedArrays(_ depth: Int, inner: String = "") -> [UInt8] {
    Array((String(repeating: "[", count: depth) + inner + String(repeating: "]", count: depth)).utf8)
}

private func nestedObjects(_ depth: Int) -> [UInt8] {
    Array((String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
}

@Test func defaultLimitIs512() {
    #expect(JSONParser.Limits().maxDepth == 512)
}

@Test func depth512ParsesAnd513Fails() {
    #expect(checkAllWays(nestedArrays(512)).error == nil)
    #expect(checkAllWays(nestedArrays(513)) == .failure(JSONError(.depthLimitExceeded, offset: 512)))
    #expect(checkAllWays(nestedObjects(512)).error == nil)
    #expect(checkAllWays(nestedObjects(513)) == .failure(JSONError(.depthLimitExceeded, offset: 512 * 5)))
    // Empty containers count as a level.
    #expect(checkAllWays(nestedArrays(513, inner: "")).error?.code == .depthLimitExceeded)
    #expect(checkAllWays(Array((String(repeating: "[", count: 512) + "{}" + String(repeating: "]", count: 512)).utf8))
            == .failure(JSONError(.depthLimitExceeded, offset: 512)))
}

@Test func veryDeepInputIsRejectedWithoutCrashing() throws {
    let deep = nestedArrays(10_000)
    #expect(parseOutcome(deep) == .failure(JSONError(.depthLimitExceeded, offset: 512)))
    #expect(sanitizeOutcome(deep) == .failure(JSONError(.depthLimitExceeded, offset: 512)))
    let unclosed = Array(repeating: UInt8(ascii: "["), count: 1_000_000)
    #expect(parseOutcome(unclosed) == .failure(JSONError(.depthLimitExceeded, offset: 512)))
    let mixed = Array(String(repeating: "[{\"\":", count: 50_000).utf8)
    #expect(parseOutcome(mixed) == .failure(JSONError(.depthLimitExceeded, offset: 256 * 5)))
}

@Test func deepInputWithinARaisedLimitNeedsNoRecursion() throws {
    // With the limit raised, deep input parses: the parser itself never recurses. (The tree is
    // kept modest because releasing a JSONValue is recursive in the Swift runtime; the sanitizer
    // builds no tree and takes any depth.)
    let limits = JSONParser.Limits(maxDepth: 200_000)
    let parsed = try JSONParser(limits: limits).parse(nestedArrays(5_000, inner: "null"))
    #expect(JSONWriter.write(parsed) == nestedArrays(5_000, inner: "null"))
    let sanitized = try JSONNullSanitizer(limits: limits).sanitize(nestedArrays(150_000, inner: "null"))
    #expect(sanitized == nestedArrays(150_000))
}

@Test func customLimits() {
    let one = JSONParser.Limits(maxDepth: 1)
    #expect(parseOutcome(Array("[1]".utf8), limits: one).error == nil)
    #expect(parseOutcome(Array("[[1]]".utf8), limits: one) == .failure(JSONError(.depthLimitExceeded, offset: 1)))
    #expect(sanitizeOutcome(Array("[[1]]".utf8), limits: one) == .failure(JSONError(.depthLimitExceeded, offset: 1)))
    let zero = JSONParser.Limits(maxDepth: 0)
    #expect(parseOutcome(Array("1".utf8), limits: zero) == .value(1))
    #expect(parseOutcome(Array("[]".utf8), limits: zero) == .failure(JSONError(.depthLimitExceeded, offset: 0)))
    #expect(sanitizeOutcome(Array("{}".utf8), limits: zero) == .failure(JSONError(.depthLimitExceeded, offset: 0)))
}
