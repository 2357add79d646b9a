// The default limits themselves (design §5), at their edges. The split harness runs every case at
// small custom limits (ResponseHeadParserTests); here the real defaults are checked whole, one byte
// at a time and at a few cuts, since every two-way split of a 256 KiB head would be quadratic.
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

    @Test func aHeadOfExactly256KiBIsAccepted() {
        #expect(HTTP1ParserLimits.default.maxHeadSize == 256 * 1024)
        let input = head(ofSize: 256 * 1024)
        for chunks in cuts(input) {
            let transcript = HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false)
            #expect(transcript.error == nil)
            #expect(transcript.events.first?.hasPrefix("head 204") == true)
        }
    }

    @Test func oneByteMoreIsHeadTooLargeAtTheLimit() {
        let input = head(ofSize: 256 * 1024 + 1)
        for chunks in cuts(input) {
            let transcript = HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false)
            #expect(transcript.error == HTTPParserError(.headTooLarge, offset: 256 * 1024))
            #expect(transcript.events.isEmpty)
        }
    }

    @Test func fiveThousandFieldsAreAcceptedAndOneMoreIsNot() {
        func response(fields: Int) -> [UInt8] {
            var text = "HTTP/1.1 200 OK\r\n"
            for i in 0..<fields { text += "X-F\(i): v\r\n" }
            return Array((text + "Content-Length: 0\r\n\r\n").utf8)
        }
        // A response of 102 fields (refused by the old limit of 100) is ordinary.
        #expect(HTTP1ParserLimits.default.maxFieldCount == 5_000)
        let ordinary = response(fields: 101)
        for chunks in cuts(ordinary) {
            #expect(HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false).error == nil)
        }
        // 4,999 + Content-Length = 5,000 fields; 5,000 + Content-Length = 5,001.
        let ok = HTTP1Fuzzing.parseResponse([response(fields: 4_999)], closeAtEnd: false)
        #expect(ok.error == nil)
        let tooMany = response(fields: 5_000)
        for chunks in [[tooMany], tooMany.map { [$0] }] {
            let transcript = HTTP1Fuzzing.parseResponse(chunks, closeAtEnd: false)
            #expect(transcript.error == HTTPParserError(.tooManyFields, offset: tooMany.count - 21))
        }
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
