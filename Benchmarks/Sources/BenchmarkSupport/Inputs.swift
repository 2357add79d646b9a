// Deterministic inputs shared by the benchmark executables (the same bytes every run, so figures
// from two runs compare the same work).

/// A small xorshift generator: benchmarks must not depend on a random seed.
public struct XorShift: Sendable {
    var state: UInt64
    /// Creates a generator from a non-zero seed.
    public init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) { state = seed }
    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
    /// A value in 0..<n.
    public mutating func int(_ n: Int) -> Int { Int(next() % UInt64(n)) }
}

/// Words mixing plain ASCII, characters every query escapes, and 2-, 3- and 4-byte UTF-8.
public let sampleWords: [String] = [
    "alpha", "hello world", "a&b=c", "50% off", "café au lait", "日本語", "x:y/z?w", "emoji 😀",
    "[bracket]", "plus+sign", "O'Reilly", "semi;colon", "tilde~ok", "line\nbreak", "", "12345",
    "path/to/resource", "query?string", "naïve façade", "Ελληνικά", "a.b-c_d~e",
]

/// About `bytes` bytes of mixed ASCII/UTF-8 text (mostly ASCII, as real query values are).
public func mixedText(bytes: Int) -> String {
    var rng = XorShift()
    var out = ""
    out.reserveCapacity(bytes + 64)
    while out.utf8.count < bytes {
        // Three plain words for every mixed one: realistic parameter text is mostly unreserved.
        if rng.int(4) == 0 {
            out += sampleWords[rng.int(sampleWords.count)]
        } else {
            out += "parameter\(rng.int(100_000))value"
        }
        out += rng.int(3) == 0 ? " " : "-"
    }
    return out
}

/// A typical response head of 300–600 bytes, with the `n`th variation.
public func typicalResponseHead(_ n: Int) -> [UInt8] {
    let heads = [
        "HTTP/1.1 200 OK\r\nServer: nginx/1.22.1\r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: 1234\r\nConnection: keep-alive\r\nCache-Control: no-cache, no-store, must-revalidate\r\nETag: \"5f1b2c3d-4d2\"\r\nVary: Accept-Encoding\r\nX-Request-Id: 4b8f9a2e-1c3d-4e5f-8a9b-0c1d2e3f4a5b\r\nStrict-Transport-Security: max-age=31536000; includeSubDomains\r\n\r\n",
        "HTTP/1.1 200 OK\r\nServer: courier-bench\r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\nLast-Modified: Sat, 21 Nov 2026 09:00:00 GMT\r\nAccept-Ranges: bytes\r\nSet-Cookie: session=abcdef0123456789; Path=/; HttpOnly; Secure; SameSite=Lax\r\nX-Frame-Options: SAMEORIGIN\r\nX-Content-Type-Options: nosniff\r\nContent-Security-Policy: default-src 'self'\r\n\r\n",
        "HTTP/1.1 304 Not Modified\r\nDate: Sun, 22 Nov 2026 10:00:00 GMT\r\nServer: Apache\r\nConnection: Keep-Alive\r\nKeep-Alive: timeout=5, max=100\r\nETag: \"abc-123-def\"\r\nExpires: Sun, 22 Nov 2026 11:00:00 GMT\r\nCache-Control: max-age=3600\r\nVary: Accept-Encoding, User-Agent\r\nAge: 12\r\nVia: 1.1 varnish (Varnish/6.0)\r\nX-Cache: HIT\r\nX-Cache-Hits: 7\r\n\r\n",
    ]
    return Array(heads[n % heads.count].utf8)
}
