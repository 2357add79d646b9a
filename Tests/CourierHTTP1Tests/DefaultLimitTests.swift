// The default limits themselves (design §5), at their edges. The split harness runs every case at
// small custom limits (ResponseHeadParserTests); here the real defaults are checked whole, one byte
// at a time and at a few cuts, since every two-way split of a 64 KiB head would be quadratic.
import Testing
@_spi(Fuzzing) import CourierHTTP1
import CourierTestSupport

@Suite struct DefaultLimitTests {
    /// A response head of exactly `size` bytes: a status line, one field padded to fit, CRLF CRLF.
    func head(ofSize size: Int) -> [UInt8] {
        let prefix = Array("HTTP/1.1 204 No Content\r\nX-Pad: ".utf8)
        let suffix = Array("\r\n\r\n".utf8)
        return prefix + [UInt8](repeating: UInt8(ascii: "a"), count: size - prefix.count - suffix.count) + suffix
    }

    func cuts(_ input: [UInt8]) -> [[[UInt8]]] {
        [[input], input.map { [$0] }, [Array(input[..<1]), Array(input[1...])],
         [Array(input[..<(input.count / 2)]), Array(input[(input.count / 2)...])],
         [Array(input.dropLast()), [input.last!]]]
    }

    @Test func aHeadOfExactly64KiBIsAccepted() {
        #expect(HTTP1ParserLimits.default.maxHeadSize == 64 * 1024)
        let input = head(ofSize: 64 * 1024)
        for chunks in cuts(input) {
            let transcript = HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false)
            #expect(transcript.error == nil)
            #expect(transcript.events.first?.hasPrefix("head 204") == true)
        }
    }

    @Test func oneByteMoreIsHeadTooLargeAtTheLimit() {
        let input = head(ofSize: 64 * 1024 + 1)
        for chunks in cuts(input) {
            let transcript = HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false)
            #expect(transcript.error == HTTPParserError(.headTooLarge, offset: 64 * 1024))
            #expect(transcript.events.isEmpty)
        }
    }

    @Test func aHundredFieldsAreAcceptedAndOneMoreIsNot() {
        func response(fields: Int) -> [UInt8] {
            var text = "HTTP/1.1 200 OK\r\n"
            for i in 0..<fields { text += "X-F\(i): v\r\n" }
            return Array((text + "Content-Length: 0\r\n\r\n").utf8)
        }
        // 99 + Content-Length = 100 fields; 100 + Content-Length = 101.
        let ok = HTTP1Fuzzing.parseResponse([response(fields: 99)], closeAtEnd: false)
        #expect(ok.error == nil)
        let tooMany = HTTP1Fuzzing.parseResponse(response(fields: 100).map { [$0] }, closeAtEnd: false)
        #expect(tooMany.error?.code == .tooManyFields)
    }

    @Test func sixteenInterimResponsesAreSkippedAndTheSeventeenthIsRefused() {
        let interim = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
        let final = Array("HTTP/1.1 204 No Content\r\n\r\n".utf8)
        let sixteen = Array(repeating: interim, count: 16).flatMap { $0 } + final
        let ok = HTTP1Fuzzing.parseResponse([sixteen], closeAtEnd: false)
        #expect(ok.error == nil)
        #expect(ok.events.filter { $0.hasPrefix("interim 100") }.count == 16)
        let seventeen = Array(repeating: interim, count: 17).flatMap { $0 } + final
        for chunks in [[seventeen], seventeen.map { [$0] }] {
            #expect(HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false).error?.code == .tooManyInterimResponses)
        }
    }
}
