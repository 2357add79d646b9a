// Interim (1xx) responses: surfaced and skipped, count- and size-limited; 101 only when asked for;
// CONNECT tunnels.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

@Suite struct InterimResponseTests {
    private let final = message("HTTP/1.1 200 OK\nContent-Length: 2\n\n", "ok")

    @Test func continueThenFinal() {
        let input = message("HTTP/1.1 100 Continue\n\n") + final
        #expect(response(input, close: false) == Transcript([
            "interim 100 HTTP/1.1 []",
            "head 200 HTTP/1.1 reason=OK [Content-Length: 2] contentLength(2)",
            "body ok",
            "end keepAlive=true trailers=[]",
        ]))
    }

    @Test func earlyHintsWithFieldsAndABodyLengthThatIsIgnored() {
        let input = message("HTTP/1.1 103 Early Hints\nLink: </style.css>; rel=preload\nContent-Length: 10\n\n") + final
        let outcome = response(input, close: false)
        #expect(outcome.events.first == "interim 103 HTTP/1.1 [Link: </style.css>; rel=preload, Content-Length: 10]")
        #expect(outcome.events.last == "end keepAlive=true trailers=[]")
    }

    @Test func sixteenInterimResponsesAreAcceptedSeventeenAreNot() {
        let interim = message("HTTP/1.1 102 Processing\n\n")
        let sixteen = Array(repeating: interim, count: 16).joined() + final
        let ok = response(Array(sixteen), close: false)
        #expect(ok.error == nil)
        #expect(ok.events.filter { $0.hasPrefix("interim 102") }.count == 16)
        let seventeen = Array(Array(repeating: interim, count: 17).joined()) + final
        let failed = response(seventeen, close: false)
        #expect(failed.error == HTTPParserError(.tooManyInterimResponses, offset: 16 * interim.count))
        #expect(failed.events.count == 16)
        #expect(HTTP1ParserLimits.default.maxInterimResponses == 16)
    }

    @Test func interimHeadsCountTowardsTheHeadSizeLimit() {
        let interim = message("HTTP/1.1 100 Continue\n\n")  // 25 bytes
        let finalHead = message("HTTP/1.1 204 No Content\n\n")  // 27 bytes
        let limits = HTTP1ParserLimits(maxHeadSize: 2 * interim.count + finalHead.count)
        #expect(response(interim + interim + finalHead, limits: limits).error == nil)
        let tooMuch = interim + interim + interim + finalHead
        #expect(response(tooMuch, limits: limits).error == HTTPParserError(.headTooLarge, offset: limits.maxHeadSize))
    }

    @Test func unsolicitedSwitchingProtocolsIsAnError() {
        let input = message("HTTP/1.1 100 Continue\n\nHTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: upgrade\n\n")
        let outcome = response(input)
        #expect(outcome == Transcript(["interim 100 HTTP/1.1 []"],
                                      error: HTTPParserError(.unsolicitedSwitchingProtocols, offset: offset(of: "HTTP/1.1 101", in: input))))
    }

    @Test func solicitedSwitchingProtocolsHandsOverTheRest() {
        let upgrade = RequestInfo(method: .get, headers: ["Connection": "Upgrade", "Upgrade": "websocket"], hasBody: false)
        #expect(upgrade.upgradeRequested)
        let input = message("HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nConnection: Upgrade\n\n")
        let outcome = response(input, request: upgrade, trailing: [0x81, 0x00, 0x0D, 0x0A],
                               expectedWithTrailing: Transcript(["switched 101", "leftover \\x81\\x00\\x0D\\x0A"]))
        #expect(outcome == Transcript(["switched 101", "leftover "]))
    }

    @Test func connectTunnel() {
        let connect = RequestInfo(method: .connect)
        let input = message("HTTP/1.1 200 Connection Established\n\n")
        let outcome = response(input, request: connect, trailing: Array("\u{16}\u{3}\u{1}".utf8),
                               expectedWithTrailing: Transcript(["switched 200", "leftover \\x16\\x03\\x01"]))
        #expect(outcome == Transcript(["switched 200", "leftover "]))
        // A refused CONNECT is an ordinary response.
        let refused = message("HTTP/1.1 407 Proxy Authentication Required\nContent-Length: 0\n\n")
        #expect(response(refused, request: connect, close: false).events.last == "end keepAlive=true trailers=[]")
    }

    @Test func interimResponsesDoNotEndTheExchange() {
        // A close right after an interim head: the final head is missing.
        let input = message("HTTP/1.1 100 Continue\n\n")
        #expect(response(input) == Transcript(["interim 100 HTTP/1.1 []"], error: HTTPParserError(.incompleteHead, offset: input.count)))
    }
}
