// Shared helpers: every parser case goes through `SplitHarness.run` (whole, byte by byte, every
// two-way split, with trailing bytes), comparing transcripts built by the public entry points.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

typealias Transcript = HTTP1Transcript
typealias RequestInfo = HTTP1ClientStateMachine.RequestInfo

let get = RequestInfo(method: .get)

extension HTTP1ClientStateMachine {
    /// Ends the request body, dropping the framing bytes (tests of the receive side).
    mutating func endBody() throws(HTTPEncodingError) {
        var list = GatherList()
        try sendEnd(into: &list)
    }
}

/// Parses a response through the client connection at every cut and returns the transcript.
func response(
    _ input: [UInt8],
    request: RequestInfo = get,
    close: Bool = true,
    trailing: [UInt8] = [],
    expectedWithTrailing: Transcript? = nil,
    limits: HTTP1ParserLimits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Transcript {
    let (outcome, mismatches) = SplitHarness.run(input, trailing: trailing, expectedWithTrailing: expectedWithTrailing) { chunks in
        HTTP1Fuzzing.parseResponse(chunks, request: request, closeAtEnd: close, limits: limits)
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
    return outcome
}

/// Decodes a chunked body at every cut and returns the transcript.
func chunked(
    _ input: [UInt8],
    close: Bool = false,
    trailing: [UInt8] = [],
    expectedWithTrailing: Transcript? = nil,
    limits: HTTP1ParserLimits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Transcript {
    let (outcome, mismatches) = SplitHarness.run(input, trailing: trailing, expectedWithTrailing: expectedWithTrailing) { chunks in
        HTTP1Fuzzing.decodeChunked(chunks, closeAtEnd: close, limits: limits)
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
    return outcome
}

/// Parses a request (head, framing, body) at every cut and returns the transcript.
func request(
    _ input: [UInt8],
    close: Bool = false,
    trailing: [UInt8] = [],
    expectedWithTrailing: Transcript? = nil,
    limits: HTTP1ParserLimits = .default,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Transcript {
    let (outcome, mismatches) = SplitHarness.run(input, trailing: trailing, expectedWithTrailing: expectedWithTrailing) { chunks in
        HTTP1Fuzzing.parseRequest(chunks, closeAtEnd: close, limits: limits)
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
    return outcome
}

/// The offset of the first occurrence of `needle` in `haystack` (test inputs locate their faults
/// with it instead of hand-counted numbers).
func offset(of needle: String, in haystack: [UInt8]) -> Int {
    let n = Array(needle.utf8)
    if n.count <= haystack.count {
        for i in 0...(haystack.count - n.count) where Array(haystack[i..<(i + n.count)]) == n { return i }
    }
    Issue.record("\(needle.debugDescription) not found")
    return -1
}

extension HTTP1Transcript {
    /// The error code, for short assertions.
    var code: HTTPParserError.Code? { error?.code }
}

/// Bytes from text with `\n` line ends turned into CRLF, followed by raw `body` bytes.
func message(_ head: String, _ body: String = "") -> [UInt8] {
    crlf(head) + Array(body.utf8)
}
