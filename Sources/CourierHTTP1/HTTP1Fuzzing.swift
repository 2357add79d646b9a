// Entry points for the fuzz targets, the benchmarks and the split-harness tests: each runs a
// public parser over a sequence of input chunks and describes everything it produced as a
// comparable transcript. Consecutive body slices are joined, so a transcript does not depend on
// where the input was cut — which is exactly what the fuzz targets and tests check.
//
// These are conveniences over the public API, not a second implementation; they allocate freely.

import CourierBytes

/// Everything a parser produced for an input, in a form that can be compared across cuts.
@_spi(Fuzzing)
public struct HTTP1Transcript: Equatable, Sendable, CustomStringConvertible {
    /// The events, rendered as text; body bytes of consecutive events are joined into one entry.
    public var events: [String] = []
    /// The error that stopped the parser, if any.
    public var error: HTTPParserError?

    /// Creates an empty transcript.
    public init() {}

    /// Creates a transcript (for expected values in tests).
    /// - Parameters:
    ///   - events: the rendered events.
    ///   - error: the final error.
    public init(_ events: [String], error: HTTPParserError? = nil) {
        self.events = events
        self.error = error
    }

    private var pendingBody: [UInt8] = []
    private var hasPendingBody = false

    mutating func body(_ bytes: ByteBuffer) {
        pendingBody += bytes.readableBytesArray
        hasPendingBody = true
    }

    mutating func add(_ event: String) {
        flush()
        events.append(event)
    }

    mutating func flush() {
        if hasPendingBody {
            events.append("body " + HTTP1Transcript.render(pendingBody))
            pendingBody = []
            hasPendingBody = false
        }
    }

    /// Transcripts are equal when their events and errors are.
    public static func == (lhs: HTTP1Transcript, rhs: HTTP1Transcript) -> Bool {
        lhs.events == rhs.events && lhs.error == rhs.error
    }

    /// The events, one per line, and the error.
    public var description: String {
        events.joined(separator: " | ") + (error.map { " | error \($0.code) at \($0.offset)" } ?? "")
    }

    /// Renders bytes as transcripts show them: printable ASCII as is, other bytes (and the
    /// backslash) as `\xHH`.
    /// - Parameter bytes: the bytes.
    /// - Returns: the text.
    public static func render(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            if byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let digits = Array("0123456789ABCDEF")
                text += "\\x" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return text
    }

    static func render(_ fields: ParsedFields) -> String {
        "[" + fields.map { render($0.name.readableBytesArray) + ": " + render($0.value.readableBytesArray) }.joined(separator: ", ") + "]"
    }
}

/// Whole-input entry points over the public parsers, for fuzz targets, benchmarks and tests.
@_spi(Fuzzing)
public enum HTTP1Fuzzing {
    /// Runs an `HTTP1ClientStateMachine` over a response cut into `chunks`.
    /// - Parameters:
    ///   - chunks: the response bytes as they arrive.
    ///   - request: the request the response answers (default: a GET without body).
    ///   - closeAtEnd: whether the peer closes the connection after the last chunk.
    ///   - limits: the parsing limits.
    ///   - raw: the machine's `passesChunkedFramingThrough` and `ignoresContentLength` (curl
    ///     `--raw`, `--ignore-content-length`).
    /// - Returns: the transcript of events and the final error.
    public static func parseResponse(
        _ chunks: [[UInt8]],
        request: HTTP1ClientStateMachine.RequestInfo = .init(method: .get),
        closeAtEnd: Bool = true,
        limits: HTTP1ParserLimits = .default,
        raw: Bool = false
    ) -> HTTP1Transcript {
        var transcript = HTTP1Transcript()
        var connection = HTTP1ClientStateMachine(limits: limits)
        connection.passesChunkedFramingThrough = raw
        connection.ignoresContentLength = raw
        var switched = false
        var leftover: [UInt8] = []
        func drain(_ connection: inout HTTP1ClientStateMachine) throws(HTTPParserError) {
            while !switched {
                switch try connection.nextEvent() {
                case .needMoreData, .connectionClosed:
                    return
                case .interimResponse(let head):
                    transcript.add("interim \(head.status) \(head.version) \(HTTP1Transcript.render(head.headers))")
                case .responseHead(let head, let framing):
                    transcript.add("head \(head.status) \(head.version) reason=\(HTTP1Transcript.render(head.reasonPhrase.readableBytesArray)) \(HTTP1Transcript.render(head.headers)) \(framing)")
                case .bodyPart(let bytes):
                    transcript.body(bytes)
                case .endOfMessage(let trailers, let keepAlive):
                    transcript.add("end keepAlive=\(keepAlive) trailers=\(HTTP1Transcript.render(trailers))")
                case .switchedProtocols(let head, let rest):
                    transcript.add("switched \(head.status)")
                    leftover = rest.readableBytesArray
                    switched = true
                }
            }
        }
        do throws(HTTPParserError) {
            try connection.sendHead(request, framing: request.hasBody ? .chunked : .noBody)
            if request.hasBody {
                var discarded = GatherList()
                _ = try? connection.sendEnd(into: &discarded)
            }
            for chunk in chunks {
                if switched { leftover += chunk; continue }
                try connection.receivedBytes(ByteBuffer(bytes: chunk))
                try drain(&connection)
            }
            if closeAtEnd && !switched {
                try connection.connectionClosed()
                try drain(&connection)
                transcript.add("closed")
            }
        } catch {
            transcript.error = error
        }
        transcript.flush()
        if switched { transcript.events.append("leftover " + HTTP1Transcript.render(leftover)) }
        return transcript
    }

    /// Runs a `ChunkedDecoder` over a chunked body cut into `chunks`.
    /// - Parameters:
    ///   - chunks: the body bytes as they arrive.
    ///   - closeAtEnd: whether the connection closes after the last chunk.
    ///   - limits: the parsing limits.
    /// - Returns: the data, the trailers, any bytes left after the body, and the final error.
    public static func decodeChunked(
        _ chunks: [[UInt8]], closeAtEnd: Bool = false, limits: HTTP1ParserLimits = .default
    ) -> HTTP1Transcript {
        var transcript = HTTP1Transcript()
        var decoder = ChunkedDecoder(limits: limits)
        var buffer = ByteBuffer()
        do throws(HTTPParserError) {
            for chunk in chunks {
                buffer.writeBytes(chunk)
                while let event = try decoder.next(from: &buffer) {
                    switch event {
                    case .data(let bytes): transcript.body(bytes)
                    case .end(let trailers): transcript.add("end trailers=\(HTTP1Transcript.render(trailers))")
                    }
                }
            }
            if closeAtEnd { try decoder.connectionClosed() }
        } catch {
            transcript.error = error
        }
        transcript.flush()
        if transcript.error == nil && buffer.readableBytes > 0 {
            transcript.events.append("rest " + HTTP1Transcript.render(buffer.readableBytesArray))
        }
        return transcript
    }

    /// Runs a `RequestHeadParser`, `BodyFraming.forRequest` and a `BodyDecoder` over a request
    /// cut into `chunks` (the server side).
    /// - Parameters:
    ///   - chunks: the request bytes as they arrive.
    ///   - closeAtEnd: whether the connection closes after the last chunk.
    ///   - limits: the parsing limits.
    /// - Returns: the head, framing, body, trailers, leftover bytes and the final error.
    public static func parseRequest(
        _ chunks: [[UInt8]], closeAtEnd: Bool = false, limits: HTTP1ParserLimits = .default
    ) -> HTTP1Transcript {
        var transcript = HTTP1Transcript()
        var parser = RequestHeadParser(limits: limits)
        var decoder: BodyDecoder?
        var buffer = ByteBuffer()
        var headBytes = 0
        func drain() throws(HTTPParserError) {
            if decoder == nil {
                guard case .complete(let head, let consumed) = try parser.parse(buffer) else { return }
                buffer.moveReaderIndex(forwardBy: consumed)
                headBytes = consumed
                let framing = try BodyFraming.forRequest(head)
                transcript.add("request \(HTTP1Transcript.render(head.methodBytes.readableBytesArray)) \(HTTP1Transcript.render(head.target.readableBytesArray)) \(head.version) \(HTTP1Transcript.render(head.headers)) \(framing)")
                decoder = BodyDecoder(framing: framing, limits: limits)
            }
            do throws(HTTPParserError) {
                while let event = try decoder!.next(from: &buffer) {
                    switch event {
                    case .data(let bytes): transcript.body(bytes)
                    case .end(let trailers): transcript.add("end trailers=\(HTTP1Transcript.render(trailers))")
                    }
                }
            } catch {
                throw error.shifted(by: headBytes)
            }
        }
        do throws(HTTPParserError) {
            for chunk in chunks {
                buffer.writeBytes(chunk)
                try drain()
            }
            if closeAtEnd {
                if decoder == nil {
                    if buffer.readableBytes > 0 { throw HTTPParserError(.incompleteHead, offset: buffer.readableBytes) }
                } else {
                    do throws(HTTPParserError) {
                        if case .end(let trailers)? = try decoder!.connectionClosed() {
                            transcript.add("end trailers=\(HTTP1Transcript.render(trailers))")
                        }
                    } catch {
                        throw error.shifted(by: headBytes)
                    }
                }
            }
        } catch {
            transcript.error = error
        }
        transcript.flush()
        if transcript.error == nil && decoder?.isComplete == true && buffer.readableBytes > 0 {
            transcript.events.append("rest " + HTTP1Transcript.render(buffer.readableBytesArray))
        }
        return transcript
    }
}
