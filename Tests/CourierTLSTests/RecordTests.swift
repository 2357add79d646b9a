// The record paths of the engine: ciphertext read in place from a lent receive buffer, split
// anywhere; large records; records appended into one output buffer; gather lists coalesced.
// Every case runs against a real peer engine, so the records are genuine.

import CourierBytes
import CourierTestSupport
@testable @_spi(Fuzzing) import CourierTLS
import Testing

extension TLS {
    @Suite("Records: lent buffers, splits, output coalescing")
    struct Records {
        func established(_ version: TLSVersion = .v1_3) throws -> TLSPair {
            var server = Fixtures.serverConfiguration()
            server.maximumVersion = version
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: server)
            #expect(pair.handshake().succeeded)
            _ = try pair.clientReadsPending()  // TLS 1.3 tickets
            return pair
        }

        /// The records the server makes of `pieces` (one SSL_write each), as bytes.
        func records(_ pair: TLSPair, _ pieces: [[UInt8]]) throws -> [UInt8] {
            for piece in pieces { try pair.server.writePlaintext(ByteBuffer(bytes: piece)) }
            return pair.server.pendingCiphertext().readableBytesArray
        }

        /// Feeds `chunks` to the client through one lent receive buffer, as a socket loop would:
        /// append a chunk, let the engine read in place, compact. Returns the plaintext and the
        /// last result; checks that nothing is left unconsumed whenever the engine wants more.
        func receive(_ chunks: [[UInt8]], by client: TLSConnection, lent: Bool = true) throws -> ([UInt8], TLSConnection.ReadResult) {
            var received = ByteBuffer(capacity: 4096)
            var plaintext = ByteBuffer()
            var last = TLSConnection.ReadResult.needsMoreData
            for chunk in chunks {
                if lent {
                    received.writeBytes(chunk)
                    last = try client.readPlaintext(from: &received, into: &plaintext)
                    if last == .needsMoreData {
                        #expect(received.readableBytes == 0, "the engine left \(received.readableBytes) bytes unread")
                    }
                    received.discardReadBytes()
                } else {
                    client.receivedCiphertext(ByteBuffer(bytes: chunk))
                    last = try client.readPlaintext(into: &plaintext)
                }
            }
            return (plaintext.readableBytesArray, last)
        }

        /// The (content type, length) of each record in `bytes`.
        func recordHeaders(_ bytes: [UInt8]) -> [(type: UInt8, length: Int)] {
            var headers: [(UInt8, Int)] = []
            var offset = 0
            while offset + 5 <= bytes.count {
                let length = Int(bytes[offset + 3]) << 8 | Int(bytes[offset + 4])
                headers.append((bytes[offset], length))
                offset += 5 + length
            }
            #expect(offset == bytes.count, "the output is not a whole number of records")
            return headers
        }

        @Test("Three records cut at every position arrive whole", arguments: [TLSVersion.v1_3, .v1_2])
        func everyTwoWaySplit(version: TLSVersion) throws {
            let pair = try established(version)
            let pieces = [patternBytes(count: 1, seed: 3), patternBytes(count: 300, seed: 4), patternBytes(count: 2000, seed: 5)]
            let expected = pieces.flatMap { $0 }
            // Each cut gets records of its own (new sequence numbers), of the same lengths.
            let first = try records(pair, pieces)
            let length = first.count
            #expect(length > expected.count)
            #expect(try receive([first], by: pair.client).0 == expected)
            for cut in Chunking.all(count: length) {
                for lent in [true, false] {
                    let wire = try records(pair, pieces)
                    #expect(wire.count == length)
                    let (plaintext, _) = try receive(cut.chunks(of: wire), by: pair.client, lent: lent)
                    #expect(plaintext == expected, "\(cut), lent: \(lent)")
                }
            }
        }

        @Test("Full-size records, one byte at a time", arguments: [TLSVersion.v1_3, .v1_2])
        func byteByByte(version: TLSVersion) throws {
            let pair = try established(version)
            let pieces = [patternBytes(count: 16_384, seed: 6), patternBytes(count: 20_000, seed: 7), [0x42]]
            let ciphertext = try records(pair, pieces)
            #expect(recordHeaders(ciphertext).count == 4)
            let (plaintext, _) = try receive(Chunking.byteByByte.chunks(of: ciphertext), by: pair.client)
            #expect(plaintext == pieces.flatMap { $0 })
        }

        @Test("4 MiB in random cuts, lent and handed over", arguments: [TLSVersion.v1_3, .v1_2])
        func randomSplits(version: TLSVersion) throws {
            let pair = try established(version)
            let data = patternBytes(count: 4 << 20, seed: 8)
            // The server writes in uneven pieces, so records of many lengths cross the cuts.
            var pieces: [[UInt8]] = []
            var offset = 0
            var state: UInt64 = 0x2545_F491_4F6C_DD1D
            func next(_ bound: Int) -> Int {
                state ^= state << 13; state ^= state >> 7; state ^= state << 17
                return Int(state % UInt64(bound)) + 1
            }
            while offset < data.count {
                let n = min(next(70_000), data.count - offset)
                pieces.append(Array(data[offset..<(offset + n)]))
                offset += n
            }
            for lent in [true, false] {
                let ciphertext = try records(pair, pieces)
                var chunks: [[UInt8]] = []
                var at = 0
                while at < ciphertext.count {
                    let n = min(next(lent ? 40_000 : 3_000), ciphertext.count - at)
                    chunks.append(Array(ciphertext[at..<(at + n)]))
                    at += n
                }
                let (plaintext, _) = try receive(chunks, by: pair.client, lent: lent)
                #expect(plaintext.count == data.count)
                #expect(plaintext == data, "lent: \(lent)")
            }
        }

        @Test("Plaintext room is reserved once: a buffer big enough is never reallocated")
        func plaintextBufferNotRegrown() throws {
            let pair = try established()
            let data = patternBytes(count: 64 * 1024, seed: 9)  // four full records
            var received = ByteBuffer(bytes: try records(pair, [data]))
            var plaintext = ByteBuffer(capacity: 128 * 1024)
            let before = plaintext.withUnsafeReadableBytes { $0.baseAddress }
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .bytes(data.count))
            #expect(plaintext.withUnsafeReadableBytes { $0.baseAddress } == before)
            #expect(plaintext.readableBytesArray == data)

            // A fresh buffer grows once, to room for all four records, not record by record.
            var fresh = ByteBuffer()
            pair.client.receivedCiphertext(ByteBuffer(bytes: try records(pair, [data])))
            #expect(try pair.client.readPlaintext(into: &fresh) == .bytes(data.count))
            #expect(fresh.capacity >= data.count && fresh.capacity <= 2 * (data.count + 1024))
        }

        @Test("A lent buffer is given back unshared: writing into it again copies nothing")
        func lentBufferNotRetained() throws {
            let pair = try established()
            var received = ByteBuffer(capacity: 65536)
            received.writeBytes(try records(pair, [patternBytes(count: 1000, seed: 10)]))
            let storage = received.withUnsafeReadableBytes { $0.baseAddress! - received.readerIndex }
            var plaintext = ByteBuffer()
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .bytes(1000))
            #expect(received.readableBytes == 0)
            // clear() reallocates shared storage; the same address means the engine kept nothing.
            received.clear()
            received.writeBytes(try records(pair, [[1, 2, 3]]))
            #expect(received.withUnsafeReadableBytes { $0.baseAddress } == storage)
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .bytes(3))
        }

        @Test("Bytes handed over earlier are read before lent ones")
        func mixedFeeding() throws {
            let pair = try established()
            let ciphertext = try records(pair, [Array("first ".utf8), Array("second".utf8)])
            let cut = ciphertext.count / 2 + 3
            pair.client.receivedCiphertext(ByteBuffer(bytes: ciphertext[..<cut]))
            var rest = ByteBuffer(bytes: ciphertext[cut...])
            var plaintext = ByteBuffer()
            while case .bytes = try pair.client.readPlaintext(from: &rest, into: &plaintext) {}
            #expect(plaintext.readableString == "first second")
            #expect(rest.readableBytes == 0)
        }

        @Test("A handshake over lent buffers leaves the request that followed the Finished for the read")
        func handshakeFromLentBuffers() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            var toServer = ByteBuffer(), toClient = ByteBuffer()
            var clientDone = false, serverDone = false
            for _ in 0..<10 where !(clientDone && serverDone) {
                if !clientDone {
                    clientDone = try pair.client.handshake(from: &toClient) != .needsMoreData && pair.client.isHandshakeComplete
                    pair.client.writePendingCiphertext(into: &toServer)
                    if clientDone {
                        // The request goes out right behind the client's Finished, in the same buffer.
                        try pair.client.writePlaintext(GatherList([.buffer(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n"))]), into: &toServer)
                    }
                }
                if !serverDone {
                    serverDone = try pair.server.handshake(from: &toServer) == .complete || pair.server.isHandshakeComplete
                    pair.server.writePendingCiphertext(into: &toClient)
                }
                toServer.discardReadBytes()
            }
            #expect(clientDone && serverDone)
            // The application data record after the Finished was left in the lent buffer.
            #expect(toServer.readableBytes > 0)
            var request = ByteBuffer()
            #expect(try pair.server.readPlaintext(from: &toServer, into: &request) == .bytes(18))
            #expect(request.readableString == "GET / HTTP/1.1\r\n\r\n")
            #expect(toServer.readableBytes == 0)
        }

        @Test("Gather lists: small pieces share records, large ones are encrypted from their storage")
        func outputCoalescing() throws {
            let pair = try established()
            var list = GatherList()
            list.append(ByteBuffer(bytes: patternBytes(count: 200, seed: 11)))  // a head
            for index in 0..<50 { list.append(ByteBuffer(bytes: [UInt8](repeating: UInt8(index), count: 10))) }
            list.append(ByteBuffer(bytes: patternBytes(count: 20_000, seed: 12)))  // a body piece
            list.append(.staticBytes("\r\n"))
            list.append(ByteBuffer(string: "4e20\r\n"))
            var expected: [UInt8] = []
            for piece in list.pieces { piece.withUnsafeBytes { expected += $0 } }

            try pair.client.writePlaintext(list)
            let output = pair.client.pendingCiphertext().readableBytesArray
            let headers = recordHeaders(output)
            // head + 50 small pieces → 1 record; 20,000 bytes → 2; CRLF + size line → 1.
            #expect(headers.count == 4)
            #expect(headers.allSatisfy { $0.type == 23 })
            pair.server.receivedCiphertext(ByteBuffer(bytes: output))
            var received = ByteBuffer()
            while case .bytes = try pair.server.readPlaintext(into: &received) {}
            #expect(received.readableBytesArray == expected)

            // Small pieces that add up to more than a record are cut at record size.
            var many = GatherList()
            for index in 0..<10 { many.append(ByteBuffer(bytes: [UInt8](repeating: UInt8(index), count: 4000))) }
            try pair.client.writePlaintext(many)
            #expect(recordHeaders(pair.client.pendingCiphertext().readableBytesArray).count == 3)
        }

        @Test("writePlaintext(_:into:) appends after what is there, without copying the records")
        func writeIntoCallerBuffer() throws {
            let pair = try established()
            var output = ByteBuffer(capacity: 1 << 20)
            output.writeString("earlier")
            let storage = output.withUnsafeReadableBytes { $0.baseAddress }
            for round in 0..<3 {
                try pair.client.writePlaintext(GatherList([.buffer(ByteBuffer(bytes: patternBytes(count: 30_000, seed: UInt64(round))))]),
                                               into: &output)
            }
            #expect(output.withUnsafeReadableBytes { $0.baseAddress } == storage)
            #expect(!pair.client.hasPendingCiphertext)
            #expect(output.readSlice(length: 7)?.readableString == "earlier")
            let headers = recordHeaders(output.readableBytesArray)
            #expect(headers.count == 6)
            pair.server.receivedCiphertext(output)
            var received = ByteBuffer()
            while case .bytes = try pair.server.readPlaintext(into: &received) {}
            #expect(received.readableBytes == 90_000)
        }

        @Test("Ciphertext already waiting goes out before new records")
        func pendingBeforeNewRecords() throws {
            let pair = try established()
            try pair.client.writePlaintext(ByteBuffer(string: "one "))
            var output = ByteBuffer()
            try pair.client.writePlaintext(ByteBuffer(string: "two"), into: &output)
            pair.server.receivedCiphertext(output)
            var received = ByteBuffer()
            while case .bytes = try pair.server.readPlaintext(into: &received) {}
            #expect(received.readableString == "one two")
        }

        @Test("close_notify through a lent buffer: .closed, and bytes after it stay unread", arguments: [TLSVersion.v1_3, .v1_2])
        func closeNotifyLent(version: TLSVersion) throws {
            let pair = try established(version)
            try pair.server.writePlaintext(ByteBuffer(string: "last words"))
            #expect(try pair.server.shutdown() == .closeNotifySent)
            var received = pair.server.pendingCiphertext()
            received.writeBytes([1, 2, 3, 4, 5])  // whatever follows the alert is not TLS's to read
            var plaintext = ByteBuffer()
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .bytes(10))
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .closed)
            #expect(received.readableBytesArray == [1, 2, 3, 4, 5])
            #expect(pair.client.hasReceivedCloseNotify)
        }

        @Test("EOF inside a record read from a lent buffer is a truncation")
        func truncationLent() throws {
            let pair = try established()
            let ciphertext = try records(pair, [patternBytes(count: 5000, seed: 13)])
            var received = ByteBuffer(bytes: ciphertext[..<(ciphertext.count - 1)])
            var plaintext = ByteBuffer()
            #expect(try pair.client.readPlaintext(from: &received, into: &plaintext) == .needsMoreData)
            #expect(received.readableBytes == 0)
            pair.client.receivedEOF()
            let error = #expect(throws: TLSError.self) { try pair.client.readPlaintext(from: &received, into: &plaintext) }
            #expect(error?.code == .closedWithoutCloseNotify)
            #expect(plaintext.readableBytes == 0)
        }
    }
}
