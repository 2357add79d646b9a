// Fuzzing entry points: arbitrary bytes fed to a TLS engine as if they came from the network.
//
// The property: whatever the bytes, the engine returns or throws a TLSError; it never crashes,
// never loops, and never leaks (TLSDebugCounters.liveObjects comes back to where it was).

import CourierBytes

/// Entry points for the fuzz package.
@_spi(Fuzzing)
public enum TLSFuzzing {
    /// A client context that verifies nothing and resumes nothing, so any server flight is judged
    /// only by the record and handshake layers, and no state carries over between inputs.
    private static let clientContext: TLSClientContext? = {
        var configuration = TLSConfiguration()
        configuration.trustRoots = .certificates([])
        configuration.certificateVerification = .none
        configuration.sessionCacheCapacity = 0
        return try? TLSClientContext(configuration: configuration)
    }()

    /// Sends a ClientHello, then feeds `data` as the server's reply, split into the pieces `data`
    /// itself chooses (its first byte, when not zero, is the piece length; when odd, the pieces
    /// are read in place from a lent receive buffer, else handed over), then ends the stream.
    /// - Parameter data: arbitrary bytes.
    /// - Returns: the error code the engine ended with, or nil if it is still waiting or done.
    @discardableResult
    public static func feedClientHandshake(_ data: [UInt8]) -> TLSError.Code? {
        guard let context = clientContext else { preconditionFailure("fuzz client context could not be made") }
        let connection: TLSConnection
        do {
            connection = try TLSConnection(context: context, host: "fuzz.example", port: 443)
        } catch {
            preconditionFailure("fuzz client connection could not be made: \(error)")
        }
        do {
            // The ClientHello.
            guard try connection.handshake() == .needsWrite else { preconditionFailure("no ClientHello") }
            _ = connection.pendingCiphertext()

            let pieceLength = data.first.map { $0 == 0 ? data.count : Int($0) } ?? 0
            let lent = (data.first ?? 0) & 1 == 1
            var received = ByteBuffer()
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + max(pieceLength, 1))
                if lent {
                    received.discardReadBytes()
                    data[offset..<end].withUnsafeBytes { received.writeBytes($0) }
                } else {
                    data[offset..<end].withUnsafeBytes { connection.receivedCiphertext($0) }
                }
                offset = end
                if try drive(connection, &received) { return nil }
            }
            connection.receivedEOF()
            _ = try drive(connection, &received)
            return nil
        } catch {
            return error.code
        }
    }

    /// Runs the handshake (and, once complete, reads) until it needs more input.
    /// - Returns: true when the connection reached a clean end.
    private static func drive(_ connection: TLSConnection, _ received: inout ByteBuffer) throws(TLSError) -> Bool {
        // Bounded: each step either consumes input or produces output that is drained.
        for _ in 0..<64 {
            switch try connection.handshake(from: &received) {
            case .needsWrite:
                _ = connection.pendingCiphertext()
            case .needsMoreData:
                return false
            case .complete:
                var plaintext = ByteBuffer()
                switch try connection.readPlaintext(from: &received, into: &plaintext) {
                case .bytes: continue
                case .needsMoreData: return false
                case .closed: return true
                }
            }
        }
        return false
    }
}
