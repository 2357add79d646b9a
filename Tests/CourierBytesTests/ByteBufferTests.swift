import Testing
@testable import CourierBytes

@Suite struct ByteBufferTests {
    @Test func writesAndReadsBack() {
        var buffer = ByteBuffer()
        buffer.writeString("hello ")
        buffer.writeBytes([0x77, 0x6F] as [UInt8])
        buffer.writeInteger(UInt8(ascii: "r"))
        buffer.writeString("ld")
        #expect(buffer.readableBytes == 11)
        #expect(buffer.readableString == "hello world")
        #expect(buffer.readString(length: 6) == "hello ")
        #expect(buffer.readerIndex == 6)
        #expect(buffer.readBytes(length: 5) == Array("world".utf8))
        #expect(buffer.isEmpty)
        #expect(buffer.readBytes(length: 1) == nil)
        #expect(buffer.readInteger() == nil)
    }

    @Test func growsGeometricallyAndKeepsBytes() {
        var buffer = ByteBuffer(capacity: 1)
        var expected: [UInt8] = []
        for i in 0..<10_000 {
            let byte = UInt8(truncatingIfNeeded: i &* 31)
            buffer.writeInteger(byte)
            expected.append(byte)
        }
        #expect(buffer.readableBytesArray == expected)
        #expect(buffer.capacity >= 10_000 && buffer.capacity < 40_000)
    }

    @Test func slicesShareStorageAndSurviveWritesToTheParent() {
        var buffer = ByteBuffer(string: "GET / HTTP/1.1")
        let slice = buffer.getSlice(at: 0, length: 3)!
        #expect(slice.readableString == "GET")
        #expect(slice.storage === buffer.storage, "a slice must not copy")
        // Writing to the parent while the slice is alive must copy, never change the slice.
        buffer.clear()
        buffer.writeString("PUT")
        #expect(slice.readableString == "GET")
        #expect(buffer.readableString == "PUT")
        #expect(slice.storage !== buffer.storage)
    }

    @Test func writingToASliceCopiesIt() {
        let parent = ByteBuffer(string: "abcdef")
        var slice = parent.getSlice(at: 2, length: 2)!
        slice.writeString("XY")
        #expect(slice.readableString == "cdXY")
        #expect(parent.readableString == "abcdef")
    }

    @Test func slicesAreBoundsChecked() {
        var buffer = ByteBuffer(string: "abc")
        #expect(buffer.getSlice(at: 0, length: 4) == nil)
        #expect(buffer.getSlice(at: -1, length: 1) == nil)
        #expect(buffer.getSlice(at: 3, length: 0)?.readableBytes == 0)
        #expect(buffer.getSlice(at: 1, length: Int.max) == nil)
        #expect(buffer.readSlice(length: 2)?.readableString == "ab")
        #expect(buffer.readSlice(length: 2) == nil)
        #expect(buffer.readerIndex == 2)
    }

    @Test func discardReadBytesCompactsInPlaceWhenUnique() {
        var buffer = ByteBuffer(capacity: 16)
        buffer.writeString("0123456789")
        buffer.moveReaderIndex(forwardBy: 4)
        let address = buffer.withUnsafeReadableBytes { $0.baseAddress! - 4 }
        buffer.discardReadBytes()
        #expect(buffer.withUnsafeReadableBytes { $0.baseAddress! } == address)
        #expect(buffer.readerIndex == 0 && buffer.writerIndex == 6)
        #expect(buffer.readableString == "456789")
    }

    @Test func discardReadBytesNeverChangesSlices() {
        var buffer = ByteBuffer(string: "0123456789")
        let slice = buffer.getSlice(at: 0, length: 4)!
        buffer.moveReaderIndex(forwardBy: 4)
        buffer.discardReadBytes()
        buffer.writeString("abcd")
        #expect(slice.readableString == "0123")
        #expect(buffer.readableString == "456789abcd")
    }

    @Test func writeWithUnsafeMutableBytesAdvancesByWhatWasWritten() {
        var buffer = ByteBuffer()
        let n = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 8) { region in
            #expect(region.count >= 8)
            region[0] = 1; region[1] = 2; region[2] = 3
            return 3
        }
        #expect(n == 3)
        #expect(buffer.readableBytesArray == [1, 2, 3])
    }

    @Test func equalityAndHashingUseReadableBytesOnly() {
        var a = ByteBuffer(string: "xxhello")
        a.moveReaderIndex(forwardBy: 2)
        let b: ByteBuffer = "hello"
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
        #expect(a != ByteBuffer(string: "hellp"))
        #expect(ByteBuffer() == ByteBuffer(capacity: 100))
    }

    @Test func writeBufferTakesStorageWhenEmpty() {
        let source = ByteBuffer(string: "payload")
        var target = ByteBuffer()
        target.writeBuffer(source)
        #expect(target.storage === source.storage)
        target.writeBuffer(ByteBuffer(string: "!"))
        #expect(target.readableString == "payload!")
        #expect(source.readableString == "payload")
    }

    @Test func growthPolicyTerminatesAndNeverOverflows() {
        #expect(ByteBuffer.grownCapacity(from: 0, toHold: 1) == 64)
        #expect(ByteBuffer.grownCapacity(from: 64, toHold: 65) == 128)
        #expect(ByteBuffer.grownCapacity(from: 100, toHold: 100) == 100)
        // Past Int.max / 2 doubling would wrap to a negative number and then to 0 for ever (a hang,
        // not a trap); the policy must give at least the minimum without overflowing.
        let huge = Int.max / 2 + 2
        #expect(ByteBuffer.grownCapacity(from: 64, toHold: huge) >= huge)
        #expect(ByteBuffer.grownCapacity(from: 64, toHold: Int.max) == Int.max)
    }

    @Test func sizeStaysSmall() {
        // A buffer is passed around by value on every parse; keep it to one reference and four words.
        #expect(MemoryLayout<ByteBuffer>.size == 40)
    }
}
