// The CourierBytes catalog's landing page (Sources/CourierBytes/CourierBytes.docc/CourierBytes.md),
// compiled and run: the block between `// doc: FILE N` and `// end doc` is the page's Nth swift
// block, line for line (scripts/check-doc-examples); what follows it checks what its comments say.

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
        #expect(name.readableString == "Content-Length" && buffer.readableString == "42\r\nmore")
    }
}
