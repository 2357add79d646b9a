// Shared checks for the JSON tests. JSONParser is a whole-input parser, so instead of the split
// harness (for streaming parsers) every case runs: whole; at every prefix (a prefix is rejected,
// or parses as a different, shorter document such as "12" of "123"; once the prefix includes the
// byte an error was reported at, the error is the same); followed by whitespace (same outcome)
// and by garbage (rejected at the garbage); and through the streaming sanitizer, which must
// agree with the parser in null-removing mode.

import Testing
@testable @_spi(Fuzzing) import CourierJSON

/// What parsing produced.
enum ParseOutcome: Equatable, CustomStringConvertible {
    case value(JSONValue)
    case failure(JSONError)

    var description: String {
        switch self {
        case .value(let value): return "value \(value)"
        case .failure(let error): return "\(error)"
        }
    }

    var error: JSONError? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

func parseOutcome(_ bytes: [UInt8], limits: JSONParser.Limits = .init(), removesNulls: Bool = false) -> ParseOutcome {
    do {
        return .value(try JSONParser(limits: limits, removesNullValues: removesNulls).parse(bytes))
    } catch {
        return .failure(error)
    }
}

func sanitizeOutcome(_ bytes: [UInt8], limits: JSONParser.Limits = .init()) -> Result<[UInt8], JSONError> {
    Result { () throws(JSONError) in try JSONNullSanitizer(limits: limits).sanitize(bytes) }
}

/// The scalar reference parser's outcome.
func referenceOutcome(_ bytes: [UInt8], limits: JSONParser.Limits = .init(), removesNulls: Bool = false) -> ParseOutcome {
    do {
        return .value(try JSONReferenceParser(limits: limits, removesNullValues: removesNulls).parse(bytes))
    } catch {
        return .failure(error)
    }
}

/// Checks that the vector parser (JSONParser through a JSONDocument) and the scalar reference
/// agree on `bytes`, with and without null removal: the same tree, or the same error code at
/// the same offset. Returns a failure message.
func referenceDisagreement(_ bytes: [UInt8], limits: JSONParser.Limits = .init()) -> String? {
    for removesNulls in [false, true] {
        let vector = parseOutcome(bytes, limits: limits, removesNulls: removesNulls)
        let reference = referenceOutcome(bytes, limits: limits, removesNulls: removesNulls)
        if vector != reference { return "vector \(vector) != reference \(reference) (removesNulls: \(removesNulls))" }
    }
    return nil
}

/// Codes a cut-short input may end with.
let endCodes: Set<JSONError.Code> = [.unexpectedEndOfInput, .emptyInput]

/// Checks that the streaming sanitizer agrees with the tree form on `bytes`: the same error, or
/// output equal to the compact writing of the null-removed tree. Returns a failure message.
func sanitizerDisagreement(_ bytes: [UInt8], limits: JSONParser.Limits = .init()) -> String? {
    if let problem = referenceDisagreement(bytes, limits: limits) { return problem }
    let tree = parseOutcome(bytes, limits: limits, removesNulls: true)
    let streamed = sanitizeOutcome(bytes, limits: limits)
    switch (tree, streamed) {
    case (.value(let value), .success(let output)):
        let written = JSONWriter.write(value)
        return written == output ? nil : "tree \(String(decoding: written, as: UTF8.self)) != stream \(String(decoding: output, as: UTF8.self))"
    case (.failure(let a), .failure(let b)):
        return a == b ? nil : "tree \(a) != stream \(b)"
    default:
        return "tree \(tree) vs stream \(streamed)"
    }
}

/// Runs every consistency check on `input` and returns the whole-input outcome.
@discardableResult
func checkAllWays(_ input: [UInt8], limits: JSONParser.Limits = .init(),
                  sourceLocation: SourceLocation = #_sourceLocation) -> ParseOutcome {
    let whole = parseOutcome(input, limits: limits)
    if let problem = referenceDisagreement(input, limits: limits) {
        Issue.record("\(String(decoding: input.prefix(80), as: UTF8.self).debugDescription): \(problem)", sourceLocation: sourceLocation)
    }
    let label = String(decoding: input.prefix(80), as: UTF8.self).debugDescription
    // Prefixes.
    // A byte order mark cut short is not one (its first byte cannot start a value).
    let hasByteOrderMark = input.starts(with: [0xEF, 0xBB, 0xBF])
    for length in 0..<input.count where !(hasByteOrderMark && length > 0 && length < 3) {
        let prefix = Array(input[..<length])
        let outcome = parseOutcome(prefix, limits: limits)
        if let error = whole.error, !endCodes.contains(error.code), length > error.offset {
            // Errors reported at the start of a multi-byte construct (a UTF-8 sequence, a
            // surrogate escape) are only detected further on; before that the prefix is cut short.
            let detectedLater = error.code == .invalidUTF8 || error.code == .loneSurrogateEscape
            let cutShort = outcome.error.map { endCodes.contains($0.code) && $0.offset == length } ?? false
            #expect(outcome == whole || (detectedLater && cutShort), "prefix \(length) of \(label): \(outcome)",
                    sourceLocation: sourceLocation)
        } else if let error = outcome.error {
            #expect(endCodes.contains(error.code) && error.offset == length,
                    "prefix \(length) of \(label): \(error)", sourceLocation: sourceLocation)
        }
    }
    // Trailing bytes.
    if case .value = whole {
        for spaces in [" ", "\n", "\r\n\t "] {
            #expect(parseOutcome(input + Array(spaces.utf8), limits: limits) == whole,
                    "\(label) + whitespace", sourceLocation: sourceLocation)
        }
        for garbage in ["x", ",", "]", "}", "\u{0}", "{}", " \"s\""] {
            let offset = input.count + (garbage.hasPrefix(" ") ? 1 : 0)
            #expect(parseOutcome(input + Array(garbage.utf8), limits: limits) == .failure(JSONError(.trailingData, offset: offset)),
                    "\(label) + garbage \(garbage.debugDescription)", sourceLocation: sourceLocation)
        }
    }
    // The sanitizer agrees with the tree form.
    if let problem = sanitizerDisagreement(input, limits: limits) {
        Issue.record("sanitizer disagrees on \(label): \(problem)", sourceLocation: sourceLocation)
    }
    // Round trip: parse → write compact → parse is identical.
    if case .value(let value) = whole {
        #expect(parseOutcome(JSONWriter.write(value), limits: limits) == whole, "round trip of \(label)", sourceLocation: sourceLocation)
        #expect(parseOutcome(JSONWriter.write(value, options: .prettyPrinted), limits: limits) == whole,
                "pretty round trip of \(label)", sourceLocation: sourceLocation)
    }
    return whole
}

/// Expects `text` to be rejected with `code` at `offset`, checked every way.
func expectRejected(_ text: String, _ code: JSONError.Code, at offset: Int,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    expectRejected(Array(text.utf8), code, at: offset, sourceLocation: sourceLocation)
}

func expectRejected(_ bytes: [UInt8], _ code: JSONError.Code, at offset: Int,
                    sourceLocation: SourceLocation = #_sourceLocation) {
    let outcome = checkAllWays(bytes, sourceLocation: sourceLocation)
    #expect(outcome == .failure(JSONError(code, offset: offset)),
            "\(String(decoding: bytes, as: UTF8.self).debugDescription)", sourceLocation: sourceLocation)
}

/// Expects `text` to parse to `expected`, checked every way.
func expectParses(_ text: String, _ expected: JSONValue, sourceLocation: SourceLocation = #_sourceLocation) {
    let outcome = checkAllWays(Array(text.utf8), sourceLocation: sourceLocation)
    #expect(outcome == .value(expected), "\(text.debugDescription)", sourceLocation: sourceLocation)
}

/// Parses text that must be valid.
func mustParse(_ text: String, removesNulls: Bool = false) throws -> JSONValue {
    try JSONParser(removesNullValues: removesNulls).parse(Array(text.utf8))
}
