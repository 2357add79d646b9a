// moveUnconsumedBytes: a small unconsumed tail moves into the shell's next read buffer; a large one
// (a head of hundreds of KiB arriving in pieces) stays, and the next read is appended to it — so
// the read buffer always has room and each byte is copied a bounded number of times.

import CourierBytes
import CourierHTTP1
import Testing

@Suite struct ReceiveBufferTests {
    func event(_ connection: inout HTTP1ClientStateMachine) throws -> String {
        switch try connection.nextEvent() {
        case .needMoreData: return "needMoreData"
        case .responseHead(let head, _): return "head \(head.status) fields=\(head.headers.count)"
        default: return "other"
        }
    }

    @Test func aSmallTailMovesIntoTheReadBuffer() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(.init(method: .get), framing: .noBody)
        try connection.receivedBytes(ByteBuffer(string: "HTTP/1.1 2"))
        #expect(try event(&connection) == "needMoreData")
        var target = ByteBuffer(capacity: 4096)
        connection.moveUnconsumedBytes(into: &target)
        #expect(target.readableString == "HTTP/1.1 2")
        target.writeString("00 OK\r\nContent-Length: 0\r\n\r\n")
        try connection.receivedBytes(target)
        #expect(try event(&connection) == "head 200 fields=1")
    }

    @Test func aLargeTailStaysAndEveryReadHasRoom() throws {
        var connection = HTTP1ClientStateMachine()
        try connection.sendHead(.init(method: .get), framing: .noBody)
        try connection.receivedBytes(ByteBuffer(string: "HTTP/1.1 200 OK\r\nX: "))
        // 200 KiB of one field value arriving 1 KiB at a time, each read into a 4 KiB buffer.
        for _ in 0..<200 {
            var target = ByteBuffer(capacity: 4096)
            connection.moveUnconsumedBytes(into: &target)
            #expect(target.writableBytes >= 2048, "the read buffer keeps room to read into")
            target.writeString(String(repeating: "a", count: 1024))
            try connection.receivedBytes(target)
            #expect(try event(&connection) == "needMoreData")
        }
        var last = ByteBuffer(capacity: 4096)
        connection.moveUnconsumedBytes(into: &last)
        #expect(last.readableBytes == 0)
        last.writeString("\r\nContent-Length: 0\r\n\r\n")
        try connection.receivedBytes(last)
        #expect(try event(&connection) == "head 200 fields=2")
    }
}
