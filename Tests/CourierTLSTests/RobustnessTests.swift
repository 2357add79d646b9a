import CourierBytes
@testable @_spi(Fuzzing) import CourierTLS
import Testing

extension TLS {
    @Suite("Hostile ciphertext")
    struct Robustness {
        @Test("Garbage instead of the server's first flight: handshakeFailed, no crash")
        func garbageForServerHello() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(try pair.client.handshake() == .needsWrite)
            _ = pair.client.pendingCiphertext()
            pair.client.receivedCiphertext(ByteBuffer(bytes: patternBytes(count: 4096)))
            let error = #expect(throws: TLSError.self) { try pair.client.handshake() }
            #expect(error?.code == .handshakeFailed)
            #expect(error?.openSSLErrors.isEmpty == false)
        }

        @Test("An HTTP reply instead of TLS: handshakeFailed")
        func plaintextHTTP() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            _ = try pair.client.handshake()
            _ = pair.client.pendingCiphertext()
            pair.client.receivedCiphertext(ByteBuffer(string: "HTTP/1.1 400 Bad Request\r\n\r\n"))
            #expect(throws: TLSError.self) { try pair.client.handshake() }
        }

        @Test("The real server flight with corrupted bytes, cut anywhere: a typed error or waiting, never a crash")
        func corruptedServerFlight() throws {
            let clientContext = try TLSClientContext(configuration: Fixtures.clientConfiguration())
            let serverContext = try TLSServerContext(configuration: Fixtures.serverConfiguration())
            // Capture one genuine server flight.
            let probe = try TLSPair(client: clientContext, server: serverContext)
            _ = try probe.client.handshake()
            probe.server.receivedCiphertext(probe.client.pendingCiphertext())
            _ = try probe.server.handshake()
            let flight = probe.server.pendingCiphertext().readableBytesArray
            #expect(flight.count > 100)

            var failures = 0
            for position in stride(from: 0, to: flight.count, by: 7) {
                var corrupted = flight
                corrupted[position] ^= 0x5A
                let pair = try TLSPair(client: clientContext, server: serverContext)
                _ = try pair.client.handshake()
                _ = pair.client.pendingCiphertext()
                pair.client.receivedCiphertext(ByteBuffer(bytes: corrupted))
                do {
                    // A corrupted length can leave the client waiting for bytes that never come;
                    // anything else is caught (record layer, handshake parsing, signature, MAC).
                    let step = try pair.client.handshake()
                    #expect(step == .needsMoreData, "corruption at \(position) was accepted")
                    pair.client.receivedEOF()
                    _ = try pair.client.handshake()
                } catch {
                    failures += 1
                }
            }
            #expect(failures == (flight.count + 6) / 7)
        }

        @Test("Garbage after the handshake: protocolError")
        func garbageApplicationData() throws {
            let pair = try TLSPair(client: Fixtures.clientConfiguration(), server: Fixtures.serverConfiguration())
            #expect(pair.handshake().succeeded)
            // A well-formed application_data record header with a body that is not a valid AEAD.
            var record: [UInt8] = [23, 3, 3, 0, 64]
            record += patternBytes(count: 64)
            pair.server.receivedCiphertext(ByteBuffer(bytes: record))
            var sink = ByteBuffer()
            let error = #expect(throws: TLSError.self) { try pair.server.readPlaintext(into: &sink) }
            #expect(error?.code == .protocolError)
        }

        @Test("Fuzz entry point: assorted inputs end in a typed error or waiting")
        func fuzzEntryPoint() {
            let inputs: [[UInt8]] = [
                [], [0], [22], [22, 3, 3, 0, 0], [22, 3, 3, 0xFF, 0xFF] + patternBytes(count: 100),
                [21, 3, 3, 0, 2, 2, 40], // a fatal handshake_failure alert
                [1] + patternBytes(count: 300), [0] + patternBytes(count: 5000), [22, 3, 1, 0, 4, 2, 0, 0, 0],
            ]
            for input in inputs {
                let code = TLSFuzzing.feedClientHandshake(input)
                #expect(code != .internalError, "input \(input.prefix(8))")
            }
            #expect(TLSFuzzing.feedClientHandshake([21, 3, 3, 0, 2, 2, 40]) == .alertReceived)
            #expect(TLSFuzzing.feedClientHandshake([]) == .unexpectedEOF)
        }
    }
}
