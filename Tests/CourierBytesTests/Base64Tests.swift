import CourierBytes
import Testing

/// The one Base64 of the package (it was two: CourierTLS's strict one for pins, and Courier's
/// whitespace-tolerant one for property lists).
@Suite("Base64 (RFC 4648)")
struct Base64Tests {
    /// RFC 4648 §10 test vectors.
    static let vectors: [(String, String)] = [
        ("", ""), ("f", "Zg=="), ("fo", "Zm8="), ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="), ("fooba", "Zm9vYmE="), ("foobar", "Zm9vYmFy"),
    ]

    @Test("RFC 4648 §10 vectors encode and decode")
    func vectors() {
        for (plain, encoded) in Self.vectors {
            #expect(Base64.encode(Array(plain.utf8)) == encoded)
            #expect(Base64.decode(encoded) == Array(plain.utf8))
        }
    }

    @Test("Every length 0...300 of varied bytes round-trips, and every byte value appears")
    func roundTrips() {
        for length in 0...300 {
            let bytes = Self.pattern(count: length, seed: UInt64(length) &+ 7)
            let encoded = Base64.encode(bytes)
            #expect(encoded.utf8.count == (length + 2) / 3 * 4)
            #expect(Base64.decode(encoded) == bytes)
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64.decode(Base64.encode(all)) == all)
        #expect(Base64.encode([0xFB, 0xFF]) == "+/8=")
    }

    @Test("Non-canonical or malformed input is refused", arguments: [
        "Zg", "Zg=", "Z===", "Zh==", "Zm9=", "Zm 9v", "Zm9v\n", "Zm9v====", "=Zm9", "Zg==Zg==", "Zm-v", "Zm_v", "Zm9\u{e9}",
    ])
    func malformed(text: String) {
        #expect(Base64.decode(text) == nil)
    }

    @Test("Whitespace is skipped only when asked (property-list <data> lines); the rest stays strict")
    func whitespace() {
        #expect(Base64.decode("Zm9v\n YmFy", ignoringWhitespace: true) == Array("foobar".utf8))
        #expect(Base64.decode("\tZm9v\r\nYg==\n", ignoringWhitespace: true) == Array("foob".utf8))
        #expect(Base64.decode("Zm9v\n YmFy") == nil)
        for bad in ["Zg=", "Z", "Zm9v=", "Zh==", "Zm!v", "Zg==Zg==", "Zg= =x"] {
            #expect(Base64.decode(bad, ignoringWhitespace: true) == nil, "\(bad)")
        }
    }

    /// Deterministic pseudo-random bytes (xorshift).
    static func pattern(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return bytes
    }
}
