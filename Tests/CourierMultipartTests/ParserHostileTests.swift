// Parser against hostile and malformed input: every case through SplitHarness, with the stable
// error code and the offset checked.

import CourierBytes
import CourierMultipart
import CourierTestSupport
import Testing

@Suite struct ParserHostileTests {
    let b = "XyZ"
    var boundary: MultipartBoundary { MultipartBoundary("XyZ")! }

    /// Runs `text` (with \n turned into CRLF unless `raw`) through every cut.
    func run(_ input: [UInt8], limits: MultipartParser.Limits = .init(),
             sourceLocation: SourceLocation = #_sourceLocation) -> ParseOutcome {
        let (outcome, mismatches) = SplitHarness.run(input) { parse(chunks: $0, boundary: boundary, limits: limits) }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(3))", sourceLocation: sourceLocation)
        return outcome
    }

    func expectError(_ input: [UInt8], _ code: MultipartParseError.Code, at offset: Int? = nil,
                     limits: MultipartParser.Limits = .init(), sourceLocation: SourceLocation = #_sourceLocation) {
        let outcome = run(input, limits: limits, sourceLocation: sourceLocation)
        #expect(outcome.error?.code == code, "\(outcome)", sourceLocation: sourceLocation)
        if let offset { #expect(outcome.error?.offset == offset, sourceLocation: sourceLocation) }
    }

    func part(_ head: String, _ body: String = "v") -> String { "--XyZ\n\(head)\n\n\(body)\n" }
    let close = "--XyZ--\n"

    @Test func acceptsTheBasics() {
        let outcome = run(crlf(part("Content-Disposition: form-data; name=\"a\"") + close))
        #expect(outcome.error == nil)
        #expect(outcome.complete)
        #expect(outcome.parts.map(\.head.name) == ["a"])
        #expect(outcome.parts.map(\.body.readableString) == ["v"])
    }

    @Test func acceptsCaseInsensitiveNamesTokensPaddingAndUnknownParameters() {
        let head = "content-DISPOSITION:Form-Data ;\tNAME=plain ; FileName=\"f.txt\"; filename*=UTF-8''x; size=3 "
        let input = crlf("--XyZ  \n\(head)\nX-Other: 1\n\nv\n--XyZ--\t\n")
        let outcome = run(input)
        #expect(outcome.error == nil)
        #expect(outcome.parts.first?.head.name == "plain")
        #expect(outcome.parts.first?.head.fileName == "f.txt")
        #expect(outcome.parts.first?.head.headers.count == 2)
    }

    @Test func preambleAndEpilogue() {
        let input = crlf("This is a preamble.\n" + part("Content-Disposition: form-data; name=\"a\"") + close + "epilogue")
        let outcome = run(input)
        #expect(outcome.error == nil)
        #expect(outcome.parts.count == 1)
        var strict = MultipartParser.Limits()
        strict.maxPreambleBytes = 0
        expectError(input, .missingInitialBoundary, at: 0, limits: strict)
        var short = MultipartParser.Limits()
        short.maxPreambleBytes = 10
        expectError(input, .preambleTooLong, at: 10, limits: short)
    }

    @Test func closeWithoutFinalCRLFAtEndOfInput() {
        let outcome = run(crlf(part("Content-Disposition: form-data; name=\"a\"")) + bytes("--XyZ--"))
        #expect(outcome.error == nil)
        #expect(outcome.complete)
    }

    @Test func truncatedInput() {
        let full = crlf(part("Content-Disposition: form-data; name=\"a\"", "body") + close)
        for cut in [0, 3, 9, 30, full.count - 12, full.count - 4, full.count - 1] {
            let input = Array(full[..<cut])
            expectError(input, .truncated, at: input.count)
        }
    }

    @Test func noParts() {
        expectError(crlf(close), .noParts, at: 5)
    }

    @Test func malformedDelimiters() {
        // Boundary text followed by something else where a delimiter line belongs.
        expectError(crlf("--XyZx\n"), .malformedDelimiter, at: 5)
        expectError(crlf("--XyZ-x\n"), .malformedDelimiter, at: 6)
        expectError(bytes("--XyZ\rx"), .malformedDelimiter, at: 6)
        // The delimiter inside a body, not followed by "--" or CRLF (RFC 2046: must not occur).
        let head = "Content-Disposition: form-data; name=\"a\""
        let input = crlf(part(head, "abc\n--XyZand more") + close)
        let offset = crlf("--XyZ\n\(head)\n\nabc\n--XyZ").count
        expectError(input, .malformedDelimiter, at: offset)
        // A near miss is body data.
        let outcome = run(crlf(part(head, "abc\n--XyY\n--Xy") + close))
        #expect(outcome.parts.first?.body.readableString == "abc\r\n--XyY\r\n--Xy")
    }

    @Test func paddingIsBounded() {
        var limits = MultipartParser.Limits()
        limits.maxDelimiterPadding = 4
        expectError(crlf("--XyZ     \n"), .delimiterPaddingTooLong, at: 9, limits: limits)
        let ok = run(crlf("--XyZ    \nContent-Disposition: form-data; name=a\n\n\n--XyZ--    \n"), limits: limits)
        #expect(ok.error == nil)
    }

    @Test func partCountLimit() {
        var limits = MultipartParser.Limits()
        limits.maxPartCount = 2
        let head = "Content-Disposition: form-data; name=\"a\""
        let two = part(head) + part(head)
        #expect(run(crlf(two + close), limits: limits).error == nil)
        let input = crlf(two + part(head) + close)
        expectError(input, .tooManyParts, at: crlf(two).count + 5, limits: limits)
    }

    @Test func headerBlockLimits() {
        var limits = MultipartParser.Limits()
        limits.maxHeaderBytesPerPart = 64
        let long = "Content-Disposition: form-data; name=\"" + String(repeating: "n", count: 80) + "\""
        expectError(crlf(part(long) + close), .headerBlockTooLarge, at: 7 + 64, limits: limits)
        // A line that never ends is refused once it passes the limit, not buffered forever.
        expectError(bytes("--XyZ\r\n") + [UInt8](repeating: 0x61, count: 100), .headerBlockTooLarge, at: 7 + 64, limits: limits)
        var fields = MultipartParser.Limits()
        fields.maxHeaderFieldsPerPart = 2
        let three = "Content-Disposition: form-data; name=a\nA: 1\nB: 2"
        expectError(crlf(part(three) + close), .tooManyHeaderFields, limits: fields)
    }

    @Test func headerLineSyntax() {
        let cd = "Content-Disposition: form-data; name=a"
        expectError(crlf(part("\(cd)\n folded") + close), .obsoleteLineFolding)
        expectError(crlf(part("\(cd)\nName : v") + close), .malformedHeaderField)
        expectError(crlf(part("\(cd)\n: v") + close), .malformedHeaderField)
        expectError(crlf(part("\(cd)\nNo colon") + close), .malformedHeaderField)
        expectError(crlf(part("\(cd)\nX-A: a\u{0}b") + close), .malformedHeaderField)
        expectError(crlf(part("\(cd)\nX-A: a\u{7F}b") + close), .malformedHeaderField)
        // Bare LF and bare CR.
        expectError(bytes("--XyZ\r\n\(cd)\nX: 1\r\n\r\nv\r\n--XyZ--\r\n"), .malformedHeaderField, at: 7 + cd.utf8.count)
        expectError(bytes("--XyZ\r\n\(cd)\r\nX: 1\r2\r\n\r\nv\r\n--XyZ--\r\n"), .malformedHeaderField)
        // Invalid UTF-8 in a value.
        expectError(bytes("--XyZ\r\n\(cd)\r\nX: ") + [0xC3, 0x28] + bytes("\r\n\r\nv\r\n--XyZ--\r\n"), .invalidUTF8)
    }

    @Test func contentDispositionRules() {
        expectError(crlf(part("X-A: 1") + close), .missingContentDisposition)
        expectError(crlf(part("Content-Disposition: form-data; name=a\ncontent-disposition: form-data; name=b") + close),
                    .duplicateContentDisposition)
        expectError(crlf(part("Content-Disposition: form-data; name=a\nContent-Type: a/b\nContent-Type: c/d") + close),
                    .duplicateContentType)
        expectError(crlf(part("Content-Disposition: attachment; name=a") + close), .notFormData)
        expectError(crlf(part("Content-Disposition: form-data") + close), .missingName)
        expectError(crlf(part("Content-Disposition: form-data; filename=\"x\"") + close), .missingName)
        expectError(crlf(part("Content-Disposition: form-data; name=a; name=b") + close), .duplicateParameter)
        expectError(crlf(part("Content-Disposition: form-data; name=a; filename=x; FILENAME=y") + close), .duplicateParameter)
        for bad in ["form-data; name=\"open", "form-data; name = a", "form-data; name=a b", "form-data name=a",
                    "form-data; name=", "form-data;; name=a", "; name=a", "form-data; =a"] {
            expectError(crlf(part("Content-Disposition: \(bad)") + close), .malformedContentDisposition)
        }
    }

    @Test func errorsAreSticky() {
        var parser = MultipartParser(boundary: boundary)
        parser.receive(crlf(close))
        #expect(throws: MultipartParseError(.noParts, offset: 5)) { try parser.nextEvent() }
        parser.receive(crlf(part("Content-Disposition: form-data; name=a")))
        #expect(throws: MultipartParseError(.noParts, offset: 5)) { try parser.nextEvent() }
    }

    @Test func epilogueIsLeftUnread() throws {
        var parser = MultipartParser(boundary: boundary)
        parser.receive(crlf(part("Content-Disposition: form-data; name=a") + close) + bytes("tail"))
        var sawEnd = false
        while let event = try parser.nextEvent() { if event == .end { sawEnd = true } }
        #expect(sawEnd)
        #expect(parser.remainingBytes.readableString == "tail")
    }
}
