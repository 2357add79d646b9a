// Sources/CourierBytes/CourierBytes.docc/CourierBytes.md, compiled: each block between `// doc: Sources/CourierBytes/CourierBytes.docc/CourierBytes.md N` and `// end doc` is the
// catalog page's Nth swift block, line for line (scripts/check-doc-examples compares them).
// The block runs: it needs no network.

import CourierBytes
import Testing

@Suite struct CourierBytesDocCTests {
    @Test("the CourierBytes catalog's example 1 compiles and runs")
    func example1() throws {
        // doc: Sources/CourierBytes/CourierBytes.docc/CourierBytes.md 1

        var buffer = ByteBuffer(string: "Content-Length: 42\r\n")
        let name = buffer.readSlice(length: 14)!             // shares storage with `buffer`
        buffer.moveReaderIndex(forwardBy: 2)                 // ": "
        print(name.readableString, buffer.readableBytes)     // Content-Length 4
        buffer.writeString("more")
        print(buffer.readableString)                         // "42\r\nmore"
        // end doc
    }
}
