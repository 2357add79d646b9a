// Sources/CourierHTTP1/CourierHTTP1.docc/CourierHTTP1.md, compiled: each block between `// doc: Sources/CourierHTTP1/CourierHTTP1.docc/CourierHTTP1.md N` and `// end doc` is the
// catalog page's Nth swift block, line for line (scripts/check-doc-examples compares them).
// The block runs: it needs no network.

import CourierBytes
import CourierHTTP1
import Testing

@Suite struct CourierHTTP1DocCTests {
    @Test("the CourierHTTP1 catalog's example 1 compiles and runs")
    func example1() throws {
        // doc: Sources/CourierHTTP1/CourierHTTP1.docc/CourierHTTP1.md 1

        var parser = ResponseHeadParser()
        let bytes = ByteBuffer(string: "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello")
        if case .complete(let head, let consumed) = try parser.parse(bytes) {
            print(head.status, head.headers.firstString("content-type") ?? "", consumed)   // 200 text/plain 64
        }

        var request = ByteBuffer()
        _ = try RequestHeadEncoder().encode(method: .get, target: "/", host: "example.com",
                                            headers: HTTPHeaders([("Accept", "*/*")]), body: .none, into: &request)
        print(request.readableString)   // GET / HTTP/1.1, Host: example.com, Accept: */*
        // end doc
    }
}
