// Checks for the HTTP/1.1 codec: split independence of every parser, and encode → parse round trips.
import CourierBytes
@_spi(Fuzzing) import CourierHTTP1

extension FuzzChecks {
    /// The cuts a check compares with the whole input: byte by byte for small inputs (it is
    /// quadratic in allocations), and one split point chosen by the input.
    static func cuts(of bytes: [UInt8], input: UnsafeRawBufferPointer) -> [[[UInt8]]] {
        var cuts: [[[UInt8]]] = []
        if bytes.count <= 4096 { cuts.append(bytes.map { [$0] }) }
        if bytes.count > 1 {
            let at = splitPoint(for: input)
            cuts.append([Array(bytes[..<at]), Array(bytes[at...])])
        }
        return cuts
    }

    /// The response parser (through the client connection machine) gives the same transcript —
    /// events and error — however the input is cut, for a GET and for a HEAD request, and for a
    /// GET with curl's --raw and --ignore-content-length switches on.
    public static func responseParsing(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let modes: [(HTTP1ClientStateMachine.RequestInfo, Bool)] = [(.init(method: .get), false), (.init(method: .head), false),
                                                                      (.init(method: .get), true)]
        for (request, raw) in modes {
            for closeAtEnd in [true, false] {
                let whole = HTTP1Fuzzing.parseResponse([bytes], request: request, closeAtEnd: closeAtEnd, raw: raw)
                for cut in cuts(of: bytes, input: input) {
                    let other = HTTP1Fuzzing.parseResponse(cut, request: request, closeAtEnd: closeAtEnd, raw: raw)
                    require(other == whole, "response transcript depends on the cut:\n\(other)\nvs whole:\n\(whole)")
                }
                if let error = whole.error {
                    require(error.offset >= 0 && error.offset <= bytes.count, "error offset \(error.offset) outside the input")
                }
            }
        }
    }

    /// Chunks chosen by the input encode and decode back to the same bytes; decoding the raw input
    /// as a chunked body gives the same result at any cut.
    public static func chunkedRoundTrip(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        // 1. Raw decode, whole vs cut.
        let whole = HTTP1Fuzzing.decodeChunked([bytes])
        for cut in cuts(of: bytes, input: input) {
            let other = HTTP1Fuzzing.decodeChunked(cut)
            require(other == whole, "chunked transcript depends on the cut:\n\(other)\nvs\n\(whole)")
        }
        // 2. Round trip: the input is the payload, cut into chunks whose sizes its bytes choose.
        var chunks: [ByteBuffer] = []
        var i = 0
        var size = 1
        while i < bytes.count {
            size = 1 + (Int(bytes[i]) &* 7 &+ size) % 97
            let end = min(bytes.count, i + size)
            chunks.append(ByteBuffer(bytes: bytes[i..<end]))
            i = end
        }
        let encoded: GatherList
        do {
            encoded = try ChunkedEncoder.encodeBody(chunks)
        } catch {
            fatalError("encoding valid chunks failed: \(error)")
        }
        let decoded = HTTP1Fuzzing.decodeChunked([encoded.joined])
        let expected = HTTP1Transcript(bytes.isEmpty ? ["end trailers=[]"] : ["body " + HTTP1Transcript.render(bytes), "end trailers=[]"])
        require(decoded == expected, "chunked round trip changed the payload: \(decoded)")
    }

    /// The request parser gives the same transcript at any cut; a head the encoder accepts parses
    /// back to the same method, target and fields.
    public static func requestParsing(_ input: UnsafeRawBufferPointer) {
        let bytes = Array(input)
        let whole = HTTP1Fuzzing.parseRequest([bytes], closeAtEnd: true)
        for cut in cuts(of: bytes, input: input) {
            let other = HTTP1Fuzzing.parseRequest(cut, closeAtEnd: true)
            require(other == whole, "request transcript depends on the cut:\n\(other)\nvs\n\(whole)")
        }

        // Encode → parse: the input's lines become the target and fields; whatever the encoder
        // accepts must parse to exactly what was encoded.
        let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        guard let first = lines.first else { return }
        let methods: [HTTPMethod] = [.get, .post, .put, .delete, .head, .options, .patch]
        let method = methods[Int(bytes.first ?? 0) % methods.count]
        var headers = HTTPHeaders()
        for line in lines.dropFirst().prefix(20) {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(name: String(line[..<colon]), value: String(line[line.index(after: colon)...]))
        }
        let body: BodyLength = bytes.count % 3 == 0 ? .none : bytes.count % 3 == 1 ? .known(UInt64(bytes.count)) : .unknown
        let encoder = RequestHeadEncoder()
        guard let head = try? encoder.encode(method: method, target: "/" + first, host: "example.test", headers: headers, body: body) else { return }
        let parsed = HTTP1Fuzzing.parseRequest([head.bytes.joined], closeAtEnd: false)
        require(parsed.error == nil, "an encoded head failed to parse: \(parsed) for \(head.bytes.joined)")
        require(parsed.events.first?.hasPrefix("request " + HTTP1Transcript.render(Array(method.rawValue.utf8)) + " " + HTTP1Transcript.render(Array(("/" + first).utf8)) + " ") == true,
                "encoded method/target did not parse back: \(parsed)")
    }
}
