// The compressed routes of the loopback server (docs/loopback-server.md, docs/compression.md):
// /gzip/N and /deflate/N (Content-Length), /gzip-chunked/N (streamed), /bomb/N (gzip of N zero
// bytes, streamed) and /bad-gzip. They give the client's content decoding something real to
// decode, and its limits something to stop.
//
// The plaintext is LoopbackServer.compressibleText: 4096-byte blocks of words chosen by a
// deterministic generator seeded with the block's index, so any prefix can be produced a block at a
// time and a test can compute what it should decode to. It compresses about 3:1, like text.
//
// Streamed routes never hold their plaintext: each refill generates at most `plainBudget` bytes of
// text (or slices one shared buffer of zeros), compresses them, and hands out what zlib produced,
// so a /bomb/1073741824 costs a few KB of output per refill and one deflate state.

import CourierBytes
import CourierCompression

extension LoopbackServer {
    /// The size of one block of the compressible text.
    public static let compressibleTextBlockSize = 4096

    /// The plaintext of the `/gzip/N`, `/deflate/N` and `/gzip-chunked/N` routes: its first `count`
    /// bytes.
    /// - Parameter count: how many bytes.
    /// - Returns: the text (ASCII words, spaces and newlines).
    public static func compressibleText(count: Int) -> [UInt8] {
        var text = CompressibleText()
        var out = ByteBuffer(capacity: count)
        text.write(count, into: &out)
        return out.readableBytesArray
    }

    /// The largest N `/gzip/N` and `/deflate/N` accept (they compress the whole body before the
    /// head goes out, to send its Content-Length); the streamed routes have no limit.
    public static let maximumCompressedRouteSize: UInt64 = 64 << 20
}

/// The compressible text, produced in order a block at a time.
struct CompressibleText {
    private static let words: [String] = [
        "the", "of", "courier", "stream", "gzip", "deflate", "window", "header", "bytes", "piece",
        "limit", "ratio", "member", "block", "zlib", "loopback", "server", "request", "response", "body",
    ]
    private var block = 0
    private var offsetInBlock = 0
    private var current: [UInt8] = []

    /// Appends the next `count` bytes of the text to `buffer`.
    mutating func write(_ count: Int, into buffer: inout ByteBuffer) {
        var left = count
        while left > 0 {
            if offsetInBlock == current.count {
                current = CompressibleText.block(block)
                block += 1
                offsetInBlock = 0
            }
            let n = min(left, current.count - offsetInBlock)
            current.withUnsafeBytes { buffer.writeBytes(UnsafeRawBufferPointer(rebasing: $0[offsetInBlock..<offsetInBlock + n])) }
            offsetInBlock += n
            left -= n
        }
    }

    /// Block `index`: words from a linear congruential generator seeded with the index, a newline
    /// after every twelfth word, cut to exactly the block size.
    static func block(_ index: Int) -> [UInt8] {
        let size = LoopbackServer.compressibleTextBlockSize
        var state = UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1
        var out: [UInt8] = []
        out.reserveCapacity(size + 16)
        var wordCount = 0
        while out.count < size {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            out += words[Int(state >> 59) % words.count].utf8
            wordCount += 1
            out.append(wordCount % 12 == 0 ? 0x0A : 0x20)
        }
        return Array(out.prefix(size))
    }
}

/// The plaintext of a streamed compressed body, compressed as it is produced.
struct CompressedSource {
    enum Plaintext {
        case text(CompressibleText)
        case zeros
    }

    /// Plaintext bytes compressed per refill: text is slow to generate and compress, zeros fast.
    static let textBudget = 256 * 1024
    static let zerosBudget = 8 << 20
    /// One shared run of zeros, sliced for /bomb.
    static let zeros = ByteBuffer(bytes: [UInt8](repeating: 0, count: 1 << 20))

    var plaintext: Plaintext
    var encoder: ContentEncoder
    let total: UInt64
    private(set) var position: UInt64 = 0
    private(set) var isFinished = false

    init(plaintext: Plaintext, format: ContentEncoder.Format, total: UInt64) {
        self.plaintext = plaintext
        self.encoder = ContentEncoder(format)
        self.total = total
    }

    /// Compresses the next part of the plaintext (the end of the stream with the last part).
    /// - Returns: the compressed bytes (possibly none while zlib fills a block).
    mutating func next() -> ByteBuffer {
        precondition(!isFinished)
        var out = ByteBuffer()
        switch plaintext {
        case .text(var text):
            let n = Int(min(UInt64(CompressedSource.textBudget), total - position))
            var plain = ByteBuffer(capacity: n)
            text.write(n, into: &plain)
            plaintext = .text(text)
            position += UInt64(n)
            out.writeBuffer(encoder.encode(plain))
        case .zeros:
            var budget = UInt64(CompressedSource.zerosBudget)
            while budget > 0 && position < total {
                let n = Int(min(UInt64(CompressedSource.zeros.readableBytes), budget, total - position))
                out.writeBuffer(encoder.encode(CompressedSource.zeros.getSlice(at: CompressedSource.zeros.readerIndex, length: n)!))
                position += UInt64(n)
                budget -= UInt64(n)
            }
        }
        if position == total {
            out.writeBuffer(encoder.finish())
            isFinished = true
        }
        return out
    }

    /// A whole compressed body at once (for the Content-Length routes).
    static func wholeBody(textCount: UInt64, format: ContentEncoder.Format) -> ByteBuffer {
        var source = CompressedSource(plaintext: .text(CompressibleText()), format: format, total: textCount)
        var body = ByteBuffer()
        while !source.isFinished { body.writeBuffer(source.next()) }
        return body
    }

    /// The `/bad-gzip` body: a valid gzip header (RFC 1952 §2.3) followed by a deflate block of the
    /// reserved type 3 (RFC 1951 §3.2.3), then filler: every decoder must reject it.
    static let badGzip: ByteBuffer = {
        var body = ByteBuffer()
        body.writeBytes([0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x07] as [UInt8])
        body.writeString("this is not deflate data\n")
        return body
    }()
}
