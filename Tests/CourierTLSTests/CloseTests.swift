import CourierBytes
@testable import CourierTLS
import Testing

extension TLS {
    @Suite("close_notify versus truncation")
    struct Closing {
        func established(_ version: TLSVersion = .v1_3) throws -> TLSPair {
            var server = Fixtures.serverConfiguration()
            server.maximumVersion = version
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: server)
            #expect(pair.handshake().succeeded)
            _ = try pair.clientReadsPending()
            return pair
        }

        @Test("close_notify is a clean end, even followed by the transport's EOF", arguments: [TLSVersion.v1_3, .v1_2])
        func cleanClose(version: TLSVersion) throws {
            let pair = try established(version)
            try pair.server.writePlaintext(ByteBuffer(string: "last words"))
            #expect(try pair.server.shutdown() == .closeNotifySent)
            pair.pump()
            pair.client.receivedEOF()
            var received = ByteBuffer()
            #expect(try pair.client.readPlaintext(into: &received) == .bytes(10))
            #expect(received.readableString == "last words")
            #expect(try pair.client.readPlaintext(into: &received) == .closed)
            #expect(try pair.client.readPlaintext(into: &received) == .closed)
            #expect(pair.client.hasReceivedCloseNotify)
            // Answering the close completes the exchange.
            #expect(try pair.client.shutdown() == .complete)
            pair.pump()
            var sink = ByteBuffer()
            #expect(try pair.server.readPlaintext(into: &sink) == .closed)
        }

        @Test("EOF without close_notify after data is a truncation")
        func truncationAfterRecords() throws {
            let pair = try established()
            try pair.server.writePlaintext(ByteBuffer(string: "partial body"))
            pair.pump()
            pair.client.receivedEOF()
            var received = ByteBuffer()
            #expect(try pair.client.readPlaintext(into: &received) == .bytes(12))
            #expect(throws: TLSError.self) { try pair.client.readPlaintext(into: &received) }
            do {
                _ = try pair.client.readPlaintext(into: &received)
            } catch {
                #expect(error.code == .closedWithoutCloseNotify)
            }
        }

        @Test("EOF in the middle of a record is a truncation, its bytes never surface")
        func truncationMidRecord() throws {
            let pair = try established()
            try pair.server.writePlaintext(ByteBuffer(string: "this record is cut in half"))
            var record = pair.server.pendingCiphertext()
            pair.client.receivedCiphertext(record.readSlice(length: record.readableBytes / 2)!)
            var received = ByteBuffer()
            #expect(try pair.client.readPlaintext(into: &received) == .needsMoreData)
            pair.client.receivedEOF()
            let error = #expect(throws: TLSError.self) { try pair.client.readPlaintext(into: &received) }
            #expect(error?.code == .closedWithoutCloseNotify)
            #expect(received.readableBytes == 0)
        }

        @Test("EOF during the handshake is unexpectedEOF")
        func eofDuringHandshake() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(try pair.client.handshake() == .needsWrite)
            _ = pair.client.pendingCiphertext()
            pair.client.receivedEOF()
            let error = #expect(throws: TLSError.self) { try pair.client.handshake() }
            #expect(error?.code == .unexpectedEOF)
        }

        @Test("Shutdown before the handshake completes sends nothing")
        func shutdownBeforeHandshake() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(try pair.client.shutdown() == .complete)
            #expect(!pair.client.hasPendingCiphertext)
        }
    }
}
