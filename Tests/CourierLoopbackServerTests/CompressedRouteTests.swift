// The compressed routes (/gzip, /deflate, /gzip-chunked, /bomb, /bad-gzip), read with a raw socket
// and decoded with CourierCompression's decoder.

import CourierBytes
import CourierCompression
import CourierLoopbackServer
import CourierPosix
import Testing

extension LoopbackServerTests {
    @Suite struct CompressedRoutes {
        @Test(arguments: [("gzip", 0x1F as UInt8), ("deflate", 0x78 as UInt8)])
        func contentLengthRoutesDecodeToTheText(_ coding: String, _ firstByte: UInt8) async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                for size in [0, 1, 100_000] {
                    try await client.send("GET /\(coding)/\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
                    let body = try await client.receiveUntilBody()
                    let head = String(decoding: client.received[..<headEnd(client.received)!], as: UTF8.self)
                    #expect(head.contains("\r\nContent-Encoding: \(coding)\r\n"))
                    #expect(head.contains("\r\nContent-Length: \(body.count)\r\n"))
                    #expect(body.first == firstByte)
                    let decoded = try ContentDecoder.decode(ByteBuffer(bytes: body), contentEncoding: coding)
                    #expect(decoded.readableBytesArray == LoopbackServer.compressibleText(count: size))
                    client.consume(client.received.count)
                }
                #expect(server.acceptedConnections == 1)
            }
        }

        @Test func compressibleTextCompressesLikeText() throws {
            let text = LoopbackServer.compressibleText(count: 1 << 20)
            let compressed = ContentEncoder.encode(ByteBuffer(bytes: text), format: .gzip)
            let ratio = Double(text.count) / Double(compressed.readableBytes)
            #expect(ratio > 2 && ratio < 10, "ratio \(ratio)")
            // A prefix is a prefix: the text does not depend on how much is asked for.
            #expect(Array(text.prefix(5000)) == LoopbackServer.compressibleText(count: 5000))
        }

        @Test func chunkedGzipStreamsAndDecodes() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                let size = 3 * 1024 * 1024 + 5
                try await client.send("GET /gzip-chunked/\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
                var reader = ChunkedReader()
                var decoder = try ContentDecoder(contentEncoding: "gzip")
                var decoded: [UInt8] = []
                var failure: ContentDecodingError?
                let bytes = try await client.receive { bytes in
                    guard let end = headEnd(bytes) else { return false }
                    reader.start(at: end)
                    do {
                        for data in reader.read(bytes) {
                            decoded += try decoder.decode(ByteBuffer(bytes: data)).readableBytesArray
                            while !decoder.isAwaitingInput { decoded += try decoder.decode(ByteBuffer()).readableBytesArray }
                        }
                    } catch {
                        failure = error as? ContentDecodingError
                        return true
                    }
                    return reader.isComplete
                }
                #expect(failure == nil)
                #expect(reader.isComplete)
                try decoder.finish()
                #expect(decoded == LoopbackServer.compressibleText(count: size))
                let head = String(decoding: bytes[..<headEnd(bytes)!], as: UTF8.self)
                #expect(head.contains("\r\nTransfer-Encoding: chunked\r\n"))
                #expect(head.contains("\r\nContent-Encoding: gzip\r\n"))
            }
        }

        @Test func aGibibyteBombEndsInARatioErrorAfterAFewKilobytes() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bomb/\(1 << 30) HTTP/1.1\r\nHost: x\r\n\r\n")
                var reader = ChunkedReader()
                var decoder = try ContentDecoder(contentEncoding: "gzip")
                var decoded: UInt64 = 0
                var failure: ContentDecodingError?
                let bytes = try await client.receive { bytes in
                    guard let end = headEnd(bytes) else { return false }
                    reader.start(at: end)
                    do {
                        for data in reader.read(bytes) {
                            decoded += UInt64(try decoder.decode(ByteBuffer(bytes: data)).readableBytes)
                            while !decoder.isAwaitingInput { decoded += UInt64(try decoder.decode(ByteBuffer()).readableBytes) }
                        }
                    } catch {
                        failure = error as? ContentDecodingError
                        return true
                    }
                    return reader.isComplete
                }
                #expect(failure?.code == .ratioExceeded)
                #expect(decoded <= DecompressionLimits.default.ratioGraceSize + UInt64(DecompressionLimits.default.pieceSize))
                #expect(!reader.isComplete)
                #expect(bytes.count < 4 << 20)
            }
        }

        @Test func aSmallBombIsValidGzipOfZeros() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                let size = 20_000_000
                try await client.send("GET /bomb/\(size) HTTP/1.1\r\nHost: x\r\n\r\n")
                var reader = ChunkedReader()
                var body: [UInt8] = []
                _ = try await client.receive { bytes in
                    guard let end = headEnd(bytes) else { return false }
                    reader.start(at: end)
                    for data in reader.read(bytes) { body += data }
                    return reader.isComplete
                }
                let decoded = try ContentDecoder.decode(ByteBuffer(bytes: body), contentEncoding: "gzip", limits: .unlimited)
                #expect(decoded.readableBytes == size)
                #expect(decoded.readableBytesArray.allSatisfy { $0 == 0 })
                #expect(body.count < size / 500)
            }
        }

        @Test func badGzipFailsToDecode() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /bad-gzip HTTP/1.1\r\nHost: x\r\n\r\n")
                let body = try await client.receiveUntilBody()
                #expect(String(decoding: client.received, as: UTF8.self).contains("\r\nContent-Encoding: gzip\r\n"))
                #expect(throws: ContentDecodingError.self) {
                    _ = try ContentDecoder.decode(ByteBuffer(bytes: body), contentEncoding: "gzip")
                }
                do {
                    _ = try ContentDecoder.decode(ByteBuffer(bytes: body), contentEncoding: "gzip")
                } catch {
                    #expect((error as? ContentDecodingError)?.code == .invalidData)
                }
            }
        }

        @Test func headAndOversizedAndWrongMethod() async throws {
            try await withServer { server, loop in
                let client = try await RawClient.connect(port: server.port, loop: loop)
                try await client.send("GET /gzip/5000 HTTP/1.1\r\nHost: x\r\n\r\n")
                let body = try await client.receiveUntilBody()
                client.consume(client.received.count)
                try await client.send("HEAD /gzip/5000 HTTP/1.1\r\nHost: x\r\n\r\n")
                var bytes = try await client.receive(until: hasResponse(bodyLength: 0))
                #expect(String(decoding: bytes, as: UTF8.self).hasSuffix("Content-Length: \(body.count)\r\n\r\n"))
                client.consume(bytes.count)
                try await client.send("GET /gzip/\(LoopbackServer.maximumCompressedRouteSize + 1) HTTP/1.1\r\nHost: x\r\n\r\n")
                bytes = try await client.receive(until: hasResponse(bodyLength: 12))
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 400 "))
                client.consume(bytes.count)
                try await client.send("POST /bomb/1 HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
                bytes = try await client.receive(until: hasResponse(bodyLength: 19))
                #expect(String(decoding: bytes, as: UTF8.self).hasPrefix("HTTP/1.1 405 "))
            }
        }
    }
}

/// Reads a chunked body incrementally from the bytes a RawClient has received so far.
struct ChunkedReader {
    private var offset: Int?
    private(set) var isComplete = false

    mutating func start(at bodyStart: Int) {
        if offset == nil { offset = bodyStart }
    }

    /// The data of every chunk complete in `bytes` past what was read before.
    mutating func read(_ bytes: [UInt8]) -> [[UInt8]] {
        guard var position = offset, !isComplete else { return [] }
        var out: [[UInt8]] = []
        while true {
            guard let lineEnd = findCRLF(bytes, from: position) else { break }
            let sizeText = String(decoding: bytes[position..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText, radix: 16) else {
                Issue.record("bad chunk size line \(sizeText)")
                isComplete = true
                break
            }
            if size == 0 {
                guard bytes.count >= lineEnd + 4 else { break }
                position = lineEnd + 4
                isComplete = true
                break
            }
            guard bytes.count >= lineEnd + 2 + size + 2 else { break }
            out.append(Array(bytes[(lineEnd + 2)..<(lineEnd + 2 + size)]))
            position = lineEnd + 2 + size + 2
        }
        offset = position
        return out
    }

    private func findCRLF(_ bytes: [UInt8], from start: Int) -> Int? {
        var i = start
        while i + 1 < bytes.count {
            if bytes[i] == 13 && bytes[i + 1] == 10 { return i }
            i += 1
        }
        return nil
    }
}
