import Testing
import CourierBytes

@Suite struct GatherListTests {
    func sample() -> GatherList {
        var list = GatherList()
        list.append(.inline(InlineBytes(Array("a\r\n".utf8))))
        list.append(ByteBuffer(string: "0123456789"))
        list.append(.staticBytes("\r\n"))
        list.append(ByteBuffer())  // dropped: empty pieces would end a chunked body early
        return list
    }

    @Test func keepsPiecesAndCounts() {
        let list = sample()
        #expect(list.pieces.count == 3)
        #expect(list.count == 15)
        #expect(list.joined == Array("a\r\n0123456789\r\n".utf8))
    }

    @Test func consumeHandlesEveryPartialWrite() {
        let full = sample().joined
        for written in 0...full.count {
            var list = sample()
            list.consume(written)
            #expect(list.joined == Array(full[written...]), "after \(written) bytes")
            #expect(list.count == full.count - written)
        }
    }

    @Test func consumeInTwoStepsEqualsOneStep() {
        let full = sample().joined
        for a in 0...full.count {
            for b in 0...(full.count - a) {
                var list = sample()
                list.consume(a)
                list.consume(b)
                #expect(list.joined == Array(full[(a + b)...]))
            }
        }
    }

    @Test func bufferPiecesAreReferencedNotCopied() {
        let payload = ByteBuffer(string: "payload")
        var list = GatherList()
        list.append(payload)
        guard case .buffer(let held) = list.pieces[0] else { Issue.record("not a buffer piece"); return }
        held.withUnsafeReadableBytes { h in
            payload.withUnsafeReadableBytes { p in #expect(h.baseAddress == p.baseAddress) }
        }
    }

    @Test func inlineBytesHoldUpToCapacity() {
        var bytes = InlineBytes()
        for i in 0..<InlineBytes.capacity { bytes.append(UInt8(i)) }
        #expect(bytes.count == 31)
        #expect(bytes.array == (0..<31).map { UInt8($0) })
        bytes.reverse()
        #expect(bytes.array == (0..<31).reversed().map { UInt8($0) })
    }
}
