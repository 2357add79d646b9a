// curl --raw and --ignore-content-length in the client state machine: a raw chunked body is handed
// out as it came (size lines, extensions, CRLFs, last chunk, trailers) while its end is still found
// by decoding; an ignored Content-Length makes the body run to the close. Every case through the
// split harness: whole, byte by byte, every two-way split, and with the next response's first
// bytes after it.

@_spi(Fuzzing) import CourierHTTP1
import CourierBytes
import CourierTestSupport
import Testing

private struct Outcome: Equatable {
    var framing = ""
    var body: [UInt8] = []
    var end: String?
    var error: HTTPParserError.Code?
}

private func parse(_ chunks: [[UInt8]], raw: Bool, ignoresContentLength: Bool, method: HTTPMethod = .get, close: Bool) -> Outcome {
    var machine = HTTP1ClientStateMachine()
    machine.passesChunkedFramingThrough = raw
    machine.ignoresContentLength = ignoresContentLength
    var outcome = Outcome()
    do throws(HTTPParserError) {
        try machine.sendHead(RequestInfo(method: method), framing: .noBody)
        func drain() throws(HTTPParserError) -> Bool {
            while true {
                switch try machine.nextEvent() {
                case .needMoreData: return false
                case .responseHead(_, let framing): outcome.framing = "\(framing)"
                case .bodyPart(let bytes): outcome.body += bytes.readableBytesArray
                case .endOfMessage(_, let keepAlive): outcome.end = "keepAlive=\(keepAlive)"; return true
                case .connectionClosed: outcome.end = "closed"; return true
                case .interimResponse, .switchedProtocols: continue
                }
            }
        }
        for chunk in chunks {
            try machine.receivedBytes(ByteBuffer(bytes: chunk))
            if try drain() { return outcome }
        }
        if close {
            try machine.connectionClosed()
            _ = try drain()
        }
    } catch {
        outcome.error = error.code
    }
    return outcome
}

private func run(_ input: String, trailing: String = "", raw: Bool = false, ignoresContentLength: Bool = false,
                 method: HTTPMethod = .get, close: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
    let (outcome, mismatches) = SplitHarness.run(Array(input.utf8), trailing: Array(trailing.utf8)) { chunks in
        parse(chunks, raw: raw, ignoresContentLength: ignoresContentLength, method: method, close: close)
    }
    #expect(mismatches.isEmpty, "\(mismatches.prefix(2))", sourceLocation: sourceLocation)
    return outcome
}

@Suite("raw chunked bodies and ignored Content-Length")
struct RawBodyTests {
    static let chunkedHead = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

    @Test("--raw: the chunked body's bytes as they came, framing, extensions and trailers included; the end still found")
    func rawChunked() {
        let body = "5;name=value\r\nhello\r\n3\r\n, w\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let outcome = run(Self.chunkedHead + body, trailing: "HTTP/1.1 204 No Content\r\n\r\n", raw: true)
        #expect(outcome == Outcome(framing: "chunked", body: Array(body.utf8), end: "keepAlive=true"))
        // The same message decoded: the framing is gone.
        let decoded = run(Self.chunkedHead + body, trailing: "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(decoded.body == Array("hello, w".utf8))
    }

    @Test("--raw: malformed framing still fails, a cut body still fails, after the bytes that came")
    func rawErrors() {
        let bad = run(Self.chunkedHead + "5\r\nhello\r\nzz\r\n", raw: true)
        #expect(bad.error == run(Self.chunkedHead + "5\r\nhello\r\nzz\r\n").error)
        #expect(bad.error != nil)
        let cut = run(Self.chunkedHead + "5\r\nhello\r\n3\r\nab", raw: true, close: true)
        #expect(cut.error == .incompleteChunkedBody)
        #expect(cut.body == Array("5\r\nhello\r\n3\r\nab".utf8))
    }

    @Test("--raw changes nothing for a Content-Length body or one delimited by the close")
    func rawOtherFramings() {
        let length = run("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", trailing: "HTTP/1.1 2", raw: true)
        #expect(length == Outcome(framing: "contentLength(5)", body: Array("hello".utf8), end: "keepAlive=true"))
        let untilClose = run("HTTP/1.1 200 OK\r\n\r\nto the end", raw: true, close: true)
        #expect(untilClose == Outcome(framing: "untilClose", body: Array("to the end".utf8), end: "keepAlive=false"))
    }

    @Test("--ignore-content-length: the body runs to the close, longer or shorter than announced; the connection is not kept")
    func ignoredLength() {
        let longer = run("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcdef", ignoresContentLength: true, close: true)
        #expect(longer == Outcome(framing: "untilClose", body: Array("abcdef".utf8), end: "keepAlive=false"))
        let shorter = run("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", ignoresContentLength: true, close: true)
        #expect(shorter == Outcome(framing: "untilClose", body: Array("short".utf8), end: "keepAlive=false"))
        // Without the option the short one is an error.
        #expect(run("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort", close: true).error == .bodyShorterThanAnnounced)
    }

    @Test("--ignore-content-length leaves chunked bodies chunked and bodiless responses bodiless")
    func ignoredLengthElsewhere() {
        let chunked = run(Self.chunkedHead + "2\r\nok\r\n0\r\n\r\n", trailing: "HTTP/1.1 2", ignoresContentLength: true)
        #expect(chunked == Outcome(framing: "chunked", body: Array("ok".utf8), end: "keepAlive=true"))
        let head = run("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", trailing: "HTTP/1.1 2", ignoresContentLength: true, method: .head)
        #expect(head == Outcome(framing: "noBody", body: [], end: "keepAlive=true"))
        let noContent = run("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n", trailing: "HTTP/1.1 2", ignoresContentLength: true)
        #expect(noContent.framing == "noBody")
    }
}
